"""Benchmark: a question that names several things, searched with each thing on its own too, beside the same
question read as one (``[search] named_parts = false``), in one process, alternately.

    python bench/bench_named_parts.py MEMORY [--rounds 20] [QUESTION ...]

Indexes MEMORY (a copy is best: the index goes into its .cache), then asks each question through `Searcher.search`
with the parts and without, and prints the median and 90th percentile of each and their ratio. A question naming n
things is n + 1 searches, so the ratio is what that costs (docs/evaluation.md, "A question that names several
things").
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

QUESTIONS = ["which came first: the bike repair, Kyoto or the dentist?",
             "what did I do first: the flaky cutoff test, the webhook retry policy or the JPY rounding bug?",
             "put the half marathon, Mia's wedding and the on-call week in date order"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("memory", type=Path)
    parser.add_argument("questions", nargs="*", default=QUESTIONS)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    from tachikoma.config import load_config
    from tachikoma.indexer import runner
    from tachikoma.search.parts import named
    from tachikoma.search.searcher import Searcher

    runner.run(args.memory)
    config = load_config(args.memory)
    configs = {"each thing on its own too": config,
               "read as one": replace(config, search=replace(config.search, named_parts=False))}
    searcher = Searcher(args.memory, config)
    times: dict[str, list[float]] = {name: [] for name in configs}
    try:
        for round_ in range(args.rounds + 1):  # the first round warms the searcher and the embedder
            for question in args.questions:
                for name, settings in configs.items():
                    start = time.perf_counter()
                    searcher.search(question, 10, config=settings)
                    if round_:
                        times[name].append((time.perf_counter() - start) * 1000)
    finally:
        searcher.close()

    print(f"{len(args.questions)} questions × {args.rounds} rounds on {args.memory}; things named: "
          + "; ".join(f"{len(named(q))}" for q in args.questions))
    for name, taken in times.items():
        taken = sorted(taken)
        print(f"{name:<28} median {statistics.median(taken):7.1f} ms   p90 {taken[int(0.9 * len(taken))]:7.1f} ms")
    medians = [statistics.median(t) for t in times.values()]
    print(f"ratio of medians: {medians[0] / medians[1]:.2f}×")


if __name__ == "__main__":
    main()
