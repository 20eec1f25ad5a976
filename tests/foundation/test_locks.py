"""The lock files: the product's pins, and the benchmarks' peers pinned apart from them."""

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict((norm(n), v) for n, _, v in (l.partition("==") for l in lines if l and not l.startswith("#")))


def requirement_name(spec: str) -> str:
    return norm(re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0])


def test_every_bench_peer_is_pinned_apart_from_the_product():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    product, bench = pins(REPO / "requirements.lock"), pins(REPO / "requirements-bench.lock")
    for spec in extras["bench"]:
        name = requirement_name(spec)
        assert name in product or name in bench, f"bench peer {name} is pinned in no lock"
    assert not set(product) & set(bench), "a package pinned twice: the bench lock must not move product pins"
    assert "datatrove" in bench and "detect-secrets" in bench


def test_the_extras_setup_installs_are_pinned_in_the_product_lock():
    setup = (REPO / "scripts" / "setup.sh").read_text()
    installed = re.search(r'-c requirements\.lock -e "\.\[([\w,]+)\]"', setup).group(1).split(",")
    assert "cluster" in installed  # the default suite runs `quarry cluster script`'s job scripts
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    product = pins(REPO / "requirements.lock")
    for extra in installed:
        for spec in extras[extra]:
            assert requirement_name(spec) in product, f"{extra} extra: {spec} is not pinned in requirements.lock"
