"""Curation steps: each knows how to do one thing to one document."""
