"""The SQLite engine (the default): files, chunks with float32 vectors, and index metadata in one file.

The index is derived from the memory files and can be deleted at any time.
WAL mode lets the dashboard read while an indexer writes; each file's chunks
are replaced in one transaction, so an interrupted run leaves a usable index
that the next run completes.

A damaged index file (corrupt pages, a missing table, unreadable metadata)
raises `IndexDamaged`, whose one-line message says to delete the ``.cache``
folder and index again: the index is derived, so that is always safe
(`sqlite_errors`: every SQLite failure as one line).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import index_check
from ..errors import IndexDamaged, NoIndexYet, TachikomaError
from ..language.segment import index_text
from .fts import keyword_expression, quote_term
from .multilingual import arrays as multilingual_arrays
from .sqlite_errors import damaged, guarded, index_error
from .sqlite_schema import (KEYWORDS_FUNCTION, MIGRATIONS, REQUIRED, MULTILINGUAL, SCHEMA, SCRIPTS,
                            SCHEMA_VERSION, TOOL_SCHEMA, Scrubbing)

#: Chunk columns holding vectors: the full model's ("vector", empty until embedded) and the quick tier's.
VECTOR_COLUMNS = ("vector", "quick")
#: SQL true for a chunk lacking a vector in that column.
_LACKS = {"vector": "length(c.vector) = 0", "quick": "c.quick IS NULL AND length(c.vector) = 0"}


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Run the statements of `script` one by one, inside the caller's transaction (``executescript``
    would commit it first)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""


def json_column(text: str, empty: str, make):
    """A stored JSON column; the usual empty value without the parser (a search's freshness check
    reads every file row)."""
    return make() if text == empty else json.loads(text)


@dataclass
class FileRow:
    id: int
    path: str
    kind: str
    sha256: str
    size: int
    mtime_ns: int
    fm_date: float | None
    git_date: float | None
    trust: str | None
    confidence: str | None
    source: str | None
    invalid: dict
    warnings: list
    indexed_at: float
    path_date: float | None = None
    turn_date: float | None = None
    evergreen: bool = False
    git_import: bool = False


class Store(Scrubbing):
    """One connection to an index file. Not shared between threads."""

    engine = "sqlite"
    #: Chunks are stored before they are embedded (an empty vector), then filled in, cheapest tier
    #: first (`pending`, `fill`); see `tachikoma.store`.
    tiers = True

    def __init__(self, path: Path, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        self._created = False
        if readonly and not self.path.exists():
            raise NoIndexYet(f"no index yet at {self.path}: run `tachikoma index` first")
        if self.path.is_dir():
            raise damaged(self.path, "it is a folder, not a file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TachikomaError(f"cannot create {self.path.parent} ({exc.strerror})") from None
        try:
            self._open(f"file:{self.path}?mode=ro" if readonly else f"file:{self.path}", readonly)
        except sqlite3.OperationalError as exc:
            # A read-only reader of a WAL index needs its -shm file, which a folder it cannot write
            # (a read-only mount, another user's memory) lets it neither find nor create; SQLite
            # can then read the file only as immutable, so no writer may be running there.
            if not readonly or "unable to open" not in str(exc):
                raise index_error(self.path, exc) from exc
            try:
                self._open(f"file:{self.path}?mode=ro&immutable=1", readonly)
            except sqlite3.DatabaseError as again:
                raise index_error(self.path, again) from again
        except sqlite3.DatabaseError as exc:
            raise index_error(self.path, exc) from exc

    def _open(self, uri: str, readonly: bool) -> None:
        self.db = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
        try:
            self.db.create_function(KEYWORDS_FUNCTION, 1, index_text, deterministic=True)
            self.db.execute("PRAGMA busy_timeout = 30000")
            if not readonly:
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the first read opens the file
            self._migrate(readonly)
            self._check_whole()
            self._identity = self._file_identity()
        except BaseException:
            self.db.close()
            raise

    def _check_whole(self) -> None:
        """Raise IndexDamaged when the file is not whole (`index_check`: a full check only when the
        file is in a state no check has passed, so not on every search)."""
        if self._created:
            return
        dim = self.get_meta("dim")
        index_check.ensure_whole(self.db, self.path, int(dim) * 4 if dim and dim.isdigit() else None, damaged)

    def _file_identity(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def check_present(self) -> None:
        """Raise if the index file was deleted or replaced since it was opened (say `rm -rf .cache`
        during a run): writing on would only fill a file nobody can open any more."""
        if self._identity is None or self._file_identity() != self._identity:
            raise TachikomaError(f"the index {self.path} was deleted or replaced while tachikoma was using it: "
                                 "run `tachikoma index` again")

    @guarded(parses="schema version")
    def _migrate(self, readonly: bool) -> None:
        has_meta = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
        version = self.get_meta("schema_version") if has_meta else None
        if version is None:
            if readonly:
                raise NoIndexYet(f"no index yet at {self.path}: run `tachikoma index` first")
            self._created = True
            with self.db:
                self.db.executescript(SCHEMA + TOOL_SCHEMA + MULTILINGUAL)
                self.set_meta("schema_version", str(SCHEMA_VERSION))
                self.set_meta("generation", "0")
                self.set_meta("index_id", secrets.token_hex(8))
        elif 1 <= int(version) < SCHEMA_VERSION:
            if readonly:
                raise TachikomaError(f"{self.path} was made by an older tachikoma (index schema {version}): "
                                     "run `tachikoma index` to upgrade it (its vectors are kept)")
            with self.db:
                for step in range(int(version) + 1, SCHEMA_VERSION + 1):
                    if MIGRATIONS[step] is None:
                        _run_script(self.db, SCRIPTS[step])
                    for statement in MIGRATIONS[step] or ():
                        self.db.execute(statement)
                self.set_meta("schema_version", str(SCHEMA_VERSION))
        elif int(version) != SCHEMA_VERSION:
            raise TachikomaError(
                f"{self.path} has index schema {version}, this tachikoma reads {SCHEMA_VERSION}: "
                f"delete {self.path.parent} and run `tachikoma index` to rebuild it")
        else:
            present = {name for (name,) in self.db.execute("SELECT name FROM sqlite_master")}
            missing = sorted(REQUIRED - present)
            if missing:
                raise damaged(self.path, f"missing {', '.join(missing)}")
        if not readonly and self.get_meta("index_id") is None:  # an index made before index ids
            with self.db:
                self.set_meta("index_id", secrets.token_hex(8))

    def close(self) -> None:
        self.db.close()
        self.record_whole()

    def record_whole(self) -> None:
        """Record the file's state as whole (`index_check`) after this writer's own writes, so the
        next reader does not check it again; nothing for a read-only store or a replaced file."""
        if not self.readonly and self._identity is not None and self._file_identity() == self._identity:
            index_check.record(self.path)

    @property
    def cache_folder(self) -> Path:
        """Where caches derived from this index live (the search's vector cache): beside the file."""
        return self.path.parent

    @property
    def label(self) -> str:
        """How messages name this index."""
        return str(self.path)

    def damaged(self, reason: str) -> IndexDamaged:
        return damaged(self.path, reason)

    def reopen(self) -> "Store":
        """Another read-only connection to the same index (one connection per thread)."""
        return Store(self.path, readonly=True)

    def lock_writer(self, timeout: float = 0) -> None:
        """Nothing to do: the indexer's lock file in ``.cache`` already makes it the only writer."""

    # -- transactions -----------------------------------------------------
    @contextlib.contextmanager
    def reading(self):
        """One consistent read (WAL snapshot isolation) for everything read inside; nests."""
        began = not self.db.in_transaction
        if began:
            self.db.execute("BEGIN")
        try:
            yield self
        finally:
            if began:
                self.db.execute("COMMIT")

    @contextlib.contextmanager
    def writing(self):
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self.db:
            yield self

    @contextlib.contextmanager
    def writing_exclusively(self):
        """One transaction that holds the write lock from its start (a whole re-embedding run):
        readers see the old index until it commits. Fails if the file was replaced meanwhile."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.db.rollback()
            raise
        self.check_present()
        self.db.commit()
        self.check_present()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- metadata -------------------------------------------------------
    @guarded()
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @guarded()
    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    @property
    @guarded(parses="embedder dimension")
    def embedder(self) -> tuple[str, int] | None:
        name, dim = self.get_meta("embedder"), self.get_meta("dim")
        return (name, int(dim)) if name and dim else None

    @guarded()
    def bump_generation(self) -> None:
        """Mark the index as changed, so long-running readers reload their vectors."""
        self.db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    @property
    @guarded(parses="generation")
    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def cache_key(self, generation: int) -> str:
        """What names a cache derived from this index at `generation`: the index's random id (made
        with the index, so a deleted and rebuilt index never meets the old one's caches) and the
        generation."""
        index_id = self.get_meta("index_id")
        return f"{index_id}-{generation}" if index_id and index_id.isalnum() else str(generation)

    # -- files ------------------------------------------------------------
    @guarded(parses="file rows")
    def files(self) -> dict[str, FileRow]:
        rows = self.db.execute(
            "SELECT id, path, kind, sha256, size, mtime_ns, fm_date, git_date, trust, confidence, "
            "source, invalid, warnings, indexed_at, path_date, turn_date, evergreen, git_import FROM files").fetchall()
        return {r[1]: FileRow(*r[:11], json_column(r[11], "{}", dict), json_column(r[12], "[]", list), r[13], r[14], r[15],
                              bool(r[16]), bool(r[17])) for r in rows}

    @guarded(parses="file rows")
    def chunkless_warnings(self, kind: str) -> list[list[str]]:
        """The warnings of each file of `kind` that has no chunk (nothing to index, or not indexed)."""
        rows = self.db.execute("SELECT warnings FROM files WHERE kind = ? AND NOT EXISTS "
                               "(SELECT 1 FROM chunks WHERE chunks.file_id = files.id)", (kind,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    @guarded()
    def vectors_by_hash(self, hashes: list[str], column: str = "vector") -> dict[str, bytes]:
        """Any stored vector (of `column`, `VECTOR_COLUMNS`) whose chunk text hash is in `hashes`
        (moved or copied text); chunks not embedded yet have none."""
        assert column in VECTOR_COLUMNS
        found: dict[str, bytes] = {}
        for start in range(0, len(hashes), 500):
            part = hashes[start:start + 500]
            marks = ",".join("?" * len(part))
            found.update(self.db.execute(
                f"SELECT hash, {column} FROM chunks WHERE hash IN ({marks}) AND length({column}) > 0", part))
        return found

    @guarded()
    def pending(self, column: str, limit: int) -> list[tuple[str, str]]:
        """Up to `limit` distinct (hash, text) of chunks that lack a `column` vector (for "quick": lack
        both), newest memories first: the chunk's own date, else its file's best known date."""
        assert column in VECTOR_COLUMNS
        rows = self.db.execute(
            "SELECT c.hash, c.text, max(coalesce(c.date, f.turn_date, f.fm_date, f.path_date, f.git_date, "
            f"f.mtime_ns / 1e9)) AS newest FROM chunks c JOIN files f ON f.id = c.file_id WHERE {_LACKS[column]} "
            "GROUP BY c.hash ORDER BY newest DESC, c.hash LIMIT ?", (int(limit),)).fetchall()
        return [(r[0], r[1]) for r in rows]

    @guarded()
    def count_pending(self, column: str) -> int:
        """How many distinct chunk texts lack a `column` vector (`pending`)."""
        assert column in VECTOR_COLUMNS
        return self.db.execute(f"SELECT count(DISTINCT c.hash) FROM chunks c WHERE {_LACKS[column]}").fetchone()[0]

    @guarded()
    def fill(self, column: str, vectors: dict[str, bytes]) -> None:
        """Store `column` vectors by chunk text hash; a full vector drops the quick one it replaces.
        Call inside a transaction."""
        assert column in VECTOR_COLUMNS
        sql = ("UPDATE chunks SET vector = ?, quick = NULL WHERE hash = ? AND length(vector) = 0"
               if column == "vector" else "UPDATE chunks SET quick = ? WHERE hash = ? AND length(vector) = 0")
        self.db.executemany(sql, [(blob, h) for h, blob in vectors.items()])

    @guarded()
    def tier_counts(self) -> dict[str, int]:
        """How many chunks have full vectors, only quick ones, or none yet (keyword search only). Only the
        chunks not embedded yet are read (`chunks_unembedded`), not every vector."""
        total = self.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        pending, quick = self.db.execute("SELECT count(*), count(quick) FROM chunks WHERE length(vector) = 0").fetchone()
        return {"full": int(total - pending), "quick": int(quick), "none": int(pending - quick)}

    # -- passages read again by the multilingual embedder (`MULTILINGUAL`) ---
    #: This store keeps them (`indexer.pipeline.embed_multilingual`).
    multilingual = True

    @guarded()
    def unjudged(self, limit: int, after: str = "", english: bool = False) -> list[tuple[str, str]]:
        """Up to `limit` distinct (hash, text) of chunks whose text has no `multilingual` row yet (`english`: or
        was judged English, without a vector), by hash after `after`."""
        lacking = "m.hash IS NULL" + (" OR (m.language IS NULL AND length(m.vector) = 0)" if english else "")
        rows = self.db.execute("SELECT c.hash, min(c.text) FROM chunks c LEFT JOIN multilingual m ON m.hash = c.hash "
                               f"WHERE ({lacking}) AND c.hash > ? GROUP BY c.hash ORDER BY c.hash LIMIT ?",
                               (after, int(limit)))
        return [(r[0], r[1]) for r in rows]

    @guarded()
    def judge(self, rows: list[tuple[str, str | None, bytes]]) -> None:
        """Store (hash, language or None for English, vector or b"") per chunk text. Call inside a transaction."""
        self.db.executemany("INSERT OR REPLACE INTO multilingual(hash, language, vector) VALUES (?,?,?)", rows)

    @guarded()
    def drop_english_vectors(self) -> int:
        """Empty the vectors of passages judged English; returns how many. Call inside a transaction."""
        return self.db.execute("UPDATE multilingual SET vector = x'' WHERE language IS NULL AND length(vector) > 0"
                               ).rowcount

    @guarded()
    def forget_judgements(self) -> None:
        """Drop every row (another multilingual embedder reads them next). Call inside a transaction."""
        self.db.execute("DELETE FROM multilingual")

    @guarded()
    def forget_unused_judgements(self) -> int:
        """Drop the rows of texts no chunk holds any more; returns how many. Call inside a transaction."""
        return self.db.execute("DELETE FROM multilingual WHERE hash NOT IN (SELECT hash FROM chunks)").rowcount

    @guarded()
    def language_counts(self) -> dict[str, int]:
        """Chunks per language of the passages the multilingual embedder read."""
        return dict(self.db.execute("SELECT m.language, count(*) FROM chunks c JOIN multilingual m ON m.hash = c.hash "
                                    "WHERE m.language IS NOT NULL AND length(m.vector) > 0 GROUP BY m.language"))

    @guarded(parses="vectors")
    def load_multilingual(self, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The chunks whose text has a multilingual vector: (M,) chunk ids ascending, (M,) their languages
        and the (M, dim) float32 matrix."""
        rows = self.db.execute("SELECT c.id, m.language, m.vector FROM chunks c JOIN multilingual m ON m.hash = c.hash "
                               "WHERE length(m.vector) > 0 ORDER BY c.id").fetchall()
        return multilingual_arrays(rows, dim)

    @guarded()
    def replace_file(self, info: dict, chunks: list[tuple], tool_texts: list[tuple[int, int, str, str, str]] = ()) -> None:
        """Insert or replace one file and all its chunks (idx, start, end, text, hash, vector, date[,
        quick]): vector b"" when not embedded yet, quick None when it has none; and its tool texts
        (chunk idx, line, tool, side, words).

        Call inside a transaction (`with store.db:`)."""
        self.delete_file(info["path"])
        cur = self.db.execute(
            "INSERT INTO files(path, kind, sha256, size, mtime_ns, fm_date, git_date, trust, confidence,"
            " source, invalid, warnings, indexed_at, path_date, turn_date, evergreen, git_import)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (info["path"], info["kind"], info["sha256"], info["size"], info["mtime_ns"],
             info.get("fm_date"), info.get("git_date"), info.get("trust"), info.get("confidence"),
             info.get("source"), json.dumps(info.get("invalid", {})),
             json.dumps(info.get("warnings", [])), time.time(), info.get("path_date"), info.get("turn_date"),
             int(bool(info.get("evergreen"))), int(bool(info.get("git_import")))))
        file_id = cur.lastrowid
        self.db.executemany(
            "INSERT INTO chunks(file_id, idx, line_start, line_end, text, hash, vector, date, quick) "
            "VALUES (?,?,?,?,?,?,?,?,?)", [(file_id, *c, None) if len(c) == 7 else (file_id, *c) for c in chunks])
        self.db.executemany("INSERT INTO tool_texts(file_id, chunk_idx, line, tool, side, words) VALUES (?,?,?,?,?,?)",
                            [(file_id, *t) for t in tool_texts])

    @guarded()
    def update_file(self, path: str, **columns) -> None:
        """Change some columns of a file row (stat after a touch, tags, git date)."""
        if "invalid" in columns:
            columns["invalid"] = json.dumps(columns["invalid"])
        sets = ", ".join(f"{name} = ?" for name in columns)
        self.db.execute(f"UPDATE files SET {sets} WHERE path = ?", (*columns.values(), path))

    @guarded()
    def delete_file(self, path: str) -> None:
        row = self.db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row:
            self.db.execute("DELETE FROM chunks WHERE file_id = ?", (row[0],))
            self.db.execute("DELETE FROM tool_texts WHERE file_id = ?", (row[0],))
            self.db.execute("DELETE FROM files WHERE id = ?", (row[0],))

    @guarded()
    def clear(self) -> None:
        """Forget every file and chunk (used before re-embedding with another model)."""
        self.db.execute("DELETE FROM chunks")
        self.db.execute("DELETE FROM tool_texts")
        self.db.execute("DELETE FROM files")
        self.db.execute("DELETE FROM multilingual")
        self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
        self.db.execute("INSERT INTO tool_fts(tool_fts) VALUES ('rebuild')")

    # -- reading for search ------------------------------------------------
    @guarded(parses="vectors")
    def load_matrix(self, dim: int, column: str = "vector") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All chunk ids, their file ids and an (N, dim) float32 matrix of their `column` vectors;
        a chunk without one has a row of zeros (`has_vectors` says which)."""
        assert column in VECTOR_COLUMNS
        rows = self.db.execute(f"SELECT id, file_id, {column} FROM chunks ORDER BY id").fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        file_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        zero = bytes(dim * 4)
        blob = b"".join(r[2] or zero for r in rows)
        if len(blob) != len(rows) * dim * 4:
            raise ValueError(f"{len(blob):,} bytes of vectors for {len(rows):,} chunks of {dim} dimensions")
        matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dim) if rows else \
            np.empty((0, dim), dtype=np.float32)
        if not np.isfinite(matrix).all():  # garbage bytes read as floats: NaN and inf rank nothing sensibly
            raise ValueError("a vector holds NaN or infinity")
        return ids, file_ids, matrix

    @guarded()
    def has_vectors(self, column: str = "vector") -> np.ndarray:
        """(N,) bool in chunk id order: which chunks have a `column` vector."""
        assert column in VECTOR_COLUMNS
        rows = self.db.execute(f"SELECT length({column}) > 0 FROM chunks ORDER BY id").fetchall()
        return np.fromiter((bool(r[0]) for r in rows), dtype=bool, count=len(rows))

    @guarded()
    def chunk_details(self, chunk_ids: list[int]) -> dict[int, tuple]:
        """id → (path, kind, idx, line_start, line_end, text, size, mtime_ns) for the given chunks."""
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(
            "SELECT c.id, f.path, f.kind, c.idx, c.line_start, c.line_end, c.text, f.size, f.mtime_ns FROM chunks c "
            f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})", chunk_ids)
        return {r[0]: r[1:] for r in rows}

    @guarded()
    def map_chunk_texts(self, of_text, kind: str | None = None) -> dict[int, object]:
        """chunk id → `of_text(text)` for every chunk (of the files of `kind`), read in one pass."""
        where = " JOIN files f ON f.id = c.file_id WHERE f.kind = ?" if kind else ""
        rows = self.db.execute(f"SELECT c.id, c.text FROM chunks c{where}", (kind,) if kind else ())
        return {chunk: of_text(text or "") for chunk, text in rows}

    @guarded()
    def file_passages(self, path: str) -> list[tuple[int, int, str]]:
        """(first line, last line, text) of each chunk of the file at `path`, in order: what the index
        holds of a file, shown where the file itself is not at hand (another memory's result)."""
        return [tuple(r) for r in self.db.execute(
            "SELECT c.line_start, c.line_end, c.text FROM chunks c JOIN files f ON f.id = c.file_id "
            "WHERE f.path = ? ORDER BY c.idx", (path,))]

    def has_vector_index(self, dim: int) -> bool:
        """Whether the engine keeps an index of its own for nearest vectors: not SQLite (the search
        uses `vector_index`, beside the vector cache)."""
        return False

    def vector_candidates(self, query: np.ndarray, count: int) -> np.ndarray | None:
        """None: no engine-side nearest-vector index (see `has_vector_index`)."""
        return None

    # -- tool texts, by keyword only (`TOOL_SCHEMA`) ---------------------------
    #: Tool texts matching an FTS5 expression, joined to the chunk whose turn made the call.
    _TOOL_CHUNKS = ("FROM tool_fts JOIN tool_texts t ON t.id = tool_fts.rowid "
                    "JOIN chunks c ON c.file_id = t.file_id AND c.idx = t.chunk_idx WHERE tool_fts MATCH ?")

    def tool_keyword_count(self, term: str, limit: int) -> int:
        """How many tool texts hold `term` (counted up to `limit`)."""
        return self._count_holding("tool_fts", term, limit)

    def tool_keyword_counts(self, terms: list[str], cap: int) -> list[int]:
        """`tool_keyword_count` of each of `terms` (each counted up to `cap`)."""
        return [self.tool_keyword_count(term, cap) for term in terms]

    @guarded()
    def tool_matches(self, terms: list[str], limit: int) -> list[tuple[int, float, str, str, int]]:
        """(chunk id, bm25, tool, side, line) of the best `limit` tool texts holding any of `terms`, best first."""
        return self.db.execute(f"SELECT c.id, bm25(tool_fts), t.tool, t.side, t.line {self._TOOL_CHUNKS} "
                               "ORDER BY bm25(tool_fts), tool_fts.rowid LIMIT ?",
                               (keyword_expression(terms), int(limit))).fetchall()

    @guarded()
    def chunks_holding_in_tools(self, term: str, limit: int, among: list[int] | None = None) -> list[int]:
        """Ids of chunks whose tool texts hold `term` (up to `limit` of them; only those of `among` if given)."""
        restrict = f" AND c.id IN ({','.join('?' * len(among))})" if among else ""
        return [r[0] for r in self.db.execute(f"SELECT DISTINCT c.id {self._TOOL_CHUNKS}{restrict} LIMIT ?",
                                              (quote_term(term), *(among or ()), limit))]

    @guarded()
    def tool_text_count(self) -> int:
        """About how many tool texts the index holds (the highest row id: at least as many; 0 when none,
        and keyword search need not look at them)."""
        row = self.db.execute("SELECT max(id) FROM tool_texts").fetchone()
        return int(row[0] or 0)

    @guarded()
    def counts(self) -> tuple[int, int]:
        files = self.db.execute("SELECT count(*) FROM files").fetchone()[0]
        chunks = self.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return files, chunks

    @guarded()
    def ranking_files(self) -> list[tuple]:
        """Per file, ordered by id: (id, path, kind, trust, confidence, source, turn_date, fm_date,
        path_date, git_date, mtime_ns, evergreen, git_import), what a search snapshot needs."""
        return self.db.execute(
            "SELECT id, path, kind, trust, confidence, source, turn_date, fm_date, path_date, git_date, "
            "mtime_ns, evergreen, git_import FROM files ORDER BY id").fetchall()

    @guarded()
    def chunk_dates(self) -> list[tuple[int, float]]:
        """(chunk id, date) of every chunk with a date of its own, by id."""
        return self.db.execute("SELECT id, date FROM chunks WHERE date IS NOT NULL ORDER BY id").fetchall()

    @guarded()
    def chunk_spans(self) -> dict[int, tuple[str, int, int]]:
        """chunk id → (path, first line, last line) of every chunk."""
        return {r[0]: (r[1], r[2], r[3]) for r in self.db.execute(
            "SELECT c.id, f.path, c.line_start, c.line_end FROM chunks c JOIN files f ON f.id = c.file_id")}

    # -- keywords (FTS5 over the chunk texts) -------------------------------
    def keyword_count(self, term: str, cap: int) -> int:
        """How many chunks hold `term` (as the keyword index reads it), counted up to `cap`."""
        return self._count_holding("chunks_fts", term, cap)

    @guarded()
    def _count_holding(self, fts: str, term: str, cap: int) -> int:
        """How many rows of the FTS5 table `fts` hold `term`, counted up to `cap`."""
        return self.db.execute(f"SELECT count(*) FROM (SELECT 1 FROM {fts} WHERE {fts} MATCH ? LIMIT ?)",
                               (quote_term(term), cap)).fetchone()[0]

    def keyword_counts(self, terms: list[str], cap: int) -> list[int]:
        """`keyword_count` of each of `terms`."""
        return [self.keyword_count(term, cap) for term in terms]

    @guarded()
    def keyword_matches(self, terms: list[str], limit: int | None) -> list[tuple[int, float]]:
        """(chunk id, bm25) of the chunks holding any of `terms`, best first (FTS5's bm25(): negative,
        lower is better); `limit` None: every match."""
        sql = "SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts), rowid"
        args: tuple = (keyword_expression(terms),)
        if limit is not None:
            sql += " LIMIT ?"
            args += (int(limit),)
        return [(int(r[0]), float(r[1])) for r in self.db.execute(sql, args)]

    @guarded()
    def chunks_holding(self, term: str, limit: int) -> list[int]:
        """Ids of up to `limit` chunks holding `term`."""
        return [r[0] for r in self.db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?",
                                              (quote_term(term), limit))]

    def chunks_holding_each(self, terms: list[str], limit: int) -> list[list[int]]:
        """`chunks_holding` of each of `terms`."""
        return [self.chunks_holding(term, limit) for term in terms]

    @guarded()
    def chunks_holding_among(self, term: str, chunk_ids: list[int]) -> list[int]:
        """Which of `chunk_ids` hold `term`. (`rowid IN` makes FTS5 run the match once per id, a fixed
        few milliseconds: for a word in few chunks `chunks_holding` is faster.)"""
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        return [r[0] for r in self.db.execute(
            f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN ({marks})",
            (quote_term(term), *chunk_ids))]
