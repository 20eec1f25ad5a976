"""Training recipes, one file per method (pretrain / full / LoRA / QLoRA / DPO); the shared loop is
recipes/base.py, the names are in recipes/registry.py."""
