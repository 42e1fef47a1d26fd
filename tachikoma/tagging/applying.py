"""Writing a plan (`apply`) and taking it back (`undo`), under the writers' lock, journalled
until committed."""

from __future__ import annotations

import errno
import functools
import os
from dataclasses import asdict
from pathlib import Path

from .. import faults
from ..git import gitstate, gitutil
from ..reading import tagfile
from ..atomic import atomic_write_bytes
from ..config import load_config
from ..reading.documents import KINDS, MARKDOWN, TRANSCRIPT
from ..errors import TachikomaError
from ..humanize import printable
from ..memory import TAG_FILE, PathOutsideMemory, safe_path
from . import journal
from .committing import commit_written, message, sha
from .edit import edit_entry, mismatch
from .model import Applied, Change, Plan, Restore, Skip, current_values
from .planning import tag_file_refusal
from .recovery import finish_pending
from .replaced import Held
from .rewrite import add_late, reason_of, report_unsaved, write_markdown
from .writers import acquire_writers_lock


def apply(root: Path, plan: Plan, commit: bool = True, lock_timeout: float = 120, note: str = "",
          by: str = "", config_path: str | os.PathLike | None = None) -> Applied:
    """Write `plan`; commit the changed files when in git and `commit` (`note`: a paragraph for the
    commit message, e.g. who asked for the change; `by`: who did, for a trailer, on a shared server;
    `config_path`: the settings file given with ``--config``, else the memory's own counts).

    Files whose tags changed since the plan was made are skipped with a
    reason. Raises TagFileError (before writing anything) when the tag file is
    malformed, and TachikomaError when the lock cannot be had in time.
    """
    values = ", ".join(f"{k}={v}" for k, v in plan.values.items())
    limit = plan.max_bytes if plan.max_bytes is not None else load_config(Path(root), config_path).max_file_bytes
    return _write(Path(root), plan.changes, commit, ("tag", values), restore=None, lock_timeout=lock_timeout,
                  max_bytes=limit, note=note, by=by, config_path=config_path)


def undo(root: Path, applied: Applied | list[Change], commit: bool = True, lock_timeout: float = 120,
         by: str = "", config_path: str | os.PathLike | None = None) -> Applied:
    """Put back the tags as they were before `applied` (an Applied or its Changes).

    A file not touched since the apply gets its exact former bytes back
    (this needs an Applied from the same process). Otherwise the changed
    keys are set back or removed, and a front matter block that tachikoma
    added is removed when it becomes empty. A file whose tags changed since
    the apply is skipped with a reason. Returns what the undo wrote (undoing
    that re-applies).
    """
    if isinstance(applied, Applied):
        changes, restore = applied.changes, applied.restore
    else:
        changes, restore = list(applied), {}

    return _write(Path(root), [c.inverse() for c in changes], commit, ("undo", ""), restore=restore,
                  lock_timeout=lock_timeout, by=by, config_path=config_path)



def _write(root: Path, changes: list[Change], commit: bool, action: tuple[str, str], restore,
           lock_timeout: float, max_bytes: int | None = None, note: str = "", by: str = "",
           config_path: str | os.PathLike | None = None) -> Applied:
    """Write `changes` and commit them, under the lock. `action` is ("tag", values) or ("undo", "").

    Before the first file is touched, the planned changes go into the
    journal (`journal`), taken out once they are committed. A run killed on
    the way, or whose commit fails, stays there, and the next writing run
    (or `recover`) first commits what it wrote: see `recover`. In a
    repository whose HEAD is detached, a committing run refuses before it
    writes anything (raises TachikomaError).
    """
    root = root.resolve()
    result = Applied()
    message_for = functools.partial(message, *action, note=note, by=by)
    lock = acquire_writers_lock(root, lock_timeout)
    try:
        result.recovered = finish_pending(root, config_path)
        markdown = [c for c in changes if c.kind == MARKDOWN]
        transcripts = [c for c in changes if c.kind == TRANSCRIPT]
        for change in changes:
            if change.kind not in KINDS:
                result.skipped.append(Skip(change.path, f"unknown kind {change.kind!r}"))
        if commit and (markdown or transcripts):
            gitstate.refuse_to_commit(root, "nothing was tagged", ", or tag without committing")
            gitutil.hook_timeout(root, config_path)  # a broken settings file stops the run here, not at its commit
        # Read the tag file before writing anything, so a malformed one stops us early.
        tags_file = tagfile.load(root) if transcripts else None
        run_id = _save_journal(root, action, commit, markdown + transcripts) if markdown or transcripts else None
        written: list[str] = []
        # The notes replaced, held open a moment for a write that still reaches them.
        held = Held(lambda path, data, placed: add_late(path, data, placed, held))
        try:
            for change in markdown:
                if write_markdown(root, change, restore or {}, result, max_bytes, held):
                    written.append(change.path)
                    faults.point("tag-wrote-file")
                report_unsaved(root, held.check(), result)
        finally:
            report_unsaved(root, held.finish(), result)
        if transcripts:
            written += _write_transcripts(root, tags_file, transcripts, restore or {}, result)
        faults.point("tag-before-commit")
        if written:
            result.message = message_for([c.path for c in result.changes])
        if commit and written:
            commit_written(root, written, result, message_for, restore or {}, config_path)
        faults.point("tag-after-commit")
        if run_id is not None and not result.commit_pending:
            journal.drop(root, run_id)
    finally:
        lock.release()
    return result



def _save_journal(root: Path, action: tuple[str, str], commit: bool, changes: list[Change]) -> str:
    entries = [{k: v for k, v in asdict(c).items() if k != "current"} for c in changes]
    try:
        return journal.add(root, {"action": list(action), "commit": commit, "changes": entries})
    except OSError as exc:  # a full disk, a read-only .cache: before any file was touched
        why = f"{exc.strerror or exc}: the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        names = ", ".join(printable(c.path) for c in changes[:3]) + (", …" if len(changes) > 3 else "")
        raise TachikomaError(f"cannot write {printable(str(journal.path(root)))} ({why}); nothing was changed "
                             f"({names} not tagged)") from None



def _write_transcripts(root: Path, tags_file: tagfile.TagFile, changes: list[Change],
                       restore: dict[str, Restore], result: Applied) -> list[str]:
    target = tags_file.path
    locked = tag_file_refusal(root)
    if locked:  # the user's "do not change this" (chmod 444): every transcript of the run is left as it is
        result.skipped.extend(Skip(change.path, locked) for change in changes)
        return []
    try:
        before_bytes: bytes | None = target.read_bytes()
    except FileNotFoundError:
        before_bytes = None
    exact = restore.get(TAG_FILE)
    if exact is not None and sha(before_bytes) == exact.written_sha256:
        # Nothing touched the tag file since we wrote it: put the old bytes back.
        try:
            if exact.original is None:
                target.unlink()
            else:
                atomic_write_bytes(target, exact.original)
        except OSError as exc:
            return _unwritable_tag_file(changes, exc, result)
        result.changes.extend(changes)
        result.restore[TAG_FILE] = Restore(original=before_bytes, written_sha256=sha(exact.original),
                                           original_sha256=sha(before_bytes))
        return [TAG_FILE]

    # `tagfile.parse` already gave every entry its own copy, and `edit_entry` replaces
    # an entry rather than changing it in place.
    entries = tags_file.all_entries()
    done: list[Change] = []
    for change in changes:
        if change.path in tags_file.extra:
            result.skipped.append(Skip(change.path, f"its {TAG_FILE} entry is not a mapping of tags; fix it by hand"))
            continue
        try:
            safe_path(root, change.path)
        except PathOutsideMemory as exc:
            result.skipped.append(Skip(change.path, str(exc)))
            continue
        why = mismatch(current_values(entries.get(change.path)), change)
        if why:
            result.skipped.append(Skip(change.path, why))
            continue
        edit_entry(entries, change)
        done.append(change)
    if not done:
        return []
    try:
        tagfile.save(root, entries, previous=_text(before_bytes))
    except OSError as exc:
        return _unwritable_tag_file(done, exc, result)
    after_bytes = target.read_bytes()
    result.changes.extend(done)
    result.restore[TAG_FILE] = Restore(original=before_bytes, written_sha256=sha(after_bytes),
                                       original_sha256=sha(before_bytes))
    return [TAG_FILE] if after_bytes != before_bytes else []


def _text(data: bytes | None) -> str | None:
    """A tag file's bytes as the text `tagfile.render` edits in place (None: none, or not UTF-8)."""
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _unwritable_tag_file(changes: list[Change], exc: OSError, result: Applied) -> list[str]:
    """The tag file could not be written (it is as it was): each transcript change is skipped."""
    for change in changes:
        result.skipped.append(Skip(change.path, f"cannot write {TAG_FILE} ({reason_of(exc)}); not tagged"))
    return []

