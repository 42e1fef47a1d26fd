"""The catalog of a shared PostgreSQL store: which memories it holds (``tachikoma.memories``, a name
and the folder it was last indexed from), a memory's row made and claimed by its folder
(`memory_id`), and `Catalog`, a connection kept open for a long-lived process's questions."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

from ..errors import NoIndexYet
from .postgres_errors import connection_error, redacted


def memory_id(db, url: str, name: str, root: Path | None, readonly: bool) -> int:
    """The id of memory `name` in the database `db` is connected to (at `url`), its row made if need
    be; a writer that names its folder (`root`) claims the name for that folder (`_claim`)."""
    row = db.execute("SELECT id FROM tachikoma.memories WHERE name = %s", (name,)).fetchone()
    if row is not None and (root is None or readonly):
        return row[0]
    if row is None and readonly:
        raise NoIndexYet(f"no index yet for memory {name!r} in {redacted(url)}: run `tachikoma index` first")
    with db.transaction():  # the upsert locks the name's row until the folder has claimed it
        found = db.execute(
            "INSERT INTO tachikoma.memories (name, root, created_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (name) DO UPDATE SET root = coalesce(excluded.root, memories.root) RETURNING id",
            (name, None if root is None else str(root), time.time())).fetchone()[0]
        for key, value in (("generation", "0"), ("index_id", secrets.token_hex(8))):
            db.execute("INSERT INTO tachikoma.meta VALUES (%s, %s, %s) ON CONFLICT DO NOTHING", (found, key, value))
        if root is not None:
            _claim(db, url, name, found, root)
    return found


def _claim(db, url: str, name: str, memory: int, root: Path) -> None:
    """Record that `root` is the folder this name belongs to, refusing another folder
    (`identity`: two folders of the same name must not overwrite each other's index)."""
    from .identity import claimed, folder_identity, name_taken, same_memory

    here = folder_identity(root)
    recorded = db.execute("SELECT value FROM tachikoma.meta WHERE memory_id = %s AND key = 'folder'",
                          (memory,)).fetchone()
    if recorded is not None and not same_memory(json.loads(recorded[0]), here) and not claimed(name):
        raise name_taken(name, redacted(url), json.loads(recorded[0]), here)
    db.execute("INSERT INTO tachikoma.meta VALUES (%s, 'folder', %s) ON CONFLICT (memory_id, key) "
               "DO UPDATE SET value = excluded.value", (memory, json.dumps(here)))


def memory_names(url: str) -> dict[str, str | None]:
    """Every memory indexed in the database at `url`: name → the folder it was last indexed from."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as db:
            return _memory_names(db)
    except psycopg.Error as exc:
        raise connection_error(url, exc) from None


def _memory_names(db) -> dict[str, str | None]:
    if db.execute("SELECT to_regclass('tachikoma.memories')").fetchone()[0] is None:
        return {}
    return dict(db.execute("SELECT name, root FROM tachikoma.memories ORDER BY name").fetchall())


class Catalog:
    """One connection kept open to a shared store for what a long-lived process (the dashboard) asks on
    every page: which memories the database holds and when one was last indexed. Used by one thread at
    a time; after the server went away it connects again (once per question)."""

    def __init__(self, url: str):
        import threading

        self.url = url
        self._db = None
        self._lock = threading.Lock()

    def memory_names(self) -> dict[str, str | None]:
        return self._ask(_memory_names)

    def meta(self, name: str, keys: list[str]) -> dict[str, str]:
        """Some of memory `name`'s metadata (none for a memory the database does not hold)."""
        def read(db) -> dict[str, str]:
            if db.execute("SELECT to_regclass('tachikoma.meta')").fetchone()[0] is None:
                return {}
            return dict(db.execute("SELECT m.key, m.value FROM tachikoma.meta m JOIN tachikoma.memories n "
                                   "ON n.id = m.memory_id WHERE n.name = %s AND m.key = ANY(%s)",
                                   (name, list(keys))).fetchall())
        return self._ask(read)

    def _ask(self, question):
        import psycopg

        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._db is None or self._db.closed:
                        self._db = psycopg.connect(self.url, autocommit=True, connect_timeout=10,
                                                   application_name="tachikoma")
                    return question(self._db)
                except psycopg.Error as exc:
                    self._drop()
                    if attempt == 2 or not isinstance(exc, psycopg.OperationalError):
                        raise connection_error(self.url, exc) from None

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
