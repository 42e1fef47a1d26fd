"""Benchmark: what checking the index for damage costs, next to a cold search, in one run.

    python bench/bench_index_check.py --sizes 1000 10000 --chunks-per-file 10 --dim 768

Builds the synthetic memory of bench_index.py, indexes it, then times, side
by side: a cold search as the command line does it (open the index, map
the vector cache, rank) when the index's state has passed a check already
(the usual case: the indexer records the state its writes leave); the same
cold search when the state is new to the process and to ``.cache`` (the
first command after something else changed the file), which runs the full
check; the full check alone (SQLite's quick_check, the FTS5 keyword index
and the stored vector sizes, `index_check.problem`); and the keyword index
part alone: decoded entry by entry on a read-only connection, as a search
checks it (`keyword_ro_ms`), and FTS5's integrity-check on a writable one,
as the indexer does (`keyword_rw_ms`). Medians of `--repeat` runs; the
machine may be loaded, so read the ratios.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import RandomEmbedder, build_memory, words  # noqa: E402 (imported after sys.path points at this checkout)

from tachikoma import memory  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.indexer import runner
from tachikoma.config import Config  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.search.searcher import Searcher  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.store import index_check  # noqa: E402 (imported after sys.path points at this checkout)


def cold_search_ms(root: Path, embedder, query: str) -> float:
    started = time.perf_counter()
    searcher = Searcher(root, embedder=embedder)
    embed_ms = searcher.search(query, 10)["timing_ms"]["embed"]
    searcher.close()
    return (time.perf_counter() - started) * 1000 - embed_ms


def bench(size: int, chunks_per_file: int, dim: int, repeat: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"tachikoma-check-{size}-"))
    try:
        build_memory(root, size, chunks_per_file)
        embedder = RandomEmbedder(dim)
        summary = runner.run(root, Config(), embedder=embedder)
        path = memory.index_path(root)
        rng = random.Random(1)
        queries = [words(rng, 3) for _ in range(repeat + 1)]
        cold_search_ms(root, embedder, queries[-1])  # writes the vector cache
        checked, unchecked, check, keyword_ro, keyword_rw = [], [], [], [], []
        for query in queries[:repeat]:
            checked.append(cold_search_ms(root, embedder, query))
            index_check.forget(path)  # as after a change by something else than the indexer
            unchecked.append(cold_search_ms(root, embedder, query))
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            started = time.perf_counter()
            assert index_check.problem(db, dim * 4) is None
            check.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            assert index_check.keyword_index_problem(db) is None
            keyword_ro.append((time.perf_counter() - started) * 1000)
            db.close()
            db = sqlite3.connect(path)
            started = time.perf_counter()
            assert index_check.keyword_index_problem(db) is None
            keyword_rw.append((time.perf_counter() - started) * 1000)
            db.close()
        median = lambda values: round(float(np.median(values)), 1)  # noqa: E731 (a one-line closure handed on)
        return {"files": size, "chunks": summary.chunks, "dim": dim,
                "index_mb": round(path.stat().st_size / 1e6, 1),
                "cold_search_ms": median(checked), "cold_search_after_change_ms": median(unchecked),
                "full_check_ms": median(check), "keyword_ro_ms": median(keyword_ro),
                "keyword_rw_ms": median(keyword_rw),
                "check_vs_cold_search": round(float(np.median(check)) / max(float(np.median(checked)), 1e-9), 2)}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="numbers of files")
    parser.add_argument("--chunks-per-file", type=int, default=10)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    header = ("files", "chunks", "dim", "index_mb", "cold_search_ms", "cold_search_after_change_ms",
              "full_check_ms", "keyword_ro_ms", "keyword_rw_ms", "check_vs_cold_search")
    print(" | ".join(header))
    for size in args.sizes:
        row = bench(size, args.chunks_per_file, args.dim, args.repeat)
        print(" | ".join(str(row[h]) for h in header), flush=True)


if __name__ == "__main__":
    main()
