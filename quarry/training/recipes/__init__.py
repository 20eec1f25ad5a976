"""One file per training method; the shared loop is recipes/base.py."""
