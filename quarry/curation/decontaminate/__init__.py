"""decontaminate."""
