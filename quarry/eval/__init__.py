"""Bits-per-byte evaluation: the batched rolling-window scorer, its float64 reference, plots."""

from quarry.eval.bpb import BpbResult, SubsetScore, rolling_windows, score_documents, score_records

__all__ = ["BpbResult", "SubsetScore", "rolling_windows", "score_documents", "score_records"]
