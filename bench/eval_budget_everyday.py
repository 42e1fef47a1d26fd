"""What an agent's budgeted reply holds on the everyday memories: for each answerable question of the sets in
`bench/everyday`, is a file that answers it among the passages of the reply cut to 500, 1,000 and 2,000 tokens?

    PYTHONPATH=. python bench/eval_budget_everyday.py OUT.jsonl [SET_DIR ...] [--vector-cache F] [--compare OTHER.jsonl]

Each set is built and indexed as `tachikoma eval everyday` does (its own embedder, vectors kept in `--vector-cache`),
and each answerable question searched as a budgeted reply is: 30 results, the question read as asked, the block the
command line and MCP send (`recall.within_budget`). Writes one line per question (the files each budget's passages
come from, the tokens used, how many results fell under the adaptive cut) and prints, per budget, how many questions
have a file that answers among the passages (``any``), all their files (``all``) and the tokens used on average.
`--compare` prints the difference from another run's file, paired by question, with a 95% bootstrap interval and the
questions that changed at 1,000 tokens (docs/evaluation.md, "The adaptive cut reads how well a result answers").
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
from pathlib import Path

BUDGETS = (500, 1000, 2000)


def run(out: Path, sets: list[Path] | None, cache: str | None) -> None:
    from tachikoma.config import Config
    from tachikoma.evaluation.everyday import MemoryEmbedders, build_repo, find_sets, load_set
    from tachikoma.indexer import runner
    from tachikoma.replies import recall
    from tachikoma.search.searcher import Searcher

    base = Config()
    embedders = MemoryEmbedders(None, cache)
    scratch = Path(tempfile.mkdtemp(prefix="tachikoma-budget-everyday-"))
    try:
        with out.open("w", encoding="utf-8") as lines:
            for folder in find_sets(sets):
                s = load_set(folder)
                root = scratch / s.name
                build_repo(s, root)
                embedder, _ = embedders.for_memory(root)
                runner.run(root, base, embedder=embedder, warn=lambda _message: None)
                searcher = Searcher(root, base, embedder=embedder)
                try:
                    for q in (q for q in s.questions if q.answerable):
                        answer = searcher.search(q.text, 30, as_of=s.as_of, config=base, widen=False)
                        row = {"id": q.ident, "set": s.name, "kind": q.kind, "expected": q.expected,
                               "no_good_match": answer["no_good_match"]}
                        for b in BUDGETS:
                            if answer["no_good_match"]:
                                row[str(b)] = {"files": [], "used": 0, "fell": 0}
                                continue
                            got = recall.within_budget(answer, b, root)["budget"]
                            row[str(b)] = {"files": list(dict.fromkeys(p["path"] for p in got["passages"])),
                                           "used": got["used_tokens"], "fell": got["left_out"]["below_falloff"]}
                        lines.write(json.dumps(row) + "\n")
                finally:
                    searcher.close()
                print(f"{s.name}: done", flush=True)
    finally:
        embedders.close()
        shutil.rmtree(scratch, ignore_errors=True)


def load(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, path.open(encoding="utf-8"))}


def found(row: dict, budget: int) -> bool:
    return bool(set(row[str(budget)]["files"]) & set(row["expected"]))


def summary(rows: dict[str, dict]) -> str:
    n = len(rows)
    return " | ".join(f"{b}: any {sum(found(r, b) for r in rows.values())}/{n}, "
                      f"all {sum(set(r['expected']) <= set(r[str(b)]['files']) for r in rows.values())}, "
                      f"{sum(r[str(b)]['used'] for r in rows.values()) / n:.0f} tokens"
                      for b in BUDGETS)


def compare(new: dict[str, dict], old: dict[str, dict]) -> None:
    ids = sorted(set(new) & set(old))
    rng = random.Random(7)
    for b in BUDGETS:
        d = [found(new[i], b) - found(old[i], b) for i in ids]
        means = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(2000))
        print(f"{b}: {sum(d) / len(d):+.4f} [{means[50]:+.4f}, {means[1949]:+.4f}], "
              f"gained {d.count(1)}, lost {d.count(-1)} of {len(d)}")
    for i in ids:
        if found(new[i], 1000) != found(old[i], 1000):
            print(f"  1000 tokens: {i} {'gained' if found(new[i], 1000) else 'lost'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--vector-cache")
    parser.add_argument("--compare", type=Path, help="another run's OUT.jsonl")
    args = parser.parse_args()
    run(args.out, args.sets or None, args.vector_cache)
    rows = load(args.out)
    print(summary(rows))
    if args.compare:
        print("before:", summary(load(args.compare)))
        compare(rows, load(args.compare))


if __name__ == "__main__":
    main()
