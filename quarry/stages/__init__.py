"""The DAG's stages, each described once (quarry.engine.Stage) in a module of its own: snapshot,
the curation stages (curation.py runs them in order), assemble, tokenize, evaluate. Importing
one imports only what it runs, so a DVC stage depends on its own code alone."""

# The DAG's stages in order: the one list that dvc.yaml, the pipeline flow and `quarry flow`
# follow (tests/config checks dvc.yaml against it).
DAG = ("snapshot", "curate", "assemble", "audit", "tokenizer", "tokenize", "train", "finetune", "evaluate")
