"""Bring the index up to date with the memory folder.

files → read → chunk → embed → store. A file whose size and mtime are
unchanged is not even read; one whose content hash is unchanged is not
re-chunked; a chunk whose text hash is already in the index is not
re-embedded. Work is committed in small batches, so an interrupted run
leaves a usable index and the next run picks up where it stopped.

The index records how its chunks were cut (``chunking``: the chunker's
version and the embedder's window, `chunking.signature`). When that differs
from the current one, for example after an upgrade that makes chunks
smaller, every file is read and chunked again ("re-chunked"); chunks whose
text is unchanged keep their vectors. The signature is recorded when such a
run completes, so an interrupted one is resumed the same way. An index made
before per-chunk dates (``dates`` differs from `DATES_VERSION`) is upgraded
the same way: every file is read again to date its chunks, and nothing is
embedded again.

Progress is recorded as it is committed: ``last_indexed_at`` with every
batch, ``run_complete`` = "0" while a run is under way (or after it was
interrupted) and "1" with ``last_complete_at`` once it finished. Before each
batch the indexer checks that the index file it opened is still there, so
deleting ``.cache`` during a run stops it with an error instead of filling
an unlinked file.

Re-embedding (``--reembed``) first checks that the new embedder works on one
probe text, then replaces every vector in one transaction: until it commits,
searches keep using the old index, and a failure or Ctrl-C leaves the old
index exactly as it was.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from filelock import FileLock, Timeout

from . import chunking, dates, gitutil, humanize, memory, tagfile, transcripts
from .atomic import atomic_write_text
from .chunking import chunk_document
from .config import Config, load_config, settings_or_defaults
from .documents import TRANSCRIPT
from .embedders import choose, create
from .embedders.base import Embedder
from .errors import EmbedderError, IndexDamaged, TachikomaError
from .humanize import plural
from .reader import read_document
from .transcripts import Options
from .freshness import (Plan, _iso, _retagged, _tag_columns, _tag_file_evergreen, answer_freshness,  # noqa: F401
                        copied_session, embedded_counts, file_sha256, pending_changes, plan_run)
from .store import Store, index_error, locate
from .tags import Tags

Warn = Callable[[str], None]
# Called as progress(done, total, note) while chunks are embedded.
Progress = Callable[[int, int, str], None]

BATCH_CHUNKS = 64
#: What the stored dates mean (`dates`). An index whose ``dates`` differs (made before per-chunk dates)
#: has every file read and chunked again by the next run, reusing every vector, to fill them in.
DATES_VERSION = "1"
#: Cache of `gitutil.content_times` verdicts (is a commit's change to a note its tags only?).
GIT_VERDICTS = "git-verdicts.json"


@dataclass
class Summary:
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: int = 0
    rechunked: int = 0  # unchanged files chunked again because the chunking changed
    retagged: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_quick: int = 0  # chunk texts given quick vectors (`quick_tier`) before their full ones
    #: Memory files the index holds (notes and transcripts, as `stats` counts them) and their chunks.
    files: int = 0
    chunks: int = 0
    #: .jsonl files that are not transcripts: known to the index (so it does not read them again), not memory.
    data_files: int = 0
    embedder: str = ""
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def line(self) -> str:
        rechunked = f", {self.rechunked} re-chunked" if self.rechunked else ""
        rechunked += f", {self.retagged} retagged" if self.retagged else ""
        data = f" and {plural(self.data_files, '.jsonl data file')}" if self.data_files else ""
        return (f"{self.added} added, {self.changed} changed, {self.removed} removed, "
                f"{self.skipped} skipped, {self.unchanged} unchanged{rechunked}; "
                f"{plural(self.chunks_embedded, 'chunk')} embedded "
                f"({self.chunks_reused} reused) in {self.seconds:.1f} s; index holds {plural(self.files, 'file')}{data}, "
                f"{plural(self.chunks, 'chunk')} ({self.embedder})")


def held(store: Store) -> tuple[int, int, int]:
    """(memory files, chunks, data files) the index holds. A memory file is what `stats` counts: a note
    or a transcript. A .jsonl data file (no line is a transcript message) has a row, so the next run
    knows it unchanged, but it is not memory and is not counted as a file."""
    rows, chunks = store.counts()
    data_files = sum(any(transcripts.problem_kind(w) == "not-a-transcript" for w in warnings)
                     for warnings in store.chunkless_warnings(TRANSCRIPT))
    return rows - data_files, chunks, data_files


def freshness(root: Path) -> dict:
    """The state of the index, when it was last updated and how many files changed since.

    Never raises for a bad index file: "state" is "none" (no index yet; the
    other values None or 0), "complete", "incomplete" (a run is under way or
    was interrupted: "note" says to finish it), "damaged" or "unreadable"
    ("error" and "note" hold the one-line reason).
    """
    empty = {"state": "none", "last_indexed_at": None, "last_complete_at": None, "changed_since": None,
             "files": 0, "chunks": 0, "data_files": 0, "embedder": None, "note": None, "embedded": None}
    try:
        location = locate(root)
        if not location.exists():
            return empty
        with location.open(readonly=True) as store:
            stamp = store.get_meta("last_indexed_at")
            if stamp is None:
                return empty
            complete = store.get_meta("run_complete") != "0"  # absent: an index from before the flag
            finished = store.get_meta("last_complete_at") or (stamp if complete else None)
            files, chunks, data_files = held(store)
            built_with = store.embedder  # these parse stored values: damage shows here, not in a search
            _ = store.generation
            note = None
            embedded = embedded_counts(store, complete)
            if not complete:
                note = ("the last index run did not finish (it is still running or was interrupted): "
                        "run `tachikoma index` to finish it")
                if embedded["full"] < embedded["chunks"]:
                    note = f"{humanize.vectors_text(embedded)}; {note}"
            elif files and built_with and _chunking_for(built_with[0], settings_or_defaults(root)) not in (
                    None, store.get_meta("chunking")):
                note = ("the index was chunked by an older tachikoma: run `tachikoma index` to chunk every "
                        "file again (unchanged text keeps its vectors)")
            elif files and store.get_meta("dates") != DATES_VERSION:
                note = ("the index was dated by an older tachikoma: run `tachikoma index` to date every chunk "
                        "(nothing is embedded again)")
            return {
                "state": "complete" if complete else "incomplete",
                "last_indexed_at": _iso(store, stamp), "last_complete_at": _iso(store, finished),
                "changed_since": pending_changes(root, store, settings_or_defaults(root).max_file_bytes),
                "files": files, "chunks": chunks, "data_files": data_files,
                "embedder": built_with[0] if built_with else None,
                "note": note, "embedded": embedded,
            }
    except IndexDamaged as exc:
        return {**empty, "state": "damaged", "error": str(exc), "note": str(exc)}
    except TachikomaError as exc:
        return {**empty, "state": "unreadable", "error": str(exc), "note": str(exc)}


def _indexed_files(root: Path) -> list:
    """The index's file rows, sorted by path; [] when there is no readable index (freshness
    reports a damaged or unreadable one)."""
    try:
        location = locate(root)
        if not location.exists():
            return []
        with location.open(readonly=True) as store:
            rows = store.files()
    except TachikomaError:
        return []
    return sorted(rows.values(), key=lambda r: r.path)


def transcript_problems(root: Path) -> list[dict]:
    """What the last run found wrong inside transcripts: ``{"path", "reason", "kind"}`` with kind
    "no-turns", "unknown-lines", "bad-lines", or what was left out on purpose, "heartbeats" and
    "checkpoint-copy" (see `transcripts.problem_kind`). Only an index run
    reads whole transcripts; "not-a-transcript" is found by `stats.coverage` from the first lines."""
    found = []
    for row in _indexed_files(root):
        for warning in row.warnings if row.kind == TRANSCRIPT else []:
            kind = transcripts.problem_kind(warning)
            if kind is not None and kind != "not-a-transcript":
                reason = warning.removeprefix(row.path)
                reason = f"line {reason[1:]}" if reason[1:2].isdigit() else reason.removeprefix(": ")
                found.append({"path": row.path, "reason": reason, "kind": kind})
    return found


def not_indexed(root: Path) -> list[dict]:
    """Files the index holds no content of, and why: ``{"path", "reason", "kind"}`` with kind
    "too-large" (over ``[index] max_file_bytes``), "read-failed" (vanished or an I/O error: the
    next run reads it again), "binary" or "not-utf8" (UTF-16/32 text). Empty when there is no
    readable index."""
    found = []
    for row in _indexed_files(root):
        reason = row.warnings[0] if row.warnings else "not read"
        if not row.sha256:
            kind = "too-large" if "-byte limit" in reason else "read-failed"
        elif "binary file" in reason:
            kind = "binary"
        elif "text: save it as UTF-8" in reason:
            kind = "not-utf8"
        else:
            continue
        found.append({"path": row.path, "reason": reason.removeprefix(f"{row.path}: "), "kind": kind})
    return found


def _chunking_for(embedder_name: str, config: Config) -> str | None:
    """The chunking signature an index built with `embedder_name` should have; None if unknown."""
    try:
        return chunking.signature(create(embedder_name).max_words, config.tool_errors, config.tool_text)
    except TachikomaError:
        return None


def probe(embedder: Embedder) -> None:
    """Embed one short text and check the vector, so a broken embedder fails before anything changes."""
    try:
        vectors = np.asarray(embedder.embed_documents(["tachikoma checks that the embedder works"]),
                             dtype=np.float32)
    except TachikomaError as exc:
        raise EmbedderError(f"{exc} (the index was not changed)") from exc
    if vectors.shape != (1, embedder.dim) or not np.isfinite(vectors).all():
        raise EmbedderError(f"{embedder.name} returned a vector of shape {vectors.shape} (expected (1, "
                            f"{embedder.dim}), finite): the index was not changed")


def run(
    root: Path,
    config: Config | None = None,
    embedder_name: str | None = None,
    reembed: bool = False,
    progress: Progress | None = None,
    warn: Warn | None = None,
    embedder: Embedder | None = None,
    lock_timeout: float = 0,
    detail: Detail | None = None,
    vectors: str = "full",
) -> Summary:
    """Index `root` incrementally and return what was done.

    `vectors` "quick" stops once every chunk has its quick vector (`quick_tier`; for measuring the
    quick tier alone): the run is left incomplete, and the next one adds the full vectors.

    `progress` is called with (files done, files to do, path); `detail`, for
    a fuller display, with a `RunProgress` (bytes, chunks) as work advances.
    One run at a time per memory (a lock in ``.cache``): another run waits
    up to `lock_timeout` seconds for the one under way, then fails."""
    config = config or load_config(root)
    summary = Summary()
    started = time.perf_counter()

    def note(message: str) -> None:
        summary.warnings.append(message)
        if warn:
            warn(message)

    cache = memory.cache_dir(root)
    lock = FileLock(str(cache / "index.lock"))
    try:
        lock.acquire(timeout=lock_timeout)
    except Timeout:
        raise TachikomaError("another `tachikoma index` is running on this memory; wait for it to finish") from None
    except OSError as exc:  # a read-only memory, a full disk, something else where the lock file goes
        raise TachikomaError(f"cannot take the index lock {memory.printable(str(cache / 'index.lock'))} "
                             f"({exc.strerror or exc}): indexing needs to write in {memory.printable(str(cache))}"
                             ) from None
    try:
        store = locate(root, config).open()
    except BaseException:
        lock.release()
        raise
    try:
        store.lock_writer(lock_timeout)
    except BaseException:
        store.close()
        lock.release()
        raise
    try:
        requested, origin = config.embedder_request(embedder_name)
        current = store.embedder  # read even when an embedder is given: a damaged value stops the run here
        if embedder is None:
            # Re-embedding with a named embedder replaces the index's own, so it is not checked against it.
            built_with = None if (reembed and requested) or current is None else current[0]
            embedder = choose(requested, built_with, origin=origin)
        if reembed:
            probe(embedder)
        summary.embedder = embedder.name
        with _whole_run(store, reembed) as batch:
            _run(root, store, embedder, reembed, config, summary, progress, note, batch, detail, vectors)
    except sqlite3.DatabaseError as exc:
        raise index_error(store.path, exc) from exc
    finally:
        store.close()
        lock.release()
    summary.seconds = time.perf_counter() - started
    return summary


@contextlib.contextmanager
def _whole_run(store: Store, single: bool):
    """Yield the context manager each batch commits with. With `single` (re-embedding) the whole run
    is one transaction, committed at the end and rolled back on any failure, so readers see the old
    index until the new one is complete; otherwise each batch commits on its own."""
    if not single:
        yield lambda: _committed(store)
        return
    with store.writing_exclusively():
        yield contextlib.nullcontext


@contextlib.contextmanager
def _committed(store: Store):
    """One batch's transaction; once it commits, the state it leaves is recorded as whole (the
    indexer trusts its own writes), so readers during a long run do not check the file again."""
    with store.writing():
        yield
    store.record_whole()


def _run(root, store, embedder, reembed, config, summary, progress, note, batch, detail=None,
         vectors: str = "full") -> None:
    with batch():
        if reembed:
            store.clear()
            store.bump_generation()
        if reembed or store.embedder is None:
            store.set_meta("embedder", embedder.name)
            store.set_meta("dim", str(embedder.dim))

    try:
        tags = tagfile.load(root)
    except tagfile.TagFileError as exc:
        # One typo in the tag file (the watcher runs on every save) must not stop indexing, nor
        # make every transcript untagged at once: each keeps the tags the index has for it.
        note(f"{exc}; until then transcripts keep the tags the index has for them (a new one is untagged)")
        tags = TagsFromIndex(store.files())
    for message in tags.warnings:
        note(message)
    git_times = _content_times(root)
    dirty = gitutil.dirty_paths(root) if git_times else set()

    wanted_chunking = chunking.signature(embedder.max_words, config.tool_errors, config.tool_text)
    outdated = store.get_meta("chunking") != wanted_chunking or store.get_meta("dates") != DATES_VERSION
    rechunk = outdated and store.counts()[0] > 0
    plan = plan_run(root, store, note, rechunk, config.max_file_bytes)
    summary.unchanged = len(plan.unchanged) + len(plan.touched)
    store.check_present()
    with batch():
        for f, _sha in plan.touched:
            store.update_file(f.path, size=f.size, mtime_ns=f.mtime_ns)
        summary.retagged = _refresh_metadata(store, tags, git_times, dirty)
        store.set_meta("run_complete", "0")
        store.set_meta("last_indexed_at", f"{time.time():.3f}")

    meter = RunProgress(files_total=len(plan.todo),
                        bytes_total=sum(_work_bytes(f, config.max_file_bytes) for f, _ in plan.todo))

    def show(note_text: str) -> None:
        meter.note = note_text
        if detail:
            detail(meter)

    _store_files(root, store, embedder, plan.todo, tags, git_times, dirty, config, summary, progress, note,
                 batch, meter, show, quick=store.get_meta("quick_embedder") is not None)
    store.check_present()
    with batch():
        # Removed files leave only now, so a renamed file or a moved folder found their vectors by text
        # hash (`vectors_by_hash`) instead of embedding them again. Until then searches skip them
        # (the files behind the results are checked on every search).
        for path in plan.removed:
            store.delete_file(path)
        summary.removed = len(plan.removed)
        if plan.removed:
            store.bump_generation()
        # Every file is chunked and dated the current way now: an interrupted run only embeds what is left.
        store.set_meta("chunking", wanted_chunking)
        store.set_meta("dates", DATES_VERSION)
    if getattr(store, "tiers", False):  # else every chunk was embedded as it was stored
        _embed_all(store, embedder, batch, meter, show, note, vectors)
    if progress:
        progress(meter.files_done, meter.files_total, meter.note)
    summary.chunks_embedded = meter.chunks_embedded
    summary.chunks_quick = meter.quick_done
    store.check_present()
    if vectors == "quick":  # left incomplete: the next run adds the full vectors
        summary.files, summary.chunks, summary.data_files = held(store)
        return
    with batch():
        now = f"{time.time():.3f}"
        store.set_meta("last_indexed_at", now)
        store.set_meta("last_complete_at", now)
        store.set_meta("run_complete", "1")
    store.check_present()  # deleted during the last commit: the work went into a file nobody can open
    summary.files, summary.chunks, summary.data_files = held(store)


class TagsFromIndex:
    """Stands in for a tag file that cannot be read: the tags (and evergreen mark) the index holds for
    each transcript, so an index run keeps them as they were; a transcript not indexed yet has none."""

    warnings: list[str] = []

    def __init__(self, rows: dict):
        self._rows = rows
        self.entries = {path: {"evergreen": True} for path, row in rows.items() if row.evergreen}

    def tags_for(self, path: str) -> Tags:
        row = self._rows.get(path)
        if row is None or row.kind != TRANSCRIPT:
            return Tags()
        return Tags(trust=row.trust, confidence=row.confidence, source=row.source, invalid=dict(row.invalid))


def _file_info(f: memory.MemoryFile, sha: str, tags, git_times, dirty) -> dict:
    return {"path": f.path, "kind": f.kind, "sha256": sha, "size": f.size, "mtime_ns": f.mtime_ns,
            **_git_columns(f.path, git_times, dirty), "path_date": _ts(dates.path_date(f.path)),
            **_tag_columns(tags)}


def _content_times(root: Path) -> dict:
    """`gitutil.content_changes`, with its verdicts kept in ``.cache`` between runs (they never change)."""
    cache = memory.cache_dir(root) / GIT_VERDICTS
    try:
        verdicts = json.loads(cache.read_text(encoding="utf-8"))
        if not isinstance(verdicts, dict):
            verdicts = {}
    except (OSError, ValueError):
        verdicts = {}
    known = len(verdicts)
    times = gitutil.content_changes(root, verdicts)
    if len(verdicts) != known:
        try:
            atomic_write_text(cache, json.dumps(verdicts))
        except OSError:
            pass  # only a cache: the next run reads the blobs again
    return times


def _git_columns(path: str, git_times, dirty) -> dict:
    """The last content commit of `path` (time, and whether an import made it), unless it has
    uncommitted changes (then its mtime counts)."""
    change = None if path in dirty else git_times.get(path)
    if change is None:
        return {"git_date": None, "git_import": 0}
    return {"git_date": _ts(change.when), "git_import": int(change.imported)}


def _ts(when) -> float | None:
    return when.timestamp() if when is not None else None


def _refresh_metadata(store: Store, tags, git_times, dirty) -> int:
    """Update tags held outside the file (tag file) and git dates of indexed files."""
    rows = store.files()
    retagged = set(_retagged(rows, tags))
    changed = False
    for path, row in rows.items():
        updates = {}
        git = _git_columns(path, git_times, dirty)
        if git["git_date"] != row.git_date or bool(git["git_import"]) != row.git_import:
            updates.update(git)
        if path in retagged:
            updates.update(_tag_columns(tags.tags_for(path)), evergreen=int(_tag_file_evergreen(tags, path)))
        if updates:
            store.update_file(path, **updates)
            changed = True
    if changed:
        store.bump_generation()  # a searcher that lives on reloads the dates and tags
    return len(retagged)


@dataclass
class RunProgress:
    """Where an index run is, for a progress display (`run`'s `detail` callback).

    A run reads first, then embeds (``phase``). Reading is measured in bytes
    of the files to read (a file over the size limit counts for nothing: it
    is skipped after one stat); once a file is read its chunks are stored
    with their text, so keyword search finds them at once. Embedding is
    measured in chunks: first the quick tier's vectors (``quick_done`` of
    ``quick_total``, when the embedder has a quick tier), then the full
    model's (``chunks_embedded`` of ``chunks_total``), newest memories first.
    """

    files_done: int = 0
    files_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    note: str = ""
    phase: str = "reading"  # "reading", "quick vectors", "full vectors"
    chunks_total: int = 0  # chunks (distinct texts) to embed with the full model in this run
    quick_done: int = 0
    quick_total: int = 0


Detail = Callable[[RunProgress], None]


def progress_view(state: RunProgress, phase_seconds: float) -> dict:
    """What a progress display shows (the dashboard's Index panel; the command line's bar shows the
    same): the phase, files, its work done of total, the rate in chunks/s once embedding, and an
    estimate of the phase's time left from its own rate so far (None until it can say).
    `phase_seconds`: how long the current phase has run."""
    if state.phase == "reading":
        done, total, unit = state.bytes_done, state.bytes_total, "bytes"
    elif state.phase == "quick vectors":
        done, total, unit = state.quick_done, state.quick_total, "chunks"
    else:
        done, total, unit = state.chunks_embedded, state.chunks_total, "chunks"
    rate = done / phase_seconds if phase_seconds > 0 else 0.0
    left = (total - done) / rate if rate > 0 and total >= done else None
    return {"phase": state.phase, "files_done": state.files_done, "files_total": state.files_total,
            "done": done, "total": total, "unit": unit, "percent": 100.0 * done / total if total else 0.0,
            "chunks_per_second": rate if unit == "chunks" else None, "seconds_left": left,
            "chunks_reused": state.chunks_reused}
#: Files read and chunked ahead of the store (a thread reads while the main thread stores).
READ_AHEAD_FILES = 8
#: Chunks per embedder call: bounds the tokenizer's and model's arrays and moves the progress display;
#: each call's vectors are committed at once, so an interrupted run keeps them.
EMBED_SLICE = BATCH_CHUNKS
#: Chunks stored (with their text, before any vector) per transaction while reading.
STORE_BATCH_CHUNKS = 512
#: Chunks whose vectors are missing, looked up at a time (newest first) for embedding.
PENDING_LOOKUP = 4096
#: A run with fewer chunk texts than this to embed gives them no quick vectors: the full model takes seconds.
QUICK_TIER_MIN_CHUNKS = 2000
#: While embedding, searchers are told to reload vectors (the generation) at most this often.
RELOAD_SECONDS = 5.0


@dataclass
class _Read:
    """One file read and chunked, ready to store."""

    info: dict
    chunks: list
    status: str
    warnings: list[str]
    work_bytes: int
    #: its tool texts as stored: (chunk idx, line, tool, side, distinct words), never embedded
    tool_rows: list = field(default_factory=list)


def _read_ahead(todo, prepare, depth: int = READ_AHEAD_FILES):
    """Yield prepare(file, status) for each of `todo`, computed by a thread up to `depth` files ahead.

    Reading and chunking (Python, mostly JSON parsing) then overlaps with
    storing. An exception in the reader is raised here, at the file it
    happened on; leaving the loop early stops the reader.
    """
    import queue
    import threading

    slots: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def reader() -> None:
        for f, status in todo:
            if stop.is_set():
                return
            try:
                item = ("ok", prepare(f, status))
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
                item = ("error", exc)
            while not stop.is_set():
                try:
                    slots.put(item, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if item[0] == "error":
                return
        slots.put(("end", None))

    thread = threading.Thread(target=reader, name="tachikoma-reader", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = slots.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        thread.join(timeout=5)


def quick_tier(embedder: Embedder, to_embed: int, wanted: bool = False) -> Embedder | None:
    """The quick tier's embedder for a run with `to_embed` chunk texts to embed with `embedder`, or
    None: only the MiniLM family has one (static vectors distilled from it), and only a run of at least
    `QUICK_TIER_MIN_CHUNKS` uses it (`wanted`: any run), since the full model does a small one in seconds."""
    from .embedders import MINILM, MINILM_INT8

    if embedder.name not in (MINILM, MINILM_INT8) or not to_embed or (to_embed < QUICK_TIER_MIN_CHUNKS and not wanted):
        return None
    from .embedders.static import StaticEmbedder

    return StaticEmbedder()


def _embed_all(store, embedder, batch, meter: RunProgress, show, note, vectors: str = "full") -> None:
    """Give every chunk without a full vector its quick vector first (when the embedder has a quick
    tier, `quick_tier`: minutes instead of hours), then its full one, newest memories first.
    `vectors` "quick" stops after the quick tier (the run stays incomplete)."""
    to_embed = store.count_pending("vector")
    quick = quick_tier(embedder, to_embed, wanted=vectors == "quick")
    if quick is not None:
        try:
            quick.load()  # distils its table from the weights on first use
        except (TachikomaError, ImportError, OSError) as exc:
            note(f"no quick vectors this run ({exc}): chunks are searched by keywords until fully embedded")
            quick = None
    if quick is not None:
        with batch():
            store.set_meta("quick_embedder", quick.name)
            store.set_meta("quick_dim", str(quick.dim))
        meter.phase, meter.quick_total = "quick vectors", store.count_pending("quick")
        _embed_pending(store, quick, "quick", batch, meter, show)
    if vectors == "quick":
        return
    meter.phase, meter.chunks_total = "full vectors", to_embed
    _embed_pending(store, embedder, "vector", batch, meter, show)


def _store_files(root, store, embedder, todo, tags, git_times, dirty, config, summary, progress, note, batch,
                 meter, show, quick) -> None:
    """Read, chunk and store every file of `todo`: chunks with their text and dates, and the vectors
    the index already has for the same text (else none yet). A store without tiers of vectors
    (``store.tiers`` false: PostgreSQL, whose vector column cannot be empty) gets each batch's
    missing vectors embedded before it is stored, as in one pass."""
    prepared: list[_Read] = []
    pending_chunks = 0
    tiers = getattr(store, "tiers", False)

    def flush() -> None:
        nonlocal prepared, pending_chunks
        if not prepared:
            return
        wanted = [c.hash for item in prepared for c in item.chunks]
        known = store.vectors_by_hash(wanted)
        known_quick = store.vectors_by_hash([h for h in wanted if h not in known], "quick") if quick and tiers else {}
        reused = sum(h in known for h in wanted)
        meter.chunks_reused += reused
        summary.chunks_reused += reused
        if not tiers:
            _embed_now(embedder, {c.hash: c.text for item in prepared for c in item.chunks if c.hash not in known},
                       known, meter, lambda: show(prepared[-1].info["path"]))
        store.check_present()
        with batch():
            for item in prepared:
                rows = [(c.index, c.line_start, c.line_end, c.text, c.hash, known.get(c.hash, b""), when)
                        + ((known_quick.get(c.hash),) if tiers else ())
                        for c, when in zip(item.chunks, item.info.pop("chunk_dates"))]
                store.replace_file(item.info, rows, item.tool_rows)
            store.bump_generation()
            store.set_meta("last_indexed_at", f"{time.time():.3f}")
        meter.files_done += len(prepared)
        meter.bytes_done += sum(item.work_bytes for item in prepared)
        if progress:
            progress(meter.files_done, meter.files_total, prepared[-1].info["path"])
        show(prepared[-1].info["path"])
        prepared, pending_chunks = [], 0

    def prepare(f: memory.MemoryFile, status: str) -> _Read:
        doc = read_document(root, f.path, f.kind, max_bytes=config.max_file_bytes,
                            transcript_options=Options(tool_errors=config.tool_errors,
                                                       tool_text=config.tool_text))
        chunks = chunk_document(doc, embedder.max_words)
        file_tags = tags.tags_for(f.path) if f.kind == TRANSCRIPT else doc.tags
        # The fingerprint of what was read; "" (never read) keeps the file due for the next run.
        info = _file_info(f, doc.sha256 or "", file_tags, git_times, dirty)
        info["fm_date"] = _ts(doc.date)
        info["turn_date"] = dates.last_turn_date(doc)
        info["evergreen"] = (_tag_file_evergreen(tags, f.path) if f.kind == TRANSCRIPT
                             else dates.front_matter_evergreen(doc.meta))
        info["chunk_dates"] = dates.chunk_dates(doc, chunks)
        info["warnings"] = doc.warnings
        tool_rows = [(c.index, t.line, t.tool, t.side, words) for c in chunks for t in c.tool_texts
                     if (words := chunking.keyword_words(t.text))]
        return _Read(info, chunks, status, list(doc.warnings), _work_bytes(f, config.max_file_bytes), tool_rows)

    for item in _read_ahead(todo, prepare):
        for message in item.warnings:
            note(message)
        if not item.chunks and item.warnings:
            summary.skipped += 1
        elif item.status == "added":
            summary.added += 1
        elif item.status == "rechunked":
            summary.rechunked += 1
        else:
            summary.changed += 1
        prepared.append(item)
        pending_chunks += len(item.chunks)
        if progress:
            progress(meter.files_done, meter.files_total, item.info["path"])
        show(item.info["path"])
        if pending_chunks >= STORE_BATCH_CHUNKS:
            flush()
    flush()


def _embed_now(embedder, texts: dict[str, str], known: dict[str, bytes], meter: RunProgress, shown) -> None:
    """Embed `texts` (hash → text) into `known` (hash → vector bytes), a slice at a time: the one-pass
    way, for a store without tiers of vectors."""
    missing = sorted(texts)
    for start in range(0, len(missing), EMBED_SLICE):
        hashes = missing[start:start + EMBED_SLICE]
        vectors = np.asarray(embedder.embed_documents([texts[h] for h in hashes]), dtype=np.float32)
        for h, vec in zip(hashes, vectors):
            known[h] = vec.tobytes()
        meter.chunks_embedded += len(hashes)
        shown()


def _embed_pending(store, embedder, column: str, batch, meter: RunProgress, show) -> int:
    """Embed every chunk text lacking a `column` vector, newest first, committing each slice; returns
    how many texts were embedded. Searchers are told to reload (the generation) every few seconds."""
    done = 0
    reloaded = time.monotonic()
    while True:
        pending = store.pending(column, PENDING_LOOKUP)
        if not pending:
            break
        for start in range(0, len(pending), EMBED_SLICE):
            part = pending[start:start + EMBED_SLICE]
            vectors = np.asarray(embedder.embed_documents([text for _, text in part]), dtype=np.float32)
            store.check_present()
            with batch():
                store.fill(column, {h: vec.tobytes() for (h, _), vec in zip(part, vectors)})
                if time.monotonic() - reloaded >= RELOAD_SECONDS:
                    store.bump_generation()
                    reloaded = time.monotonic()
            done += len(part)
            if column == "vector":
                meter.chunks_embedded += len(part)
            else:
                meter.quick_done += len(part)
            show(f"{meter.phase}: {done:,} chunks")
    if done:
        with batch():
            store.bump_generation()
    return done


def _work_bytes(f: memory.MemoryFile, max_bytes: int | None) -> int:
    """A file's share of a run's work: its size, or nothing when it is over the limit (not read)."""
    return 0 if max_bytes is not None and f.size > max_bytes else f.size


def tqdm_progress(stream=sys.stderr) -> tuple[Detail, Callable[[], None]]:
    """A `run` detail callback drawing a tqdm bar, and its closer.

    While reading, the bar fills by bytes of files to read; then, for each
    tier of vectors, by chunks to embed (the estimate of time left comes from
    that phase's own rate), e.g.
    ``index: reading  42%|████▏     | 81.2M/193M [00:10<00:14] 120/340 files, 5,120 chunks stored (312 reused)`` then
    ``index: full vectors  12%|█▏ | 1,024/8,310 [00:14<01:40] 340/340 files, 73.1 chunks/s``.
    """
    from tqdm import tqdm

    bar = None
    phase = None
    started = time.perf_counter()

    def update(state: RunProgress) -> None:
        nonlocal bar, phase, started
        reading = state.phase == "reading"
        if state.phase != phase:
            if bar is not None:
                bar.close()
            phase, started = state.phase, time.perf_counter()
            total = state.bytes_total if reading else state.chunks_total if state.phase == "full vectors" \
                else state.quick_total
            bar = tqdm(total=total, desc=f"index: {'reading' if reading else state.phase}", unit="B" if reading else " chunks",
                       unit_scale=reading, unit_divisor=1024 if reading else 1000,
                       file=stream, dynamic_ncols=True, leave=False,
                       bar_format="{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                  "[{elapsed}<{remaining}] {postfix}")
        files = f"{state.files_done}/{state.files_total} files"
        if reading:
            bar.n = min(state.bytes_done, state.bytes_total)
            reused = f" ({state.chunks_reused:,} reused)" if state.chunks_reused else ""
            ready = (f"{state.chunks_embedded:,} chunks embedded" if state.chunks_embedded  # a store without tiers
                     else "keyword search ready for what is read")
            bar.set_postfix_str(f"{files}, {ready}{reused}", refresh=False)
        else:
            done = state.chunks_embedded if state.phase == "full vectors" else state.quick_done
            bar.n = min(done, bar.total)
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.set_postfix_str(f"{files}, {done:,} chunks, {rate:.1f} chunks/s", refresh=False)
        bar.refresh()

    def close() -> None:
        if bar is not None:
            bar.close()

    return update, close
