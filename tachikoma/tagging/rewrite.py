"""The race-safe rewrite of one note: only its head is read and rewritten, the body is copied
through, and the note is replaced atomically only if it is still the file read."""

from __future__ import annotations

import errno
import hashlib
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from ..atomic import atomic_write_with, read_only
from ..reading.frontmatter import read_head, split
from ..memory import PathOutsideMemory, open_regular, safe_path
from ..reading.tags import WRITABLE_KEYS
from .edit import BOM, SAMPLE, edit_head, mismatch
from .model import Applied, Change, Restore, Skip, current_values
from .planning import refusal
from .replaced import Held, Placed, Unsaved, append_at_end

#: How much of a file is read or copied at a time.
_BLOCK = 1 << 20
#: How many times a note that changes while it is being tagged is read again before it is skipped.
_ATTEMPTS = 5


class _Changed(Exception):
    """The note changed between being read and being replaced: nothing was replaced."""


def write_markdown(root: Path, change: Change, restore: dict[str, Restore], result: Applied,
                    max_bytes: int | None, held: Held) -> bool:
    """Make `change` to one note: only its head is read and rewritten, the body is copied through.

    Someone may write the note meanwhile (an appending agent, an editor's
    save): the new file replaces the note only if the note is still the file
    read, byte for byte; if not, the note is read again and tagged anew, up
    to `_ATTEMPTS` times, then skipped with a reason. A write that reaches
    the old note after that check (through a descriptor opened before the
    rename) is put back into the new one by `held` (see `replaced`). An
    editor's save refused at the swap, with another save renamed over the
    tagged copy before the swap is undone, is kept beside the note and
    reported (`atomic_write_with`'s `kept`, `Held.set_aside`).
    """
    try:
        path = safe_path(root, change.path)
    except PathOutsideMemory as exc:
        result.skipped.append(Skip(change.path, str(exc)))
        return False
    for attempt in range(_ATTEMPTS):
        try:
            handle = open_regular(path)  # a FIFO swapped in since the plan is refused, not waited on
        except FileNotFoundError:
            result.skipped.append(Skip(change.path, "no longer exists"))
            return False
        except OSError as exc:
            result.skipped.append(Skip(change.path, f"cannot read ({exc.strerror})"))
            return False
        with handle:
            try:
                return _tag_note(path, handle, change, restore, result, max_bytes, held)
            except _Changed:
                pass
        time.sleep(0.01 * (attempt + 1))  # let the other writer finish
    result.skipped.append(Skip(change.path, f"kept changing while being tagged ({_ATTEMPTS} tries): not tagged, "
                                            "nothing lost; run again once it is quiet"))
    return False


def _tag_note(path: Path, handle: BinaryIO, change: Change, restore: dict[str, Restore], result: Applied,
              max_bytes: int | None, held: Held) -> bool:
    """One try of `write_markdown` on the open note. Raises _Changed (see there)."""
    try:
        why = refusal(handle, max_bytes)
        head = read_head(handle)
    except ValueError as exc:
        why = f"{exc}; not rewritten"
    except OSError as exc:
        why = f"cannot read ({exc.strerror})"
    if why:
        result.skipped.append(Skip(change.path, why))
        return False
    old_sha = _stream_sha(handle, head)
    exact = restore.get(change.path)
    if exact is not None and exact.head_only and exact.original is not None and old_sha == exact.written_sha256:
        new_head = exact.original
    else:
        try:
            fm = split(head.decode("utf-8").removeprefix(BOM))
        except UnicodeDecodeError:
            result.skipped.append(Skip(change.path, "front matter is not UTF-8 text; not rewritten"))
            return False
        problem = fm.error or fm.duplicate_problem(WRITABLE_KEYS)
        why = f"{problem}; not rewritten" if problem else mismatch(current_values(fm.meta), change)
        if why:
            result.skipped.append(Skip(change.path, why))
            return False
        if not [k for k in change.keys if k not in change.after]:
            # Setting tags: note whether the block is new, so undo can remove it again.
            change = replace(change, created_block=not fm.block)
        handle.seek(len(head))
        try:
            new_head = edit_head(head, handle.read(SAMPLE), change)
        except ValueError as exc:
            result.skipped.append(Skip(change.path, f"{exc}; not rewritten"))
            return False
    try:
        new_sha = old_sha if new_head == head else _rewrite(path, handle, len(head), new_head, old_sha, held)
    except OSError as exc:  # EPERM, ENOSPC, an immutable file: this note only; the note is as it was
        result.skipped.append(Skip(change.path, f"cannot write ({reason_of(exc)}); not tagged"))
        return False
    result.changes.append(change)
    result.restore[change.path] = Restore(original=head, written_sha256=new_sha, original_sha256=old_sha,
                                          head_only=True)
    return new_head != head


def reason_of(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _stream_sha(handle: BinaryIO, head: bytes = b"", size: int | None = None) -> str:
    """The sha256 of the open file, or of its first `size` bytes, read in blocks (`head` is its start,
    already read)."""
    digest = hashlib.sha256(head)
    handle.seek(len(head))
    left = None if size is None else size - len(head)
    while left is None or left > 0:
        block = handle.read(_BLOCK if left is None else min(_BLOCK, left))
        if not block:
            break
        digest.update(block)
        if left is not None:
            left -= len(block)
    return digest.hexdigest()



def _identity(info: os.stat_result) -> tuple:
    """What tells that a file was replaced or written: which file it is, its size and modification time
    (not its ctime, which the rename over it changes)."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _rewrite(path: Path, handle: BinaryIO, body_at: int, new_head: bytes, expected_sha: str,
             held: Held) -> str:
    """Atomically replace `path` with `new_head` and the open file's bytes from `body_at`; return the
    sha256 of what was written.

    The replace happens only if `path` is still the file `handle` reads, that file did not change
    since `handle` was read and its bytes hash to `expected_sha`: else _Changed, and nothing is
    replaced. The file replaced is given to `held`, so a write that reaches it after the last check
    (through a descriptor opened before the rename) is put back into the note. The note keeps its
    modification time (plus 1 ns, so an incremental index still sees the change): a tag is not news,
    and a note outside git is dated by its mtime (`dates`)."""
    start = os.fstat(handle.fileno())
    old: list[int] = []  # the file at `path`, opened at the last check: the one the rename replaces
    digest, source = hashlib.sha256(new_head), hashlib.sha256()
    size = [0]

    def fill(out: BinaryIO) -> None:
        out.write(new_head)
        handle.seek(0)
        source.update(handle.read(body_at))
        for block in iter(lambda: handle.read(_BLOCK), b""):
            out.write(block)
            digest.update(block)
            source.update(block)
        size[0] = out.tell()

    def unchanged() -> None:
        if source.hexdigest() != expected_sha:
            raise _Changed()
        old.append(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))  # a FIFO: never waited on
        locked = read_only(os.fstat(old[0]))
        if locked:  # made read-only since it was read (`planning.refusal`): not replaced
            raise PermissionError(errno.EACCES, locked)
        if (_identity(os.fstat(handle.fileno())) != _identity(start)
                or _identity(os.fstat(old[0])) != _identity(start)
                or _stream_sha(handle) != source.hexdigest()):
            raise _Changed()

    def was_the_note(old: Path) -> None:  # an editor's save in the last instant is put back, not lost
        if _identity(os.stat(old)) != _identity(start):
            raise _Changed()

    try:
        written = atomic_write_with(path, fill, before_replace=unchanged, displaced=was_the_note,
                                    kept=lambda copy: held.set_aside(path, copy))
    except FileNotFoundError:
        _close(old)
        raise _Changed() from None  # renamed away meanwhile: read it again
    except BaseException:
        _close(old)
        raise
    held.hold(old.pop(), start.st_size, path)
    try:
        os.utime(path, ns=(start.st_atime_ns, start.st_mtime_ns + 1))
    except OSError:
        pass  # a file system that refuses it only costs the date, never the tags
    held.placed(path, Placed(written.st_dev, written.st_ino, size[0]))
    return digest.hexdigest()


def _close(fds: list[int]) -> None:
    while fds:
        os.close(fds.pop())


def add_late(path: Path, data: bytes, placed: Placed | None, held: Held) -> None:
    """Put `data` back into the note at `path`: bytes written to a file tagging replaced there, after the
    replacement (see `replaced`). They go right after the bytes the note was written with, before what
    was appended to it since (`_insert`); with one appending write (dating the note as that write would
    have) when nothing was appended since, or when the note is no longer the file written (someone
    else's: at its end)."""
    for _ in range(_ATTEMPTS):
        with open_regular(path) as handle:
            info = os.fstat(handle.fileno())
            if placed is None or not placed.is_(info) or info.st_size == placed.size:
                break
            try:
                _insert(path, handle, placed.size, data, held)
                return
            except _Changed:
                continue
    append_at_end(path, data)


def _insert(path: Path, handle: BinaryIO, at: int, data: bytes, held: Held) -> None:
    """Replace the note `handle` reads, at `path`, atomically with its bytes and `data` inserted at `at`;
    every other byte is kept. Lines appended to it meanwhile are no change: those appended while the copy
    was made are copied in just before the rename, and the file replaced is held, so a write reaching it
    later still comes back in turn. Raises _Changed when the note was replaced or its bytes copied changed."""
    start = os.fstat(handle.fileno())
    copied, source = [0], hashlib.sha256()
    old: list[int] = []
    copy: list[int] = []  # the new file, still writable after it was made durable

    def fill(out: BinaryIO) -> None:
        handle.seek(0)
        for block in iter(lambda: handle.read(min(_BLOCK, at - handle.tell())), b""):
            out.write(block)
            source.update(block)
        out.write(data)
        for block in iter(lambda: handle.read(_BLOCK), b""):
            out.write(block)
            source.update(block)
        copied[0] = handle.tell()
        copy.append(os.dup(out.fileno()))

    def the_note(info: os.stat_result) -> bool:
        return (info.st_dev, info.st_ino) == (start.st_dev, start.st_ino) and info.st_size >= copied[0]

    def unchanged() -> None:
        old.append(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
        if not the_note(os.fstat(old[0])) or _stream_sha(handle, size=copied[0]) != source.hexdigest():
            raise _Changed()
        # Lines appended while the copy was made durable go in too, so the rename leaves next to none
        # behind (those would come back after a wait, at the end). Not synced: a plain append is not.
        handle.seek(copied[0])
        for block in iter(lambda: handle.read(_BLOCK), b""):
            view = memoryview(block)
            while view:
                view = view[os.write(copy[0], view):]
            copied[0] += len(block)

    def was_the_note(displaced: Path) -> None:
        if not the_note(os.stat(displaced)):
            raise _Changed()

    try:
        written = atomic_write_with(path, fill, before_replace=unchanged, displaced=was_the_note,
                                    kept=lambda copy: held.set_aside(path, copy))
    except FileNotFoundError:
        _close(old)
        raise _Changed() from None
    except BaseException:
        _close(old)
        raise
    finally:
        _close(copy)
    held.hold(old.pop(), copied[0], path)
    held.placed(path, Placed(written.st_dev, written.st_ino, copied[0] + len(data)))


def report_unsaved(root: Path, unsaved: list[Unsaved], result: Applied) -> None:
    """Late writes `Held` could not add back to their notes, and saves kept beside them (`Held.set_aside`): each
    one's note is named with the reason."""
    for lost in unsaved:
        try:
            name = lost.path.relative_to(root).as_posix()
        except ValueError:
            name = str(lost.path)
        if lost.kept is not None:
            result.skipped.append(Skip(name, f"another program saved the note twice as tagging replaced it: the "
                                             f"note holds the newest save, the other ({lost.size} bytes) is kept "
                                             f"beside it as {lost.kept.name} (not indexed); merge what the note "
                                             f"lacks from it, then delete it"))
            continue
        result.skipped.append(Skip(name, f"tagged, but {lost.size} bytes another program wrote to the note as it "
                                         f"was replaced could not be put back ({lost.why}): they are lost"))


