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


def indexed_example(target: Path, embedder: str = "hash") -> Path:
    """`copy_example` at `target`, indexed with `embedder` (default the hash embedder: fast, no model)."""
    from tachikoma.indexer import runner

    runner.run(copy_example(target), embedder_name=embedder)
    return target


def example_and_runbook(folder: Path, runbook_name: str | None = "operations") -> tuple[Path, Path]:
    """Two memories for a shared store, both indexed (hash embedder) into the store the environment names:
    the example memory in `folder`/notes and a one-note runbook in `folder`/ops, indexed under
    `runbook_name` (None: its folder's name)."""
    from tachikoma.indexer import runner

    notes = copy_example(folder / "notes")
    ops = folder / "ops"
    ops.mkdir()
    (ops / "runbook.md").write_text("# Runbook\n\nRestart the quokka service with systemctl.\n", encoding="utf-8")
    if runbook_name:
        (ops / "tachikoma.toml").write_text(f'[store]\nname = "{runbook_name}"\n', encoding="utf-8")
    runner.run(notes, embedder_name="hash")
    runner.run(ops, embedder_name="hash")
    return notes, ops
