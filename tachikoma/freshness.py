"""Is the index fresh? The folder compared with the index, without importing the indexer.

Every search answer says how many files changed since the last index run
(`answer_freshness`); a command-line search pays for it on every call, so this
module imports only what the comparison needs (no readers, chunking, git or
embedders): `indexer` builds its runs on the same `plan_run`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from . import memory
from .config import settings_or_defaults
from .reading.dates import front_matter_evergreen
from .reading.documents import TRANSCRIPT
from .errors import TachikomaError

if TYPE_CHECKING:
    from .store.protocol import IndexStore

Warn = Callable[[str], None]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def same_stat(indexed: tuple[int, int], size: int, mtime_ns: int) -> bool:
    """Whether a file of `size` bytes modified at `mtime_ns` is as the index last read it (`indexed`: its size and
    time then): what an index run takes as unchanged without reading it again (`plan_run`)."""
    return indexed[0] == size and indexed[1] == mtime_ns


def changed_since_read(root: Path, indexed: dict[str, tuple[int, int]]) -> list[str]:
    """Which of the files `indexed` (path: its size and time when the index read it) are no longer as the index
    read them: another size or time now (a text edited since: the index's line numbers may point elsewhere), or
    gone. A stat each: for a search's results (`Searcher.search`), whose passages are read from their files."""
    changed = []
    for path, stat in indexed.items():
        try:
            now = os.stat(root / path)
        except OSError:
            changed.append(path)
            continue
        if not same_stat(stat, now.st_size, now.st_mtime_ns):
            changed.append(path)
    return sorted(changed)


@dataclass
class Plan:
    """What a run has to do, found by comparing the folder with the index."""

    todo: list[tuple[memory.MemoryFile, str]]  # (file, "added"|"changed"|"rechunked")
    touched: list[tuple[memory.MemoryFile, str]]  # same content, new stat: (file, sha256)
    removed: list[str]
    unchanged: list[memory.MemoryFile]


def plan_run(root: Path, store: IndexStore, warn: Warn | None = None, rechunk: bool = False,
             max_bytes: int | None = None, known: dict | None = None,
             exclude: memory.Exclusion = memory.NO_EXCLUSION, excluded: list[memory.Excluded] | None = None) -> Plan:
    """Compare the folder with the index. `rechunk`: unchanged files are to be chunked again too.
    `exclude` (``[index] exclude``): the files it leaves out are not memory, so an indexed one is removed; what
    it left out is added to `excluded` when given (`memory.walk`).

    A row's sha256 is the hash of the content that was read and chunked; a row
    with none ("") was never read (it vanished, failed, or was over the size
    limit), so it is always read again, except a file still over `max_bytes`
    with the same size and time (it stays skipped, and reported). A file over
    `max_bytes` is never hashed: the reader skips it after one stat.
    """
    known = store.files() if known is None else known
    plan = Plan([], [], [], [])
    seen = set()
    unlisted: list[str] = []
    for f in memory.walk(root, warn, unlisted, exclude=exclude, excluded=excluded):
        seen.add(f.path)
        row = known.get(f.path)
        unchanged = row is not None and same_stat((row.size, row.mtime_ns), f.size, f.mtime_ns)
        if max_bytes is not None and f.size > max_bytes:
            if unchanged and not row.sha256:
                plan.unchanged.append(f)  # skipped before, skipped again: nothing to do
            else:
                plan.todo.append((f, "changed" if row else "added"))  # the reader skips it, with a warning
            continue
        if row is None or not row.sha256:
            plan.todo.append((f, "changed" if row else "added"))
            continue
        if unchanged:
            if rechunk:
                plan.todo.append((f, "rechunked"))
            else:
                plan.unchanged.append(f)
            continue
        try:
            sha = file_sha256(f.abspath)
        except OSError:
            plan.todo.append((f, "changed"))  # the reader reports it, and leaves it marked as unread
            continue
        if row.sha256 == sha:
            if rechunk:
                plan.todo.append((f, "rechunked"))
            else:
                plan.touched.append((f, sha))
        else:
            plan.todo.append((f, "changed"))
    # A checkpoint left out as a copy of its session is read again once that session is gone.
    copies = [f for f in plan.unchanged if (row := known.get(f.path)) is not None and row.warnings
              and (session := copied_session(row.warnings)) is not None and session not in seen]
    again = {f.path for f in copies}
    plan.unchanged = [f for f in plan.unchanged if f.path not in again]
    plan.todo += [(f, "changed") for f in copies]
    # A folder that could not be listed (for now) still holds its files: they are not removed.
    hidden = tuple("" if folder == "." else folder + "/" for folder in unlisted)
    plan.removed = sorted(path for path in set(known) - seen if not path.startswith(hidden))
    return plan


def copied_session(warnings: list[str]) -> str | None:
    """The session file an OpenClaw checkpoint was left out as a copy of (`reader.checkpoint_copy_of`)."""
    from .reading.reader import CHECKPOINT_COPY  # only for a file with warnings: the reader is not light

    for warning in warnings:
        _, found, rest = warning.partition(f": {CHECKPOINT_COPY} ")
        if found:
            return rest.rsplit(" (every line", 1)[0]
    return None


def pending_changes(root: Path, store: IndexStore, max_bytes: int | None = None,
                    exclude: memory.Exclusion = memory.NO_EXCLUSION) -> int:
    """How many files were added, changed, removed (or left out by `exclude` since) or re-tagged (transcripts,
    in the tag file) since the last index run, or still need reading."""
    rows = store.files()
    plan = plan_run(root, store, max_bytes=max_bytes, known=rows, exclude=exclude)
    due = {f.path for f, _ in plan.todo} | set(plan.removed)
    from .reading import tagfile  # YAML: imported by the freshness check only, not with this module

    try:
        tags = tagfile.load(root)
    except TachikomaError:
        tags = None  # a malformed tag file is reported by stats itself
    if tags is not None:
        due.update(retagged(rows, tags))
    return len(due)


def embedded_counts(store: IndexStore, complete: bool) -> dict:
    """{"chunks", "full", "quick", "none"}: how many chunks have full vectors, quick ones only, or none
    yet (keyword search only). A complete run leaves every chunk with its full vector, and so does
    every batch on a store without tiers of vectors (``store.tiers`` false: it embeds before it
    stores), so only an unfinished run on a store with tiers pays for counting them."""
    if complete or not getattr(store, "tiers", False):
        chunks = store.counts()[1]
        return {"chunks": chunks, "full": chunks, "quick": 0, "none": 0}
    tiers = store.tier_counts()
    return {"chunks": sum(tiers.values()), **tiers}


def answer_freshness(root: Path, store: IndexStore, config_path: str | os.PathLike | None = None) -> dict:
    """The freshness every search answer carries: when the index was last updated, whether
    that run finished, and how many files were added, changed or removed since.

    ``state`` is "complete" or "incomplete" (a run is under way or was
    interrupted); times are ISO 8601 UTC. ``embedded`` says how many chunks
    have full vectors (`embedded_counts`). `config_path`: the search's settings file (None: the memory's own),
    read now (the defaults when it cannot be): its size limit and ``[index] exclude``, as an index run reads them.
    """
    stamp = store.get_meta("last_indexed_at")
    complete = store.get_meta("run_complete") != "0"
    settings = settings_or_defaults(root, config_path)
    return {"state": "complete" if complete else "incomplete",
            "last_indexed_at": iso(store, stamp),
            "changed_since": pending_changes(root, store, settings.max_file_bytes, settings.exclude),
            "embedded": embedded_counts(store, complete)}


def iso(store: IndexStore, stamp: str | None) -> str | None:
    if stamp is None:
        return None
    try:
        return datetime.fromtimestamp(float(stamp), UTC).isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError) as exc:
        raise store.damaged(f"unreadable time {stamp!r}") from exc


def tag_columns(tags) -> dict:
    return {"trust": tags.trust, "confidence": tags.confidence, "source": tags.source, "invalid": tags.invalid}


def tag_file_evergreen(tags, path: str) -> bool:
    """Whether a transcript's tag-file entry says ``evergreen: true``."""
    return front_matter_evergreen(tags.entries.get(path))


def retagged(rows, tags) -> list[str]:
    """Indexed transcripts whose tags in the tag file differ from the index's."""
    return [path for path, row in rows.items()
            if row.kind == TRANSCRIPT and (tag_columns(tags.tags_for(path)) != tag_columns(row)
                                           or tag_file_evergreen(tags, path) != row.evergreen)]
