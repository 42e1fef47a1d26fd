"""Benchmark: what the rule "a passage in another language that stands out is a match" costs a search's decision.

    .venv/bin/python bench/bench_stands_out.py [--sizes 10000 100000] [--rounds 5]

`ranking.match_evidence` with and without its `across` rule (as `scoring.rank_snapshot` passes it: the reader's
rows and their languages, asked for the best passage only), side by side in one run, on random meanings of N
passages that every one the multilingual reader read, in two cases: the best meaning under the rule's floor
(0.30: the rule reads nothing more) and a best passage at 0.42 in another language (the rule's whole work: the
passage's language, then the fifth best). Best of the rounds, 50 calls each. The rule is read only when meaning,
keywords and the pair rule have all said no.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tachikoma.search import ranking
from tachikoma.search.scoring import ACROSS_GAP, ACROSS_RANK, PAIR_COVERAGE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print("| passages | case | without the rule | with it |\n|---:|---|---:|---:|")
    for n in args.sizes:
        rows, languages, allowed = np.arange(n), np.array(["German"] * n), np.ones(n, dtype=bool)

        def is_across(position: int) -> bool:
            at = np.flatnonzero(rows == position)
            return bool(len(at)) and languages[at[0]] != ""

        for case, meaning in (("best under 0.30", rng.random(n) * 0.29),
                              ("best 0.42, in another language", np.r_[0.42, rng.random(n - 1) * 0.35])):
            calls = {
                "without": lambda: ranking.match_evidence(meaning, None, allowed, 0.44, 0.45,
                                                          pair=(0.30, PAIR_COVERAGE)),
                "with": lambda: ranking.match_evidence(meaning, None, allowed, 0.44, 0.45, pair=(0.30, PAIR_COVERAGE),
                                                       across=(is_across, 0.30, ACROSS_GAP, ACROSS_RANK)),
            }
            best = {name: float("inf") for name in calls}
            for _ in range(args.rounds):
                for name, call in calls.items():
                    started = time.perf_counter()
                    for _ in range(50):
                        call()
                    best[name] = min(best[name], (time.perf_counter() - started) / 50 * 1e3)
            print(f"| {n:,} | {case} | {best['without']:.3f} ms | {best['with']:.3f} ms |")


if __name__ == "__main__":
    main()
