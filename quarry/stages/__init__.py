"""The DAG's stages, each described once (quarry.engine.Stage) in a module of its own: snapshot,
the curation stages (curation.py runs them in order), assemble, tokenize, evaluate. Importing
one imports only what it runs, so a DVC stage depends on its own code alone."""
