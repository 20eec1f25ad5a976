"""Fixtures of the snapshot tests: a real git history with branches and tags."""

from __future__ import annotations

import os

import pytest
from snapshot_gitrepos import commit, git


@pytest.fixture
def history(tmp_path):
    """main: three commits (Jan, Mar, Jun 2023) with an annotated tag v1 on the second; a branch
    `feature` from the first with one commit dated Feb 2023."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    c1 = commit(repo, {"README.md": "# Demo\nA small demo project for snapshots.\n",
                       "src/app.py": "def main():\n    return 1\n", "LICENSE": "MIT License\n"},
                "first", "2023-01-10T12:00:00+00:00")
    git(repo, "checkout", "-q", "-b", "feature")
    cf = commit(repo, {"src/feature.py": "FEATURE = True\n"}, "feature", "2023-02-01T12:00:00+00:00")
    git(repo, "checkout", "-q", "main")
    c2 = commit(repo, {"src/app.py": "def main():\n    return 2\n", "bin/tool": "#!/usr/bin/env python3\nprint(2)\n",
                       "data/blob.bin": b"\x00\x01\x02binary"},
                "second", "2023-03-15T12:00:00+00:00")
    git(repo, "tag", "-a", "v1", "-m", "release 1", date="2023-03-15T12:00:00+00:00")
    (repo / "bin").mkdir(exist_ok=True)
    os.symlink("../src/app.py", repo / "bin" / "app-link")
    c3 = commit(repo, {"src/app.py": "def main():\n    return 3\n", "docs/guide.rst": "Guide\n=====\n\nRead me.\n"},
                "third", "2023-06-20T12:00:00+00:00")
    return {"repo": repo, "c1": c1, "feature": cf, "c2": c2, "c3": c3}
