"""filters."""
