"""The example memory (examples/memory) as test data: every test copies it through `copy_example`.

`make demo` indexes examples/memory in place, so a checkout may hold its `.cache/` (an index built
with another embedder) next to the notes. Hidden entries are not memory (the walk skips them), and
no test may depend on what a demo left behind, so they are never copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "memory"


def _hidden(_folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name.startswith(".")]


def copy_example(target: Path, source: Path = EXAMPLE) -> Path:
    """A private copy of the example memory at `target`, without hidden files or folders."""
    shutil.copytree(source, target, ignore=_hidden)
    return target
