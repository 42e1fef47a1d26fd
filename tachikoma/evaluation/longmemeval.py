"""LongMemEval retrieval evaluation through tachikoma's own indexer and searcher.

Data: the official ``longmemeval_s`` file (a JSON list, optionally gzipped) of
questions, each with its own history of about 48 chat sessions:
``question_id`` (``…_abs`` when the answer is not in the history),
``question_type``, ``question``, ``question_date`` ("2023/05/30 (Tue) 23:40"),
``haystack_session_ids``, ``haystack_dates``, ``haystack_sessions`` (lists of
``{"role", "content"}`` turns) and ``answer_session_ids``.

How a question becomes a memory
    One folder per question, one transcript per session
    (``s07_<session id>.jsonl``), one chat-API line per turn
    (``{"role": "user", "content": ..., "timestamp": <session date>}``), read
    by the generic transcript reader, chunked, embedded and indexed by the
    normal ``indexer.runner.run``. The question is asked through ``Searcher.search``
    with "now" (``as_of``) at the question date.

Metrics are at session level (a session is a file: the ranked list is the
files in the order of their first chunk among the results):
recall_any@k, recall_all@k and binary nDCG@k for k = 1, 5 and 10 and the mean
reciprocal rank, overall, per half (`metrics.split_of`: "dev" to choose rules
on, "held" to report them) and per question type, on the questions that are
not abstention questions; the default's difference from whole-session BM25
and from the vector alone, question by question, with a 95% bootstrap interval. On the ``_abs``
questions the default search (with its relevance floor) is asked too, and the
report says how often it answers "no good match" (and how often it does so on
answerable questions, the cost).

Rows of one run, over the very same chunks: the defaults, the defaults
without reading time in the question, without recency, vector only,
keywords only, and a BM25 over whole sessions (one FTS5 document per
session, the same query words).

Embedding is most of the cost (15 million words), so document vectors go
through `VectorCache`: a SQLite file keyed by the embedder and the exact text,
shared by every question and every run; the same text is never embedded
twice. ``limit`` takes a stratified subset (`stratified`): every prefix of
the order holds the question types in their shares, so a smaller run is a
prefix of a larger one and reuses its vectors.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ..indexer import runner
from ..config import Config
from ..embedders import choose, offline_default
from ..errors import TachikomaError
from ..search.keywords import STOPWORDS, query_terms
from ..search.searcher import Searcher
from ..store.fts import keyword_expression
from ..store import FTS_TOKENIZE
from . import metrics, reports
from .cached_queries import CachedQueries
from .locomo import searched_spans
from .sessions import write_transcripts

KS = (1, 5, 10)
#: The metrics whose default-against-baseline difference gets a bootstrap interval.
COMPARED = ("recall_any@1", "recall_any@5", "recall_all@5", "recall_all@10", "ndcg@5", "mrr")
#: The halves of the questions (`metrics.split_of`): rules are chosen on dev and reported on held as well.
SPLITS = ("dev", "held")
#: The baselines the default is compared with, question by question.
BASELINES = ("bm25-sessions", "vector-only")
TYPES = ("single-session-user", "single-session-assistant", "single-session-preference", "multi-session",
         "knowledge-update", "temporal-reasoning")
_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]{3}\))?\s*(?:(\d{1,2}):(\d{2}))?\s*$")


# ------------------------------------------------------------------ data

@dataclass
class Session:
    ident: str
    date: datetime
    turns: list[dict]  # {"role", "content"}


@dataclass
class Question:
    ident: str
    kind: str  # question_type
    text: str
    date: datetime
    sessions: list[Session]
    gold: list[str]  # answer session ids that are in the haystack

    @property
    def abstention(self) -> bool:
        return self.ident.endswith("_abs")


def parse_date(text: str) -> datetime:
    """"2023/05/30 (Tue) 23:40" → 2023-05-30 23:40 UTC (LongMemEval gives no time zone)."""
    m = _DATE.match(str(text or ""))
    if not m:
        raise ValueError(f"unrecognised date {text!r}")
    year, month, day, hour, minute = (int(g) if g else 0 for g in m.groups())
    return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)


def load(path: Path) -> list[Question]:
    """The questions of a LongMemEval file (``.json`` or ``.json.gz``), in file order."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        data = json.loads(raw.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError, gzip.BadGzipFile) as exc:
        raise TachikomaError(f"{path}: cannot read the LongMemEval file ({exc})") from exc
    if not isinstance(data, list):
        raise TachikomaError(f"{path}: expected a JSON list of questions")
    return load_items(data, str(path))


def load_items(data: list, where: str = "data") -> list[Question]:
    """Questions from already parsed items; a malformed one stops with its id and what is wrong."""
    out = []
    for n, item in enumerate(data):
        try:
            out.append(_question(item))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            name = item.get("question_id", f"#{n}") if isinstance(item, dict) else f"#{n}"
            raise TachikomaError(f"{where}: question {name}: {exc}") from exc
    return out


def _question(item: dict) -> Question:
    ids, dates, sessions = item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"]
    if not (len(ids) == len(dates) == len(sessions)):
        raise ValueError("haystack_session_ids, haystack_dates and haystack_sessions differ in length")
    parsed = []
    for ident, date, turns in zip(ids, dates, sessions):
        kept = [{"role": str(t["role"]), "content": str(t.get("content") or "")} for t in turns]
        parsed.append(Session(str(ident), parse_date(date), kept))
    present = {s.ident for s in parsed}
    gold = [str(g) for g in item.get("answer_session_ids") or [] if str(g) in present]
    return Question(str(item["question_id"]), str(item["question_type"]), str(item["question"]),
                    parse_date(item["question_date"]), parsed, gold)


def group_of(q: Question) -> str:
    return q.kind + ("_abs" if q.abstention else "")


def stratified(questions: list[Question], limit: int | None) -> list[Question]:
    """The first `limit` questions of an order that keeps every group (type, abstention) in its share.

    Within a group questions are taken in a fixed pseudo-random order (by a hash of their id); the
    groups are interleaved by each question's place in its group, so any prefix is stratified.
    """
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(group_of(q), []).append(q)
    keyed = []
    for name, items in groups.items():
        items = sorted(items, key=lambda q: hashlib.sha256(q.ident.encode()).hexdigest())
        keyed += [((i + 0.5) / len(items), name, q.ident, q) for i, q in enumerate(items)]
    ordered = [k[-1] for k in sorted(keyed, key=lambda k: k[:3])]
    return ordered[:limit] if limit else ordered


def session_file(position: int, ident: str) -> str:
    return f"s{position:02d}_{re.sub(r'[^A-Za-z0-9_-]+', '_', ident)[:80]}.jsonl"


def write_memory(q: Question, root: Path) -> dict[str, str]:
    """One transcript per session in `root` (files left from another question removed); file → session id."""
    names = {session_file(i, s.ident): s for i, s in enumerate(q.sessions)}
    transcripts = {}
    for name, session in names.items():
        stamp = session.date.strftime("%Y-%m-%dT%H:%M:%SZ")
        lines = [json.dumps({"role": t["role"], "content": t["content"], "timestamp": stamp}, ensure_ascii=False)
                 for t in session.turns]
        transcripts[name] = (lines, session.date)
    write_transcripts(root, transcripts)
    return {name: s.ident for name, s in names.items()}


# ------------------------------------------------------------------ vectors

def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tachikoma" / "eval-vectors.sqlite"


class VectorCache(CachedQueries):
    """An embedder that keeps every document vector in a SQLite file, keyed by embedder and exact text.

    Questions share sessions and runs repeat, so a text is embedded once, ever. Queries are kept in
    memory (`CachedQueries`)."""

    def __init__(self, inner, path: Path):
        super().__init__(inner)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(str(path))
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        self.hits = self.misses = 0
        self.embed_seconds = 0.0

    def _key(self, text: str) -> bytes:
        return hashlib.sha256(f"{self.name}\0{text}".encode("utf-8")).digest()

    def embed_documents(self, texts, progress=None):
        keys = [self._key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            rows = self.db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                                   part).fetchall()
            found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        missing = list({k: t for k, t in zip(keys, texts) if k not in found}.items())
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if missing:
            started = time.perf_counter()
            vectors = np.asarray(self.inner.embed_documents([t for _, t in missing], progress), dtype=np.float32)
            self.embed_seconds += time.perf_counter() - started
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                                    [(k, v.tobytes()) for (k, _), v in zip(missing, vectors)])
            found.update((k, v) for (k, _), v in zip(missing, vectors))
        out = np.empty((len(keys), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = found[k]
        return out

    def close(self) -> None:
        self.db.close()


# ------------------------------------------------------------------ systems

@dataclass
class System:
    key: str
    description: str
    config: Config | None  # None: BM25 over whole sessions


def systems(base: Config) -> list[System]:
    """The default ranking, its ablations and the whole-session BM25 baseline. Retrieval is measured
    without the relevance floor (every answerable question has its answer in the memory)."""
    base = replace(base, search=replace(base.search, min_score=0.0))
    return [
        System("default", "tachikoma's defaults (hybrid, recency, time read from the question)", base),
        System("no-time-reading", "the defaults without reading time in the question",
               replace(base, search=replace(base.search, time_reading=False))),
        System("no-recency", "the defaults with recency off", replace(base, ranking=base.ranking.with_recency("off"))),
        System("vector-only", "the defaults, similarity from the vector alone (keyword_weight 0)",
               replace(base, search=replace(base.search, keyword_weight=0.0))),
        System("keywords-only", "the defaults, similarity from keywords alone (keyword_weight 1)",
               replace(base, search=replace(base.search, keyword_weight=1.0))),
        System("bm25-sessions", "BM25 (SQLite FTS5) over whole sessions, one document per session", None),
    ]


def bm25_sessions(q: Question, names: dict[str, str]) -> list[str]:
    """Session files ranked by FTS5 bm25() with each session as one document (matching sessions only)."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute(f"CREATE VIRTUAL TABLE docs USING fts5(name UNINDEXED, text, tokenize='{FTS_TOKENIZE}')")
        by_ident = {s.ident: s for s in q.sessions}
        db.executemany("INSERT INTO docs VALUES (?, ?)",
                       [(name, "\n".join(t["content"] for t in by_ident[ident].turns))
                        for name, ident in names.items()])
        expression = keyword_expression(query_terms(q.text, skip=STOPWORDS))
        if not expression:
            return []
        return [r[0] for r in db.execute("SELECT name FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid",
                                         (expression,))]
    finally:
        db.close()


def question_metrics(ranked_files: list[str], gold_files: set[str], ks=KS) -> dict[str, float]:
    out = {}
    for k in ks:
        out[f"recall_any@{k}"] = metrics.recall_any(ranked_files, gold_files, k)
        out[f"recall_all@{k}"] = metrics.recall_all(ranked_files, gold_files, k)
        out[f"ndcg@{k}"] = metrics.ndcg(ranked_files, gold_files, k)
    out["mrr"] = metrics.reciprocal_rank(ranked_files, gold_files)
    return out


# ------------------------------------------------------------------ running

def indexed_haystacks(questions: list[Question], embedder: "VectorCache", base: Config, work: Path | None,
                      progress: bool, desc: str):
    """Each question's haystack written as a memory folder (`write_memory`) and indexed: yields (question,
    folder, session names, the index run's summary, its seconds), one question at a time.

    `work`: the folders are kept there, one per embedder and question (a second run only searches);
    None: a temporary folder, each question's folder removed once the caller is done with it. A progress
    bar (`desc`) counts the questions and the vectors embedded and reused; the embedder is closed at the end."""
    scratch = Path(tempfile.mkdtemp(prefix=f"tachikoma-{desc}-")) if work is None else None
    folder = Path(work or scratch) / re.sub(r"[^A-Za-z0-9._-]+", "_", embedder.name)
    from tqdm import tqdm

    bar = tqdm(total=len(questions), unit="question", desc=desc, file=sys.stderr,
               disable=None if progress else True, dynamic_ncols=True)
    try:
        for q in questions:
            root = folder / re.sub(r"[^A-Za-z0-9._-]+", "_", q.ident)
            names = write_memory(q, root)
            t = time.perf_counter()
            summary = runner.run(root, base, embedder=embedder)
            yield q, root, names, summary, time.perf_counter() - t
            if work is None:
                shutil.rmtree(root, ignore_errors=True)
            bar.set_postfix(embedded=embedder.misses, reused=embedder.hits, refresh=False)
            bar.update(1)
    finally:
        bar.close()
        embedder.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def evaluate(path: Path, embedder_name: str | None = None, limit: int | None = None, base: Config | None = None,
             work: Path | None = None, cache: Path | None = None, progress: bool = True,
             argv: list[str] | None = None) -> dict:
    """Run the evaluation and return the report (`write_report` writes it out).

    `work`: keep each question's memory folder and index there (a second run only searches);
    default a temporary folder, each question's folder removed once asked. `cache`: the vector cache."""
    started = time.perf_counter()
    questions = stratified(load(path), limit)
    if not questions:
        raise TachikomaError(f"{path}: no questions")
    base = base or Config()
    rows = systems(base)
    floor_config = base  # the abstention check uses the default relevance floor
    embedder = VectorCache(choose(embedder_name or offline_default(), None),
                           Path(cache) if cache else default_cache())
    per_question: list[dict] = []
    stats = {"sessions": 0, "chunks": 0, "index_seconds": 0.0, "search_seconds": 0.0}
    with closing(indexed_haystacks(questions, embedder, base, work, progress, "longmemeval")) as haystacks:
        for q, root, names, summary, seconds in haystacks:
            stats["index_seconds"] += seconds
            stats["sessions"] += len(q.sessions)
            stats["chunks"] += summary.chunks
            t = time.perf_counter()
            per_question.append(_ask(q, root, names, rows, embedder, floor_config))
            stats["search_seconds"] += time.perf_counter() - t
    stats.update(chunks_embedded=embedder.misses, chunks_from_cache=embedder.hits,
                 embed_seconds=round(embedder.embed_seconds, 1))
    return {
        "meta": {"command": "tachikoma " + " ".join(argv) if argv is not None else None,
                 "data": {"path": str(path), "questions": len(questions),
                          "by_group": _counts(questions)},
                 "embedder": embedder.name, "cache": str(embedder.path),
                 "seconds": {"total": round(time.perf_counter() - started, 1),
                             "index": round(stats["index_seconds"], 1), "search": round(stats["search_seconds"], 1),
                             "embed": stats["embed_seconds"]},
                 "stats": stats, "cpus": os.cpu_count()},
        "systems": [{"key": s.key, "description": s.description} for s in rows],
        "results": aggregate(per_question, [s.key for s in rows]),
        "differences": differences(per_question, [s.key for s in rows]),
        "abstention": abstention_summary(per_question),
        "per_question": per_question,
    }


def _counts(questions: list[Question]) -> dict[str, int]:
    out: dict[str, int] = {}
    for q in questions:
        out[group_of(q)] = out.get(group_of(q), 0) + 1
    return out


def _ask(q: Question, root: Path, names: dict[str, str], rows: list[System], embedder, floor_config: Config) -> dict:
    gold = {name for name, ident in names.items() if ident in set(q.gold)}
    row = {"question_id": q.ident, "type": q.kind, "abstention": q.abstention, "split": metrics.split_of(q.ident),
           "metrics": {}}
    searcher = Searcher(root, floor_config, embedder=embedder)
    try:
        answer = searcher.search(q.text, 10, now=q.date, config=floor_config)
        row["no_good_match"] = answer["no_good_match"]
        row["min_score"], row["answered_by"] = answer["min_score"], answer["match"]["answered_by"]
        if q.abstention or not gold:
            return row
        for system in rows:
            if system.config is None:
                files = bm25_sessions(q, names)
            else:
                spans = searched_spans(searcher, q.text, system.config, q.date, max(KS))
                files = metrics.distinct(p for p, _, _ in spans)
            row["metrics"][system.key] = question_metrics(files, gold)
            if system.key == "default":
                row["top_sessions"] = [names[f] for f in files[:5]]
        row["gold_sessions"] = sorted(q.gold)
    finally:
        searcher.close()
    return row


def aggregate(per_question: list[dict], keys: list[str]) -> dict:
    """system → group ("overall" and each question type) → {"questions": n, metric@k: mean}."""
    scored = [q for q in per_question if q["metrics"]]
    groups = {"overall": scored, **{s: [q for q in scored if q.get("split") == s] for s in SPLITS},
              **{t: [q for q in scored if q["type"] == t] for t in TYPES}}
    return metrics.group_means(groups, keys)


def differences(per_question: list[dict], keys: list[str]) -> dict:
    """baseline → metric → `metrics.bootstrap_difference` of the default minus that baseline, over the
    answerable questions, overall and per split."""
    scored = [q for q in per_question if q["metrics"]]
    out: dict = {}
    for baseline in (b for b in BASELINES if b in keys):
        out[baseline] = {}
        for metric in COMPARED:
            out[baseline][metric] = {}
            for group in ("overall", *SPLITS):
                rows = [q for q in scored if group == "overall" or q.get("split") == group]
                out[baseline][metric][group] = metrics.bootstrap_difference(
                    [q["metrics"]["default"][metric] for q in rows], [q["metrics"][baseline][metric] for q in rows])
    return out


def abstention_summary(per_question: list[dict]) -> dict:
    """How often the default search (with its relevance floor) says "no good match", on abstention
    questions (right) and on answerable ones (wrong)."""
    abstaining = [q for q in per_question if q["abstention"]]
    answerable = [q for q in per_question if not q["abstention"]]
    floors = sorted({q["min_score"] for q in per_question if q.get("min_score") is not None})
    return {"abstention_questions": len(abstaining),
            "no_good_match_on_abstention": metrics.mean([float(q["no_good_match"]) for q in abstaining]),
            "answerable_questions": len(answerable),
            "no_good_match_on_answerable": metrics.mean([float(q["no_good_match"]) for q in answerable]),
            "min_score": floors[0] if len(floors) == 1 else floors or None,
            # what answered the abstention questions that got an answer (`ranking.match_evidence`)
            "abstention_answered_by": {by: sum(q.get("answered_by") == by for q in abstaining)
                                       for by in ("meaning", "keywords", "meaning and keywords", "time")}}


# ------------------------------------------------------------------ report

def _fmt(value) -> str:
    return "–" if value is None else f"{value:.3f}"


def table(report: dict, metric: str) -> str:
    """Markdown: one metric, systems as rows, overall and each question type as columns."""
    results = report["results"]
    first = report["systems"][0]["key"]
    groups = [g for g in ["overall", *SPLITS, *TYPES] if results[first][g]["questions"]]
    lines = [f"**{metric}**\n",
             "| system | " + " | ".join(f"{g} (n={results[first][g]['questions']})" for g in groups) + " |",
             "|---|" + "---:|" * len(groups)]
    for s in report["systems"]:
        lines.append(f"| {s['key']} | " + " | ".join(_fmt(results[s['key']][g].get(metric)) for g in groups) + " |")
    return "\n".join(lines) + "\n"


def differences_text(report: dict) -> str:
    """Markdown: the default minus each baseline, per compared metric, with its 95% bootstrap interval."""
    found = report.get("differences") or {}
    if not found:
        return ""
    lines = ["**default minus baseline** (mean over answerable questions, 95% paired bootstrap interval)\n",
             "| baseline | metric | overall | dev | held |", "|---|---|---|---|---|"]
    for baseline, by_metric in found.items():
        for metric, cells in by_metric.items():
            lines.append(f"| {baseline} | {metric} | " + " | ".join(
                "–" if c["difference"] is None else f"{c['difference']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}]"
                for c in (cells[g] for g in ("overall", *SPLITS))) + " |")
    return "\n".join(lines) + "\n"


def abstention_text(report: dict) -> str:
    a = report["abstention"]
    floor = a.get("min_score")
    said = (f" (floor {floor:g})" if isinstance(floor, float) and floor > 0 else
            " (floor 0: none is measured for this embedder, so only a question sharing nothing with the memory gets it)"
            if floor == 0 else "")
    answered = a.get("abstention_answered_by") or {}
    counts = ", ".join(f"{by} {n}" for by, n in answered.items() if n)
    by = f" The abstention questions answered were answered by {counts}." if counts else ""
    return (f"No good match (default relevance floor{said}): {_fmt(a['no_good_match_on_abstention'])} of "
            f"{a['abstention_questions']} abstention questions, {_fmt(a['no_good_match_on_answerable'])} of "
            f"{a['answerable_questions']} answerable ones.{by}")


def markdown(report: dict) -> str:
    meta = report["meta"]
    lines = ["# LongMemEval retrieval evaluation", "",
             f"Command: `{meta['command']}`" if meta.get("command") else "",
             f"Data: {meta['data']['path']}, {meta['data']['questions']} questions "
             f"({', '.join(f'{k} {v}' for k, v in sorted(meta['data']['by_group'].items()))}).",
             f"Embedder {meta['embedder']}; {meta['stats']['chunks']} chunks indexed, "
             f"{meta['stats']['chunks_embedded']} embedded, {meta['stats']['chunks_from_cache']} from the vector "
             f"cache. Time: {meta['seconds']['total']} s (embedding {meta['seconds']['embed']} s, index "
             f"{meta['seconds']['index']} s, search {meta['seconds']['search']} s) on {meta['cpus']} CPUs.", "",
             "Systems:", ""]
    lines += [f"- `{s['key']}`: {s['description']}" for s in report["systems"]]
    lines += ["", "Session level, answerable questions only; the ranked sessions are the files in the order of "
              "their first chunk among the results.", ""]
    for k in KS:
        for name in ("recall_any", "recall_all", "ndcg"):
            lines.append(table(report, f"{name}@{k}"))
    lines += [table(report, "mrr"), differences_text(report), abstention_text(report), ""]
    return "\n".join(lines)


def terminal(report: dict) -> str:
    meta = report["meta"]
    return "\n".join([table(report, "recall_any@1"), table(report, "recall_any@5"), table(report, "recall_all@5"),
                      table(report, "ndcg@5"), table(report, "mrr"), differences_text(report),
                      abstention_text(report),
                      f"{meta['data']['questions']} questions, {meta['embedder']}, {meta['seconds']['total']} s "
                      f"({meta['stats']['chunks_embedded']} chunks embedded, "
                      f"{meta['stats']['chunks_from_cache']} from the cache)"])


def write_report(report: dict, out: Path) -> list[Path]:
    """report.md, report.json and per_question.jsonl in `out`."""
    return reports.write_files(report, out, markdown(report))
