"""A search's results ranked again after a weight only their text tells was put on their scores: the days a
passage names for a question about what is coming (`mentions.mark`), the kind of thing a question asks for
(`answer_kind.weigh`).

The duplicate penalty (a file's second passage × 0.8, `search.ranking`) belongs to a file's passages in the
order they are shown, so it moves with the new order: a file's first passage after the weight is the one with
none.
"""

from __future__ import annotations


def reorder(results: list[dict]) -> list[dict]:
    """`results`, whose scores were just weighed, with each file's duplicate penalties moved to its passages'
    new order, best first."""
    files: dict[tuple, list[dict]] = {}
    for result in results:
        files.setdefault((result.get("memory"), result.get("path")), []).append(result)
    for same in (same for same in files.values() if len(same) > 1):
        penalties = sorted((r["factors"].get("duplicate_penalty", 1.0) for r in same), reverse=True)
        base = [r["score"] / p if (p := r["factors"].get("duplicate_penalty", 1.0)) else 0.0 for r in same]
        for (before, result), penalty in zip(sorted(zip(base, same), key=lambda pair: -pair[0]), penalties):
            result["score"], result["factors"]["duplicate_penalty"] = before * penalty, penalty
    results.sort(key=lambda r: -r["score"])
    return results
