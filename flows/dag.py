"""The DAG's stages in order: the one list that dvc.yaml, the pipeline flow and `quarry flow`
follow (tests/pipeline checks dvc.yaml against it)."""

DAG = ("snapshot", "curate", "assemble", "audit", "tokenizer", "tokenize", "train", "finetune", "evaluate")
