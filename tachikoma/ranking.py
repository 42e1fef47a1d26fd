"""Quality-aware ranking: pure, vectorised functions over all chunks at once.

    score = similarity × trust_weight × confidence_weight × recency × duplicate_penalty

where recency = 1 / (1 + age_days / half_life_days) and the duplicate
penalty is repeat_penalty ** (n - 1) for the n-th chunk of a file among the
results (at most `per_file` chunks of one file are kept). Nothing here reads
files or the database; every input is an array, so each rule is testable
on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import RankingConfig


def tag_weights(values: np.ndarray, table: dict[str, float]) -> np.ndarray:
    """Weights for an array of tag values (None or unknown → table["missing"])."""
    missing = table["missing"]
    return np.array([table.get(v, missing) if v else missing for v in values], dtype=np.float64)


def recency(age_days: np.ndarray, half_life_days: float) -> np.ndarray:
    """1 / (1 + days / half_life): 1.0 today, 0.5 at one half-life. Future dates count as today."""
    return 1.0 / (1.0 + np.maximum(np.asarray(age_days, dtype=np.float64), 0.0) / half_life_days)


def file_weights(trust: np.ndarray, confidence: np.ndarray, age_days: np.ndarray, cfg: RankingConfig) -> np.ndarray:
    """Per-file product trust × confidence × recency (the part of a score a file contributes)."""
    return tag_weights(trust, cfg.trust) * tag_weights(confidence, cfg.confidence) * recency(age_days, cfg.half_life_days)


@dataclass
class Ranked:
    """The top results: positions into the chunk arrays, best first."""

    chunks: np.ndarray  # int positions into the similarity array
    scores: np.ndarray  # final scores
    base: np.ndarray  # scores before the duplicate penalty
    penalty: np.ndarray  # duplicate penalty applied to each


def rank(
    similarity: np.ndarray,
    chunk_file: np.ndarray,
    file_weight: np.ndarray,
    k: int,
    per_file: int = 2,
    repeat_penalty: float = 0.8,
    mask: np.ndarray | None = None,
) -> Ranked:
    """The k best chunks by similarity × file_weight[file], at most `per_file` per file.

    similarity: (N,) per chunk; chunk_file: (N,) file position of each chunk;
    file_weight: (F,) from `file_weights`; mask: (N,) bool, False excludes.
    Exact: candidates are taken from the top of the base scores and widened
    until no chunk outside them could still make the top k.
    """
    base = np.asarray(similarity, dtype=np.float64) * file_weight[chunk_file]
    allowed = np.flatnonzero(mask) if mask is not None else np.arange(base.shape[0])
    n = allowed.shape[0]
    empty = np.empty(0)
    if k <= 0 or n == 0:
        return Ranked(np.empty(0, dtype=np.int64), empty, empty, empty)
    scores_allowed = base[allowed]
    m = min(n, max(4 * k, 64))
    while True:
        if m < n:
            top = np.argpartition(-scores_allowed, m - 1)[:m]
            threshold = scores_allowed[top].min()  # nothing outside scores higher
        else:
            top, threshold = np.arange(n), -np.inf
        cand = allowed[top]
        order = cand[np.lexsort((cand, -base[cand]))]  # best first, ties by position
        occurrence = _occurrence(chunk_file[order])
        keep = occurrence < per_file
        kept, occ = order[keep], occurrence[keep]
        penalty = repeat_penalty ** occ.astype(np.float64)
        final = base[kept] * penalty
        best = np.lexsort((kept, -final))[:k]
        enough = best.shape[0] == k and final[best[-1]] >= threshold
        if enough or m >= n:
            chosen = kept[best]
            return Ranked(chosen, final[best], base[chosen], penalty[best])
        m = min(n, m * 4)


def _occurrence(files: np.ndarray) -> np.ndarray:
    """For a sequence of file ids, how many times each id appeared before (0, 1, 2, ...)."""
    if files.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    positions = np.arange(files.shape[0])
    grouped = np.lexsort((positions, files))  # by file, then by original order
    sorted_files = files[grouped]
    starts = np.r_[True, sorted_files[1:] != sorted_files[:-1]]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(files.shape[0]), 0))
    occurrence = np.empty_like(positions)
    occurrence[grouped] = np.arange(files.shape[0]) - group_start
    return occurrence
