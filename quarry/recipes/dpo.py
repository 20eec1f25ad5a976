"""Direct Preference Optimisation on {prompt, chosen, rejected} pairs from a jsonl file.

The reference is a frozen copy of the starting policy, or log-probabilities precomputed into
each row (``ref_chosen_logp`` / ``ref_rejected_logp``) when ``dpo.reference: precomputed``,
which halves the forward passes and the memory.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from quarry.errors import ConfigError
from quarry.config.recipes import DpoConfig
from quarry.recipes.full_finetune import FullFinetune
from quarry.training.data import EpochSampler, PreferencePairs
from quarry.training.losses import CausalLMHead, dpo_loss

class DPO(FullFinetune):
    name = "dpo"
    SCHEMA = DpoConfig

    def build_model(self) -> nn.Module:
        policy = super().build_model()
        reference = self.config.dpo.reference
        if reference not in ("model", "precomputed"):
            raise ConfigError(f"config: dpo.reference={reference!r}; valid: model, precomputed")
        self.reference = None
        if reference == "model":
            reference_model = copy.deepcopy(policy).eval().requires_grad_(False).to(self.device)
            self.reference = CausalLMHead(reference_model, self.config.loss.chunk_tokens)
        return policy

    def setup_data(self) -> None:
        ds = self.config.dataset
        if not ds.path:
            raise ConfigError("config: dataset.path is required (a jsonl file of preference pairs)")
        self.data = PreferencePairs.from_jsonl(ds.path, self.tokenizer, ds.seq_len)
        if self.reference is None and "ref" not in self.data[0]:
            raise ConfigError(f"{ds['path']}: dpo.reference=precomputed needs ref_chosen_logp / "
                              "ref_rejected_logp in every row")
        self.sampler = EpochSampler(len(self.data), self.config.batch_size, self.config.gradient_accumulation_steps,
                                    world_size=self.dist.world_size, rank=self.dist.rank, seed=self.config.seed,
                                    shuffle=ds.shuffle)

    def micro_batch(self, epoch: int, step_in_epoch: int, micro: int) -> dict[str, torch.Tensor]:
        return self.data.collate([self.data[i] for i in self.sampler.indices(epoch, step_in_epoch, micro)])

    def count_targets(self, batch: dict[str, torch.Tensor]) -> int:
        return batch["tokens"].shape[0] // 2

    def sequence_logps(self, head: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return head(batch["tokens"], batch["labels"], kind="logps")

    def batch_loss(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        n = batch["tokens"].shape[0] // 2
        policy = self.sequence_logps(self.head, batch)
        if self.reference is not None:
            with torch.no_grad():
                ref = self.sequence_logps(self.reference, batch)
            ref_chosen, ref_rejected = ref[:n], ref[n:]
        else:
            ref_chosen, ref_rejected = batch["ref_chosen"], batch["ref_rejected"]
        losses, margins = dpo_loss(policy[:n], policy[n:], ref_chosen, ref_rejected,
                                   beta=self.config.dpo.beta, label_smoothing=self.config.dpo.label_smoothing)
        self.last_margin = float(margins.mean())
        return losses.sum()

    @torch.no_grad()
    def margins(self) -> torch.Tensor:
        """log p(chosen) - log p(rejected) of the current policy on every pair."""
        was_training = self.model.training
        self.model.eval()
        batch = self.data.collate([self.data[i] for i in range(len(self.data))])
        batch = {k: v.to(self.device) for k, v in batch.items()}
        logps = self.sequence_logps(self.head, batch)
        self.model.train(was_training)
        n = len(self.data)
        return (logps[:n] - logps[n:]).cpu()

    def validate(self) -> dict[str, float]:
        return {"margin": float(self.margins().mean())}
