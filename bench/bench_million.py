"""Benchmark: tachikoma's ranking over a million chunks, exact scan against the vector index, in one run.

    nice -n 10 python bench/bench_million.py --chunks 1000000 --queries 50
    nice -n 10 python bench/bench_million.py --chunks 200000 --crossover 10000 20000 50000 100000 200000

What a search costs at this size on SQLite's default path, and what
`tachikoma.search.vector_index` buys. Both sides run the product's own ranking
(`search.scoring.rank_snapshot`: vector and keyword fusion, trust, confidence,
recency, knowledge updates, at most two chunks per file) over the same
snapshot, query by query, interleaved so both see the same machine:
* exact: every chunk's cosine (the mat-vec over the whole float32 matrix);
* index: the sign-code shortlist (`vector_index.shortlist_size` nearest by
  Hamming distance) and the query's keyword matches, re-scored exactly from
  the float vectors, ranked as a snapshot of those rows (`Searcher.candidates`).
recall@10 compares the final top 10 (chunk ids) of the two; the largest
difference of the scores and factors of the chunks both return shows the
explanations are exact (0, or a float32 rounding of the last bit). A bare
mat-vec over the same matrix is printed too. Wall times and CPU times of this
process per query: on a loaded machine the CPU time with one BLAS thread
(OPENBLAS_NUM_THREADS=1) is the steadier estimate of idle time.

The vectors are synthetic (no model here embeds a million chunks): unit
vectors around `--topics` random directions with a spectrum that decays
like real sentence embeddings'. The snapshot around them is synthetic too:
ten chunks per file, a quarter of the files conversation transcripts, trust
and confidence tags drawn from all values, dates over two years, and per
query 200 keyword matches (half among the query's 1,000 nearest chunks, half
anywhere) with BM25-like scores. With --usearch (pip install usearch; not a
dependency) a usearch HNSW graph (f16, exact rescoring of its shortlist) is
measured the same way, on the final ranking.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from tachikoma.search import vector_index
from tachikoma.config import Config
from tachikoma.search.keywords import keyword_scores
from tachikoma.search.scoring import rank_snapshot
from tachikoma.search.snapshot import Snapshot

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
TRUST = np.array(["owner", "self", "external", "untrusted", None], dtype=object)
CONFIDENCE = np.array(["high", "medium", "low", None], dtype=object)


def synthetic(n: int, dim: int, topics: int, seed: int = 0, block: int = 100_000) -> np.ndarray:
    """(n, dim) float32 unit vectors clustered around `topics` directions."""
    rng = np.random.default_rng(seed)
    spectrum = (1.0 / np.sqrt(np.arange(1, dim + 1))).astype(np.float32)
    centres = rng.standard_normal((topics, dim), dtype=np.float32) * spectrum
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, block):
        size = min(block, n - start)
        topic = rng.integers(0, topics, size)
        spread = rng.uniform(0.6, 1.4, (size, 1)).astype(np.float32)  # some topics tight, some loose
        noise = rng.standard_normal((size, dim), dtype=np.float32) * (spectrum / np.linalg.norm(spectrum))
        part = centres[topic] + noise * spread  # noise about as long as the centre: same-topic cosines near 0.5
        out[start:start + size] = part / np.linalg.norm(part, axis=1, keepdims=True)
    return out


def queries_near(matrix: np.ndarray, count: int, seed: int = 1) -> np.ndarray:
    """Queries that resemble the data: a stored vector moved by noise half its length (cosine ~0.9)."""
    rng = np.random.default_rng(seed)
    dim = matrix.shape[1]
    picked = matrix[rng.integers(0, matrix.shape[0], count)]
    q = picked + (0.5 / np.sqrt(dim)) * rng.standard_normal((count, dim), dtype=np.float32)
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def snapshot(matrix: np.ndarray, seed: int = 2) -> Snapshot:
    """A snapshot of ten chunks per file with tags, kinds and dates drawn at random."""
    rng = np.random.default_rng(seed)
    n = matrix.shape[0]
    files = max(n // 10, 1)
    chunk_file = np.sort(rng.integers(0, files, n))
    paths = np.array([f"notes/{i // 1000:03}/f{i}.md" for i in range(files)], dtype=object)
    kinds = np.where(rng.random(files) < 0.25, "transcript", "markdown").astype(object)
    return Snapshot(0, np.arange(1, n + 1, dtype=np.int64), chunk_file, matrix, paths, kinds,
                    TRUST[rng.integers(0, len(TRUST), files)], CONFIDENCE[rng.integers(0, len(CONFIDENCE), files)],
                    np.full(files, None, dtype=object),
                    NOW.timestamp() - rng.uniform(0, 730, n) * 86400.0, rng.integers(0, 4, n).astype(np.int64),
                    rng.random(files) < 0.02)


def keyword_matches(scores: np.ndarray, ids: np.ndarray, rng: np.random.Generator) -> list[tuple[int, float]]:
    """200 (chunk id, bm25) pairs: 100 among the 1,000 nearest chunks, 100 anywhere, best first."""
    near = np.argpartition(-scores, 999)[:1000]
    rows = np.unique(np.r_[rng.choice(near, 100, replace=False), rng.integers(0, scores.shape[0], 100)])
    bm25 = -rng.gamma(2.0, 3.0, rows.shape[0])
    order = np.argsort(bm25)
    return [(int(ids[rows[i]]), float(bm25[i])) for i in order]


def rank_exact(snap: Snapshot, q: np.ndarray, matches, config: Config) -> dict:
    return rank_snapshot(snap, q, 10, config, now=NOW, keyword=keyword_scores(snap, matches))


def rank_rows(snap: Snapshot, rows: np.ndarray, q: np.ndarray, matches, config: Config) -> dict:
    """The search's hook (`Searcher.candidates`): the shortlist and the keyword matches, as a snapshot."""
    ids = np.array([m[0] for m in matches], dtype=np.int64)
    part = snap.rows(np.union1d(rows, np.searchsorted(snap.chunk_ids, ids)))
    answer = rank_snapshot(part, q, 10, config, now=NOW, keyword=keyword_scores(part, matches))
    answer["ids"] = part.chunk_ids[answer["positions"]].tolist()
    return answer


def compare(exact: dict, snap: Snapshot, other: dict) -> tuple[float, float]:
    """recall@10 of `other`'s final top 10 against the exact one, and the largest difference between
    the scores or factors of a chunk both return (0 or float32 rounding: a mat-vec over some rows
    can round the last bit of a cosine differently from one over all rows)."""
    truth = snap.chunk_ids[exact["positions"]].tolist()
    got = other["ids"]
    worst = 0.0
    for i in set(truth) & set(got):
        a, b = exact["factors"][truth.index(i)], other["factors"][got.index(i)]
        if {k: v for k, v in a.items() if not isinstance(v, float)} != {k: v for k, v in b.items()
                                                                        if not isinstance(v, float)}:
            return 0.0, float("inf")
        worst = max([worst, abs(exact["scores"][truth.index(i)] - other["scores"][got.index(i)]),
                     *(abs(v - b[k]) for k, v in a.items() if isinstance(v, float))])
    return len(set(truth) & set(got)) / max(len(truth), 1), worst


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(snap: Snapshot, queries: np.ndarray, methods: dict, config: Config, seed: int = 3) -> dict:
    """Per method: times (ms) of each query, recall@10 and equal scores, against the exact ranking and
    a bare mat-vec, all interleaved query by query."""
    rng = np.random.default_rng(seed)
    out = {name: {"ms": [], "cpu": [], "recall": [], "diff": 0.0} for name in ["exact", "bare", *methods]}
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        scores = snap.matrix @ q
        np.argpartition(-scores, 10)[:10]
        out["bare"]["ms"].append((time.perf_counter() - t) * 1000)
        out["bare"]["cpu"].append((time.process_time() - c) * 1000)
        matches = keyword_matches(scores, snap.chunk_ids, rng)
        t, c = time.perf_counter(), time.process_time()
        exact = rank_exact(snap, q, matches, config)
        out["exact"]["ms"].append((time.perf_counter() - t) * 1000)
        out["exact"]["cpu"].append((time.process_time() - c) * 1000)
        for name, shortlist in methods.items():
            t, c = time.perf_counter(), time.process_time()
            answer = rank_rows(snap, shortlist(q), q, matches, config)
            out[name]["ms"].append((time.perf_counter() - t) * 1000)
            out[name]["cpu"].append((time.process_time() - c) * 1000)
            recall, diff = compare(exact, snap, answer)
            out[name]["recall"].append(recall)
            out[name]["diff"] = max(out[name]["diff"], diff)
    return out


def print_rows(n: int, out: dict, extra: dict) -> None:
    exact50, exact_cpu = np.percentile(out["exact"]["ms"], 50), np.percentile(out["exact"]["cpu"], 50)
    for name, row in out.items():
        p50, p95, cpu = (np.percentile(row["ms"], 50), np.percentile(row["ms"], 95), np.percentile(row["cpu"], 50))
        recall = f"{np.mean(row['recall']):.4f}" if row["recall"] else ("1 (reference)" if name == "exact" else "-")
        diff = f"{row['diff']:.1e}" if row["recall"] else "-"
        print(f"{n:,} | {name} | {p50:.1f} | {p95:.1f} | {cpu:.1f} | {p50 / exact50:.3f} | {cpu / exact_cpu:.3f} | "
              f"{recall} | {diff} | {extra.get(name, '-')}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--shortlist", type=int, nargs="+",
                        help="shortlist sizes to measure (default: the search's, vector_index.shortlist_size)")
    parser.add_argument("--crossover", type=int, nargs="*", default=[],
                        help="also time exact against the index on the first N chunks, for each N")
    parser.add_argument("--usearch", action="store_true", help="also measure usearch HNSW f16 (pip install usearch)")
    args = parser.parse_args()
    print(f"# load average {load()} on {os.cpu_count()} cores; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}", flush=True)
    t = time.perf_counter()
    matrix = synthetic(args.chunks, args.dim, args.topics)
    queries = queries_near(matrix, args.queries)
    print(f"# {args.chunks:,} x {args.dim} float32 = {matrix.nbytes / 1e9:.2f} GB, made in "
          f"{time.perf_counter() - t:.0f} s; rss {rss_mb():,.0f} MB", flush=True)
    config = Config()
    folder = Path(tempfile.mkdtemp(prefix="tachikoma-million-"))
    try:
        snap = snapshot(matrix)
        rss = rss_mb()
        t = time.perf_counter()
        index, encoded = vector_index.open_or_build(folder, "bench-1", matrix, snap.chunk_ids)
        build_s = time.perf_counter() - t
        disk = sum(p.stat().st_size for p in folder.iterdir())
        build_rss = rss_mb() - rss  # peak while building (the bench's own copies below come after)
        # One file re-indexed: its ten chunks deleted, ten new ones added (new ids), as the indexer does.
        keep = np.flatnonzero(snap.chunk_file != snap.chunk_file[args.chunks // 2])
        changed = np.vstack([matrix[keep], synthetic(10, args.dim, args.topics, seed=9)])
        ids = np.r_[snap.chunk_ids[keep], np.arange(args.chunks + 1, args.chunks + 11)]
        t = time.perf_counter()
        _, reencoded = vector_index.open_or_build(folder, "bench-2", changed, ids)
        update_s = time.perf_counter() - t
        del changed
        index, _ = vector_index.open_or_build(folder, "bench-1", matrix, snap.chunk_ids)  # back to the measured one
        print(f"# vector index: built in {build_s:.1f} s ({encoded:,} rows encoded), {disk / 1e6:.0f} MB on disk, "
              f"codes {index.codes.nbytes / 1e6:.0f} MB in RAM (mapped; peak RSS +{build_rss:,.0f} MB while "
              f"building); one file re-indexed: updated in {update_s:.1f} s ({reencoded} rows encoded, the rest "
              f"reused); load {load()}", flush=True)
        shortlists = args.shortlist or [vector_index.shortlist_size(args.chunks, args.dim)]
        methods = {f"index, shortlist {k}": (lambda q, k=k: index.candidates(q, k)) for k in shortlists}
        extra = {name: f"build {build_s:.0f} s, update {update_s:.1f} s, disk {disk / 1e6:.0f} MB"
                 for name in methods}
        extra["exact"] = f"matrix {matrix.nbytes / 1e6:,.0f} MB"
        if args.usearch:
            from usearch.index import Index

            t = time.perf_counter()
            graph = Index(ndim=args.dim, metric="ip", dtype="f16", connectivity=16, expansion_add=128,
                          expansion_search=256)
            graph.add(snap.chunk_ids, matrix, log=False)
            hnsw_s = time.perf_counter() - t
            methods["usearch hnsw f16, 1000"] = lambda q: np.searchsorted(
                snap.chunk_ids, graph.search(q, 1000).keys.astype(np.int64))
            extra["usearch hnsw f16, 1000"] = f"build {hnsw_s:.0f} s, RAM {graph.memory_usage / 1e6:,.0f} MB"
            print(f"# usearch HNSW: built in {hnsw_s:.0f} s; load {load()}", flush=True)
        print("chunks | method | p50_ms | p95_ms | cpu_p50_ms | x_exact | cpu_x_exact | recall@10 (final ranking) "
              "| max score/factor difference | cost")
        print_rows(args.chunks, measure(snap, queries, methods, config), extra)
        for n in args.crossover:
            part = snapshot(matrix[:n])
            small, _ = vector_index.open_or_build(folder, f"cross-{n}", part.matrix, part.chunk_ids)
            out = measure(part, queries_near(part.matrix, min(args.queries, 30), seed=5),
                          {"index": lambda q: small.candidates(q, vector_index.shortlist_size(n, args.dim))}, config)
            print_rows(n, out, {})
        print(f"# peak RSS {rss_mb():,.0f} MB; load average after {load()}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
