"""One index run (`run`): the lock, the plan, the tags and git dates, the batches and their
transactions, and the `Summary` it returns. See the package's docstring."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from filelock import FileLock, Timeout

from .. import chunking, memory
from ..git import gitutil
from ..reading import tagfile
from ..atomic import atomic_write_text
from ..config import Config, load_config
from ..reading.documents import TRANSCRIPT
from ..embedders import auto, choose
from ..embedders.base import Embedder
from ..embedders.names import reader_label
from ..errors import EmbedderError, TachikomaError
from ..freshness import plan_run, retagged, tag_columns, tag_file_evergreen
from ..humanize import plural, secrets_text
from ..store import index_error, locate
from ..store.protocol import IndexStore
from ..reading.tags import Tags
from .pipeline import embed_all, embed_multilingual, git_columns, multilingual_reader, store_files, work_bytes
from .reporting import Detail, RunProgress
from .status import DATES_VERSION, SECRETS_META, held, secrets_held

Warn = Callable[[str], None]
# Called as progress(done, total, note) while chunks are embedded.
Progress = Callable[[int, int, str], None]

#: Cache of `gitutil.content_times` verdicts (is a commit's change to a note its tags only?).
GIT_VERDICTS = "git-verdicts.json"


@dataclass
class Summary:
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    #: Files read to no chunk (binary, over the size limit…) and files or folders the walk left out (a symlink
    #: out of the memory…): each warned about.
    skipped: int = 0
    #: Of those, the files and folders the walk left out (each run warns about them again).
    left_out: int = 0
    #: Memory files ``[index] exclude`` leaves out (not read; a folder's counted by name): not skipped, chosen.
    excluded: int = 0
    rechunked: int = 0  # unchanged files chunked again because the chunking changed
    #: Files read this run: added, changed, re-chunked, or read to nothing (counted in `skipped`).
    read: int = 0
    retagged: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0  # chunks stored with a vector the index held for the same text
    #: Chunks stored whose text another chunk of this run has too: given the vector that text was embedded to once.
    chunks_repeated: int = 0
    chunks_quick: int = 0  # chunk texts given quick vectors (`quick_tier`) before their full ones
    chunks_multilingual: int = 0  # chunk texts (not in English, or all) given the multilingual embedder's vectors too
    multilingual_embedder: str = ""  # its name
    #: Memory files the index holds (notes and transcripts, as `stats` counts them) and their chunks.
    files: int = 0
    chunks: int = 0
    #: .jsonl files that are not transcripts: known to the index (so it does not read them again), not memory.
    data_files: int = 0
    embedder: str = ""
    #: Why a new index took its embedder ("auto: English or mixed (…)", "asked for (--embedder)"); "": the index's own.
    embedder_reason: str = ""
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    #: On a shared store: the memory's name there and the store ("postgresql://…/memories"), else "".
    memory: str = ""
    store: str = ""
    #: Secrets the index holds replaced by markers (``[privacy] redact_secrets``), and in how many files.
    secrets: int = 0
    secret_files: int = 0
    #: The files read this run and how many secrets each had (kept in the index's metadata, `status.SECRETS_META`).
    secrets_read: dict = field(default_factory=dict)
    #: Every file the index holds with secrets redacted after this run, and how many (`count_secrets`).
    secrets_held: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The summary as `index --json` and the dashboard's Index page carry it; the secrets as `stats --json` and
        `index --watch --json` do (``secrets_redacted``: ``{"secrets", "files"}``)."""
        skip = ("secrets_read", "secrets_held", "secrets", "secret_files")
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__ if k not in skip},
                "secrets_redacted": self.secrets_redacted()}

    def secrets_redacted(self) -> dict:
        """The secrets the index holds redacted, as `stats --json` carries them: ``{"secrets", "files"}``."""
        return {"secrets": self.secrets, "files": self.secret_files}

    def secrets_in(self, path: str) -> dict:
        """The secrets redacted in the file at `path` alone (read by this run or an earlier one), as
        `secrets_redacted` carries the index's: ``{"secrets", "files"}``."""
        count = self.secrets_held.get(path, 0)
        return {"secrets": count, "files": 1 if count else 0}

    def news(self, before: Summary | None) -> bool:
        """Whether this run is worth a line after `before`, the last run the same process made (None: this is
        its first, whose summary always is): it read, removed or retagged a file or made vectors, or the walk left
        out (or ``[index] exclude`` excluded) more or fewer files than before. A watcher's run that found nothing to do is not."""
        did = (self.read or self.removed or self.retagged or self.chunks_embedded or self.chunks_quick
               or self.chunks_multilingual)
        return before is None or bool(did) or ((self.left_out, self.excluded, self.embedder)
                                               != (before.left_out, before.excluded, before.embedder))

    def line(self) -> str:
        rechunked = f", {self.rechunked} re-chunked" if self.rechunked else ""
        rechunked += f", {self.retagged} retagged" if self.retagged else ""
        data = f" and {plural(self.data_files, '.jsonl data file')}" if self.data_files else ""
        excluded = f"{self.excluded} excluded, " if self.excluded else ""
        return (f"{self.added} added, {self.changed} changed, {self.removed} removed, "
                f"{self.skipped} skipped, {excluded}{self.unchanged} unchanged{rechunked}; "
                f"{plural(self.chunks_embedded, 'chunk')} embedded "
                f"({self.chunks_reused} reused"
                + (f", {self.chunks_repeated} {'repeats' if self.chunks_repeated == 1 else 'repeat'} another chunk's "
                   "text" if self.chunks_repeated else "")
                + (f", {self.chunks_multilingual} also read by {reader_label(self.multilingual_embedder)}"
                   if self.chunks_multilingual
                   else "") + f") in {self.seconds:.1f} s; "
                + (f"memory {self.memory!r} in {self.store} holds " if self.memory else "index holds ")
                + f"{plural(self.files, 'file')}{data}, "
                f"{plural(self.chunks, 'chunk')} ({self.embedder})"
                + (f"; {secrets}" if (secrets := secrets_text(self.secrets_redacted())) else ""))



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
    multilingual: Embedder | None = None,
) -> Summary:
    """Index `root` incrementally and return what was done.

    `vectors` "quick" stops once every chunk has its quick vector (`quick_tier`; for measuring the
    quick tier alone): the run is left incomplete, and the next one adds the full vectors.
    `multilingual`: the embedder that reads the passages not in English again (default:
    `pipeline.multilingual_reader`).

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
            if built_with is None:  # a new index (or one re-embedded as asked): say which embedder and why
                if requested is None:  # "auto": by the memory's language (`embedders.auto`)
                    requested, summary.embedder_reason = auto.choice(root, exclude=config.exclude)
                else:
                    summary.embedder_reason = f"asked for ({origin})"
            embedder = choose(requested, built_with, origin=origin)
        if reembed:
            probe(embedder)
        summary.embedder = embedder.name
        if getattr(store, "engine", "sqlite") == "postgresql":  # which name this run wrote, on a shared store
            from ..store.postgres_errors import redacted

            summary.memory, summary.store = store.name, redacted(store.url)
        with _whole_run(store, reembed) as batch:
            _run(root, store, embedder, reembed, config, summary, progress, note, batch, detail, vectors,
                 multilingual)
    except sqlite3.DatabaseError as exc:
        raise index_error(store.path, exc) from exc
    finally:
        store.close()
        lock.release()
    summary.seconds = time.perf_counter() - started
    return summary


@contextlib.contextmanager
def _whole_run(store: IndexStore, single: bool):
    """Yield the context manager each batch commits with. With `single` (re-embedding) the whole run
    is one transaction, committed at the end and rolled back on any failure, so readers see the old
    index until the new one is complete; otherwise each batch commits on its own."""
    if not single:
        yield lambda: _committed(store)
        return
    with store.writing_exclusively():
        yield contextlib.nullcontext


@contextlib.contextmanager
def _committed(store: IndexStore):
    """One batch's transaction; once it commits, the state it leaves is recorded as whole (the
    indexer trusts its own writes), so readers during a long run do not check the file again."""
    with store.writing():
        yield
    store.record_whole()


def _run(root, store, embedder, reembed, config, summary, progress, note, batch, detail=None,
         vectors: str = "full", multilingual: Embedder | None = None) -> None:
    with batch():
        if reembed:
            store.clear()
            store.bump_generation()
        if reembed or store.embedder is None:
            store.set_meta("embedder", embedder.name)
            store.set_meta("dim", str(embedder.dim))
            if summary.embedder_reason:
                store.set_meta("embedder_reason", summary.embedder_reason)

    try:
        tags = tagfile.load(root)
    except tagfile.TagFileError as exc:
        # One typo in the tag file (the watcher runs on every save) must not stop indexing, nor
        # make every transcript untagged at once: each keeps the tags the index has for it.
        note(f"{exc}; until then transcripts keep the tags the index has for them (a new one is untagged)")
        tags = TagsFromIndex(store.files())
    for message in tags.warnings:
        note(message)
    git_times = content_times(root)
    dirty = gitutil.dirty_paths(root) if git_times else set()

    wanted_chunking = chunking.signature(embedder.max_words, config.tool_errors, config.tool_text,
                                         config.redact_secrets)
    outdated = store.get_meta("chunking") != wanted_chunking or store.get_meta("dates") != DATES_VERSION
    rechunk = outdated and store.counts()[0] > 0
    # An index that held secrets as written (made before redaction, or with it off) keeps their bytes in its
    # file after the re-read replaced them, unless it is scrubbed (`IndexStore.scrub`).
    scrub = rechunk and config.redact_secrets and not chunking.redacted(store.get_meta("chunking"))
    def left_out(message: str) -> None:  # a file or folder the walk skipped, warned about: counted as skipped
        summary.skipped += 1
        summary.left_out += 1
        note(message)

    excluded: list[memory.Excluded] = []
    plan = plan_run(root, store, left_out, rechunk, config.max_file_bytes, exclude=config.exclude, excluded=excluded)
    summary.excluded = sum(entry.files for entry in excluded)
    summary.unchanged = len(plan.unchanged) + len(plan.touched)
    summary.read = len(plan.todo)
    store.check_present()
    with batch():
        for f, _sha in plan.touched:
            store.update_file(f.path, size=f.size, mtime_ns=f.mtime_ns)
        summary.retagged = refresh_metadata(store, tags, git_times, dirty)
        store.set_meta("run_complete", "0")
        store.set_meta("last_indexed_at", f"{time.time():.3f}")

    meter = RunProgress(files_total=len(plan.todo),
                        bytes_total=sum(work_bytes(f, config.max_file_bytes) for f, _ in plan.todo))

    def show(note_text: str) -> None:
        meter.note = note_text
        if detail:
            detail(meter)

    store_files(root, store, embedder, plan.todo, tags, git_times, dirty, config, summary, progress, note,
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
        summary.secrets_held = held_secrets = count_secrets(store, summary.secrets_read, plan.removed, rechunk)
        summary.secrets, summary.secret_files = sum(held_secrets.values()), len(held_secrets)
    if getattr(store, "tiers", False):  # else every chunk was embedded as it was stored
        embed_all(store, embedder, batch, meter, show, note, vectors)
    if scrub:
        store.scrub()
    if vectors != "quick" and getattr(store, "multilingual", False):
        reader = multilingual if multilingual is not None else multilingual_reader(embedder, config)
        summary.chunks_multilingual = embed_multilingual(store, embedder, reader, config, batch, show, note,
                                                         changed=bool(plan.todo or plan.removed))
        summary.multilingual_embedder = reader.name if reader is not None else ""
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



def count_secrets(store: IndexStore, read: dict[str, int], removed, everything: bool) -> dict[str, int]:
    """The index's {path: secrets redacted} after a run that read the files of `read` (with their counts) and
    removed those of `removed` (`everything`: every file was read again), written to its metadata."""
    held_secrets = {} if everything else secrets_held(store)
    held_secrets.update(read)
    for path in removed:
        held_secrets.pop(path, None)
    held_secrets = {path: n for path, n in sorted(held_secrets.items()) if n}
    store.set_meta(SECRETS_META, json.dumps(held_secrets))
    return held_secrets


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



def content_times(root: Path) -> dict:
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



def refresh_metadata(store: IndexStore, tags, git_times, dirty) -> int:
    """Update tags held outside the file (tag file) and git dates of indexed files."""
    rows = store.files()
    changed_tags = set(retagged(rows, tags))
    changed = False
    for path, row in rows.items():
        updates = {}
        git = git_columns(path, git_times, dirty)
        if git["git_date"] != row.git_date or bool(git["git_import"]) != row.git_import:
            updates.update(git)
        if path in changed_tags:
            updates.update(tag_columns(tags.tags_for(path)), evergreen=int(tag_file_evergreen(tags, path)))
        if updates:
            store.update_file(path, **updates)
            changed = True
    if changed:
        store.bump_generation()  # a searcher that lives on reloads the dates and tags
    return len(changed_tags)


