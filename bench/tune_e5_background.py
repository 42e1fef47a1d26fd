"""Choose how e5-small's meaning is read against the passages in the same script, for "no good match".

Two sets, each indexed once with e5-small (document vectors kept in `--vector-cache`):

* the polyglot everyday set (bench/everyday/polyglot): 95 answerable questions and 76 off-topic or
  nonsense ones in six languages, split by its own `split` field (every third id held);
* Debian's translated manual pages (bench/manpages_multilingual.py: one memory per language, de, ja, zh,
  the notes a page's description, the questions its one-line summary in English and in the notes' own
  language), all answerable: what a rule costs where every note is about the same thing (commands and
  files). Split by command: every third command in sorted order held.

Every question is asked through the product's own search as of the set's date, once without a floor
(where the expected note ranks) and once with an unreachable one (what the keywords or the time alone
answer). Then, for each rule, whether the answer would have a good match is read off each chunk's scaled
meaning: the best chunk's meaning less a quantile of the meanings of the chunks in its script (none: the
meaning as it is; `segment.dominant_script`; a script of fewer than three chunks keeps its meaning),
against each floor. Reported per split: top-5 same language and across languages, "no good match" on
off-topic and nonsense questions (overall and the worst language).

    apt-get install -y manpages-de manpages-ja manpages-zh
    PYTHONPATH=. .venv/bin/python bench/tune_e5_background.py --vector-cache /tmp/e5.sqlite
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from tachikoma.config import Config
from tachikoma.embedders import choose
from tachikoma.embedders.auto import passage_language
from tachikoma.embedders.names import E5_SMALL
from tachikoma.evaluation import everyday
from tachikoma.evaluation.longmemeval import VectorCache
from tachikoma.language.function_words import language_of
from tachikoma.indexer import runner
from tachikoma.search import scoring
from tachikoma.search.keywords import STOPWORDS
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import chunk_scripts

sys.path.insert(0, str(Path(__file__).parent))
import manpages_multilingual as manpages  # noqa: E402 (a benchmark beside this one)

QUANTILES = (None, 0.1, 0.25, 0.5)
#: How the background is read: in the passage's script, or over all passages after each pair of languages'
#: shift (`evidence`).
RULES = ("script", "language")
FLOORS = tuple(round(x, 2) for x in np.arange(0.10, 0.41, 0.02))


def asked(searcher: Searcher, questions: list[dict], as_of=None) -> list[dict]:
    """Each question with its chunks' scaled meanings, where its note ranks without a floor, and what
    keywords or the time alone would answer."""
    with searcher.store.reading():
        snap = searcher.snapshot()
        scripts = chunk_scripts(searcher.store, snap.chunk_ids, snap.generation)
        texts = searcher.store.chunk_details([int(i) for i in snap.chunk_ids])
    languages = np.array([passage_language(texts[int(i)][5]) or "" for i in snap.chunk_ids], dtype="U40")
    c0 = scoring.similarity_scale(snap.embedder)
    paths = np.array([snap.paths[f] for f in snap.chunk_file], dtype=object)
    out = []
    for q in questions:
        vector = np.asarray(searcher.embedder.embed_query(q["question"]), dtype=np.float32)
        meaning = np.clip((np.asarray(snap.matrix) @ vector - c0) / (1 - c0), 0, 1)
        open_answer = searcher.search(q["question"], 10, as_of=as_of, min_score=0.0)
        closed = searcher.search(q["question"], 10, as_of=as_of, min_score=1.0)
        files = list(dict.fromkeys(r["path"] for r in open_answer["results"]))
        rank = next((n for n, f in enumerate(files, 1) if f in q["expected"]), None) if q["expected"] else None
        out.append(dict(q, rank=rank, other=closed["match"]["answered_by"], meaning=meaning, scripts=scripts,
                        paths=paths, shift=scoring.language_shift(languages, language_of(q["question"], STOPWORDS) or "",
                                                     E5_SMALL) / (1 - c0)))
    return out


def evidence(row: dict, quantile: float | None, rule: str = "script") -> float:
    """The best chunk's meaning less a `quantile` of the others': by `rule` "script", of the chunks in its
    script; by "language", of every chunk, each meaning first moved by its pair of languages
    (`scoring.language_shift`)."""
    meaning = row["meaning"]
    if quantile is None:
        return float(meaning.max())
    if rule == "language":
        shifted = meaning + row["shift"]
        return float(shifted.max() - np.quantile(shifted, quantile))
    adjusted = meaning.copy()
    for group in set(row["scripts"]):
        members = row["scripts"] == group
        if members.sum() >= 3:
            adjusted[members] -= np.quantile(meaning[members], quantile)
    return float(adjusted.max())


def scores(rows: list[dict], quantile: float | None, floor: float, rule: str = "script") -> dict:
    def answered(r):
        return r["other"] is not None or r["evidence"][rule, quantile] >= floor

    out = {}
    for direction in ("same", "cross"):
        these = [r for r in rows if r["expected"] and r["direction"] == direction]
        out[f"{direction}_top5"] = (np.mean([answered(r) and bool(r["rank"]) and r["rank"] <= 5 for r in these])
                                    if these else None)
    unanswerable = [r for r in rows if not r["expected"]]
    by_lang: dict[str, list[bool]] = {}
    for r in unanswerable:
        if r["kind"] == "offtopic":
            by_lang.setdefault(r["lang"], []).append(not answered(r))
    out["offtopic"] = np.mean(sum(by_lang.values(), [])) if by_lang else None
    out["nonsense"] = (np.mean([not answered(r) for r in unanswerable if r["kind"] == "nonsense"])
                       if unanswerable else None)
    out["worst_language"] = min(np.mean(v) for v in by_lang.values()) if by_lang else None
    return out


def cell(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vector-cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, help="write every figure here (JSON)")
    args = parser.parse_args()
    config = Config()
    embedder = VectorCache(choose(E5_SMALL, None), args.vector_cache)
    scratch = Path(tempfile.mkdtemp(prefix="tune-e5-background-"))
    rows: dict[str, list[dict]] = {}
    try:
        polyglot = everyday.load_set(Path("bench/everyday/polyglot"))
        meta = {}
        for line in (polyglot.folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                meta[item["id"]] = item
        root = scratch / "polyglot"
        everyday.build_repo(polyglot, root)
        runner.run(root, config, embedder=embedder)
        searcher = Searcher(root, config, embedder=embedder)
        questions = [{"question": q.text, "expected": q.expected, "kind": q.kind, "lang": q.lang, "split": q.split,
                      "direction": meta[q.ident].get("direction")} for q in polyglot.questions]
        rows["polyglot"] = asked(searcher, questions, polyglot.as_of)
        searcher.close()
        pages = manpages.corpus()
        held = set(sorted(pages)[2::3])
        rows["manpages"] = []
        for lang in ("de", "ja", "zh"):
            root = scratch / f"man-{lang}"
            root.mkdir()
            for command, by_lang in pages.items():
                (root / f"{command}.md").write_text(f"# {command}\n\n{by_lang[lang][1]}\n", encoding="utf-8")
            runner.run(root, config, embedder=embedder)
            searcher = Searcher(root, config, embedder=embedder)
            questions = [{"question": by_lang[q_lang][0], "expected": [f"{command}.md"], "kind": "fact",
                          "lang": q_lang, "split": "held" if command in held else "dev",
                          "direction": "same" if q_lang == lang else "cross"}
                         for command, by_lang in pages.items() for q_lang in ("en", lang)]
            rows["manpages"] += asked(searcher, questions)
            searcher.close()
    finally:
        embedder.close()
        shutil.rmtree(scratch, ignore_errors=True)
    for part in rows.values():
        for r in part:
            r["evidence"] = {(rule, q): evidence(r, q, rule) for rule in RULES for q in QUANTILES}
    figures = []
    print("| rule | quantile | floor | split | polyglot same | polyglot across | off-topic | worst language | nonsense "
          "| manpages same | manpages across |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for rule, quantile in [(rule, q) for rule in RULES for q in QUANTILES if q is not None] + [("script", None)]:
        for floor in FLOORS:
            for split in ("dev", "held"):
                p = scores([r for r in rows["polyglot"] if r["split"] == split], quantile, floor, rule)
                m = scores([r for r in rows["manpages"] if r["split"] == split], quantile, floor, rule)
                figures.append({"rule": rule, "quantile": quantile, "floor": floor, "split": split, "polyglot": p,
                                "manpages": m})
                print(f"| {rule} | {quantile} | {floor:.2f} | {split} | {cell(p['same_top5'])} | {cell(p['cross_top5'])} | "
                      f"{cell(p['offtopic'])} | {cell(p['worst_language'])} | {cell(p['nonsense'])} | "
                      f"{cell(m['same_top5'])} | {cell(m['cross_top5'])} |")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
