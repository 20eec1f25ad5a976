"""Real source text for dedup tests: modules of the standard library, read from disk."""

from __future__ import annotations

import sysconfig
from pathlib import Path

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = ["json/decoder.py", "json/encoder.py", "json/scanner.py", "csv.py", "textwrap.py", "fractions.py",
           "difflib.py", "shlex.py", "calendar.py", "bisect.py", "heapq.py", "colorsys.py", "sched.py",
           "graphlib.py", "stringprep.py", "tokenize.py", "string.py", "queue.py", "numbers.py", "fnmatch.py"]

LICENSE_HEADER = """# Copyright (c) Example Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""


def source(name: str) -> str:
    return (STDLIB / name).read_text(encoding="utf-8")


def record(doc_id: str, text: str, *, origin: str = "https://example.org/repo", path: str = "a.py",
           category: str | None = "permissive", subset: str = "code") -> dict:
    license_ = {"spdx": "MIT" if category == "permissive" else "GPL-3.0", "category": category, "evidence": "LICENSE"}
    return {"text": text, "meta": {"id": doc_id, "pile_set_name": subset, "origin": origin, "revision": None,
                                   "path": path, "language": "Python", "license": license_, "bytes": len(text)}}


def kept_records(folder: Path) -> list[dict]:
    """The records of a stage's output shards (not of its rejects/)."""
    from quarry.records import read_records

    return [r for shard in sorted(Path(folder).glob("*.jsonl*")) for r in read_records(shard)]
