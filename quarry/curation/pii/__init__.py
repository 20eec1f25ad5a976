"""PII and secret detection and redaction: detectors, suppression of look-alikes, redaction and
the per-shard step. ``detect(text)`` finds, ``redact(text)`` replaces, ``redact_shard`` does one shard."""

from quarry.curation.pii.findings import TYPES, Finding
from quarry.curation.pii.engine import PiiConfig, detect
from quarry.curation.pii.redact import PLACEHOLDERS, apply_redactions, redact
from quarry.curation.pii.shards import redact_shard, scan_path

__all__ = ["TYPES", "PLACEHOLDERS", "Finding", "PiiConfig", "apply_redactions", "detect", "redact",
           "redact_shard", "scan_path"]
