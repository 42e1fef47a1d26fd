"""What the SQLite engine says when the index file fails: one line, busy, read-only, a full disk or an I/O failure
said as such, anything else a damaged index (`IndexDamaged`) that says to delete the ``.cache`` folder and index
again (the index is derived, so that is always safe). `guarded` puts every `sqlite.Store` method behind it;
`index_error` is for code that queries `Store.db` directly."""

from __future__ import annotations

import functools
import os
import shutil
import sqlite3
from pathlib import Path

from ..errors import IndexDamaged, TachikomaError


def damaged(path: Path, reason: str) -> IndexDamaged:
    path = Path(path)
    return IndexDamaged(f"the index {path} is damaged ({reason}): delete {path.parent} and run `tachikoma index` "
                        "to rebuild it from the memory files")


#: Less free space than this where the index lives, and an I/O failure is put down to a full disk:
#: opening the index needs room for its shared-memory file (32 KB) and write-ahead log.
LOW_SPACE_BYTES = 1 << 20


def disk_full(folder: Path) -> str | None:
    """"the disk is full (12 KB free)" when the file system holding `folder` is (nearly) full, else None."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return None
    return f"the disk is full ({free // 1024:,} KB free)" if free < LOW_SPACE_BYTES else None


def index_error(path: Path, exc: sqlite3.Error) -> TachikomaError:
    """A one-line error for an SQLite failure on the index at `path`: busy, read-only,
    full disk and I/O failures say so; anything else means the file is damaged."""
    reason = " ".join(str(exc).split()) or type(exc).__name__
    lowered = reason.lower()
    if isinstance(exc, sqlite3.OperationalError) and ("full" in lowered or "i/o error" in lowered
                                                      or "unable to open" in lowered):
        full = disk_full(Path(path).parent)
        if full:  # SQLite says "disk I/O error" when it cannot even make its shared-memory file
            if "full" in lowered:
                return TachikomaError(f"cannot write the index {path}: {full}; free some space and try again")
            return TachikomaError(f"cannot open the index {path}: {full} ({reason}); free some space and try again")
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in lowered or "busy" in lowered:
            return TachikomaError(f"the index {path} is busy (another process is writing it): try again")
        if "readonly" in lowered or "read-only" in lowered:
            if os.path.exists(f"{path}-journal"):
                # Left by a write that did not finish: a reader cannot roll it back, and the folder is
                # not read-only for all that. (The index uses a write-ahead log, never this journal.)
                return damaged(path, f"a leftover {Path(path).name}-journal from a write that did not finish")
            return TachikomaError(f"cannot write the index {path}: it or its folder is read-only")
        if "full" in lowered:
            return TachikomaError(f"cannot write the index {path}: the disk is full")
        if "unable to open" in lowered or "i/o error" in lowered:
            return TachikomaError(f"cannot open the index {path} ({reason})")
    return damaged(path, reason)


def guarded(parses: str | None = None):
    """Turn SQLite errors of a Store method into one-line TachikomaErrors; with `parses` (what
    the method reads), also a stored value that does not parse (ValueError, TypeError) into
    IndexDamaged."""
    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
                raise  # a bug in the caller, not the file
            except sqlite3.DatabaseError as exc:
                raise index_error(self.path, exc) from exc
            except (ValueError, TypeError) as exc:
                if not parses:
                    raise
                raise damaged(self.path, f"unreadable {parses}: {exc}") from exc
        return guarded
    return wrap
