"""A corpus record is a document of its own: no other record of its shard governs its licence,
so an "All rights reserved" header in one record does not make its neighbours proprietary."""

from __future__ import annotations

from quarry.engine import run_local
from quarry.records import read_json, read_records, write_records
from quarry.stages.licenses import LICENSES
from quarry.stages.snapshot import run_snapshot
from licenses_helpers import needs_scancode

RESERVED = "# Copyright (c) 2001 Example Corp.\n# All rights reserved.\n\nimport os\nprint(os.sep)\n"
MIT = "# SPDX-License-Identifier: MIT\n\ndef double(x):\n    return 2 * x\n"
PLAIN = ["The reader streams each shard once and keeps one record in memory.\n" * (i + 3) for i in range(4)]


@needs_scancode
def test_corpus_records_are_governed_each_by_itself(tmp_path):
    texts = [RESERVED, MIT, *PLAIN]
    write_records(tmp_path / "corpus" / "pile.jsonl.zst",
                  [{"text": text, "meta": {"pile_set_name": "Mixed"}} for text in texts])
    snapshot = tmp_path / "snapshot"
    run_snapshot([{"name": "pile", "kind": "corpus", "path": str(tmp_path / "corpus")}], snapshot)
    run_local(LICENSES, snapshot / "shards", tmp_path / "licensed", {"licenses": {}})
    kept = {record["text"]: record["meta"]["license"]
            for shard in sorted((tmp_path / "licensed").glob("part-*.jsonl.zst")) for record in read_records(shard)}
    assert kept[MIT]["spdx"] == "MIT"
    assert all(kept[text]["category"] == "no-license" for text in PLAIN)
    ledger = read_json(tmp_path / "licensed" / "ledger.json")
    # the reserved record itself is the only one its header can cost
    assert ledger["kept"] >= len(texts) - 1 and ledger["dropped"].get("license:proprietary", 0) <= 1
