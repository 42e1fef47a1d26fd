"""The index store: one interface, one module per engine.

Every SQL statement tachikoma runs against an index lives in this package;
the rest of the program (indexer, search, faces, evaluations) talks to a
store through its methods, so the ranking never knows which engine holds
the vectors.

- `sqlite` (the default): one file beside the memory folder, ``.cache/index.db``.
- `postgres`: PostgreSQL + pgvector, many memories in one database, chosen by
  a ``postgresql://`` URL (``[store] url``, ``--store`` or $TACHIKOMA_STORE; `locate`).

A store offers: metadata (`get_meta`, `set_meta`, `embedder`, `generation`,
`bump_generation`, `cache_key`), files (`files`, `replace_file`,
`update_file`, `delete_file`, `clear`, `vectors_by_hash`,
`chunkless_warnings`), tiers of vectors when ``tiers`` is true (`pending`,
`count_pending`, `fill`, `tier_counts`, `has_vectors`: a chunk is stored
before it is embedded; SQLite only: on a store without them the indexer
embeds each batch before storing it),
transactions (`reading`, `writing`,
`writing_exclusively`), what a search reads (`load_matrix`,
`ranking_files`, `chunk_dates`, `chunk_details`, `chunk_spans`, `counts`, and the
engine's own nearest-vector index if it has one: `has_vector_index`, `vector_candidates`)
and keywords (`keyword_count`, `keyword_counts`, `keyword_matches`, `chunks_holding`, `chunks_holding_each`,
`chunks_holding_among`), in transcripts' tool texts (`tool_text_count`,
`tool_keyword_count`, `tool_keyword_counts`, `tool_matches`, `chunks_holding_in_tools`), and `reopen` (another read-only
connection), `lock_writer`, `label`, `cache_folder`, `damaged`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import IndexDamaged, NoIndexYet, TachikomaError  # noqa: F401 (re-exported)
from . import index_check  # noqa: F401
from .sqlite import (FTS_TOKENIZE, MIGRATIONS, REQUIRED, SCHEMA, SCHEMA_VERSION, TOOL_SCHEMA, FileRow,  # noqa: F401
                     Store, damaged, disk_full, index_error, keyword_expression, quote_term)

SQLiteStore = Store


def open_store(path: str | Path, readonly: bool = False) -> Store:
    """The store at `path` (an index file)."""
    return Store(Path(path), readonly=readonly)


#: From this many chunks a memory whose engine has a nearest-vector index of its own (PostgreSQL's
#: HNSW) takes its vector shortlist from it instead of the sign-bit codes. Measured
#: (bench/bench_pg_million.py, 384 dimensions): at 100k and 300k chunks the sign-bit scan was the cheaper of the two at recall 0.997-1.0 for both; at 1M,
#: recall@10 of the final ranking was 0.947 for HNSW 400 (34.9 ms p50), 0.987 for HNSW 1,000 (67 ms)
#: and 0.977 for the sign-bit 4,000 (38.9 ms; 0.997 with the 16,000 `vector_index.shortlist_size`
#: now takes, 54 ms in bench_million). So the sign-bit codes serve every size measured; past them
#: the scan grows linearly and HNSW slowly: an extrapolation, not a measurement. PostgreSQL builds a
#: memory's HNSW index from this size (`postgres.HNSW_MIN_CHUNKS`).
ENGINE_INDEX_MIN_CHUNKS = 3_000_000

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
        from .postgres import memory_names

        return self.name in memory_names(self.url)

    def open(self, readonly: bool = False):
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
        from .postgres import redacted

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
    from .postgres import memory_names

    return memory_names(url)
