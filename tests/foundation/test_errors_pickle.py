"""Every exception type Quarry defines survives a pickle round trip with its message and
attributes: a stage's error reaches the flow from a process pool or a Dask worker as itself,
not as the deserializer's TypeError. The types are found by walking the packages, not listed."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
from concurrent.futures import ProcessPoolExecutor

import cloudpickle
import pytest

from quarry.errors import RecordError

PACKAGES = ("quarry", "tasks", "flows")


def defined_exceptions() -> list[type[BaseException]]:
    found = {}
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if (inspect.isclass(value) and issubclass(value, BaseException)
                        and value.__module__.split(".")[0] in PACKAGES):
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def example(cls: type[BaseException]) -> BaseException:
    """An instance made through the type's own constructor, every argument a distinct string."""
    parameters = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
    if all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
        return cls(f"{cls.__name__}: something went wrong in data/x.jsonl")
    return cls(**{p.name: f"<{p.name}>" for p in parameters
                  if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)})


EXCEPTIONS = defined_exceptions()


def test_the_walk_finds_the_error_types():
    names = {cls.__name__ for cls in EXCEPTIONS}
    assert {"QuarryError", "RecordError", "ConfigError", "ScanCodeError", "ArchiveLimitError"} <= names, names


@pytest.mark.parametrize("cls", EXCEPTIONS, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_error_survives_pickling(cls, dumps):
    error = example(cls)
    back = pickle.loads(dumps(error))
    assert type(back) is cls
    assert str(back) == str(error) and str(error)
    assert back.args == error.args
    assert vars(back) == vars(error)


def _fail(path: str) -> None:
    raise RecordError(path, 3, 120, "not valid JSON")


def test_record_error_reaches_the_parent_of_a_process_pool():
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(RecordError, match=r"part-00001.jsonl.zst:3 \(byte 120\): not valid JSON") as caught:
            pool.submit(_fail, "data/part-00001.jsonl.zst").result()
    assert (caught.value.path, caught.value.line, caught.value.offset) == ("data/part-00001.jsonl.zst", 3, 120)
