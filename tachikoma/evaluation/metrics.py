"""Retrieval metrics: pure functions over ranked lists, one question at a time.

Two granularities are measured:

* **session level** (a session is a file): the ranked list is the files in
  the order of their first chunk among the results (`distinct`);
  `recall_any`, `recall_all` and binary `ndcg` compare its top k with the set
  of gold files, and `evidence_recall_files` is LoCoMo's R@k with a file as
  the retrieved unit (the share of evidence turns whose file is in the top k).
* **chunk level**: `evidence_recall_spans` is LoCoMo's R@k with a chunk as
  the retrieved unit: the share of evidence turns (file, line) that lie
  inside the line range of one of the top k chunks.

Every function returns a float in 0..1. A question without gold items has
no defined recall; callers skip such questions (a ValueError here).
"""

from __future__ import annotations

import math
from typing import Hashable, Iterable, Sequence


def distinct(items: Iterable[Hashable]) -> list:
    """Items in the order of their first occurrence."""
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _gold(gold: Iterable[Hashable]) -> set:
    gold = set(gold)
    if not gold:
        raise ValueError("a question needs at least one gold item")
    return gold


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError("k must be at least 1")


def recall_any(ranked: Sequence[Hashable], gold: Iterable[Hashable], k: int) -> float:
    """1.0 if some gold item is among the first k, else 0.0."""
    _check_k(k)
    gold = _gold(gold)
    return 1.0 if any(item in gold for item in ranked[:k]) else 0.0


def recall_all(ranked: Sequence[Hashable], gold: Iterable[Hashable], k: int) -> float:
    """1.0 if every gold item is among the first k, else 0.0."""
    _check_k(k)
    gold = _gold(gold)
    return 1.0 if gold <= set(ranked[:k]) else 0.0


def ndcg(ranked: Sequence[Hashable], gold: Iterable[Hashable], k: int) -> float:
    """Binary nDCG@k: Σ 1/log2(rank + 1) over gold items in the top k, over the best possible.

    `ranked` should hold distinct items (a repeated gold item is counted once).
    """
    _check_k(k)
    gold = _gold(gold)
    seen: set = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], 1):
        if item in gold and item not in seen:
            seen.add(item)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(gold)) + 1))
    return dcg / ideal


def evidence_recall_files(ranked_files: Sequence[Hashable], evidence: Iterable[tuple[Hashable, int]],
                          k: int) -> float:
    """LoCoMo R@k with files as the unit: share of evidence turns (file, line) whose file is in the top k."""
    _check_k(k)
    evidence = _gold(evidence)
    top = set(ranked_files[:k])
    return sum(1 for file, _line in evidence if file in top) / len(evidence)


def evidence_recall_spans(ranked_spans: Sequence[tuple[Hashable, int, int]],
                          evidence: Iterable[tuple[Hashable, int]], k: int) -> float:
    """LoCoMo R@k with chunks as the unit.

    ranked_spans: (file, first line, last line) of each retrieved chunk, best
    first; evidence: (file, line) of each evidence turn. A turn counts as
    found when a top-k chunk of its file covers its line.
    """
    _check_k(k)
    evidence = _gold(evidence)
    top = ranked_spans[:k]
    found = sum(1 for file, line in evidence
                if any(f == file and start <= line <= end for f, start, end in top))
    return found / len(evidence)


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, None for no values."""
    return sum(values) / len(values) if values else None


def group_means(groups: dict[str, list[dict]], keys: list[str]) -> dict:
    """system key → group → {"questions": n, metric: mean}, from questions carrying ``metrics[key][metric]``."""
    out: dict = {}
    for key in keys:
        out[key] = {}
        for group, items in groups.items():
            cell: dict = {"questions": len(items)}
            if items:
                for name in items[0]["metrics"][key]:
                    cell[name] = mean([q["metrics"][key][name] for q in items])
            out[key][group] = cell
    return out
