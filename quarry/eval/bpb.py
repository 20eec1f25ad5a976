"""The scorer lives in quarry.bpb (training validates with it too); quarry.eval.stage still imports
it from here until it names quarry.bpb."""

from quarry.bpb import BpbResult, score_records

__all__ = ["BpbResult", "score_records"]
