"""The snapshot's path rules for vendored folders and installers' listings."""

from __future__ import annotations

from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.snapshot.plan import OriginPlan, plan_tree

C_CODE = "int f(void) { return 1; }\n"


def make_repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_snapshot_reads_vendored_folders_unless_asked_not_to(tmp_path):
    root = make_repo(tmp_path / "repo", {"a.c": C_CODE, "third_party/lib/b.c": C_CODE, "vendor/x/c.c": C_CODE,
                                         "site/pkg-1.0.dist-info/RECORD": "pkg/__init__.py,,\n"})

    def read(**given) -> tuple[set[str], dict[str, str]]:
        plan = plan_tree(OriginPlan("dir", "dir", "o"), root, SnapshotParams(**given))
        return {c.path for c in plan.candidates}, {r.path: r.reason for r in plan.refused}

    assert read()[0] == {"a.c", "third_party/lib/b.c", "vendor/x/c.c", "site/pkg-1.0.dist-info/RECORD"}
    kept, refused = read(exclude_vendored=True)
    assert kept == {"a.c", "site/pkg-1.0.dist-info/RECORD"}
    assert refused == {"third_party/": "vendored_path", "vendor/": "vendored_path"}
