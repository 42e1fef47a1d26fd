"""The index store: one interface, one module per engine.

Every SQL statement tachikoma runs against an index lives in this package;
the rest of the program (indexer, search, faces, evaluations) talks to a
store through its methods, so the ranking never knows which engine holds
the vectors.

- `sqlite` (the default): one file beside the memory folder, ``.cache/index.db``.
- `postgres`: PostgreSQL + pgvector, many memories in one database, chosen by
  a ``postgresql://`` URL (``[store] url``, ``--store`` or $TACHIKOMA_STORE; `locate`).

What a store offers, method by method, is `protocol.IndexStore` (and
`protocol.TieredStore` for an engine with tiers of vectors, SQLite's, and
`protocol.MultilingualStore`, both engines: the passages not in English read again
by the multilingual embedder): checked by tests/test_store_protocol.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import IndexDamaged, NoIndexYet, TachikomaError  # noqa: F401 (re-exported)
from . import index_check  # noqa: F401 (the store package's names, imported from here by callers)
# The search reads it from here: it lives with the protocol, below both engines (PostgreSQL's HNSW build
# takes it), so that `postgres` need not import this package, which opens it.
from .protocol import ENGINE_INDEX_MIN_CHUNKS, IndexStore  # noqa: F401 (ENGINE_INDEX_MIN_CHUNKS)
from .fts import keyword_expression, quote_term  # noqa: F401 (the store package's names, imported from here by callers)
from .sqlite import FileRow, Store  # noqa: F401 (the store package's names, imported from here by callers)
from .sqlite_errors import damaged, disk_full, index_error  # noqa: F401 (the store package's names, imported from here by callers)
from .sqlite_schema import FTS_TOKENIZE, MIGRATIONS, REQUIRED, SCHEMA, SCHEMA_VERSION, TOOL_SCHEMA  # noqa: F401 (the store package's names, imported from here by callers)

SQLiteStore = Store


def open_store(path: str | Path, readonly: bool = False) -> Store:
    """The store at `path` (an index file)."""
    return Store(Path(path), readonly=readonly)


#: The environment variable that chooses the store (as ``--store`` and ``[store] url`` do).
STORE_ENV = "TACHIKOMA_STORE"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def store_url(config=None) -> str | None:
    """The store URL in force: $TACHIKOMA_STORE (which ``--store`` sets), else ``[store] url``;
    None for the default SQLite file."""
    url = os.environ.get(STORE_ENV) or (config.store_url if config is not None else None)
    url = (url or "").strip()
    if not url or url == "sqlite":
        return None
    if not url.startswith(POSTGRES_SCHEMES):
        raise TachikomaError(f"unknown store {url.split('://')[0]!r}: use sqlite (the default) or a "
                             "postgresql://user@host/database URL")
    return url


def memory_name(root: Path, config=None) -> str:
    """This memory's name in a shared store: ``[store] name``, else the folder's name."""
    return (config.store_name if config is not None and config.store_name else None) or Path(root).resolve().name


@dataclass(frozen=True)
class Location:
    """Where one memory's index lives: the SQLite file in its ``.cache`` (url None), or its name in a
    PostgreSQL database."""

    root: Path
    url: str | None = None
    name: str | None = None

    @property
    def file(self) -> Path:
        from ..memory import index_path

        return index_path(self.root)

    def exists(self) -> bool:
        """Whether there is an index to read (never creates one). On PostgreSQL: whether the database
        holds this memory; a server that cannot be reached raises its one-line error."""
        if self.url is None:
            return self.file.exists()
        from .postgres_catalog import memory_names

        return self.name in memory_names(self.url)

    def open(self, readonly: bool = False) -> IndexStore:
        if self.url is None:
            return Store(self.file, readonly=readonly)
        from ..memory import CACHE_DIR
        from .postgres import PostgresStore

        return PostgresStore(self.url, self.name, self.root / CACHE_DIR, readonly=readonly,
                             root=None if readonly else self.root.resolve())

    @property
    def label(self) -> str:
        if self.url is None:
            return str(self.file)
        from .postgres_errors import redacted

        return f"memory {self.name!r} in {redacted(self.url)}"


def locate(root: Path, config=None) -> Location:
    """Where the index of the memory at `root` lives, by the settings (`store_url`, `memory_name`);
    `config` None reads them from the memory (the defaults when they cannot be read)."""
    if config is None:
        from ..config import settings_or_defaults

        config = settings_or_defaults(root)
    url = store_url(config)
    return Location(Path(root), url, memory_name(root, config) if url else None)


def memory_roots(url: str) -> dict[str, str | None]:
    """The memories a shared store holds: name → the folder each was last indexed from."""
    from .postgres_catalog import memory_names

    return memory_names(url)
