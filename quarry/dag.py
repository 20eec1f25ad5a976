"""The DAG's nodes in order: the one list that dvc.yaml, the pipeline flow, `quarry flow` and the
opt-out impact report follow (tests/config checks dvc.yaml against it).

A node is a step of the DAG, not necessarily an engine stage (quarry.stages): ``curate`` runs six
stages, ``audit``, ``train`` and ``finetune`` run no stage at all.
"""

NODES = ("snapshot", "curate", "assemble", "audit", "tokenizer", "tokenize", "train", "finetune", "evaluate")
