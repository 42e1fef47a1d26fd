"""Indexing speed and memory per 1k chunks, embedders side by side (minilm-int8 and e5-small by default).

    PYTHONPATH=. .venv/bin/python bench/bench_embedders.py [--chunks 1000] [--embedders minilm-int8 e5-small]

Each embedder runs in a process of its own, so that its memory is its own:
it loads the model (timed apart), embeds the same chunks as documents in the
indexer's batches, then 30 short queries one by one. Reported per embedder:
load seconds, chunks/s (wall), CPU seconds per 1k chunks (all threads), query
latency (median), and memory: peak resident set of the process, and what
loading and embedding added to it. The chunks are the multilingual everyday
set's notes (bench/everyday/polyglot) cut and recombined into texts of
40-80 words, in six languages, so both models see the same mixed input.
On a shared machine read the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "bench" / "everyday" / "polyglot" / "memory"
QUESTIONS = ROOT / "bench" / "everyday" / "polyglot" / "questions.jsonl"


def chunks(n: int, seed: int = 7) -> list[str]:
    """`n` texts of 40-80 words (or CJK sentences) recombined from the polyglot notes."""
    pieces = []
    for path in sorted(NOTES.rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip("# -").strip()
            if line:
                pieces.append(line)
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words: list[str] = []
        target = rng.randint(40, 80)
        while len(words) < target:
            words += rng.choice(pieces).split()
        out.append(" ".join(words[:max(target, 1)]))
    return out


def rss_mb() -> float:
    """The current resident set of this process, in MB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(name: str, n: int) -> dict:
    from tachikoma.embedders import create

    texts = chunks(n)
    queries = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines()][:30]
    before = rss_mb()
    embedder = create(name)
    started = time.perf_counter()
    embedder.embed_documents(["warm up"])  # loads the model (and builds a cached graph on first use)
    load_s = time.perf_counter() - started
    loaded = rss_mb()
    cpu0 = time.process_time()
    started = time.perf_counter()
    batch = 32  # the indexer's batches
    for i in range(0, n, batch):
        embedder.embed_documents(texts[i:i + batch])
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu0
    latencies = []
    for q in queries:
        t = time.perf_counter()
        embedder.embed_query(q)
        latencies.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"embedder": embedder.name, "chunks": n, "load_s": round(load_s, 2),
            "chunks_per_s": round(n / wall, 1), "wall_s_per_1k": round(wall * 1000 / n, 2),
            "cpu_s_per_1k": round(cpu * 1000 / n, 2), "query_ms_p50": round(statistics.median(latencies) * 1000, 1),
            "rss_base_mb": round(before), "rss_after_load_mb": round(loaded), "rss_peak_mb": round(peak)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--embedders", nargs="+", default=["minilm-int8", "e5-small"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.chunks)))
        return 0
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
    rows = []
    for name in args.embedders:
        out = subprocess.run([sys.executable, __file__, "--child", name, "--chunks", str(args.chunks)],
                             check=True, capture_output=True, text=True, cwd=ROOT)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}")
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    base = rows[0]
    for row in rows[1:]:
        print(f"{row['embedder']} / {base['embedder']}: wall per 1k x{row['wall_s_per_1k'] / base['wall_s_per_1k']:.2f}, "
              f"CPU per 1k x{row['cpu_s_per_1k'] / base['cpu_s_per_1k']:.2f}, "
              f"peak RSS {row['rss_peak_mb'] - base['rss_peak_mb']:+d} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
