"""Measure embedders on a multilingual everyday set (bench/everyday/<name>): per language and direction.

For each embedder the set's memory is laid out as a git repository (one commit
per manifest entry, dated as it says), indexed the normal way, and every
question asked twice:

* ``cosine``: files ranked by their best chunk's cosine to the query alone;
* ``search``: tachikoma's own search (meaning + keywords, trust, recency),
  as of the manifest's ``as_of``, with the embedder's relevance floor
  (or ``--floor``), top 5; its ``no_good_match`` counts as abstention.

Reported: top-1 / top-5 for answerable questions by question language and
direction (same / cross), "no good match" on off-topic and nonsense
questions by language, and the best cosine of each question (to choose a
floor). Until ``tachikoma eval everyday`` lands this script is the measure.

    PYTHONPATH=. .venv/bin/python bench/eval_multilingual.py --embedders minilm-int8 e5-small \
        --out /tmp/poly
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from tachikoma.indexer import runner
from tachikoma.embedders import create
from tachikoma.search.searcher import Searcher

SETS = Path(__file__).parent / "everyday"


class Shifted:
    """An embedder whose query-passage cosine c becomes (c - c0) / (1 + c0), with unit vectors still:
    one more dimension, +sqrt(c0) for queries and -sqrt(c0) for passages, then renormalised. An
    experiment (``--shift``) for models whose cosines crowd near one value (E5: 0.75-0.9), where
    a multiplicative recency factor outweighs differences in meaning."""

    def __init__(self, inner, c0: float) -> None:
        self.inner, self.c0 = inner, c0
        self.name = f"{inner.name}-shift{c0:g}"
        self.dim = inner.dim + 1
        self.max_words = inner.max_words

    def _extend(self, vectors: np.ndarray, sign: float) -> np.ndarray:
        extra = np.full((vectors.shape[0], 1), sign * np.sqrt(self.c0), dtype=np.float32)
        out = np.hstack([vectors, extra])
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_documents(self, texts, progress=None) -> np.ndarray:
        return self._extend(np.asarray(self.inner.embed_documents(texts, progress), dtype=np.float32), -1.0)

    def embed_query(self, text: str) -> np.ndarray:
        return self._extend(np.asarray(self.inner.embed_query(text), dtype=np.float32)[None, :], 1.0)[0]


def lay_out(set_dir: Path, target: Path) -> None:
    """The set's memory as a git repository, one commit per manifest entry with its date."""
    manifest = json.loads((set_dir / "manifest.json").read_text(encoding="utf-8"))
    target.mkdir(parents=True)
    git = ["git", "-C", str(target), "-c", "user.name=eval", "-c", "user.email=eval@localhost"]
    subprocess.run(git + ["init", "-q"], check=True)
    for commit in manifest["commits"]:
        for name in commit["files"]:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(set_dir / "memory" / name, target / name)
        subprocess.run(git + ["add", "--"] + commit["files"], check=True)
        date = f"{commit['date']}T12:00:00+00:00"
        env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        subprocess.run(git + ["commit", "-q", "-m", commit["message"]], check=True, env=env)


def evaluate(set_dir: Path, embedder: str, work: Path, floor: float | None, shift: float | None = None) -> dict:
    questions = [json.loads(line) for line in (set_dir / "questions.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    as_of = json.loads((set_dir / "manifest.json").read_text(encoding="utf-8"))["as_of"]
    model = create(embedder)
    if shift is not None:
        model = Shifted(model, shift)
    root = work / model.name.replace(":", "_")
    if root.exists():
        shutil.rmtree(root)
    lay_out(set_dir, root)
    started = time.perf_counter()
    summary = runner.run(root, embedder=model)
    index_s = time.perf_counter() - started
    searcher = Searcher(root, embedder=model)
    try:
        snap = searcher.snapshot()
        rows = []
        for q in questions:
            qvec = np.asarray(searcher.embedder.embed_query(q["question"]), dtype=np.float32)
            cos = snap.matrix @ qvec
            best: dict[str, float] = {}
            for i, c in enumerate(cos):
                path = str(snap.paths[snap.chunk_file[i]])
                best[path] = max(best.get(path, -1.0), float(c))
            by_cos = sorted(best, key=lambda p: -best[p])
            answer = searcher.search(q["question"], limit=5, as_of=as_of, min_score=floor)
            found = [r["path"] for r in answer["results"]]
            rows.append(dict(q, cosine_top=by_cos[:5], best_cosine=best[by_cos[0]], search_top=found,
                             no_good_match=answer["no_good_match"], floor=answer["min_score"]))
    finally:
        searcher.close()
    return {"embedder": model.name, "index_seconds": round(index_s, 2), "chunks": summary.chunks_embedded
            if hasattr(summary, "chunks_embedded") else None, "rows": rows}


def hit(row: dict, key: str, k: int) -> bool:
    return bool(set(row[key][:k]) & set(row["expected"]))


def table(result: dict, split: str | None) -> list[str]:
    rows = [r for r in result["rows"] if split is None or r["split"] == split]
    groups: dict[tuple, list] = defaultdict(list)
    for r in rows:
        if r["expected"]:
            groups[(r["direction"], r["lang"])].append(r)
            groups[(r["direction"], "all")].append(r)
    out = [f"### {result['embedder']} ({split or 'all questions'}; indexed in {result['index_seconds']} s)", "",
           ("| direction | question lang | n | cosine top-1 | cosine top-5 | search top-1 | search top-5 "
            "| search no-good-match |"),
           "|---|---|---|---|---|---|---|---|"]
    for (direction, lang), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] == "all", kv[0][1])):
        n = len(rs)
        out.append(f"| {direction} | {lang} | {n} | {sum(hit(r, 'cosine_top', 1) for r in rs) / n:.2f} "
                   f"| {sum(hit(r, 'cosine_top', 5) for r in rs) / n:.2f} "
                   f"| {sum(hit(r, 'search_top', 1) for r in rs) / n:.2f} "
                   f"| {sum(hit(r, 'search_top', 5) for r in rs) / n:.2f} "
                   f"| {sum(r['no_good_match'] for r in rs) / n:.2f} |")
    out += ["", "| off-topic / nonsense lang | n | no good match (search) |", "|---|---|---|"]
    abst: dict[str, list] = defaultdict(list)
    for r in rows:
        if not r["expected"]:
            abst[r["lang"]].append(r)
            abst["all"].append(r)
    for lang, rs in sorted(abst.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        out.append(f"| {lang} | {len(rs)} | {sum(r['no_good_match'] for r in rs) / len(rs):.2f} |")
    answerable = sorted(r["best_cosine"] for r in rows if r["expected"])
    off = sorted(r["best_cosine"] for r in rows if not r["expected"])
    spread = (f"best cosine, answerable: min {answerable[0]:.3f}, p10 {answerable[len(answerable) // 10]:.3f}, "
              f"median {answerable[len(answerable) // 2]:.3f}; off-topic/nonsense: median "
              f"{off[len(off) // 2]:.3f}, p90 {off[min(len(off) - 1, len(off) * 9 // 10)]:.3f}, max {off[-1]:.3f}")
    out += ["", spread, ""]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="polyglot", help="a folder under bench/everyday (default polyglot)")
    parser.add_argument("--embedders", nargs="+", default=["minilm-int8", "e5-small"])
    parser.add_argument("--floor", type=float, default=None, help="min_score (default: each embedder's own)")
    parser.add_argument("--shift", type=float, help="also measure each embedder shifted by this cosine (Shifted)")
    parser.add_argument("--split", choices=["dev", "held", "all"], default="all")
    parser.add_argument("--out", type=Path, help="write report.md and per_question.jsonl here")
    args = parser.parse_args(argv)
    set_dir = SETS / args.set
    lines = [f"# {args.set}: multilingual everyday set", ""]
    results = []
    with tempfile.TemporaryDirectory(prefix="tachikoma-poly-") as tmp:
        for name in args.embedders:
            for shift in [None] if args.shift is None else [None, args.shift]:
                result = evaluate(set_dir, name, Path(tmp), args.floor, shift)
                results.append(result)
                lines += table(result, None if args.split == "all" else args.split)
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "report.md").write_text(text + "\n", encoding="utf-8")
        with open(args.out / "per_question.jsonl", "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(dict(row, embedder=result["embedder"]), ensure_ascii=False) + "\n"
                              for result in results for row in result["rows"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
