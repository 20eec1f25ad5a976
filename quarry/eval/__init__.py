"""Bits-per-byte evaluation of checkpoints: the stage, its float64 reference, the lm-eval cross-check,
plots; the batched rolling-window scorer itself is quarry.eval.bpb."""

from quarry.eval.bpb import BpbResult, SubsetScore, rolling_windows, score_documents, score_records

__all__ = ["BpbResult", "SubsetScore", "rolling_windows", "score_documents", "score_records"]
