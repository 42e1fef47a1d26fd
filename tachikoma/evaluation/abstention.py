"""Choosing the relevance floor (``[search] min_score``) by measurement.

"No good match" is one decision about a whole answer (`ranking.match_evidence`):
the answer has a match when some chunk is close enough in meaning (vector
cosine at least the floor) or holds enough of the query's words, weighted by
rarity (keyword coverage at least `search.scoring.KEYWORD_FLOOR`). This module
measures both sides on LoCoMo-10, through the same index and the same
arithmetic the search uses:

* **answerable**: every question of categories 1-4 asked of its own
  conversation (its evidence is in the memory), with its session R@5 at
  ``min_score`` 0 (the default ranking, `locomo.question_metrics`);
* **elsewhere**: every adversarial question (category 5) asked of each of
  the *other* conversations, whose people and events it does not mention;
* **nonsense**: made-up words ("zxqv blorf"), the same for every memory.

For each query the best cosine and the best keyword coverage of any chunk
are recorded, so the measurement does not depend on trust, confidence,
recency or the result limit. Since a floor never removes single results,
the only thing it costs on an answerable question is that question's whole
answer: the cost of a floor is the session R@5 of the answerable questions
it turns into "no good match", over all answerable questions.

The chosen floor is the highest (in steps of 0.01) whose cost stays within
`max_cost` (0.005 session R@5); the report gives, for it and for
neighbouring floors, that cost, the share of answerable questions answered,
the share of off-memory and nonsense queries that get "no good match", and
the precision of both kinds of answer.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..indexer import runner
from ..config import Config
from ..embedders import choose, offline_default
from ..search.keywords import keyword_coverage, keyword_search
from ..search.scoring import KEYWORD_FLOOR, PAIR_COVERAGE, PAIR_MARGIN
from ..search.searcher import Searcher
from . import locomo
from .cached_queries import CachedQueries

SETS = ("answerable", "elsewhere", "nonsense")
FLOORS = tuple(round(f, 2) for f in np.arange(0.0, 1.0001, 0.01))
#: The most session R@5 the floor may cost the answerable questions (issue 19's target).
MAX_COST = 0.005
NONSENSE_QUERIES = 50
#: Other keyword floors shown beside the search's own (`search.scoring.KEYWORD_FLOOR`).
KEYWORD_FLOORS = (0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.01)


def nonsense_queries(n: int = NONSENSE_QUERIES, seed: int = 11) -> list[str]:
    """`n` queries of one to four made-up words, the same every run."""
    rng = random.Random(seed)
    consonants, vowels = "bcdfghjklmnpqrstvwxz", "aeiouy"

    def word() -> str:
        return "".join(rng.choice(consonants) + (rng.choice(vowels) if rng.random() < 0.6 else "")
                       for _ in range(rng.randint(2, 4)))

    return [" ".join(word() for _ in range(rng.randint(1, 4))) for _ in range(n)]


def evidence(searcher: Searcher, query: str) -> tuple[float, float, float]:
    """The best vector cosine of any chunk for `query`, the best keyword coverage of any keyword match,
    and the best cosine of a chunk holding `search.scoring.PAIR_COVERAGE` of the query's words: what
    `ranking.match_evidence` compares with the floors, computed as the search does."""
    snap = searcher.snapshot()
    if not len(snap.chunk_ids):
        return 0.0, 0.0, 0.0
    qvec = np.asarray(searcher.embedder.embed_query(query), dtype=np.float32)
    vector = np.clip(snap.matrix @ qvec, 0.0, 1.0).astype(np.float64)
    store = searcher.store
    matches = keyword_search(store, query, len(snap.chunk_ids), searcher.config.search.keyword_candidates)
    coverage = keyword_coverage(store, query, snap, matches)
    if not coverage.size:
        return float(vector.max()), 0.0, 0.0
    covered = coverage >= PAIR_COVERAGE
    return float(vector.max()), float(coverage.max()), float(vector[covered].max()) if covered.any() else 0.0


def measure(path: Path, embedder_name: str | None = None, limit_conversations: int | None = None,
            base: Config | None = None, work: Path | None = None, progress: bool = True,
            max_cost: float = MAX_COST, only: list[int] | None = None) -> dict:
    """Index each conversation (reusing `work`), ask the three sets, and choose the floor.

    `only`: the positions (from 0) of the conversations to use."""
    started = time.perf_counter()
    conversations, _ = locomo.load(Path(path), limit_conversations, only)
    base = base or Config()
    base = replace(base, search=replace(base.search, min_score=0.0))
    embedder = CachedQueries(choose(embedder_name or offline_default(), None))
    if work is None:
        raise ValueError("a work folder is needed (the indexes are kept there)")
    work = Path(work) / re.sub(r"[^A-Za-z0-9._-]+", "_", f"{embedder.name}-{embedder.max_words}w")
    everyone, _ = locomo.load(Path(path))  # adversarial questions come from every conversation
    adversarial = [(c.sample_id, q.text) for c in everyone for q in c.questions if q.category == 5]
    nonsense = nonsense_queries()
    from tqdm import tqdm

    bar = tqdm(total=len(conversations), unit="conversation", desc="abstention",
               disable=None if progress else True, dynamic_ncols=True)
    rows: list[dict] = []
    try:
        for conv in conversations:
            root = work / conv.sample_id
            where = locomo.write_memory(conv, root)
            runner.run(root, base, embedder=embedder)
            searcher = Searcher(root, base, embedder=embedder)
            try:
                asked = ([("answerable", q) for q in conv.questions if q.category != 5]
                         + [("elsewhere", text) for owner, text in adversarial if owner != conv.sample_id]
                         + [("nonsense", text) for text in nonsense])
                for kind, q in asked:
                    text = q if isinstance(q, str) else q.text
                    vector, coverage, pair = evidence(searcher, text)
                    row = {"set": kind, "conversation": conv.sample_id, "vector": vector, "coverage": coverage,
                           "pair_vector": pair}
                    if kind == "answerable":
                        spans = locomo.searched_spans(searcher, text, base, conv.now, 5)
                        row["R@5"] = locomo.question_metrics(spans, [where[e] for e in q.evidence],
                                                             ks=(5,))["session_R@5"]
                    rows.append(row)
            finally:
                searcher.close()
            bar.update(1)
    finally:
        bar.close()
    return report(rows, max_cost, {
        "data": str(path), "conversations": [c.sample_id for c in conversations], "embedder": embedder.name,
        "fusion": {"method": base.search.fusion, "keyword_weight": base.search.keyword_weight},
        "seconds": round(time.perf_counter() - started, 1)})


def report(rows: list[dict], max_cost: float = MAX_COST, meta: dict | None = None,
           keyword_floor: float = KEYWORD_FLOOR) -> dict:
    """Counts per set, the curve over `FLOORS` at `keyword_floor`, the chosen floor, and the chosen
    floor with other keyword floors."""
    vector = {s: np.array([r["vector"] for r in rows if r["set"] == s]) for s in SETS}
    coverage = {s: np.array([r.get("coverage", 0.0) for r in rows if r["set"] == s]) for s in SETS}
    # Per query, the best cosine of a chunk holding enough words for the pair rule.
    paired = {s: np.array([r.get("pair_vector", 0.0) for r in rows if r["set"] == s]) for s in SETS}
    recall = np.array([r.get("R@5", 1.0) for r in rows if r["set"] == "answerable"])
    curve = [floor_row(vector, f, coverage, keyword_floor, recall, paired) for f in FLOORS]
    chosen = choose_floor(curve, max_cost)
    keyword_curve = [floor_row(vector, chosen["floor"], coverage, k, recall, paired) for k in KEYWORD_FLOORS]
    # The two floors chosen together: for each keyword floor, the highest floor within the cost.
    pairs = [choose_floor([floor_row(vector, f, coverage, k, recall, paired) for f in FLOORS], max_cost)
             for k in KEYWORD_FLOORS]
    counts = {s: int(vector[s].size) for s in SETS}
    return {"meta": {**(meta or {}), "max_cost": max_cost, "keyword_floor": keyword_floor, "queries": counts,
                     "session_R@5_without_floor": _share_of(recall.sum(), recall.size)},
            "curve": curve, "chosen": chosen, "keyword_floors": keyword_curve, "pairs": pairs,
            "rows": rows,
            "quantiles": {"vector": {s: _quantiles(v) for s, v in vector.items()},
                          "coverage": {s: _quantiles(v) for s, v in coverage.items()}}}


def floor_row(vector: dict[str, np.ndarray], floor: float, coverage: dict[str, np.ndarray] | None = None,
              keyword_floor: float = KEYWORD_FLOOR, recall: np.ndarray | None = None,
              paired: dict[str, np.ndarray] | None = None) -> dict:
    """What a floor does to each set. A query is answered when its best cosine reaches `floor`, its
    best keyword coverage reaches `keyword_floor`, or (`paired`, per set: the best cosine of a chunk
    holding `search.scoring.PAIR_COVERAGE` of its words) that cosine is within `PAIR_MARGIN` of `floor`;
    `recall` (per answerable question, its session R@5 without a floor) gives the cost: the R@5 of the
    answerable questions left unanswered, over all."""
    coverage = coverage or {}
    answered = {s: (v >= floor) | (coverage[s] >= keyword_floor if s in coverage else False)
                | (paired[s] >= round(floor - PAIR_MARGIN, 4) if paired and s in paired else False)
                for s, v in vector.items()}
    count = {s: int(np.sum(a)) if vector[s].size else 0 for s, a in answered.items()}
    total = {s: int(v.size) for s, v in vector.items()}
    unanswerable = total["elsewhere"] + total["nonsense"]
    wrongly_answered = count["elsewhere"] + count["nonsense"]
    abstained = sum(total.values()) - sum(count.values())
    rightly_abstained = unanswerable - wrongly_answered
    row = {
        "floor": floor, "keyword_floor": keyword_floor,
        "recall": _share(count["answerable"], total["answerable"]),
        "abstain_elsewhere": _share(total["elsewhere"] - count["elsewhere"], total["elsewhere"]),
        "abstain_nonsense": _share(total["nonsense"] - count["nonsense"], total["nonsense"]),
        "answer_precision": _share(count["answerable"], count["answerable"] + wrongly_answered),
        "abstain_precision": _share(rightly_abstained, abstained),
    }
    if recall is not None and total["answerable"]:
        lost = float(np.sum(recall[~np.asarray(answered["answerable"], dtype=bool)]))
        row["cost"] = round(lost / total["answerable"], 4)
    return row


def choose_floor(curve: list[dict], max_cost: float) -> dict:
    """The row of the highest floor whose cost is at most `max_cost` (recall where no cost is known)."""
    eligible = [row for row in curve if row.get("cost", 0.0) <= max_cost + 1e-12]
    return max(eligible, key=lambda row: row["floor"]) if eligible else curve[0]


def _share_of(part: float, whole: int) -> float | None:
    return round(float(part) / whole, 4) if whole else None


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _quantiles(values: np.ndarray) -> dict:
    if not values.size:
        return {}
    return {f"p{q}": round(float(np.percentile(values, q)), 3) for q in (5, 25, 50, 75, 95)}


def markdown(result: dict) -> str:
    """The report as markdown: the chosen floor, the curve around it, and other keyword floors."""
    meta = result["meta"]
    q = meta["queries"]
    chosen = result["chosen"]
    lines = ["# Relevance floor (abstention) on LoCoMo-10", "",
             f"{q['answerable']} answerable questions (categories 1-4, own conversation), "
             f"{q['elsewhere']} adversarial questions asked of other conversations, "
             f"{q['nonsense']} nonsense queries; conversations {', '.join(meta.get('conversations') or [])}; "
             f"embedder {meta.get('embedder')}; keyword floor {meta['keyword_floor']:.2f}; "
             f"most session R@5 the floor may cost: {meta['max_cost']:.3f} "
             f"(session R@5 without a floor: {_pct(meta.get('session_R@5_without_floor'))}).", "",
             f"Chosen floor: **{chosen['floor']:.2f}**.", "", _HEADER, _RULE]
    for row in result["curve"]:
        if abs(row["floor"] - chosen["floor"]) <= 0.10 + 1e-9 and round(row["floor"] * 100) % 2 == 0 \
                or row is chosen or row["floor"] == chosen["floor"]:
            lines.append(_row(row, bold=row["floor"] == chosen["floor"]))
    lines += ["", f"At {chosen['floor']:.2f}, other keyword floors (1.01: keywords alone never answer):", "",
              _HEADER.replace("| floor |", "| floor | keyword floor |"),
              _RULE.replace("|---|", "|---|---|", 1)]
    for row in result["keyword_floors"]:
        lines.append(_row(row, keyword=True))
    lines += ["", f"Both floors chosen together: for each keyword floor, the highest floor costing at most "
              f"{meta['max_cost']:.3f}:", "", _HEADER.replace("| floor |", "| floor | keyword floor |"),
              _RULE.replace("|---|", "|---|---|", 1)]
    for row in result.get("pairs", []):
        lines.append(_row(row, keyword=True))
    for signal, values in result["quantiles"].items():
        lines += ["", f"Best {signal} per set (percentiles): " + "; ".join(
            f"{s} " + ", ".join(f"{k} {v:.2f}" for k, v in values[s].items()) for s in SETS)]
    return "\n".join(lines) + "\n"


_HEADER = ("| floor | session R@5 cost | answered (answerable) | no good match: elsewhere | no good match: nonsense "
           "| precision of answers | precision of no good match |")
_RULE = "|---|---|---|---|---|---|---|"


def _row(row: dict, bold: bool = False, keyword: bool = False) -> str:
    mark = "**" if bold else ""
    first = f"| {mark}{row['floor']:.2f}{mark} |" + (f" {row['keyword_floor']:.2f} |" if keyword else "")
    return (f"{first} {_pct(row.get('cost'))} | {_pct(row['recall'])} | {_pct(row['abstain_elsewhere'])} | "
            f"{_pct(row['abstain_nonsense'])} | {_pct(row['answer_precision'])} | {_pct(row['abstain_precision'])} |")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def write_report(result: dict, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    md, js, per_query = out / "abstention.md", out / "abstention.json", out / "per_query.jsonl"
    md.write_text(markdown(result), encoding="utf-8")
    summary = {k: v for k, v in result.items() if k != "rows"}
    js.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    # Each query's evidence, so another pair of floors can be weighed without asking again:
    # report([json.loads(line) for line in per_query.open()]).
    per_query.write_text("".join(json.dumps(r) + "\n" for r in result.get("rows", [])), encoding="utf-8")
    return [md, js, per_query]


def terminal(result: dict) -> str:
    chosen = result["chosen"]
    return (f"chosen min_score {chosen['floor']:.2f} (keyword floor {chosen['keyword_floor']:.2f}): costs "
            f"{_pct(chosen.get('cost'))} session R@5, answers {_pct(chosen['recall'])} of answerable questions, "
            f"no good match for {_pct(chosen['abstain_elsewhere'])} of off-memory questions and "
            f"{_pct(chosen['abstain_nonsense'])} of nonsense; precision of answers {_pct(chosen['answer_precision'])}, "
            f"of no good match {_pct(chosen['abstain_precision'])}")
