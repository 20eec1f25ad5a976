#!/usr/bin/env bash
# Set up a Quarry checkout: .venv (the project, locked dependencies) and .venv-scancode (ScanCode,
# isolated). Idempotent: a second run with unchanged lock files returns in about a second.
#
# Why two environments: scancode-toolkit 32.5 needs plugincode 32.0, which cannot find its hooks
# with pluggy >= 1.6, while Prefect 3.4+ requires pluggy >= 1.6. ScanCode therefore runs from its
# own environment as a worker subprocess (quarry/curation/licenses), found at .venv-scancode or at
# $QUARRY_SCANCODE_PYTHON.
#
# torch: the lock pins torch==2.13.0. On Linux, PyPI's wheel of that version is the CUDA build;
# a machine with a local CPU wheel of it (find-links) takes that one. To choose yourself, install
# the build you want into .venv before running this script (for example the CPU-only wheel from
# PyTorch's CPU index, or a specific CUDA build): any local version of 2.13.0 satisfies the lock.
#
# The project installs with its `test` and `cluster` extras (pinned in requirements.lock): the
# default suite runs the job scripts `quarry cluster script` writes.
#
# `bash scripts/setup.sh --bench` also installs the benchmarks' peers (the `bench` extra) at the
# versions pinned in requirements-bench.lock, with requirements.lock as a constraint so no version
# the product runs on moves.
set -euo pipefail
cd "$(dirname "$0")/.."

install_bench_peers() {
  echo "setup: benchmark peers (requirements-bench.lock)"
  .venv/bin/python -m pip install -q -c requirements.lock -c requirements-bench.lock -e ".[bench]"
  .venv/bin/python -m pip check
}

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
stamp_of() { cat pyproject.toml requirements.lock requirements-bench.lock requirements-scancode.lock scripts/setup.sh | sha256sum | cut -c1-16; }
STAMP=$(stamp_of)

if [[ -f .venv/.quarry-setup && "$(cat .venv/.quarry-setup)" == "$STAMP" \
   && -f .venv-scancode/.quarry-setup && "$(cat .venv-scancode/.quarry-setup)" == "$STAMP" ]]; then
  echo "setup: environments are up to date"
  [[ "${1:-}" == "--bench" ]] && install_bench_peers
  exit 0
fi

echo "setup: project environment (.venv)"
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip setuptools wheel
.venv/bin/python -m pip install -q -c requirements.lock torch==2.13.0
.venv/bin/python -m pip install -q -c requirements.lock -e ".[test,cluster]"
echo "$STAMP" > .venv/.quarry-setup

echo "setup: ScanCode environment (.venv-scancode)"
[[ -x .venv-scancode/bin/python ]] || "$PYTHON" -m venv .venv-scancode
.venv-scancode/bin/python -m pip install -q --upgrade pip setuptools wheel
.venv-scancode/bin/python -m pip install -q -c requirements-scancode.lock "scancode-toolkit==32.5.0" "pluggy<1.6"
# Build (or load) ScanCode's license index once, so the first scan does not pay for it.
.venv-scancode/bin/python quarry/curation/licenses/scancode_worker.py --build-index
echo "$STAMP" > .venv-scancode/.quarry-setup
# Record ScanCode's interpreter in the project environment: `quarry` finds it from any folder.
echo "$PWD/.venv-scancode/bin/python" > .venv/quarry-scancode-python

# dvc needs a git repository; a plain copy of the sources gets one.
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git init -q && git add -A && git -c user.name=quarry -c user.email=quarry@localhost commit -qm "Quarry sources"
fi
[[ "${1:-}" == "--bench" ]] && install_bench_peers
echo "setup: done"
