"""The curation stages in the order they run.

    snapshot shards -> licenses -> optout -> filters -> PII -> dedup -> decontaminate

``run_curation`` runs them all with one executor; the CLI runs one with the same description.
"""

from __future__ import annotations

from pathlib import Path

from quarry.engine import Executor, Stage, StageRun, run_stage
from quarry.config import Params
from quarry.stages.decontaminate import DECONTAMINATE
from quarry.stages.dedup import DEDUP
from quarry.stages.filters import FILTERS
from quarry.stages.licenses import LICENSES
from quarry.stages.optout import OPTOUT
from quarry.stages.pii import PII

CURATION: tuple[Stage, ...] = (LICENSES, OPTOUT, FILTERS, PII, DEDUP, DECONTAMINATE)


def curated_output(curated_dir: str | Path) -> Path:
    """The folder of the last curation stage: what assembly reads."""
    return Path(curated_dir) / CURATION[-1].folder


def check_config(params: Params) -> None:
    """Every curation stage's config, so a bad late section fails before the first stage runs."""
    for stage in CURATION:
        stage.config(params)


def run_curation(shards_dir: Path, curated_dir: Path, params: Params, executor: Executor) -> list[StageRun]:
    """Every curation stage in order, each reading the previous one's folder under ``curated_dir``."""
    check_config(params)
    runs = []
    src = Path(shards_dir)
    for stage in CURATION:
        dst = Path(curated_dir) / stage.folder
        runs.append(run_stage(stage, src, dst, params, executor))
        src = dst
    return runs
