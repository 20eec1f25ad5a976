"""`quarry cluster` options: the shape of the Dask workers a batch system or Kubernetes starts.

The defaults live here only; the command line passes what it was given and the model fills in the
rest. An error names the command-line option (``--memory: ...``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, PositiveInt, ValidationError, field_validator, model_validator

from quarry.errors import ConfigError

WALLTIME = re.compile(r"(\d+-)?\d+(:\d{1,2}){0,2}")              # 1:30:00; Slurm: 90, 2-00:00:00
QUANTITY = re.compile(r"\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?")  # a Kubernetes storage size
ADDRESS = re.compile(r"(\w+://)?[\w.\-\[\]:]+:\d+")                # tcp://host:8786
NAME = re.compile(r"[\w.@:+/-]+")                                # a queue, account or job name: one word


class ClusterOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    nodes: PositiveInt = 1                 # machines: one job (array element) or pod each
    cores: PositiveInt = 16                # per node: that many single-threaded worker processes
    memory: str = "64GB"                   # per node, shared evenly by its workers
    walltime: str = "24:00:00"             # batch systems only
    queue: str | None = None               # batch systems: partition / queue
    account: str | None = None             # batch systems: account (SGE: project)
    directives: tuple[str, ...] = ()       # batch systems: more of their own (--gres=gpu:1, -pe smp 16)
    job_name: str = "quarry-dask"
    project: Path | None = None            # None: the current project's folder (flows/, tasks/)
    python: str = sys.executable           # the interpreter every node runs: on the shared FS
    scheduler_file: Path | None = None     # None (and no address): <project>/.quarry/dask-scheduler.json
    scheduler_address: str | None = None   # tcp://host:8786, instead of a scheduler file
    image: str | None = None               # Kubernetes: the container image (required there)
    storage: str = "100Gi"                 # Kubernetes: size of the project's volume claim
    storage_class: str | None = None       # Kubernetes: its storage class (None: the cluster's default)

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: str) -> str:
        from dask.utils import parse_bytes

        try:
            size = parse_bytes(value)
        except ValueError:
            raise ValueError("not a size; e.g. 64GB, 500MiB") from None
        if size <= 0:
            raise ValueError("must be more than 0 bytes")
        return value

    @field_validator("walltime")
    @classmethod
    def _walltime(cls, value: str) -> str:
        if not WALLTIME.fullmatch(value):
            raise ValueError("not a wall time; e.g. 24:00:00")
        return value

    @field_validator("storage")
    @classmethod
    def _storage(cls, value: str) -> str:
        if not QUANTITY.fullmatch(value):
            raise ValueError("not a Kubernetes quantity; e.g. 100Gi, 2Ti")
        return value

    @field_validator("queue", "account", "job_name", "image", "storage_class")
    @classmethod
    def _word(cls, value: str | None) -> str | None:
        if value is not None and not NAME.fullmatch(value):
            raise ValueError("must be one word (letters, digits, . _ - @ : + /)")
        return value

    @field_validator("scheduler_address")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is not None and not ADDRESS.fullmatch(value):
            raise ValueError("not a scheduler address; e.g. tcp://10.0.0.5:8786")
        return value

    @field_validator("directives")
    @classmethod
    def _directives(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any("\n" in line or not line.strip() for line in value):
            raise ValueError("one non-empty line each")
        return value

    @field_validator("project")
    @classmethod
    def _project(cls, value: Path | None) -> Path:
        from quarry.paths import project_code_root

        folder = Path(value).resolve() if value is not None else project_code_root()
        if not (folder / "tasks" / "__init__.py").is_file():
            raise ValueError(f"{folder} has no tasks/ (the project's code the workers preload)")
        return folder

    @model_validator(mode="after")
    def _one_scheduler(self) -> ClusterOptions:
        if self.scheduler_file is not None and self.scheduler_address is not None:
            raise ValueError("give --scheduler-file or --scheduler-address, not both")
        return self

    @property
    def scheduler_path(self) -> Path:
        """The scheduler file on the shared FS (when no address is given)."""
        from quarry.paths import state_dir

        if self.scheduler_file is not None:
            return Path(self.scheduler_file).absolute()
        return state_dir(self.project) / "dask-scheduler.json"


OPTIONS = {"job_name": "--name", "directives": "--directive"}  # where the command line names a field otherwise


def option_name(field: str) -> str:
    return OPTIONS.get(field, "--" + field.replace("_", "-"))


def cluster_options(given: dict[str, Any]) -> ClusterOptions:
    """The options given (None: not given, the default), checked; ConfigError naming the option."""
    try:
        return ClusterOptions(**{key: value for key, value in given.items() if value is not None})
    except ValidationError as exc:
        error = exc.errors()[0]
        message = error["msg"].removeprefix("Value error, ")
        if not error["loc"]:  # a check across options names them itself
            raise ConfigError(message) from None
        got = error.get("input")
        shown = f" (got {got!r})" if isinstance(got, str | int | float) else ""
        raise ConfigError(f"{option_name(str(error['loc'][0]))}: {message}{shown}") from None
