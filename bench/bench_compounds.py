"""Benchmark: what reading German and Dutch compounds by their parts costs a question's keyword terms.

    .venv/bin/python bench/bench_compounds.py bench/everyday/german

Builds the everyday set's memory (its git history, as `tachikoma eval everyday` does) in a scratch folder,
indexes it with the hash embedder (no model is timed: the rule is on the keyword side only), and times
`keywords.keyword_terms` over every question of the set in one run, alternately without the rule (the
question's language not passed) and with it, side by side: best and median of the rounds, per question.
Only a question told as German or Dutch with a word the memory holds nowhere pays for the rule.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="an everyday set's folder (memory/, questions.jsonl)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    from tachikoma.evaluation.everyday import build_repo, load_set
    from tachikoma.language.function_words import question_language
    from tachikoma.indexer import runner
    from tachikoma.search.keywords import WordRows, keyword_terms
    from tachikoma.store import locate

    chosen = load_set(args.set)
    questions = [q.text for q in chosen.questions]
    languages = [question_language(q) for q in questions]
    with tempfile.TemporaryDirectory(prefix="tk-compounds-") as scratch:
        root = Path(scratch) / "memory"
        build_repo(chosen, root)
        runner.run(root, embedder_name="hash")
        with locate(root).open(readonly=True) as store:
            chunks = len(store.chunk_spans())

            def per_question(rule: bool) -> float:
                started = time.perf_counter()
                for question, language in zip(questions, languages):
                    keyword_terms(store, question, chunks, counts={}, words=WordRows(store),
                                  language=language if rule else None)
                return (time.perf_counter() - started) / len(questions) * 1e6

            rounds: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(args.rounds):
                for rule in (False, True):
                    rounds[rule].append(per_question(rule))
    told = sum(language in ("German", "Dutch") for language in languages)
    print(f"{args.set.name}: {len(questions)} questions ({told} told German or Dutch), {chunks} chunks, "
          f"{args.rounds} rounds alternating")
    print("| keyword_terms per question | best | median |\n|---|---:|---:|")
    for rule, name in ((False, "without the compound rule"), (True, "with it")):
        print(f"| {name} | {min(rounds[rule]):.0f} µs | {statistics.median(rounds[rule]):.0f} µs |")


if __name__ == "__main__":
    main()
