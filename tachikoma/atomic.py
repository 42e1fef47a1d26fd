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

A process killed (kill -9) between writing the temporary file and renaming
it leaves that file behind (``.name.<12 hex>.tmp``); `remove_leftovers`
deletes them, for a caller that holds the lock all writers of `path` take.
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
                      displaced: Callable[[Path], object] | None = None) -> None:
    """Replace `path` atomically with what `fill(handle)` writes to an open binary file, so
    large contents can be streamed instead of held in memory (see the module docstring).

    `before_replace()` runs once the new contents are on disk, as the last step before the
    rename: a caller checks there that the file did not change meanwhile, and raises to
    leave it alone (the temporary file is removed). `displaced(old)` closes the gap between
    that check and the rename, where another program may rename its own file over `path`:
    where the system can (Linux, `renameat2` with RENAME_EXCHANGE), the new file and the one
    at `path` swap names atomically and `displaced` is shown the file that was there (named
    `old` for the moment); if it raises, the swap is undone, so that file is back in place.
    The replaced file is unlinked at once: a caller that must see a write still reaching it
    (through a descriptor opened before the rename) holds it open itself (`tagging.replaced.Held`)."""
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
    ours = True  # `temp` names the new file (not, for a moment, the one it swapped names with)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
            if mode is not None:
                os.chmod(temp, mode)
        faults.point("atomic-before-rename")
        if before_replace is not None:
            before_replace()
        if displaced is not None and _exchange(temp, target):
            ours = False
            try:
                displaced(temp)
            except BaseException:
                try:  # the file that was there goes back
                    _exchange(temp, target)
                except OSError:  # `target` removed meanwhile: it comes back all the same
                    os.replace(temp, target)
                ours = True
                raise
            os.unlink(temp)  # the file the new one replaced
        else:
            os.replace(temp, target)
    except BaseException:
        if ours:
            try:
                os.unlink(temp)
            except FileNotFoundError:
                pass
        raise
    fsync_dir(folder)


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
