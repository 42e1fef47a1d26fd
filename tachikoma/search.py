"""Search: embed the query, score every chunk, rank, explain.

A `Searcher` keeps the vectors of the index in memory between queries (the
dashboard holds one for its lifetime) and reloads them only when the index
changes. The command line builds one per query (a cold search).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from . import memory, ranking
from .config import Config, load_config
from .embedders import choose
from .embedders.base import Embedder
from .errors import TachikomaError
from .store import Store
from .tags import Tags

DAY = 86400.0


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
    chunk_ids: np.ndarray  # (N,) chunk row ids
    chunk_file: np.ndarray  # (N,) position into the file arrays
    matrix: np.ndarray  # (N, dim) float32 unit vectors
    paths: np.ndarray  # (F,) object
    kinds: np.ndarray
    trust: np.ndarray
    confidence: np.ndarray
    sources: np.ndarray
    date: np.ndarray  # (F,) unix seconds used for recency
    date_source: np.ndarray  # (F,) "frontmatter" | "git" | "mtime"

    @classmethod
    def load(cls, store: Store, dim: int) -> "Snapshot":
        generation = store.generation
        rows = store.db.execute(
            "SELECT id, path, kind, trust, confidence, source, fm_date, git_date, mtime_ns FROM files ORDER BY id"
        ).fetchall()
        position = {r[0]: i for i, r in enumerate(rows)}
        ids, file_ids, matrix = store.load_matrix(dim)
        chunk_file = np.array([position[f] for f in file_ids.tolist()], dtype=np.int64)
        dates, sources = [], []
        for r in rows:
            fm_date, git_date, mtime_ns = r[6], r[7], r[8]
            if fm_date is not None:
                dates.append(fm_date), sources.append("frontmatter")
            elif git_date is not None:
                dates.append(git_date), sources.append("git")
            else:
                dates.append(mtime_ns / 1e9), sources.append("mtime")
        column = lambda i: np.array([r[i] for r in rows], dtype=object)  # noqa: E731
        return cls(generation, ids, chunk_file, matrix, column(1), column(2), column(3), column(4),
                   column(5), np.array(dates, dtype=np.float64), np.array(sources, dtype=object))


class Searcher:
    """Answers queries over one memory folder's index."""

    def __init__(self, root: Path, config: Config | None = None, embedder_name: str | None = None,
                 embedder: Embedder | None = None):
        self.root = root
        self.config = config or load_config(root)
        self.store = Store(memory.index_path(root))
        built_with = self.store.embedder
        if built_with is None:
            raise TachikomaError("no index yet: run `tachikoma index` first")
        requested = embedder_name or (None if self.config.embedder == "auto" else self.config.embedder)
        self.embedder = embedder or choose(requested, built_with[0])
        self.dim = built_with[1]
        self._snapshot: Snapshot | None = None

    def close(self) -> None:
        self.store.close()

    def snapshot(self) -> Snapshot:
        if self._snapshot is None or self._snapshot.generation != self.store.generation:
            self._snapshot = Snapshot.load(self.store, self.dim)
        return self._snapshot

    def search(self, query: str, limit: int = 10, filters: Filters | None = None,
               now: datetime | None = None, config: Config | None = None) -> dict:
        """Rank chunks for `query` and return the JSON-ready answer with explanations."""
        query = query.strip()
        if not query:
            raise TachikomaError("empty query: say what to look for")
        config = config or self.config
        started = time.perf_counter()
        qvec = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        embedded = time.perf_counter()
        snap = self.snapshot()
        answer = rank_snapshot(snap, qvec, limit, config, filters, now)
        details = self.store.chunk_details([int(snap.chunk_ids[i]) for i in answer["positions"]])
        results = []
        for pos, factors, score in zip(answer["positions"], answer["factors"], answer["scores"]):
            path, kind, idx, start, end, text = details[int(snap.chunk_ids[pos])]
            f = snap.chunk_file[pos]
            tags = Tags(snap.trust[f], snap.confidence[f], snap.sources[f])
            results.append({"path": path, "kind": kind, "chunk": idx, "lines": [start, end], "text": text,
                            "score": score, "tags": tags.as_dict(), "factors": factors})
        finished = time.perf_counter()
        return {"query": query, "results": results, "embedder": self.embedder.name,
                "timing_ms": {"embed": round((embedded - started) * 1000, 2),
                              "rank": round((finished - embedded) * 1000, 2)}}


def rank_snapshot(snap: Snapshot, qvec: np.ndarray, limit: int, config: Config,
                  filters: Filters | None = None, now: datetime | None = None) -> dict:
    """Score all chunks of a snapshot against a query vector; explain the top `limit`."""
    cfg = config.ranking
    now_ts = (now or datetime.now(timezone.utc)).timestamp()
    similarity = np.clip(snap.matrix @ qvec, 0.0, 1.0) if len(snap.chunk_ids) else np.empty(0)
    age_days = np.maximum(now_ts - snap.date, 0.0) / DAY
    trust_w = ranking.tag_weights(snap.trust, cfg.trust)
    conf_w = ranking.tag_weights(snap.confidence, cfg.confidence)
    rec = ranking.recency(age_days, cfg.half_life_days)
    mask = similarity > 0  # a chunk that shares nothing with the query is not a match
    if filters:
        extra = filters.mask(snap)
        if extra is not None:
            mask &= extra
    ranked = ranking.rank(similarity, snap.chunk_file, trust_w * conf_w * rec, limit,
                          cfg.per_file, cfg.repeat_penalty, mask)
    factors = []
    for pos, penalty in zip(ranked.chunks, ranked.penalty):
        f = snap.chunk_file[pos]
        factors.append({
            "similarity": float(similarity[pos]),
            "trust": snap.trust[f], "trust_weight": float(trust_w[f]),
            "confidence": snap.confidence[f], "confidence_weight": float(conf_w[f]),
            "age_days": float(age_days[f]), "date_source": snap.date_source[f],
            "date": datetime.fromtimestamp(snap.date[f], timezone.utc).isoformat(timespec="seconds"),
            "recency": float(rec[f]), "duplicate_penalty": float(penalty),
        })
    return {"positions": ranked.chunks.tolist(), "scores": [float(s) for s in ranked.scores], "factors": factors}
