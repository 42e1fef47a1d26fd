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


def reciprocal_rank(ranked: Sequence[Hashable], gold: Iterable[Hashable], k: int | None = None) -> float:
    """1 / the rank of the first gold item (within the first k when given), 0.0 when none is there."""
    gold = _gold(gold)
    for rank, item in enumerate(ranked[:k] if k else ranked, 1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def split_of(ident: str) -> str:
    """"dev" or "held" for a question id, by its sha256 (a fixed half of any set, chosen by nobody):
    rules are chosen on "dev" and reported on "held" too."""
    import hashlib

    return "dev" if hashlib.sha256(ident.encode("utf-8")).digest()[0] % 2 == 0 else "held"


def bootstrap_difference(a: Sequence[float], b: Sequence[float], rounds: int = 2000, seed: int = 0) -> dict:
    """The mean of a − b over paired questions and its 95% percentile bootstrap interval
    (questions resampled with replacement, `rounds` times, a fixed seed: the same data gives the same
    interval). {"difference", "low", "high", "questions"}."""
    import numpy as np

    if len(a) != len(b):
        raise ValueError("paired values need the same length")
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if not diff.size:
        return {"difference": None, "low": None, "high": None, "questions": 0}
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(rounds, diff.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"difference": float(diff.mean()), "low": float(low), "high": float(high), "questions": int(diff.size)}


def bootstrap_mean(values: Sequence[float], rounds: int = 2000, seed: int = 0) -> dict:
    """The mean of `values` and its 95% percentile bootstrap interval: {"mean", "low", "high", "n"}."""
    out = bootstrap_difference(values, [0.0] * len(values), rounds, seed)
    return {"mean": out["difference"], "low": out["low"], "high": out["high"], "n": out["questions"]}


def bootstrap_share(inside: Sequence[float], totals: Sequence[float], baseline: Sequence[float] | None = None,
                    rounds: int = 2000, seed: int = 0) -> dict:
    """A share pooled over questions, Σ inside / Σ totals (answer turns found of all answer turns), and its
    95% percentile bootstrap interval (questions resampled with replacement, a fixed seed); with
    `baseline` (the same questions' counts of another system), the difference of the two shares
    instead, resampled in pairs. {"share" (or "difference"), "low", "high", "questions"}."""
    import numpy as np

    a, n = np.asarray(inside, dtype=np.float64), np.asarray(totals, dtype=np.float64)
    b = np.zeros_like(a) if baseline is None else np.asarray(baseline, dtype=np.float64)
    key = "share" if baseline is None else "difference"
    if not a.size or not n.sum():
        return {key: None, "low": None, "high": None, "questions": int(a.size)}
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, a.size, size=(rounds, a.size))
    totals_drawn = n[picks].sum(axis=1)
    shares = (a[picks].sum(axis=1) - b[picks].sum(axis=1)) / np.where(totals_drawn > 0, totals_drawn, 1)
    low, high = np.percentile(shares, [2.5, 97.5])
    return {key: float((a.sum() - b.sum()) / n.sum()), "low": float(low), "high": float(high), "questions": int(a.size)}


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
