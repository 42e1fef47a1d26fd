"""Files a rename replaced, held open a moment so that a write still reaching them is not lost.

A writer that renames a new file over a note (tagging does; editors too)
cannot stop a program that opened the note just before the rename from
writing just after it: that write goes to the old file, which no longer has
a name and is gone once closed. `Held` keeps each replaced file open for
`GRACE` seconds after its rename; then whatever reached it beyond the bytes
the new file took from it is added back to the note, after the bytes the new
file was written with and before anything appended to it since (a program
appending line by line wrote them in that order: it opened the old file
before the rename, the new one after). How it is added is the caller's
(`add`: tagging rewrites the note atomically, its head and body byte for
byte); by default, and when the note is no longer the file placed there, the
bytes are appended at its end with O_APPEND, as that program would have.

`Held` also collects the saves another program made in the instant a swap
was undone that could not stay the note (`set_aside`: kept beside it, see
`atomic.atomic_write_with`), so a run reports them with its late writes.

The limit of any write by rename remains: a write later than `GRACE` after
the rename (a logger holding the note open for hours) goes to a file that is
no longer the note, and nothing can see it.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GRACE", "MOST", "ROUNDS", "Held", "Placed", "Unsaved", "append_at_end"]

#: Seconds a replaced file is held after its rename. An appender that opened the note just before the
#: rename writes within microseconds, or a few milliseconds when the machine is loaded.
GRACE = 0.1
#: Replaced files held open at most (a file descriptor each): past that, the oldest is checked early.
MOST = 128
#: Rounds in which `finish` adds late bytes back the caller's way (which may replace the note again, so
#: that its own late writes are held in turn), before a last round appends them at the note's end. An
#: appender that opened the note just before a rename is rare (a few per hundred renames under a writer
#: every 2 ms): after four rounds, a line out of order is about as rare as a line an appender writes
#: later than `GRACE`, which no rename can keep.
ROUNDS = 4


@dataclass(frozen=True)
class Placed:
    """The file a rename put at a path (device, inode) and its size then: late bytes go at `size`."""

    dev: int
    ino: int
    size: int

    def is_(self, info: os.stat_result) -> bool:
        return (info.st_dev, info.st_ino) == (self.dev, self.ino) and info.st_size >= self.size


@dataclass
class Unsaved:
    """Bytes written to a replaced file that could not be added to the note at `path` (`why`)."""

    path: Path
    size: int
    why: str
    #: Where the bytes are kept instead: another program's save of the note, beside it (`atomic.KEPT`).
    kept: Path | None = None


@dataclass
class _File:
    since: float  # when it was replaced (time.monotonic)
    fd: int
    taken: int  # its bytes the new file holds
    path: Path


#: add(path, late bytes, the file placed at path or None): put the bytes back in the note; raises OSError.
Add = Callable[[Path, bytes, "Placed | None"], object]


class Held:
    """The files one run replaced, each held for `GRACE` seconds (see the module docstring)."""

    def __init__(self, add: Add | None = None) -> None:
        self._files: list[_File] = []  # oldest first
        self._placed: dict[Path, Placed] = {}
        self._holding: dict[Path, int] = {}  # how many files are held for each path
        self._add = add or append_at_end
        self._aside: list[Unsaved] = []  # saves kept beside their notes, not reported yet

    def set_aside(self, path: Path, copy: Path) -> None:
        """Another program's save of the note at `path` could not stay the note and is kept as `copy`
        (`atomic.atomic_write_with`'s `kept`): `check` and `finish` report it."""
        try:
            size = os.stat(copy).st_size
        except OSError:
            size = 0
        self._aside.append(Unsaved(path, size, "saved by another program as tagging replaced the note", copy))

    def _reported(self) -> list[Unsaved]:
        aside, self._aside = self._aside, []
        return aside

    def hold(self, fd: int, taken: int, path: Path) -> None:
        """Hold the open file `fd` (now owned here), replaced at `path` by a file holding its first
        `taken` bytes."""
        self._files.append(_File(time.monotonic(), fd, taken, path))
        self._holding[path] = self._holding.get(path, 0) + 1

    def placed(self, path: Path, placed: Placed) -> None:
        """The rename put `placed` at `path` (the last one counts)."""
        self._placed[path] = placed

    def check(self) -> list[Unsaved]:
        """Add back what reached the files held `GRACE` seconds or more (and the oldest while more than
        `MOST` are held) and let them go; what could not be added back."""
        now, ready = time.monotonic(), 0
        while ready < len(self._files) and (now - self._files[ready].since >= GRACE
                                            or len(self._files) - ready > MOST):
            ready += 1
        done, self._files = self._files[:ready], self._files[ready:]
        return self._let_go(done, self._add) + self._reported()

    def finish(self) -> list[Unsaved]:
        """Wait until the last file replaced is `GRACE` old (at most `GRACE`), add back what reached every
        file held and let them go; what could not be added back. Adding back may replace a note again:
        those files are waited for and added back in turn, `ROUNDS` times at most; what reaches the files
        the last of those rounds replaced is appended at the note's end."""
        unsaved: list[Unsaved] = []
        for add in (self._add,) * ROUNDS + (append_at_end,):
            if not self._files:
                break
            time.sleep(max(0.0, self._files[-1].since + GRACE - time.monotonic()))
            everything, self._files = self._files, []
            unsaved += self._let_go(everything, add)
        return unsaved + self._reported()

    def _let_go(self, files: list[_File], add: Add) -> list[Unsaved]:
        """Add back what reached `files` beyond what was taken, note by note in the order they were held,
        and close them."""
        late: dict[Path, list[bytes]] = {}
        unsaved = []
        for held in files:
            try:
                late.setdefault(held.path, []).append(_read_from(held.fd, held.taken))
            except OSError as exc:
                unsaved.append(Unsaved(held.path, 0, exc.strerror or str(exc)))
            finally:
                os.close(held.fd)
        for path, parts in late.items():
            data = b"".join(parts)
            if not data:
                continue
            try:
                add(path, data, self._placed.get(path))
            except OSError as exc:
                unsaved.append(Unsaved(path, len(data), exc.strerror or str(exc)))
        for held in files:  # where nothing is held any more, what was placed there is not needed either
            self._holding[held.path] -= 1
            if not self._holding[held.path]:
                del self._holding[held.path]
                self._placed.pop(held.path, None)
        return unsaved


def _read_from(fd: int, start: int) -> bytes:
    """The open file's bytes from `start` to its end (none when it is shorter: cut, not appended to)."""
    if os.fstat(fd).st_size <= start:
        return b""
    os.lseek(fd, start, os.SEEK_SET)
    return b"".join(iter(lambda: os.read(fd, 1 << 20), b""))


def append_at_end(path: Path, data: bytes, placed: Placed | None = None) -> None:
    """Append `data` to the regular file at `path` with O_APPEND, as a program appending to it would;
    never creates it."""
    out = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(out).st_mode):
            raise OSError(0, "no longer a regular file", str(path))
        view = memoryview(data)
        while view:
            view = view[os.write(out, view):]
    finally:
        os.close(out)
