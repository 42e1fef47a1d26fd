"""LoCoMo-10 retrieval evaluation through tachikoma's own indexer and searcher.

Data (the ``locomo10.json`` of the LoCoMo repository): 10 conversations, each
with 19 to 32 sessions of turns ``{speaker, dia_id, text}`` and a list of
questions ``{question, evidence, category}`` whose evidence lists the
``dia_id``s of the turns that answer it.

How a conversation becomes a memory
    One folder per conversation, one transcript per session,
    ``session_07.jsonl``, one line per turn in dialogue order::

        {"speaker": "Caroline", "text": "...", "timestamp": "2023-05-08T13:56:00Z"}

    so line n of the file is turn n of the session (``D7:n``), and a chunk's
    line range says which turns it holds. An image turn carries the image's
    BLIP caption after its text as ``[image: a photo of ...]`` (the caption is
    all a text index can know of the image). Every turn's ``timestamp`` is
    the session's date-time ("1:56 pm on 8 May, 2023", read as UTC; LoCoMo
    dates sessions, not turns), so the transcript chunker starts each chunk
    with its date line, as it does for any timestamped transcript, and each
    chunk is dated by its turns (``date_source`` "transcript"; the file's
    modification time is set to the same date as well). The folder is
    indexed by the normal ``indexer.runner.run`` and every question is asked of its
    own conversation only, through ``Searcher.search``, with "now" at the
    conversation's last session.

Evidence quirks handled (and counted in the report): entries holding several
ids (``"D8:6; D9:17"``, ``"D9:1 D4:4 D4:6"``) are split; ``"D:11:26"`` reads
as D11:26 and ``"D30:05"`` as D30:5; an entry that names no turn (``"D"``)
and ids of turns that do not exist (conv-42 D10:19, conv-47 D4:36) are
dropped; a question left without evidence (four category-3 questions have
none) is skipped.

Systems compared in one run, over the very same chunks:

* ``bm25``: SQLite FTS5 ``bm25()`` over ``chunks_fts`` alone, the chunks in
  BM25 order (the keyword part of hybrid search on its own).
* ``vector``: cosine similarity alone (no per-file limit, no recency).
* ``vector+file``: + at most two chunks per file, the second × 0.8.
* ``vector+file+recency``: + the configured recency (the default preset).
* ``hybrid``: + keyword relevance fused into similarity (tachikoma's defaults).
* ``hybrid-recency``: the same without recency.
* ``hybrid-seed`` / ``hybrid-strong``: the same with the ``seed`` and
  ``strong`` recency presets (the recency rows of the report, per half of the
  conversations: `recency_rows`).

With ``sweep``, more hybrid rows (fusion method × keyword weight, without
recency) show how the default weight was chosen.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from ..indexer import runner
from ..chunking import MONTH_NAMES
from ..config import Config, SearchConfig
from ..embedders import choose, offline_default
from ..errors import TachikomaError
from ..search.keywords import keyword_search
from ..search.searcher import Searcher
from . import metrics, reports
from .cached_queries import CachedQueries
from .sessions import write_transcripts

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (1, 3, 5, 10)
METRICS = (
    ("session_recall_any", "session recall_any"),
    ("session_recall_all", "session recall_all"),
    ("session_ndcg", "session nDCG"),
    ("session_R", "LoCoMo R, session unit"),
    ("chunk_R", "LoCoMo R, chunk unit"),
)
MONTHS = {name.lower(): number for number, name in enumerate(MONTH_NAMES, 1)}
_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)
_SESSION = re.compile(r"^session_(\d+)$")
_ID = re.compile(r"^D:?(\d+):(\d+)$")
_CANONICAL_ID = re.compile(r"^D[1-9]\d*:[1-9]\d*$")


# ------------------------------------------------------------------ data

@dataclass
class Turn:
    session: int
    turn: int
    speaker: str
    text: str


@dataclass
class Session:
    number: int
    date: datetime
    turns: list[Turn]


@dataclass
class Question:
    index: int  # position in the conversation's qa list
    text: str
    category: int
    evidence: list[tuple[int, int]]  # (session, turn), valid and distinct


@dataclass
class Conversation:
    sample_id: str
    sessions: list[Session]
    questions: list[Question]
    position: int = 0  # in the file, from 0 (conversations 0-4 chose the recency default; 5-9 are held out)

    @property
    def now(self) -> datetime:
        return max(s.date for s in self.sessions)


@dataclass
class Quirks:
    """What was repaired or dropped while reading the evidence."""

    split_entries: int = 0  # entries holding several ids
    repaired_ids: int = 0  # ids read after fixing their form (D:11:26, D30:05)
    unparseable_ids: list[str] = field(default_factory=list)  # "conv: raw"
    missing_turns: list[str] = field(default_factory=list)  # "conv: D10:19"
    skipped_no_evidence: list[str] = field(default_factory=list)  # "conv #qa (category)"
    skipped_no_valid_evidence: list[str] = field(default_factory=list)


def parse_session_date(text: str) -> datetime:
    """"1:56 pm on 8 May, 2023" → 2023-05-08 13:56 UTC."""
    m = _DATE.match(text or "")
    if not m or m.group(5).lower() not in MONTHS:
        raise ValueError(f"unrecognised session date {text!r}")
    hour, minute, half, day, month, year = m.groups()
    hour = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), MONTHS[month.lower()], int(day), hour, int(minute), tzinfo=timezone.utc)


def parse_evidence(raw: list, quirks: Quirks | None = None, where: str = "") -> list[tuple[int, int]]:
    """(session, turn) of each evidence id, in order, without repeats; malformed ids repaired or dropped."""
    quirks = quirks or Quirks()
    out: list[tuple[int, int]] = []
    for entry in raw:
        pieces = [p for p in re.split(r"[;,\s]+", str(entry)) if p]
        if len(pieces) > 1:
            quirks.split_entries += 1
        for piece in pieces:
            m = _ID.match(piece)
            if not m:
                quirks.unparseable_ids.append(f"{where}: {piece!r}")
                continue
            if not _CANONICAL_ID.match(piece):
                quirks.repaired_ids += 1
            ident = (int(m.group(1)), int(m.group(2)))
            if ident not in out:
                out.append(ident)
    return out


def parse_selection(spec: str) -> list[int]:
    """"0-4" → [0, 1, 2, 3, 4]; "0,2,5-6" → [0, 2, 5, 6] (conversation positions, from 0)."""
    chosen: list[int] = []
    for part in spec.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise TachikomaError(f"--conversations {spec!r}: use positions from 0 like 0-4 or 0,2,5-9") from None
        if low < 0 or high < low:
            raise TachikomaError(f"--conversations {spec!r}: {part.strip()!r} is not a range of positions from 0")
        chosen += [i for i in range(low, high + 1) if i not in chosen]
    return chosen


def load(path: Path, limit: int | None = None, only: list[int] | None = None) -> tuple[list[Conversation], Quirks]:
    """The conversations of a LoCoMo file (the first `limit`, or those at the positions `only`), and
    the evidence quirks met."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TachikomaError(f"{path}: cannot read the LoCoMo file ({exc})") from exc
    if not isinstance(data, list):
        raise TachikomaError(f"{path}: expected a JSON list of conversations")
    quirks = Quirks()
    conversations = []
    if only is not None:
        missing = [i for i in only if i >= len(data)]
        if missing:
            raise TachikomaError(f"{path}: has {len(data)} conversations, no position {missing[0]} (from 0)")
    positions = list(only) if only is not None else list(range(len(data)))
    if limit:
        positions = positions[:limit]
    for position in positions:
        item = data[position]
        try:
            conversations.append(replace(_conversation(item, quirks), position=position))
        except (KeyError, TypeError, ValueError) as exc:
            raise TachikomaError(f"{path}: conversation {item.get('sample_id', '?')}: {exc}") from exc
    return conversations, quirks


def _conversation(item: dict, quirks: Quirks) -> Conversation:
    sample_id = str(item["sample_id"])
    conv = item["conversation"]
    sessions = []
    for key, turns in conv.items():
        m = _SESSION.match(key)
        if not m or not isinstance(turns, list) or not turns:
            continue
        number = int(m.group(1))
        date = parse_session_date(conv[f"{key}_date_time"])
        parsed = []
        for t in turns:
            ids = parse_evidence([t["dia_id"]])
            if len(ids) != 1 or ids[0][0] != number:
                raise ValueError(f"turn id {t['dia_id']!r} in {key}")
            parsed.append(Turn(number, ids[0][1], str(t.get("speaker", "")), turn_text(t)))
        sessions.append(Session(number, date, parsed))
    sessions.sort(key=lambda s: s.number)
    existing = {(t.session, t.turn) for s in sessions for t in s.turns}
    questions = []
    for index, qa in enumerate(item["qa"]):
        where = f"{sample_id} #{index}"
        category = int(qa["category"])
        if not qa.get("evidence"):
            quirks.skipped_no_evidence.append(f"{where} (category {category})")
            continue
        evidence = parse_evidence(qa["evidence"], quirks, where)
        for ident in [e for e in evidence if e not in existing]:
            quirks.missing_turns.append(f"{sample_id}: D{ident[0]}:{ident[1]}")
            evidence.remove(ident)
        if not evidence:
            quirks.skipped_no_valid_evidence.append(f"{where} (category {category})")
            continue
        questions.append(Question(index, str(qa["question"]), category, evidence))
    return Conversation(sample_id, sessions, questions)


def turn_text(turn: dict) -> str:
    """A turn's text, with its image's caption when it shares one."""
    text = str(turn.get("text") or "").strip()
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [image: {caption.strip()}]".strip()
    return text


def session_file(number: int) -> str:
    return f"session_{number:02d}.jsonl"


def write_memory(conv: Conversation, root: Path) -> dict[tuple[int, int], tuple[str, int]]:
    """Write one transcript per session into `root`; (session, turn) → (file, line).

    Rewriting the same conversation leaves the files (and their index) as they were.
    """
    where: dict[tuple[int, int], tuple[str, int]] = {}
    transcripts = {}
    for session in conv.sessions:
        name = session_file(session.number)
        stamp_text = session.date.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines = []
        for line, t in enumerate(session.turns, 1):
            lines.append(json.dumps({"speaker": t.speaker, "text": t.text, "timestamp": stamp_text},
                                    ensure_ascii=False))
            where[(t.session, t.turn)] = (name, line)
        transcripts[name] = (lines, session.date)
    write_transcripts(root, transcripts)
    return where


# ------------------------------------------------------------------ systems

@dataclass
class System:
    key: str
    description: str
    config: Config | None  # None: the BM25 baseline

    def as_dict(self) -> dict:
        out = {"key": self.key, "description": self.description}
        if self.config is not None:
            r, s = self.config.ranking, self.config.search
            out["config"] = {"per_file": r.per_file if r.per_file < 10**6 else None,
                             "repeat_penalty": r.repeat_penalty,
                             "recency": r.recency,
                             "keyword_weight": s.keyword_weight, "fusion": s.fusion}
        return out


def systems(base: Config, sweep: bool = False) -> list[System]:
    """The rows of the report: the BM25 baseline, the ablation ladder, and optionally a weight sweep.

    Retrieval is measured without the relevance floor (`min_score` 0): every
    question here has its answer in the memory, and the floor is measured on
    its own (`tachikoma.evaluation.abstention`)."""
    base = replace(base, search=replace(base.search, min_score=0.0))
    flat = base.ranking.with_recency("off")
    no_file = replace(flat, per_file=10**9, repeat_penalty=1.0)
    vector_only = replace(base.search, keyword_weight=0.0)
    s = base.search
    rule = base.ranking.recency
    ladder = [
        System("bm25", "SQLite FTS5 bm25() over the same chunks, alone", None),
        System("vector", "cosine similarity alone (no per-file rule, no recency)",
               replace(base, ranking=no_file, search=vector_only)),
        System("vector+file", "+ at most 2 chunks per file, the 2nd × 0.8",
               replace(base, ranking=flat, search=vector_only)),
        System("vector+file+recency", f"+ recency ({rule})", replace(base, search=vector_only)),
        System("hybrid", f"+ keyword relevance ({s.fusion}, keyword_weight {s.keyword_weight:g}): the defaults "
                         f"(recency {rule})", base),
        System("hybrid-recency", "hybrid without recency (recency off)", replace(base, ranking=flat)),
        System("hybrid-seed", "hybrid with the seed's recency, 1 / (1 + days / 30)",
               replace(base, ranking=base.ranking.with_recency("seed"))),
        System("hybrid-strong", "hybrid with the strong recency preset",
               replace(base, ranking=base.ranking.with_recency("strong"))),
    ]
    if sweep:
        for w in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
            ladder.append(System(f"sweep:convex:{w:g}", f"convex fusion, keyword_weight {w:g}, no recency",
                                 replace(base, ranking=flat, search=SearchConfig(keyword_weight=w, fusion="convex",
                                                                                 min_score=0.0))))
        for w in (0.3, 0.5, 0.7):
            ladder.append(System(f"sweep:rrf:{w:g}", f"RRF (k = 60), keyword_weight {w:g}, no recency",
                                 replace(base, ranking=flat, search=SearchConfig(keyword_weight=w, fusion="rrf",
                                                                                 min_score=0.0))))
    return ladder


# ------------------------------------------------------------------ running

Spans = list[tuple[str, int, int]]


def searched_spans(searcher: Searcher, question: str, config: Config, now: datetime, files: int) -> Spans:
    """(file, first line, last line) of the ranked chunks, enough of them to cover `files` distinct files."""
    limit = max(2 * files, 20)
    while True:
        results = searcher.search(question, limit, now=now, config=config)["results"]
        spans = [(r["path"], r["lines"][0], r["lines"][1]) for r in results]
        if len(results) < limit or len(metrics.distinct(p for p, _, _ in spans)) >= files:
            return spans
        limit *= 4


def bm25_spans(store, question: str, total: int, spans_by_id: dict[int, tuple]) -> Spans:
    """Every keyword match, best BM25 first, as (file, first line, last line)."""
    return [spans_by_id[i] for i, _ in keyword_search(store, question, total, None) if i in spans_by_id]


def question_metrics(spans: Spans, evidence: list[tuple[str, int]], ks=KS) -> dict[str, float]:
    files = metrics.distinct(p for p, _, _ in spans)
    gold = {f for f, _ in evidence}
    out = {}
    for k in ks:
        out[f"session_recall_any@{k}"] = metrics.recall_any(files, gold, k)
        out[f"session_recall_all@{k}"] = metrics.recall_all(files, gold, k)
        out[f"session_ndcg@{k}"] = metrics.ndcg(files, gold, k)
        out[f"session_R@{k}"] = metrics.evidence_recall_files(files, evidence, k)
        out[f"chunk_R@{k}"] = metrics.evidence_recall_spans(spans, evidence, k)
    return out


Bar = Callable[..., object]


def evaluate(path: Path, embedder_name: str | None = None, limit_conversations: int | None = None,
             base: Config | None = None, sweep: bool = False, work: Path | None = None,
             progress: bool = True, argv: list[str] | None = None, max_words: int | None = None,
             only: list[int] | None = None, recency_cases: int = 0, vectors: str = "full") -> dict:
    """Run the whole evaluation and return the report (see `write_report` for its files).

    `only`: the positions (from 0) of the conversations to use, e.g. 0-4 to tune and 5-9 to report.
    `recency_cases` > 0 also runs the two recency sets (`evaluation.recency`) with that many cases each.
    `vectors` "quick": every chunk is searched by its quick-tier vector only (`indexer.pipeline.quick_tier`)."""
    started = time.perf_counter()
    path = Path(path)
    conversations, quirks = load(path, limit_conversations, only)
    base = base or Config()
    rows = systems(base, sweep)
    embedder = CachedQueries(choose(embedder_name or offline_default(), None), max_words)
    scratch = None
    if work is None:
        scratch = Path(tempfile.mkdtemp(prefix="tachikoma-locomo-"))
        work = scratch
    tier = "-quick" if vectors == "quick" else ""
    work = Path(work) / re.sub(r"[^A-Za-z0-9._-]+", "_", f"{embedder.name}-{embedder.max_words}w{tier}")
    from tqdm import tqdm

    disable = None if progress else True  # None: draw only on a terminal
    index_bar = tqdm(total=sum(len(c.sessions) for c in conversations), unit="session", desc="index",
                     file=sys.stderr, disable=disable, dynamic_ncols=True)
    question_bar = tqdm(total=sum(len(c.questions) for c in conversations), unit="question", desc="search",
                        file=sys.stderr, disable=disable, dynamic_ncols=True)
    per_question: list[dict] = []
    stats = {"sessions": 0, "chunks": 0, "chunks_embedded": 0, "index_seconds": 0.0, "search_seconds": 0.0}
    try:
        for conv in conversations:
            root = work / conv.sample_id
            where = write_memory(conv, root)
            t = time.perf_counter()
            done_before = index_bar.n

            def tick(done: int, total: int, note: str, start: int = done_before) -> None:
                index_bar.n = start + done
                index_bar.refresh()

            summary = runner.run(root, base, embedder=embedder, progress=tick, vectors=vectors)
            index_bar.n = done_before + len(conv.sessions)
            index_bar.refresh()
            stats["index_seconds"] += time.perf_counter() - t
            stats["sessions"] += len(conv.sessions)
            stats["chunks"] += summary.chunks
            stats["chunks_embedded"] += summary.chunks_embedded
            t = time.perf_counter()
            per_question += _ask(root, conv, where, rows, embedder, base, question_bar)
            stats["search_seconds"] += time.perf_counter() - t
    finally:
        index_bar.close()
        question_bar.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    report = {
        "meta": _meta(path, embedder.name, embedder.max_words, conversations, quirks, stats, started, argv,
                      base),
        "systems": [r.as_dict() for r in rows],
        "results": aggregate(per_question, [r.key for r in rows]),
        "by_conversation": by_conversation(per_question, [r.key for r in rows]),
    }
    report["recency_rows"] = recency_rows(per_question)
    if recency_cases:
        from . import recency

        report["recency_sets"] = recency.measure(embedder_name, base, work=work.parent, n=recency_cases)
    report["per_question"] = per_question
    return report


#: The rows of the recency comparison: the same hybrid ranking with each recency rule, and BM25.
RECENCY_ROWS = (("hybrid", "default"), ("hybrid-strong", "strong"), ("hybrid-seed", "seed"),
                ("hybrid-recency", "off"), ("bm25", "BM25 (no recency)"))
HALVES = (("0-4", range(0, 5)), ("5-9", range(5, 10)))


def recency_rows(per_question: list[dict], k: int = 5) -> list[dict]:
    """Session R@k and nDCG@k of each recency rule, overall and for conversations 0-4 (where the default
    was chosen) and 5-9 (held out), for the conversations that were asked."""
    out = []
    for key, name in RECENCY_ROWS:
        row = {"system": key, "recency": name}
        for group, positions in (("all", None), *HALVES):
            rows = [q for q in per_question if key in q["metrics"]
                    and (positions is None or q.get("position") in positions)]
            if rows:
                row[group] = {"questions": len(rows),
                              "session_R": float(np.mean([q["metrics"][key][f"session_R@{k}"] for q in rows])),
                              "session_ndcg": float(np.mean([q["metrics"][key][f"session_ndcg@{k}"] for q in rows]))}
        out.append(row)
    return out


def recency_table(report: dict) -> str:
    """Markdown: session R@5 / nDCG@5 per recency rule, overall and per half of the conversations."""
    rows = report.get("recency_rows") or []
    groups = [g for g in ("all", "0-4", "5-9") if any(g in r for r in rows)]
    titles = {"all": "all asked", "0-4": "conversations 0-4 (chosen on)", "5-9": "conversations 5-9 (held out)"}
    lines = ["| recency | " + " | ".join(f"{titles[g]} R@5 | nDCG@5" for g in groups) + " |",
             "|---|" + "---:|---:|" * len(groups)]
    for r in rows:
        cells = []
        for g in groups:
            cell = r.get(g)
            cells += [_fmt(cell["session_R"]), _fmt(cell["session_ndcg"])] if cell else ["–", "–"]
        lines.append(f"| {r['recency']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _ask(root: Path, conv: Conversation, where: dict, rows: list[System], embedder, base: Config, bar) -> list[dict]:
    searcher = Searcher(root, base, embedder=embedder)
    try:
        total = searcher.store.counts()[1]
        spans_by_id = searcher.store.chunk_spans()
        out = []
        now = conv.now
        want = max(KS)
        for q in conv.questions:
            evidence = [where[e] for e in q.evidence]
            row = {"conversation": conv.sample_id, "position": conv.position, "qa": q.index, "category": q.category,
                   "metrics": {}}
            for system in rows:
                if system.config is None:
                    spans = bm25_spans(searcher.store, q.text, total, spans_by_id)
                else:
                    spans = searched_spans(searcher, q.text, system.config, now, want)
                row["metrics"][system.key] = question_metrics(spans, evidence)
            out.append(row)
            bar.update(1)
        return out
    finally:
        searcher.close()


def aggregate(per_question: list[dict], keys: list[str]) -> dict:
    """system → group ("overall", "1".."5") → {"questions": n, metric@k: mean}."""
    groups = {"overall": per_question}
    for c in CATEGORIES:
        groups[str(c)] = [q for q in per_question if q["category"] == c]
    return metrics.group_means(groups, keys)


def by_conversation(per_question: list[dict], keys: list[str]) -> dict:
    """system → conversation id → {"questions": n, metric@k: mean}: how steady a figure is across memories."""
    groups: dict[str, list[dict]] = {}
    for q in per_question:
        groups.setdefault(q["conversation"], []).append(q)
    return metrics.group_means(groups, keys)


def _meta(path: Path, embedder: str, max_words: int, conversations, quirks: Quirks, stats: dict,
          started: float, argv, base: Config) -> dict:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    questions = {str(c): sum(1 for conv in conversations for q in conv.questions if q.category == c)
                 for c in CATEGORIES}
    return {
        "command": "tachikoma " + " ".join(argv) if argv is not None else None,
        "data": {"path": str(path), "sha256": digest, "conversations": len(conversations),
                 "sessions": stats["sessions"], "questions": sum(questions.values()),
                 "questions_by_category": questions},
        "index": {"embedder": embedder, "max_words": max_words, "chunks": stats["chunks"],
                  "chunks_embedded": stats["chunks_embedded"]},
        "quirks": asdict(quirks),
        "seconds": {"index": round(stats["index_seconds"], 1), "search": round(stats["search_seconds"], 1),
                    "total": round(time.perf_counter() - started, 1)},
        "defaults": {"keyword_weight": base.search.keyword_weight, "fusion": base.search.fusion,
                     "recency": base.ranking.recency, "per_file": base.ranking.per_file,
                     "repeat_penalty": base.ranking.repeat_penalty},
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "numpy": np.__version__, "sqlite": sqlite3.sqlite_version, "processor": _cpu_name()},
        "categories": {str(k): v for k, v in CATEGORIES.items()},
    }


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ------------------------------------------------------------------ report

def _group_title(group: str) -> str:
    return "overall" if group == "overall" else f"{group} {CATEGORIES[int(group)]}"


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.3f}"


def headline(report: dict, k: int = 5) -> str:
    """Markdown: session nDCG@k and both LoCoMo R@k, per system, overall and per category."""
    results = report["results"]
    groups = ["overall"] + [str(c) for c in CATEGORIES]
    counts = {g: results[report["systems"][0]["key"]][g]["questions"] for g in groups}
    header = "| system | " + " | ".join(f"{_group_title(g)} (n={counts[g]})" for g in groups) + " |"
    rule = "|---|" + "---:|" * len(groups)
    out = []
    for metric, title in (("session_ndcg", "session nDCG"), ("session_R", "LoCoMo R, session unit"),
                          ("chunk_R", "LoCoMo R, chunk unit")):
        out.append(f"**{title} @{k}**\n")
        out += [header, rule]
        for system in report["systems"]:
            cells = [_fmt(results[system["key"]][g].get(f"{metric}@{k}")) for g in groups]
            out.append(f"| {system['key']} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def full_table(report: dict, group: str) -> str:
    """Markdown: every metric at every k for one group."""
    results = report["results"]
    columns = [(name, k) for name, _ in METRICS for k in KS]
    short = {"session_recall_any": "any", "session_recall_all": "all", "session_ndcg": "nDCG",
             "session_R": "R_sess", "chunk_R": "R_chunk"}
    n = results[report["systems"][0]["key"]][group]["questions"]
    lines = [f"**{_group_title(group)}** ({n} questions)\n",
             "| system | " + " | ".join(f"{short[name]}@{k}" for name, k in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for system in report["systems"]:
        cell = results[system["key"]][group]
        lines.append(f"| {system['key']} | " + " | ".join(_fmt(cell.get(f"{name}@{k}")) for name, k in columns)
                     + " |")
    return "\n".join(lines) + "\n"


def conversation_table(report: dict, metric: str = "session_R@5") -> str:
    """Markdown: one metric per system (rows) and conversation (columns)."""
    table = report.get("by_conversation") or {}
    keys = [s["key"] for s in report["systems"] if s["key"] in table]
    if not keys:
        return ""
    conversations = list(table[keys[0]])
    lines = [f"**{metric} per conversation**\n",
             "| system | " + " | ".join(conversations) + " |",
             "|---|" + "---:|" * len(conversations)]
    for key in keys:
        lines.append(f"| {key} | " + " | ".join(_fmt(table[key][c].get(metric)) for c in conversations) + " |")
    return "\n".join(lines) + "\n"


def markdown(report: dict) -> str:
    meta = report["meta"]
    q = meta["quirks"]
    lines = [
        "# LoCoMo retrieval evaluation",
        "",
        f"Command: `{meta['command']}`" if meta.get("command") else "",
        f"Data: {meta['data']['path']} (sha256 {meta['data']['sha256'][:12]}…), "
        f"{meta['data']['conversations']} conversations, {meta['data']['sessions']} sessions, "
        f"{meta['data']['questions']} questions.",
        f"Index: {meta['index']['chunks']} chunks of at most {meta['index']['max_words']} words, "
        f"embedder {meta['index']['embedder']}.",
        f"Time: {meta['seconds']['total']} s (index {meta['seconds']['index']} s, "
        f"search {meta['seconds']['search']} s) on {meta['machine']['cpus']} CPUs "
        f"({meta['machine']['processor']}), {meta['machine']['platform']}.",
        f"Evidence quirks: {q['split_entries']} entries split, {q['repaired_ids']} ids repaired, "
        f"{len(q['unparseable_ids'])} unparseable ids dropped, {len(q['missing_turns'])} ids of missing turns "
        f"dropped, {len(q['skipped_no_evidence'])} questions without evidence skipped, "
        f"{len(q['skipped_no_valid_evidence'])} without usable evidence skipped.",
        "",
        "Systems:",
        "",
    ]
    lines += [f"- `{s['key']}`: {s['description']}" for s in report["systems"]]
    lines += ["", "Session level: the files (sessions) in the order of their first chunk in the results. "
              "recall_any / recall_all: some / every gold session in the top k; nDCG binary; "
              "R_sess: LoCoMo R@k, share of evidence turns whose session is in the top k sessions; "
              "R_chunk: LoCoMo R@k, share of evidence turns inside the line range of one of the top k chunks.",
              "", "## Recency rules", "", recency_table(report), *_recency_sets_lines(report),
              "## At k = 5", "", headline(report), "## All metrics", ""]
    for group in ["overall"] + [str(c) for c in CATEGORIES]:
        lines += [full_table(report, group)]
    if report.get("by_conversation"):
        lines += ["## Per conversation", "", conversation_table(report, "session_R@5"),
                  conversation_table(report, "session_ndcg@5")]
    return "\n".join(lines)


def _recency_sets_lines(report: dict) -> list[str]:
    if "recency_sets" not in report:
        return []
    from . import recency

    sets = report["recency_sets"]
    return ["The recency sets (`tachikoma eval recency`: each case's own memories, target "
            f"{sets['target']:.0%}, {sets['cases']} cases each):", "", recency.table(sets), ""]


def write_report(report: dict, out: Path) -> list[Path]:
    """report.md, report.json and per_question.jsonl (metrics per question; no data text) in `out`."""
    return reports.write_files(report, out, markdown(report))


def terminal(report: dict) -> str:
    """What the command prints: the k = 5 tables and the overall table."""
    meta = report["meta"]
    return "\n".join([headline(report), full_table(report, "overall"), "Recency rules (session @5):",
                      recency_table(report), *_recency_sets_lines(report),
                      f"{meta['data']['questions']} questions, {meta['index']['chunks']} chunks, "
                      f"{meta['index']['embedder']}, {meta['seconds']['total']} s"])
