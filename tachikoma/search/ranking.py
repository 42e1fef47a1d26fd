"""Quality-aware ranking: pure, vectorised functions over all chunks at once.

    score = similarity × trust_weight × confidence_weight × recency × time × duplicate_penalty

where recency = floor + (1 − floor) / (1 + age_days / half_life_days) for
the chunk's own date, × the rule's `superseded` factor when a newer chunk
supersedes it (`supersessions`, a knowledge update); 1.0 for an evergreen
memory or with recency off. The named rules are `config.RECENCY_PRESETS`,
"seed" being exactly 1 / (1 + days / 30). The duplicate
penalty is repeat_penalty ** (n - 1) for the n-th chunk of a file among the
results (at most `per_file` chunks of one file are kept). `similarity` is
itself a fusion of the vector's cosine similarity and a keyword (BM25)
score: see `keyword_relevance` and `fuse`. `time` is 1.0 unless the query
names a time ("last week", "in March"): then `timeq.factor` of the chunk's
date, passed in with recency as the per-chunk weight. Nothing here reads
files or the database; every input is an array, so each rule is testable
on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..config import RankingConfig, Recency, SearchConfig


def tag_weights(values: np.ndarray, table: dict[str, float]) -> np.ndarray:
    """Weights for an array of tag values (None or unknown → table["missing"])."""
    missing = table["missing"]
    return np.array([table.get(v, missing) if v else missing for v in values], dtype=np.float64)


def recency(age_days: np.ndarray, half_life_days, floor: float = 0.0) -> np.ndarray:
    """floor + (1 − floor) / (1 + days / half_life): 1.0 today, halfway to the floor at one half-life,
    never below the floor. Future dates count as today.

    With floor 0 this is exactly the seed's 1 / (1 + days / half_life).
    """
    decay = 1.0 / (1.0 + np.maximum(np.asarray(age_days, dtype=np.float64), 0.0) / half_life_days)
    return decay if floor == 0 else floor + (1.0 - floor) * decay


def recency_rule(age_days: np.ndarray, evergreen: np.ndarray, rule: Recency,
                 weak: np.ndarray | None = None) -> np.ndarray:
    """Per chunk: the recency of `rule` for its age (before any supersession), 1.0 where `evergreen`.

    A `weak` date (an import's commit, a file time: `dates.TRUST`) counts as at
    least one half-life old: it can say a memory is old, never that it is fresh,
    since a copy or a first commit sets it to today for every file at once."""
    age_days = np.asarray(age_days, dtype=np.float64)
    if rule.half_life_days is None:
        return np.ones(age_days.shape[0])
    if weak is not None:
        age_days = np.where(weak, np.maximum(age_days, rule.half_life_days), age_days)
    return np.where(evergreen, 1.0, recency(age_days, rule.half_life_days, rule.floor))


#: A newer chunk supersedes an older one when their embeddings are at least this alike (they say much
#: the same about the same thing) ...
ALIKE = 0.6
#: ... or this alike when both are conversation excerpts, which share speakers, names and small talk
#: (at 0.6, LoCoMo's session R@5 fell from 0.916 to 0.843; at 0.9 it is unchanged) ...
ALIKE_TRANSCRIPTS = 0.9
#: ... and it answers the query about as well: at least this share of the older one's similarity.
COMPARABLE = 0.75
#: Dates closer than this (seconds) are the same time: neither supersedes the other.
SAME_TIME = 86400.0
#: With the query's words known (`words`), the newer chunk must also hold at least this share of the
#: query words the older one holds: a fresh note that only names the same person or project ("Booked
#: the Nimbus lab for Thursday" against "the Nimbus lab wifi password is ...") is not an update of it.
SAME_WORDS = 0.7
#: A conversation excerpt and a note: the excerpt's date line and speaker labels keep their cosine at
#: 0.45-0.65 even when they state the same fact, and its similarity to the query lower too. Such a pair
#: is an update at this cosine ...
ALIKE_MIXED = 0.5
#: ... when the newer answers the query at least this share as well as the older, and holds every
#: query word the older holds.
COMPARABLE_MIXED = 0.65


def rescaled(cosine: np.ndarray, c0: float) -> np.ndarray:
    """An embedder's cosines on the scale the ranking expects: (c − c0) / (1 − c0), clipped to 0..1.

    For a model whose cosines crowd in a narrow high band (multilingual-e5-small:
    0.75-0.9 for any query and passage), so that recency, the keyword part and
    the relevance floor weigh against differences in meaning as they do for
    MiniLM. c0 = 0 is the plain clipped cosine."""
    c = np.asarray(cosine, dtype=np.float64)
    return np.clip((c - c0) / (1.0 - c0), 0.0, 1.0)


def supersessions(similarity: np.ndarray, vectors: np.ndarray, dates: np.ndarray, files: np.ndarray,
                  eligible: np.ndarray, transcript: np.ndarray, words: np.ndarray | None = None,
                  alike: float = ALIKE, alike_transcripts: float = ALIKE_TRANSCRIPTS,
                  comparable: float = COMPARABLE, strength: np.ndarray | None = None,
                  weight: np.ndarray | None = None, c0: float = 0.0) -> np.ndarray:
    """For each of a few candidate chunks, the position of the newer candidate that supersedes it, or -1.

    A knowledge update: chunk j supersedes chunk i when j is from another file
    and more than a day newer, and either
    * their unit vectors are at least `alike` (cosine; `alike_transcripts` when
      both are `transcript` chunks) and j's similarity to the query is at least
      `comparable` × i's, and j holds at least `SAME_WORDS` of the query words
      i holds; or
    * one is a transcript chunk and the other not, their cosine is at least
      `ALIKE_MIXED`, j's similarity at least `COMPARABLE_MIXED` × i's, and j
      holds every query word i holds (and i holds one at least).
    `words` (candidates × query words, bool) says which query words each chunk
    holds, as the keyword index reads them; None (not known) drops the word
    conditions and the second rule. The best such j (highest similarity) is
    named. `eligible` (bool) marks chunks that can be superseded (evergreen
    memories cannot). `strength` (`dates.STRENGTH` of each date's source): j
    must have a date trusted at least as much as i's, so an import or a file
    time never supersedes a memory's own date (two file times more than a day
    apart, in a folder without git, still can).
    `weight` (trust weight × confidence weight of each candidate's file): j must
    weigh at least as much as i, so a chat or an untrusted clipping never
    supersedes an owner's high-confidence runbook (docs/ranking.md,
    "Supersession"). `c0`: the embedder's scale (`rescaled`), so the thresholds on the
    chunks' cosines mean the same for every embedder. All arguments are per candidate.
    """
    similarity = np.asarray(similarity, dtype=np.float64)
    n = similarity.shape[0]
    if n < 2:
        return np.full(n, -1, dtype=np.int64)
    vectors = np.asarray(vectors, dtype=np.float32)
    # einsum, not `@`: a product this small (50 x 50 x 768) is 0.5 ms in one thread, while BLAS hands
    # it to its thread pool, which on a busy machine waits tens of milliseconds for a core.
    cosine = np.einsum("id,jd->ij", vectors, vectors)
    if c0:
        cosine = rescaled(cosine, c0)
    transcript = np.asarray(transcript, dtype=bool)
    both = transcript[:, None] & transcript[None, :]
    alike_pair = (cosine >= np.where(both, alike_transcripts, alike)) & (
        similarity[None, :] >= comparable * similarity[:, None])
    if words is not None:
        held = np.asarray(words, dtype=np.float64).reshape(n, -1)
        shared = np.einsum("iw,jw->ij", held, held)  # [i, j]: query words both hold
        own = held.sum(axis=1)
        alike_pair &= shared >= SAME_WORDS * own[:, None]
        mixed = transcript[:, None] != transcript[None, :]
        alike_pair |= (mixed & (cosine >= ALIKE_MIXED) & (own[:, None] > 0) & (shared >= own[:, None])
                       & (similarity[None, :] >= COMPARABLE_MIXED * similarity[:, None]))
    ok = (alike_pair
          & (dates[None, :] > dates[:, None] + SAME_TIME)
          & (files[None, :] != files[:, None])
          & np.asarray(eligible, dtype=bool)[:, None])
    if strength is not None:
        strength = np.asarray(strength)
        ok &= strength[None, :] >= strength[:, None]
    if weight is not None:
        weight = np.asarray(weight, dtype=np.float64)
        ok &= weight[None, :] >= weight[:, None] - 1e-12
    best = np.where(ok, similarity[None, :], -1.0).argmax(axis=1)
    return np.where(ok.any(axis=1), best, -1).astype(np.int64)


def match_evidence(vector: np.ndarray, coverage, mask: np.ndarray, min_score: float,
                   keyword_floor: float, in_time: np.ndarray | None = None,
                   pair: tuple[float, float] | None = None,
                   across: tuple[Callable[[int], bool], float, float, int] | None = None) -> dict:
    """Whether an answer has a good match at all: one decision for the whole answer, never a cut per chunk.

    It has one when some allowed chunk (`mask`) is close enough in meaning
    (vector cosine at least `min_score`) or holds enough of the query's words,
    weighted by rarity (keyword coverage at least `keyword_floor`): an
    identifier or a date means little to an embedder but is plain to keywords.
    Otherwise the answer is "no good match". Either way no result is removed
    for its own low cosine, so a chunk the keyword side ranks first is never
    hidden from an answer. `pair` (meaning, coverage): one chunk reaching both
    of these weaker floors is a match too (two signals agreeing on one passage;
    ``best_pair_coverage`` is the best coverage among the chunks reaching the
    first). `coverage` is the (N,) array or a function giving
    it, called only when meaning alone does not decide (None: no keyword
    evidence). `in_time` (N,) bool, given only for a question that asks about
    a time and nothing else ("what happened last week": no keyword once the
    time and the function words are out), marks the memories from that time:
    any of them answers it. `across` (is across, floor, gap, rank): a function telling whether the passage at a
    position is in another language than the question's, read by the multilingual reader; when the best allowed
    passage is one, with a meaning of at least `floor` and at least `gap` above the `rank`-th best, it stands
    out from what every passage earns and is a match (``across_gap``: that difference; ``across_floors``:
    `floor` and `gap`). `answered_by` is "meaning", "keywords", "meaning and keywords", "meaning across
    languages", "time" or None; `best_keyword_coverage` is None when it was not needed.
    """
    allowed = np.asarray(mask, dtype=bool)
    out = {"answered_by": None, "best_vector_similarity": float(np.max(vector[allowed])) if allowed.any() else 0.0,
           "best_keyword_coverage": None, "min_score": float(min_score), "keyword_floor": float(keyword_floor)}
    if not allowed.any():
        return out
    if out["best_vector_similarity"] >= min_score:
        out["answered_by"] = "meaning"
        return out
    values = coverage() if callable(coverage) else coverage
    out["best_keyword_coverage"] = float(np.max(values[allowed])) if values is not None else 0.0
    if pair is not None:
        out["pair_floors"] = [float(pair[0]), float(pair[1])]
        close = allowed & (np.asarray(vector) >= pair[0])
        out["best_pair_coverage"] = float(np.max(values[close])) if values is not None and close.any() else 0.0
    if out["best_keyword_coverage"] >= keyword_floor:
        out["answered_by"] = "keywords"
    elif pair is not None and out["best_pair_coverage"] >= pair[1]:
        out["answered_by"] = "meaning and keywords"
    elif across is not None and _stands_out(np.asarray(vector), allowed, *across, out):
        out["answered_by"] = "meaning across languages"
    elif in_time is not None:
        out["from_the_time_asked"] = int((allowed & np.asarray(in_time, dtype=bool)).sum())
        if out["from_the_time_asked"]:
            out["answered_by"] = "time"
    return out


def _stands_out(vector: np.ndarray, allowed: np.ndarray, across: Callable[[int], bool], floor: float, gap: float,
                rank: int, out: dict) -> bool:
    """Whether the best `allowed` passage by meaning (`vector`) is `across` (asked of its position only), at least
    `floor`, and at least `gap` above the `rank`-th best allowed passage (`match_evidence`); its lead goes in
    ``across_gap``."""
    if out["best_vector_similarity"] < floor:  # (the best allowed meaning, already read)
        return False
    meanings = vector[allowed]
    if len(meanings) < rank or not across(int(np.flatnonzero(allowed)[np.argmax(meanings)])):
        return False
    lead = float(out["best_vector_similarity"] - np.partition(meanings, len(meanings) - rank)[len(meanings) - rank])
    out["across_gap"], out["across_floors"] = round(lead, 4), [float(floor), float(gap)]
    return lead >= gap


def above_background(meaning: np.ndarray, groups: np.ndarray, allowed: np.ndarray, quantile: float = 0.5,
                     min_group: int = 3) -> np.ndarray:
    """(N,) each chunk's meaning less the `quantile` of the meanings of the `allowed` chunks of its group (its
    script, `segment.dominant_script`): how far it stands out from what passages in that script earn anyway.

    A multilingual embedder (e5-small) gives a question a higher cosine with every passage in the
    question's own script, whatever it is about ("甲乙丙 凸凹 鑫淼焱", hanzi mashed together, 0.40 with a
    Chinese note on a sales manager): measured from what the least related passages of that script earn,
    that share is taken out and the passage that answers keeps its lead. A group of fewer than `min_group`
    allowed chunks has nothing to go by: its meaning stays as it is. Chunks outside `allowed` count for no
    quantile but are given a value too."""
    out = np.asarray(meaning, dtype=np.float64).copy()
    allowed = np.asarray(allowed, dtype=bool)
    for group in np.unique(groups[allowed]):
        members = allowed & (groups == group)
        if int(members.sum()) >= min_group:
            out[groups == group] -= float(np.quantile(out[members], quantile))
    return out


def file_weights(trust: np.ndarray, confidence: np.ndarray, age_days: np.ndarray, cfg: RankingConfig) -> np.ndarray:
    """Per-file product trust × confidence × recency (the part of a score a file contributes)."""
    never = np.zeros(len(age_days), dtype=bool)
    return (tag_weights(trust, cfg.trust) * tag_weights(confidence, cfg.confidence)
            * recency_rule(age_days, never, cfg.rule))


def keyword_relevance(bm25: np.ndarray, nowhere: float = 0.0) -> np.ndarray:
    """FTS5 ``bm25()`` values (negative; lower is a better match) → 0..1, the best match 1, or less when
    the query has words found nowhere in the memory (`nowhere`: their BM25 weight, `keywords.nowhere_weight`).

    Rows that did not match hold NaN and get 0. Dividing by the query's best
    score makes the keyword part comparable across queries whatever their
    length and rarity. A word the memory holds nowhere is one no match can
    hold, so it counts as missing from the best match too: "how do I get rid
    of an old mattress" in a memory whose note on bulky rubbish is in
    Portuguese gives the one note that says "old" less than the whole keyword part.
    """
    raw = np.asarray(bm25, dtype=np.float64)
    strength = np.where(np.isnan(raw), 0.0, np.maximum(-raw, 0.0))
    best = strength.max() if strength.size else 0.0
    return strength / (best + nowhere) if best > 0 else np.zeros_like(strength)


#: A keyword match in a tool call's text (`documents.ToolText`) counts this much of one in a chunk's own
#: text: what an agent ran or read is evidence, but what was said about it ranks first at equal strength.
TOOL_KEYWORD_WEIGHT = 0.5


def keyword_relevance_with_tools(chunk_bm25: np.ndarray, tool_bm25: np.ndarray,
                                 tool_weight: float = TOOL_KEYWORD_WEIGHT,
                                 nowhere: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk: keyword relevance (0..1, the best match 1) from its own text's BM25 and its tool
    texts' best BM25 (NaN: no match), and the share of it that came from the tool texts (0..1).

    Strengths add (a chunk whose text holds one word and whose Edit holds
    another matches more of the query), the tool part times `tool_weight`,
    and are divided by the best (plus `nowhere`), as `keyword_relevance` does. The two BM25s
    come from separate indexes (tool texts do not lengthen the chunks' rows),
    on the same scale of term rarity.
    """
    own = np.where(np.isnan(chunk_bm25), 0.0, np.maximum(-np.asarray(chunk_bm25, dtype=np.float64), 0.0))
    tool = np.where(np.isnan(tool_bm25), 0.0, np.maximum(-np.asarray(tool_bm25, dtype=np.float64), 0.0)) * tool_weight
    strength = own + tool
    best = strength.max() if strength.size else 0.0
    if best <= 0:
        return np.zeros_like(strength), np.zeros_like(strength)
    share = np.divide(tool, strength, out=np.zeros_like(strength), where=strength > 0)
    return strength / (best + nowhere), share


def rrf_ranks(values: np.ndarray, depth: int) -> np.ndarray:
    """Rank (1 = best) of each of the `depth` highest positive values; 0 for the rest.

    Ties are broken by position, so the result is deterministic.
    """
    values = np.asarray(values, dtype=np.float64)
    ranks = np.zeros(values.shape[0], dtype=np.int64)
    positive = np.flatnonzero(values > 0)
    if positive.shape[0] == 0 or depth <= 0:
        return ranks
    if positive.shape[0] > depth:
        part = np.argpartition(-values[positive], depth - 1)[:depth]
        positive = positive[part]
    order = positive[np.lexsort((positive, -values[positive]))]
    ranks[order] = np.arange(1, order.shape[0] + 1)
    return ranks


def fuse(vector: np.ndarray, keyword: np.ndarray, cfg: SearchConfig) -> np.ndarray:
    """The similarity factor from vector similarity (0..1) and keyword relevance (0..1).

    convex: (1 − w) × vector + w × keyword.
    rrf: (c + 1) × ((1 − w) / (c + rank_vector) + w / (c + rank_keyword)) over
    the top `keyword_candidates` of each list (absent from a list: no share).
    Both give values in 0..1; w = keyword_weight, c = rrf_k.
    """
    vector = np.asarray(vector, dtype=np.float64)
    keyword = np.asarray(keyword, dtype=np.float64)
    w = cfg.keyword_weight
    if cfg.fusion == "convex":
        return (1.0 - w) * vector + w * keyword
    if cfg.fusion == "rrf":
        c = cfg.rrf_k
        fused = np.zeros(vector.shape[0], dtype=np.float64)
        for share, ranks in ((1.0 - w, rrf_ranks(vector, cfg.keyword_candidates)),
                             (w, rrf_ranks(keyword, cfg.keyword_candidates))):
            listed = ranks > 0
            fused[listed] += share * (c + 1.0) / (c + ranks[listed])
        return np.minimum(fused, 1.0)
    raise ValueError(f"unknown fusion method {cfg.fusion!r}")


def widened_query(qvec: np.ndarray, rows: np.ndarray, weight: float) -> np.ndarray:
    """The query vector moved towards the mean of `rows` (the passages it matched best), unit length:
    q + weight × m / |m|, normalised (Rocchio's pseudo-relevance feedback). A question that gathers
    from several memories ("how many …", "in total") finds the others by what the first ones say."""
    mean = np.asarray(rows, dtype=np.float32).mean(axis=0)
    wide = np.asarray(qvec, dtype=np.float32) + weight * mean / max(float(np.linalg.norm(mean)), 1e-9)
    return (wide / max(float(np.linalg.norm(wide)), 1e-9)).astype(np.float32)


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
    chunk_weight: np.ndarray | None = None,
) -> Ranked:
    """The k best chunks by similarity × file_weight[file] (× chunk_weight), at most `per_file` per file.

    similarity: (N,) per chunk; chunk_file: (N,) file position of each chunk;
    file_weight: (F,) from `file_weights`; chunk_weight: (N,) a per-chunk factor
    (recency, from each chunk's own date); mask: (N,) bool, False excludes.
    Exact: candidates are taken from the top of the base scores and widened
    until no chunk outside them could still make the top k.
    """
    base = np.asarray(similarity, dtype=np.float64) * file_weight[chunk_file]
    if chunk_weight is not None:
        base = base * chunk_weight
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
