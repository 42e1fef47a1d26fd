"""Keyword search in every script, measured on a multilingual everyday set (issue 29).

Copies a set's memory folder (`<set>/memory`) to a scratch folder, indexes it with one embedder and
asks every question of `<set>/questions.jsonl` (fields: question, expected, lang, direction) through
the normal search, then prints top-1, top-5 and "no good match" per question language and direction.
Run it with this checkout's tachikoma and with another's (PYTHONPATH=<other checkout>) to compare
keyword segmentations on the same set:

    .venv/bin/python bench/bench_languages.py ../multilingual/bench/everyday/polyglot
    PYTHONPATH=/work/main .venv/bin/python bench/bench_languages.py ../multilingual/bench/everyday/polyglot
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="a folder holding memory/ and questions.jsonl")
    parser.add_argument("--embedder", default="minilm-int8")
    parser.add_argument("--keyword-weight", type=float, default=None, help="0 .. 1 (default: the setting's)")
    parser.add_argument("--json", type=Path, help="write per-question results here")
    args = parser.parse_args()

    import tachikoma
    from tachikoma.indexer import runner
    from tachikoma.search import Searcher

    manifest = json.loads((args.set / "manifest.json").read_text()) if (args.set / "manifest.json").exists() else {}
    now = datetime.fromisoformat(manifest.get("as_of", "2026-12-04")).replace(tzinfo=UTC)
    questions = [json.loads(line) for line in (args.set / "questions.jsonl").read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="tk-languages-") as scratch:
        root = Path(scratch) / "memory"
        shutil.copytree(args.set / "memory", root)
        runner.run(root, embedder_name=args.embedder)
        searcher = Searcher(root)
        rows = []
        try:
            for q in questions:
                options = {"now": now}
                answer = searcher.search(q["question"], 5, **options)
                paths = [r["path"] for r in answer["results"]]
                expected = set(q.get("expected") or ())
                rows.append({**q, "top": paths, "top1": bool(paths[:1]) and paths[0] in expected,
                             "top5": bool(expected & set(paths)), "no_good_match": bool(answer["no_good_match"]),
                             "keywords": answer["keywords"]})
        finally:
            searcher.close()
    if args.json:
        args.json.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"tachikoma from {Path(tachikoma.__file__).parent}, {args.embedder}, {len(rows)} questions")
    groups = defaultdict(list)
    for r in rows:
        groups[(r.get("direction") or r.get("kind") or "-", r.get("lang") or "-")].append(r)
    print(f"{'direction':<10} {'lang':<5} {'n':>3} {'top-1':>6} {'top-5':>6} {'no match':>9}")
    for (direction, lang), rs in sorted(groups.items()):
        answerable = [r for r in rs if r.get("expected")]
        n = len(rs)
        top1 = sum(r["top1"] for r in answerable)
        top5 = sum(r["top5"] for r in answerable)
        nomatch = sum(r["no_good_match"] for r in rs)
        shown = f"{top1:>6} {top5:>6}" if answerable else f"{'-':>6} {'-':>6}"
        print(f"{direction:<10} {lang:<5} {n:>3} {shown} {nomatch:>9}")


if __name__ == "__main__":
    main()
