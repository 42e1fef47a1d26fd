"""Benchmark: approximate search over a million vectors against the exact scan, in one run.

    python bench/bench_million.py --chunks 1000000 --dim 768 --queries 200

What a search over a million chunks could cost on SQLite's default path
(every vector in one float32 matrix), and what an inverted-file index
(IVF) in plain numpy buys: the vectors are grouped around k-means centroids,
stored group by group, and a query scores only the groups whose centroids
are nearest to it (`nprobe` of `nlist`). The scores it computes are exact
(the same float32 vectors, the same dot product), so every explanation stays
exact; what it can miss is a top-10 chunk in a group it did not probe, which
recall@10 against the exact scan measures. With --usearch (and the usearch
package installed) an HNSW graph with exact rescoring of its shortlist is
measured too.

The vectors are synthetic (no model embeds a million chunks here):
unit vectors drawn around `--topics` random topic directions, with a
spectrum that decays like real sentence embeddings'. Real embeddings cluster
more unevenly, which helps IVF on common topics and hurts it on rare ones:
the recall here is indicative, the costs (time per query, build time,
memory) are what the method costs at this size. Every time is printed beside
the exact scan measured in the same run, query by query.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np


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


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.argsort(-scores[part], kind="stable")]


class IVF:
    """An inverted-file index in numpy: k-means centroids, vectors stored list by list."""

    def __init__(self, matrix: np.ndarray, nlist: int, sample: int = 100_000, iterations: int = 8, seed: int = 0):
        rng = np.random.default_rng(seed)
        train = matrix[np.sort(rng.choice(matrix.shape[0], min(sample, matrix.shape[0]), replace=False))]
        centroids = train[rng.choice(train.shape[0], nlist, replace=False)].copy()
        for _ in range(iterations):  # spherical k-means on the sample
            assign = self._nearest(train, centroids)
            order = np.argsort(assign, kind="stable")
            present, starts = np.unique(assign[order], return_index=True)
            sums = np.zeros_like(centroids)
            sums[present] = np.add.reduceat(train[order], starts, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            empty = norms[:, 0] == 0
            centroids = np.where(empty[:, None], centroids, sums / np.where(norms == 0, 1, norms))
        assign = self._nearest(matrix, centroids)
        order = np.argsort(assign, kind="stable")
        self.centroids = centroids
        self.ids = order  # position in the list-ordered matrix -> original row
        self.vectors = matrix[order]  # a copy, list by list (in the product it would replace the matrix)
        self.offsets = np.searchsorted(assign[order], np.arange(nlist + 1))

    @staticmethod
    def _nearest(vectors: np.ndarray, centroids: np.ndarray, block: int = 65_536) -> np.ndarray:
        out = np.empty(vectors.shape[0], dtype=np.int64)
        for start in range(0, vectors.shape[0], block):
            out[start:start + block] = np.argmax(vectors[start:start + block] @ centroids.T, axis=1)
        return out

    def search(self, q: np.ndarray, k: int, nprobe: int) -> np.ndarray:
        lists = np.argpartition(-(self.centroids @ q), nprobe - 1)[:nprobe]
        rows = np.concatenate([np.arange(self.offsets[c], self.offsets[c + 1]) for c in lists])
        scores = self.vectors[rows] @ q  # exact scores of the probed vectors
        best = top_k(scores, min(k, scores.shape[0]))
        return self.ids[rows[best]]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--nlist", type=int, default=0, help="IVF lists (default: 2 x sqrt(chunks))")
    parser.add_argument("--nprobe", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--usearch", action="store_true", help="also measure usearch HNSW (pip install usearch)")
    args = parser.parse_args()
    k = 10
    print(f"# load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}", flush=True)
    t = time.perf_counter()
    matrix = synthetic(args.chunks, args.dim, args.topics)
    queries = queries_near(matrix, args.queries)
    print(f"# {args.chunks:,} x {args.dim} float32 = {matrix.nbytes / 1e9:.2f} GB, made in "
          f"{time.perf_counter() - t:.0f} s", flush=True)

    exact = []
    for q in queries:
        exact.append(top_k(matrix @ q, k))
    nlist = args.nlist or int(2 * np.sqrt(args.chunks))
    t = time.perf_counter()
    ivf = IVF(matrix, nlist)
    build_s = time.perf_counter() - t
    print(f"# IVF: {nlist} lists (sizes {np.diff(ivf.offsets).min()}-{np.diff(ivf.offsets).max()}), built in "
          f"{build_s:.0f} s, extra memory {(ivf.vectors.nbytes + ivf.ids.nbytes) / 1e9:.2f} GB "
          f"(the list-ordered copy; in the product it replaces the matrix)", flush=True)

    searchers = {f"ivf nprobe={p}": (lambda q, p=p: ivf.search(q, k, p)) for p in args.nprobe}
    if args.usearch:
        from usearch.index import Index

        t = time.perf_counter()
        index = Index(ndim=args.dim, metric="ip", dtype="f16", connectivity=16, expansion_add=128, expansion_search=64)
        index.add(np.arange(args.chunks), matrix, log=False)
        print(f"# usearch HNSW f16: built in {time.perf_counter() - t:.0f} s, {index.memory_usage / 1e9:.2f} GB",
              flush=True)

        def hnsw(q, shortlist=50):
            found = index.search(q, shortlist).keys.astype(np.int64)
            return found[top_k(matrix[found] @ q, k)]  # exact rescoring of the shortlist
        searchers["usearch hnsw f16 + exact rescoring of 50"] = hnsw

    print("method | p50_ms | p95_ms | exact_p50_ms | x_exact | recall@10")
    for name, search in searchers.items():
        mine, base, recall = [], [], []
        for q, truth in zip(queries, exact):
            t = time.perf_counter()
            top_k(matrix @ q, k)  # the exact scan, interleaved so both see the same machine
            base.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            got = search(q)
            mine.append((time.perf_counter() - t) * 1000)
            recall.append(len(set(got.tolist()) & set(truth.tolist())) / k)
        p50, b50 = np.percentile(mine, 50), np.percentile(base, 50)
        print(f"{name} | {p50:.1f} | {np.percentile(mine, 95):.1f} | {b50:.1f} | {p50 / b50:.2f} | "
              f"{np.mean(recall):.4f}", flush=True)
    print(f"# peak RSS {rss_mb():,.0f} MB; load average after {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
