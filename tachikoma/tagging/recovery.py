"""Finishing the writing runs that were killed (kill -9, a power cut) or could not commit:
`recover`, and `finish_pending` with the writers' lock held."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from ..reading import tagfile
from ..atomic import remove_leftovers
from ..reading.documents import MARKDOWN, TRANSCRIPT
from ..errors import TachikomaError
from ..reading.frontmatter import read_front_matter
from ..memory import TAG_FILE, PathOutsideMemory, safe_path
from . import journal, remembered
from .committing import commit_written, message
from .model import Applied, Change, current_values
from .writers import acquire_writers_lock


def recover(root: Path, lock_timeout: float = 120, config_path: str | os.PathLike | None = None) -> Applied | None:
    """Finish the writing runs that were killed (kill -9, a power cut) or could not commit.

    A run keeps its planned changes in the journal (`journal`) until they
    are committed. For each run left over, the files it had already written
    (those whose tags now read as the change made them) are committed, with
    tachikoma's change only, as the run would have; temporary files it left
    are removed; then the run leaves the journal, unless its commit fails
    again (it then waits for the next run). Files it had not reached yet are
    left alone: running the same `tag` command again tags them. A `remember`
    killed before its commit gets its note committed (`remembered.finish`).
    Every writing run does this first, so calling it is only needed when
    there is nothing new to write. Returns what was done (its `commit`,
    `commit_error`, `changes`, `remembered`), or None when no run was left
    or the ones that were had written nothing. `config_path`: the settings
    file (``--config``) whose ``[git] hook_timeout`` the commits keep to.
    """
    root = Path(root).resolve()
    if not journal.exists(root):
        return None
    lock = acquire_writers_lock(root, lock_timeout)
    try:
        return finish_pending(root, config_path)
    finally:
        lock.release()



def finish_pending(root: Path, config_path: str | os.PathLike | None = None) -> Applied | None:
    """`recover`, with the writers' lock held (`acquire_writers_lock`); `root` resolved."""
    try:
        runs = journal.load(root)
    except ValueError as exc:
        journal.clear(root)  # killed while writing it: nothing had been touched yet
        return Applied(commit_error=f"ignored an unreadable {journal.NAME} ({exc})")
    if not runs:
        return None
    total = Applied()
    errors: list[str] = []
    for run in runs:
        try:
            if list(run.get("action") or [])[:1] == ["remember"]:
                done = remembered.finish(root, run, config_path)
            else:
                done = _finish_run(root, run, config_path)
        except (KeyError, TypeError, ValueError) as exc:
            done = Applied(commit_error=f"ignored a damaged run in {journal.NAME} ({exc})")
        if done is None or not done.commit_pending:
            journal.drop(root, run["id"])
        if done is None:
            continue
        total.changes += done.changes
        total.committed += done.committed
        total.remembered += done.remembered
        total.commit = done.commit or total.commit
        total.commit_pending = total.commit_pending or done.commit_pending
        total.message = total.message or done.message
        if done.commit_error:
            errors.append(done.commit_error)
    total.commit_error = "; ".join(errors) or None
    if not (total.changes or total.remembered or total.commit_error):
        return None
    return total


def _finish_run(root: Path, saved: dict, config_path: str | os.PathLike | None = None) -> Applied | None:
    """Commit what one interrupted (or uncommitted) tagging run in the journal had written, or None."""
    action = tuple(saved["action"])
    changes = [Change(**entry) for entry in saved["changes"]]
    commit = bool(saved["commit"])
    result = Applied()
    for target in {TAG_FILE if c.kind == TRANSCRIPT else c.path for c in changes}:
        try:
            remove_leftovers(safe_path(root, target) if target != TAG_FILE else root / TAG_FILE)
        except (PathOutsideMemory, OSError):
            pass
    try:
        tags_file = tagfile.load(root) if any(c.kind == TRANSCRIPT for c in changes) else None
    except TachikomaError as exc:
        result.commit_error = f"cannot finish the interrupted tagging run: {exc}"
        result.commit_pending = True  # it stays: fixing the tag file and running again finishes it
        return result
    result.changes = [c for c in changes if _made(root, c, tags_file)]
    if not result.changes:
        return None  # it had written nothing (or it failed before): nothing to finish
    written = [c.path for c in result.changes if c.kind == MARKDOWN]
    if any(c.kind == TRANSCRIPT for c in result.changes):
        written.append(TAG_FILE)
    if written:
        message_for = functools.partial(message, *action, note="Finished by a later run: the run that wrote it "
                                                           "was interrupted or could not commit.")
        result.message = message_for([c.path for c in result.changes])
        if commit:
            commit_written(root, written, result, message_for, {}, config_path)
    return result


def _made(root: Path, change: Change, tags_file: tagfile.TagFile | None) -> bool:
    """Whether the file's tags now read as `change` leaves them (the interrupted run wrote it)."""
    if change.kind == TRANSCRIPT:
        now = current_values(tags_file.entries.get(change.path)) if tags_file else {}
    else:
        try:
            fm = read_front_matter(safe_path(root, change.path))
        except (PathOutsideMemory, OSError, UnicodeDecodeError):
            return False
        if fm.error:
            return False
        now = current_values(fm.meta)
    return all(now.get(key) == change.after.get(key) for key in change.keys)


