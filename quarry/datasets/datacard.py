"""The dataset card: Hugging Face dataset card conventions (YAML front matter, then Markdown),
generated from the manifest alone, plus a PNG of subset and language shares."""

from __future__ import annotations

from pathlib import Path

import yaml

from quarry.datasets.cite import bibtex, plain
from quarry.datasets.manifest import Manifest
from quarry.infra.plots import horizontal_bars, pyplot, save
from quarry.records import JsonDict

SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B")]


PLOT_ROWS = 15


def size_category(n: int) -> str:
    return next((label for bound, label in SIZE_CATEGORIES if n < bound), "n>1B")


def front_matter(manifest: Manifest) -> JsonDict:
    comp = manifest["composition"]
    splits = [s for s, info in manifest["splits"].items() if info["files"]]
    licenses = sorted(manifest["composition"]["by_license_category"])
    return {
        "pretty_name": manifest["name"],
        "license": "other",
        "license_details": "Per-document licenses in meta.license; categories: " + ", ".join(licenses),
        "size_categories": [size_category(comp["total"]["documents"])],
        "task_categories": ["text-generation"],
        "tags": ["code", "quarry", *sorted(comp["by_subset"])],
        "configs": [{"config_name": "default",
                     "data_files": [{"split": s, "path": f"{s}/*.jsonl.zst"} for s in splits]}],
        "dataset_info": {"splits": [{"name": s, "num_examples": comp["by_split"][s]["documents"],
                                     "num_bytes": comp["by_split"][s]["bytes"]} for s in splits]},
    }


def table(rows: dict[str, dict[str, int]], first: str, total: dict[str, int]) -> list[str]:
    columns = ["documents", "bytes", *(["tokens"] if "tokens" in total else [])]
    out = [f"| {first} | " + " | ".join(columns) + " | share of bytes |",
           "|---|" + "---:|" * (len(columns) + 1)]
    for name, counts in rows.items():
        share = counts["bytes"] / total["bytes"] if total["bytes"] else 0.0
        out.append(f"| {name} | " + " | ".join(f"{counts[c]:,}" for c in columns) + f" | {share:.2%} |")
    return out


def render(manifest: Manifest) -> str:
    comp = manifest["composition"]
    total = comp["total"]
    lines = ["---", yaml.safe_dump(front_matter(manifest), sort_keys=False, allow_unicode=True).rstrip(), "---", "",
             f"# {manifest['name']} {manifest['label']}", "",
             f"Version `{manifest['version']}` (sha256 over the shard hashes and this manifest).", "",
             "## Provenance", "",
             f"- parent version: `{manifest.get('parent') or 'none'}`",
             f"- snapshot: `{manifest.get('snapshot_id') or 'unknown'}`",
             f"- params hash: `{manifest['params_hash']}`",
             f"- opt-out registry hash: `{manifest.get('optout_registry_hash') or 'none'}`",
             f"- code version: `{manifest.get('code_version') or 'unknown'}`",
             f"- tokenizer: `{manifest.get('tokenizer') or 'none'}`", "",
             "## Composition", "", "![composition](composition.png)", "",
             "Exact counts of the released shards; a training document repeated by the mixture counts once "
             "per copy. Bytes are UTF-8 bytes of `text`.", "", "### By split", "",
             *table(comp["by_split"], "split", total), ""]
    for dim, title in (("subset", "subset (pile_set_name)"), ("language", "language"),
                       ("license_category", "license category")):
        lines += [f"### By {title}", "", *table(comp[f"by_{dim}"], dim, total), ""]
    for split, subsets in comp["by_split_and_subset"].items():
        lines += [f"### {split} by subset", "", *table(subsets, "subset", comp["by_split"][split]), ""]
    lines += ["## Mixture", "", "| subset | epochs |", "|---|---:|",
              *[f"| {s} | {e} |" for s, e in manifest["mixture"]["epochs"].items()],
              "", "Subsets not listed are taken once. Splits by a stable hash of the document id: "
              + ", ".join(f"{k} {v}" for k, v in manifest["mixture"]["splits"].items()) + ". "
              + _stratified(manifest["mixture"].get("stratify")), "",
              "## Curation ledger", "", "| stage | input | kept | dropped (by reason) |", "|---|---:|---:|---|"]
    for stage, ledger in manifest["ledger"].items():
        dropped = ", ".join(f"{reason}: {n:,}" for reason, n in ledger["dropped"].items()) or "none"
        lines.append(f"| {stage} | {ledger['input']:,} | {ledger['kept']:,} | {dropped} |")
    if bundle := manifest.get("attribution"):
        lines += ["", "## Attribution", "",
                  f"[ATTRIBUTION/NOTICE.md](ATTRIBUTION/NOTICE.md): the copyright lines, licence and NOTICE files of "
                  f"the {bundle['origins']:,} origins whose licences ask copies to keep them ({bundle['files']:,} files; "
                  f"standard texts: {', '.join(bundle['licenses']) or 'none needed'}). Keep the folder with every copy."]
    lines += ["", "## Getting the data", "",
              f"The folder `data/datasets/{manifest['name']}` is the output of the `assemble` stage of `dvc.yaml`; "
              "its shards live in the DVC cache and remote, this card and the manifest in git.", "",
              "```bash", f"dvc pull data/datasets/{manifest['name']}      # from the default remote",
              "dvc remote add -d store /mnt/datasets/quarry   # a local or network directory",
              "dvc remote add -d store s3://bucket/quarry     # or S3: only configuration differs",
              "dvc push                                       # publish this version",
              "sha256sum -c SHA256SUMS                        # inside the folder: verify every file", "```", "",
              "## Loading", "", "```python", "import quarry.datasets",
              f"for record in quarry.datasets.open(\"{manifest['version'][:12]}\", split=\"train\"):", "    ...",
              "", "from datasets import load_dataset",
              "ds = load_dataset(\"json\", data_files={\"train\": \"train/*.jsonl.zst\"})", "```", "",
              "## Citation", "", plain(manifest), "", "```bibtex", bibtex(manifest), "```", ""]
    return "\n".join(lines)


def plot(manifest: Manifest, path: Path) -> None:
    """Horizontal bars of the byte share of each subset and each language, the share and size
    written on each bar (a log axis keeps small subsets visible)."""
    plt = pyplot()
    comp = manifest["composition"]
    total = comp["total"]["bytes"] or 1
    bars = {dim: _largest(comp[f"by_{dim}"]) for dim in ("subset", "language")}
    height = 1.5 + 0.3 * max(len(rows) for rows in bars.values())
    fig, axes = plt.subplots(1, 2, figsize=(11, height))
    for ax, dim in zip(axes, ("subset", "language")):
        rows = bars[dim][::-1]  # largest at the top
        shares = [100 * size / total for _, size in rows]
        horizontal_bars(ax, [name for name, _ in rows], shares, xlabel="share of bytes (%)",
                        value_labels=[f"{share:.1f}% ({size / 1e6:.2f} MB)" for share, (_, size) in zip(shares, rows)])
        ax.set_title(f"by {dim}")
    fig.suptitle(f"{manifest['name']} {manifest['label']} ({manifest['version'][:12]})")
    save(fig, path)


def _largest(table: dict[str, dict[str, int]], keep: int = PLOT_ROWS) -> list[tuple[str, int]]:
    """(name, bytes) largest first; beyond ``keep`` rows the rest are summed as 'other'."""
    rows = sorted(((name, c["bytes"]) for name, c in table.items()), key=lambda kv: (-kv[1], kv[0]))
    if len(rows) > keep:
        rows = [*rows[:keep - 1], (f"other ({len(rows) - keep + 1})", sum(size for _, size in rows[keep - 1:]))]
    return rows


def _stratified(stratify: dict | None) -> str:
    if not stratify or not stratify["min_docs"]:
        return ""
    moved = ", ".join(f"{n:,} to {split}" for split, n in stratify["moved"].items()) or "none needed"
    return (f"Every subset of at least {stratify['min_docs']} documents has at least {stratify['per_split']} "
            f"in each held-out split (documents moved from training: {moved}).")
