"""Byte-level BPE tokenizers: trained on texts (a sample of a dataset version: quarry.stages.tokenizer),
or loaded from a Hugging Face folder.

Byte-level means every Unicode string maps to tokens and back unchanged. Special-token strings
that happen to occur in a document are encoded as ordinary bytes (never as the control token),
so ``decode(encode(text)) == text`` for any text. The saved ``tokenizer.json`` is the Hugging
Face format: transformers' PreTrainedTokenizerFast loads the folder as it is.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from quarry.config.training import SpecialTokens
from quarry.errors import QuarryError
from quarry.infra.hashing import bytes_hash, tree_hash
from quarry.records import JsonDict, atomic_write_bytes, read_json, write_json

TOKENIZER_JSON = "tokenizer.json"
TOKENIZER_CONFIG = "tokenizer_config.json"
SPECIAL_MAP = "special_tokens_map.json"
LINEAGE = "tokenizer_lineage.json"
DEFAULT_SPECIALS = SpecialTokens().model_dump()   # params.yaml tokenizer.special_tokens


class Tokenizer:
    def __init__(self, backend, *, bos: str | None = None, eos: str | None = None, pad: str | None = None,
                 dataset_hash: str | None = None, origin: JsonDict | None = None):
        self.backend = backend
        self.backend.encode_special_tokens = True  # control tokens only ever come from bos=/eos=
        self.bos_token, self.eos_token, self.pad_token = bos, eos, pad
        self.dataset_hash = dataset_hash
        # how it came to be: the sample it was trained on, or the tokenizer it was taken from
        self.origin = origin or {}

    # --- ids ------------------------------------------------------------------------------------
    def _id(self, token: str | None) -> int | None:
        return None if token is None else self.backend.token_to_id(token)

    @property
    def bos_id(self) -> int | None:
        return self._id(self.bos_token)

    @property
    def eos_id(self) -> int | None:
        return self._id(self.eos_token)

    @property
    def pad_id(self) -> int | None:
        """The pad token's id; the eos id when the tokenizer has no pad token (as Llama 3)."""
        pad = self._id(self.pad_token)
        return self.eos_id if pad is None else pad

    @property
    def vocab_size(self) -> int:
        return self.backend.get_vocab_size(with_added_tokens=True)

    @property
    def hash(self) -> str:
        """sha256 of the tokenizer.json this tokenizer saves."""
        return bytes_hash(self.to_json().encode("utf-8"))

    # --- text <-> ids ---------------------------------------------------------------------------
    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        ids = self.backend.encode(text, add_special_tokens=False).ids
        return self._wrap(ids, bos, eos)

    def encode_batch(self, texts: list[str], bos: bool = False, eos: bool = False) -> list[list[int]]:
        """Ids of many texts at once on tokenizers' thread pool (without character offsets)."""
        encoded = self.backend.encode_batch_fast(list(texts), add_special_tokens=False)
        return [self._wrap(e.ids, bos, eos) for e in encoded]

    def _wrap(self, ids: list[int], bos: bool, eos: bool) -> list[int]:
        if bos:
            if self.bos_id is None:
                raise QuarryError("this tokenizer has no beginning-of-text token")
            ids = [self.bos_id, *ids]
        if eos:
            if self.eos_id is None:
                raise QuarryError("this tokenizer has no end-of-text token")
            ids = [*ids, self.eos_id]
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """Text of the ids; special tokens (bos, eos, pad, ...) are left out."""
        return self.backend.decode(list(ids), skip_special_tokens=True)

    # --- files ----------------------------------------------------------------------------------
    def to_json(self) -> str:
        return self.backend.to_str()

    def save(self, folder: str | os.PathLike) -> Path:
        """tokenizer.json, the transformers configs, and the lineage (dataset hash, tokenizer hash)."""
        folder = Path(folder)
        atomic_write_bytes(folder / TOKENIZER_JSON, self.to_json().encode("utf-8"))
        specials = {f"{role}_token": token for role, token in
                    (("bos", self.bos_token), ("eos", self.eos_token), ("pad", self.pad_token)) if token}
        write_json(folder / SPECIAL_MAP, specials)
        write_json(folder / TOKENIZER_CONFIG, {"tokenizer_class": "PreTrainedTokenizerFast",
                                               "clean_up_tokenization_spaces": False, **specials})
        write_json(folder / LINEAGE, {"dataset_hash": self.dataset_hash, "tokenizer_hash": self.hash,
                                      "vocab_size": self.vocab_size, **self.origin})
        return folder

    @classmethod
    def load(cls, path: str | os.PathLike) -> Tokenizer:
        """From a tokenizer.json, a folder holding one (Quarry's or a Hugging Face model's), or a hub id."""
        from tokenizers import Tokenizer as Backend

        from quarry.models.hub import looks_local, resolve  # torch (quarry.models): only load() needs the hub

        path = Path(path) if looks_local(path) else resolve(path)
        folder, file = (path, path / TOKENIZER_JSON) if path.is_dir() else (path.parent, path)
        if not file.is_file():
            raise QuarryError(f"{path}: no {TOKENIZER_JSON}")
        try:
            backend = Backend.from_file(str(file))
        except Exception as exc:  # noqa: BLE001 - the Rust side raises plain Exception
            raise QuarryError(f"{file}: not a valid tokenizer.json: {exc}") from None
        specials = _special_tokens(folder)
        lineage = read_json(folder / LINEAGE) if (folder / LINEAGE).is_file() else {}
        origin = {key: lineage[key] for key in ("sample", "source") if key in lineage}
        return cls(backend, dataset_hash=lineage.get("dataset_hash"), origin=origin, **specials)


def _special_tokens(folder: Path) -> dict[str, str | None]:
    """bos / eos / pad strings from tokenizer_config.json or special_tokens_map.json."""
    found: JsonDict = {}
    for name in (SPECIAL_MAP, TOKENIZER_CONFIG):  # the later file wins
        if (folder / name).is_file():
            config = read_json(folder / name)
            found.update({k: config[k] for k in ("bos_token", "eos_token", "pad_token") if config.get(k)})
    text = {k: v["content"] if isinstance(v, dict) else v for k, v in found.items()}
    return {"bos": text.get("bos_token"), "eos": text.get("eos_token"), "pad": text.get("pad_token")}


def train_tokenizer(texts: Iterable[str], vocab_size: int, special_tokens: dict[str, str] | list[str] | None = None,
                    dataset_hash: str | None = None, min_frequency: int = 2) -> Tokenizer:
    """Train a byte-level BPE of ``vocab_size`` tokens (special tokens included, ids 0, 1, ...).

    special_tokens: {"bos": ..., "eos": ..., "pad": ...} (roles), or a list whose first three are
    taken as bos, eos, pad; default DEFAULT_SPECIALS.
    """
    from tokenizers import Tokenizer as Backend
    from tokenizers import decoders, models, pre_tokenizers, trainers

    roles = _roles(special_tokens)
    tokens = list(dict.fromkeys(t for t in roles.values() if t))
    if isinstance(special_tokens, list):
        tokens += [t for t in special_tokens if t not in tokens]
    backend = Backend(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=tokens,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    backend.train_from_iterator(texts, trainer)
    return Tokenizer(backend, dataset_hash=dataset_hash, **roles)


def _roles(special_tokens) -> dict[str, str | None]:
    if special_tokens is None:
        return dict(DEFAULT_SPECIALS)
    if isinstance(special_tokens, dict):
        unknown = set(special_tokens) - set(DEFAULT_SPECIALS)
        if unknown:
            raise QuarryError(f"tokenizer.special_tokens: unknown roles {sorted(unknown)} (bos, eos, pad)")
        return {role: special_tokens.get(role) for role in DEFAULT_SPECIALS}
    padded = [*special_tokens, None, None, None]
    return {"bos": padded[0], "eos": padded[1], "pad": padded[2]}


# --- for a dataset version (the DAG's tokenizer stage: quarry.stages.tokenizer) ---------------------
def dataset_hash(dataset_dir: str | os.PathLike) -> str:
    """The version id from the dataset's manifest.json, else the content hash of the folder."""
    manifest = Path(dataset_dir) / "manifest.json"
    if manifest.is_file() and (version := read_json(manifest).get("version")):
        return version
    return tree_hash(dataset_dir)


def given_tokenizer(source: str | os.PathLike, dataset_dir: str | os.PathLike) -> Tokenizer:
    """A tokenizer the params name (``tokenizer.path``: a model's own), used instead of training
    one; its lineage names where it came from and the hash of what was read."""
    tokenizer = Tokenizer.load(source)
    tokenizer.dataset_hash = dataset_hash(dataset_dir)
    tokenizer.origin = {"source": {"path": str(source), "tokenizer_hash": tokenizer.hash}}
    return tokenizer
