"""PII / secret detection, side by side: quarry.curation.pii vs detect-secrets (all plugins) vs datatrove's
PIIFormatter, on one labeled set (precision / recall per type, and the share of planted values that
redaction leaves wholly or in part) and one real-text corpus (throughput in MB/s per core, measured
as CPU time of this process, the best of three passes). Prints JSON. A peer that is not installed is reported as such.

    python bench/pii.py                        # 400 labeled docs, 8 MB corpus (2 MB for detect-secrets)
    python bench/pii.py --docs 2000 --mb 200 --ds-mb 200   # the full-size run
    python bench/pii.py --labeled held_out.jsonl           # score on another labeled set (same format)

The corpus is the installed packages' own source files (site-packages), read in sorted order.
``generalisation`` scores quarry on what its rules were not written against: the labelled
generators' development and held-back template halves (tests/pii/template_split.py) and real
text shipped by installed packages, with hand-checked findings (tests/pii/real_text.py), per class.
"""

from __future__ import annotations

import argparse
import gc
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "pii"))  # the labelled set lives with the tests

from floors import Floors  # noqa: E402
from peers import peer_versions  # noqa: E402
from quarry.curation.pii import detect  # noqa: E402
from quarry.curation.pii.detectors import DETECTORS  # noqa: E402
from labeled import build_labeled_set  # noqa: E402  (tests/pii: the labelled set the tests score too)
from pii_scoring import CATEGORY, score, summary, survival  # noqa: E402
from real_text import by_class, load_real_text  # noqa: E402
from template_split import HALVES  # noqa: E402

SUFFIX = {"Python": ".py", "JavaScript": ".js", "Go": ".go", "Java": ".java", "YAML": ".yaml", "dotenv": ".env",
          "JSON": ".json", "Shell": ".sh", "Markdown": ".md"}
SOURCE_SUFFIXES = (".py", ".pyi", ".js", ".ts", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".md", ".rst",
                   ".txt", ".sh", ".c", ".h", ".html")


# ---------------------------------------------------------------------------------------------
# The three tools, each as "text -> [(start, end, category)]" plus a throughput function.

def quarry_predict(doc: dict) -> list:
    return [(f.start, f.end, CATEGORY[f.type]) for f in detect(doc["text"])]


class DetectSecrets:
    """detect-secrets 1.5 with every plugin and its default filters, scanning files as it does."""

    categories = ("CREDENTIAL", "IP_ADDRESS")

    def __init__(self):
        from detect_secrets.settings import default_settings

        self._settings = default_settings()
        self._settings.__enter__()
        self.tmp = Path(tempfile.mkdtemp(prefix="pii-bench-"))

    def scan(self, path: Path):
        from detect_secrets.core.scan import scan_file

        return list(scan_file(str(path)))

    def predict(self, doc: dict) -> list:
        path = self.tmp / f"{doc['id']}{SUFFIX.get(doc.get('language'), '.txt')}"
        path.write_text(doc["text"], encoding="utf-8")
        line_starts = [0]
        for i, ch in enumerate(doc["text"]):
            if ch == "\n":
                line_starts.append(i + 1)
        lines = doc["text"].split("\n")
        out = []
        for secret in self.scan(path):
            line = lines[secret.line_number - 1]
            at = line.find(secret.secret_value or "")
            start = line_starts[secret.line_number - 1] + max(at, 0)
            end = start + (len(secret.secret_value) if at >= 0 else len(line))
            out.append((start, end, "IP_ADDRESS" if "IP" in secret.type else "CREDENTIAL"))
        path.unlink()
        return out


class Datatrove:
    """datatrove's PIIFormatter (e-mails and public IPs); spans from its own regexes and validator."""

    categories = ("EMAIL", "IP_ADDRESS")

    def __init__(self):
        from datatrove.pipeline.formatters.pii import PIIFormatter

        self.formatter = PIIFormatter()

    def predict(self, doc: dict) -> list:
        out = []
        replacers = ((self.formatter.emails_replacer, "EMAIL"), (self.formatter.ip_replacer, "IP_ADDRESS"))
        for replacer, category in replacers:
            for m in replacer.regex.finditer(doc["text"]):
                if replacer.validator is None or replacer.validator(m.group(0)):
                    out.append((m.start(), m.end(), category))
        return out


# ---------------------------------------------------------------------------------------------

def _peer(factory):
    """The peer tool, or None where it is not installed."""
    try:
        return factory()
    except ImportError:
        return None


def _spans(predict):
    return lambda doc: [(start, end) for start, end, _ in predict(doc)]


def load_labeled(path: Path | None, docs: int, seed: int) -> list[dict]:
    if path is None:
        return build_labeled_set(docs, seed)
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def corpus_files(limit_mb: float) -> list[tuple[Path, str]]:
    """Real source files from site-packages, sorted, until limit_mb of UTF-8 text."""
    root = Path(sysconfig.get_paths()["purelib"])
    files, total = [], 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        files.append((path, text))
        total += len(text.encode("utf-8"))
        if total >= limit_mb * 1e6:
            break
    return files


PASSES = 3  # a rate is the best of this many passes: on a shared machine one pass can be slowed by its neighbours


def best_cpu_seconds(run, passes: int = PASSES) -> float:
    """The least CPU time of this process that ``run(attempt)`` took over ``passes`` calls."""
    seconds = float("inf")
    for attempt in range(passes):
        start = time.process_time()
        run(attempt)
        seconds = min(seconds, time.process_time() - start)
    return seconds


def mb_per_cpu_second(files, fn, passes: int = PASSES) -> tuple[float, float]:
    size = sum(len(text.encode("utf-8")) for _, text in files) / 1e6

    def one_pass(_attempt):
        for item in files:
            fn(item)

    seconds = best_cpu_seconds(one_pass, passes)
    return round(size / seconds, 3), round(size, 2)


def stage_mb_per_cpu_second(files) -> float:
    """The whole stage on one shard of the corpus: read jsonl.zst, redact, write jsonl.zst."""
    from quarry.curation.pii import redact_shard
    from quarry.records import write_records

    size = sum(len(text.encode("utf-8")) for _, text in files) / 1e6
    with tempfile.TemporaryDirectory(prefix="pii-bench-") as tmp:
        src = Path(tmp) / "part-00000.jsonl.zst"
        write_records(src, ({"text": text, "meta": {"id": str(i)}} for i, (_, text) in enumerate(files)))
        seconds = best_cpu_seconds(lambda attempt: redact_shard(src, Path(tmp) / f"out-{attempt}" / src.name))
        return round(size / seconds, 3)


def _row(result: dict) -> dict:
    """One line of a summary: what a class is judged by."""
    keys = ("documents", "planted", "leak_rate", "precision", "recall", "hard_negatives", "hard_negatives_intact")
    return {k: result[k] for k in keys}


def generalisation(docs: int, seed: int) -> dict:
    halves = {}
    for half in HALVES:
        result = summary(build_labeled_set(docs, seed, half), quarry_predict)
        halves[half] = {**_row(result), "by_type": result["by_type"], "survival_by_kind": result["survival_by_kind"],
                        "intact_by_kind": {k: v for k, v in result["intact_by_kind"].items() if v < 1}}
    real = load_real_text()
    return {"template_halves": halves,
            "real_text": {**_row(summary(real, quarry_predict)),
                          "by_class": {name: _row(summary(group, quarry_predict)) for name, group in by_class(real).items()}}}


def state_floors(labeled: dict, general: dict | None = None) -> Floors:
    """Quarry: precision and recall of every type and the share of planted values redaction leaves
    (measured on the seeded 400-document set: precision 1.0, recall >= 0.998, survival 0.0023).
    The peers' floors guard their adapters (spans read back from each tool), not their quality:
    measured detect-secrets credential recall 0.66, datatrove e-mail recall 1.0."""
    floors = Floors()
    for category, row in labeled["quarry"]["by_type"].items():
        floors.at_least(f"quarry.{category}.precision", row["precision"], 0.95)
        floors.at_least(f"quarry.{category}.recall", row["recall"], 0.95)
    floors.at_least("quarry.known_shape_recall", labeled["quarry"]["known_shape_recall"], 0.98)
    floors.at_most("quarry.survival_rate", labeled["quarry"]["survival_rate"], 0.01)
    if isinstance(labeled["detect_secrets"], dict):
        floors.at_least("detect_secrets.CREDENTIAL.recall",
                        labeled["detect_secrets"]["by_type"]["CREDENTIAL"]["recall"], 0.5)
    if isinstance(labeled["datatrove"], dict):
        floors.at_least("datatrove.EMAIL.recall", labeled["datatrove"]["by_type"]["EMAIL"]["recall"], 0.9)
    for name, row in (general or {}).get("template_halves", {}).items():
        floors.at_most(f"quarry.{name}.leak_rate", row["leak_rate"], 0.005)
        floors.at_least(f"quarry.{name}.precision", row["precision"], 0.98)
        floors.at_least(f"quarry.{name}.hard_negatives_intact", row["hard_negatives_intact"], 0.99)
    if general:
        real = general["real_text"]
        floors.at_least("quarry.real_text.precision", real["precision"], 0.9)
        floors.at_least("quarry.real_text.hard_negatives_intact", real["hard_negatives_intact"], 0.99)
    return floors


def secrets_in_real_files(files, seed: int) -> dict:
    """Per sensitivity: the share of generated provider-format secrets planted in real files (many
    assignment syntaxes) left verbatim, of plain placeholder lines altered, and of the real files
    themselves (nothing planted) given a KEY / PASSWORD redaction."""
    from secret_formats import planted

    from quarry.curation.pii import redact
    from quarry.curation.pii.engine import PiiConfig

    texts = [text for _, text in files]
    secrets, placeholders = planted(texts, seed)
    out = {"files": len(texts), "secrets": len(secrets), "placeholders": len(placeholders)}
    for level in ("low", "medium", "high"):
        config = PiiConfig(sensitivity=level)
        leaked = [name for text, secret, name in secrets if secret in redact(text, config)[0]]
        altered = sum(line not in redact(text, config)[0] for text, line in placeholders)
        flagged = sum(any(f.type in ("KEY", "PASSWORD") for f in detect(text, config)) for text in texts)
        out[level] = {"secrets_left_pct": round(100 * len(leaked) / len(secrets), 2),
                      "left_by_format": {n: leaked.count(n) for n in sorted(set(leaked))},
                      "placeholders_altered_pct": round(100 * altered / len(placeholders), 2),
                      "real_files_with_key_or_password_pct": round(100 * flagged / len(texts), 2)}
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=400, help="labeled documents to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--labeled", type=Path, help="a labeled jsonl set instead of a generated one")
    parser.add_argument("--mb", type=float, default=8, help="corpus size for quarry and datatrove")
    parser.add_argument("--ds-mb", type=float, default=2, help="corpus size for detect-secrets (it is slow)")
    parser.add_argument("--secrets-only", action="store_true", help="only the secrets-in-real-files section")
    args = parser.parse_args(argv)
    if args.secrets_only:
        result = {"secrets_in_real_files": secrets_in_real_files(corpus_files(args.ds_mb), args.seed)}
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
        return result

    docs = load_labeled(args.labeled, args.docs, args.seed)
    ds, dt = _peer(DetectSecrets), _peer(Datatrove)
    missing = "not installed"
    labeled = {
        "documents": len(docs), "seed": None if args.labeled else args.seed,
        "spans": sum(len(d["spans"]) for d in docs), "hard_negatives": sum(len(d.get("negatives", [])) for d in docs),
        "quarry": {**score(docs, quarry_predict), **survival(docs, _spans(quarry_predict))},
        "detect_secrets": score(docs, ds.predict, ds.categories) if ds else missing,
        "datatrove": score(docs, dt.predict, dt.categories) if dt else missing,
        "quarry_on_detect_secrets_types": score(docs, quarry_predict, DetectSecrets.categories)["by_type"],
        "quarry_on_datatrove_types": score(docs, quarry_predict, Datatrove.categories)["by_type"],
    }

    general = generalisation(args.docs, args.seed)
    # the labelled sets and the peers' objects live on through the timings: frozen, the cyclic
    # collector leaves them out of its passes, as a stage's process would not hold them
    gc.collect()
    gc.freeze()
    files = corpus_files(max(args.mb, args.ds_mb))
    small = corpus_files(args.ds_mb) if args.ds_mb < args.mb else files
    quarry_rate, size = mb_per_cpu_second(files, lambda item: detect(item[1]))
    per_detector = {name: mb_per_cpu_second(files, lambda item, fn=fn: list(fn(item[1])))[0]
                    for name, fn in DETECTORS.items()}
    dt_rate = mb_per_cpu_second(files, lambda item: dt.formatter.format(item[1]))[0] if dt else missing
    stage_rate = stage_mb_per_cpu_second(files)
    ds_rate, ds_size = mb_per_cpu_second(small, lambda item: ds.scan(item[0]), passes=1) if ds else (missing, 0)
    result = {
        "versions": peer_versions("detect-secrets", "datatrove"),
        "labeled_set": labeled,
        "generalisation": general,
        "secrets_in_real_files": secrets_in_real_files(small, args.seed),
        "throughput_mb_per_core_s": {
            "corpus": f"site-packages source files, sorted ({size} MB; detect-secrets on the first {ds_size} MB)",
            "passes": f"best of {PASSES} (detect-secrets: 1)",
            "quarry_all_detectors": quarry_rate, "quarry_by_detector": per_detector,
            "quarry_stage_with_io": stage_rate,
            "detect_secrets_all_plugins": ds_rate, "datatrove_pii_formatter": dt_rate,
        },
    }
    state_floors(labeled, general).emit(result)
    return result


if __name__ == "__main__":
    main()
