"""Scoring a snapshot against a query: similarity, tags, recency, time, knowledge updates, the floor.

`rank_snapshot` scores every chunk of a `snapshot.Snapshot` with the pure
rules of `ranking` and explains the best ones factor by factor;
`relevance_floor` is the measured floor below which an answer says "no good
match"; `tier_similarity` compares chunks that have only quick-tier vectors.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from ..reading import dates
from ..when import timeq
from ..config import Config
from ..embedders.names import E5_SMALL, MINILM, MINILM_INT8, MUSE
from . import ranking, voice
from .snapshot import FULL, QUICK, TIER_NAMES, Filters, Snapshot

DAY = 86400.0
#: e5-small's scale start and meaning floor: `SIMILARITY_SCALES`, `MEASURED_FLOORS`. c0 chosen on the polyglot
#: set's dev questions (`bench/tune_e5_scale.py`): the middle of the plateau 0.74-0.78 that ranks best without a
#: floor (across languages top-5 0.91, same language 1.00). The floor is on the meaning above the script's
#: background (`SCRIPT_BACKGROUND`), chosen with it (`bench/tune_e5_background.py`; 0.18 on the scaled meaning
#: as it was before). Held questions: docs/embedders.md, "E5's scale and floor".
E5_C0, E5_FLOOR = 0.76, 0.20
#: Per embedder, the cosine c0 where its scale starts (`similarity_scale`): the ranking reads its cosine c
#: as (c − c0) / (1 − c0), clipped at 0. multilingual-e5-small puts every query-passage pair between about
#: 0.75 and 0.9, so on its raw cosine a recency factor of 0.8 outweighs any difference in meaning; c0 was
#: chosen on the polyglot set's dev questions (docs/embedders.md, "E5's scale and floor"). MiniLM: none.
SIMILARITY_SCALES = {E5_SMALL: E5_C0}
#: The relevance floor measured per embedder (see `relevance_floor`). Both floors were chosen
#: together on the everyday sets' dev half and LoCoMo conversations 0-4 (docs/evaluation.md,
#: "Abstention on everyday memory"): 0.44 with the keyword floor 0.45 and the time rule says "no good
#: match" to every off-topic and nonsense question of the everyday dev half and answers 96% of its
#: answerable ones (0.41 / 0.6 before: 90%), at LoCoMo's cost of before; int8 takes the same floor.
MEASURED_FLOORS = {MINILM: 0.44, MINILM_INT8: 0.44, E5_SMALL: E5_FLOOR}
#: Per embedder, the quantile of the meanings of the passages in the same script (each chunk's script:
#: `segment.dominant_script`) that the relevance floor reads its meaning above (`ranking.above_background`).
#: e5-small gives a question a higher cosine with every passage in the question's own script; its lowest
#: tenth is what a passage in that script earns anyway. Chosen with the floor 0.20 on the dev halves of the
#: polyglot set and of Debian's translated manual pages (`bench/tune_e5_background.py`): the most "no good
#: match" to the polyglot set's off-topic and nonsense questions while the answerable ones of both stay
#: where they were; the median says it to more off-topic questions but costs the manual pages' questions
#: (docs/evaluation.md, "Memory in other languages"). MiniLM: none, its arithmetic is untouched.
SCRIPT_BACKGROUND = {E5_SMALL: 0.1}
#: How each multilingual reader's cosine for a passage not in English (any passage, for a question not in
#: English) is put on MiniLM's scale, for an index whose embedder reads English only (`multilingual_similarity`).
#: ``scale``: (reader's cosine, MiniLM cosine) at the same quantiles (0, 10, 25, 50, 75, 90, 95, 99, 99.5,
#: 99.9, 100%) of both models' cosines over every (question, passage) pair of the assistant, team and research
#: sets' dev questions, all English, which both read (docs/embedders.md, "Notes in other languages in an
#: English memory"), so the relevance floor and the keyword weight mean for these passages what they mean for
#: the others. ``same`` and ``other``: what a cosine is moved by before the scale, within a language other
#: than English and across two languages.
#:
#: - e5-small: the difference of the median cosine of a question's answering passage (dev questions) for
#:   English with English (the three sets above: 0.852) to that within another language (0.885) and for an
#:   English question with a passage in another language (0.827; both the polyglot set's).
#: - Universal Sentence Encoder multilingual v3 (`muse`): +0.05 within a language, none across. The same medians
#:   (0.261, 0.388, 0.312) would move it by −0.127 and −0.051: that lost 11 of the 53 answerable dev questions
#:   of the polyglot set (MiniLM's index) that no shift finds (its notes are a few lines, and a short note's
#:   cosines sit higher whatever its language). Of eleven pairs tried on those dev questions (−0.127 to +0.1),
#:   +0.05 / 0 found the most (55 of 64) of those that answer no more off-topic questions than no shift (8 of
#:   40); a shift across languages above 0 found more and answered more of them (docs/embedders.md).
MULTILINGUAL_READINGS = {
    E5_SMALL: {"scale": np.array([(0.681, 0.0), (0.749, 0.022), (0.765, 0.067), (0.782, 0.131), (0.801, 0.211),
                                  (0.820, 0.311), (0.833, 0.384), (0.859, 0.525), (0.869, 0.577), (0.892, 0.663),
                                  (0.922, 0.830), (1.0, 1.0)]),
               "same": 0.852 - 0.885, "other": 0.852 - 0.827},
    MUSE: {"scale": np.array([(-0.145, 0.0), (-0.034, 0.022), (0.004, 0.067), (0.054, 0.131), (0.118, 0.211),
                              (0.184, 0.311), (0.238, 0.384), (0.342, 0.525), (0.393, 0.577), (0.462, 0.663),
                              (0.502, 0.830), (1.0, 1.0)]),
           "same": 0.05, "other": 0.0},
}
#: For an English query, a passage not in English is ranked by its meaning alone when keywords would lower it
#: (convex fusion; the explanation says so, ``fusion.meaning_alone``): it cannot share the query's words, and a
#: keyword part of 0 would cost it 0.4 of its similarity. Not for a
#: query in another language: a short question's language is told less surely, and Debian's Chinese and
#: Japanese manual pages lost 2-6 points of top-5 in their own language (docs/embedders.md).
ACROSS_BY_MEANING = True
#: An answer whose best keyword match holds at least this share of the query's words, weighted by
#: rarity (`keyword_coverage`), is a match whatever its meaning's cosine (`ranking.match_evidence`).
KEYWORD_FLOOR = 0.45
#: An answer is a match too when one passage has both a meaning at most `PAIR_MARGIN` below the relevance
#: floor and at least `PAIR_COVERAGE` of the query's words: two weaker signals agreeing on one passage ("How
#: fast do I have to acknowledge a page at night?" and the on-call runbook: 0.32 and 34%; with MiniLM's 0.44,
#: cosine 0.30). Chosen on the everyday sets' dev half and LoCoMo conversations 0-4 together
#: (docs/evaluation.md, "Abstention on everyday memory"); a higher `min_score` asks more of it too.
PAIR_MARGIN, PAIR_COVERAGE = 0.14, 0.33
#: A passage in another language than the question's, read by the multilingual reader, is a match when it is
#: the best by meaning, at most `PAIR_MARGIN` below the relevance floor, and at least `ACROSS_GAP` above the
#: `ACROSS_RANK`-th best passage: it stands out from what every passage earns, where a reader's cosines across
#: two languages sit lower than within one ("Where are the winter tyres stored?" and the German note on the car,
#: 0.42 against 0.21). Chosen on the everyday sets' dev half from the evidence of one run replayed (gap 0.05-0.20,
#: rank 5-20, floor 0.30-0.40): the most answered without answering one more off-topic dev question
#: (docs/evaluation.md, "A passage that stands out across languages").
ACROSS_GAP, ACROSS_RANK = 0.20, 5
#: For a question about a time alone ("what happened last week"), how much of the similarity is given:
#: its words say nothing of what is wanted, so meaning only orders the memories of that time
#: (similarity = base + (1 − base) × fused similarity; the time factor puts that time first).
TIME_ONLY_BASE = 0.5
#: Per date source (`dates.SOURCES`), how far its date is trusted (`dates.STRENGTH`).
DATE_STRENGTH = np.array(dates.STRENGTH, dtype=np.int8)
#: A question that gathers from several memories (`keywords.GATHERING`) is read again as its query vector
#: plus this times the mean of the best passage of each of its best files (`[search] feedback_files`;
#: `ranking.widened_query`). Measured on every set with 3 files (docs/evaluation.md, "A question that gathers"):
#: 1.0 found more than 0.5 on LongMemEval, 2.0 lost an everyday question.
FEEDBACK_WEIGHT = 1.0
#: How many of the best chunks are compared for knowledge updates (`ranking.supersessions`).
SUPERSESSION_CANDIDATES = 50


def similarity_scale(embedder_name: str | None) -> float:
    """The cosine where an embedder's similarity scale starts (`SIMILARITY_SCALES`); 0: its cosine as it is."""
    return SIMILARITY_SCALES.get(embedder_name or "", 0.0)


def relevance_floor(embedder_name: str) -> float:
    """The default `min_score` for an embedder: measured for MiniLM, none (0) for the others.

    0.41 with the keyword floor says "no good match" to 84% of LoCoMo's
    questions about other conversations and to all nonsense queries, at a cost
    of 0.011 session R@5 on the answerable ones (conversations 0-1, `tachikoma eval
    abstention`, docs/evaluation.md). e5-small's floor is on its scaled similarity
    (`similarity_scale`), measured on the polyglot set. Cosines of other models live
    on other scales, so they get no floor until measured.
    """
    return MEASURED_FLOORS.get(embedder_name, 0.0)



def _supersede(snap: Snapshot, similarity, file_weight, rec, mask, evergreen, rule, limit, words=None,
               asked=None, c0: float = 0.0):
    """Recency × `rule.superseded` for the best candidates that a newer one supersedes; also, per
    chunk, the position of the chunk that supersedes it (-1: none). `words(chunk ids)` says which
    query words each candidate holds (`words_held`); None: not known. `asked` (N,) bool marks chunks
    from the time the query asks about: "what did we decide in February" wants February's answer,
    so those are never superseded. `c0`: the embedder's scale (`similarity_scale`), for the chunks' cosines
    with each other too."""
    superseded_by = np.full(similarity.shape[0], -1, dtype=np.int64)
    if rule.half_life_days is None or rule.superseded >= 1:
        return rec, superseded_by
    weight = np.where(mask, similarity * file_weight[snap.chunk_file] * rec, -1.0)
    m = min(int(mask.sum()), max(2 * limit, SUPERSESSION_CANDIDATES))
    if m < 2:
        return rec, superseded_by
    top = np.argpartition(-weight, m - 1)[:m]
    files = snap.chunk_file[top]
    eligible = ~evergreen[files] if asked is None else ~evergreen[files] & ~asked[top]
    by = ranking.supersessions(similarity[top], snap.matrix[top], snap.date[top], files, eligible,
                               snap.kinds[files] == "transcript",
                               words(snap.chunk_ids[top]) if words is not None else None,
                               strength=DATE_STRENGTH[snap.date_source[top]], weight=file_weight[files],
                               c0=c0)
    hit = by >= 0
    superseded_by[top[hit]] = top[by[hit]]
    rec = rec.copy()
    rec[top[hit]] *= rule.superseded
    return rec, superseded_by


def tier_similarity(snap: Snapshot, vector: np.ndarray, quick_qvec: np.ndarray | None) -> np.ndarray:
    """(N,) each chunk's cosine with the query by the best vectors it has: the full model's, else the
    quick tier's mapped onto the full model's scale (so the relevance floor and the fusion weights keep
    their meaning), else 0 (keyword search only)."""
    vector = np.where(snap.tier == FULL, vector, 0.0)
    if snap.quick is not None and quick_qvec is not None:
        from ..embedders import static

        quick = snap.tier == QUICK
        cosines = np.clip(np.asarray(snap.quick[quick]) @ quick_qvec, 0.0, 1.0).astype(np.float64)
        vector[quick] = static.calibrate(cosines)
    return vector


def language_shift(languages: np.ndarray, language: str, reader: str) -> np.ndarray:
    """(N,) what the multilingual `reader`'s cosine of a query in `language` ("" English) with each passage in
    `languages` (`embedders.auto.passage_language`, "" English) is moved by (`MULTILINGUAL_READINGS`): its
    ``same`` within a language other than English, its ``other`` across two languages, 0 for English with
    English."""
    reading = MULTILINGUAL_READINGS[reader]
    same = languages == language
    return np.where(same, 0.0 if language == "" else reading["same"], reading["other"])


def multilingual_similarity(cosines: np.ndarray, languages: np.ndarray, language: str, reader: str) -> np.ndarray:
    """The similarity of passages (in `languages`, "" English) from the multilingual `reader`'s `cosines` with a
    query in `language`: moved by their pair of languages (`language_shift`), then put on MiniLM's scale
    (`MULTILINGUAL_READINGS`)."""
    scale = MULTILINGUAL_READINGS[reader]["scale"]
    shifted = cosines + language_shift(languages, language, reader)
    return np.interp(shifted, scale[:, 0], scale[:, 1])


def ranked_dates(snap: Snapshot, cfg) -> tuple[np.ndarray, np.ndarray]:
    """(N,) the date of each chunk the ranking counts an age from, and that date's source: the memory's
    own date, or (the seed's rule, `[ranking]` `cfg`) its last modification. A result's ``date``."""
    if cfg.rule.modified and snap.modified is not None:
        return snap.modified, snap.modified_source
    return snap.date, snap.date_source


def rank_snapshot(snap: Snapshot, qvec: np.ndarray, limit: int, config: Config,
                  filters: Filters | None = None, now: datetime | None = None,
                  keyword: np.ndarray | None = None, min_score: float = 0.0,
                  exclude: np.ndarray | None = None, words=None, coverage=None,
                  keyword_floor: float = KEYWORD_FLOOR, windows=(), tool_share: np.ndarray | None = None,
                  quick_qvec: np.ndarray | None = None, decide: bool = True, time_only: bool = False,
                  multi_qvec: np.ndarray | None = None, language: str = "", gather: int = 0,
                  feedback: dict | None = None, asker: bool = False) -> dict:
    """Score all chunks of a snapshot against a query vector; explain the top `limit`.

    Chunks not fully embedded yet (`Snapshot.tier`) are compared in the quick
    tier's space with `quick_qvec` (the query embedded by the quick model;
    cosines mapped onto the full model's scale, `static.calibrate`), or by
    keywords only; their factors say which (``vectors``).

    `keyword`: per-chunk keyword relevance in 0..1 (`keyword_scores`); None
    counts as no keyword match anywhere. Chunks sharing nothing with the
    query are left out, as are the chunks of files flagged in `exclude` (F,).
    The relevance floor decides for the whole answer (`ranking.match_evidence`,
    returned as ``match``): no chunk reaching `min_score` in meaning, nor
    `keyword_floor` in keyword `coverage` (`keyword_coverage`, or a function
    giving it, called only when meaning does not decide; None: 0), means
    no results at all; otherwise no result is removed for its own low cosine.
    `words(chunk ids)` → (chunks × query words) bool tells knowledge updates
    which query words a candidate holds (`words_held`); None leaves the word conditions out.
    `windows`: the times the query asks about (`timeq.read`); each chunk's date gives it a time factor.
    `time_only`: the query asks about those times and nothing else ("what happened last week"): a
    memory from them is a good match (`ranking.match_evidence`); or about a window still to come and nothing
    else ("what's on next week?", no `windows`): `Searcher.search` decides it from the days passages name.
    `tool_share` (N,): the share of each chunk's keyword score its tool texts gave (`keyword_parts`),
    shown as ``keyword_in_tools`` where it is not 0.
    `multi_qvec`: the query embedded by the multilingual embedder, for the chunks it read (`Snapshot.multi_rows`,
    `multilingual_similarity`): those not in English take that embedder's meaning, and every one it read for a
    query not in English; `language`: the query's language when it is not English
    (`function_words.language_of`), "" for English.
    `gather`: for a question that gathers from several memories (`keywords.GATHERING`), how many of its best
    files (those of its best results as it ranks them alone: similarity, tags, recency and time) widen the
    query with their best passages (`ranking.widened_query`; 0: none). Only the meaning of passages read
    by this index's own full vectors changes; "no good match" is decided on the question's own meaning, which
    a widened result shows as ``meaning_from_question``. The answer's ``feedback`` is None or the widened
    query vector and its files (``query``, ``files``, and their positions in the snapshot's files,
    ``file_positions``); given back as `feedback`, it widens the query again without choosing the files
    anew (the searcher's second shortlist for it, on a large index).
    `asker`: the question is about its asker (`voice.about_asker`): a passage with the agent's turns alone
    (`Snapshot.voices`) scores × `[ranking] agents_words`, shown as ``agents_words``.
    """
    cfg = config.ranking
    fusion = config.search
    now = now or datetime.now().astimezone()
    now_ts = now.timestamp()
    c0 = similarity_scale(snap.embedder)
    cosine = snap.matrix @ qvec if len(snap.chunk_ids) else np.empty(0)
    vector = ranking.rescaled(cosine, c0) if c0 else np.clip(cosine, 0.0, 1.0).astype(np.float64)
    if snap.tier is not None:  # some chunks are not fully embedded yet: their best vectors, else keywords only
        vector = tier_similarity(snap, vector, quick_qvec)
    multi = snap.multi_rows is not None and multi_qvec is not None
    if multi:  # passages not in English (any, for a query not in English): by the multilingual embedder
        read = snap.multi_read(language)
        multi_cosine = np.zeros(len(read))  # of the rows it reads only (an English query: not English ones)
        multi_cosine[read] = snap.multi_matrix[read] @ multi_qvec
        vector[snap.multi_rows[read]] = multilingual_similarity(multi_cosine[read], snap.multi_language[read],
                                                                language, snap.multi_embedder)
    if keyword is None:
        keyword = np.zeros(vector.shape[0])
    # As of means as of: a memory whose own date (not a file time or an import's commit, which say
    # nothing of when it was written) is after the day of "now" did not exist yet, so it is no result
    # and supersedes nothing. The day, not the second: "as of 2026-10-10T09:00" still knows the notes
    # of that day (LongMemEval's evidence is often dated hours after its question, on the same day).
    weak_date = DATE_STRENGTH[snap.date_source] == 0  # an import's commit or a file time
    allowed = (snap.date < timeq.end_of_day(now)) | weak_date
    if exclude is not None:
        allowed &= ~exclude[snap.chunk_file]
    extra = filters.mask(snap) if filters else None
    if extra is not None:
        allowed &= extra
    trust_w, conf_w = snap.tag_weights(cfg)
    rule = cfg.rule
    # The age recency counts: from the memory's own date, or (the seed's rule) from its last modification.
    by_modification = rule.modified and snap.modified is not None
    aged, aged_source = ranked_dates(snap, cfg)
    age_days = np.maximum(now_ts - aged, 0.0) / DAY
    evergreen = snap.evergreen_files(cfg.evergreen)
    rec = ranking.recency_rule(age_days, evergreen[snap.chunk_file], rule, weak=None if by_modification else weak_date)
    outside = timeq.OUTSIDE_TIME_ONLY if time_only else timeq.OUTSIDE
    in_time, nearest = timeq.factor(snap.date, list(windows), outside, sharp=time_only)
    if windows:  # a weak date (an import's commit, a file time) says when the file was copied, not what it is from
        in_time = np.where(weak_date, np.minimum(in_time, outside), in_time)
    similarity = ranking.fuse(vector, keyword, fusion)
    from_question = vector  # the meaning of the question alone decides "no good match"
    shared = similarity > 0  # the chunks that share something with the question itself, not only widened
    own = None  # when widened: the passages read again (the index's own full vectors)
    if (gather > 0 or feedback) and len(vector):
        own = np.ones(len(vector), dtype=bool)  # passages whose meaning is this index's own full vectors'
        if snap.tier is not None:
            own &= snap.tier == FULL
        if multi:
            own[snap.multi_rows[read]] = False
        if feedback is None:  # the files of the question's best results, as it ranks them alone (tags count)
            best = ranking.rank(similarity, snap.chunk_file, trust_w * conf_w, gather, per_file=1,
                                mask=allowed & own & shared, chunk_weight=rec * in_time).chunks
            if len(best):
                feedback = {"query": ranking.widened_query(qvec, snap.matrix[best], FEEDBACK_WEIGHT),
                            "files": [str(snap.paths[snap.chunk_file[p]]) for p in best],
                            "file_positions": [int(snap.chunk_file[p]) for p in best]}
        if feedback is not None:
            wide = snap.matrix @ feedback["query"]
            widened = ranking.rescaled(wide, c0) if c0 else np.clip(wide, 0.0, 1.0).astype(np.float64)
            vector = np.where(own, widened, from_question)
            cosine = np.where(own, wide, cosine)  # what a widened meaning was read from (``meaning_scale``)
            similarity = ranking.fuse(vector, keyword, fusion)
    alone = None  # (N,) bool: the passages whose similarity is their meaning alone (`ACROSS_BY_MEANING`)
    if multi and ACROSS_BY_MEANING and not language and fusion.fusion == "convex":
        alone = np.zeros(len(vector), dtype=bool)
        across = snap.multi_rows[read]  # for an English query, the passages not in English
        alone[across] = vector[across] > similarity[across]
        similarity = np.where(alone, vector, similarity)
        shared |= alone
    method = {"method": fusion.fusion, "keyword_weight": fusion.keyword_weight}
    if fusion.fusion == "rrf":
        method["rrf_k"] = fusion.rrf_k
    if time_only:
        similarity = TIME_ONLY_BASE + (1.0 - TIME_ONLY_BASE) * similarity
        method["time_only_base"] = TIME_ONLY_BASE
    mask = allowed & (similarity > 0)  # a chunk that shares nothing with the query is not a match
    asked = in_time >= 1.0 if windows else None  # the memories from the time the query names
    # Quick vectors rank, but never decide by meaning alone that an answer has a good match: mapped onto
    # the full model's scale they still lift made-up words over the floor ("qwertyuiop asdfghjkl": 0.60).
    meaning = from_question if snap.tier is None else np.where(snap.tier == FULL, from_question, 0.0)
    background = snap.scripts is not None and snap.embedder in SCRIPT_BACKGROUND
    if background:  # measured from what the passages in the same script earn anyway (the allowed ones)
        meaning = ranking.above_background(meaning, snap.scripts, allowed, SCRIPT_BACKGROUND[snap.embedder])
    # "No good match" is the question's own: the chunks it shares something with decide (`mask` as it is
    # when the question is not widened), every allowed one for a question about a time alone.
    decides = allowed if time_only else allowed & shared
    weaker = round(max(min_score - PAIR_MARGIN, 0.0), 4)
    across = None  # the passages the multilingual reader read in another language than the question's
    if multi and min_score > 0:
        def is_across(position: int) -> bool:
            at = np.flatnonzero(snap.multi_rows[read] == position)
            return bool(len(at)) and snap.multi_language[read][at[0]] != language
        across = (is_across, weaker, ACROSS_GAP, ACROSS_RANK)
    match = ranking.match_evidence(meaning, coverage, decides, min_score, keyword_floor,
                                   asked if time_only else None, pair=(weaker, PAIR_COVERAGE), across=across)
    if extra is not None and not extra.any():
        match["filtered_out"] = True  # no file passes the search's filters: nothing to decide on
    if background:
        match["meaning_from"] = f"the {SCRIPT_BACKGROUND[snap.embedder]:.0%} quantile of the passages in its script"
    if snap.tier is not None and (snap.tier != FULL).any():
        match["meaning_from_full_vectors_only"] = True
    if match["answered_by"] is None and decide:  # (`decide` False: the caller decides, over several answers)
        mask = np.zeros_like(mask)
    rec, superseded_by = _supersede(snap, similarity, trust_w * conf_w, rec, mask, evergreen, rule, limit, words,
                                    asked=asked, c0=c0)
    chunk_weight = rec * in_time if windows else rec
    voiced = None  # (N,) the agent's-words factor, where it applies
    if asker and snap.voices is not None and cfg.agents_words < 1:
        voiced = np.where(snap.voices == voice.AGENT_ONLY, cfg.agents_words, 1.0)
        chunk_weight = chunk_weight * voiced
    ranked = ranking.rank(similarity, snap.chunk_file, trust_w * conf_w, limit,
                          cfg.per_file, cfg.repeat_penalty, mask, chunk_weight=chunk_weight)
    factors = []
    for pos, penalty in zip(ranked.chunks, ranked.penalty):
        f = snap.chunk_file[pos]
        factors.append({
            "similarity": float(similarity[pos]),
            "vector_similarity": float(vector[pos]), "keyword_score": float(keyword[pos]), "fusion": dict(method),
            "trust": snap.trust[f], "trust_weight": float(trust_w[f]),
            "confidence": snap.confidence[f], "confidence_weight": float(conf_w[f]),
            "age_days": float(age_days[pos]), "date_source": dates.SOURCES[aged_source[pos]],
            "date_trust": dates.TRUST[dates.SOURCES[aged_source[pos]]],
            "date": datetime.fromtimestamp(aged[pos], timezone.utc).isoformat(timespec="seconds"),
            "recency": float(rec[pos]), "recency_rule": cfg.recency,
            "recency_reason": ("off" if rule.half_life_days is None else "evergreen" if evergreen[f] else
                               "superseded" if superseded_by[pos] >= 0 else "age"),
            "time": float(in_time[pos]),
            "time_reason": timeq.explain(float(in_time[pos]), float(snap.date[pos]),
                                         windows[nearest[pos]] if windows else None, now.tzinfo, bool(weak_date[pos])),
            "duplicate_penalty": float(penalty),
        })
        if c0:  # what the meaning was read from: the cosine, on the embedder's scale
            factors[-1]["meaning_scale"] = {"cosine": float(cosine[pos]), "c0": c0}
        if multi and (at := int(np.searchsorted(snap.multi_rows, pos))) < len(snap.multi_rows) \
                and snap.multi_rows[at] == pos and read[at]:  # read by the multilingual embedder, on this one's scale
            factors[-1]["read_by"] = {"embedder": snap.multi_embedder, "cosine": float(multi_cosine[at]),
                                      "language": str(snap.multi_language[at]) or "English",
                                      "query_language": language or "English"}
        if feedback is not None and own[pos]:  # read again with the widened question
            factors[-1]["meaning_from_question"] = float(from_question[pos])
        if alone is not None and alone[pos]:
            factors[-1]["fusion"]["meaning_alone"] = True
        if tool_share is not None and tool_share[pos] > 0:
            factors[-1]["keyword_in_tools"] = float(tool_share[pos])
        if snap.tier is not None and snap.tier[pos] != FULL:  # absent once every chunk has its full vector
            factors[-1]["vectors"] = TIER_NAMES[int(snap.tier[pos])]
        if voiced is not None and voiced[pos] < 1:
            factors[-1]["agents_words"] = float(voiced[pos])
        if superseded_by[pos] >= 0:
            newer = superseded_by[pos]
            factors[-1]["superseded_by"] = {
                "path": str(snap.paths[snap.chunk_file[newer]]),
                "date": datetime.fromtimestamp(snap.date[newer], timezone.utc).isoformat(timespec="seconds")}
    return {"positions": ranked.chunks.tolist(), "scores": [float(s) for s in ranked.scores], "factors": factors,
            "match": match, "feedback": feedback}
