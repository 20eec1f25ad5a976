"""Every cached task declares every file it writes.

A cache hit hands back the result of an earlier run; if that run also wrote files the task did
not declare, nothing checks they are still there (DVC deletes a stage's outputs before it runs the
stage again) and the next task is handed a path to nothing. This test finds every Prefect task in
tasks/ and flows/, runs the DAG's stages on a tiny project with each task call watched (one call
at a time), and fails on any file a cached task created, changed or removed outside the paths it
declares, and on any cached task the run did not exercise.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import pkgutil
import sys
import threading
from pathlib import Path

import pytest
from prefect import Task
from prefect.cache_policies import NO_CACHE

from tasks.caching import declared_outputs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))
from pipeline_project import SCANCODE_PYTHON, make_project  # noqa: E402


def registered_tasks() -> list[Task]:
    """Every Task object defined at module level in the tasks and flows packages."""
    found = {}
    for package_name in ("tasks", "flows"):
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if isinstance(value, Task) and value.fn.__module__ == module.__name__:
                    found[f"{module.__name__}.{value.fn.__name__}"] = value
    return [found[name] for name in sorted(found)]


def is_cached(task_obj: Task) -> bool:
    return task_obj.cache_policy is not NO_CACHE and task_obj.cache_policy is not None


def tree_state(root: Path) -> dict[str, tuple[int, int, int]]:
    """Size, mtime and inode of every file under ``root``, leaving out the project's state folder
    (.quarry: Prefect's results and the caches keyed by content, which no stage reads as an input)."""
    state = {}
    for folder, dirs, names in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d != ".quarry"]
        for name in names:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            state[path] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return state


def within(path: str, declared: list[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip(os.sep) + os.sep) for d in declared)


class Watch:
    """Wraps every task's function: calls run one at a time, each with the files it touched."""

    def __init__(self, root: Path):
        self.root, self.lock, self.calls = root, threading.Lock(), []

    def wrap(self, task_obj: Task):
        inner, signature = task_obj.fn, inspect.signature(task_obj.fn)

        @functools.wraps(inner)
        def watched(*args, **kwargs):
            with self.lock:
                before = tree_state(self.root)
                try:
                    return inner(*args, **kwargs)
                finally:
                    after = tree_state(self.root)
                    touched = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
                    bound = signature.bind(*args, **kwargs)
                    bound.apply_defaults()
                    declared = [os.path.abspath(p) for p in declared_outputs(inner, bound.arguments)]
                    self.calls.append((task_obj, touched, declared))

        return watched


@pytest.fixture
def tiny_project(tmp_path, monkeypatch):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = make_project(tmp_path / "project", files_per_repo=3)
    monkeypatch.chdir(root)
    monkeypatch.setenv("QUARRY_HOME", str(root))  # its params, opt-out registry and caches
    return root


def test_every_cached_task_declares_the_files_it_writes(tiny_project, monkeypatch):
    from flows.evaluate import evaluate
    from flows.inventory import inventory
    from flows.pipeline import run_node

    from prefect.settings import PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS, temporary_settings

    root = tiny_project
    watch = Watch(root)
    every = registered_tasks()
    # every stage's phases (the tokenizer's too) run as the engine's one task; the recipes have their own
    assert {"run_phase", "recipe_task"} <= {t.name for t in every}, [t.name for t in every]
    for task_obj in every:
        monkeypatch.setattr(task_obj, "fn", watch.wrap(task_obj))

    params = str(root / "params.yaml")
    # A busy machine can take minutes to start Prefect's temporary API server.
    with temporary_settings(updates={PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS: 600}):
        for stage in ("snapshot", "curate", "assemble", "audit", "tokenizer", "tokenize", "train"):
            run_node(stage, params)
        evaluate("data/datasets/default", ["models/pretrain/final"], "reports/eval", "reports/metrics.json", params)
        inventory(str(root / "data" / "snapshot" / "shards"))

    undeclared = sorted({(t.name, os.path.relpath(path, root)) for t, touched, declared in watch.calls
                         if is_cached(t) for path in touched if not within(path, declared)})
    assert not undeclared, f"cached tasks wrote files they do not declare (outputs=...): {undeclared}"
    exercised = {id(t) for t, _, _ in watch.calls}
    missed = [t.name for t in every if is_cached(t) and id(t) not in exercised]
    assert not missed, f"cached tasks this test did not run (add a call): {missed}"
    assert any(touched for t, touched, _ in watch.calls if is_cached(t))  # the watch sees writes at all
