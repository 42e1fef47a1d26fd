"""What writers (tagging, undo, `remember`) are about to commit, kept until the commit lands.

A run adds itself to ``<root>/.cache/tagging-journal.json`` before it
touches a file and takes itself out once its commit is made (or there was
nothing to commit). A run killed on the way (kill -9, a power cut), or
whose commit failed (``.git/index.lock`` left by another program, a full
disk, a refusing hook, a detached HEAD), stays; the next writing run
finishes it first (`recovery.recover`). Several runs can wait at once: a
second failure does not push out the first.

Every function here is called with the writers' lock held
(`writers.acquire_writers_lock`).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from ..atomic import atomic_write_text
from ..memory import cache_dir

NAME = "tagging-journal.json"
_VERSION = 2


def path(root: Path) -> Path:
    return cache_dir(root) / NAME


def exists(root: Path) -> bool:
    return path(root).exists()


def load(root: Path) -> list[dict]:
    """The runs waiting to be finished, oldest first (each a dict with an "id").

    Raises ValueError when the file cannot be read as a journal (killed while
    it was first written: nothing had been touched yet).
    """
    try:
        saved = json.loads(path(root).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(saved, dict):
        raise ValueError("not a JSON object")
    if saved.get("version") == 1:  # one run, as earlier versions wrote it
        return [{**saved, "id": "v1"}]
    runs = saved.get("runs")
    if not isinstance(runs, list) or not all(isinstance(r, dict) and "id" in r for r in runs):
        raise ValueError("no list of runs")
    return runs


def save(root: Path, runs: list[dict]) -> None:
    """Write `runs` (atomically); no runs, no file."""
    if not runs:
        path(root).unlink(missing_ok=True)
        return
    atomic_write_text(path(root), json.dumps({"version": _VERSION, "runs": runs}, ensure_ascii=False))


def add(root: Path, run: dict) -> str:
    """Add `run` to the journal; return its id (for `drop`)."""
    try:
        runs = load(root)
    except ValueError:
        runs = []
    run = {**run, "id": secrets.token_hex(6)}
    save(root, runs + [run])
    return run["id"]


def drop(root: Path, run_id: str) -> None:
    """Take the run `run_id` out: it is committed, or had nothing to commit."""
    try:
        runs = load(root)
    except ValueError:
        runs = []
    save(root, [r for r in runs if r.get("id") != run_id])


def clear(root: Path) -> None:
    path(root).unlink(missing_ok=True)
