"""Keep the index fresh: watch the memory folder and re-index when it changes.

`watchfiles` (inotify, FSEvents or ReadDirectoryChangesW under the hood)
reports changes; nothing is polled while the folder is quiet. It watches the
folders the indexer reads (`watched_folders`), each on its own, never through
a symlink, and watches again when a folder comes or goes. Changes are
grouped until the folder has been quiet for `QUIET_MS` (at most `GROUP_MS`
of changes are grouped), so an editor's save or a `git checkout` makes one
run, not one per file. Hidden files and folders (``.cache`` with the index
itself, ``.git``, editors' temporary files) are ignored, as the indexer
ignores them (`memory.hidden`: Claude Code's ``.claude/CLAUDE.md`` and
``.claude/rules/`` count); memory files, the tag file and settings count.
Changes in what ``[index] exclude`` leaves out are ignored too, and its
folders are not watched (`memory.Exclusion`, read again after each run: saving
the setting is a change to the settings file, whose run applies it; the
folders are then watched again as it leaves them); so are a Logseq graph's
copies of pages (``logseq/bak/``, `logseq.copies_folder`).

Runs are incremental (`indexer.runner.run`), one at a time: the watcher's own runs
follow each other, and it waits for a run that another process holds the
index lock for (`tachikoma index`, the dashboard's button) and then runs
after it, so changes made meanwhile are never left out.
"""

from __future__ import annotations

import logging
import os
import threading
from datetime import datetime, timezone
from collections.abc import Callable
from pathlib import Path

from .memory import CLAUDE_FOLDER, CONFIG_FILE, NO_EXCLUSION, TAG_FILE, Exclusion, hidden, kind_of, walk
from .reading.logseq import CONFIG_NAME, LOGSEQ_FOLDER, copies_folder

log = logging.getLogger("tachikoma.watch")
logging.getLogger("watchfiles").setLevel(logging.WARNING)  # not "1 change detected" on every save

QUIET_MS = 200
GROUP_MS = 2_000
#: How long a watcher's run waits for another process's index run to finish.
LOCK_WAIT_SECONDS = 600.0


def relevant(root: Path, path: str, exclude: Exclusion = NO_EXCLUSION) -> bool:
    """Whether a change at `path` (absolute) can change the index: not one in a hidden place, nor one in a file or
    folder `exclude` (``[index] exclude``) leaves out, nor a Logseq graph's copies of pages; the tag file, the
    settings and a graph's ``logseq/config.edn`` (which makes its copies no memory) always."""
    try:
        rel = Path(path).relative_to(root)
    except ValueError:
        return False
    if hidden(rel.as_posix()) or copies_folder(root, rel.as_posix()):  # a Logseq graph's copies are not memory
        return False
    name = rel.name
    if name == CONFIG_NAME and rel.parent.name == LOGSEQ_FOLDER:  # a graph made or unmade: its copies are not memory
        return True
    if exclude and name not in (TAG_FILE, CONFIG_FILE) and exclude.file(rel.as_posix()):
        return False
    # A folder (renamed or removed whole) has no suffix: it may hold memory files (`.claude` does too).
    return kind_of(rel.as_posix()) is not None or name in (TAG_FILE, CONFIG_FILE, CLAUDE_FOLDER) or "." not in name


def watched_folders(root: Path, exclude: Exclusion = NO_EXCLUSION) -> list[Path]:
    """The folders whose changes can change the index, each to be watched on its own: those `memory.walk` reads
    (the root, and below it no hidden folder but Claude Code's, no `.git` or `.cache`, never a folder through a
    symlink, none nested deeper than the walk goes, none `exclude`, ``[index] exclude``, leaves out)."""
    folders: list[Path] = []
    walk(root, folders=folders, exclude=exclude)
    return folders or [root]


class Watcher:
    """Calls `on_change(paths)` in a background thread after each quiet group of relevant changes.

    `on_change` runs in the watcher's thread, so calls never overlap; it is
    first called once with no paths when `catch_up` is set (changes made
    while nothing was watching).
    """

    def __init__(self, root: Path, on_change: Callable[[set[str]], None], catch_up: bool = True,
                 quiet_ms: int = QUIET_MS, group_ms: int = GROUP_MS,
                 exclude: Callable[[], Exclusion] | None = None):
        self.root = Path(root).resolve()
        self.on_change = on_change
        self.catch_up = catch_up
        #: The settings' ``[index] exclude`` (`relevant`), asked again after each call of `on_change`.
        self._exclusion_now = exclude
        self.exclude = self._exclusion()
        self.quiet_ms, self.group_ms = quiet_ms, group_ms
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None

    def start(self) -> "Watcher":
        self._thread = threading.Thread(target=self._loop, name="tachikoma-watch", daemon=True)
        self._thread.start()
        return self

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the folder is being watched (changes from then on are seen)."""
        return self._ready.wait(timeout)

    def stop(self, timeout: float | None = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stop.is_set()

    def _loop(self) -> None:
        from watchfiles import watch

        if self.catch_up:
            self._call(set())
        pending: set[str] = set()
        walked: list[Path] | None = None  # the folders as a change just found them (walked once, not again)
        try:
            while not self._stop.is_set():
                # Each folder the indexer reads, on its own (`watched_folders`): watchfiles' recursive watch
                # follows symlinked folders, out of the memory too (a link to a home folder would watch all of it).
                folders, walked = walked or watched_folders(self.root, self.exclude), None
                changes = watch(*folders, watch_filter=lambda _change, path: self._counts(path), recursive=False,
                                debounce=self.group_ms, step=self.quiet_ms, stop_event=self._stop,
                                rust_timeout=1_000, yield_on_timeout=True, raise_interrupt=False)
                try:
                    for batch in changes:
                        self._ready.set()
                        if self._stop.is_set():
                            return
                        pending |= {path for _change, path in batch}
                        if not pending:
                            continue
                        if any(os.path.basename(path) == CONFIG_FILE for path in pending):
                            self.exclude = self._exclusion()  # as saved: the folders it leaves in are watched first
                        if any(kind_of(path) is None or os.path.isdir(path) for path in pending) \
                                and (now := watched_folders(self.root, self.exclude)) != folders:
                            # A folder came, went or was renamed (or [index] exclude changed): watch the folders as
                            # they are now first (as just walked), then run, so that nothing written into a new
                            # folder meanwhile is missed.
                            walked = now
                            break
                        before = self.exclude
                        self._call(pending)
                        pending = set()
                        if self.exclude != before:  # [index] exclude changed: watch the folders it leaves in now
                            break
                except FileNotFoundError:
                    continue  # a folder went between the walk and its watch: walk again
                finally:
                    changes.close()
        except Exception as exc:  # noqa: BLE001 - a watcher that dies says why, and searching goes on
            self.error = f"watching {self.root} stopped: {type(exc).__name__}: {exc}"
            log.error("%s", self.error)
        finally:
            self._ready.set()

    def _counts(self, path: str) -> bool:
        """Whether a change at `path` is one to act on: a `relevant` one, or a folder that is not hidden nor left
        out by ``[index] exclude`` (made, or moved in whole: its files are read by the run, and the folder is watched
        from then on)."""
        if relevant(self.root, path, self.exclude):
            return True
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return False
        return (rel != "." and not hidden(rel, folder=True) and not (self.exclude and self.exclude.file(rel))
                and not copies_folder(self.root, rel) and os.path.isdir(path))

    def _call(self, paths: set[str]) -> None:
        try:
            self.on_change(paths)
        except Exception:  # noqa: BLE001 - one failed run must not stop the watching
            log.exception("re-indexing after a change failed")
        self.exclude = self._exclusion()  # the run read the settings: a changed exclude counts from now on

    def _exclusion(self) -> Exclusion:
        if self._exclusion_now is None:
            return NO_EXCLUSION
        try:
            return self._exclusion_now()
        except Exception:  # noqa: BLE001 - settings that cannot be read leave nothing out (the run says why)
            log.debug("reading [index] exclude failed", exc_info=True)
            return NO_EXCLUSION


class KeptEmbedder:
    """The index's embedder, kept loaded between the runs of a long-lived process.

    Loading the offline MiniLM (reading and checking 90 MB of weights) costs
    about half a second of CPU: done for every run a watcher starts, it would
    take most of the machine while files change. The embedder is made the
    way `indexer.runner.run` makes it, and made again when the index's embedder or
    the settings change; None (let `indexer.runner.run` decide) when there is no
    index yet or the settings ask for another embedder than the index's (the
    run then says so).
    """

    def __init__(self) -> None:
        self._kept = None
        self._lock = threading.Lock()

    def for_run(self, root: Path, config):
        from .embedders import choose
        from .errors import TachikomaError
        from .store import locate

        try:
            location = locate(root, config)
            if not (location.file.is_file() if location.url is None else location.exists()):
                return None
            with location.open(readonly=True) as store:
                built = store.embedder
            if built is None:
                return None
            fresh = choose(None if config.embedder == "auto" else config.embedder, built[0])
        except TachikomaError:
            return None
        with self._lock:
            if self._kept is None or (self._kept.name, self._kept.dim) != (fresh.name, fresh.dim) \
                    or fresh.dim != built[1]:
                self._kept = fresh
            return self._kept


class Reindexer:
    """`on_change` for a watcher: runs `indexer.runner.run` and remembers how the last run went."""

    def __init__(self, root: Path, settings: Callable, warn: Callable[[str], None] | None = None,
                 after: Callable[[], None] | None = None):
        self.root = root
        self.settings = settings
        self.warn = warn
        #: Called after each run that completed (`Searchers.warm`: the next query finds the index read).
        self.after = after
        self.runs = 0
        self.last: dict | None = None
        #: The Summary of the last run that completed (a watched one, or one `index` made for a face).
        self.summary = None
        self.embedder = KeptEmbedder()

    def index(self):
        """One incremental run with the kept embedder, after any run under way elsewhere; its Summary."""
        from .indexer import runner

        config = self.settings()
        self.summary = runner.run(self.root, config, lock_timeout=LOCK_WAIT_SECONDS,
                                  embedder=self.embedder.for_run(self.root, config))
        return self.summary

    def __call__(self, paths: set[str]) -> None:
        from .errors import TachikomaError

        self.last = {"state": "running", "started": _now_iso(), "changed": len(paths)}
        outcome = {"state": "failed", "error": "interrupted"}
        try:
            before = self.summary
            summary = self.index()
            # "news": worth a line (`Summary.news`); a run that found nothing to do is not. The line says the
            # secrets the index holds redacted (`humanize.secrets_text`); JSON carries their count as `stats` does.
            outcome = {"state": "done", "line": summary.line(), "news": summary.news(before),
                       "secrets_redacted": summary.secrets_redacted()}
        except TachikomaError as exc:
            outcome = {"state": "failed", "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - an OSError, a bug: said in one line, and the watching goes on
            outcome = {"state": "failed", "error": f"{type(exc).__name__}: {exc}"}
        finally:
            # Never left "running": stats and search answers show how the last run ended.
            self.last = {**self.last, **outcome, "finished": _now_iso()}
            self.runs += 1
        if self.warn and outcome["state"] == "failed":
            self.warn(f"re-indexing failed: {outcome['error']}")
        if outcome["state"] == "done" and self.after is not None:
            self.after()

    @property
    def error(self) -> str | None:
        """Why the last run failed, or None when it did not (or none ran yet)."""
        last = self.last
        return last.get("error") if last and last.get("state") == "failed" else None


def _now_iso() -> str:
    """Now as ISO 8601 in UTC to the second, like every other time tachikoma reports
    (`last_indexed_at`, search dates)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
