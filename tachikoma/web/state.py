"""What outlives a request: the searcher (loaded once, shared under a lock),
its warm-up, the background index job and the taggings that can be undone
(kept on disk by `tachikoma.web.undo`)."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path

from tachikoma.config import load_config
from tachikoma.errors import NoIndexYet, TachikomaError
from tachikoma.search import Filters, Searcher, search_memories
from tachikoma.store import locate
from tachikoma.watcher import Watcher
from tachikoma.web.index_job import IndexJob
from tachikoma.web.undo import UndoStore

log = logging.getLogger("tachikoma.web")

NO_INDEX = "no index yet: run `tachikoma index` or press Re-index"
KEPT_UNDOS = 50


class NoIndex(TachikomaError):
    """The memory folder has not been indexed yet."""

    def __init__(self) -> None:
        super().__init__(NO_INDEX)


class Dashboard:
    """The dashboard of one memory folder: its settings, searcher, index job and undo store."""

    def __init__(self, root: Path, config_path: str | os.PathLike | None):
        self.root = root
        self.config_path = config_path
        self.index_job = IndexJob(root, self.config)
        self.undos = UndoStore(root, KEPT_UNDOS)
        self._search_lock = threading.Lock()
        self._searcher: Searcher | None = None
        self._warm_lock = threading.Lock()
        self._warmed = False
        self.watcher: Watcher | None = None

    def start_watching(self) -> None:
        """Re-index in the background whenever the memory folder changes (after a first run that
        catches up with changes made while nothing was watching)."""
        self.watcher = Watcher(self.root, lambda _paths: self.index_job.start("watch")).start()

    def index_version(self) -> str:
        """What pages poll to refresh themselves: "<index>|<runs>". The first part changes when an
        index run (from here, the watcher or the command line) completes, the second when one starts
        or this process's job changes state."""
        job = self.index_job.snapshot()
        completed, complete_flag = self.index_stamp()
        return f"{completed}|{complete_flag}:{job['state']}:{job.get('started') or ''}"

    def index_stamp(self) -> tuple[str, str]:
        """When the last index run completed, and whether the last run completed; cheap to read."""
        try:
            if not self.has_index():
                return "none", ""
            with locate(self.root).open(readonly=True) as store:
                return str(store.get_meta("last_complete_at")), str(store.get_meta("run_complete"))
        except (TachikomaError, sqlite3.Error):
            return "unreadable", ""

    def watching(self) -> dict:
        """Whether the folder is watched, for the freshness every answer carries."""
        return {"watching": self.watcher is not None and self.watcher.running,
                "watch_error": self.watcher.error if self.watcher is not None else None}

    def config(self):
        return load_config(self.root, self.config_path)

    def max_file_bytes(self) -> int | None:
        """The largest file to read, from the settings; None (the reader's default) when they are broken."""
        try:
            return self.config().max_file_bytes
        except TachikomaError:
            return None

    def recency(self) -> str:
        """The recency preset the settings choose ("default" when they are broken)."""
        try:
            return self.config().ranking.recency
        except TachikomaError:
            return "default"

    def has_index(self) -> bool:
        """Whether there is an index (an SQLite file; on PostgreSQL, this memory in the database)."""
        location = locate(self.root)
        return location.file.is_file() if location.url is None else location.exists()

    def search(self, query: str, limit: int, filters: Filters, min_score: float | None = None,
               recency: str | None = None, as_of: str | None = None, memories: tuple[str, ...] = ()) -> dict:
        """The same answer as `tachikoma search --json`. Raises NoIndex, EmbedderError, TachikomaError.
        `memories`: on a shared store, the memories to search together (`search_memories`)."""
        config = self.config()
        if memories:
            answer = search_memories(self.root, list(memories), query, limit, config, filters=filters,
                                     min_score=min_score, recency=recency, as_of=as_of)
            answer["freshness"].update(self.watching())
            return answer
        with self._search_lock:
            answer = self._current_searcher(config).search(query, limit, filters, config=config,
                                                           min_score=min_score, recency=recency, as_of=as_of)
        answer["freshness"].update(self.watching())
        return answer

    def warm_up(self) -> None:
        """Load the index and the embedder in the background once, so the first query is fast."""
        with self._warm_lock:
            if self._warmed or not self.has_index():
                return
            self._warmed = True

        def work() -> None:
            try:
                config = self.config()
                with self._search_lock:
                    self._current_searcher(config).embedder.embed_query("warm up")
            except Exception as exc:  # noqa: BLE001 - the first real search reports any problem
                log.debug("warm-up failed: %s", exc)

        threading.Thread(target=work, name="tachikoma-warm-up", daemon=True).start()

    def refresh_index(self) -> None:
        """Carry new tags into the index (no re-embedding), if there is one."""
        if self.has_index():
            self.index_job.start("refresh")

    def _current_searcher(self, config) -> Searcher:
        if not self.has_index():
            self._drop_searcher()
            raise NoIndex()
        if self._searcher is not None and self._searcher.store.embedder != (
                self._searcher.embedder.name, self._searcher.dim):
            self._drop_searcher()  # rebuilt with another embedder since
        if self._searcher is None:
            try:
                self._searcher = Searcher(self.root, config)
            except NoIndexYet:
                raise NoIndex() from None
        return self._searcher

    def _drop_searcher(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None
