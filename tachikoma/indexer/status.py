"""What the index holds and whether it is current: `freshness` (the state, when it was last updated,
how many files changed since), `held`, `not_indexed`, `transcript_problems` and `index_problems` (both from
one read). Reads only; `stats` imports it."""

from __future__ import annotations

import json
from pathlib import Path

from .. import chunking, humanize, transcripts
from ..config import Config, settings_or_defaults
from ..reading.documents import TRANSCRIPT
from ..embedders import create
from ..errors import IndexDamaged, TachikomaError
from ..freshness import embedded_counts, iso, pending_changes
from ..store import locate
from ..store.protocol import IndexStore

#: What the stored dates mean (`dates`). An index whose ``dates`` differs (made before per-chunk dates, or
#: before a path's ``2026_02_10`` and ``2026.02.10`` were read as dates: version 1) has every file read and
#: chunked again by the next run, reusing every vector, to fill them in.
DATES_VERSION = "2"


def held(store: IndexStore) -> tuple[int, int, int]:
    """(memory files, chunks, data files) the index holds. A memory file is what `stats` counts: a note
    or a transcript. A .jsonl data file (no line is a transcript message) has a row, so the next run
    knows it unchanged, but it is not memory and is not counted as a file."""
    rows, chunks = store.counts()
    data_files = sum(any(transcripts.problem_kind(w) == "not-a-transcript" for w in warnings)
                     for warnings in store.chunkless_warnings(TRANSCRIPT))
    return rows - data_files, chunks, data_files


def freshness(root: Path, settings: Config | None = None) -> dict:
    """The state of the index, when it was last updated and how many files changed since.

    Never raises for a bad index file: "state" is "none" (no index yet; the
    other values None or 0), "complete", "incomplete" (a run is under way or
    was interrupted: "note" says to finish it), "damaged" or "unreadable"
    ("error" and "note" hold the one-line reason). `settings`: the memory's settings, which say where the
    index lives and how files are read (None: read from the memory, `config.settings_or_defaults`).
    """
    empty = {"state": "none", "last_indexed_at": None, "last_complete_at": None, "changed_since": None,
             "files": 0, "chunks": 0, "data_files": 0, "embedder": None, "note": None, "embedded": None,
             "other_languages": None, "secrets_redacted": None}
    try:
        if settings is None:
            settings = settings_or_defaults(root)
        location = locate(root, settings)
        if not location.exists():
            return empty
        with location.open(readonly=True) as store:
            stamp = store.get_meta("last_indexed_at")
            if stamp is None:
                return empty
            complete = store.get_meta("run_complete") != "0"  # absent: an index from before the flag
            finished = store.get_meta("last_complete_at") or (stamp if complete else None)
            files, chunks, data_files = held(store)
            secrets = secrets_held(store)
            built_with = store.embedder  # these parse stored values: damage shows here, not in a search
            _ = store.generation
            note = None
            embedded = embedded_counts(store, complete)
            if not complete:
                note = ("the last index run did not finish (it is still running or was interrupted): "
                        "run `tachikoma index` to finish it")
                if embedded["full"] < embedded["chunks"]:
                    note = f"{humanize.vectors_text(embedded)}; {note}"
            elif files and built_with and chunking_for(built_with[0], settings) not in (
                    None, store.get_meta("chunking")):
                note = ("the index was chunked by an older tachikoma: run `tachikoma index` to chunk every "
                        "file again (unchanged text keeps its vectors)")
            elif files and store.get_meta("dates") != DATES_VERSION:
                note = ("the index was dated by an older tachikoma: run `tachikoma index` to date every chunk "
                        "(nothing is embedded again)")
            return {
                "state": "complete" if complete else "incomplete",
                "last_indexed_at": iso(store, stamp), "last_complete_at": iso(store, finished),
                "changed_since": pending_changes(root, store, settings.max_file_bytes, settings.exclude),
                "files": files, "chunks": chunks, "data_files": data_files,
                "embedder": built_with[0] if built_with else None,
                "note": note, "embedded": embedded, "other_languages": other_languages(store),
                "secrets_redacted": {"secrets": sum(secrets.values()), "files": len(secrets)},
            }
    except IndexDamaged as exc:
        return {**empty, "state": "damaged", "error": str(exc), "note": str(exc)}
    except TachikomaError as exc:
        return {**empty, "state": "unreadable", "error": str(exc), "note": str(exc)}


#: The index's metadata key of the secrets its files had redacted: JSON {path: count}, only files with some.
SECRETS_META = "secrets_redacted"


def secrets_held(store) -> dict[str, int]:
    """{path: secrets redacted} of the index's files (`SECRETS_META`); {} when none or unreadable."""
    try:
        held_secrets = json.loads(store.get_meta(SECRETS_META) or "{}")
    except ValueError:
        return {}
    return held_secrets if isinstance(held_secrets, dict) else {}


def other_languages(store) -> dict | None:
    """The passages not in English that the multilingual embedder read (`pipeline.embed_multilingual`):
    ``{"embedder": name, "chunks": {language: count}}``; None when none were read."""
    read_by = store.get_meta("multilingual_embedder") if getattr(store, "multilingual", False) else None
    counts = store.language_counts() if read_by else {}
    return {"embedder": read_by, "chunks": dict(sorted(counts.items(), key=lambda kv: -kv[1]))} if counts else None


def _indexed_files(root: Path, settings: Config | None = None) -> list:
    """The index's file rows, sorted by path; [] when there is no readable index (freshness
    reports a damaged or unreadable one). `settings`: as `freshness`'s."""
    try:
        location = locate(root, settings)  # None: the memory's own, or the defaults (settings_or_defaults)
        if not location.exists():
            return []
        with location.open(readonly=True) as store:
            rows = store.files()
    except TachikomaError:
        return []
    return sorted(rows.values(), key=lambda r: r.path)


def transcript_problems(root: Path, settings: Config | None = None) -> list[dict]:
    """What the last run found wrong inside transcripts: ``{"path", "reason", "kind"}`` with kind
    "no-turns", "unknown-lines", "bad-lines", or what was left out on purpose, "heartbeats" and
    "checkpoint-copy" (see `transcripts.problem_kind`). Only an index run
    reads whole transcripts; "not-a-transcript" is found by `stats.coverage` from the first lines."""
    return _transcript_problems(_indexed_files(root, settings))


def _transcript_problems(rows: list) -> list[dict]:
    found = []
    for row in rows:
        for warning in row.warnings if row.kind == TRANSCRIPT else []:
            kind = transcripts.problem_kind(warning)
            if kind is not None and kind != "not-a-transcript":
                reason = warning.removeprefix(row.path)
                reason = f"line {reason[1:]}" if reason[1:2].isdigit() else reason.removeprefix(": ")
                found.append({"path": row.path, "reason": reason, "kind": kind})
    return found


def not_indexed(root: Path, settings: Config | None = None) -> list[dict]:
    """Files the index holds no content of, and why: ``{"path", "reason", "kind"}`` with kind
    "too-large" (over ``[index] max_file_bytes``), "read-failed" (vanished or an I/O error: the
    next run reads it again), "binary" or "not-utf8" (UTF-16/32 text). Empty when there is no
    readable index."""
    return _not_indexed(_indexed_files(root, settings))


def _not_indexed(rows: list) -> list[dict]:
    found = []
    for row in rows:
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


def index_problems(root: Path, settings: Config | None = None) -> list[dict]:
    """`not_indexed`, then `transcript_problems`, from one read of the index's file rows."""
    rows = _indexed_files(root, settings)
    return _not_indexed(rows) + _transcript_problems(rows)



def chunking_for(embedder_name: str, config: Config) -> str | None:
    """The chunking signature an index built with `embedder_name` should have; None if unknown."""
    try:
        return chunking.signature(create(embedder_name).max_words, config.tool_errors, config.tool_text,
                                  config.redact_secrets)
    except TachikomaError:
        return None


