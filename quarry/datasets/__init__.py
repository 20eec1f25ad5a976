"""Released datasets: versioned jsonl.zst shards (assembled by quarry.stages.assemble), manifests, changelogs, datacards,
citation, and reading them back.

    import quarry.datasets
    for record in quarry.datasets.open("3f2a9c", split="validation", subset="Python"):
        ...
"""

from quarry.datasets.build import derive_version
from quarry.datasets.changelog import compare
from quarry.datasets.cite import bibtex, plain
from quarry.datasets.reader import load_manifest, open_dataset
from quarry.datasets.versions import releases

open = open_dataset  # noqa: A001 - quarry.datasets.open(version) is the public reader

__all__ = ["bibtex", "compare", "derive_version", "load_manifest", "open", "open_dataset", "plain",
           "releases"]
