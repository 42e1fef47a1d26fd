"""The same small memory indexed on SQLite and on PostgreSQL, open for reading: for the tests that hold the
keyword side of both engines to the same words and scores."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tachikoma.indexer import runner
from tachikoma.store import STORE_ENV, locate


def write_memory(root: Path, notes: dict[str, str]) -> Path:
    """`notes` (path: text) written under `root` and indexed with the hash embedder (no model is needed)."""
    root.mkdir()
    for name, text in notes.items():
        (root / name).write_text(text, encoding="utf-8")
    runner.run(root, embedder_name="hash")
    return root


@contextmanager
def on_both(tmp_path: Path, url: str, monkeypatch, notes: dict[str, str]) -> Iterator[tuple]:
    """(the SQLite store, the PostgreSQL store at `url`) of `notes`, each open for reading."""
    lite = write_memory(tmp_path / "lite", notes)
    monkeypatch.setenv(STORE_ENV, url)
    shared = write_memory(tmp_path / "shared", notes)
    with locate(shared).open(readonly=True) as on_postgres:
        monkeypatch.delenv(STORE_ENV)
        with locate(lite).open(readonly=True) as on_sqlite:
            yield on_sqlite, on_postgres
