"""LoCoMo with e5-small's cosine shifted by c0 (`eval_multilingual.Shifted`): the experiment in docs/embedders.md.

    PYTHONPATH=. .venv/bin/python bench/locomo_shifted.py ../shared/eval/locomo/locomo10.json 0.75 \
        --conversations 0-1 --work /tmp/lw --out /tmp/lo

The evaluation is `tachikoma eval locomo`'s own; only the embedder it builds is replaced.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_multilingual import Shifted

from tachikoma.embedders import create
from tachikoma.evaluation import locomo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("c0", type=float)
    parser.add_argument("--conversations", default="0-1")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    locomo.choose = lambda name, index: Shifted(create("e5-small"), args.c0)
    report = locomo.evaluate(args.path, "e5-small", only=locomo.parse_selection(args.conversations),
                             work=args.work, progress=False)
    locomo.write_report(report, args.out)
    print(locomo.headline(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
