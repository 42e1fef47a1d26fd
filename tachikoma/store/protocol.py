"""What the rest of tachikoma may ask of an index store, as a `typing.Protocol`.

Both engines satisfy it: `sqlite.Store` (the default, one file beside the
memory) and `postgres.PostgresStore`; tests/test_store_protocol.py compares
every method's parameters here with each engine's, so they cannot drift
apart. Callers (the indexer, the freshness check, the search) are typed
against `IndexStore` and never against an engine's class.

A store with ``tiers`` true (SQLite) stores a chunk before it is embedded and
fills its vectors in later, cheapest tier first: it is a `TieredStore` too.
On a store without tiers (PostgreSQL: pgvector's column cannot hold an empty
vector) the indexer embeds each batch before storing it, and asks for none
of the tier methods; ``column`` is then always "vector".

Nothing here runs: it is the interface, written from what callers use, and the
threshold from which a search uses an engine's own nearest-vector index
(`ENGINE_INDEX_MIN_CHUNKS`), which lives here, below both engines.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self

if TYPE_CHECKING:
    import numpy as np

    from ..errors import IndexDamaged
    from .sqlite import FileRow

#: From this many chunks a memory whose engine has a nearest-vector index of its own (PostgreSQL's
#: HNSW) takes its vector shortlist from it instead of the sign-bit codes. Measured
#: (bench/bench_pg_million.py, 384 dimensions): at 100k and 300k chunks the sign-bit scan was the cheaper
#: of the two at recall 0.997-1.0 for both; at 1M,
#: recall@10 of the final ranking was 0.947 for HNSW 400 (34.9 ms p50), 0.987 for HNSW 1,000 (67 ms)
#: and 0.977 for the sign-bit 4,000 (38.9 ms; 0.997 with the 16,000 `vector_index.shortlist_size`
#: now takes, 54 ms in bench_million). So the sign-bit codes serve every size measured; past them
#: the scan grows linearly and HNSW slowly: an extrapolation, not a measurement. PostgreSQL builds a
#: memory's HNSW index from this size (`postgres.HNSW_MIN_CHUNKS`).
ENGINE_INDEX_MIN_CHUNKS = 3_000_000


class IndexStore(Protocol):
    """One connection to one memory's index. Not shared between threads."""

    #: "sqlite" or "postgresql".
    engine: str
    #: Whether chunks are stored before they are embedded (see `TieredStore`).
    tiers: bool
    #: Names this index's derived caches (for SQLite: the index file).
    path: Path
    readonly: bool

    # ------------------------------------------------------------------ the connection

    @property
    def label(self) -> str:
        """How messages name this index."""

    @property
    def cache_folder(self) -> Path:
        """Where caches derived from this index live (the search's vector cache)."""

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc) -> None: ...

    def reopen(self) -> IndexStore:
        """Another read-only connection to the same index (one connection per thread)."""

    def damaged(self, reason: str) -> IndexDamaged:
        """The error saying this index is damaged, and why."""

    def check_present(self) -> None:
        """Raise when the index was deleted or replaced since it was opened."""

    def record_whole(self) -> None:
        """Record the index as whole after this writer's own writes (the indexer trusts them)."""

    def lock_writer(self, timeout: float = 0) -> None:
        """Become the only writer of this memory's index, waiting up to `timeout` seconds."""

    # ------------------------------------------------------------------ transactions

    def reading(self) -> AbstractContextManager[Any]:
        """One consistent read for everything read inside; nests."""

    def writing(self) -> AbstractContextManager[Any]:
        """One transaction: committed when the block ends, rolled back if it raises."""

    def writing_exclusively(self) -> AbstractContextManager[Any]:
        """One transaction holding the write lock from its start (a whole re-embedding run)."""

    # ------------------------------------------------------------------ metadata

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    @property
    def embedder(self) -> tuple[str, int] | None:
        """(name, dimension) of the embedder the index was built with; None before the first run."""

    @property
    def generation(self) -> int:
        """Bumped by every change a long-running reader must reload for."""

    def bump_generation(self) -> None: ...

    def cache_key(self, generation: int) -> str:
        """What names a cache derived from this index at `generation`."""

    # ------------------------------------------------------------------ files and chunks (the indexer)

    def files(self) -> dict[str, FileRow]:
        """Every file row, by relative path."""

    def chunkless_warnings(self, kind: str) -> list[list[str]]:
        """The warnings of each file of `kind` that has no chunk."""

    def vectors_by_hash(self, hashes: list[str], column: str = "vector") -> dict[str, bytes]:
        """Any stored `column` vector whose chunk text hash is in `hashes` (hash → vector bytes)."""

    def replace_file(self, info: dict, chunks: list[tuple], tool_texts: list[tuple] = ()) -> None:
        """Insert or replace one file and all its chunks. Call inside `writing`."""

    def update_file(self, path: str, **columns) -> None:
        """Change some columns of a file row (stat after a touch, tags, git date)."""

    def delete_file(self, path: str) -> None: ...

    def clear(self) -> None:
        """Forget every file and chunk (before re-embedding with another model)."""

    def scrub(self) -> None:
        """Leave nothing of deleted rows in the store's files, where the engine can (a run that replaced secrets)."""

    def counts(self) -> tuple[int, int]:
        """(file rows, chunks)."""

    # ------------------------------------------------------------------ what a search reads

    def load_matrix(self, dim: int, column: str = "vector") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All chunk ids, their file ids and an (N, dim) float32 matrix of their `column` vectors."""

    def ranking_files(self) -> list[tuple]:
        """Per file, ordered by id, what the ranking needs (tags, dates)."""

    def chunk_dates(self) -> list[tuple[int, float]]:
        """(chunk id, date) of every chunk with a date of its own, by id."""

    def chunk_details(self, chunk_ids: list[int]) -> dict[int, tuple]:
        """id → (path, kind, idx, line_start, line_end, text, size, mtime_ns) for the given chunks: `size` and
        `mtime_ns` are those of the file as the index last read it (`freshness.changed_since_read`)."""

    def map_chunk_texts(self, of_text, kind: str | None = None) -> dict[int, object]:
        """chunk id → `of_text(text)` for every chunk (of the files of `kind`), in one pass over the index."""

    def chunk_spans(self) -> dict[int, tuple[str, int, int]]:
        """chunk id → (path, first line, last line) of every chunk."""

    def file_passages(self, path: str) -> list[tuple[int, int, str]]:
        """(first line, last line, text) of each chunk of the file at `path`, in order."""

    def has_vector_index(self, dim: int) -> bool:
        """Whether the engine keeps a nearest-vector index of its own (PostgreSQL's HNSW)."""

    def vector_candidates(self, query: np.ndarray, count: int) -> np.ndarray | None:
        """The engine's own nearest chunk ids to `query`; None without such an index."""

    # ------------------------------------------------------------------ keywords

    def keyword_count(self, term: str, cap: int) -> int:
        """How many chunks hold `term`, counted up to `cap`."""

    def keyword_counts(self, terms: list[str], cap: int) -> list[int]: ...

    def keyword_matches(self, terms: list[str], limit: int | None) -> list[tuple[int, float]]:
        """(chunk id, bm25) of the chunks holding any of `terms`, best first."""

    def chunks_holding(self, term: str, limit: int) -> list[int]: ...

    def chunks_holding_each(self, terms: list[str], limit: int) -> list[list[int]]: ...

    def chunks_holding_among(self, term: str, chunk_ids: list[int]) -> list[int]: ...

    # ------------------------------------------------------------------ keywords in transcripts' tool texts

    def tool_text_count(self) -> int: ...

    def tool_keyword_count(self, term: str, limit: int) -> int: ...

    def tool_keyword_counts(self, terms: list[str], cap: int) -> list[int]: ...

    def tool_matches(self, terms: list[str], limit: int) -> list[tuple[int, float, str, str, int]]:
        """(chunk id, bm25, tool, side, line) of the best `limit` tool texts holding any of `terms`."""

    def chunks_holding_in_tools(self, term: str, limit: int, among: list[int] | None = None) -> list[int]: ...


class TieredStore(IndexStore, Protocol):
    """A store with ``tiers`` true: chunks are stored with an empty vector, then filled in, the quick
    tier first ("quick"), then the full model's ("vector")."""

    def pending(self, column: str, limit: int) -> list[tuple[str, str]]:
        """Up to `limit` distinct (hash, text) of chunks that lack a `column` vector."""

    def count_pending(self, column: str) -> int: ...

    def fill(self, column: str, vectors: dict[str, bytes]) -> None:
        """Store `column` vectors by chunk text hash."""

    def tier_counts(self) -> dict[str, int]:
        """How many chunks have full vectors, only quick ones, or none yet."""

    def has_vectors(self, column: str = "vector") -> np.ndarray:
        """(N,) bool in chunk id order: which chunks have a `column` vector."""


class MultilingualStore(IndexStore, Protocol):
    """A store with ``multilingual`` true: it keeps, per chunk text, whether it is in English and, if not, the
    multilingual embedder's vector (`indexer.pipeline.embed_multilingual`)."""

    def unjudged(self, limit: int, after: str = "", english: bool = False) -> list[tuple[str, str]]:
        """Up to `limit` distinct (hash, text) of chunks not judged yet (`english`: or judged English, without
        a vector), by hash after `after`."""

    def judge(self, rows: list[tuple[str, str | None, bytes]]) -> None:
        """Store (hash, language or None for English, vector or b"") per chunk text."""

    def drop_english_vectors(self) -> int:
        """Empty the vectors of passages judged English; returns how many."""

    def forget_judgements(self) -> None:
        """Drop every row: another multilingual embedder reads the passages next."""

    def forget_unused_judgements(self) -> int:
        """Drop the rows of texts no chunk holds any more; returns how many."""

    def language_counts(self) -> dict[str, int]:
        """Chunks per language of the passages the multilingual embedder read."""

    def load_multilingual(self, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(M,) chunk ids, (M,) languages and the (M, dim) matrix of the chunks with a multilingual vector."""
