"""The one training loop every recipe shares: setup, train, checkpoint, save, cleanup.

A recipe subclass says only what differs: how the model is built (``build_model``), what data
it reads (``setup_data``) and what loss a micro-batch gives (``batch_loss``). The same code runs
on one device or, under torchrun, on many with FSDP2: each rank takes its slice of every global
batch, and losses are normalised by the global count of targets, so the update does not depend
on how the batch was split across ranks or micro-batches.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from quarry import tracking
from quarry.eval.bpb import score_records
from quarry.config.compute import torch_dtype
from quarry.config.recipes import RecipeConfig
from quarry.datasets.subsets import LARGEST, resolve_subset, version_subsets
from quarry.errors import ConfigError
from quarry.models.checkpoint import save_pretrained
from quarry.records import JsonDict
from quarry.stages.tokenize import cached_tokens
from quarry.tracking import git_commit
from quarry.training import checkpointing, distributed
from quarry.training.config import ConfigNode, config_hash, instantiate, merge_defaults, validate
from quarry.datasets.reader import dataset_version
from quarry.training.data import EpochSampler, document_mask, open_records
from quarry.training.losses import CausalLMHead, IGNORE_INDEX
from quarry.training.metrics import Reporter, Throughput, peak_memory_gib
from quarry.training.token_data import TokenShards, check_tokens
from quarry.training.tokens import TokenizeConfig, read_manifest

class Recipe:
    """Subclasses set ``name`` and ``SCHEMA`` (a quarry.config.recipes model extending
    RecipeConfig with their own keys and defaults) and override the hooks they need."""

    name = "base"
    SCHEMA: type[RecipeConfig] = RecipeConfig
    trainable_only_checkpoints = False  # adapters-only recipes save just the trainable weights

    def __init__(self, cfg: ConfigNode):
        # the plain mapping is what a run records and hashes (what the file says, defaults filled
        # in); the recipe reads the typed schema object, validated once, here
        self.cfg = merge_defaults(self.SCHEMA.defaults(), cfg)
        _resolve_largest(self.cfg.get("dataset") or {})
        self.config: RecipeConfig = validate(self.cfg, self.SCHEMA)
        self.config_hash = config_hash(self.cfg)
        self.step = 0
        self.on_step: Callable[[int], None] | None = None  # test hook: called after each optimizer step
        self.mlflow_run_id: str | None = None
        self.history: list[dict[str, float]] = []

    # --- setup -----------------------------------------------------------------------------------
    def setup(self) -> None:
        cfg = self.config
        self.dist = distributed.init_distributed(cfg.device)
        self.device = self.dist.device
        self.dtype = _dtype(cfg.dtype, "dtype")
        self._seed(cfg.seed)
        self.tokenizer = instantiate(cfg.tokenizer)
        self.model = self.build_model().to(self.device)
        self.head = CausalLMHead(self.model, cfg.loss.chunk_tokens)
        self.apply_parallelism()
        self.setup_data()
        self.optimizer = self.setup_optimizer()
        self.total_steps = self.count_total_steps()
        self.lr_scheduler = instantiate(cfg.lr_scheduler, self.optimizer, num_training_steps=self.total_steps)
        self.scaler = torch.amp.GradScaler(self.device.type, enabled=self.dtype == torch.float16)
        self.output_dir = Path(cfg.output_dir)
        if cfg.resume:
            self.load_checkpoint()

    def _seed(self, seed: int) -> None:
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)

    def build_model(self) -> nn.Module:
        model = instantiate(self.config.model)
        return model.to(self.dtype) if self.dtype == torch.bfloat16 else model

    def apply_parallelism(self) -> None:
        cfg = self.config
        if cfg.activation_checkpointing:
            distributed.checkpoint_blocks(self.model)
        if cfg.compile:
            distributed.compile_blocks(self.model)
        if self.dist.distributed:
            fsdp = cfg.fsdp
            distributed.shard_model(self.model, self.head,
                                    param_dtype=_dtype(fsdp.param_dtype, "fsdp.param_dtype"),
                                    reduce_dtype=_dtype(fsdp.reduce_dtype, "fsdp.reduce_dtype"),
                                    reshard_after_forward=fsdp.reshard_after_forward,
                                    ignored_params=self.unsharded_params())

    def unsharded_params(self) -> set[nn.Parameter]:
        return set()

    def setup_data(self) -> None:
        ds = self.config.dataset
        if not ds.path:
            raise ConfigError("config: dataset.path is required (a dataset version or a folder of shards)")
        if ds.subset == LARGEST:
            raise ConfigError(f"dataset.subset: '{LARGEST}' needs a dataset version at dataset.path "
                              f"({ds['path']}), which has no manifest.json")
        self.tokens_dir = self.token_folder()
        self.data = TokenShards(self.tokens_dir, ds.split, ds.seq_len, max_docs=ds.max_docs,
                                pad_id=_pad_id(self.tokenizer))
        self.sampler = EpochSampler(len(self.data), self.config.batch_size, self.config.gradient_accumulation_steps,
                                    world_size=self.dist.world_size, rank=self.dist.rank, seed=self.config.seed,
                                    shuffle=ds.shuffle, block_size=ds.shuffle_block)

    def token_folder(self) -> Path:
        """dataset.tokens, checked against the dataset and tokenizer; else the cached tokenisation
        of dataset.path (made once, by the main rank)."""
        ds = self.config.dataset
        if ds.tokens:
            folder = Path(ds.tokens)
            manifest = read_manifest(folder)
        else:
            config = TokenizeConfig(splits=(ds.split,), subset=ds.subset)
            if self.dist.is_main:
                cached_tokens(ds.path, self.config.tokenizer, config)
            distributed.barrier()
            folder = cached_tokens(ds.path, self.config.tokenizer, config)
            manifest = read_manifest(folder)
        check_tokens(manifest, str(self.tokenizer.hash), self.dataset_hash(), folder)
        if ds.tokens and ds.subset != manifest["params"]["subset"]:
            raise ConfigError(f"{folder}: token shards hold subset {manifest['params']['subset']!r}, "
                              f"dataset.subset is {ds['subset']!r}")
        return folder

    def setup_optimizer(self) -> torch.optim.Optimizer:
        params = [p for p in self.model.parameters() if p.requires_grad]
        if not params:
            raise ConfigError("config: the model has no trainable parameters")
        return instantiate(self.config.optimizer, params)

    def count_total_steps(self) -> int:
        per_epoch = self.sampler.steps_per_epoch
        total = per_epoch * self.config.epochs
        if self.config.max_steps is not None:
            total = min(total, self.config.max_steps) if self.config.epochs else self.config.max_steps
        return total

    # --- one step --------------------------------------------------------------------------------
    def micro_batch(self, epoch: int, step_in_epoch: int, micro: int) -> dict[str, torch.Tensor]:
        return self.data.batch(self.sampler.indices(epoch, step_in_epoch, micro))

    def count_targets(self, batch: dict[str, torch.Tensor]) -> int:
        return int((batch["labels"] != IGNORE_INDEX).sum())

    def batch_loss(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Summed loss of a micro-batch (normalised by the caller)."""
        kwargs = {}
        if self.config.dataset.document_mask and "doc_ids" in batch:
            kwargs = {"attention_mask": document_mask(batch["doc_ids"]), "input_pos": batch["input_pos"]}
        return self.head(batch["tokens"], batch["labels"], **kwargs)

    def autocast(self):
        if self.dtype == torch.float16:
            return torch.autocast(self.device.type, dtype=torch.float16)
        return contextlib.nullcontext()

    def train_step(self, epoch: int, step_in_epoch: int) -> dict[str, float]:
        accum = self.config.gradient_accumulation_steps
        batches = [self.micro_batch(epoch, step_in_epoch, m) for m in range(accum)]
        local = torch.tensor(float(sum(self.count_targets(b) for b in batches)))
        global_count = float(distributed.all_reduce_sum(local).item())
        # FSDP averages gradients over ranks; scaling by world size turns that into a global sum.
        scale = self.dist.world_size / max(global_count, 1.0)
        loss_sum = torch.zeros((), device=self.device)
        tokens = 0
        for i, batch in enumerate(batches):
            if hasattr(self.head, "set_requires_gradient_sync"):  # FSDP: reduce-scatter once per step
                self.head.set_requires_gradient_sync(i == len(batches) - 1)
            batch = {k: v.to(self.device) for k, v in batch.items()}
            tokens += batch["tokens"].numel()
            with self.autocast():
                loss = self.batch_loss(batch)
            self.scaler.scale(loss * scale).backward()
            loss_sum += loss.detach().float()
        self.scaler.unscale_(self.optimizer)
        grad_norm = self.clip_gradients()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        lr = self.optimizer.param_groups[0]["lr"]
        self.lr_scheduler.step()
        total_loss = distributed.all_reduce_sum(loss_sum).item() / max(global_count, 1.0)
        return {"loss": total_loss, "lr": lr, "grad_norm": grad_norm, "tokens": tokens * self.dist.world_size}

    def clip_gradients(self) -> float:
        params = [p for p in self.model.parameters() if p.grad is not None]
        max_norm = self.config.clip_grad_norm
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm if max_norm else float("inf"))
        if hasattr(norm, "full_tensor"):
            norm = norm.full_tensor()
        return float(norm)

    # --- the loop --------------------------------------------------------------------------------
    def train(self) -> JsonDict:
        cfg = self.config
        mlflow, run_ctx = self._open_mlflow()
        with run_ctx:
            reporter = Reporter(self.total_steps, self.step, enabled=cfg.progress and self.dist.is_main,
                                mlflow=mlflow, description=self.name)
            speed, rate = Throughput(), 0.0
            try:
                self.model.train()
                while self.step < self.total_steps:
                    epoch, in_epoch = divmod(self.step, self.sampler.steps_per_epoch)
                    out = self.train_step(epoch, in_epoch)
                    self.step += 1
                    speed.add(out.pop("tokens"))
                    log_now = self.step % max(1, cfg.log_every_n_steps) == 0 or self.step == self.total_steps
                    if log_now:
                        rate = speed.take()
                    metrics = {**out, "tokens_per_s": rate, "peak_mem_gib": peak_memory_gib(self.device)}
                    self.history.append({"step": self.step, **out})
                    reporter.step(self.step, metrics, log=log_now)
                    every = cfg.validation.every_n_steps
                    if every and (self.step % every == 0 or self.step == self.total_steps):
                        reporter.log(self.step, self.validate())
                    if cfg.save_every_n_steps and self.step % cfg.save_every_n_steps == 0 \
                            and self.step < self.total_steps:
                        self.save_checkpoint()
                    if self.on_step is not None:
                        self.on_step(self.step)
            finally:
                reporter.close()
            final = self.save_final()
        return {"steps": self.step, "final": str(final), "history": self.history}

    def _open_mlflow(self):
        settings = self.config.mlflow
        if not (settings.enabled and self.dist.is_main):
            return None, contextlib.nullcontext()
        mlflow = tracking.configure()
        ctx = tracking.start_run(settings.run_name or f"{self.name}-{self.config_hash[:8]}",
                                 experiment=settings.experiment, run_id=self.mlflow_run_id,
                                 params_hash=self.config_hash, dataset_hash=self.dataset_hash(),
                                 tags={"quarry.recipe": self.name, "quarry.config_hash": self.config_hash,
                                       "quarry.tokenizer_hash": str(getattr(self.tokenizer, "hash", ""))})

        @contextlib.contextmanager
        def opened():
            with ctx as run:
                self.mlflow_run_id = run.info.run_id
                if self.step == 0:
                    mlflow.log_params(_flat(self.cfg))
                    if self.config.dataset.path:
                        tracking.log_dataset_input(run.info.run_id, self.config.dataset.path,
                                                   self.dataset_hash(), context="training")
                yield
        return mlflow, opened()

    def dataset_hash(self) -> str | None:
        path = self.config.dataset.path
        if not path:
            return None
        if not hasattr(self, "_dataset_hash"):
            self._dataset_hash = dataset_version(path)
        return self._dataset_hash

    # --- validation ------------------------------------------------------------------------------
    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        """Bits per byte on the dataset's validation split (every rank scores the same documents)."""
        val = self.config.validation
        ds = self.config.dataset
        records = list(_limit(open_records(ds.path, val.split, ds.subset), val.max_docs))
        if not records:
            return {}
        self.model.eval()
        try:
            result = score_records(lambda t: self.head(t, kind="logits"), self.tokenizer, records,
                                   context_len=ds.seq_len, batch_size=val.batch_size, device=self.device)
        finally:
            self.model.train()
        agg = result.aggregate
        return {"val_bpb": agg.bpb, "val_loss": agg.nll_nats / max(agg.tokens, 1)}

    # --- checkpoints -----------------------------------------------------------------------------
    def training_extra(self) -> JsonDict:
        epoch, in_epoch = divmod(self.step, self.sampler.steps_per_epoch)
        return {"step": self.step, "scheduler": self.lr_scheduler.state_dict(), "scaler": self.scaler.state_dict(),
                "data_position": {"epoch": epoch, "step_in_epoch": in_epoch}, "config_hash": self.config_hash,
                "mlflow_run_id": self.mlflow_run_id}

    def save_checkpoint(self) -> Path:
        return checkpointing.save_training_state(
            self.output_dir, self.step, self.model, self.optimizer, self.training_extra(), self.dist,
            trainable_only=self.trainable_only_checkpoints, keep_last=self.config.keep_last_n_checkpoints,
            lineage=self.lineage() if self.dist.is_main else None)

    def load_checkpoint(self) -> None:
        folder = checkpointing.latest_checkpoint(self.output_dir)
        if folder is None:
            return
        state = checkpointing.load_training_state(folder, self.model, self.optimizer, self.dist)
        self.step = state["step"]
        self.lr_scheduler.load_state_dict(state["scheduler"])
        self.scaler.load_state_dict(state["scaler"])
        self.mlflow_run_id = state.get("mlflow_run_id")

    # --- final export ----------------------------------------------------------------------------
    def full_state_dict(self) -> dict[str, torch.Tensor]:
        """Every weight, consolidated on CPU (collective under FSDP)."""
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        return get_model_state_dict(self.model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))

    def lineage(self) -> JsonDict:
        ds = self.config.dataset
        tok = self.config.tokenizer
        return {"recipe": self.name, "config": self.cfg, "config_hash": self.config_hash,
                "dataset": {"path": ds.path, "version": self.dataset_hash(),
                            "name": ds.name or (Path(ds.path).name if ds.path else None)},
                "tokenizer": {"path": tok.get("path"), "hash": str(getattr(self.tokenizer, "hash", ""))},
                "base_model": self.base_model_path(), "mlflow_run_id": self.mlflow_run_id,
                "code_version": git_commit(), "steps": self.step}

    def base_model_path(self) -> str | None:
        return None

    def save_final(self) -> Path:
        state = self.full_state_dict()
        final = self.output_dir / "final"
        if self.dist.is_main:
            self.export(state, final)
        distributed.barrier()
        return final

    def export(self, state: dict[str, torch.Tensor], folder: Path) -> None:
        model = self.fresh_model()
        model.load_state_dict(state)
        save_pretrained(model, folder, tokenizer=_saveable(self.tokenizer), lineage=self.lineage())

    def fresh_model(self) -> nn.Module:
        """An unsharded copy of the architecture on CPU, to export consolidated weights through."""
        with torch.device("cpu"):
            model = instantiate(self.config.model)
        return model.to(self.dtype) if self.dtype == torch.bfloat16 else model

    def cleanup(self) -> None:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()

    def run(self) -> JsonDict:
        self.setup()
        try:
            return self.train()
        finally:
            self.cleanup()


def _dtype(name: str | None, key: str) -> torch.dtype | None:
    if name is None:
        return None
    try:
        return torch_dtype(name)
    except ValueError as exc:
        raise ConfigError(f"config: {key}: {exc}") from None


def _limit(records, n: int | None):
    for i, record in enumerate(records):
        if n is not None and i >= n:
            return
        yield record


def _pad_id(tokenizer: Any) -> int:
    pad = getattr(tokenizer, "pad_id", None)
    return tokenizer.eos_id if pad is None or pad < 0 else pad


def _saveable(tokenizer: Any) -> Any:
    return tokenizer if hasattr(tokenizer, "save") else None


def _flat(cfg: ConfigNode, prefix: str = "") -> dict[str, str]:
    out = {}
    for key, value in cfg.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, name + "."))
        else:
            out[name] = str(value)[:500]
    return out


def _resolve_largest(dataset: ConfigNode) -> None:
    """``dataset.subset: largest`` becomes the subset it names, before the config is hashed (the
    lineage records the subset trained on, the same as when the DAG passes it resolved). Before
    the version is built it stays as written: a config is valid without its data; setup_data
    refuses to train on it."""
    subsets = version_subsets(dataset.get("path") or "") if dataset.get("subset") == LARGEST else None
    if subsets is not None:
        dataset["subset"] = resolve_subset("dataset.subset", LARGEST, subsets)
