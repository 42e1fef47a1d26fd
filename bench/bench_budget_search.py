"""Benchmark: a search answered within a token budget (MCP's default reply) beside the same search whole.

    python bench/bench_budget_search.py MEMORY [--rounds 20] [--budget 1000] [QUESTION ...]

Indexes MEMORY (a copy is best: the index goes into its .cache), then asks each question through the JSON API
(the Flask test client, so no network) without a budget and with `budget_tokens`, alternately, and prints the
median and 90th percentile of each and their ratio. The budgeted reply reads each result's file back (its turns
or paragraphs, secrets redacted), chooses the passages that fit and counts the JSON as it is sent, so the
difference is what holding a reply to its budget costs (docs/evaluation.md, "The search path after session 47's
changes").
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

QUESTIONS = ["what did we decide about the retry policy", "which Postgres version are we upgrading to",
             "how do I run the tests", "where is the webhook secret kept", "what did we talk about last week"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("memory", type=Path)
    parser.add_argument("questions", nargs="*", default=QUESTIONS)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--budget", type=int, default=1000)
    args = parser.parse_args()

    from tachikoma.indexer import runner
    from tachikoma_dashboard.app import create_app

    runner.run(args.memory)
    client = create_app(args.memory).test_client()

    def ask(question: str, budget: int | None) -> float:
        query = {"q": question, **({"budget_tokens": budget} if budget else {})}
        start = time.perf_counter()
        reply = client.get("/api/search", query_string=query, base_url="http://127.0.0.1:5000")
        elapsed = (time.perf_counter() - start) * 1000
        assert reply.status_code == 200, reply.get_data(as_text=True)[:300]
        return elapsed

    for question in args.questions:  # warm: the searcher, the embedder, the files' pages
        ask(question, None)
        ask(question, args.budget)
    whole, budgeted = [], []
    for _ in range(args.rounds):
        for question in args.questions:
            whole.append(ask(question, None))
            budgeted.append(ask(question, args.budget))

    def line(name: str, times: list[float]) -> str:
        times = sorted(times)
        return f"{name:<28} median {statistics.median(times):7.1f} ms   p90 {times[int(0.9 * len(times))]:7.1f} ms"

    print(f"{len(args.questions)} questions × {args.rounds} rounds on {args.memory}")
    print(line("whole results", whole))
    print(line(f"within {args.budget} tokens", budgeted))
    print(f"ratio of medians: {statistics.median(budgeted) / statistics.median(whole):.2f}×")


if __name__ == "__main__":
    main()
