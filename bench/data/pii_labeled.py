"""Write the seeded PII labeled set as jsonl (one document per line, spans in characters).

    python bench/data/pii_labeled.py --docs 400 --seed 0 --out bench/data/pii_labeled.jsonl

The set is generated, not committed: the same seed always gives the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "pii"))  # the labelled set lives with the tests

from labeled import build_labeled_set  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("bench/data/pii_labeled.jsonl"))
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "wb") as fh:
        for doc in build_labeled_set(args.docs, args.seed):
            fh.write(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) + b"\n")
    print(f"wrote {args.docs} documents to {args.out}")


if __name__ == "__main__":
    main()
