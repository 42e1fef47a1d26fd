"""Replace a file's contents atomically: readers see the old file or the new one, never half.

The new contents go to a hidden temporary file in the same folder, which is
flushed and fsynced, given the permission bits of the file it replaces, and
then renamed over it with ``os.replace``; the folder is fsynced so the rename
survives a crash. On any failure the temporary file is removed and the
original is left untouched.

Text is encoded as given: line endings are never translated (``newline=""``
semantics), so ``\\r\\n`` stays ``\\r\\n`` and a missing final newline stays
missing. When `path` is a symlink, the file it points to is replaced and the
link is kept.

Only the new file is ever deleted, known by its device and inode (held
open, so the number cannot go to another file): where names are swapped
(`atomic_write_with`'s `displaced`) and another program saves in the
instant the swap is undone, the newest save is left at `path` and any other
file found under the temporary name is kept beside it
(``<name>.conflict-<8 hex>``, `KEPT`), not deleted. The limit that remains:
a program that reads the new file in the instant it has the name (between
a swap and its undoing) and saves later, after the undoing, replaces the
file put back with a save lacking that file's bytes; nothing tells which
file its save was read from.

A process killed (kill -9) between writing the temporary file and renaming
it leaves that file behind (``.name.<12 hex>.tmp``); `remove_leftovers`
deletes them, for a caller that holds the lock all writers of `path` take.
Killed between a swap and its end, it leaves the file swapped out under
that name (the note replaced, or a save refused), and `remove_leftovers`
deletes that too.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import re
import secrets
import stat
from pathlib import Path
from typing import BinaryIO, Callable

from . import faults

__all__ = ["atomic_write_bytes", "atomic_write_text", "atomic_write_with", "read_only", "remove_leftovers"]


_TOKEN_BYTES = 6
#: How much of a file's name its temporary file repeats: ".", that much, ".<12 hex>.tmp" fit in 255 bytes.
_NAME_BYTES = 255 - len(".") - len(".tmp") - 1 - 2 * _TOKEN_BYTES


def _temp_prefix(name: str) -> str:
    """The start of the temporary files' names for a file `name`: ".<name>." with the name cut short
    enough for the file system (a 250-byte name is allowed, a 268-byte temporary name is not)."""
    while len(os.fsencode(name)) > _NAME_BYTES:
        name = name[:-1]
    return f".{name}."


def remove_leftovers(path: str | os.PathLike) -> list[Path]:
    """Delete the temporary files that interrupted writes of `path` left behind; return them."""
    target = Path(os.path.realpath(path))
    pattern = re.compile(rf"{re.escape(_temp_prefix(target.name))}[0-9a-f]{{{2 * _TOKEN_BYTES}}}\.tmp")
    removed = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if pattern.fullmatch(name):
            try:
                os.unlink(target.parent / name)
            except FileNotFoundError:
                continue
            removed.append(target.parent / name)
    return removed


def read_only(info: os.stat_result) -> str | None:
    """Why a file whose status is `info` is not to be replaced: its permission bits keep us from writing it
    (``chmod 444``), though a rename in its writable folder would replace it all the same; None when they let us.

    The bits that apply are the owner's, the group's or the others' (as for a plain write); the superuser, whom
    no bit stops, keeps to the file's: none set for anyone is read-only. The words every face shows."""
    mode = info.st_mode
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    if euid is None or euid == 0:
        bits = 0o222
    elif info.st_uid == euid:
        bits = 0o200
    elif info.st_gid == os.getegid() or info.st_gid in os.getgroups():
        bits = 0o020
    else:
        bits = 0o002
    if mode & bits:
        return None
    return (f"read-only (mode {stat.S_IMODE(mode):04o}): tachikoma does not replace a file its permissions keep "
            "from being written; allow it (`chmod u+w`) to tag it")


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to `path` atomically, without translating line endings."""
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (see the module docstring)."""
    atomic_write_with(path, lambda handle: handle.write(data))


def atomic_write_with(path: str | os.PathLike, fill: Callable[[BinaryIO], object],
                      before_replace: Callable[[], object] | None = None,
                      displaced: Callable[[Path], object] | None = None,
                      kept: Callable[[Path], object] | None = None) -> os.stat_result:
    """Replace `path` atomically with what `fill(handle)` writes to an open binary file, so
    large contents can be streamed instead of held in memory (see the module docstring); return
    the new file's status, taken from its descriptor before the rename (which file it is: `path`
    may name another one already).

    `before_replace()` runs once the new contents are on disk, as the last step before the
    rename: a caller checks there that the file did not change meanwhile, and raises to
    leave it alone (the temporary file is removed). `displaced(old)` closes the gap between
    that check and the rename, where another program may rename its own file over `path`:
    where the system can (Linux, `renameat2` with RENAME_EXCHANGE), the new file and the one
    at `path` swap names atomically and `displaced` is shown the file that was there (named
    `old` for the moment); if it raises, the swap is undone, so that file is back in place
    (`_put_back`: when another save landed on the new file meanwhile, that newest save is the
    one put back, and the file refused is kept beside it, given to `kept(copy)`).
    The replaced file is unlinked at once: a caller that must see a write still reaching it
    (through a descriptor opened before the rename) holds it open itself (`tagging.replaced.Held`).
    Only the new file is ever deleted, known by its device and inode: any other file found
    under the temporary name is kept beside `path` (`KEPT`), never removed."""
    target = Path(os.path.realpath(path))
    folder = target.parent
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    # A hidden name, so a memory walk running at the same time never sees it.
    temp = folder / f"{_temp_prefix(target.name)}{secrets.token_hex(_TOKEN_BYTES)}.tmp"
    # 0o666 is filtered by the umask, as for any newly created file.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    # Which file is ours (only this one is ever deleted), held open to the end: a file another program
    # deletes meanwhile cannot have its inode number given to a new file, which would then pass for ours.
    mine = os.dup(fd)
    new = os.fstat(mine)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
            if mode is not None:
                os.chmod(temp, mode)
        new = os.fstat(mine)
        faults.point("atomic-before-rename")
        if before_replace is not None:
            before_replace()
        if displaced is not None and _exchange(temp, target):
            try:
                displaced(temp)
            except BaseException:
                _put_back(temp, target, new, kept)
                raise
            # The file the new one replaced, as `displaced` saw it: only this process names a file `temp`.
            os.unlink(temp)
        else:
            os.replace(temp, target)
    except BaseException:
        _clear(temp, target, new, kept)
        raise
    finally:
        os.close(mine)
    fsync_dir(folder)
    return new


#: Another program's save that a swap took from `path` and could not leave there is kept beside it as
#: ``<name>.conflict-<8 hex>``: visible, and not a memory file (no ``.md`` suffix), so never indexed.
KEPT = ".conflict-"
#: How many times `_put_back` swaps names when other saves keep landing, before it stops.
_PUT_BACK_SWAPS = 8


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _put_back(temp: Path, target: Path, new: os.stat_result, kept: Callable[[Path], object] | None) -> None:
    """`displaced` refused the file the swap put at `temp` (another save, made after the caller's last
    check): put it back at `target` and delete the new file, the swap undone.

    Another program may have renamed a save over the new file between the swap and the swap back:
    the swap back then brings that save to `temp`, not the new file. It is the newest save and goes
    back to `target` (another swap), and the file refused, now at `temp`, is kept beside the note
    (`_set_aside`): it may hold bytes the newest save lacks (a program that read the new file, not
    it). A save landing again in that instant is put back in turn, `_PUT_BACK_SWAPS` times at most;
    nothing but the new file is deleted. A `target` removed meanwhile gets the file back without
    replacing a file made there since."""
    placed = None  # the file the last swap put at `target`
    for _ in range(_PUT_BACK_SWAPS):
        going = os.lstat(temp)
        try:
            if not _exchange(temp, target):
                break
        except FileNotFoundError:  # `target` removed meanwhile: the file comes back all the same
            if _place(temp, target):
                return
            continue  # a file was made there meanwhile: the newest, it stays; swap with it
        now = os.lstat(temp)
        if _same(now, new):
            os.unlink(temp)
            return
        if placed is not None and _same(now, placed):
            break  # nobody saved over the file put back: the one now at `target` is newer
        placed = going  # `now` is a save newer than the file just put back: it goes back instead
    _set_aside(temp, target, kept)


def _place(temp: Path, target: Path) -> bool:
    """Give the file at `temp` the name `target` unless a file has it; False when one has."""
    try:
        os.link(temp, target)
    except FileExistsError:
        return False
    os.unlink(temp)
    return True


def _set_aside(temp: Path, target: Path, kept: Callable[[Path], object] | None) -> None:
    """Rename the file at `temp` (not ours) to a free name `KEPT` beside `target`; tell `kept`."""
    while True:
        copy = target.with_name(f"{_kept_stem(target.name)}{KEPT}{secrets.token_hex(4)}")
        try:
            os.link(temp, copy)
        except FileExistsError:
            continue
        break
    os.unlink(temp)
    if kept is not None:
        kept(copy)


def _kept_stem(name: str) -> str:
    """`name`, cut short enough for the file system with `KEPT` and 8 hex digits after it."""
    while len(os.fsencode(name)) > 255 - len(KEPT) - 8:
        name = name[:-1]
    return name


def _clear(temp: Path, target: Path, new: os.stat_result, kept: Callable[[Path], object] | None) -> None:
    """After a failure: delete the new file if `temp` still names it; any other file there is kept."""
    try:
        now = os.lstat(temp)
    except FileNotFoundError:
        return
    if _same(now, new):
        os.unlink(temp)
    else:  # interrupted between a swap and its end: another program's file, never deleted
        _set_aside(temp, target, kept)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap the names of two files atomically (Linux's renameat2). False where the system or the file
    system cannot, nothing done; raises OSError when it fails otherwise."""
    call = _renameat2()
    if call is None:
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


@functools.cache
def _renameat2():
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except OSError:
        return None


def can_exchange(folder: str | os.PathLike) -> bool:
    """Whether files in `folder` can swap names atomically (see `atomic_write_with`)."""
    a, b = Path(folder) / f".exchange.{secrets.token_hex(4)}", Path(folder) / f".exchange.{secrets.token_hex(4)}"
    a.touch()
    b.touch()
    try:
        return _exchange(a, b)
    finally:
        a.unlink()
        b.unlink()


def fsync_dir(folder: Path) -> None:
    """Make the rename durable. Not possible on every platform (Windows): ignored there."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
