"""Is the index file whole? Checked once per state of the file, not on every search.

A full check (SQLite's ``quick_check``, and every stored vector of the size
the index says) reads the whole file: hundreds of milliseconds on a large
index, more than a cold search. So it runs only when the file is in a
state no check has passed yet. That state is the file's *stamp*: inode,
size and modification time of the index and of its write-ahead log. A
stamp that passed is remembered for the process and, when the folder is
writable, in ``.cache/index.checked``, so the next command does not check
again.

The indexer is the only writer of the index: it checks the file when it
opens it (if needed) and records the stamp its own writes leave when it
closes it, so a search after an index run costs nothing. Anything else
that changes the file (random bytes written into it, a truncation, an
edit with the ``sqlite3`` shell) changes the stamp, and the next command
that opens the index, whichever it is, checks the file and says it is
damaged. Damage that keeps the stamp (bits rotting on the disk) is found
when SQLite meets it, which every command reports the same way.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

CHECKED_FILE = "index.checked"

_passed: dict[str, list] = {}  # index path -> the stamp that passed, in this process
_lock = threading.Lock()


def stamp(path: Path) -> list:
    """[inode, size, mtime_ns] of the index and of its ``-wal`` file (None when absent or empty:
    a reader opening the index makes an empty log, which holds nothing)."""
    found = []
    for part in (Path(path), Path(f"{path}-wal")):
        try:
            st = os.stat(part)
        except OSError:
            found.append(None)
        else:
            found.append([st.st_ino, st.st_size, st.st_mtime_ns] if st.st_size else None)
    return found


def _checked_file(path: Path) -> Path:
    return Path(path).parent / CHECKED_FILE


def is_checked(path: Path) -> bool:
    """Whether the index at `path` is in a state a check has passed (or its own writer left)."""
    now = stamp(path)
    with _lock:
        if _passed.get(str(path)) == now:
            return True
    try:
        recorded = json.loads(_checked_file(path).read_text(encoding="utf-8")).get("stamp")
    except (OSError, ValueError, AttributeError):
        return False
    if recorded == now:
        with _lock:
            _passed[str(path)] = now
        return True
    return False


def record(path: Path) -> None:
    """Remember the index's current state as whole: for this process, and in ``.cache`` when it can
    be written (a read-only memory only checks again in the next process)."""
    now = stamp(path)
    with _lock:
        _passed[str(path)] = now
    from ..atomic import atomic_write_text

    try:
        atomic_write_text(_checked_file(path), json.dumps({"stamp": now}))
    except OSError:
        pass


def forget(path: Path) -> None:
    """Forget any check of the index at `path` (it was found damaged)."""
    with _lock:
        _passed.pop(str(path), None)
    try:
        _checked_file(path).unlink(missing_ok=True)
    except OSError:
        pass


def problem(db: sqlite3.Connection, vector_bytes: int | None) -> str | None:
    """What is wrong with the open index `db`, or None: SQLite's ``quick_check`` (pages, b-trees,
    record formats), the keyword index (`keyword_index_problem`: quick_check does not read inside
    it), then stored vectors of another size than `vector_bytes`. Raises sqlite3.DatabaseError when
    the file cannot even be read that far."""
    lines = [line.strip() for row in db.execute("PRAGMA quick_check(3)") for line in str(row[0]).splitlines()]
    if lines != ["ok"]:
        # Findings may follow a header ("*** in database main ***"): show the first finding.
        findings = [line for line in lines if line and not line.startswith("***")] or lines
        return f"integrity check failed: {findings[0]}"
    if found := keyword_index_problem(db):
        return found
    if vectors_problem := _vectors_problem(db, vector_bytes):
        return vectors_problem
    return None


def keyword_index_problem(db: sqlite3.Connection, table: str = "chunks_fts") -> str | None:
    """What is wrong with the FTS5 keyword index, or None. A damaged one answers searches with no
    keyword matches at all (keyword 0.00 on notes that hold the word) rather than an error.

    FTS5's own ``integrity-check`` checks the index (rank 0: not against the chunks' text, which it
    does not hold as written but segmented, `segment.index_text`); it is a write statement
    to SQLite, so on a read-only connection every entry of the index is decoded instead (an
    `fts5vocab` table in the connection's temporary schema)."""
    try:
        db.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 0)")
    except sqlite3.OperationalError as exc:
        if "readonly" not in str(exc):
            return f"keyword index check failed: {exc}"
        try:
            db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.tachikoma_fts_check USING fts5vocab(main, {table}, 'instance')")
            db.execute("SELECT count(*) FROM temp.tachikoma_fts_check").fetchone()
        except sqlite3.DatabaseError as scan_error:
            return f"keyword index damaged: {scan_error}"
        finally:
            db.execute("DROP TABLE IF EXISTS temp.tachikoma_fts_check")
    except sqlite3.DatabaseError as exc:  # SQLITE_CORRUPT(_VTAB): "database disk image is malformed"
        return f"keyword index damaged: {exc}"
    finally:
        if db.in_transaction:
            db.rollback()
    return None


def _vectors_problem(db: sqlite3.Connection, vector_bytes: int | None) -> str | None:
    if vector_bytes:
        wrong = db.execute("SELECT count(*) FROM chunks WHERE length(vector) NOT IN (0, ?)", (vector_bytes,)).fetchone()[0]
        if wrong:
            return f"{wrong} stored vector(s) not of {vector_bytes} bytes"
    return None


def ensure_whole(db: sqlite3.Connection, path: Path, vector_bytes: int | None, damaged) -> None:
    """Check the index at `path` unless its state passed already; raise `damaged(path, reason)`
    (`store.damaged`: an IndexDamaged saying to rebuild) when it is not whole."""
    if is_checked(path):
        return
    found = problem(db, vector_bytes)
    if found is not None:
        forget(path)
        raise damaged(path, found)
    record(path)

