"""Benchmark: what marking stale memories (`staleness.mark`) adds to a warm search, at growing sizes.

    python bench/bench_staleness.py --sizes 1000 10000 --chunks-per-file 10 --queries 200

Builds bench_index's synthetic memory (notes and transcripts, hash embedder) and a code repository
(300 files, 1,000 commits over a year); every note names the repository's folder and three of its
files in its last chunk and is dated in 2026 (by its file time), so note results are checked and
many are stale (a memory that never names code costs a split of its text). Searches go through
`Searcher.search` with the vectors kept in memory (warm); each query is timed with and without
`staleness.mark` on its answer, in alternating order, and the p50 and p95 of both and of the mark
alone are printed (the repository's history is read once, before the timed searches, as a
long-lived process holds it).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import HashingEmbedder, build_memory, percentile, words

from tachikoma import staleness
from tachikoma.config import Config
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher


def build_repo(repo: Path, files: int = 300, commits: int = 1000) -> list[str]:
    repo.mkdir(parents=True)
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent), "PATH": "/usr/bin:/bin"}
    def run(*a, **kw):
        return subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *a], cwd=repo,
                              check=True, capture_output=True, env={**env, **kw})
    run("init", "-q", "-b", "main")
    names = [f"src/m{i // 30}/f{i}.py" for i in range(files)]
    # one fast-import stream: `commits` commits over 2025-12-01..2026-11-30, each changing 3 files
    rng = random.Random(3)
    stream = []
    start = 1764547200
    for c in range(commits):
        when = start + c * (365 * 86400 // commits)
        stream.append(f"commit refs/heads/main\ncommitter b <b@b> {when} +0000\ndata 1\nc\n")
        for name in (names if c == 0 else rng.sample(names, 3)):
            body = f"# {name} {c}\n"
            stream.append(f"M 100644 inline {name}\ndata {len(body)}\n{body}")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input="".join(stream).encode(), check=True,
                   env=env)
    run("reset", "-q", "--hard", "main")
    return names


def name_code(root: Path, repo: Path, names: list[str]) -> None:
    rng = random.Random(5)
    for note in root.rglob("note-*.md"):
        picked = rng.sample(names, 3)
        with open(note, "a") as out:
            out.write(f"\nCode in {repo}: `{picked[0]}`, {picked[1]}:12 and {picked[2]}.\n")
        when = rng.uniform(1767225600, 1796083200)  # dated 2026-01-01..2026-12-01: most are stale
        os.utime(note, (when, when))


def bench(size: int, chunks_per_file: int, queries: int, dim: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"tachikoma-stale-{size}-"))
    try:
        root, repo = work / "memory", work / "code" / "shop"
        names = build_repo(repo)
        build_memory(root, size, chunks_per_file)
        name_code(root, repo, names)
        embedder = HashingEmbedder(dim)
        runner.run(root, Config(), embedder=embedder)
        searcher = Searcher(root, embedder=embedder)
        rng = random.Random(1)
        texts = [words(rng, rng.randrange(2, 7)) for _ in range(queries)]
        repos = staleness.Repositories()
        staleness.mark(searcher.search(texts[0], 10, min_score=0), repos=repos)  # warm: vectors and history
        plain, marked, mark_only, stale = [], [], [], 0
        for i, q in enumerate(texts):
            for with_mark in ((False, True) if i % 2 else (True, False)):
                t = time.perf_counter()
                answer = searcher.search(q, 10, min_score=0)
                searched = time.perf_counter()
                if with_mark:
                    staleness.mark(answer, repos=repos)
                    done = time.perf_counter()
                    marked.append((done - t) * 1000)
                    mark_only.append((done - searched) * 1000)
                    stale += answer["staleness"]["stale"]
                else:
                    plain.append((searched - t) * 1000)
        chunks = searcher.snapshot().chunk_count
        searcher.close()
        return {"files": size, "chunks": chunks, "queries": queries,
                "plain_p50_ms": round(percentile(plain, 50), 2), "marked_p50_ms": round(percentile(marked, 50), 2),
                "plain_p95_ms": round(percentile(plain, 95), 2), "marked_p95_ms": round(percentile(marked, 95), 2),
                "mark_p50_ms": round(percentile(mark_only, 50), 3), "mark_p95_ms": round(percentile(mark_only, 95), 3),
                "stale_results_per_search": round(stale / queries, 1)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="numbers of files")
    parser.add_argument("--chunks-per-file", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dim", type=int, default=384)
    args = parser.parse_args()
    print("| files | chunks | search p50 | + staleness p50 | cost | search p95 | + staleness p95 | mark alone p50 "
          "| stale results per search |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        r = bench(size, args.chunks_per_file, args.queries, args.dim)
        cost = (r["marked_p50_ms"] / r["plain_p50_ms"] - 1) * 100
        print(f"| {r['files']:,} | {r['chunks']:,} | {r['plain_p50_ms']} ms | {r['marked_p50_ms']} ms | {cost:+.1f}% "
              f"| {r['plain_p95_ms']} ms | {r['marked_p95_ms']} ms | {r['mark_p50_ms']} ms "
              f"| {r['stale_results_per_search']} |", flush=True)


if __name__ == "__main__":
    main()
