"""Undoing a tagging in as many goes as it takes: what an undo restored, what it left and why, and what of the
tagging is still to undo.

`applying.undo` leaves a file as it is rather than overwrite what it must not: tags changed since the tagging, a
note made read-only, removed, or one that cannot be written. A tagging whose undo left a file so is *partly
undone*, not undone: `undo` returns an `Outcome` that says which files were restored and which were left, and
why, and holds `rest`, the part still to undo (the files left, with their exact former bytes), which a later
undo takes up once the reason is fixed. `Progress` is where a tagging's undoing stands between goes, kept with
its rest.

Every face that undoes a tagging keeps to this: the dashboard's Undo, its result and its list of recent taggings
(its store, `web.undo`, keeps the rest and the progress). The command line and MCP undo no tagging of their own:
there a tagging commit is reverted with git.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..humanize import plural
from ..memory import TAG_FILE
from ..reading.documents import TRANSCRIPT
from . import applying
from .model import Applied, Skip

UNDONE = "undone"
PARTLY = "partly undone"
NOT_UNDONE = "not undone"

#: How many of the files left a one-line account names (`Progress.describe`); the result lists them all.
NAMED = 5

#: The skip reasons of tagging (`rewrite`, `planning`, `edit`) as said of an undo.
_AS_UNDO = (
    ("changed since the plan was made", "its tags changed since the tagging"),
    ("; not touched", "; left as it is"),
    ("while being tagged", "while being undone"),
    ("to tag it", "to undo it"),
    (": not tagged,", ": not undone,"),
    ("; not tagged", "; not undone"),
)


def as_undo(reason: str) -> str:
    """A reason a file was skipped, in an undo's words ("...; not undone", not "...; not tagged")."""
    for said, meant in _AS_UNDO:
        reason = reason.replace(said, meant)
    return reason


@dataclass
class Progress:
    """Where the undoing of a tagging stands after an undo that left files as they were."""

    #: Every file restored so far, by every undo of the tagging.
    restored: list[str] = field(default_factory=list)
    #: The files the last undo left as they were, and why.
    left: list[Skip] = field(default_factory=list)
    #: When that undo ran, and its commit (None: nothing committed).
    at: float = 0.0
    commit: str | None = None

    @property
    def total(self) -> int:
        return len(self.restored) + len(self.left)

    @property
    def state(self) -> str:
        """`PARTLY` when a file was restored, `NOT_UNDONE` when none was (the undo left every file as it was)."""
        return PARTLY if self.restored else NOT_UNDONE

    def describe(self) -> str:
        """e.g. "1 of 3 files restored; 2 left as they are: identity.md (read-only ...), martin.md (no longer
        exists)"; at most `NAMED` files are named."""
        named = "; ".join(f"{s.path} ({s.reason})" for s in self.left[:NAMED])
        more = f"; and {len(self.left) - NAMED} more" if len(self.left) > NAMED else ""
        return (f"{len(self.restored)} of {plural(self.total, 'file')} restored; {len(self.left)} left as "
                f"{'it is' if len(self.left) == 1 else 'they are'}: {named}{more}")

    def as_json(self) -> dict:
        return {"restored": self.restored, "left": [list(s) for s in self.left], "at": self.at,
                "commit": self.commit}

    @classmethod
    def from_json(cls, record: dict) -> Progress:
        """The Progress `as_json` made. Raises KeyError, TypeError or ValueError when it is damaged."""
        return cls([str(p) for p in record["restored"]], [Skip(str(p), str(r)) for p, r in record["left"]],
                   float(record["at"]), record.get("commit"))


@dataclass
class Outcome:
    """What one undo of a tagging did, and where it leaves the tagging."""

    #: What this undo wrote (its `changes`: the files restored) and left (`skipped`, in an undo's words).
    done: Applied
    #: What is still to undo, with each file's exact former bytes; None when every file is restored.
    rest: Applied | None
    #: Where the undoing stands, counting earlier goes (its `left`: the files of `rest`, with their reasons).
    progress: Progress
    #: The files that already held the tags the undo gives back (put back by hand since an undo left them):
    #: counted restored, nothing written.
    found: list[str] = field(default_factory=list)

    @property
    def state(self) -> str:
        """`UNDONE` (every file of the tagging restored, by this undo or earlier ones), `PARTLY` or `NOT_UNDONE`."""
        return UNDONE if self.rest is None else self.progress.state

    @property
    def earlier(self) -> int:
        """How many files earlier undos of the tagging restored."""
        return len(self.progress.restored) - len(self.done.changes) - len(self.found)

    def headline(self) -> str:
        """e.g. "Undone: 2 files restored", "Partly undone: 1 of 3 files restored", "Not undone: 2 files left as
        they are"."""
        n, left = len(self.done.changes) + len(self.found), len(self.progress.left)
        if self.rest is None:
            return f"Undone: {plural(n, 'file')} restored"
        if not n:
            return f"Not undone: {plural(left, 'file')} left as {'it is' if left == 1 else 'they are'}"
        return f"Partly undone: {len(self.progress.restored)} of {plural(self.progress.total, 'file')} restored"

    def note(self) -> str:
        """What the headline leaves out: the files earlier undos restored, and what to do about those left ("")."""
        said = []
        if self.found:
            named = ", ".join(self.found[:NAMED]) + (f" and {len(self.found) - NAMED} more" if len(self.found) > NAMED
                                                     else "")
            said.append(f"{named} already held {'its' if len(self.found) == 1 else 'their'} tags from before the "
                        "tagging (put back by hand): nothing was written to "
                        f"{'it' if len(self.found) == 1 else 'them'}.")
        if self.earlier:
            said.append(f"{'This tagging is undone: ' if self.rest is None else ''}{plural(self.earlier, 'file')} "
                        f"of it {'was' if self.earlier == 1 else 'were'} restored by an earlier Undo.")
        if self.rest is not None:
            said.append("The files left stay in this tagging's Undo: each gets its exact former bytes back once "
                        "what is said of it is fixed, if it still holds what the tagging wrote.")
        return " ".join(said)


def undo(root: Path, applied: Applied, earlier: Progress | None = None, commit: bool = True,
         lock_timeout: float = 120, by: str = "", config_path: str | os.PathLike | None = None) -> Outcome:
    """Undo what is left of the tagging `applied` (`applying.undo`); `earlier`: where earlier undos of it left it.

    Raises what `applying.undo` raises (nothing was written then: the tagging stays as it was, to undo again)."""
    done = applying.undo(root, applied, commit=commit, lock_timeout=lock_timeout, by=by, config_path=config_path)
    found = _found(Path(root), applied, {s.path for s in done.skipped})
    done.skipped = [Skip(s.path, as_undo(s.reason)) for s in done.skipped if s.path not in found]
    rest = _rest(applied, done, found)
    why = {s.path: s.reason for s in done.skipped}
    left = [Skip(c.path, why.get(c.path, "left as it is")) for c in rest.changes] if rest else []
    progress = Progress([*(earlier.restored if earlier else []), *done.paths, *found], left, time.time(), done.commit)
    return Outcome(done, rest, progress, found)


def _found(root: Path, applied: Applied, skipped: set[str]) -> list[str]:
    """The files of `applied` the undo left (`skipped`) that hold, for every key the tagging changed, the value it
    had before (put back by hand): the undo has nothing to do there."""
    from ..errors import TachikomaError
    from ..memory import safe_path
    from ..reading import tagfile
    from ..reading.frontmatter import read_front_matter
    from .model import current_values

    entries = None
    found = []
    for change in applied.changes:
        if change.path not in skipped:
            continue
        try:
            if change.kind == TRANSCRIPT:
                entries = tagfile.load(root).all_entries() if entries is None else entries
                now = current_values(entries.get(change.path))
            else:
                read = read_front_matter(safe_path(root, change.path))
                if read.error:
                    continue
                now = current_values(read.meta)
        except (OSError, ValueError, TachikomaError):  # unreadable, gone, outside, a malformed tag file: left, as said
            continue
        if all(now.get(key) == change.before.get(key) for key in change.keys):
            found.append(change.path)
    return found


def _rest(applied: Applied, done: Applied, found: list[str]) -> Applied | None:
    """What of `applied` is still to undo once `done`, its undo, was made: the changes of the files it did not
    restore nor `found` as they were, with their exact former bytes; None when it restored every file.

    The tag file's bytes before the tagging are kept only while no transcript of it was restored: once some
    were, putting those bytes back would undo more than what is left, and the rest is undone key by key."""
    restored = {*done.paths, *found}
    changes = [c for c in applied.changes if c.path not in restored]
    if not changes:
        return None
    paths = {c.path for c in changes}
    restore = {path: r for path, r in applied.restore.items() if path in paths}
    if TAG_FILE in applied.restore and all(c.path in paths for c in applied.changes if c.kind == TRANSCRIPT):
        restore[TAG_FILE] = applied.restore[TAG_FILE]
    return Applied(changes=changes, commit=applied.commit, message=applied.message, restore=restore)
