"""The writers' lock: every writer of memory files and their commits (tagging, undo, `remember`)
holds ``<root>/.cache/tag.lock`` while it writes and commits."""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout

from ..errors import TachikomaError
from ..memory import cache_dir

LOCK_NAME = "tag.lock"


def lock_for(root: Path, timeout: float = 120) -> FileLock:
    """The lock every tag writer holds: `<root>/.cache/tag.lock`."""
    return FileLock(str(cache_dir(Path(root)) / LOCK_NAME), timeout=timeout)



def acquire_writers_lock(root: Path, timeout: float) -> FileLock:
    """The lock every writer of memory files and their commits holds (tagging, undo, `remember`):
    two commits built on the same HEAD at once would make the second fail."""
    lock = lock_for(root, timeout)
    try:
        lock.acquire()
    except Timeout:
        raise TachikomaError(
            f"another tachikoma process is writing tags in {root} (lock {lock.lock_file}); try again later"
        ) from None
    return lock


