"""Released datasets: assembly into versioned jsonl.zst shards, manifests, changelogs, datacards,
citation, and reading them back.

    import quarry.datasets
    for record in quarry.datasets.open("3f2a9c", split="validation", subset="Python"):
        ...
"""

from quarry.datasets.build import assemble, derive_version, run_assemble
from quarry.datasets.changelog import compare
from quarry.datasets.cite import bibtex, plain
from quarry.datasets.reader import load_manifest, open_dataset
from quarry.datasets.versions import releases

open = open_dataset  # noqa: A001 - quarry.datasets.open(version) is the public reader

__all__ = ["assemble", "bibtex", "compare", "derive_version", "load_manifest", "open", "open_dataset", "plain",
           "releases", "run_assemble"]
