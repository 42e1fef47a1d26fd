"""Search: embed the query, score every chunk, rank, explain.

Relevance is hybrid: the cosine similarity of the query's embedding with
every chunk, fused with SQLite FTS5's BM25 over the same chunks (the
`chunks_fts` table, kept in sync by triggers). The keyword part asks FTS5
only for its best `keyword_candidates` matches, and the MATCH expression is
built here from the query's words, each one quoted, so no user text is ever
read as FTS5 query syntax (see `keyword_expression`).

A `Searcher` keeps the vectors of the index in memory between queries (the
dashboard holds one for its lifetime) and reloads them only when the index
changes. The command line builds one per query (a cold search).
"""

from __future__ import annotations

import os
import threading
import time
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from . import dates, ranking, timeq
from .config import Config, load_config
from .embedders import MINILM, MINILM_INT8, choose
from .embedders.base import Embedder
from .errors import BadQuery, NoIndexYet, TachikomaError
from .globs import name_or_path_mask
from . import vector_index
from .store import (ENGINE_INDEX_MIN_CHUNKS, Location, Store, keyword_expression, locate,  # noqa: F401
                     quote_term)  # (re-exported)
from .tags import Tags

DAY = 86400.0
#: A searcher that lives on (dashboard, MCP) re-counts the files changed since the last index run
#: at most this often while the index is unchanged; a walk of the folder costs a stat per file.
FRESHNESS_SECONDS = 2.0
#: The relevance floor measured per embedder (see `relevance_floor`). Both floors were chosen
#: together by `tachikoma eval abstention` on all ten LoCoMo conversations: 0.41 with the keyword
#: floor 0.6 costs 0.003 session R@5 and says "no good match" to 81% of questions asked of the wrong
#: conversation and to every nonsense query. int8's curve is the exact model's within 0.006.
MEASURED_FLOORS = {MINILM: 0.41, MINILM_INT8: 0.41}
#: An answer whose best keyword match holds at least this share of the query's words, weighted by
#: rarity (`keyword_coverage`), is a match whatever its meaning's cosine (`ranking.match_evidence`).
KEYWORD_FLOOR = 0.6
#: How many nearest chunks the engine's own vector index hands to the exact ranking, from
#: `store.ENGINE_INDEX_MIN_CHUNKS` chunks (measured at 1M: HNSW 1,000 recall 0.987, 400 0.947).
ENGINE_SHORTLIST = 1_000
#: Re-rankings after finding result files missing before every file is checked.
MISSING_ROUNDS = 3

#: At most this many distinct words of a query are looked up by keyword.
MAX_KEYWORD_TERMS = 32
#: Budget of matching rows (postings) one keyword query may rank. Words are
#: taken rarest first while their document frequencies fit; FTS5 scores every
#: row a word matches, so a word found in most of a large memory would cost
#: more than the whole vector search (its BM25 weight is small anyway).
KEYWORD_POSTINGS = 5_000
#: `words_held` reads every chunk holding a word found in at most this many chunks, and looks the
#: candidates up one by one for a commoner word (measured at 126k chunks: crossover near 20,000).
WORDS_HELD_SCAN = 5_000
_TOKEN_CATEGORIES = ("L", "N", "M")
#: English function words left out of keyword queries. BM25's IDF already
#: discounts them in a large memory, but in a small one ("what", "did" in a
#: third of the chunks) they still add noise: on LoCoMo-10 dropping them lifts
#: keyword-only session R@5 from 0.863 to 0.876 (docs/evaluation.md). The
#: vector part always sees the whole query.
STOPWORDS = frozenset("""
a an the is are was were be been being do does did done have has had what when where who whom which why how
to of in on at for with about from by as and or but not it its this that these those i you he she we they
me him her us them my your his our their there here will would can could should shall may might must also
just so than then very
""".split())


def query_terms(text: str, limit: int = MAX_KEYWORD_TERMS, skip: frozenset[str] = frozenset()) -> list[str]:
    """The distinct words of `text` (letters, digits, combining marks), first seen first.

    Everything else (spaces, punctuation, quotes, operators such as ``*`` or
    ``^``, symbols, emoji, control characters) separates words. Case-folded
    duplicates and words whose case-folded form is in `skip` are dropped,
    except a capitalised word after the first one: there "May" is a month and
    "Will" a name, not a function word.
    """
    terms, seen, current = [], set(), []
    first = True

    def close() -> None:
        nonlocal first
        if current:
            word = "".join(current)
            key = word.casefold()
            # A capitalised stop word after the first word is a name or a month ("in May", "Will said").
            skipped = key in skip and (first or len(word) < 2 or not word[:1].isupper())
            first = False
            if key not in seen and not skipped:
                seen.add(key)
                terms.append(word)
            current.clear()

    for ch in text:
        category = unicodedata.category(ch)
        if category[0] in _TOKEN_CATEGORIES or category == "Co":
            current.append(ch)
        else:
            close()
        if len(terms) >= limit:
            break
    if len(terms) < limit:
        close()
    return terms[:limit]


class WordRows:
    """Each query word's chunks in the keyword index, read at most once per search: the keyword terms
    count a word, and keyword coverage and knowledge updates ask which chunks hold it (three or four
    reads of the same rows before)."""

    def __init__(self, store: Store, limit: int = WORDS_HELD_SCAN):
        self.store, self.limit, self._rows = store, limit, {}

    def rows(self, term: str) -> list[int] | None:
        """The ids of the chunks holding `term` (as the keyword index reads it); None when more than
        `limit` do."""
        if term not in self._rows:
            found = self.store.chunks_holding(term, self.limit + 1)
            self._rows[term] = None if len(found) > self.limit else found
        return self._rows[term]

    def rows_of(self, terms: list[str]) -> list[list[int] | None]:
        """`rows` of each of `terms`, those not read yet in one call (one round trip on PostgreSQL)."""
        unread = [term for term in dict.fromkeys(terms) if term not in self._rows]
        for term, found in zip(unread, self.store.chunks_holding_each(unread, self.limit + 1)):
            self._rows[term] = None if len(found) > self.limit else found
        return [self._rows[term] for term in terms]


def keyword_terms(store: Store, query: str, total_chunks: int,
                  postings: int = KEYWORD_POSTINGS, counts: dict[str, int] | None = None,
                  words: WordRows | None = None) -> list[str]:
    """The words of `query` that keyword search uses, rarest first.

    English function words (`STOPWORDS`) are left out. Each other word's
    document frequency is counted first (cheaply, capped). Words in more than
    half of the chunks are left out too (except in a memory of one chunk):
    FTS5 gives them no BM25 weight, so they would only add matches scored
    zero. The rest are used rarest first while their frequencies fit the
    `postings` budget. `counts`, when given, gets each word's count (capped past half of the chunks).
    `words` reads each word once for the whole search.
    """
    terms = query_terms(query, skip=STOPWORDS)
    if not terms or total_chunks <= 0:
        return []
    ceiling = min(max(total_chunks // 2, 1), postings)  # a memory of one chunk still matches its words
    if words is not None and ceiling <= words.limit:
        found = words.rows_of(terms)
        known = [ceiling + 1 if rows is None else min(len(rows), ceiling + 1) for rows in found]
    else:
        known = store.keyword_counts(terms, ceiling + 1)  # one round trip for all the words
    return rarest_within(terms, known, ceiling, postings, counts)


def rarest_within(terms: list[str], known: list[int], ceiling: int, postings: int,
                  counts: dict[str, int] | None = None) -> list[str]:
    """The words found in 1 to `ceiling` places (`known`: each word's capped count), rarest first,
    while their counts fit the `postings` budget; `counts`, when given, gets every word's count."""
    frequencies = []
    for term, count in zip(terms, known):
        if counts is not None:
            counts[term] = count
        if 0 < count <= ceiling:
            frequencies.append((count, term))
    kept, used = [], 0
    for count, term in sorted(frequencies, key=lambda pair: pair[0]):
        if used + count > postings:
            break
        kept.append(term)
        used += count
    return kept


def keyword_search(store: Store, query: str, total_chunks: int, limit: int | None,
                   postings: int = KEYWORD_POSTINGS, terms: list[str] | None = None) -> list[tuple[int, float]]:
    """(chunk id, bm25) of the best keyword matches for `query`, best first, using its
    `keyword_terms` (or `terms` when the caller already has them).
    `limit` None returns every match (the evaluation's BM25 baseline).
    """
    kept = keyword_terms(store, query, total_chunks, postings) if terms is None else terms
    if not kept:
        return []
    return store.keyword_matches(kept, limit)


# ---------------------------------------------------------------- tool texts (keyword only)

#: How many tool texts of one result its answer names (the best matches first).
TOOL_MATCHES_SHOWN = 3
#: A result shows an excerpt of its best tool text when tool texts gave at least this share of its keyword
#: score (reading it back costs a read of the transcript up to that line).
TOOL_EXCERPT_SHARE = 0.5


@dataclass(frozen=True)
class ToolMatch:
    """A tool text (`documents.ToolText`) holding query words, and the chunk whose turn made the call."""

    chunk_id: int
    bm25: float
    tool: str
    side: str  # "input" or "output"
    line: int  # the file line of the record holding the text

    def as_dict(self) -> dict:
        return {"tool": self.tool, "side": self.side, "line": self.line}


def tool_terms(store: Store, query: str, total: int, counts: dict[str, int] | None = None,
               postings: int = KEYWORD_POSTINGS) -> list[str]:
    """The words of `query` looked up in tool texts, rarest first: `keyword_terms`' rules, over the
    `total` tool texts (a word in more than half of them has no weight). `counts` gets each word's count."""
    terms = query_terms(query, skip=STOPWORDS)
    if not terms or total <= 0:
        return []
    ceiling = min(max(total // 2, 1), postings)
    known = store.tool_keyword_counts(terms, ceiling + 1)  # one round trip on PostgreSQL
    return rarest_within(terms, known, ceiling, postings, counts)


def tool_search(store: Store, terms: list[str], limit: int) -> list[ToolMatch]:
    """The best `limit` tool texts holding any of `terms` (`tool_terms`), best first."""
    if not terms:
        return []
    return [ToolMatch(int(r[0]), float(r[1]), r[2], r[3], int(r[4])) for r in store.tool_matches(terms, limit)]


def tool_words_held(store: Store, query: str, chunk_ids: np.ndarray) -> np.ndarray:
    """`words_held` for the chunks' tool texts: which query words each chunk's tool texts hold."""
    terms = query_terms(query, skip=STOPWORDS)
    ids = np.asarray(chunk_ids, dtype=np.int64)
    held = np.zeros((ids.shape[0], len(terms)), dtype=bool)
    if not terms or not ids.shape[0]:
        return held
    for column, term in enumerate(terms):
        rows = store.chunks_holding_in_tools(term, WORDS_HELD_SCAN + 1)
        if len(rows) > WORDS_HELD_SCAN:
            rows = store.chunks_holding_in_tools(term, WORDS_HELD_SCAN + 1, among=ids.tolist())
        held[:, column] = np.isin(ids, rows)
    return held


def words_held(store: Store, query: str, chunk_ids: np.ndarray, words: WordRows | None = None) -> np.ndarray:
    """(len(chunk_ids), query words) bool: which words of `query` (function words aside) each chunk
    holds, as the keyword index reads them (stemmed: "runs" holds "run"). One lookup per word,
    restricted to the given chunks (`ranking.supersessions` asks about a few dozen). `words`: the
    search's rows of each word, read once."""
    terms = query_terms(query, skip=STOPWORDS)
    ids = np.asarray(chunk_ids, dtype=np.int64)
    held = np.zeros((ids.shape[0], len(terms)), dtype=bool)
    if not terms or not ids.shape[0]:
        return held
    words = words if words is not None and words.limit == WORDS_HELD_SCAN else WordRows(store)
    for column, term in enumerate(terms):
        # A word in at most `WORDS_HELD_SCAN` chunks: read all of them (a fraction of a millisecond).
        rows = words.rows(term)
        if rows is None:
            # A common word: look each chunk up instead (for a rare word that was 15x slower on SQLite
            # than reading it all).
            rows = store.chunks_holding_among(term, ids.tolist())
        held[:, column] = np.isin(ids, rows)
    return held


#: Keyword coverage is read for the best keyword matches only (the same number as the search's own
#: `keyword_candidates` default): the chunk holding most of the query's rare words is among BM25's first.
COVERAGE_CANDIDATES = 200


def keyword_coverage(store: Store, query: str, snap: "Snapshot",
                     matches: list[tuple[int, float]], counts: dict[str, int] | None = None,
                     tool_matches: list[ToolMatch] = (), words=None) -> np.ndarray:
    """(N,) the share of the query's words (function words aside) each keyword match holds, each word
    weighted by its rarity in the memory (BM25's idf: a word found nowhere weighs most); 0 elsewhere.

    Unlike the keyword score, which is relative (the query's best match is 1
    however poor), this is absolute: a question about someone the memory never
    mentions leaves that name's weight out of every chunk, while an identifier
    or a date that a note holds covers the whole query. Read for the first
    `COVERAGE_CANDIDATES` matches (and of `tool_matches`, whose chunks hold
    the words of their tool texts as `words(chunk ids)` says; default
    `words_held`); `counts` are the word counts (each word is counted here otherwise)."""
    coverage = np.zeros(len(snap.chunk_ids))
    terms = query_terms(query, skip=STOPWORDS)
    total = snap.chunk_count
    if not terms or not (matches or tool_matches) or not len(snap.chunk_ids):
        return coverage
    ids = np.array(list(dict.fromkeys([m[0] for m in matches[:COVERAGE_CANDIDATES]]
                                      + [m.chunk_id for m in tool_matches[:COVERAGE_CANDIDATES]])), dtype=np.int64)
    cap = min(max(total // 2, 1), KEYWORD_POSTINGS)
    if counts is None:
        counts = dict(zip(terms, store.keyword_counts(terms, cap + 1)))
    df = np.array([counts.get(t, 0) for t in terms], dtype=np.float64)
    df = np.where(df > cap, np.maximum(df, total / 2), df)  # past the cap: a common word, weighed as one
    idf = np.log((total - df + 0.5) / (df + 0.5) + 1.0)
    held = words(ids) if words is not None else words_held(store, query, ids)
    share = held.astype(np.float64) @ idf / idf.sum()
    pos = np.minimum(np.searchsorted(snap.chunk_ids, ids), len(snap.chunk_ids) - 1)
    known = snap.chunk_ids[pos] == ids  # a chunk written after the snapshot is ignored
    coverage[pos[known]] = share[known]
    return coverage


def _positions(snap: "Snapshot", ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of chunk `ids` in the snapshot, and which are in it (one written after it is not)."""
    pos = np.minimum(np.searchsorted(snap.chunk_ids, ids), len(snap.chunk_ids) - 1)
    return pos, snap.chunk_ids[pos] == ids


def keyword_parts(snap: "Snapshot", matches: list[tuple[int, float]],
                  tool_matches: list[ToolMatch]) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk: keyword relevance (0..1) from its own text's matches and its tool texts' best match
    (`ranking.keyword_relevance_with_tools`), and the share of it that its tool texts gave."""
    n = len(snap.chunk_ids)
    if not tool_matches or not n:
        return keyword_scores(snap, matches), np.zeros(n)
    own, tool = np.full(n, np.nan), np.full(n, np.nan)
    if matches:
        pos, known = _positions(snap, np.array([m[0] for m in matches], dtype=np.int64))
        own[pos[known]] = np.array([m[1] for m in matches], dtype=np.float64)[known]
    pos, known = _positions(snap, np.array([m.chunk_id for m in tool_matches], dtype=np.int64))
    values = np.array([m.bm25 for m in tool_matches], dtype=np.float64)[known]
    best = np.zeros(n)
    np.minimum.at(best, pos[known], values)  # bm25 is negative: the lowest is a chunk's best tool text
    tool[pos[known]] = best[pos[known]]
    return ranking.keyword_relevance_with_tools(own, tool)


def keyword_scores(snap: "Snapshot", matches: list[tuple[int, float]]) -> np.ndarray:
    """Per-chunk keyword relevance (0..1) from `keyword_search` matches; unmatched chunks 0."""
    relevance = np.zeros(len(snap.chunk_ids))
    if matches and len(snap.chunk_ids):
        ids = np.array([m[0] for m in matches], dtype=np.int64)
        values = np.array([m[1] for m in matches], dtype=np.float64)
        pos = np.minimum(np.searchsorted(snap.chunk_ids, ids), len(snap.chunk_ids) - 1)
        known = snap.chunk_ids[pos] == ids  # a chunk written after the snapshot was taken is ignored
        relevance[pos[known]] = ranking.keyword_relevance(values[known])  # the rest: no match, 0
    return relevance


def relevance_floor(embedder_name: str) -> float:
    """The default `min_score` for an embedder: measured for MiniLM, none (0) for the others.

    0.41 with the keyword floor says "no good match" to 84% of LoCoMo's
    questions about other conversations and to all nonsense queries, at a cost
    of 0.011 session R@5 on the answerable ones (conversations 0-1, `tachikoma eval
    abstention`, docs/evaluation.md). Cosines of other models live on other
    scales, so they get no floor until measured.
    """
    return MEASURED_FLOORS.get(embedder_name, 0.0)


@dataclass
class Filters:
    kind: str | None = None  # "markdown" | "transcript"
    trust: str | None = None  # a trust value, or "missing"
    untagged: bool = False  # only files without any valid trust or confidence

    def mask(self, snap: "Snapshot") -> np.ndarray | None:
        keep = np.ones(len(snap.paths), dtype=bool)
        if self.kind:
            keep &= snap.kinds == self.kind
        if self.trust == "missing":
            keep &= np.array([t is None for t in snap.trust])
        elif self.trust:
            keep &= snap.trust == self.trust
        if self.untagged:
            keep &= np.array([t is None and c is None for t, c in zip(snap.trust, snap.confidence)])
        return None if keep.all() else keep[snap.chunk_file]


@dataclass
class Snapshot:
    """Everything ranking needs, as arrays: one row per chunk, one per file."""

    generation: int
    chunk_ids: np.ndarray  # (N,) chunk row ids, ascending
    chunk_file: np.ndarray  # (N,) position into the file arrays
    matrix: np.ndarray  # (N, dim) float32 unit vectors (may be a read-only memory map)
    paths: np.ndarray  # (F,) object
    kinds: np.ndarray
    trust: np.ndarray
    confidence: np.ndarray
    sources: np.ndarray
    date: np.ndarray  # (N,) unix seconds used for recency, per chunk (`dates.choose`)
    date_source: np.ndarray  # (N,) index into dates.SOURCES
    evergreen: np.ndarray  # (F,) bool: front matter (or tag file) says evergreen
    #: (N,) int8 which vectors each chunk has (`TIERS`: 2 full, 1 quick only, 0 none yet); None: all full.
    tier: np.ndarray | None = None
    #: (N, quick dim) float32 quick-tier vectors (zeros where a chunk has none); None when no chunk has one.
    quick: np.ndarray | None = None
    _weights: dict = field(default_factory=dict, repr=False)
    #: Approximate candidates (`vector_index.BinaryIndex`) for a large index; None: exact scan only.
    vector_index: object = field(default=None, repr=False)
    #: Chunks in the whole index when this snapshot holds only some of them (`rows`); 0: it holds all.
    indexed_chunks: int = 0

    @property
    def chunk_count(self) -> int:
        """How many chunks the index holds (word rarities count over all of them)."""
        return self.indexed_chunks or len(self.chunk_ids)

    def rows(self, positions: np.ndarray) -> "Snapshot":
        """The same snapshot restricted to some chunks (ascending `positions`): the files stay whole,
        and so do the per-file weights it has computed."""
        return replace(self, chunk_ids=self.chunk_ids[positions], chunk_file=self.chunk_file[positions],
                       matrix=np.asarray(self.matrix[positions]), date=self.date[positions],
                       date_source=self.date_source[positions], vector_index=None,
                       indexed_chunks=self.chunk_count,
                       tier=None if self.tier is None else self.tier[positions],
                       quick=None if self.quick is None else np.asarray(self.quick[positions]))

    @classmethod
    def load(cls, store: Store, dim: int) -> "Snapshot":
        """Read the index in one consistent read transaction (WAL snapshot isolation)."""
        with store.reading():
            generation = store.generation
            rows = store.ranking_files()
            ids, file_ids, chunk_date, matrix, tier, quick = load_vectors(store, dim, generation)
        file_row_ids = np.array([r[0] for r in rows], dtype=np.int64)
        chunk_file = np.searchsorted(file_row_ids, file_ids)

        def per_chunk(i: int, scale: float = 1.0) -> np.ndarray:
            values = np.array([np.nan if r[i] is None else r[i] / scale for r in rows], dtype=np.float64)
            return values[chunk_file]

        imported = np.array([bool(r[12]) for r in rows], dtype=bool)[chunk_file]
        date, source = dates.choose(chunk_date, per_chunk(6), per_chunk(7), per_chunk(8), per_chunk(9),
                                    per_chunk(10, 1e9), imported)
        column = lambda i: np.array([r[i] for r in rows], dtype=object)  # noqa: E731
        return cls(generation, ids, chunk_file, matrix, column(1), column(2), column(3), column(4),
                   column(5), date, source, np.array([bool(r[11]) for r in rows], dtype=bool),
                   tier=_tiers(tier, quick), quick=quick)

    def evergreen_files(self, globs: tuple[str, ...]) -> np.ndarray:
        """(F,) bool: evergreen by the file itself or by a `globs` pattern, computed once per list."""
        key = ("evergreen", globs)
        if key not in self._weights:
            by_glob = np.array(name_or_path_mask(globs, self.paths), dtype=bool)
            self._weights[key] = self.evergreen | by_glob if len(self.paths) else self.evergreen
        return self._weights[key]

    def tag_weights(self, cfg) -> tuple[np.ndarray, np.ndarray]:
        """Per-file trust and confidence weights for a ranking config, computed once per config."""
        key = (tuple(sorted(cfg.trust.items())), tuple(sorted(cfg.confidence.items())))
        if key not in self._weights:
            if len(self._weights) > 8:
                self._weights.clear()
            self._weights[key] = (ranking.tag_weights(self.trust, cfg.trust),
                                  ranking.tag_weights(self.confidence, cfg.confidence))
        return self._weights[key]


VECTOR_CACHE = "vectors-{key}.{part}.npy"
#: Which vectors a chunk has (`Snapshot.tier`) and the name each tier goes by in explanations.
NO_VECTORS, QUICK, FULL = np.int8(0), np.int8(1), np.int8(2)
TIER_NAMES = {0: "none", 1: "quick", 2: "full"}


def quick_rows(quick: np.ndarray) -> np.ndarray:
    """(N,) bool: which rows of a quick matrix hold a vector (a chunk without one has zeros)."""
    return np.any(quick != 0, axis=1)


def _tiers(full: np.ndarray, quick: np.ndarray | None) -> np.ndarray | None:
    """(N,) int8 tier per chunk from which have full vectors and the quick matrix; None when all are full."""
    if full.all():
        return None
    partial = np.where(quick_rows(quick), QUICK, NO_VECTORS) if quick is not None else NO_VECTORS
    return np.where(full, FULL, partial).astype(np.int8)


def chunk_dates(store: Store, ids: np.ndarray) -> np.ndarray:
    """(N,) each chunk's own date (transcript chunks: their last timed turn), NaN where it has none."""
    dated = store.chunk_dates()
    chunk_date = np.full(len(ids), np.nan)
    if dated and len(ids):
        dated_ids = np.array([r[0] for r in dated], dtype=np.int64)
        pos = np.minimum(np.searchsorted(ids, dated_ids), len(ids) - 1)
        known = ids[pos] == dated_ids
        chunk_date[pos[known]] = np.array([r[1] for r in dated], dtype=np.float64)[known]
    return chunk_date


def load_vectors(store: Store, dim: int, generation: int):
    """Chunk ids, their file ids, their own dates (`chunk_dates`), the (N, dim) matrix, (N,) bool which
    chunks have a full vector, and the quick-tier matrix (None when no chunk has a quick vector only),
    through a cache beside the index.

    Reading 100,000 vector BLOBs out of SQLite takes seconds (and the dates,
    stored after each BLOB, a read of the whole table); a memory-mapped
    ``.npy`` copy of the same index and generation opens at once, which is
    what makes a cold search from the command line fast. The cache is derived
    like the index: written atomically, named by the index's identity and
    generation (`Store.cache_key`), replaced when the index changes, and
    rebuilt whenever it is missing or unreadable. Call inside the read
    transaction that read `generation`.
    """
    folder = store.cache_folder
    key = store.cache_key(generation)
    files = {part: folder / VECTOR_CACHE.format(key=key, part=part) for part in ("f32", "ids", "dates", "q32")}
    try:
        ids = np.load(files["ids"])
        dates = np.load(files["dates"])
        matrix = np.load(files["f32"], mmap_mode="r")
        n = matrix.shape[0]
        if (ids.shape == (3, n) and dates.shape == (n,) and matrix.shape[1:] == (dim,)
                and matrix.dtype == np.float32 and dates.dtype == np.float64):
            full = ids[2].astype(bool)
            quick = None
            if not full.all() and files["q32"].exists():
                quick = np.load(files["q32"], mmap_mode="r")
                if quick.shape[0] != n:
                    raise ValueError("quick vectors of another index state")
            return ids[0], ids[1], dates, matrix, full, quick
    except (OSError, ValueError):
        pass
    chunk_ids, file_ids, matrix = store.load_matrix(dim)
    # A store without tiers (`Store.tiers`) holds only chunks with their full vectors.
    full = store.has_vectors("vector") if store.tiers else np.ones(len(chunk_ids), dtype=bool)
    quick = None
    quick_dim = store.get_meta("quick_dim")
    if not full.all() and quick_dim and quick_dim.isdigit() and store.has_vectors("quick").any():
        quick = store.load_matrix(int(quick_dim), "quick")[2]
    dates = chunk_dates(store, chunk_ids)
    arrays = {"f32": matrix, "ids": np.stack([chunk_ids, file_ids, full.astype(np.int64)]), "dates": dates}
    if quick is not None:
        arrays["q32"] = quick
    _write_vector_cache(folder, key, arrays, files)
    return chunk_ids, file_ids, dates, matrix, full, quick


def _write_vector_cache(folder: Path, key: str, arrays: dict, files: dict) -> None:
    """Best effort: a read-only or full disk only costs speed, never a search. The matrix goes last,
    so a reader that finds it finds the rest of its generation."""
    temp = None
    try:
        for part in ("q32", "ids", "dates", "f32"):
            if part not in arrays:
                continue
            target = files[part]
            temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            with open(temp, "wb") as out:
                np.save(out, arrays[part])
            os.replace(temp, target)
            temp = None
        for old in folder.glob(VECTOR_CACHE.format(key="*", part="*")):
            if not old.name.startswith(f"vectors-{key}."):
                old.unlink(missing_ok=True)
    except OSError:
        if temp is not None:  # a full disk: leave no half-written copy to fill it further
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass


def _sorted_union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.union1d of two integer arrays, without what np.union1d costs a cold search: its first call
    imports numpy.ma (60-110 ms of a command-line search)."""
    merged = np.concatenate([a, b])
    merged.sort()
    keep = np.ones(merged.shape, dtype=bool)
    np.not_equal(merged[1:], merged[:-1], out=keep[1:])
    return merged[keep]


class Searcher:
    """Answers queries over one memory folder's index."""

    def __init__(self, root: Path, config: Config | None = None, embedder_name: str | None = None,
                 embedder: Embedder | None = None, location: Location | None = None,
                 watched: Callable[[], bool] | None = None):
        self.root = root
        #: Whether a watcher re-indexes the folder on every change (a long-lived process's): then a
        #: freshness count older than `FRESHNESS_SECONDS` is refreshed behind the answer, not before it.
        self.watched = watched
        self.config = config or load_config(root)
        self.location = location or locate(root, self.config)
        if not self.location.exists():  # never create an empty index just by searching
            raise NoIndexYet("no index yet: run `tachikoma index` first")
        self.store = self.location.open(readonly=True)  # searching needs no write access to the memory
        built_with = self.store.embedder
        if built_with is None:
            self.store.close()
            raise NoIndexYet("no index yet: run `tachikoma index` first")
        requested, origin = self.config.embedder_request(embedder_name)
        self.embedder = embedder or choose(requested, built_with[0], origin=origin)
        self.dim = built_with[1]
        self._snapshot: Snapshot | None = None
        self._quick: Embedder | None = None  # the quick tier's embedder, while some chunks have only its vectors
        self._freshness: tuple[int, float, dict] | None = None
        self._refreshing: _FreshnessCheck | None = None
        #: False for a memory of a shared store whose folder is not on this machine: its files
        #: cannot be checked, so results are not hidden as missing and freshness is not known.
        self.local = Path(root).is_dir()
        #: Indexes of at least this many chunks use `vector_index` for their vector candidates, or the
        #: engine's own index from `engine_index_min_chunks`.
        self.vector_index_min_chunks = vector_index.ANN_MIN_CHUNKS
        self.engine_index_min_chunks = ENGINE_INDEX_MIN_CHUNKS

    def close(self) -> None:
        self.store.close()

    def snapshot(self) -> Snapshot:
        if self._snapshot is None or self._snapshot.generation != self.store.generation:
            self._snapshot = Snapshot.load(self.store, self.dim)
        snap = self._snapshot
        # Not while some chunks lack their full vectors (`Snapshot.tier`: a run is embedding): their
        # zero rows would skew the codes' centre, which later generations keep, and a chunk with
        # only a quick vector has no full one to be shortlisted by. The exact scan ranks them meanwhile.
        if snap.vector_index is None and snap.tier is None and len(snap.chunk_ids) >= self.vector_index_min_chunks \
                and not self._engine_index(snap):
            self._build_vector_index(snap)
        return snap

    def _engine_index(self, snap: Snapshot) -> bool:
        """Whether this search takes its vector shortlist from the engine's own index (`ENGINE_INDEX_MIN_CHUNKS`)."""
        return len(snap.chunk_ids) >= self.engine_index_min_chunks and self.store.has_vector_index(self.dim)

    def _build_vector_index(self, snap: Snapshot) -> None:
        snap.vector_index, _ = vector_index.open_or_build(
            self.store.cache_folder, self.store.cache_key(snap.generation), snap.matrix, snap.chunk_ids)

    def candidates(self, snap: Snapshot, qvec: np.ndarray, matches: list[tuple[int, float]],
                   filters: Filters | None) -> Snapshot:
        """The chunks worth scoring: all of them, or for a large index a shortlist of the nearest and
        every keyword match. The shortlist comes from the engine's own index when it has one and no
        filter applies (PostgreSQL's HNSW: `ENGINE_SHORTLIST`), else from `vector_index` (among the
        chunks `filters` allow). The ranking then runs on these rows as on any snapshot, with exact
        cosines from the float vectors. While some chunks are not fully embedded (`Snapshot.tier`)
        every chunk is scored, by the best vectors it has."""
        if snap.tier is not None or len(snap.chunk_ids) < self.vector_index_min_chunks:
            return snap
        allowed = filters.mask(snap) if filters else None
        near = None
        if allowed is None and self._engine_index(snap):  # it knows no filters
            found = self.store.vector_candidates(qvec, ENGINE_SHORTLIST)
            if found is not None:
                near, known = _positions(snap, np.sort(found))
                near = near[known]
        if near is None:
            if snap.vector_index is None:
                self._build_vector_index(snap)
            near = snap.vector_index.candidates(qvec, vector_index.shortlist_size(*snap.matrix.shape), allowed)
        ids = np.array([m[0] for m in matches], dtype=np.int64)
        pos = np.minimum(np.searchsorted(snap.chunk_ids, ids), len(snap.chunk_ids) - 1)
        matched = pos[snap.chunk_ids[pos] == ids]
        return snap.rows(_sorted_union(near, matched))

    def search(self, query: str, limit: int = 10, filters: Filters | None = None,
               now: datetime | None = None, config: Config | None = None, min_score: float | None = None,
               recency: str | None = None, as_of: datetime | str | None = None) -> dict:
        """Rank chunks for `query` and return the JSON-ready answer with explanations.

        `as_of` (or `now`; a datetime or what `timeq.parse_as_of` reads) is the "now" of the search:
        recency ages count from it and the time the query names ("last week", `timeq`) is read
        against it. Default: now, in the machine's time zone.

        When no chunk is close enough in meaning (vector similarity at least
        `min_score`; default: the config's ``[search] min_score``, else the
        floor measured for the embedder, `relevance_floor`) nor holds most of
        the query's words (`keyword_coverage`, `KEYWORD_FLOOR`), the answer
        has no results and says ``no_good_match``; otherwise no result is left
        out for its own low similarity (``match`` says which). A result
        never names a file that is gone from the memory folder, even before
        the index has caught up with it. `recency` names a preset (`config.RECENCY_PRESETS`) to use
        instead of the config's ``[ranking] recency``.
        """
        query = query.strip()
        if not query:
            raise BadQuery("empty query: say what to look for")
        config = config or self.config
        if recency is not None:
            try:
                config = replace(config, ranking=config.ranking.with_recency(recency))
            except ValueError as exc:
                raise BadQuery(str(exc)) from None
        if as_of is not None:
            try:
                now = as_of if isinstance(as_of, datetime) else timeq.parse_as_of(as_of)
            except ValueError as exc:
                raise BadQuery(str(exc)) from None
        now = now if now is not None else datetime.now().astimezone()
        if now.tzinfo is None:
            now = now.astimezone()
        windows = timeq.read(query, now) if config.search.time_reading else []
        floor = min_score if min_score is not None else config.search.min_score
        floor = relevance_floor(self.embedder.name) if floor is None else float(floor)
        if not 0 <= floor <= 1:
            raise BadQuery(f"min_score must be between 0 and 1, not {floor:g}")
        checking = self._start_freshness() if self.local else None
        started = time.perf_counter()
        qvec = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        embedded = time.perf_counter()
        # One read transaction: the snapshot, the keyword matches and the chunk texts all see
        # the same state of the index, even while `tachikoma index` writes to it.
        store = self.store
        with store.reading():
            snap = self.snapshot()
            quick_qvec = self._quick_query(snap, query)
            counts: dict[str, int] = {}
            read = WordRows(store)
            keywords = keyword_terms(store, query, len(snap.chunk_ids), counts=counts, words=read)
            matches = keyword_search(store, query, len(snap.chunk_ids), config.search.keyword_candidates,
                                     terms=keywords)
            tool_words, tool_matches = self._tool_matches(query, config, counts)
            # A chunk found by its tool texts alone is a candidate too (a large index ranks a shortlist).
            snap = self.candidates(snap, qvec, matches + [(m.chunk_id, m.bm25) for m in tool_matches], filters)
            keyword, tool_share = keyword_parts(snap, matches, tool_matches)
            words = lambda ids: words_held(store, query, ids, read)  # noqa: E731 (knowledge updates: what was said)
            # For "no good match", a chunk also holds the words of its tool texts.
            with_tools = lambda ids: words(ids) | tool_words_held(store, query, ids)  # noqa: E731
            coverage = lambda: keyword_coverage(store, query, snap, matches, counts,  # noqa: E731 (only if needed)
                                                tool_matches, with_tools if tool_matches else words)
            answer, hidden = self._rank_existing(snap, qvec, limit, config, filters, now, keyword, floor, words,
                                                 coverage, windows, tool_share if tool_matches else None,
                                                 quick_qvec)
            details = store.chunk_details([int(snap.chunk_ids[i]) for i in answer["positions"]])
        results = []
        for pos, factors, score in zip(answer["positions"], answer["factors"], answer["scores"]):
            path, kind, idx, start, end, text = details[int(snap.chunk_ids[pos])]
            f = snap.chunk_file[pos]
            tags = Tags(snap.trust[f], snap.confidence[f], snap.sources[f])
            results.append({"path": path, "kind": kind, "chunk": idx, "lines": [start, end], "text": text,
                            "score": score, "tags": tags.as_dict(), "factors": factors})
            if self.location.name is not None:  # a shared store: every result names its memory
                results[-1]["memory"] = self.location.name
            if factors.get("keyword_in_tools"):
                results[-1]["tool_matches"] = self._tool_evidence(
                    path, int(snap.chunk_ids[pos]), tool_matches, tool_words,
                    excerpt=factors["keyword_in_tools"] >= TOOL_EXCERPT_SHARE)
        finished = time.perf_counter()
        freshness = dict(self._finish_freshness(checking) if self.local else NOT_HERE, missing_files=hidden)
        keywords = keywords + [t for t in tool_words if t not in keywords]
        return {"query": query, "keywords": keywords, "results": results, "min_score": floor,
                "no_good_match": not results, "match": answer["match"],
                "recency": config.ranking.recency,
                "as_of": now.isoformat(timespec="seconds"), "time": [w.as_dict() for w in windows],
                "freshness": freshness, "embedder": self.embedder.name,
                "timing_ms": {"embed": round((embedded - started) * 1000, 2),
                              "rank": round((finished - embedded) * 1000, 2)}}

    def _tool_matches(self, query: str, config: Config, counts: dict[str, int]) -> tuple[list[str], list[ToolMatch]]:
        """The query's words looked up in tool texts and their best matches (none when the index holds
        no tool text); each word's count there is added to `counts`, for `keyword_coverage`."""
        total = self.store.tool_text_count()
        if not total:
            return [], []
        tool_counts: dict[str, int] = {}
        terms = tool_terms(self.store, query, total, tool_counts)
        for term, count in tool_counts.items():
            counts[term] = counts.get(term, 0) + count
        return terms, tool_search(self.store, terms, config.search.keyword_candidates)

    def _tool_evidence(self, path: str, chunk_id: int, tool_matches: list[ToolMatch], terms: list[str],
                       excerpt: bool = True) -> list[dict]:
        """The best tool texts of one result's chunk that hold query words: tool, side, file line, and (with
        `excerpt`) the text around the first query word, read from the file (the index keeps only words)."""
        from .transcripts import tool_excerpt

        found = [m.as_dict() for m in tool_matches if m.chunk_id == chunk_id][:TOOL_MATCHES_SHOWN]
        for match in found[:1] if excerpt else ():
            match["excerpt"] = tool_excerpt(self.root / path, match["line"], terms)
        return found

    def _rank_existing(self, snap: Snapshot, qvec, limit, config, filters, now, keyword, floor,
                       words=None, coverage=None, windows=(), tool_share=None, quick_qvec=None) -> tuple[dict, int]:
        """`rank_snapshot`, leaving out files deleted or renamed since the index last saw them.

        Only the files of the results are checked (a stat each); a missing one
        is excluded and the ranking done again. Returns the answer and how
        many indexed files were found missing.
        """
        gone = np.zeros(len(snap.paths), dtype=bool)
        if not self.local:
            return rank_snapshot(snap, qvec, limit, config, filters, now, keyword, floor, words=words,
                                 coverage=coverage, windows=windows, tool_share=tool_share,
                                 quick_qvec=quick_qvec), 0
        for attempt in range(MISSING_ROUNDS + 1):
            answer = rank_snapshot(snap, qvec, limit, config, filters, now, keyword, floor,
                                   exclude=gone if gone.any() else None, words=words, coverage=coverage,
                                   windows=windows, tool_share=tool_share, quick_qvec=quick_qvec)
            files = {int(snap.chunk_file[p]) for p in answer["positions"]}
            if attempt == MISSING_ROUNDS - 1:
                files = range(len(snap.paths))  # many files went at once: check them all, once
            missing = [f for f in files if not gone[f] and not os.path.lexists(self.root / snap.paths[f])]
            if not missing:
                return answer, int(gone.sum())
            gone[missing] = True
        return answer, int(gone.sum())

    def _quick_query(self, snap: Snapshot, query: str) -> np.ndarray | None:
        """The query in the quick tier's space, when some chunks of `snap` have only quick vectors."""
        if snap.quick is None:
            return None
        name = self.store.get_meta("quick_embedder")
        if not name:
            return None
        if self._quick is None or self._quick.name != name:
            from .embedders import create

            self._quick = create(name)
        return np.asarray(self._quick.embed_query(query), dtype=np.float32)

    def freshness(self) -> dict:
        """How fresh the index is (`freshness.answer_freshness`), recomputed at most every
        `FRESHNESS_SECONDS` while the index is unchanged."""
        return self._finish_freshness(self._start_freshness())

    def _start_freshness(self) -> "_FreshnessCheck | None":
        """For a searcher's first search (the command line's only one): the check, started in a
        thread, so that the walk of the memory folder (a stat per file: most of a cold search in a
        large memory) runs while the query is embedded and ranked. Later ones (the dashboard, MCP)
        refresh it after ranking, in `_finish_freshness`, and never slow the ranking down."""
        return _FreshnessCheck(self.root, self.store) if self._freshness is None else None

    def _finish_freshness(self, checking: "_FreshnessCheck | None") -> dict:
        if checking is not None:
            self._freshness = (checking.generation, checking.started, checking.result())
        generation = self.store.generation
        cached = self._freshness
        if cached[0] == generation and time.monotonic() - cached[1] <= FRESHNESS_SECONDS:
            return dict(cached[2])
        if cached[0] == generation and self.watched is not None and self.watched():
            return dict(self._refreshed_behind(generation)[2])
        # An index run since (the count was of files it has indexed now), or nothing re-indexes
        # changes as they come: counted again, before the answer.
        from .freshness import answer_freshness

        self._freshness = (generation, time.monotonic(), answer_freshness(self.root, self.store))
        return dict(self._freshness[2])

    def _refreshed_behind(self, generation: int) -> tuple:
        """For a watched folder: the latest finished background count of this index, and a new count
        started when it is due and none is under way. A change since the last count is being
        re-indexed by the watcher, and its run makes the next answer count again before it."""
        done = self._refreshing
        if done is not None and not done.is_alive():
            self._refreshing = None
            try:
                if done.generation == generation:
                    self._freshness = (generation, done.started, done.result())
            except Exception:  # noqa: BLE001 - the next count is started below
                pass
        if self._refreshing is None and time.monotonic() - self._freshness[1] > FRESHNESS_SECONDS:
            self._refreshing = _FreshnessCheck(self.root, self.store)
        return self._freshness


#: The freshness of a memory whose folder is not on this machine.
NOT_HERE = {"state": "elsewhere", "last_indexed_at": None, "changed_since": None}


def search_memories(root: Path, names: list[str], query: str, limit: int = 10, config: Config | None = None,
                    embedder_name: str | None = None, searchers=None, **options) -> dict:
    """One query over several memories of a shared store (PostgreSQL): each memory is ranked as
    it would be alone (its own embedder, keyword statistics and settings), then the results are
    merged by score; every result names its ``memory``. The answer's other parts (keywords,
    freshness, …) are the first memory's; ``memories`` lists the names searched. `searchers`
    (`tachikoma.searchers.Searchers`): a long-lived process's open searchers and connections, reused;
    None: opened for this query and closed after it."""
    from .searchers import Searchers, memory_key

    config = config or load_config(root)
    here = locate(root, config)
    if here.url is None:
        raise BadQuery("searching several memories needs a shared store: set [store] url, --store or "
                             "$TACHIKOMA_STORE to a postgresql:// URL")
    pool = searchers if searchers is not None else Searchers()
    try:
        known = pool.catalog(here.url).memory_names()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise BadQuery(f"no memory named {', '.join(map(repr, unknown))} in "
                                 f"{here.label.split(' in ', 1)[1]} (it holds: {', '.join(sorted(known)) or 'none'})")
        answers = []
        for name in names:
            folder = Path(root) if name == here.name else Path(known[name] or root / ".." / name)
            own = config if name == here.name else load_config(folder)  # read per query, as the folder's own
            location = Location(folder, here.url, name)
            make = lambda: Searcher(folder, own, embedder_name, location=location)  # noqa: E731
            with pool.use(memory_key(location), make) as searcher:
                answers.append(searcher.search(query, limit, config=own, **options))
    finally:
        if searchers is None:
            pool.close()
    merged = sorted((r for a in answers for r in a["results"]), key=lambda r: -r["score"])[:limit]
    return dict(answers[0], results=merged, no_good_match=not merged, memories=list(names))


class _FreshnessCheck(threading.Thread):
    """`freshness.answer_freshness` on a connection of its own (one connection per thread)."""

    def __init__(self, root: Path, store):
        super().__init__(name="tachikoma-freshness", daemon=True)
        self.root, self.index = root, store
        self.generation, self.started = store.generation, time.monotonic()
        self._value: dict | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            from .freshness import answer_freshness

            with self.index.reopen() as store:
                self._value = answer_freshness(self.root, store)
        except BaseException as exc:  # handed to the searching thread, which raises it
            self._error = exc

    def result(self) -> dict:
        self.join()
        if self._error is not None:
            raise self._error
        return self._value


#: Per date source (`dates.SOURCES`), how far its date is trusted (`dates.STRENGTH`).
DATE_STRENGTH = np.array(dates.STRENGTH, dtype=np.int8)
#: How many of the best chunks are compared for knowledge updates (`ranking.supersessions`).
SUPERSESSION_CANDIDATES = 50


def _supersede(snap: Snapshot, similarity, file_weight, rec, mask, evergreen, rule, limit, words=None,
               asked=None):
    """Recency × `rule.superseded` for the best candidates that a newer one supersedes; also, per
    chunk, the position of the chunk that supersedes it (-1: none). `words(chunk ids)` says which
    query words each candidate holds (`words_held`); None: not known. `asked` (N,) bool marks chunks
    from the time the query asks about: "what did we decide in February" wants February's answer,
    so those are never superseded."""
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
                               strength=DATE_STRENGTH[snap.date_source[top]])
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
        from .embedders import static

        quick = snap.tier == QUICK
        cosines = np.clip(np.asarray(snap.quick[quick]) @ quick_qvec, 0.0, 1.0).astype(np.float64)
        vector[quick] = static.calibrate(cosines)
    return vector


def rank_snapshot(snap: Snapshot, qvec: np.ndarray, limit: int, config: Config,
                  filters: Filters | None = None, now: datetime | None = None,
                  keyword: np.ndarray | None = None, min_score: float = 0.0,
                  exclude: np.ndarray | None = None, words=None, coverage=None,
                  keyword_floor: float = KEYWORD_FLOOR, windows=(), tool_share: np.ndarray | None = None,
                  quick_qvec: np.ndarray | None = None) -> dict:
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
    `tool_share` (N,): the share of each chunk's keyword score its tool texts gave (`keyword_parts`),
    shown as ``keyword_in_tools`` where it is not 0.
    """
    cfg = config.ranking
    fusion = config.search
    now = now or datetime.now().astimezone()
    now_ts = now.timestamp()
    vector = np.clip(snap.matrix @ qvec, 0.0, 1.0).astype(np.float64) if len(snap.chunk_ids) else np.empty(0)
    if snap.tier is not None:  # some chunks are not fully embedded yet: their best vectors, else keywords only
        vector = tier_similarity(snap, vector, quick_qvec)
    if keyword is None:
        keyword = np.zeros(vector.shape[0])
    similarity = ranking.fuse(vector, keyword, fusion)
    method = {"method": fusion.fusion, "keyword_weight": fusion.keyword_weight}
    if fusion.fusion == "rrf":
        method["rrf_k"] = fusion.rrf_k
    age_days = np.maximum(now_ts - snap.date, 0.0) / DAY
    trust_w, conf_w = snap.tag_weights(cfg)
    rule = cfg.rule
    evergreen = snap.evergreen_files(cfg.evergreen)
    weak_date = DATE_STRENGTH[snap.date_source] == 0
    rec = ranking.recency_rule(age_days, evergreen[snap.chunk_file], rule, weak=weak_date)
    mask = similarity > 0  # a chunk that shares nothing with the query is not a match
    if exclude is not None:
        mask &= ~exclude[snap.chunk_file]
    if filters:
        extra = filters.mask(snap)
        if extra is not None:
            mask &= extra
    match = ranking.match_evidence(vector, coverage, mask, min_score, keyword_floor)
    if match["answered_by"] is None:
        mask = np.zeros_like(mask)
    in_time, nearest = timeq.factor(snap.date, list(windows))
    rec, superseded_by = _supersede(snap, similarity, trust_w * conf_w, rec, mask, evergreen, rule, limit, words,
                                    asked=in_time >= 1.0 if windows else None)
    ranked = ranking.rank(similarity, snap.chunk_file, trust_w * conf_w, limit,
                          cfg.per_file, cfg.repeat_penalty, mask, chunk_weight=rec * in_time if windows else rec)
    factors = []
    for pos, penalty in zip(ranked.chunks, ranked.penalty):
        f = snap.chunk_file[pos]
        factors.append({
            "similarity": float(similarity[pos]),
            "vector_similarity": float(vector[pos]), "keyword_score": float(keyword[pos]), "fusion": dict(method),
            "trust": snap.trust[f], "trust_weight": float(trust_w[f]),
            "confidence": snap.confidence[f], "confidence_weight": float(conf_w[f]),
            "age_days": float(age_days[pos]), "date_source": dates.SOURCES[snap.date_source[pos]],
            "date_trust": dates.TRUST[dates.SOURCES[snap.date_source[pos]]],
            "date": datetime.fromtimestamp(snap.date[pos], timezone.utc).isoformat(timespec="seconds"),
            "recency": float(rec[pos]), "recency_rule": cfg.recency,
            "recency_reason": ("off" if rule.half_life_days is None else "evergreen" if evergreen[f] else
                               "superseded" if superseded_by[pos] >= 0 else "age"),
            "time": float(in_time[pos]),
            "time_reason": timeq.explain(float(in_time[pos]), float(snap.date[pos]),
                                         windows[nearest[pos]] if windows else None, now.tzinfo),
            "duplicate_penalty": float(penalty),
        })
        if tool_share is not None and tool_share[pos] > 0:
            factors[-1]["keyword_in_tools"] = float(tool_share[pos])
        if snap.tier is not None and snap.tier[pos] != FULL:  # absent once every chunk has its full vector
            factors[-1]["vectors"] = TIER_NAMES[int(snap.tier[pos])]
        if superseded_by[pos] >= 0:
            newer = superseded_by[pos]
            factors[-1]["superseded_by"] = {
                "path": str(snap.paths[snap.chunk_file[newer]]),
                "date": datetime.fromtimestamp(snap.date[newer], timezone.utc).isoformat(timespec="seconds")}
    return {"positions": ranked.chunks.tolist(), "scores": [float(s) for s in ranked.scores], "factors": factors,
            "match": match}
