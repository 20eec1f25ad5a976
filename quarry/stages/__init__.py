"""The engine's stages (quarry.engine.Stage), each described once in a module of its own:
snapshot, the six curation stages (curation.py runs them in order), assemble, tokenize, evaluate.
Importing one imports only what it runs, so a DVC stage depends on its own code alone. The DAG's
nodes, some of which run no stage, are listed in quarry.dag."""
