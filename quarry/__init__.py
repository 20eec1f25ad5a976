"""Quarry."""
