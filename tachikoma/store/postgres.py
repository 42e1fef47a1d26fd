"""The PostgreSQL + pgvector engine: many memories' indexes in one shared database.

Chosen by a ``postgresql://`` store URL (`tachikoma.store.locate`). Each
memory folder indexes under its own name (a row of ``tachikoma.memories``);
every other row carries its memory's id, so one database serves a team's
memories and a search reads one memory unless asked for several.

- Vectors: a pgvector ``vector`` column with, per memory, an HNSW index
  (cosine) on the memory's dimension (a partial expression index: memories
  embedded by different models live side by side).
- Keywords: a generated ``tsvector`` column (Snowball English stemming,
  stop words kept, like the SQLite index's porter tokenizer) with a GIN
  index. The score is BM25 computed the way SQLite's FTS5 computes it
  (k1 = 1.2, b = 0.75, same idf) from the term frequencies and lengths the
  tsvector holds, so the explanation's *keywords* factor means the same on
  both engines (`ts_rank_cd` does not: it ignores document frequency).
- Writers: one per memory at a time (a session advisory lock, `lock_writer`);
  readers take REPEATABLE READ snapshots and are never blocked. Each batch
  commits on its own, as on SQLite, so an interrupted run leaves a
  consistent index that the next run completes.
- The schema is created and upgraded by the program (`postgres_schema`:
  ``tachikoma.schema`` holds its version); the memories' names and folders
  are `postgres_catalog`'s, the one-line errors `postgres_errors`'.

Connection problems are one-line `TachikomaError`s; the password is never
part of a message (`redacted`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from pathlib import Path

import numpy as np

from ..errors import IndexDamaged, TachikomaError
from .postgres_bm25 import asked_word, asked_words, bm25_sql, term_query
from .postgres_catalog import memory_id
from .postgres_errors import connection_error, database_error, redacted, scrub
from .postgres_schema import LOCK_CLASS, ensure_schema, keyword_text
from .multilingual import arrays as multilingual_arrays
from .protocol import ENGINE_INDEX_MIN_CHUNKS
from .sqlite import FileRow, json_column

#: Memory for building an HNSW index (the graph of 1M x 384 vectors needs about 2 GB to build in one pass).
HNSW_BUILD_MEMORY = "1GB"
#: A memory's HNSW index is built once it holds this many chunks: searches take their shortlist from it only
#: from there, and below it the graph would cost its build for nothing (measured at 1M x 384: 35 min and 2 GB).
HNSW_MIN_CHUNKS = ENGINE_INDEX_MIN_CHUNKS
#: pgvector's largest ``hnsw.ef_search``.
HNSW_MAX_EF_SEARCH = 1000
#: The advisory lock held while an indexer runs the end of its run (`PostgresStore._after_run`).
MAINTENANCE_LOCK = (LOCK_CLASS, -1)

def _guarded(method):
    """Database errors of a store method become one-line TachikomaErrors (password scrubbed)."""
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        import psycopg

        try:
            return method(self, *args, **kwargs)
        except (psycopg.OperationalError, psycopg.errors.UndefinedTable) as exc:
            raise database_error(self, exc) from None
    return guarded


def _guarded_context(method):
    """`_guarded` for a context manager (a transaction): its start, its end and what is done inside."""
    manager = contextlib.contextmanager(method)

    @functools.wraps(method)
    @contextlib.contextmanager
    def guarded(self, *args, **kwargs):
        import psycopg

        try:
            with manager(self, *args, **kwargs) as value:
                yield value
        except (psycopg.OperationalError, psycopg.errors.UndefinedTable) as exc:
            raise database_error(self, exc) from None
    return guarded


class PostgresStore:
    """One connection to a PostgreSQL database, reading and writing one memory's index in it.
    Not shared between threads."""

    engine = "postgresql"
    #: No tiers of vectors: pgvector's column cannot hold an empty vector, so the indexer embeds each
    #: batch before storing it (one pass) and every stored chunk has its full vector.
    tiers = False

    def __init__(self, url: str, name: str, cache_folder: Path, readonly: bool = False, root: Path | None = None):
        import psycopg
        from pgvector.psycopg import register_vector

        self.url, self.name, self.readonly = url, name, readonly
        self._cache_folder = Path(cache_folder)
        self.path = self._cache_folder / f"postgres-{name}"  # names this memory's derived caches
        self._corpus: dict[str, tuple[int, int, float]] = {}  # table → (generation, rows, mean words), for BM25
        self._vector_index_due = False
        self._hnsw_checked: tuple[tuple[int, int], bool] | None = None  # ((generation, dim), valid index)
        self._meta: dict[str, str | None] | None = None  # metadata read in this reader's transaction
        try:
            self.db = psycopg.connect(url, autocommit=True, connect_timeout=10,
                                      application_name="tachikoma")
        except psycopg.Error as exc:
            raise connection_error(url, exc) from None
        try:
            if readonly:
                self.db.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            ensure_schema(self.db, url, readonly)
            register_vector(self.db)
            self.memory_id = memory_id(self.db, url, name, root, readonly)
        except psycopg.errors.InsufficientPrivilege as exc:
            self.db.close()
            user = self.db.info.user if self.db.info else "the user"
            raise TachikomaError(f"PostgreSQL at {redacted(url)}: {scrub(exc, url)}: tachikoma makes its own "
                                 f"schema there, so {user} needs to own the database (createdb --owner {user} …) "
                                 f"or be granted it (GRANT CREATE ON DATABASE … TO {user}); see docs/team.md") \
                from None
        except psycopg.Error as exc:
            self.db.close()
            raise TachikomaError(f"PostgreSQL at {redacted(url)}: {scrub(exc, url)}") from None
        except BaseException:
            self.db.close()
            raise

    # -- life -------------------------------------------------------------
    @property
    def cache_folder(self) -> Path:
        return self._cache_folder

    @property
    def label(self) -> str:
        return f"memory {self.name!r} in {redacted(self.url)}"

    def damaged(self, reason: str) -> IndexDamaged:
        return IndexDamaged(f"the index of {self.label} is damaged ({reason}): run `tachikoma index --reembed` "
                            "to rebuild it from the memory files")

    def reopen(self) -> PostgresStore:
        """Another read-only connection to the same memory (for another thread)."""
        return PostgresStore(self.url, self.name, self._cache_folder, readonly=True)

    @_guarded
    def lock_writer(self, timeout: float = 0) -> None:
        """Become this memory's only writer (a session advisory lock, freed when the connection
        closes, even by a crash); waits up to `timeout` seconds for another writer."""
        deadline = time.monotonic() + timeout
        while not self.db.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, self.memory_id)).fetchone()[0]:
            if time.monotonic() >= deadline:
                raise TachikomaError(f"another `tachikoma index` is writing {self.label}; wait for it to finish")
            time.sleep(0.2)

    @_guarded
    def check_present(self) -> None:
        if self.db.execute("SELECT 1 FROM tachikoma.memories WHERE id = %s", (self.memory_id,)).fetchone() is None:
            raise TachikomaError(f"{self.label} was deleted while tachikoma was using it: run `tachikoma index` again")

    @_guarded
    def record_whole(self) -> None:
        """After a batch commits: once a run has completed, `_after_run` (nothing else to record:
        the server keeps its own pages whole)."""
        if self._vector_index_due:
            self._after_run()

    @_guarded
    def close(self) -> None:
        try:
            if self._vector_index_due and not self.db.closed:
                self._after_run()
        finally:
            self.db.close()

    def _after_run(self) -> None:
        """When an index run completes: fresh planner statistics and merged keyword indexes, then the
        vector index. Without them the planner, seeing a GIN pending list full of new rows and no
        statistics, scans every chunk for each keyword (measured: 70-120 ms instead of under 1 ms
        at 10k chunks). Best effort for the statistics: another user's tables are left alone.

        One indexer at a time does this, whatever its memory (`MAINTENANCE_LOCK`): two runs ending
        together deadlocked (measured, bench_pg_million.py --writers 2), one's ANALYZE waiting for
        the other's CREATE INDEX CONCURRENTLY, which waited for the first's transaction to end.
        Searches and other memories' writes go on meanwhile; the build waits for their transactions."""
        import psycopg

        if not self._idle():
            return
        # Polled, not waited for in the server: a statement waiting there holds a snapshot, and the
        # other run's CREATE INDEX CONCURRENTLY waits for every snapshot older than its own (measured:
        # a deadlock again with a blocking pg_advisory_lock).
        while not self.db.execute("SELECT pg_try_advisory_lock(%s, %s)", MAINTENANCE_LOCK).fetchone()[0]:
            time.sleep(0.5)
        try:
            for statement in ("SELECT gin_clean_pending_list('tachikoma.chunks_tsv'::regclass)",
                              "SELECT gin_clean_pending_list('tachikoma.tool_texts_tsv'::regclass)",
                              "ANALYZE tachikoma.files", "ANALYZE tachikoma.chunks", "ANALYZE tachikoma.tool_texts"):
                try:
                    self.db.execute(statement)
                except psycopg.errors.InsufficientPrivilege:
                    pass
            self._ensure_vector_index()
        finally:
            self.db.execute("SELECT pg_advisory_unlock(%s, %s)", MAINTENANCE_LOCK)

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- transactions -----------------------------------------------------
    def _idle(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.db.info.transaction_status == TransactionStatus.IDLE

    @_guarded_context
    def reading(self):
        """One snapshot (REPEATABLE READ on a reader) for everything read inside; nests."""
        if not self._idle():
            yield self
            return
        with self.db.transaction():
            # A reader's snapshot cannot change: its metadata (the generation, asked three times per
            # search) is read once per transaction.
            self._meta = {} if self.readonly else None
            try:
                yield self
            finally:
                self._meta = None

    @_guarded_context
    def writing(self):
        with self.db.transaction():
            yield self

    @_guarded_context
    def writing_exclusively(self):
        """One transaction for a whole run (re-embedding): readers see the old index until it commits."""
        with self.db.transaction():
            yield self
            self.check_present()

    # -- metadata ---------------------------------------------------------
    @_guarded
    def get_meta(self, key: str) -> str | None:
        if self._meta is not None and key in self._meta:
            return self._meta[key]
        row = self.db.execute("SELECT value FROM tachikoma.meta WHERE memory_id = %s AND key = %s",
                              (self.memory_id, key)).fetchone()
        if self._meta is not None:
            self._meta[key] = row[0] if row else None
        return row[0] if row else None

    @_guarded
    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO tachikoma.meta VALUES (%s, %s, %s) "
                        "ON CONFLICT (memory_id, key) DO UPDATE SET value = excluded.value",
                        (self.memory_id, key, value))
        if key == "run_complete" and value == "1":
            self._vector_index_due = True  # built once the transaction is over (`record_whole`, `close`)

    def _ensure_vector_index(self, dim: int | None = None) -> None:
        """This memory's HNSW index (cosine) over its vectors, at its dimension, once it holds
        `HNSW_MIN_CHUNKS`: built when an index run completes (one bulk build is many times faster than
        growing the graph row by row; later runs add their rows to it), CONCURRENTLY so that other
        memories' indexers are not blocked. An interrupted build leaves an invalid index, built again
        next time."""
        self._vector_index_due = False
        dim = dim or int(self.get_meta("dim") or 0)
        if not dim or not self._idle() or self.counts()[1] < HNSW_MIN_CHUNKS:
            return
        name = f"chunks_hnsw_{self.memory_id}_{dim}"
        found = self.db.execute("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                                "WHERE n.nspname = 'tachikoma' AND c.relname = %s", (name,)).fetchone()
        if found and found[0]:
            return
        if found:
            self.db.execute(f"DROP INDEX CONCURRENTLY IF EXISTS tachikoma.{name}")
        self.db.execute(f"SET maintenance_work_mem = '{HNSW_BUILD_MEMORY}'")
        self.db.execute(f"CREATE INDEX CONCURRENTLY {name} ON tachikoma.chunks "
                        f"USING hnsw ((vector::vector({dim})) vector_cosine_ops) WHERE memory_id = {self.memory_id}")
        self.db.execute("RESET maintenance_work_mem")

    def _drop_vector_indexes(self) -> None:
        names = self.db.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'tachikoma' AND indexname LIKE %s",
                                (f"chunks_hnsw_{self.memory_id}_%",)).fetchall()
        for (name,) in names:
            self.db.execute(f'DROP INDEX IF EXISTS tachikoma."{name}"')

    @property
    def embedder(self) -> tuple[str, int] | None:
        name, dim = self.get_meta("embedder"), self.get_meta("dim")
        try:
            return (name, int(dim)) if name and dim else None
        except ValueError as exc:
            raise self.damaged(f"unreadable embedder dimension: {exc}") from None

    @_guarded
    def bump_generation(self) -> None:
        self.db.execute("UPDATE tachikoma.meta SET value = (value::bigint + 1)::text "
                        "WHERE memory_id = %s AND key = 'generation'", (self.memory_id,))

    @property
    def generation(self) -> int:
        try:
            return int(self.get_meta("generation") or 0)
        except ValueError as exc:
            raise self.damaged(f"unreadable generation: {exc}") from None

    def cache_key(self, generation: int) -> str:
        index_id = self.get_meta("index_id")
        return f"{index_id}-{generation}" if index_id and index_id.isalnum() else f"{self.memory_id}-{generation}"

    # -- files ------------------------------------------------------------
    @_guarded
    def files(self) -> dict[str, FileRow]:
        rows = self.db.execute(
            "SELECT id, path, kind, sha256, size, mtime_ns, fm_date, git_date, trust, confidence, source, invalid, "
            "warnings, indexed_at, path_date, turn_date, evergreen, git_import FROM tachikoma.files "
            "WHERE memory_id = %s", (self.memory_id,)).fetchall()
        return {r[1]: FileRow(*r[:11], json_column(r[11], "{}", dict), json_column(r[12], "[]", list), r[13], r[14], r[15],
                              bool(r[16]), bool(r[17])) for r in rows}

    @_guarded
    def chunkless_warnings(self, kind: str) -> list[list[str]]:
        rows = self.db.execute(
            "SELECT warnings FROM tachikoma.files f WHERE memory_id = %s AND kind = %s AND NOT EXISTS "
            "(SELECT 1 FROM tachikoma.chunks c WHERE c.file_id = f.id)", (self.memory_id, kind)).fetchall()
        return [json.loads(r[0]) for r in rows]

    @_guarded
    def vectors_by_hash(self, hashes: list[str], column: str = "vector") -> dict[str, bytes]:
        _full_only(column)
        found: dict[str, bytes] = {}
        if hashes:
            for digest, raw in self.db.execute(
                    "SELECT hash, vector_send(vector) FROM tachikoma.chunks WHERE memory_id = %s AND hash = ANY(%s)",
                    (self.memory_id, list(hashes))):
                found[digest] = _floats(raw).tobytes()
        return found

    # -- tool texts, by keyword only (`postgres_schema.TOOL_SCHEMA`) ----------
    @_guarded
    def tool_text_count(self) -> int:
        """How many tool texts this memory holds (0: keyword search need not look at them)."""
        return self._corpus_size("tool_texts")[0]

    def tool_keyword_count(self, term: str, limit: int) -> int:
        return self.tool_keyword_counts([term], limit)[0]

    def tool_keyword_counts(self, terms: list[str], cap: int) -> list[int]:
        """How many tool texts hold each of `terms` (counted up to `cap`), in one round trip."""
        return self._counts_holding("tool_texts", terms, cap)

    @_guarded
    def tool_matches(self, terms: list[str], limit: int) -> list[tuple[int, float, str, str, int]]:
        """(chunk id, bm25, tool, side, line) of the best `limit` tool texts holding any of `terms`, best
        first; bm25 over the tool texts as FTS5 gives it on SQLite (`postgres_bm25.bm25_sql`)."""
        if not terms:
            return []
        total, mean_words = self._corpus_size("tool_texts")
        return [(int(r[0]), float(r[1]), r[2], r[3], int(r[4])) for r in self.db.execute(
            bm25_sql("tool_texts", "word_count") + " SELECT c.id, s.score, t.tool, t.side, t.line FROM scored s "
            "JOIN tachikoma.tool_texts t ON t.id = s.id "
            "JOIN tachikoma.chunks c ON c.file_id = t.file_id AND c.idx = t.chunk_idx "
            "ORDER BY s.score, s.id LIMIT %(limit)s",
            {"terms": asked_words(terms), "memory": self.memory_id, "total": total, "mean": mean_words or 1.0,
             "limit": int(limit)})]

    @_guarded
    def chunks_holding_in_tools(self, term: str, limit: int, among: list[int] | None = None) -> list[int]:
        """Ids of chunks whose tool texts hold `term` (up to `limit` of them; only those of `among` if given)."""
        restrict = " AND c.id = ANY(%(among)s)" if among else ""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT c.id FROM tachikoma.tool_texts t "
            "JOIN tachikoma.chunks c ON c.file_id = t.file_id AND c.idx = t.chunk_idx "
            f"WHERE t.memory_id = %(memory)s AND t.tsv @@ {term_query('%(term)s')}{restrict} "
            "LIMIT %(limit)s",
            {"memory": self.memory_id, "term": asked_word(term), "among": list(among or ()), "limit": limit})]

    @_guarded
    def replace_file(self, info: dict, chunks: list[tuple], tool_texts: list[tuple] = ()) -> None:
        """Insert or replace one file and its chunks (idx, start, end, text, hash, vector bytes, date).
        Call inside `writing`."""
        self.delete_file(info["path"])
        file_id = self.db.execute(
            "INSERT INTO tachikoma.files (memory_id, path, kind, sha256, size, mtime_ns, fm_date, git_date, trust, "
            "confidence, source, invalid, warnings, indexed_at, path_date, turn_date, evergreen, git_import) "
            "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING id",
            tuple(map(_no_nul, (
                self.memory_id, info["path"], info["kind"], info["sha256"], info["size"], info["mtime_ns"],
                info.get("fm_date"), info.get("git_date"), info.get("trust"), info.get("confidence"),
                info.get("source"), json.dumps(info.get("invalid", {})), json.dumps(info.get("warnings", [])),
                time.time(), info.get("path_date"), info.get("turn_date"), bool(info.get("evergreen")),
                bool(info.get("git_import")))))).fetchone()[0]
        if chunks:
            with self.db.cursor() as cur:
                cur.executemany(
                    "INSERT INTO tachikoma.chunks (memory_id, file_id, idx, line_start, line_end, text, hash, vector, "
                    "date, kw) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                    [(self.memory_id, file_id, idx, start, end, (held := _no_nul(text)), digest,
                      np.frombuffer(vector, dtype=np.float32), date, keyword_text(held))
                     for idx, start, end, text, digest, vector, date in chunks])
        if tool_texts:
            with self.db.cursor() as cur:
                cur.executemany(
                    "INSERT INTO tachikoma.tool_texts (memory_id, file_id, chunk_idx, line, tool, side, words, kw) "
                    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                    [(self.memory_id, file_id, *(held := tuple(map(_no_nul, t))), keyword_text(held[-1]))
                     for t in tool_texts])

    @_guarded
    def update_file(self, path: str, **columns) -> None:
        if "invalid" in columns:
            columns["invalid"] = json.dumps(columns["invalid"])
        for flag in ("evergreen", "git_import"):
            if flag in columns:
                columns[flag] = bool(columns[flag])
        sets = ", ".join(f"{name} = %s" for name in columns)
        self.db.execute(f"UPDATE tachikoma.files SET {sets} WHERE memory_id = %s AND path = %s",
                        (*map(_no_nul, columns.values()), self.memory_id, path))

    @_guarded
    def delete_file(self, path: str) -> None:
        self.db.execute("DELETE FROM tachikoma.files WHERE memory_id = %s AND path = %s", (self.memory_id, path))

    @_guarded
    def clear(self) -> None:
        self.db.execute("DELETE FROM tachikoma.multilingual WHERE memory_id = %s", (self.memory_id,))
        self.db.execute("DELETE FROM tachikoma.tool_texts WHERE memory_id = %s", (self.memory_id,))
        self.db.execute("DELETE FROM tachikoma.chunks WHERE memory_id = %s", (self.memory_id,))
        self.db.execute("DELETE FROM tachikoma.files WHERE memory_id = %s", (self.memory_id,))
        self._drop_vector_indexes()

    def scrub(self) -> None:
        """Nothing: a deleted row's bytes stay in PostgreSQL's pages until they are reused (`VACUUM FULL` by the
        database's owner rewrites them; docs/privacy.md)."""

    # -- passages read again by the multilingual embedder (`postgres_schema.MULTILINGUAL`) --
    #: This store keeps them (`indexer.pipeline.embed_multilingual`).
    multilingual = True

    @_guarded
    def unjudged(self, limit: int, after: str = "", english: bool = False) -> list[tuple[str, str]]:
        lacking = "m.hash IS NULL" + (" OR (m.language IS NULL AND octet_length(m.vector) = 0)" if english else "")
        rows = self.db.execute(
            "SELECT c.hash, min(c.text) FROM tachikoma.chunks c LEFT JOIN tachikoma.multilingual m "
            f"ON m.memory_id = c.memory_id AND m.hash = c.hash WHERE c.memory_id = %s AND ({lacking}) "
            "AND c.hash > %s GROUP BY c.hash ORDER BY c.hash LIMIT %s", (self.memory_id, after, int(limit)))
        return [(r[0], r[1]) for r in rows]

    @_guarded
    def judge(self, rows: list[tuple[str, str | None, bytes]]) -> None:
        with self.db.cursor() as cur:
            cur.executemany("INSERT INTO tachikoma.multilingual(memory_id, hash, language, vector) VALUES (%s,%s,%s,%s) "
                            "ON CONFLICT (memory_id, hash) DO UPDATE SET language = EXCLUDED.language, "
                            "vector = EXCLUDED.vector", [(self.memory_id, *row) for row in rows])

    @_guarded
    def drop_english_vectors(self) -> int:
        return self.db.execute("UPDATE tachikoma.multilingual SET vector = ''::bytea WHERE memory_id = %s AND "
                               "language IS NULL AND octet_length(vector) > 0", (self.memory_id,)).rowcount

    @_guarded
    def forget_judgements(self) -> None:
        self.db.execute("DELETE FROM tachikoma.multilingual WHERE memory_id = %s", (self.memory_id,))

    @_guarded
    def forget_unused_judgements(self) -> int:
        return self.db.execute(
            "DELETE FROM tachikoma.multilingual m WHERE m.memory_id = %s AND NOT EXISTS (SELECT 1 FROM "
            "tachikoma.chunks c WHERE c.memory_id = m.memory_id AND c.hash = m.hash)", (self.memory_id,)).rowcount

    @_guarded
    def language_counts(self) -> dict[str, int]:
        return dict(self.db.execute(
            "SELECT m.language, count(*) FROM tachikoma.chunks c JOIN tachikoma.multilingual m ON m.memory_id = "
            "c.memory_id AND m.hash = c.hash WHERE c.memory_id = %s AND m.language IS NOT NULL AND "
            "octet_length(m.vector) > 0 GROUP BY m.language", (self.memory_id,)).fetchall())

    @_guarded
    def load_multilingual(self, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = self.db.execute(
            "SELECT c.id, m.language, m.vector FROM tachikoma.chunks c JOIN tachikoma.multilingual m "
            "ON m.memory_id = c.memory_id AND m.hash = c.hash WHERE c.memory_id = %s AND octet_length(m.vector) > 0 "
            "ORDER BY c.id", (self.memory_id,)).fetchall()
        try:
            return multilingual_arrays(rows, dim)
        except ValueError as exc:
            raise self.damaged(str(exc)) from None

    # -- reading for search -------------------------------------------------
    @_guarded
    def load_matrix(self, dim: int, column: str = "vector") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        _full_only(column)
        rows = self.db.execute("SELECT id, file_id, vector_send(vector) FROM tachikoma.chunks WHERE memory_id = %s "
                               "ORDER BY id", (self.memory_id,)).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        file_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return ids, file_ids, np.empty((0, dim), dtype=np.float32)
        sent = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.uint8)
        width = 4 + 4 * dim  # vector_send: int16 dimension, int16 unused, then big-endian float4s
        if sent.shape[0] != len(rows) * width:
            raise self.damaged(f"vectors that are not all of {dim} dimensions")
        matrix = sent.reshape(len(rows), width)[:, 4:].copy().view(">f4").astype(np.float32)
        if not np.isfinite(matrix).all():
            raise self.damaged("a vector holds NaN or infinity")
        return ids, file_ids, matrix

    @_guarded
    def chunk_details(self, chunk_ids: list[int]) -> dict[int, tuple]:
        if not chunk_ids:
            return {}
        rows = self.db.execute(
            "SELECT c.id, f.path, f.kind, c.idx, c.line_start, c.line_end, c.text, f.size, f.mtime_ns "
            "FROM tachikoma.chunks c "
            "JOIN tachikoma.files f ON f.id = c.file_id WHERE c.id = ANY(%s)", (list(chunk_ids),))
        return {r[0]: r[1:] for r in rows}

    @_guarded
    def map_chunk_texts(self, of_text, kind: str | None = None) -> dict[int, object]:
        join, where = (" JOIN tachikoma.files f ON f.id = c.file_id", " AND f.kind = %s") if kind else ("", "")
        rows = self.db.execute(f"SELECT c.id, c.text FROM tachikoma.chunks c{join} WHERE c.memory_id = %s{where}",
                               (self.memory_id, kind) if kind else (self.memory_id,))
        return {chunk: of_text(text or "") for chunk, text in rows}

    @_guarded
    def file_passages(self, path: str) -> list[tuple[int, int, str]]:
        return [tuple(r) for r in self.db.execute(
            "SELECT c.line_start, c.line_end, c.text FROM tachikoma.chunks c JOIN tachikoma.files f "
            "ON f.id = c.file_id WHERE f.memory_id = %s AND f.path = %s ORDER BY c.idx", (self.memory_id, path))]

    @_guarded
    def counts(self) -> tuple[int, int]:
        files = self.db.execute("SELECT count(*) FROM tachikoma.files WHERE memory_id = %s",
                                (self.memory_id,)).fetchone()[0]
        chunks = self.db.execute("SELECT count(*) FROM tachikoma.chunks WHERE memory_id = %s",
                                 (self.memory_id,)).fetchone()[0]
        return files, chunks

    @_guarded
    def ranking_files(self) -> list[tuple]:
        return self.db.execute(
            "SELECT id, path, kind, trust, confidence, source, turn_date, fm_date, path_date, git_date, mtime_ns, "
            "evergreen::int, git_import::int FROM tachikoma.files WHERE memory_id = %s ORDER BY id",
            (self.memory_id,)).fetchall()

    @_guarded
    def chunk_dates(self) -> list[tuple[int, float]]:
        return self.db.execute("SELECT id, date FROM tachikoma.chunks WHERE memory_id = %s AND date IS NOT NULL "
                               "ORDER BY id", (self.memory_id,)).fetchall()

    @_guarded
    def chunk_spans(self) -> dict[int, tuple[str, int, int]]:
        return {r[0]: (r[1], r[2], r[3]) for r in self.db.execute(
            "SELECT c.id, f.path, c.line_start, c.line_end FROM tachikoma.chunks c JOIN tachikoma.files f "
            "ON f.id = c.file_id WHERE c.memory_id = %s", (self.memory_id,))}

    @_guarded
    def has_vector_index(self, dim: int) -> bool:
        """Whether this memory has a valid HNSW index at `dim` (checked once per index generation: it
        is built when a run completes)."""
        key = (self.generation, int(dim))
        if self._hnsw_checked is None or self._hnsw_checked[0] != key:
            found = self.db.execute(
                "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'tachikoma' AND c.relname = %s",
                (f"chunks_hnsw_{self.memory_id}_{int(dim)}",)).fetchone()
            self._hnsw_checked = (key, bool(found and found[0]))
        return self._hnsw_checked[1]

    @_guarded
    def vector_candidates(self, query: np.ndarray, count: int, ef_search: int | None = None) -> np.ndarray | None:
        """Ids of about the `count` chunks nearest to `query` by this memory's HNSW index (cosine), for
        the search to score exactly; None without a valid index. The graph's candidate list
        (``hnsw.ef_search``, unless given) is `count` up to pgvector's limit of 1,000; past it, an
        iterative scan goes on to fill `count` (unordered: the caller re-scores every candidate anyway)."""
        dim = int(query.shape[0])
        if not self.has_vector_index(dim):
            return None
        with self.reading():
            ef = ef_search or min(max(int(count), 40), HNSW_MAX_EF_SEARCH)
            self.db.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
            if count > ef:
                self.db.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                self.db.execute(f"SET LOCAL hnsw.max_scan_tuples = {max(20_000, 4 * int(count))}")
            rows = self.db.execute(
                f"SELECT id FROM tachikoma.chunks WHERE memory_id = {int(self.memory_id)} "
                f"ORDER BY vector::vector({dim}) <=> %s::vector({dim}) LIMIT %s", (query, int(count))).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    # -- keywords (tsvector + GIN, scored as FTS5's BM25) -------------------
    @_guarded
    def keyword_count(self, term: str, cap: int) -> int:
        return self.db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM tachikoma.chunks WHERE memory_id = %(memory)s "
            f"AND tsv @@ {term_query('%(term)s')} LIMIT %(cap)s) s",
            {"memory": self.memory_id, "term": asked_word(term), "cap": cap}).fetchone()[0]

    def keyword_counts(self, terms: list[str], cap: int) -> list[int]:
        """`keyword_count` of each of `terms`, in one round trip."""
        return self._counts_holding("chunks", terms, cap)

    @_guarded
    def _counts_holding(self, table: str, terms: list[str], cap: int) -> list[int]:
        """How many rows of this memory in `table` (chunks or tool_texts, each with a `tsv`) hold each of
        `terms`, counted up to `cap`, in one round trip."""
        if not terms:
            return []
        return [r[0] for r in self.db.execute(
            f"SELECT (SELECT count(*) FROM (SELECT 1 FROM tachikoma.{table} WHERE memory_id = %s "
            f"AND tsv @@ {term_query('u.t')} LIMIT %s) s) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS u(t, n) ORDER BY u.n", (self.memory_id, cap, asked_words(terms)))]

    def _corpus_size(self, table: str = "chunks") -> tuple[int, float]:
        """(rows, mean words per row) of this memory's chunks or tool texts, read once per generation."""
        generation = self.generation
        cached = self._corpus.get(table)
        if cached is None or cached[0] != generation:
            count_column = "words" if table == "chunks" else "word_count"
            n, mean = self.db.execute(f"SELECT count(*), coalesce(avg({count_column}), 0) FROM tachikoma.{table} "
                                      "WHERE memory_id = %s", (self.memory_id,)).fetchone()
            cached = self._corpus[table] = (generation, int(n), float(mean))
        return cached[1], cached[2]

    @_guarded
    def keyword_matches(self, terms: list[str], limit: int | None) -> list[tuple[int, float]]:
        """(chunk id, score) of the chunks holding any of `terms`, best first, the score being what
        FTS5's bm25() gives (negative, lower is better): same idf, k1, b and length normalisation, from
        the tsvector's term frequencies and word counts. Scored in the database (`postgres_bm25.bm25_sql`): only the
        best `limit` rows come back."""
        if not terms:
            return []
        total, mean_words = self._corpus_size()
        return [(int(i), float(score)) for i, score in self.db.execute(
            bm25_sql("chunks", "words") + " SELECT id, score FROM scored ORDER BY score, id LIMIT %(limit)s",
            {"terms": asked_words(terms), "memory": self.memory_id, "total": total, "mean": mean_words or 1.0,
             "limit": None if limit is None else int(limit)})]

    @_guarded
    def chunks_holding_each(self, terms: list[str], limit: int) -> list[list[int]]:
        """`chunks_holding` of each of `terms`, in one round trip."""
        if not terms:
            return []
        return [list(r[0]) for r in self.db.execute(
            f"SELECT ARRAY(SELECT id FROM tachikoma.chunks WHERE memory_id = %s "
            f"AND tsv @@ {term_query('u.t')} LIMIT %s) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS u(t, n) ORDER BY u.n", (self.memory_id, limit, asked_words(terms)))]

    @_guarded
    def chunks_holding(self, term: str, limit: int) -> list[int]:
        return [r[0] for r in self.db.execute(
            f"SELECT id FROM tachikoma.chunks WHERE memory_id = %(memory)s AND tsv @@ {term_query('%(term)s')} "
            "LIMIT %(limit)s", {"memory": self.memory_id, "term": asked_word(term), "limit": limit})]

    @_guarded
    def chunks_holding_among(self, term: str, chunk_ids: list[int]) -> list[int]:
        if not chunk_ids:
            return []
        return [r[0] for r in self.db.execute(
            f"SELECT id FROM tachikoma.chunks WHERE id = ANY(%(ids)s) AND tsv @@ {term_query('%(term)s')}",
            {"ids": list(chunk_ids), "term": asked_word(term)})]


def _no_nul(value):
    """`value` as PostgreSQL's text can hold it: a NUL (a session's "\\u0000", a note's byte past what the binary
    sniff reads, a YAML "\\0"; SQLite's text holds them) as U+FFFD. Any other value as it is."""
    return value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value


def _floats(sent: bytes) -> np.ndarray:
    """A vector_send() value as little-endian float32s."""
    return np.frombuffer(sent, dtype=">f4", offset=4).astype(np.float32)


def _full_only(column: str) -> None:
    """PostgreSQL keeps full vectors only (``tiers`` false): asking for another tier is a caller's bug."""
    if column != "vector":
        raise ValueError(f"no {column!r} vectors in PostgreSQL: it keeps full vectors only (tiers is false)")
