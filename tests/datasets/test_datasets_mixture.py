"""Mixture, composition and failure behaviour: properties over many ids, clear errors, and an
interrupted build that leaves the previous version in place."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quarry.datasets as qd
from quarry.stages.assemble import assemble
from quarry.datasets.composition import Composition, count_records
from quarry.datasets.manifest import verify_sums
from quarry.datasets.mixture import Mixture
from quarry.errors import ConfigError, QuarryError
from quarry.records import write_records

ids = st.text(min_size=1, max_size=40)


@settings(deadline=None)  # a shared machine must not fail a property on time
@given(ids, st.floats(min_value=0, max_value=5, allow_nan=False))
def test_copies_are_a_function_of_the_id_and_bounded_by_the_epochs(doc_id, epochs):
    mixture = Mixture(epochs={"s": epochs})
    copies = mixture.copies(doc_id, "s", "train")
    assert copies == mixture.copies(doc_id, "s", "train")
    assert int(epochs) <= copies <= int(epochs) + 1
    assert mixture.copies(doc_id, "s", "test") == min(copies, 1)


def test_fractional_epochs_keep_that_share_of_documents():
    mixture = Mixture(epochs={"s": 1.25})
    copies = [mixture.copies(f"doc-{i}", "s", "train") for i in range(20_000)]
    assert set(copies) == {1, 2}
    assert abs(sum(copies) / len(copies) - 1.25) < 0.02


records = st.lists(st.fixed_dictionaries({
    "text": st.text(max_size=30),
    "meta": st.fixed_dictionaries({"split": st.sampled_from(["train", "test"]),
                                   "pile_set_name": st.sampled_from(["a", "b"]),
                                   "language": st.sampled_from(["Python", "C"])})}), max_size=20)


@settings(max_examples=50, deadline=None)
@given(records, records)
def test_composition_of_parts_merges_to_the_composition_of_the_whole(left, right):
    merged = Composition.from_dict(count_records(left)).merge(count_records(right)).to_dict()
    assert merged == count_records(left + right)


@pytest.mark.parametrize("section, message", [
    ({"splits": {"train": -1}}, "assemble.splits"),
    ({"subsets": {"py": {"epochs": -2}}}, "assemble.subsets.py"),
    ({"subsets": {"py": {"epochs": 1, "weight": 0.5}}}, "both weight and epochs"),
])
def test_bad_mixture_params_name_the_key(section, message):
    with pytest.raises(ConfigError, match=message):
        Mixture.from_params(section)


def test_no_shards_and_missing_ids_are_clear_errors(tmp_path, params, registry):
    (tmp_path / "empty").mkdir()
    with pytest.raises(QuarryError, match="no jsonl / jsonl.zst shards"):
        assemble(tmp_path / "empty", tmp_path / "ds", params, registry=registry)
    write_records(tmp_path / "src" / "part-00000.jsonl.zst", [{"text": "x", "meta": {}}])
    with pytest.raises(QuarryError, match="part-00000.jsonl.zst.*without meta.id"):
        assemble(tmp_path / "src", tmp_path / "ds", params, registry=registry)


def test_an_interrupted_build_leaves_the_previous_version(curated, params, tmp_path, registry):
    out = tmp_path / "ds"
    before = assemble(curated, out, params, registry=registry)

    class Failing:
        version = "failing"

        def encode(self, text):
            raise RuntimeError("tokenizer crashed")

    with pytest.raises(RuntimeError, match="tokenizer crashed"):
        assemble(curated, out, params, tokenizer=Failing(), registry=registry)
    assert qd.load_manifest(out)["version"] == before["version"]
    assert verify_sums(out) == []
    assert [r["manifest"]["version"] for r in qd.releases(registry=registry)] == [before["version"]]
