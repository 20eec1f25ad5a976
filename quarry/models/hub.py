"""Hugging Face Hub snapshots: a model id becomes a local folder; a local folder stays itself.

The token comes from ``token=`` or HF_TOKEN; HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE), read at call
time, restricts the lookup to the local cache and says so clearly when the model is not there.
"""

from __future__ import annotations

import os
from pathlib import Path

from quarry.errors import QuarryError

_TRUE = {"1", "true", "yes", "on"}
# Enough to build, load and tokenize a model; skips duplicate .bin / .pth / gguf weights.
DEFAULT_PATTERNS = ["*.json", "*.safetensors", "tokenizer.model", "*.txt", "*.md"]


def offline() -> bool:
    return any(os.environ.get(var, "").strip().lower() in _TRUE for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def looks_local(name: str | os.PathLike) -> bool:
    text = os.fspath(name)
    return Path(text).exists() or text.startswith((".", "/", "~")) or text.count("/") > 1


def download(repo_id: str, *, revision: str | None = None, cache_dir: str | os.PathLike | None = None,
             token: str | None = None, allow_patterns: list[str] | None = None) -> Path:
    """Snapshot ``repo_id`` (at ``revision``) into the Hub cache and return its local folder."""
    if looks_local(repo_id):
        path = Path(repo_id).expanduser()
        if not path.is_dir():
            raise QuarryError(f"{repo_id}: no such model folder")
        return path
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    is_offline = offline()
    try:
        folder = snapshot_download(
            repo_id, revision=revision, cache_dir=cache_dir, token=token or os.environ.get("HF_TOKEN") or None,
            local_files_only=is_offline, allow_patterns=allow_patterns or DEFAULT_PATTERNS)
    except LocalEntryNotFoundError:
        if is_offline:
            raise QuarryError(f"{repo_id}: no such local folder, and not in the local Hugging Face cache "
                              "and HF_HUB_OFFLINE is set") from None
        raise QuarryError(f"{repo_id}: no such local folder, and the Hub cannot be reached and "
                          "the model is not in the local Hugging Face cache") from None
    except GatedRepoError:
        raise QuarryError(f"{repo_id}: gated model; accept its licence on the Hub and set HF_TOKEN") from None
    except RepositoryNotFoundError:
        raise QuarryError(f"{repo_id}: no such model on the Hub (or it is private: set HF_TOKEN)") from None
    except HfHubHTTPError as exc:
        raise QuarryError(f"{repo_id}: download failed: {exc}") from None
    return Path(folder)


def resolve(name_or_path: str | os.PathLike, **kwargs) -> Path:
    """A local folder as-is, anything else through ``download`` (cache first when offline)."""
    if isinstance(name_or_path, Path) or looks_local(name_or_path):
        path = Path(name_or_path).expanduser()
        if not path.is_dir():
            raise QuarryError(f"{name_or_path}: no such model folder")
        return path
    return download(str(name_or_path), **kwargs)
