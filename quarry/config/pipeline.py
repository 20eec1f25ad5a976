"""params.yaml ``pipeline:``: how the DAG runs and where its folders are (the Layout)."""

from __future__ import annotations

from pathlib import Path

from pydantic import PositiveFloat, PositiveInt

from quarry.config.base import Section

FINAL = "final"        # a recipe's last checkpoint, beside its step-N folders


class PathsParams(Section):
    """The DAG's folders; dvc.yaml reads the same keys through ``${pipeline.paths.*}``."""

    key = "pipeline.paths"

    snapshot: str = "data/snapshot"
    curated: str = "data/curated"
    dataset: str = "data/datasets/default"
    audit: str = "reports/audit.json"
    tokenizer: str = "models/tokenizer"
    tokens: str = "data/tokens"
    pretrain: str = "models/pretrain"
    finetune: str = "models/lora"
    reports: str = "reports/eval"
    metrics: str = "reports/metrics.json"


class PipelineParams(Section):
    key = "pipeline"

    workers: PositiveInt = 1            # processes for curation; output identical for any value
    dask_address: str | None = None     # run the flows' tasks on this Dask scheduler
    track_data: bool = True             # each curation and assembly run is an MLflow run (experiment quarry-data)
    # The project's Prefect server outlives the flows (the next stage reuses it); it stops itself
    # after this long without a flow run (None: only `quarry server stop` ends it).
    server_idle_minutes: PositiveFloat | None = 60.0
    paths: PathsParams = PathsParams()


class Layout:
    """Every folder and file of the DAG, from ``pipeline.paths`` (relative to ``root`` when given).
    Flows, the CLI, evaluation and lineage ask this object; no other code names these folders."""

    def __init__(self, paths: PathsParams | None = None, root: Path | None = None):
        self.paths = paths or PathsParams()
        self.root = Path(root) if root else None

    @classmethod
    def of(cls, params=None, root: Path | None = None) -> Layout:
        """The layout of the typed ``params`` (quarry.config.Params; None: the default folders)."""
        return cls(params.pipeline.paths if params is not None else None, root)

    def _at(self, value: str) -> Path:
        return self.root / value if self.root else Path(value)

    def __getattr__(self, name: str) -> Path:
        if name in PathsParams.model_fields:
            return self._at(getattr(self.paths, name))
        raise AttributeError(name)

    # What the stages write inside those folders.
    @property
    def snapshot_shards(self) -> Path:
        return self.snapshot / "shards"

    @property
    def snapshot_manifest(self) -> Path:
        return self.snapshot / "manifest.json"

    @property
    def curated_ledgers(self) -> Path:
        return self.curated / "ledgers.json"

    @property
    def pretrained(self) -> Path:
        """The pretraining recipe's last checkpoint (what fine-tuning starts from)."""
        return self.pretrain / FINAL

    @property
    def finetuned(self) -> Path:
        return self.finetune / FINAL

    def as_strings(self) -> dict[str, str]:
        return {name: str(getattr(self, name)) for name in PathsParams.model_fields}
