"""Benchmark: index time, unchanged re-index time and search latency at growing sizes.

    python bench/bench_index.py --sizes 1000 10000 --chunks-per-file 10 --dim 768

Builds a synthetic memory (markdown notes with front matter and JSONL
transcripts) in a temporary folder (or reuses one given by --memory), indexes
it, re-indexes it unchanged, and times searches. Vectors come from the
keyword-hashing embedder (``hash:<dim>``: instant, and one the command line
knows, so the cold figure can be the real command), so the figures measure
tachikoma (walking, hashing, SQLite, ranking), not a model; the query
embedding is excluded from search latency.

Every time is printed beside a reference measured in the same run, since a
shared machine makes lone absolute times meaningless:
* warm: the ``rank`` time of `Searcher.search` (keywords, vectors, ranking,
  texts) with the vectors kept in memory, as the dashboard and MCP do, against
  a bare numpy mat-vec over the same matrix (``bare``), interleaved query by query;
  above `vector_index.ANN_MIN_CHUNKS` the search takes its vector candidates from
  the vector index, so the same search with the exact scan (``warm_exact``) runs
  beside it, and ``recall_at_10`` compares their final top 10s;
* cold: a new `Searcher` per query, as the command line builds (snapshot,
  freshness walk, ranking), in this process; the first cold search after an
  index change reads the vectors out of SQLite and writes the memory-mapped
  cache, later ones map it;
* cli: the real command, ``python -m tachikoma search QUERY``, one process per
  query, wall time, against ``python -c "import numpy"`` (the floor of any
  numpy program) run alternately.
"""

from __future__ import annotations

import argparse
import hashlib
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

from tachikoma.indexer import runner
from tachikoma.config import Config
from tachikoma.embedders.base import l2_normalise
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.search.searcher import Searcher
from tachikoma.store import Store

WORDS = ("motor controller meeting agenda heat sink firmware thermal board revision sample order "
         "school concert coffee preference owner memory index ranking trust confidence schedule "
         "review decision question action item deadline project status note summary transcript").split()


class RandomEmbedder:
    """Seeded random unit vectors: instant, so the benchmark times everything but a model."""

    max_words = 120

    def __init__(self, dim: int):
        self.dim = dim
        self.name = f"bench-random:{dim}"

    def embed_documents(self, texts, progress=None):
        seed = int.from_bytes(hashlib.blake2b("".join(texts[:1]).encode(), digest_size=8).digest(), "little")
        return l2_normalise(np.random.default_rng(seed).standard_normal((len(texts), self.dim), dtype=np.float32))

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) + str(rng.randrange(1000)) for _ in range(n))


def build_memory(root: Path, files: int, chunks_per_file: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for i in range(files):
        folder = root / f"2026-{1 + i % 12:02}" / f"d{i % 97:02}"
        folder.mkdir(parents=True, exist_ok=True)
        if i % 4 == 3:
            with open(folder / f"session-{i}.jsonl", "w") as out:
                for t in range(chunks_per_file * 2):
                    out.write(json.dumps({"role": "user" if t % 2 else "assistant", "content": words(rng, 55)}) + "\n")
        else:
            trust = rng.choice(["owner", "self", "external", "untrusted", None])
            head = f"---\ntrust: {trust}\nconfidence: medium\n---\n" if trust else ""
            body = "".join(f"## Part {p}\n\n{words(rng, 100)}\n\n" for p in range(chunks_per_file))
            (folder / f"note-{i}.md").write_text(f"{head}# Note {i}\n\n{body}")


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def timed_process(argv: list[str]) -> float:
    """Wall milliseconds of one process, which must succeed."""
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


def bench(size: int, chunks_per_file: int, dim: int, queries: int, cold_queries: int,
          min_score: float | None = None, memory: Path | None = None, embedder_kind: str = "hash",
          prefix: str = "") -> dict:
    root = memory or Path(tempfile.mkdtemp(prefix=f"tachikoma-bench-{size}-"))
    try:
        embedder = HashingEmbedder(dim) if embedder_kind == "hash" else RandomEmbedder(dim)
        index_s = reindex_s = float("nan")
        if memory is None or not (root / ".cache" / "index.db").exists():
            build_memory(root, size, chunks_per_file)
            t = time.perf_counter()
            runner.run(root, Config(), embedder=embedder)
            index_s = time.perf_counter() - t
        t = time.perf_counter()
        again = runner.run(root, Config(), embedder=embedder)
        reindex_s = time.perf_counter() - t
        assert again.chunks_embedded == 0 and again.added == again.changed == 0

        # Searches go through Searcher.search (vector + keyword + ranking + chunk texts); the
        # query embedding is excluded by reading the answer's own "rank" timing.
        rng = random.Random(1)
        texts = [f"{prefix} {words(rng, rng.randrange(2, 7))}".strip() for _ in range(queries)]
        searcher = Searcher(root, embedder=embedder)
        t = time.perf_counter()
        searcher.search(texts[0], 10, min_score=min_score)  # load the snapshot once: that is what "warm" means
        first_ms = (time.perf_counter() - t) * 1000  # includes building the vector index when there is none
        exact_searcher = Searcher(root, embedder=embedder)
        exact_searcher.vector_index_min_chunks = float("inf")  # the same search with the exact scan
        exact_searcher.search(texts[0], 10, min_score=min_score)
        matrix = np.array(searcher.snapshot().matrix)  # the same vectors, in memory
        warm, warm_exact, bare, recall = [], [], [], []
        for q in texts:
            answer = searcher.search(q, 10, min_score=min_score)
            warm.append(answer["timing_ms"]["rank"])
            truth = exact_searcher.search(q, 10, min_score=min_score)
            warm_exact.append(truth["timing_ms"]["rank"])
            got = {(r["path"], r["chunk"]) for r in answer["results"]}
            want = {(r["path"], r["chunk"]) for r in truth["results"]}
            recall.append(len(got & want) / len(want) if want else float(not got))
            qvec = embedder.embed_query(q)
            t = time.perf_counter()
            scores = matrix @ qvec
            np.argpartition(-scores, 10)[:10]
            bare.append((time.perf_counter() - t) * 1000)
        uses_index = searcher.snapshot().vector_index is not None
        searcher.close()
        exact_searcher.close()
        del matrix
        for stale in (root / ".cache").glob("vectors-*.npy"):  # the first cold search rebuilds the cache
            stale.unlink()
        cold = []
        for q in texts[:cold_queries]:
            t = time.perf_counter()
            s = Searcher(root, embedder=embedder)
            embed_ms = s.search(q, 10, min_score=min_score)["timing_ms"]["embed"]
            s.close()
            cold.append((time.perf_counter() - t) * 1000 - embed_ms)
        cli, floor = [], []
        command = [sys.executable, "-m", "tachikoma", "--memory", str(root), "search", "--json"]
        if min_score is not None:
            command += ["--min-score", str(min_score)]
        for q in texts[:cold_queries]:
            cli.append(timed_process(command + ["--", q]) if embedder_kind == "hash" else float("nan"))
            floor.append(timed_process([sys.executable, "-c", "import numpy"]))
        db_mb = (root / ".cache" / "index.db").stat().st_size / 1e6
        with Store(root / ".cache" / "index.db", readonly=True) as store:
            files, chunks = store.counts()
        warm_p50, bare_p50, exact_p50 = percentile(warm, 50), percentile(bare, 50), percentile(warm_exact, 50)
        cold_p50, cli_p50, floor_p50 = percentile(cold[1:] or cold, 50), percentile(cli, 50), percentile(floor, 50)
        return {"files": files, "chunks": chunks, "dim": dim, "index_s": round(index_s, 2),
                "reindex_unchanged_s": round(reindex_s, 3),
                "warm_p50_ms": round(warm_p50, 2), "warm_p95_ms": round(percentile(warm, 95), 2),
                "bare_p50_ms": round(bare_p50, 2), "warm_x_bare": round(warm_p50 / bare_p50, 2),
                "vector_index": "yes" if uses_index else "no", "first_search_ms": round(first_ms, 1),
                "warm_exact_p50_ms": round(exact_p50, 2), "warm_exact_x_bare": round(exact_p50 / bare_p50, 2),
                "recall_at_10": round(float(np.mean(recall)), 4),
                "cold_first_ms": round(cold[0], 1), "cold_p50_ms": round(cold_p50, 1),
                "cold_x_bare": round(cold_p50 / bare_p50, 2),
                "cli_p50_ms": round(cli_p50, 1), "import_numpy_p50_ms": round(floor_p50, 1),
                "cli_x_bare": round(cli_p50 / bare_p50, 2), "index_mb": round(db_mb, 1)}
    finally:
        if memory is None:
            shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="numbers of files")
    parser.add_argument("--chunks-per-file", type=int, default=10)
    parser.add_argument("--dim", type=int, default=768, help="vector dimension (768 = nomic-embed-text)")
    parser.add_argument("--queries", type=int, default=200, help="warm searches per size")
    parser.add_argument("--cold-queries", type=int, default=10, help="cold searches (and command lines) per size")
    parser.add_argument("--min-score", type=float, metavar="X",
                        help="the relevance floor of the searches (default: the memory's, 0 for this embedder); "
                             "above 0 the search also weighs the keyword evidence of the whole answer")
    parser.add_argument("--embedder", choices=("hash", "random"), default="hash",
                        help="hash: the hashing embedder (the command line can search it); random: seeded "
                             "random vectors (no cli figure)")
    parser.add_argument("--memory", type=Path, help="build (once) and keep the memory of the first size here")
    parser.add_argument("--prefix", default="", metavar="TEXT",
                        help='put TEXT before every query: "how many" makes each a question that gathers, which '
                             "is read again with its best files' passages (scoring.FEEDBACK_WEIGHT)")
    parser.add_argument("--json", action="store_true", help="print rows as JSON")
    args = parser.parse_args()
    rows = []
    header = ("files", "chunks", "dim", "index_s", "reindex_unchanged_s", "vector_index", "first_search_ms",
              "warm_p50_ms", "warm_p95_ms", "bare_p50_ms", "warm_x_bare", "warm_exact_p50_ms", "warm_exact_x_bare",
              "recall_at_10", "cold_first_ms", "cold_p50_ms", "cold_x_bare", "cli_p50_ms",
              "import_numpy_p50_ms", "cli_x_bare", "index_mb")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"# load average {load} on {os.cpu_count()} cores; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}", flush=True)
    if not args.json:
        print(" | ".join(header))
    for n, size in enumerate(args.sizes):
        memory = args.memory if n == 0 else None
        row = bench(size, args.chunks_per_file, args.dim, args.queries, args.cold_queries, args.min_score, memory,
                    args.embedder, args.prefix)
        rows.append(row)
        if not args.json:
            print(" | ".join(str(row[h]) for h in header), flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    print(f"# load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
