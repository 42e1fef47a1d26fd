"""Choose e5-small's similarity scale (c0) and meaning floor on the polyglot set's dev questions.

The set's memory is built and indexed once with e5-small (document vectors kept in `--vector-cache`);
then, for each c0 of the grid, every question is asked twice through the product's own search (as
`tachikoma eval everyday` asks it, as of the set's date): with no floor (where the expected note ranks)
and with an unreachable one (what the keywords and the time alone would answer). Every floor of the
grid is then read off those two answers without asking again: an answer has a good match when its best
scaled meaning reaches the floor or the keywords (or the time) answered it; the ranking itself does not
depend on the floor. Reported per split: top-1 / top-5 same language and across languages, and "no good
match" on the off-topic and nonsense questions (overall and the worst language). The best meaning read is the
one the floor reads (`match.best_vector_similarity`): since issue 29's second round, above the script's
background (`scoring.SCRIPT_BACKGROUND`; its own choice: bench/tune_e5_background.py).

    PYTHONPATH=. .venv/bin/python bench/tune_e5_scale.py --vector-cache /tmp/e5-polyglot.sqlite
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from tachikoma.config import Config
from tachikoma.embedders import choose
from tachikoma.embedders.names import E5_SMALL
from tachikoma.evaluation import everyday
from tachikoma.evaluation.longmemeval import VectorCache
from tachikoma.indexer import runner
from tachikoma.search import scoring
from tachikoma.search.searcher import Searcher

C0S = (0.0, 0.6, 0.65, 0.7, 0.72, 0.74, 0.75, 0.76, 0.78, 0.8)
FLOORS = tuple(round(x, 2) for x in np.arange(0.0, 0.71, 0.01))


def asked(searcher: Searcher, s, config: Config) -> list[dict]:
    out = []
    for q in s.questions:
        open_answer = searcher.search(q.text, 10, as_of=s.as_of, config=config, min_score=0.0)
        closed = searcher.search(q.text, 10, as_of=s.as_of, config=config, min_score=1.0)
        files = [f for f, _ in everyday._files(open_answer)]
        out.append({"id": q.ident, "split": q.split, "lang": q.lang, "kind": q.kind, "answerable": q.answerable,
                    "direction": DIRECTION.get(q.ident), "rank": everyday._rank(files, q.expected) if q.answerable
                    else None, "meaning": open_answer["match"]["best_vector_similarity"],
                    "other": closed["match"]["answered_by"]})
    return out


def scores(rows: list[dict], floor: float) -> dict:
    def answered(r):
        return r["meaning"] >= floor or r["other"] is not None

    out = {}
    for direction in ("same", "cross"):
        these = [r for r in rows if r["answerable"] and r["direction"] == direction]
        out[f"{direction}_top1"] = np.mean([answered(r) and r["rank"] == 1 for r in these])
        out[f"{direction}_top5"] = np.mean([answered(r) and bool(r["rank"]) and r["rank"] <= 5 for r in these])
    unanswerable = [r for r in rows if not r["answerable"]]
    out["abstain"] = np.mean([not answered(r) for r in unanswerable])
    offtopic = [r for r in unanswerable if r["kind"] == "offtopic"]
    by_lang = {}
    for r in offtopic:
        by_lang.setdefault(r["lang"], []).append(not answered(r))
    out["offtopic_worst_lang"] = min(np.mean(v) for v in by_lang.values())
    return out


DIRECTION: dict[str, str] = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("bench/everyday/polyglot"))
    parser.add_argument("--vector-cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, help="write every row and figure here (JSON)")
    args = parser.parse_args()
    s = everyday.load_set(args.set)
    for line in (args.set / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            DIRECTION[item["id"]] = item.get("direction")
    config = Config()
    embedder = VectorCache(choose(E5_SMALL, None), args.vector_cache)
    scratch = Path(tempfile.mkdtemp(prefix="tune-e5-"))
    results = {}
    try:
        root = scratch / s.name
        everyday.build_repo(s, root)
        runner.run(root, config, embedder=embedder)
        searcher = Searcher(root, config, embedder=embedder)
        for c0 in C0S:
            scoring.SIMILARITY_SCALES[E5_SMALL] = c0
            rows = asked(searcher, s, config)
            results[c0] = rows
            for split in ("dev", "held"):
                part = [r for r in rows if r["split"] == split]
                best = scores(part, 0.0)
                print(f"c0 {c0:.2f} {split}: without floor same top-1 {best['same_top1']:.2f} top-5 "
                      f"{best['same_top5']:.2f}; across top-1 {best['cross_top1']:.2f} top-5 {best['cross_top5']:.2f}")
                for floor in FLOORS:
                    f = scores(part, floor)
                    if f["abstain"] >= 0.5 and (floor * 100) % 2 == 0:
                        print(f"    floor {floor:.2f}: same {f['same_top1']:.2f}/{f['same_top5']:.2f} across "
                              f"{f['cross_top1']:.2f}/{f['cross_top5']:.2f} abstain {f['abstain']:.2f} (worst "
                              f"language's off-topic {f['offtopic_worst_lang']:.2f})")
        searcher.close()
    finally:
        embedder.close()
        shutil.rmtree(scratch, ignore_errors=True)
    if args.out:
        args.out.write_text(json.dumps({str(k): v for k, v in results.items()}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
