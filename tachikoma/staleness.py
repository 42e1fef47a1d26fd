"""Source-tied staleness: a memory that names files of a git repository is stale once one of them
changed in a commit after the memory's date.

Which files a memory names (read from the result's own text, as the index holds it):

- a transcript: the files its tool calls name (``[Edit billing/retry.py]``, ``[Read src/x.py]``: a
  tool line whose argument is a path with an extension), relative to the session's folder (the
  ``cwd`` its context line shows, ``~/code/shop``);
- a note: paths with a folder (``src/x.py``, ``src/x.py:120``) or in backticks (```retry.py```),
  relative to a repository the note names by its folder (``~/code/shop``, ``/srv/shop``) or to one
  of the ``[staleness] code_roots``; an absolute path inside a repository names that file.

A path counts as a file of a repository when the repository's history holds it. When it changed:
the commits that touched it with a commit time after the memory's date (``git log --name-status
-M`` of HEAD, read once per repository and kept until its HEAD or refs change). Changes only in the
working tree do not count (an agent editing a file does not make its notes stale until the change
is committed); a file deleted since counts ("deleted"), and a renamed one too ("renamed to" its new
path), whatever the memory says about it.

A session's own commits are not changes since (`own_commits`): a commit that brings a session's
edit of a file (Edit, Write, MultiEdit or NotebookEdit, not failed; read from the transcript file
itself, `session_writes`) is the first commit touching the file after that edit, made within
`OWN_WITHIN` (a day) of it or holding the file exactly as the session's edits left it. The session
that edited ``deploy.sh`` and whose edits were committed (squashed, reviewed) an hour after it ended
is not stale by that commit; the next change is.

`mark` adds ``stale`` to each result that is: ``{"files": [{"repo", "path", "commits", "last",
"change", "renamed_to"}], "text": "stale: billing/retry.py changed in 3 commits since, last
2026-11-30"}``. By default the score is not changed; ``[staleness] factor`` below 1 multiplies a
stale result's score by it (the results re-ranked), and ``fresh_only`` leaves stale results out.
`check_file` does the same for every chunk of one file: what the dashboard's file page lists. The
words are `search.explain`'s (`stale_file`), as every face shows them.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .search.explain import stale_file, stale_text
from .transcripts.edits import Write, session_edits

_CONTEXT_CWD = re.compile(r" · ((?:~|/)[^·\n]*?)(?= · |\n|$)")
_RELATIVE = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w{0,7}")
_NOT_FILE_TOOLS = frozenset({"Bash", "Grep", "Glob", "WebFetch", "WebSearch", "Task", "TodoWrite"})
_EDGES = "`'\"()[]{}<>,;!?*"


def _bare(token: str) -> str:
    """A path as written, without the quotes, brackets, punctuation or ``:120`` around it."""
    token = token.strip(_EDGES + ".:")
    head, colon, tail = token.rpartition(":")
    if colon and tail.replace("-", "").isdigit():
        token = head
    return token.strip(_EDGES + ".")


@functools.lru_cache(maxsize=8192)
def _note_names(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The folders or absolute paths (``~/code/shop``, ``/srv/x.py``) and the relative file paths
    (``src/x.py``, ```retry.py```) a note's text names. Plain string work: a regex over every chunk
    of a search's results costs more than the search at 10k chunks."""
    folders: list[str] = []
    paths: list[str] = []
    for token in text.split():
        if "/" not in token and not (token[0] == "`" and "." in token):
            continue
        bare = _bare(token)
        if bare.startswith(("/", "~")):
            folders.append(bare)
        elif _RELATIVE.fullmatch(bare):
            paths.append(bare.removeprefix("./"))
    return tuple(dict.fromkeys(folders)), tuple(dict.fromkeys(paths))


@functools.lru_cache(maxsize=8192)
def _session_names(text: str) -> tuple[str | None, tuple[str, ...]]:
    """A transcript chunk's session folder (the ``cwd`` its context line shows) and the file paths of
    its tool lines (``[Edit billing/retry.py]``; not a command, search or web tool)."""
    head = text.split("\n", 2)[:2]
    cwd = next((m.group(1).strip() for line in head for m in _CONTEXT_CWD.finditer(line)), None)
    paths: list[str] = []
    at = text.find("[")
    while at >= 0:
        close = text.find("]", at)
        if close < 0:
            break
        label, _, argument = text[at + 1:close].partition(" ")
        if (argument and " " not in argument and label not in _NOT_FILE_TOOLS and not label.endswith(":")
                and (at == 0 or text[at - 1] in "\n " )):
            bare = _bare(argument)
            if bare.startswith(("/", "~")) or _RELATIVE.fullmatch(bare):
                paths.append(bare)
        at = text.find("[", at + 1)
    return cwd, tuple(dict.fromkeys(paths))


@dataclass
class _Event:
    when: int  # commit time, seconds since the epoch
    change: str  # "modified", "deleted", "renamed"
    renamed_to: str | None = None
    commit: str = ""  # the commit's id


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """git `args` in `cwd`, its output captured (a failure is the caller's to read from the return code)."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False,
                          env={**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})


@dataclass
class History:
    """Every path a repository's HEAD history touched, with its commits newest first."""
    top: Path
    events: dict[str, list[_Event]] = field(default_factory=dict)
    #: (session file, its mtime and size, path) → the session's own commits of the path (`own_commits`)
    owned: dict[tuple, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, top: Path) -> History:
        proc = _git(top, "-c", "core.quotePath=false", "log", "--no-color", "-M", "--name-status",
                    "--format=%x00%ct %H", "HEAD")
        history = cls(top)
        if proc.returncode != 0:
            return history  # no commit yet, or not readable: nothing is stale
        when, commit = 0, ""
        for line in proc.stdout.decode("utf-8", "surrogateescape").split("\n"):
            if line.startswith("\0"):
                stamp, _, commit = line[1:].partition(" ")
                when = int(stamp or 0)
            elif "\t" in line:
                status, *paths = line.split("\t")
                if status.startswith("R") and len(paths) == 2:
                    history.events.setdefault(paths[0], []).append(_Event(when, "renamed", paths[1], commit))
                    history.events.setdefault(paths[1], []).append(_Event(when, "modified", None, commit))
                elif status.startswith("D"):
                    history.events.setdefault(paths[0], []).append(_Event(when, "deleted", None, commit))
                elif paths:
                    history.events.setdefault(paths[-1], []).append(_Event(when, "modified", None, commit))
        return history

    def holds(self, path: str) -> bool:
        return path in self.events

    def since(self, path: str, when: float, own: frozenset[str] = frozenset()) -> dict | None:
        """How `path` changed in commits after `when` (seconds), the commits of `own` (a session's own,
        `own_commits`) left out, or None when it did not."""
        after = [e for e in self.events.get(path, ()) if e.when > when and e.commit not in own]
        if not after:
            return None
        newest = after[0]  # git log lists the newest commit first
        return {"repo": str(self.top), "path": path, "commits": len(after),
                "last": datetime.fromtimestamp(newest.when, UTC).date().isoformat(),
                "change": newest.change, "renamed_to": newest.renamed_to}


#: A commit that touches a file a session edited, the first to touch it after the edit and made within
#: this many seconds of it, is the one that brings the session's edit: its own, not a change since.
#: Later, it is the session's own only when it holds the file exactly as the session's edits left it.
OWN_WITHIN = 24 * 3600
#: At most this many later commits of one file are compared with what one session left in it (two blobs read
#: with git the first time: the file before the session and at the commit; kept after).
_CONTENT_CHECKS = 4
_SESSIONS_KEPT = 256


_sessions: dict[str, tuple[tuple, dict[str, list[Write]]]] = {}
_sessions_lock = threading.Lock()


def session_writes(path: Path) -> tuple[tuple, dict[str, list[Write]]]:
    """A session file's key (path, mtime, size) and the edits it made, by the real path of each file
    edited (`transcripts.edits.session_edits`); read again when the file changes, the last `_SESSIONS_KEPT` kept."""
    try:
        st = path.stat()
    except OSError:
        return (str(path), None), {}
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _sessions_lock:
        held = _sessions.get(key[0])
    if held is not None and held[0] == key:
        return held
    held = (key, session_edits(path))
    with _sessions_lock:
        _sessions.pop(key[0], None)
        _sessions[key[0]] = held
        while len(_sessions) > _SESSIONS_KEPT:
            _sessions.pop(next(iter(_sessions)))
    return held


@functools.lru_cache(maxsize=1024)
def _blob(top: Path, commit: str, path: str) -> str | None:
    """`path` as commit `commit` holds it (commits never change, so it is kept), None when unreadable."""
    proc = _git(top, "cat-file", "blob", f"{commit}:{path}")
    return proc.stdout.decode("utf-8", "surrogateescape") if proc.returncode == 0 else None


def _states(writes: list[Write], base: Callable[[], str | None]) -> list[str | None]:
    """The file's text after each of `writes`, from `base()` (the file at the last commit before the
    first one) on: None from an edit that cannot be replayed (its old text not there, another tool)
    until a Write gives the whole text again."""
    out: list[str | None] = []
    text: str | None = None
    started = False
    for write in writes:
        if write.tool == "Write":
            text = write.content
        elif write.edits:
            if not started:
                text = base()
            for old, new, every in write.edits:
                if text is None or (old and old not in text):
                    text = None
                    break
                text = (new if not old else text.replace(old, new) if every else text.replace(old, new, 1))
        else:
            text = None
        started = True
        out.append(text)
    return out


def own_commits(history: History, path: str, writes: list[Write]) -> frozenset[str]:
    """The commits of `path` that are the session's own (it made `writes` to it): each the first
    commit to touch the file after one of its writes, within `OWN_WITHIN` of it or holding the file
    exactly as the session's writes up to then left it. A commit after another commit, with no edit
    of the session between, is a change since; so is a deletion or a rename."""
    events = history.events.get(path) or []
    if not writes or not events:
        return frozenset()
    first = writes[0].when
    earlier = [e for e in events if e.when < first]  # newest first
    states: list[str | None] | None = None
    own: set[str] = set()
    compared = 0
    at = 0  # the next write not yet passed
    for event in reversed(events):  # oldest first
        if at == len(writes):
            break
        latest = None
        while at < len(writes) and writes[at].when <= event.when:
            latest, at = at, at + 1
        if latest is None or event.change != "modified":
            continue
        if event.when - writes[latest].when <= OWN_WITHIN:
            own.add(event.commit)
            continue
        if compared == _CONTENT_CHECKS:
            continue
        compared += 1
        if states is None:
            base = earlier[0] if earlier and earlier[0].change == "modified" else None
            states = _states(writes, lambda: _blob(history.top, base.commit, path) if base else None)
        if states[latest] is not None and states[latest] == _blob(history.top, event.commit, path):
            own.add(event.commit)
    return frozenset(own)


@functools.lru_cache(maxsize=256)
def _real(top: Path) -> str:
    return os.path.realpath(top)


class Repositories:
    """The git repositories a process has looked at: a folder's top (cached) and each top's `History`
    (read again when its HEAD, reflog or packed refs change)."""

    def __init__(self):
        self._tops: dict[str, Path | None] = {}
        self._histories: dict[Path, tuple[tuple, History]] = {}
        self._lock = threading.Lock()

    def top(self, folder: Path) -> Path | None:
        key = str(folder)
        if key not in self._tops:
            found = None
            if folder.is_dir():
                proc = _git(folder, "rev-parse", "--show-toplevel")
                if proc.returncode == 0:
                    found = Path(proc.stdout.decode("utf-8", "surrogateescape").strip())
            self._tops[key] = found
        return self._tops[key]

    def history(self, top: Path, seen: dict | None = None) -> History:
        """`top`'s history, read again if its refs changed; `seen`: histories already checked in this
        search (one look at the refs per repository and search)."""
        if seen is not None and top in seen:
            return seen[top]
        stamp = _refs_stamp(top)
        with self._lock:
            held = self._histories.get(top)
            if held is None or held[0] != stamp:
                held = (stamp, History.read(top))
                self._histories[top] = held
        if seen is not None:
            seen[top] = held[1]
        return held[1]


def _git_dir(top: Path) -> Path:
    dot = top / ".git"
    if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
        text = dot.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            found = Path(text[7:].strip())
            return found if found.is_absolute() else (top / found).resolve()
    return dot


def _refs_stamp(top: Path) -> tuple:
    """What changes when a commit is made, a branch moves or HEAD is switched."""
    git = _git_dir(top)
    common = git / "commondir"
    shared = (git / common.read_text().strip()).resolve() if common.is_file() else git
    out = []
    for path in (git / "HEAD", git / "logs" / "HEAD", shared / "packed-refs", shared / "refs" / "heads"):
        try:
            st = path.stat()
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


REPOSITORIES = Repositories()


def _expand(path: str) -> Path:
    return Path(os.path.expanduser(path))


def named_files(result: dict, code_roots: tuple[str, ...], repos: Repositories,
                seen: dict | None = None) -> list[tuple[Path, str]]:
    """(repository top, path in it) of every file of a git repository the result's text names."""
    seen = {} if seen is None else seen
    text = result.get("text") or ""
    out: list[tuple[Path, str]] = []

    def add(top: Path | None, rel: str) -> None:
        if top is not None and rel and (top, rel) not in out and repos.history(top, seen).holds(rel):
            out.append((top, rel))

    def add_absolute(path: Path) -> None:
        top = repos.top(path.parent if not path.is_dir() else path) if path.parent.exists() else None
        if top is not None:
            try:
                add(top, path.resolve().relative_to(top.resolve()).as_posix())
            except ValueError:
                pass

    if result.get("kind") == "transcript":
        cwd, names = _session_names(text)
        base = _expand(cwd) if cwd else None
        top = repos.top(base) if base is not None else None
        for name in names:
            if name.startswith(("/", "~")):
                add_absolute(_expand(name))
            elif base is not None and top is not None:
                try:
                    add(top, (base / name).resolve().relative_to(top.resolve()).as_posix())
                except ValueError:
                    pass
        return out
    folders, names = _note_names(text)
    if not folders and not names:
        return out
    tops = []
    for folder in folders:
        path = _expand(folder)
        if path.is_dir():
            top = repos.top(path)
            if top is not None and top not in tops:
                tops.append(top)
        elif path.parent.is_dir():
            add_absolute(path)
    for root in code_roots:
        top = repos.top(_expand(root))
        if top is not None and top not in tops:
            tops.append(top)
    for rel in names:
        for top in tops:
            add(top, rel)
    return out


def _when(result: dict) -> float | None:
    iso = (result.get("factors") or {}).get("date")
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(str(iso))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def check(result: dict, code_roots: tuple[str, ...] = (), repos: Repositories = REPOSITORIES,
          seen: dict | None = None, session: Path | None = None) -> dict | None:
    """The result's ``stale`` entry, or None when none of the files it names changed since its date.
    `session`: a transcript result's file, whose edits tell the session's own commits (`own_commits`)
    from changes since; without it every commit after the date counts."""
    when = _when(result)
    if when is None:
        return None
    seen = {} if seen is None else seen
    files = []
    for top, rel in named_files(result, code_roots, repos, seen):
        history = repos.history(top, seen)
        found = history.since(rel, when)
        if found is not None and session is not None and result.get("kind") == "transcript":
            key, writes = session_writes(session)
            edits = writes.get(os.path.join(_real(top), rel)) if writes else None
            if edits:
                held = (*key, rel)
                if held not in history.owned:
                    if len(history.owned) >= 4096:  # a live session's file changes at every turn
                        history.owned.clear()
                    history.owned[held] = own_commits(history, rel, edits)
                if history.owned[held]:
                    found = history.since(rel, when, history.owned[held])
        if found is not None:
            files.append(found)
    if not files:
        return None
    return {"files": files, "text": stale_text(files)}


def mark(answer: dict, code_roots: tuple[str, ...] = (), factor: float = 1.0, fresh_only: bool = False,
         repos: Repositories = REPOSITORIES, source: Callable[[dict], Path | None] | None = None) -> dict:
    """`answer` (a search's) with ``stale`` on each stale result, scores × `factor` (re-ranked when below 1, as
    the search ranked them: `search.parts.ranking`), stale results left out with `fresh_only`, and ``staleness``
    saying what was done.
    `source(result)`: the result's file on disk, when it can be read (a session's own commits are
    then not changes since, `check`)."""
    from .search.parts import ranking

    results = answer.get("results") or []
    ranked = ranking(results)  # as they were ranked, before a score is cut
    stale = 0
    seen: dict = {}
    for result in results:
        found = check(result, code_roots, repos, seen, source(result) if source is not None else None)
        if found is None:
            continue
        stale += 1
        result["stale"] = found
        if factor < 1:
            result["score"] *= factor
            result.setdefault("factors", {})["stale"] = factor
    if factor < 1 and stale:
        results.sort(key=ranked)
    kept = [r for r in results if not (fresh_only and "stale" in r)]
    answer["results"] = kept
    answer["staleness"] = {"checked": len(results), "stale": stale, "factor": factor, "fresh_only": fresh_only,
                           "left_out": len(results) - len(kept)}
    if fresh_only and results and not kept:
        answer["no_good_match"] = True
    return answer


def check_file(chunks: list[dict], code_roots: tuple[str, ...] = (), repos: Repositories = REPOSITORIES,
               source: Path | None = None) -> dict | None:
    """What the file page lists of a stale memory file: `chunks` are its chunks as a search gives them
    (``text``, ``kind``, ``lines`` and ``factors.date``, each dated as the ranking dates it), each
    checked as a result is. ``{"files": [{"repo", "path", "commits", "last", "change", "renamed_to",
    "since", "lines": [[first, last], ...], "text"}], "text"}``: each changed file once, as the
    earliest chunk naming it sees it (the most commits since), with the lines of every chunk it
    makes stale and its words (`search.explain.stale_file`); None when no chunk is stale. `source`: the
    file on disk (a session's own commits are not changes since, `check`)."""
    seen: dict = {}
    found: dict[tuple[str, str], dict] = {}
    for chunk in chunks:
        stale = check(chunk, code_roots, repos, seen, source)
        for f in (stale or {}).get("files", ()):
            key = (f["repo"], f["path"])
            held = found.get(key)
            if held is None or f["commits"] > held["commits"]:
                found[key] = {**f, "since": str(chunk["factors"]["date"])[:10],
                              "lines": held["lines"] if held else []}
            found[key]["lines"].append(list(chunk["lines"]))
    if not found:
        return None
    files = list(found.values())  # in the order the file names them
    for f in files:
        f["lines"].sort()
        f["text"] = stale_file(f)
    return {"files": files, "text": stale_text(files)}
