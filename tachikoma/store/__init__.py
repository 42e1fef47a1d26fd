"""The index store: one interface, one module per engine.

Every SQL statement tachikoma runs against an index lives in this package;
the rest of the program (indexer, search, faces, evaluations) talks to a
store through its methods, so the ranking never knows which engine holds
the vectors.

- `sqlite` (the default): one file beside the memory folder, ``.cache/index.db``.

A store offers: metadata (`get_meta`, `set_meta`, `embedder`, `generation`,
`bump_generation`, `cache_key`), files (`files`, `replace_file`,
`update_file`, `delete_file`, `clear`, `vectors_by_hash`,
`chunkless_warnings`), transactions (`reading`, `writing`,
`writing_exclusively`), what a search reads (`load_matrix`,
`ranking_files`, `chunk_dates`, `chunk_details`, `chunk_spans`, `counts`)
and keywords (`keyword_count`, `keyword_matches`, `chunks_holding`,
`chunks_holding_among`), and in transcripts' tool texts (`tool_text_count`,
`tool_keyword_count`, `tool_matches`, `chunks_holding_in_tools`).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import IndexDamaged, NoIndexYet, TachikomaError  # noqa: F401 (re-exported)
from . import index_check  # noqa: F401
from .sqlite import (FTS_TOKENIZE, MIGRATIONS, REQUIRED, SCHEMA, SCHEMA_VERSION, FileRow,  # noqa: F401
                     Store, damaged, disk_full, index_error, keyword_expression, quote_term)

SQLiteStore = Store


def open_store(path: str | Path, readonly: bool = False) -> Store:
    """The store at `path` (an index file)."""
    return Store(Path(path), readonly=readonly)
