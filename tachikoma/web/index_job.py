"""One index run at a time, in a background thread, with progress to poll."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tachikoma.indexer import reporting, runner
from tachikoma.errors import EmbedderError, TachikomaError
from tachikoma.watcher import LOCK_WAIT_SECONDS, KeptEmbedder

if TYPE_CHECKING:
    from tachikoma.config import Config

log = logging.getLogger("tachikoma.web")
#: Why a run started, as the server's console says it ("start": the watcher's first run, which catches up with what
#: changed while nothing watched, if anything did).
WHY = {"start": "at start", "watch": "files changed", "reindex": "Re-index pressed", "refresh": "tags changed"}


class IndexJob:
    """Runs `indexer.runner.run` for `root` in a thread; `snapshot()` is its state for the page.

    The state is a dict: "state" (idle, running, done, failed), "reason"
    (reindex, refresh after tagging, watch, or start: the watcher's first run), progress ("done", "total", "path")
    and, once finished, the summary or the error.
    """

    def __init__(self, root: Path, settings: Callable[[], Config], after: Callable[[], None] | None = None):
        self.root = root
        self.settings = settings
        #: Called after each run that completed (`Searchers.warm`), before a run asked for meanwhile.
        self.after = after
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again: str | bool = False  # the reason of a run to make after the current one
        self.state = {"state": "idle"}
        self._embedder = KeptEmbedder()  # loaded once, not for every run the watcher starts
        self._summary: runner.Summary | None = None  # the last completed run's, to tell news (`Summary.news`)
        self._phase = ("", time.monotonic())  # the run's current phase and when it began

    def start(self, reason: str = "reindex") -> bool:
        """Start a run; False when one is already running (a refresh, or the watcher's run, then
        runs again after it, so the changes it was started for are not left out)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                if reason in ("refresh", "watch", "start"):
                    self._again = reason
                return False
            self.state = self._fresh(reason)
            self._thread = threading.Thread(target=self._work, name="tachikoma-index", daemon=True)
            self._thread.start()
            return True

    @staticmethod
    def _fresh(reason: str) -> dict:
        return {"state": "running", "reason": reason, "done": 0, "total": 0, "path": "",
                "started": time.time(), "finished": None, "summary": None, "line": None, "error": None,
                "progress": None}

    def snapshot(self) -> dict:
        with self._lock:
            return dict(self.state)

    def finished_recently(self, reason: str, seconds: float) -> dict | None:
        """The state of a run for `reason` that ended well in the last `seconds`, else None."""
        job = self.snapshot()
        if job["state"] == "done" and job["reason"] == reason and time.time() - job["finished"] < seconds:
            return job
        return None

    def wait(self, timeout: float | None = None) -> dict:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.snapshot()

    def _progress(self, done: int, total: int, path: str) -> None:
        with self._lock:
            self.state.update(done=done, total=total, path=path)

    def _detail(self, state: "reporting.RunProgress") -> None:
        """The run's fuller progress (`indexer.reporting.progress_view`: phase, files, chunks, rate, time left)."""
        now = time.monotonic()
        if state.phase != self._phase[0]:
            self._phase = (state.phase, now)
        view = reporting.progress_view(state, now - self._phase[1])
        with self._lock:
            self.state["progress"] = view

    def _log(self, outcome: dict, news: bool = True) -> None:
        """One line per run on the server's console (`tachikoma serve` shows tachikoma's INFO lines): the first
        run's, a run asked for (Re-index), a failed one, and one that did something (`news`); a run the watcher
        or a tagging started that found nothing to do is a DEBUG line."""
        why = WHY.get(self.state["reason"], self.state["reason"])
        if outcome["state"] == "done":
            level = logging.INFO if news or self.state["reason"] == "reindex" else logging.DEBUG
            log.log(level, "index run (%s): %s", why, outcome["line"])
        else:
            log.warning("index run (%s) failed: %s", why, outcome["error"])

    def _work(self) -> None:
        while True:
            outcome: dict
            news = True  # a failed run is always said
            try:
                # The button's run fails at once when another process indexes; the automatic ones wait for it.
                wait = 0 if self.state["reason"] == "reindex" else LOCK_WAIT_SECONDS
                config = self.settings()
                self._phase = ("", time.monotonic())
                summary = runner.run(self.root, config, progress=self._progress, lock_timeout=wait,
                                     embedder=self._embedder.for_run(self.root, config), detail=self._detail)
                outcome = {"state": "done", "summary": summary.as_dict(), "line": summary.line()}
                news, self._summary = summary.news(self._summary), summary
            except TachikomaError as exc:
                outcome = {"state": "failed", "error": str(exc),
                           "embedder_error": isinstance(exc, EmbedderError)}
            except Exception as exc:  # noqa: BLE001 - reported on the page instead of dying silently
                log.exception("index run failed")
                outcome = {"state": "failed", "error": f"unexpected error: {type(exc).__name__}: {exc}"}
            self._log(outcome, news)
            with self._lock:
                if not self._again:
                    self.state.update(outcome, finished=time.time())
            if outcome["state"] == "done" and self.after is not None:
                self.after()
            with self._lock:
                if self._again:  # asked for while this one ran or warmed up
                    self.state = self._fresh(self._again)
                    self._again = False
                    continue
                return
