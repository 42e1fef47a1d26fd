"""Files a rename replaced, held open a moment so that a write still reaching them is not lost.

A writer that renames a new file over a note (tagging does; editors too)
cannot stop a program that opened the note just before the rename from
writing just after it: that write goes to the old file, which no longer has
a name and is gone once closed. `Held` keeps each replaced file open for
`GRACE` seconds after its rename; then whatever reached it beyond the bytes
the new file took from it is appended to the file now at its path, with
O_APPEND: what that program would have done had it opened the note a moment
later. The new file's bytes are not touched (it keeps its head and body byte
for byte, the late bytes follow at its end, in order) and no file replaces
it, so no other program holding it open is cut off in turn.

The limit of any write by rename remains: a write later than `GRACE` after
the rename (a logger holding the note open for hours) goes to a file that is
no longer the note, and nothing can see it.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GRACE", "MOST", "Held", "Unsaved"]

#: Seconds a replaced file is held after its rename. An appender that opened the note just before the
#: rename writes within microseconds, or a few milliseconds when the machine is loaded.
GRACE = 0.1
#: Replaced files held open at most (a file descriptor each): past that, the oldest is checked early.
MOST = 128

_BLOCK = 1 << 20


@dataclass
class Unsaved:
    """Bytes written to a replaced file that could not be appended to the file at `path` (`why`)."""

    path: Path
    size: int
    why: str


@dataclass
class _File:
    since: float  # when it was replaced (time.monotonic)
    fd: int
    taken: int  # its bytes the new file holds
    path: Path


class Held:
    """The files one run replaced, each held for `GRACE` seconds (see the module docstring)."""

    def __init__(self) -> None:
        self._files: dict[tuple[int, int], _File] = {}  # by (device, inode); oldest first

    def hold(self, fd: int, taken: int, path: Path) -> None:
        """Hold the open file `fd` (now owned here), replaced at `path` by a file holding its first
        `taken` bytes. The same file held again (copied once more) keeps the one descriptor."""
        info = os.fstat(fd)
        key = (info.st_dev, info.st_ino)
        earlier = self._files.pop(key, None)
        if earlier is not None:
            os.close(fd)
            fd, taken = earlier.fd, max(taken, earlier.taken)
        self._files[key] = _File(time.monotonic(), fd, taken, path)

    def check(self) -> list[Unsaved]:
        """Append what reached the files held `GRACE` seconds or more (and the oldest while more than
        `MOST` are held) and let them go; what could not be appended."""
        now, unsaved = time.monotonic(), []
        while self._files:
            key, held = next(iter(self._files.items()))
            if now - held.since < GRACE and len(self._files) <= MOST:
                break
            del self._files[key]
            unsaved += _carry(held)
        return unsaved

    def finish(self) -> list[Unsaved]:
        """Wait until the last file replaced is `GRACE` old (at most `GRACE`, once per run), append what
        reached every file held and let them go; what could not be appended."""
        if self._files:
            youngest = max(held.since for held in self._files.values())
            time.sleep(max(0.0, youngest + GRACE - time.monotonic()))
        unsaved = []
        while self._files:
            unsaved += _carry(self._files.pop(next(iter(self._files))))
        return unsaved


def _carry(held: _File) -> list[Unsaved]:
    """Append `held`'s bytes past `taken` to the file at its path, and close it."""
    try:
        size = os.fstat(held.fd).st_size
        if size <= held.taken:
            return []  # nothing came (or it was cut short: not an append, nothing to carry)
        try:
            _append(held.fd, held.taken, held.path)
        except OSError as exc:
            return [Unsaved(held.path, size - held.taken, exc.strerror or str(exc))]
        return []
    finally:
        os.close(held.fd)


def _append(source: int, start: int, path: Path) -> None:
    """Append `source`'s bytes from `start` to its end to the regular file at `path` (never created)."""
    out = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(out).st_mode):
            raise OSError(0, "no longer a regular file", str(path))
        os.lseek(source, start, os.SEEK_SET)
        for block in iter(lambda: os.read(source, _BLOCK), b""):
            view = memoryview(block)
            while view:
                view = view[os.write(out, view):]
    finally:
        os.close(out)
