"""The SQLite index: files, chunks with float32 vectors, and index metadata.

The index is derived from the memory files and can be deleted at any time.
WAL mode lets the dashboard read while an indexer writes; each file's chunks
are replaced in one transaction, so an interrupted run leaves a usable index
that the next run completes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import TachikomaError

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    fm_date REAL,            -- front matter updated/date, unix seconds
    git_date REAL,           -- last commit touching the file, unix seconds
    trust TEXT,
    confidence TEXT,
    source TEXT,
    invalid TEXT NOT NULL DEFAULT '{}',   -- JSON {key: raw value}
    warnings TEXT NOT NULL DEFAULT '[]',  -- JSON list of strings
    indexed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id, idx);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""


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


class Store:
    """One connection to an index file. Not shared between threads."""

    def __init__(self, path: Path, readonly: bool = False):
        self.path = Path(path)
        if readonly and not self.path.exists():
            raise TachikomaError(f"no index yet at {self.path}: run `tachikoma index` first")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        uri = f"file:{self.path}?mode=ro" if readonly else f"file:{self.path}"
        try:
            self.db = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
            self.db.execute("PRAGMA busy_timeout = 30000")
            if not readonly:
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate(readonly)
        except sqlite3.DatabaseError as exc:
            raise TachikomaError(
                f"{self.path} is not a usable index ({exc}): delete it and run `tachikoma index`"
            ) from exc

    def _migrate(self, readonly: bool) -> None:
        has_meta = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
        version = self.get_meta("schema_version") if has_meta else None
        if version is None:
            if readonly:
                raise TachikomaError(f"no index yet at {self.path}: run `tachikoma index` first")
            with self.db:
                self.db.executescript(SCHEMA)
                self.set_meta("schema_version", str(SCHEMA_VERSION))
                self.set_meta("generation", "0")
        elif int(version) != SCHEMA_VERSION:
            raise TachikomaError(
                f"{self.path} has index schema {version}, this tachikoma reads {SCHEMA_VERSION}: "
                "delete the .cache folder and run `tachikoma index` to rebuild it")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- metadata -------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    @property
    def embedder(self) -> tuple[str, int] | None:
        name, dim = self.get_meta("embedder"), self.get_meta("dim")
        return (name, int(dim)) if name and dim else None

    def bump_generation(self) -> None:
        """Mark the index as changed, so long-running readers reload their vectors."""
        self.db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    @property
    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    # -- files ------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        rows = self.db.execute(
            "SELECT id, path, kind, sha256, size, mtime_ns, fm_date, git_date, trust, confidence, "
            "source, invalid, warnings, indexed_at FROM files").fetchall()
        return {r[1]: FileRow(*r[:11], json.loads(r[11]), json.loads(r[12]), r[13]) for r in rows}

    def chunk_hashes(self, file_id: int) -> dict[str, bytes]:
        """Vectors of a file's current chunks by content hash, for reuse on re-index."""
        return dict(self.db.execute("SELECT hash, vector FROM chunks WHERE file_id = ?", (file_id,)))

    def vectors_by_hash(self, hashes: list[str]) -> dict[str, bytes]:
        """Any stored vector whose chunk text hash is in `hashes` (moved or copied text)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(hashes), 500):
            part = hashes[start:start + 500]
            marks = ",".join("?" * len(part))
            found.update(self.db.execute(
                f"SELECT hash, vector FROM chunks WHERE hash IN ({marks})", part))
        return found

    def replace_file(self, info: dict, chunks: list[tuple[int, int, int, str, str, bytes]]) -> None:
        """Insert or replace one file and all its chunks (idx, start, end, text, hash, vector).

        Call inside a transaction (`with store.db:`)."""
        row = self.db.execute("SELECT id FROM files WHERE path = ?", (info["path"],)).fetchone()
        if row:
            self.db.execute("DELETE FROM chunks WHERE file_id = ?", (row[0],))
            self.db.execute("DELETE FROM files WHERE id = ?", (row[0],))
        cur = self.db.execute(
            "INSERT INTO files(path, kind, sha256, size, mtime_ns, fm_date, git_date, trust, confidence,"
            " source, invalid, warnings, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (info["path"], info["kind"], info["sha256"], info["size"], info["mtime_ns"],
             info.get("fm_date"), info.get("git_date"), info.get("trust"), info.get("confidence"),
             info.get("source"), json.dumps(info.get("invalid", {})),
             json.dumps(info.get("warnings", [])), time.time()))
        file_id = cur.lastrowid
        self.db.executemany(
            "INSERT INTO chunks(file_id, idx, line_start, line_end, text, hash, vector) "
            "VALUES (?,?,?,?,?,?,?)", [(file_id, *c) for c in chunks])

    def update_file(self, path: str, **columns) -> None:
        """Change some columns of a file row (stat after a touch, tags, git date)."""
        if "invalid" in columns:
            columns["invalid"] = json.dumps(columns["invalid"])
        sets = ", ".join(f"{name} = ?" for name in columns)
        self.db.execute(f"UPDATE files SET {sets} WHERE path = ?", (*columns.values(), path))

    def delete_file(self, path: str) -> None:
        row = self.db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row:
            self.db.execute("DELETE FROM chunks WHERE file_id = ?", (row[0],))
            self.db.execute("DELETE FROM files WHERE id = ?", (row[0],))

    def clear(self) -> None:
        """Forget every file and chunk (used before re-embedding with another model)."""
        self.db.execute("DELETE FROM chunks")
        self.db.execute("DELETE FROM files")
        self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")

    # -- reading for search ------------------------------------------------
    def load_matrix(self, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All chunk ids, their file ids and an (N, dim) float32 vector matrix."""
        rows = self.db.execute("SELECT id, file_id, vector FROM chunks ORDER BY id").fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        file_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        blob = b"".join(r[2] for r in rows)
        matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dim) if rows else \
            np.empty((0, dim), dtype=np.float32)
        return ids, file_ids, matrix

    def chunk_details(self, chunk_ids: list[int]) -> dict[int, tuple]:
        """id → (path, kind, idx, line_start, line_end, text) for the given chunks."""
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(
            "SELECT c.id, f.path, f.kind, c.idx, c.line_start, c.line_end, c.text FROM chunks c "
            f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})", chunk_ids)
        return {r[0]: r[1:] for r in rows}

    def counts(self) -> tuple[int, int]:
        files = self.db.execute("SELECT count(*) FROM files").fetchone()[0]
        chunks = self.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return files, chunks
