"""One memory kept open by a long-running process: `tachikoma serve` (the dashboard), `tachikoma mcp`
and `tachikoma index --watch` each hold one `LiveMemory` and keep only what is their own (Flask
request handling, the MCP tools' texts, the command line's printing).

A `LiveMemory` owns, for one memory folder:

- its root and settings (read again for every question, so an edit to them counts at once);
- the searchers kept open between questions (`search.pool.Searchers`: no connection nor index
  load per query), with the memory's own searcher made by `searcher`;
- the watcher (`tachikoma.watcher`) and its re-index runs (`Reindexer`, or a face's own runner such
  as the dashboard's background `IndexJob`), each followed by the warm-up of the open searcher
  (`warm`), so the first search after a change does not read the index itself;
- the resident host (`tachikoma.resident`) through which `tachikoma search` asks this process;
- `search(asked)`: one search by its arguments (those of `tachikoma search`), the answer every face
  gives, its freshness saying whether the folder is watched; `stale_file(rel)`: what a file page
  lists of a stale memory file.

`close` stops the host and the watcher and closes every searcher and connection.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .config import load_config, settings_or_defaults
from .errors import NoIndexYet
from .resident import Host
from .search.pool import Searchers, memory_key, search_as_asked, warm_after_run
from .search.searcher import Searcher
from .staleness import check_file
from .store import locate
from .watcher import Reindexer, Watcher


class LiveMemory:
    """The memory at `root` (settings file `config_path`, None: the folder's own), kept open.

    `warn(message)`: said when a watched re-index run fails. `report(last)`: called after each
    watched run with how it went (`Reindexer.last`), before the warm-up. `missing()`: the error to
    raise when a search finds no index (None: the store's own `NoIndexYet`); with `check_index`,
    the index is looked for before every search of this memory (and a searcher left open on an index
    that went away is closed).
    """

    def __init__(self, root: Path, config_path: str | os.PathLike | None = None, *,
                 warn: Callable[[str], None] | None = None, report: Callable[[dict], None] | None = None,
                 missing: Callable[[], Exception | None] | None = None, check_index: bool = False):
        self.root = Path(root)
        self.config_path = config_path
        self.searchers = Searchers()
        #: Runs the index for the watcher (and for a face that writes, `MemoryTools.remember`).
        self.reindexer = Reindexer(self.root, self.config, warn=warn)
        self.report = report
        self.missing = missing
        self.check_index = check_index
        self.watcher: Watcher | None = None
        self.host: Host | None = None
        self._runs_own = False  # whether the watcher's runs are the reindexer's (their errors are ours)

    def config(self):
        return load_config(self.root, self.config_path)

    def settings(self):
        """`config`, or the defaults when the settings cannot be read (`config.settings_or_defaults`): for
        what must answer anyway, such as where the index lives."""
        return settings_or_defaults(self.root, self.config_path)

    # ------------------------------------------------------------------ the watcher and its runs

    def watch(self, on_change: Callable[[set[str]], None] | None = None, catch_up: bool = True,
              ready_within: float | None = None) -> Watcher:
        """Watch the folder: after each group of changes `on_change(paths)` (default: `reindex`, one
        incremental run then the warm-up) runs in the watcher's thread. `catch_up`: a first run at once,
        for the changes made while nothing watched. `ready_within`: wait that many seconds at most for
        the watching to begin (changes from then on are seen)."""
        self._runs_own = on_change is None
        self.watcher = Watcher(self.root, on_change or self.reindex, catch_up=catch_up,
                               exclude=lambda: self.settings().exclude).start()
        if ready_within is not None:
            self.watcher.wait_ready(ready_within)
        return self.watcher

    def reindex(self, paths: set[str] = frozenset()) -> None:
        """One incremental run (`Reindexer`, which never raises), reported, then the warm-up if it completed."""
        self.reindexer(set(paths))
        last = self.reindexer.last
        if self.report is not None:
            self.report(last)
        if last["state"] == "done":
            self.warm()

    def warm(self) -> None:
        """After an index run: the open searcher reads the new index now, not at the next query."""
        warm_after_run(self.searchers, self.root, self.config)

    def watched(self) -> bool:
        return self.watcher is not None and self.watcher.running

    def watching(self) -> dict:
        """Whether the folder is watched, for the freshness every answer carries: ``watch_error`` says
        that the watching stopped, or else that the last re-index run failed; ``last_watch_run`` how the
        last run went (when the runs are this memory's own)."""
        if self.watcher is None:
            return {"watching": False, "watch_error": None}
        state = {"watching": self.watcher.running, "watch_error": self.watcher.error}
        if self._runs_own:
            state["watch_error"] = state["watch_error"] or self.reindexer.error
            state["last_watch_run"] = self.reindexer.last
        return state

    # ------------------------------------------------------------------ searching

    def has_index(self) -> bool:
        """Whether there is an index (an SQLite file; on PostgreSQL, this memory in the database)."""
        location = locate(self.root, self.settings())
        if location.url is None:
            return location.file.is_file()
        return location.name in self.searchers.catalog(location.url).memory_names()

    def searcher(self, config):
        """This memory's open searcher, for one query (`Searchers.use`)."""
        location = locate(self.root, config)
        key = memory_key(location)
        if self.check_index and not self.has_index():
            self.searchers.drop(key)
            self._raise_missing()
            raise NoIndexYet(f"no index yet for {self.root}")

        def make() -> Searcher:
            try:
                return Searcher(self.root, config, location=location, watched=self.watched)
            except NoIndexYet:
                self._raise_missing()
                raise

        return self.searchers.use(key, make)

    def _raise_missing(self) -> None:
        error = self.missing() if self.missing is not None else None
        if error is not None:
            raise error from None

    def search(self, asked: dict, preamble: str = "") -> dict:
        """A search by its arguments (`search_as_asked`: ``query``, ``limit``, ``kind``, ``trust``,
        ``untagged``, ``min_score``, ``recency``, ``as_of``, ``memories``, ``budget_tokens``,
        ``fresh_only``), with the settings read now; the answer of ``tachikoma search --json``, its
        freshness saying whether the folder is watched. `preamble`: a budget block's first line."""
        return search_as_asked(self.root, self.config(), self.searchers, asked, self.searcher, preamble=preamble,
                               freshness=self.watching())

    def stale_file(self, rel: str) -> dict | None:
        """Which files of which repository the memory file `rel` names changed in commits since its
        date (`staleness.check_file` over its chunks as a search dates them), with the settings'
        code roots; None when it is not stale, not indexed, or ``[staleness] check`` is off."""
        config = self.config()
        if not config.staleness.check:
            return None
        with self.searcher(config) as searcher:
            chunks = searcher.file_chunks(rel, config)
        return check_file(chunks, config.staleness.code_roots, source=self.root / rel)

    # ------------------------------------------------------------------ the resident host, closing

    def host_searches(self, process: str) -> Host:
        """Answer the command line's searches of this memory from this process (`tachikoma.resident`);
        `process` names it in what the command line says ("serve", "mcp", "index --watch")."""
        self.host = Host.start(self.root, self.config_path, self.search, process)
        return self.host

    def close(self) -> None:
        """Stop answering and watching, and close every searcher and connection."""
        if self.host is not None:
            self.host.close()
        if self.watcher is not None:
            self.watcher.stop()
        self.searchers.close()
