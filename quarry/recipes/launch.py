"""Entry point each torchrun rank executes: ``python -m quarry.recipes.launch <recipe> --config C [k=v ...]``."""

from __future__ import annotations

import sys

from quarry.recipes.registry import run_recipe


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 3 or argv[1] != "--config":
        print("usage: python -m quarry.recipes.launch <recipe> --config <name|path> [key=value ...]",
              file=sys.stderr)
        return 2
    run_recipe(argv[0], argv[2], argv[3:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
