"""`Searcher`: answers queries over one memory's index, keeping its vectors between queries.

A `Searcher` keeps the vectors of the index in memory between queries (the
dashboard holds one for its lifetime) and reloads them only when the index
changes. The command line builds one per query (a cold search). Each search
reads the snapshot, the keyword matches and the chunk texts in one read
transaction, leaves out files gone from the folder, and says how fresh the
index is (counted in a thread of its own, `_FreshnessCheck`).
"""

from __future__ import annotations

import os
import threading
import time
import unicodedata
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from ..when import mentions, tense, timeq
from . import answer_kind, parts
from ..config import Config, load_config
from ..reading.documents import TRANSCRIPT
from ..reading.logseq import copies_folder
from ..embedders import choose, create
from ..embedders.base import Embedder
from ..embedders.names import ENGLISH_ONLY
from ..errors import BadQuery, EmbedderError, NoIndexYet
from ..language.function_words import ANY_FUNCTION_WORD, question_language
from ..store import ENGINE_INDEX_MIN_CHUNKS, Location, locate
from ..reading.tags import Tags
from . import vector_index, voice
from .keywords import (STOPWORDS, TOOL_EXCERPT_SHARE, TOOL_MATCHES_SHOWN, ToolMatch, WordRows, asks_besides_time,
                       counts_in, gathers_in,
                       chunk_positions, keyword_coverage, keyword_parts, keyword_search, keyword_terms, nowhere_weight,
                       query_terms, tool_search, tool_terms, tool_words_held, words_held)
from .scoring import MULTILINGUAL_READINGS, SCRIPT_BACKGROUND, rank_snapshot, ranked_dates, relevance_floor
from .snapshot import Filters, Snapshot, chunk_scripts, chunk_voices

#: A searcher that lives on (dashboard, MCP) re-counts the files changed since the last index run
#: at most this often while the index is unchanged; a walk of the folder costs a stat per file.
FRESHNESS_SECONDS = 2.0
#: How many nearest chunks the engine's own vector index hands to the exact ranking, from
#: `store.ENGINE_INDEX_MIN_CHUNKS` chunks (measured at 1M: HNSW 1,000 recall 0.987, 400 0.947).
ENGINE_SHORTLIST = 1_000
#: Re-rankings after finding result files missing before every file is checked.
MISSING_ROUNDS = 3
#: The freshness of a memory whose folder is not on this machine.
NOT_HERE = {"state": "elsewhere", "last_indexed_at": None, "changed_since": None}


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
                 watched: Callable[[], bool] | None = None, multilingual: Embedder | None = None):
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
        #: The multilingual embedder, for the passages not in English it read (`_multilingual_query`).
        self.multilingual = multilingual
        self._multi: Embedder | None = None
        #: Why the last search could not read its passages with the multilingual embedder; None: it could.
        self.multilingual_error: str | None = None
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
            if self._snapshot.embedder in SCRIPT_BACKGROUND:  # once per generation: each chunk's script
                self._snapshot.scripts = chunk_scripts(self.store, self._snapshot.chunk_ids,
                                                       self._snapshot.generation)
        snap = self._snapshot
        # Not while some chunks lack their full vectors (`Snapshot.tier`: a run is embedding): their
        # zero rows would skew the codes' centre, which later generations keep, and a chunk with
        # only a quick vector has no full one to be shortlisted by. The exact scan ranks them meanwhile.
        if snap.vector_index is None and snap.tier is None and len(snap.chunk_ids) >= self.vector_index_min_chunks \
                and not self._engine_index(snap):
            self._codes(snap)
        return snap

    def _asker(self, snap: Snapshot, query: str, language: str, config: Config) -> bool:
        """Whether the agent's words weigh less in this search (`voice`): a question about its asker, in a memory
        with transcripts. Reads whose turns each chunk holds the first time (once per generation)."""
        if config.ranking.agents_words >= 1 or not voice.about_asker(query, language) \
                or not (snap.kinds == TRANSCRIPT).any():
            return False
        if snap.voices is None:
            snap.voices = chunk_voices(self.store, snap)
        return True

    def _engine_index(self, snap: Snapshot) -> bool:
        """Whether this search takes its vector shortlist from the engine's own index (`ENGINE_INDEX_MIN_CHUNKS`)."""
        return len(snap.chunk_ids) >= self.engine_index_min_chunks and self.store.has_vector_index(self.dim)

    def _codes(self, snap: Snapshot) -> vector_index.BinaryIndex:
        """The snapshot's sign codes (`vector_index`), read or built the first time they are asked for."""
        if snap.vector_index is None:
            snap.vector_index, _ = vector_index.open_or_build(
                self.store.cache_folder, self.store.cache_key(snap.generation), snap.matrix, snap.chunk_ids)
        return snap.vector_index

    def shortlist(self, snap: Snapshot, qvec: np.ndarray, matches: list[tuple[int, float]],
                  filters: Filters | None, multi_qvec: np.ndarray | None = None, language: str = "",
                  windows=()) -> np.ndarray | None:
        """The positions of the chunks worth scoring: None for all of them, or for a large index a shortlist
        of the nearest, every keyword match and the nearest of those dated inside the `windows` the
        question asks about (the time factor puts them first, and "what did I do last week?" is near none of
        them in meaning). The shortlist comes from the engine's own index when it has
        one and no filter applies (PostgreSQL's HNSW: `ENGINE_SHORTLIST`), else from `vector_index` (among
        the chunks `filters` allow). The ranking then runs on these rows as on any snapshot, with exact
        cosines from the float vectors. While some chunks are not fully embedded (`Snapshot.tier`)
        every chunk is scored, by the best vectors it has."""
        if snap.tier is not None or len(snap.chunk_ids) < self.vector_index_min_chunks:
            return None
        allowed = filters.mask(snap) if filters else None
        near = dist = None
        if allowed is None and self._engine_index(snap):  # it knows no filters
            found = self.store.vector_candidates(qvec, ENGINE_SHORTLIST)
            if found is not None:
                near, known = chunk_positions(snap, np.sort(found))
                near = near[known]
        if near is None:
            dist = self._codes(snap).distances(qvec)
            near = snap.vector_index.candidates(qvec, vector_index.shortlist_size(*snap.matrix.shape), allowed, dist)
        pos, known = chunk_positions(snap, np.array([m[0] for m in matches], dtype=np.int64))
        matched = pos[known]
        if multi_qvec is not None and snap.multi_rows is not None:  # the nearest passages the reader reads too
            read = snap.multi_read(language)
            if allowed is not None:
                read &= allowed[snap.multi_rows]
            rows = snap.multi_rows[read]
            nearest = np.argsort(-(snap.multi_matrix[read] @ multi_qvec))[:ENGINE_SHORTLIST]
            matched = np.concatenate([matched, rows[nearest]])
        if windows:  # dated inside them as the time factor reads it (`scoring.rank_snapshot`)
            inside = timeq.factor(snap.date, list(windows))[0] >= 1.0
            inside = inside if allowed is None else inside & allowed
            size = vector_index.shortlist_size(*snap.matrix.shape)
            if np.count_nonzero(inside) <= size:
                rows = np.flatnonzero(inside)
            else:  # a long time ("this year"): its nearest by code, as a filter's are
                rows = self._codes(snap).candidates(qvec, size, inside, dist)  # one scan of the codes for both
            matched = np.concatenate([matched, rows])
        return _sorted_union(near, matched)

    def search(self, query: str, limit: int = 10, filters: Filters | None = None,
               now: datetime | None = None, config: Config | None = None, min_score: float | None = None,
               recency: str | None = None, as_of: datetime | str | None = None, decide: bool = True,
               widen: bool = True) -> dict:
        """Rank chunks for `query` and return the JSON-ready answer with explanations (`_search`). A question
        that names several things ("which came first: A, B or C", `parts.named`) also has each searched on its
        own, and the answers put together (`parts.merged`; ``[search] named_parts``)."""
        asked = dict(filters=filters, now=now, config=config, min_score=min_score, recency=recency, as_of=as_of)
        whole = self._search(query, limit, decide=decide, widen=widen, **asked)
        things = parts.named(whole["query"]) if (config or self.config).search.named_parts else []
        if not things or question_language(whole["query"]) is not None:  # (English only; told once it is a list)
            return whole
        answers = [self._search(thing, limit, widen=False, **asked) for thing in things]
        return parts.merged(whole, things, answers, limit)

    def _search(self, query: str, limit: int = 10, filters: Filters | None = None,
                now: datetime | None = None, config: Config | None = None, min_score: float | None = None,
                recency: str | None = None, as_of: datetime | str | None = None, decide: bool = True,
                widen: bool = True) -> dict:
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
        instead of the config's ``[ranking] recency``. `decide` False keeps the results of an answer
        without a good match (``no_good_match`` still says so): several memories decide together
        (`search_memories`). `widen` False reads a question that gathers from several memories as asked
        (`scoring.rank_snapshot`'s `gather`; `[search] feedback_files`): a search cut to a token budget,
        whose passages should hold the answer's own lines (docs/evaluation.md, "A question that gathers").
        """
        # Composed, as notes are written and read: a letter and its mark typed apart ("u" + U+0308) is "ü" (its
        # second spelling "ue", a compound's parts and the time words read the composed letter)
        query = unicodedata.normalize("NFC", query).strip()
        if not query:
            raise BadQuery("empty query: say what to look for")
        config = config or self.config
        language = question_language(query)  # None: English (or not told)
        if counts_in(query, language) and config.search.fusion == "convex":  # its evidence is in other words too
            config = replace(config, search=replace(config.search,
                                                    keyword_weight=config.search.counting_keyword_weight))
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
        # A question about what is coming (its words, a day without its year nearer ahead than gone: "what is
        # on 10 December" on the 5th, or a window still to come: "next week"): no month of it is a time asked
        # about (`timeq`), and its best passages are ranked again by the days they name (`mentions`), those
        # inside the window it names first. A window still to come is no time factor: no memory is from it.
        coming = config.search.time_reading and (tense.ahead_in(query, language)
                                                 or timeq.names_day_ahead(query, now, language))
        spans = timeq.read_spans(query, now, ahead=coming) if config.search.time_reading else []
        windows = [window for _, _, window in spans if not window.ahead]
        ahead = [window for _, _, window in spans if window.ahead]
        coming = coming or bool(ahead)
        # The words that named a time are read as a time, not looked for as keywords ("last week").
        words_of = timeq.without_time(query, spans)
        # What is asked besides the time ("which interviews did I do in September": interviews): the time
        # itself is the time factor's to judge, so it is no missing word when deciding "no good match".
        untimed = timeq.without_time(query, spans, every=True)
        asked = answer_kind.asked(query)  # a phone number, a time of day …: its best passages must hold one
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
            asker = self._asker(snap, query, language or "", config)
            quick_qvec = self._quick_query(snap, query)
            second = time.perf_counter()
            multi_qvec = self._multilingual_query(snap, query, config)
            second = time.perf_counter() - second  # an embedding too: counted with the first
            counts: dict[str, int] = {}
            read = WordRows(store)
            keywords = keyword_terms(store, words_of, len(snap.chunk_ids), counts=counts, words=read,
                                     language=language)
            matches = keyword_search(store, words_of, len(snap.chunk_ids), config.search.keyword_candidates,
                                     terms=keywords)
            tool_words, tool_matches, in_tools = self._tool_matches(words_of, config, counts)
            # A chunk found by its tool texts alone is a candidate too (a large index ranks a shortlist).
            found = matches + [(m.chunk_id, m.bm25) for m in tool_matches]
            whole = snap
            rows = self.shortlist(whole, qvec, found, filters, multi_qvec, language or "", windows)
            snap = whole if rows is None else whole.rows(rows)
            # An English question's words found nowhere may be in a note in another language: no keyword
            # match is whole without them. A question in another language is not held to it (its
            # character pairs and inflections are found nowhere more often than its subject is).
            nowhere, weight = nowhere_weight(counts, snap.chunk_count, in_tools) if not language else ([], 0.0)
            keyword, tool_share = keyword_parts(snap, matches, tool_matches, weight)
            words = lambda ids: words_held(store, words_of, ids, read)  # noqa: E731 (knowledge updates: what was said)
            # For "no good match", the words asked besides the time; a chunk also holds those of its tool texts.
            held = lambda ids: (words_held(store, untimed, ids, read)  # noqa: E731 (a one-line closure handed on)
                                | (tool_words_held(store, untimed, ids) if tool_matches else False))
            coverage = lambda: keyword_coverage(store, untimed, snap, matches, counts,  # noqa: E731 (only if needed)
                                                tool_matches, held)
            time_only = bool(windows or ahead) and not asks_besides_time(untimed, language)
            # A window still to come and nothing else ("what's on next week?"): a passage naming a day inside
            # it answers it, which only its text tells (`mentions`), so "no good match" is decided after.
            ahead_only = time_only and not windows
            ranked = max(limit, mentions.WINDOW_CANDIDATES if ahead else mentions.CANDIDATES) if coming else limit
            ranked = max(ranked, answer_kind.CANDIDATES) if asked else ranked
            rank = lambda snap, keyword, tool_share, **more: self._rank_existing(  # noqa: E731 (ranked twice at most)
                snap, qvec, ranked, config, filters, now, keyword, floor, words=words, coverage=coverage,
                windows=windows, tool_share=tool_share if tool_matches else None, quick_qvec=quick_qvec,
                decide=decide and not ahead_only, time_only=time_only, multi_qvec=multi_qvec, language=language or "",
                **more)
            gather = widen and gathers_in(query, language)
            answer, hidden = rank(snap, keyword, tool_share, gather=config.search.feedback_files if gather else 0,
                                  asker=asker)
            if rows is not None and answer["feedback"] is not None:
                # A widened question on a shortlist: the chunks nearest to the widened question are
                # candidates too, so it finds what it would find over every chunk.
                rows = _sorted_union(rows, self.shortlist(whole, answer["feedback"]["query"], found, filters,
                                                          multi_qvec, language or "", windows))
                snap = whole.rows(rows)
                keyword, tool_share = keyword_parts(snap, matches, tool_matches, weight)
                answer, again = rank(snap, keyword, tool_share, feedback=answer["feedback"], asker=asker)
                hidden = max(hidden, again)  # files found missing the first time are not checked again
            details = store.chunk_details([int(snap.chunk_ids[i]) for i in answer["positions"]])
        # A result's file edited since the index read it: its lines may hold other text now. Its passage is the
        # index's (a budget's reply reads no lines of it, `pool.finish`), and the answer's freshness names it.
        changed = set(self._changed_since_read(details.values()))
        results = []
        for pos, factors, score in zip(answer["positions"], answer["factors"], answer["scores"]):
            path, kind, idx, start, end, text, *_ = details[int(snap.chunk_ids[pos])]
            f = snap.chunk_file[pos]
            tags = Tags(snap.trust[f], snap.confidence[f], snap.sources[f])
            results.append({"path": path, "kind": kind, "chunk": idx, "lines": [start, end], "text": text,
                            "score": score, "tags": tags.as_dict(), "factors": factors})
            if self.location.name is not None:  # a shared store: every result names its memory
                results[-1]["memory"] = self.location.name
            if factors.get("keyword_in_tools"):
                results[-1]["tool_matches"] = self._tool_evidence(
                    path, int(snap.chunk_ids[pos]), tool_matches, tool_words,
                    excerpt=factors["keyword_in_tools"] >= TOOL_EXCERPT_SHARE and path not in changed)
        if coming:
            results = mentions.mark(results, now.date(), ahead, now.tzinfo, alone=ahead_only)
        if ahead_only and answer["match"]["answered_by"] is None:  # of all it ranked, not the `limit` shown
            named = answer["match"]["naming_the_time_asked"] = sum(r["factors"]["time"] >= 1.0 for r in results)
            answer["match"]["answered_by"] = "time" if named else None
            results = results if named or not decide else []
        if asked is not None and results:  # the best passages must hold it; those that do rank first
            results = results[:max(limit, answer_kind.CANDIDATES)]
            held = [answer_kind.holds(asked, r, now.date()) for r in results]
            if floor > 0 and answer["match"]["answered_by"] is not None:
                holding = sum(held[:answer_kind.READ])
                answer["match"].update(asked_for=asked.name, passages_read=min(answer_kind.READ, len(results)),
                                       passages_holding_it=holding)
                if not holding:
                    answer["match"]["answered_by"] = None
                    results = results if not decide else []
            results = answer_kind.weigh(results, asked, held)
        results = results[:limit]
        english_read = multi_qvec is not None and snap.multi_rows is not None and bool((snap.multi_language == "").any())
        if self.multilingual_error:  # the passages it read are searched with this embedder's meaning instead
            answer["match"]["multilingual_unavailable"] = self.multilingual_error
        if not counts:  # "?", "the": no word to look for (not "Martin" in every note, or "live" in none)
            answer["match"]["no_words"] = True
        if answer["match"]["answered_by"] is None and self.embedder.name in ENGLISH_ONLY and language \
                and not english_read:  # its meaning cannot reach an English note (`humanize.language_hint`)
            answer["match"]["question_language"] = language
        finished = time.perf_counter()
        freshness = dict(self._finish_freshness(checking) if self.local else NOT_HERE, missing_files=hidden)
        if changed := sorted(changed & {r["path"] for r in results}):
            freshness["changed_files"] = changed
        keywords = keywords + [t for t in tool_words if t not in keywords]
        return {"query": query, "keywords": keywords, "keywords_nowhere": nowhere,
                "widened_by": [{"path": path} for path in (answer["feedback"] or {}).get("files", []) if results],
                "results": results, "min_score": floor,
                "no_good_match": not results or answer["match"]["answered_by"] is None, "match": answer["match"],
                "recency": config.ranking.recency,
                "as_of": now.isoformat(timespec="seconds"), "time": [w.as_dict() for w in windows + ahead],
                "freshness": freshness, "embedder": self.embedder.name,
                "timing_ms": {"embed": round((embedded - started + second) * 1000, 2),
                              "rank": round((finished - embedded - second) * 1000, 2)}}

    def file_chunks(self, rel: str, config: Config | None = None) -> list[dict]:
        """The chunks of the file `rel` as results of a search give them (``path``, ``kind``, ``lines``,
        ``text``, ``factors.date``: the date the ranking counts from, `scoring.ranked_dates`), in file
        order: what `staleness.check_file` reads for the dashboard's file page. [] when it is not indexed."""
        config = config or self.config
        with self.store.reading():
            snap = self.snapshot()
            files = [i for i, path in enumerate(snap.paths) if path == rel]
            positions = np.flatnonzero(snap.chunk_file == files[0]) if files else []
            details = self.store.chunk_details([int(snap.chunk_ids[p]) for p in positions])
        dated, _ = ranked_dates(snap, config.ranking)
        out = []
        for pos in positions:
            path, kind, idx, start, end, text, *_ = details[int(snap.chunk_ids[pos])]
            day = datetime.fromtimestamp(float(dated[pos]), timezone.utc).isoformat(timespec="seconds")
            out.append({"path": path, "kind": kind, "chunk": idx, "lines": [start, end], "text": text,
                        "factors": {"date": day}})
        return sorted(out, key=lambda c: c["chunk"])

    def _tool_matches(self, query: str, config: Config,
                      counts: dict[str, int]) -> tuple[list[str], list[ToolMatch], tuple[dict[str, int], int]]:
        """The query's words looked up in tool texts and their best matches (none when the index holds
        no tool text); each word's count there is added to `counts`, for `keyword_coverage`, and given
        back with how many tool texts there are (`nowhere_weight`'s `tools`)."""
        total = self.store.tool_text_count()
        if not total:
            return [], [], ({}, 0)
        tool_counts: dict[str, int] = {}
        terms = tool_terms(self.store, query, total, tool_counts)
        for term, count in tool_counts.items():
            counts[term] = counts.get(term, 0) + count
        return terms, tool_search(self.store, terms, config.search.keyword_candidates), (tool_counts, total)

    def _tool_evidence(self, path: str, chunk_id: int, tool_matches: list[ToolMatch], terms: list[str],
                       excerpt: bool = True) -> list[dict]:
        """The best tool texts of one result's chunk that hold query words: tool, side, file line, and (with
        `excerpt`) the text around the first query word, read from the file (the index keeps only words). Each
        place once: two calls of one tool on one line (two Edits in one message) are one place."""
        from ..transcripts import tool_excerpt

        places = {}
        for m in tool_matches:
            if m.chunk_id == chunk_id and len(places) < TOOL_MATCHES_SHOWN:
                places.setdefault((m.tool, m.side, m.line), m.as_dict())
        found = list(places.values())
        for match in found[:1] if excerpt else ():
            match["excerpt"] = tool_excerpt(self.root / path, match["line"], terms,
                                            redact=self.config.redact_secrets)
        return found

    def _changed_since_read(self, details) -> list[str]:
        """The files of `details` (`store.chunk_details`' rows) that changed since the index read them
        (`freshness.changed_since_read`); none on another machine's memory (`local` false), whose files are not here."""
        if not self.local:
            return []
        from ..freshness import changed_since_read

        return changed_since_read(self.root, {row[0]: (row[6], row[7]) for row in details})

    def _rank_existing(self, snap: Snapshot, qvec, limit, config, filters, now, keyword, floor,
                       **more) -> tuple[dict, int]:
        """`rank_snapshot` (`more`: its keyword arguments), leaving out files deleted or renamed since the
        index last saw them, and files `config`'s ``[index] exclude`` leaves out that the index still holds (set
        since its last run), or a Logseq graph's copies of pages (`logseq.copies_folder`): neither their text nor
        a passage of theirs is in the answer.

        Files left out by their paths are known at once (`Snapshot.files_left_out`). Only the files of the results
        are checked (a stat each; through a symlink, whether the file it is is left out), and those whose passages
        widened a question that gathers (the answer names them too); a missing one is excluded and the ranking
        done again. Returns the answer and how many indexed files were found missing.
        """
        if not self.local:
            return rank_snapshot(snap, qvec, limit, config, filters, now, keyword, floor, **more), 0
        exclusion = config.exclude
        left_out = snap.files_left_out(exclusion) if exclusion else np.zeros(len(snap.paths), dtype=bool)
        gone = left_out.copy()

        def missing(f: int) -> bool:
            if not os.path.lexists(self.root / snap.paths[f]):
                return True
            # A symlink to a file left out; or a Logseq graph's copy of a page, in a folder that became a graph
            # (`logseq/config.edn` made) since the index read it.
            if (exclusion.refusal(self.root, snap.paths[f]) if exclusion
                    else copies_folder(self.root, snap.paths[f])) is not None:
                left_out[f] = True
                return True
            return False

        for attempt in range(MISSING_ROUNDS + 1):
            answer = rank_snapshot(snap, qvec, limit, config, filters, now, keyword, floor,
                                   exclude=gone if gone.any() else None, **more)
            files = {int(snap.chunk_file[p]) for p in answer["positions"]}
            files.update(answer["feedback"]["file_positions"] if answer["feedback"] else ())
            if attempt == MISSING_ROUNDS - 1:
                files = range(len(snap.paths))  # many files went at once: check them all, once
            found = [f for f in files if not gone[f] and missing(f)]
            if not found:
                break
            gone[found] = True
        return answer, int((gone & ~left_out).sum())

    def _multilingual_query(self, snap: Snapshot, query: str, config: Config) -> np.ndarray | None:
        """The query embedded by the multilingual embedder, when `snap` has passages it read (`multi_rows`),
        ``[embedder] multilingual`` is on and the query holds a word that is not a function word; None
        otherwise, or when the embedder cannot load (those passages then keep this embedder's meaning, and
        `multilingual_error` says why)."""
        self.multilingual_error = None
        if snap.multi_rows is None or config.multilingual == "off":
            return None
        # A query of punctuation or function words alone ("?", "...", "a", "die") asks nothing: e5-small gave it
        # a high cosine with passages all the same, which would pass the relevance floor. A capitalised word
        # ("Mia", "Ella") is read: more likely a name.
        if all(t in ANY_FUNCTION_WORD for t in query_terms(query, skip=STOPWORDS)):
            return None
        if snap.multi_embedder not in MULTILINGUAL_READINGS:  # an index of another version, or edited by hand
            self.multilingual_error = f"{snap.multi_embedder!r} has no measured scale here (a newer tachikoma's?)"
            return None
        try:
            if self._multi is None or self._multi.name != snap.multi_embedder:  # the one that read the passages
                given = self.multilingual
                self._multi = given if given is not None and given.name == snap.multi_embedder \
                    else create(snap.multi_embedder)
            cannot = getattr(self._multi, "unreadable", None)  # letters it does not know: no meaning to read
            if cannot is not None and cannot([query])[0]:
                return None
            return np.asarray(self._multi.embed_query(query), dtype=np.float32)
        except EmbedderError as exc:
            self.multilingual_error = str(exc)
            return None

    def _quick_query(self, snap: Snapshot, query: str) -> np.ndarray | None:
        """The query in the quick tier's space, when some chunks of `snap` have only quick vectors."""
        if snap.quick is None:
            return None
        name = self.store.get_meta("quick_embedder")
        if not name:
            return None
        if self._quick is None or self._quick.name != name:
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
        return _FreshnessCheck(self.root, self.store, self.config.path) if self._freshness is None else None

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
        from ..freshness import answer_freshness

        self._freshness = (generation, time.monotonic(), answer_freshness(self.root, self.store, self.config.path))
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
            self._refreshing = _FreshnessCheck(self.root, self.store, self.config.path)
        return self._freshness



class _FreshnessCheck(threading.Thread):
    """`freshness.answer_freshness` on a connection of its own (one connection per thread)."""

    def __init__(self, root: Path, store, config_path: Path | None = None):
        super().__init__(name="tachikoma-freshness", daemon=True)
        self.root, self.index, self.config_path = root, store, config_path
        self.generation, self.started = store.generation, time.monotonic()
        self._value: dict | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            from ..freshness import answer_freshness

            with self.index.reopen() as store:
                self._value = answer_freshness(self.root, store, self.config_path)
        except BaseException as exc:  # handed to the searching thread, which raises it
            self._error = exc

    def result(self) -> dict:
        self.join()
        if self._error is not None:
            raise self._error
        return self._value
