"""What outlives a request: the memory kept open (`tachikoma.live.LiveMemory`: its searchers and
store connections, watcher and resident host), the warm-up, the background index job and the
taggings that can be undone (kept on disk by `tachikoma.web.undo`)."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path

from tachikoma.errors import TachikomaError
from tachikoma.live import LiveMemory
from tachikoma.resident import Host
from tachikoma.search.snapshot import Filters
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
    """The dashboard of one memory folder: its memory kept open (`tachikoma.live.LiveMemory`: settings,
    searchers, watcher, resident host), its index job and its undo store."""

    def __init__(self, root: Path, config_path: str | os.PathLike | None):
        self.root = root
        self.config_path = config_path
        self.live = LiveMemory(root, config_path, missing=NoIndex, check_index=True)
        self.searchers = self.live.searchers
        self.index_job = IndexJob(root, self.config, after=self.live.warm)
        self.undos = UndoStore(root, KEPT_UNDOS)
        self._warm_lock = threading.Lock()
        self._warmed = False

    @property
    def watcher(self) -> Watcher | None:
        return self.live.watcher

    @property
    def host(self) -> Host | None:
        return self.live.host

    def host_searches(self) -> None:
        """Answer the command line's searches of this memory from this process (`tachikoma.resident`)."""
        self.live.host_searches("serve")

    def start_watching(self) -> None:
        """Re-index in the background whenever the memory folder changes (after a first run that
        catches up with changes made while nothing was watching: the watcher calls it with no paths, its reason
        "start", as the console says, since no change may have been made)."""
        self.live.watch(lambda paths: self.index_job.start("watch" if paths else "start"))

    def index_version(self) -> str:
        """What pages poll to refresh themselves: "<index>|<runs>". The first part changes when an
        index run (from here, the watcher or the command line) completes, the second when one starts
        or this process's job changes state."""
        job = self.index_job.snapshot()
        completed, complete_flag = self.index_stamp()
        return f"{completed}|{complete_flag}:{job['state']}:{job.get('started') or ''}"

    def index_stamp(self) -> tuple[str, str]:
        """When the last index run completed, and whether the last run completed; cheap to read (on
        PostgreSQL over the connection kept open for it)."""
        try:
            location = self.location()
            if location.url is not None:
                meta = self.searchers.catalog(location.url).meta(location.name, ["last_complete_at", "run_complete"])
                return (str(meta.get("last_complete_at")), str(meta.get("run_complete"))) if meta else ("none", "")
            if not self.has_index():
                return "none", ""
            with location.open(readonly=True) as store:
                return str(store.get_meta("last_complete_at")), str(store.get_meta("run_complete"))
        except (TachikomaError, sqlite3.Error):
            return "unreadable", ""

    def watching(self) -> dict:
        """Whether the folder is watched, for the freshness every answer carries."""
        return self.live.watching()

    def config(self):
        return self.live.config()

    def max_file_bytes(self) -> int | None:
        """The largest file to read, from the settings; None (the reader's default) when they are broken."""
        try:
            return self.config().max_file_bytes
        except TachikomaError:
            return None

    def exclude(self):
        """What ``[index] exclude`` leaves out (`memory.Exclusion`); None when the settings are broken, so a tagging
        reads them itself and refuses with their error rather than risk writing to a file they leave out."""
        try:
            return self.config().exclude
        except TachikomaError:
            return None

    def redact_secrets(self) -> bool:
        """Whether secrets are shown as markers (``[privacy] redact_secrets``); true when the settings are broken."""
        try:
            return self.config().redact_secrets
        except TachikomaError:
            return True

    def recency(self) -> str:
        """The recency preset the settings choose ("default" when they are broken)."""
        try:
            return self.config().ranking.recency
        except TachikomaError:
            return "default"

    def has_index(self) -> bool:
        """Whether there is an index (an SQLite file; on PostgreSQL, this memory in the database)."""
        return self.live.has_index()

    def memory_names(self) -> list[str]:
        """The memories of the shared store this memory's index is in (none on SQLite): what the
        search page offers to search together."""
        location = self.location()
        return [] if location.url is None else sorted(self.searchers.catalog(location.url).memory_names())

    def memory_name(self) -> str | None:
        """This memory's name in its shared store (None on SQLite)."""
        return self.location().name

    def settings(self):
        return self.live.settings()

    def location(self):
        """Where this memory's index lives, by its settings."""
        return locate(self.root, self.settings())

    def close(self) -> None:
        """Stop answering and watching, and close every searcher and connection (when the server stops)."""
        self.live.close()

    def search(self, query: str, limit: int, filters: Filters, min_score: float | None = None,
               recency: str | None = None, as_of: str | None = None, memories: tuple[str, ...] = (),
               budget_tokens: int | None = None, fresh_only: bool = False, agent_text: bool = False) -> dict:
        """The same answer as `tachikoma search --json`. Raises NoIndex, EmbedderError, TachikomaError.
        `memories`: on a shared store, the memories to search together (`search_memories`); this
        memory alone is searched with its own searcher. `budget_tokens`, `fresh_only`: as
        `search.pool.finish` does them, a budget held to in the JSON API's reply (with the block, `agent_text`)."""
        if memories and list(memories) == [locate(self.root, self.config()).name]:
            memories = ()
        return self.live.search({"query": query, "limit": limit, "kind": filters.kind, "trust": filters.trust,
                                 "untagged": filters.untagged, "path": list(filters.paths), "source": filters.source,
                                 "min_score": min_score, "recency": recency,
                                 "as_of": as_of, "memories": list(memories), "budget_tokens": budget_tokens,
                                 "fresh_only": fresh_only, "face": "api",
                                 "form": "json+text" if agent_text else "json"})

    def stale_file(self, rel: str) -> dict | None:
        """The files of a repository that the memory file `rel` names and that changed in commits since
        (`LiveMemory.stale_file`); None when none did, or when there is no index to date it by."""
        try:
            return self.live.stale_file(rel)
        except (TachikomaError, sqlite3.Error, OSError):  # no index yet, an unreadable or unreachable one:
            return None  # the file page shows the file alone

    def warm_up(self) -> None:
        """Load the index and the embedder in the background once, so the first query is fast."""
        with self._warm_lock:
            if self._warmed or not self.has_index():
                return
            self._warmed = True

        def work() -> None:
            try:
                with self.live.searcher(self.config()) as searcher:
                    searcher.embedder.embed_query("warm up")
            except Exception as exc:  # noqa: BLE001 - the first real search reports any problem
                log.debug("warm-up failed: %s", exc)

        threading.Thread(target=work, name="tachikoma-warm-up", daemon=True).start()

    def refresh_index(self) -> None:
        """Carry new tags into the index (no re-embedding), if there is one."""
        if self.has_index():
            self.index_job.start("refresh")
