"""Choosing the relevance floor (``[search] min_score``) by measurement.

A floor is only useful if it separates "the memory holds the answer" from
"it does not". This module measures both sides on LoCoMo-10, through the
same index and the same similarity the search uses:

* **answerable**: every question of categories 1-4 asked of its own
  conversation (its evidence is in the memory);
* **elsewhere**: every adversarial question (category 5) asked of each of
  the *other* conversations, whose people and events it does not mention;
* **nonsense**: made-up words ("zxqv blorf"), the same for every memory.

For each query the best similarity of any chunk is recorded: the vector's
cosine, which the floor applies to, and for comparison the fused
``similarity`` factor (vector and keyword), which separates worse because
its keyword part is relative to the query's best match. The floor is independent of trust, confidence and
recency by design, so a change of the recency rule does not move it; a
change of fusion or embedder does, and then this command is run again.

The chosen floor is the highest (in steps of 0.01) that still answers at
least `target_recall` of the answerable questions; the report gives, for
it and for neighbouring floors, the share of answerable questions kept
(recall), the share of off-memory and nonsense queries that get "no good
match", and the precision of both kinds of answer.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import indexer, ranking
from ..config import Config
from ..embedders import choose
from ..search import Searcher, holding_every_term, keyword_scores, keyword_search
from . import locomo

SETS = ("answerable", "elsewhere", "nonsense")
FLOORS = tuple(round(f, 2) for f in np.arange(0.0, 1.0001, 0.01))
TARGET_RECALL = 0.98
NONSENSE_QUERIES = 50


def nonsense_queries(n: int = NONSENSE_QUERIES, seed: int = 11) -> list[str]:
    """`n` queries of one to four made-up words, the same every run."""
    rng = random.Random(seed)
    consonants, vowels = "bcdfghjklmnpqrstvwxz", "aeiouy"

    def word() -> str:
        return "".join(rng.choice(consonants) + (rng.choice(vowels) if rng.random() < 0.6 else "")
                       for _ in range(rng.randint(2, 4)))

    return [" ".join(word() for _ in range(rng.randint(1, 4))) for _ in range(n)]


def best_similarity(searcher: Searcher, query: str, config: Config) -> tuple[float, float]:
    """The highest fused similarity and the highest vector cosine of any chunk for `query`.

    The same arithmetic as the search (`ranking.fuse` over `keyword_scores`),
    taken over every chunk, so the result does not depend on the ranking's
    weights or the result limit."""
    snap = searcher.snapshot()
    if not len(snap.chunk_ids):
        return 0.0, 0.0
    qvec = np.asarray(searcher.embedder.embed_query(query), dtype=np.float32)
    vector = np.clip(snap.matrix @ qvec, 0.0, 1.0).astype(np.float64)
    matches = keyword_search(searcher.store.db, query, len(snap.chunk_ids), config.search.keyword_candidates)
    fused = ranking.fuse(vector, keyword_scores(snap, matches), config.search)
    return float(fused.max()), float(vector.max())


def measure(path: Path, embedder_name: str = "minilm", limit_conversations: int | None = None,
            base: Config | None = None, work: Path | None = None, progress: bool = True,
            target_recall: float = TARGET_RECALL) -> dict:
    """Index each conversation (reusing `work`), ask the three sets, and choose the floor."""
    started = time.perf_counter()
    conversations, _ = locomo.load(Path(path), limit_conversations)
    base = base or Config()
    base = replace(base, search=replace(base.search, min_score=0.0))
    embedder = locomo.CachedQueries(choose(embedder_name, None))
    if work is None:
        raise ValueError("a work folder is needed (the indexes are kept there)")
    work = Path(work) / re.sub(r"[^A-Za-z0-9._-]+", "_", f"{embedder.name}-{embedder.max_words}w")
    adversarial = [(c.sample_id, q.text) for c in conversations for q in c.questions if q.category == 5]
    nonsense = nonsense_queries()
    from tqdm import tqdm

    bar = tqdm(total=len(conversations), unit="conversation", desc="abstention",
               disable=None if progress else True, dynamic_ncols=True)
    rows: list[dict] = []
    try:
        for conv in conversations:
            root = work / conv.sample_id
            locomo.write_memory(conv, root)
            indexer.run(root, base, embedder=embedder)
            searcher = Searcher(root, base, embedder=embedder)
            try:
                asked = ([("answerable", q.text) for q in conv.questions if q.category != 5]
                         + [("elsewhere", text) for owner, text in adversarial if owner != conv.sample_id]
                         + [("nonsense", text) for text in nonsense])
                for kind, text in asked:
                    fused, vector = best_similarity(searcher, text, base)
                    every = bool(holding_every_term(searcher.store.db, text, searcher.snapshot()).any())
                    rows.append({"set": kind, "conversation": conv.sample_id, "similarity": fused,
                                 "vector": vector, "every_term": every})
            finally:
                searcher.close()
            bar.update(1)
    finally:
        bar.close()
    return report(rows, target_recall, {
        "data": str(path), "conversations": len(conversations), "embedder": embedder.name,
        "fusion": {"method": base.search.fusion, "keyword_weight": base.search.keyword_weight},
        "seconds": round(time.perf_counter() - started, 1)})


def report(rows: list[dict], target_recall: float = TARGET_RECALL, meta: dict | None = None) -> dict:
    """Counts per set, the curve over `FLOORS` for both signals, and the chosen floor."""
    signals = {}
    # A query that some chunk answers word for word passes any floor, as in the search (`holding_every_term`).
    held = {s: np.array([bool(r.get("every_term")) for r in rows if r["set"] == s]) for s in SETS}
    for signal in ("similarity", "vector"):
        values = {s: np.array([r[signal] for r in rows if r["set"] == s]) for s in SETS}
        curve = [floor_row(values, f, held) for f in FLOORS]
        signals[signal] = {"curve": curve, "chosen": choose_floor(curve, target_recall),
                           "quantiles": {s: _quantiles(v) for s, v in values.items()}}
    counts = {s: sum(1 for r in rows if r["set"] == s) for s in SETS}
    every_term = {s: int(held[s].sum()) for s in SETS}
    return {"meta": {**(meta or {}), "target_recall": target_recall, "queries": counts, "every_term": every_term},
            "signals": signals}


def floor_row(values: dict[str, np.ndarray], floor: float, held: dict[str, np.ndarray] | None = None) -> dict:
    """What a floor does to each set. A query is answered when its best similarity reaches the floor,
    or (`held`) when a chunk holds every word of it."""
    held = held or {}
    answered = {s: int(((v >= floor) | held.get(s, False)).sum()) if v.size else 0 for s, v in values.items()}
    total = {s: int(v.size) for s, v in values.items()}
    unanswerable = total["elsewhere"] + total["nonsense"]
    wrongly_answered = answered["elsewhere"] + answered["nonsense"]
    abstained = sum(total.values()) - sum(answered.values())
    rightly_abstained = unanswerable - wrongly_answered
    return {
        "floor": floor,
        "recall": _share(answered["answerable"], total["answerable"]),
        "abstain_elsewhere": _share(total["elsewhere"] - answered["elsewhere"], total["elsewhere"]),
        "abstain_nonsense": _share(total["nonsense"] - answered["nonsense"], total["nonsense"]),
        "answer_precision": _share(answered["answerable"], answered["answerable"] + wrongly_answered),
        "abstain_precision": _share(rightly_abstained, abstained),
    }


def choose_floor(curve: list[dict], target_recall: float) -> dict:
    """The row of the highest floor whose recall is at least `target_recall`."""
    eligible = [row for row in curve if row["recall"] is not None and row["recall"] >= target_recall]
    return max(eligible, key=lambda row: row["floor"]) if eligible else curve[0]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _quantiles(values: np.ndarray) -> dict:
    if not values.size:
        return {}
    return {f"p{q}": round(float(np.percentile(values, q)), 3) for q in (5, 25, 50, 75, 95)}


def markdown(result: dict) -> str:
    """The report as markdown: the chosen floor, then the curve around it, for both signals."""
    meta = result["meta"]
    q = meta["queries"]
    lines = [f"# Relevance floor (abstention) on LoCoMo-10", "",
             f"{q['answerable']} answerable questions (categories 1-4, own conversation), "
             f"{q['elsewhere']} adversarial questions asked of other conversations, "
             f"{q['nonsense']} nonsense queries; embedder {meta.get('embedder')}; "
             f"target recall {meta['target_recall']:.2f}.", ""]
    if "every_term" in meta:
        held = meta["every_term"]
        lines += [f"Answered at any floor, a chunk holding every word of the query: {held['answerable']} "
                  f"answerable, {held['elsewhere']} elsewhere, {held['nonsense']} nonsense.", ""]
    for signal, title in (("vector", "vector cosine (what `min_score` applies to)"),
                          ("similarity", "fused similarity, vector and keyword (for comparison)")):
        data = result["signals"][signal]
        chosen = data["chosen"]
        lines += [f"## {title}", "", f"Chosen floor: **{chosen['floor']:.2f}**.", "",
                  "| floor | recall (answerable kept) | no good match: elsewhere | no good match: nonsense "
                  "| precision of answers | precision of no good match |",
                  "|---|---|---|---|---|---|"]
        for row in data["curve"]:
            if abs(row["floor"] - chosen["floor"]) <= 0.10 + 1e-9 and round(row["floor"] * 100) % 2 == 0 \
                    or row is chosen:
                mark = "**" if row is chosen else ""
                lines.append(f"| {mark}{row['floor']:.2f}{mark} | {_pct(row['recall'])} | "
                             f"{_pct(row['abstain_elsewhere'])} | {_pct(row['abstain_nonsense'])} | "
                             f"{_pct(row['answer_precision'])} | {_pct(row['abstain_precision'])} |")
        lines += ["", "Best similarity per set (percentiles): " + "; ".join(
            f"{s} " + ", ".join(f"{k} {v:.2f}" for k, v in data["quantiles"][s].items()) for s in SETS), ""]
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def write_report(result: dict, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / "abstention.md", out / "abstention.json"
    md.write_text(markdown(result), encoding="utf-8")
    js.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return [md, js]


def terminal(result: dict) -> str:
    chosen = result["signals"]["vector"]["chosen"]
    return (f"chosen min_score {chosen['floor']:.2f}: recall {_pct(chosen['recall'])}, no good match for "
            f"{_pct(chosen['abstain_elsewhere'])} of off-memory questions and {_pct(chosen['abstain_nonsense'])} "
            f"of nonsense; precision of answers {_pct(chosen['answer_precision'])}, of no good match "
            f"{_pct(chosen['abstain_precision'])}")
