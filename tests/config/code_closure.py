"""The project code a DAG stage can run: the modules its flow function imports, and theirs.

Static (every import statement counts, those inside functions too), so a lazily imported module
is found; a module-level import of the flow's module counts only when the flow function uses it.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("quarry", "flows", "tasks")


def module_file(name: str) -> Path | None:
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(tree: ast.AST, package: str) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)  # submodules imported by name
    return found


def closure(start: set[str]) -> set[Path]:
    """Files of every project module reachable from ``start`` (module names), parents included."""
    seen: set[Path] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__
            path = module_file(".".join(parts[:i]))
            if path is None or path in seen:
                continue
            seen.add(path)
            package = ".".join(parts[:i]) if path.name == "__init__.py" else ".".join(parts[: i - 1])
            todo.extend(_imports(ast.parse(path.read_text()), package))
    return seen


def flow_code(fn) -> set[Path]:
    """The files a flow function can run: its module, what its body (and the same module's functions
    it calls) import, and the module-level imports of its module that those bodies name."""
    fn = getattr(fn, "fn", fn)
    module = inspect.getmodule(fn)
    package = module.__package__ or ""
    tree = ast.parse(Path(module.__file__).read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    bodies, todo = {}, [fn.__name__]
    while todo:
        name = todo.pop()
        if name in bodies or name not in functions:
            continue
        bodies[name] = functions[name]
        todo.extend(node.id for node in ast.walk(functions[name]) if isinstance(node, ast.Name))
    names = {node.id for body in bodies.values() for node in ast.walk(body) if isinstance(node, ast.Name)}
    wanted = {m for body in bodies.values() for m in _imports(body, package)}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((alias.asname or alias.name.split(".")[0]) in names for alias in node.names):
                wanted |= _imports(node, package)
    return closure(wanted) | {Path(module.__file__)}
