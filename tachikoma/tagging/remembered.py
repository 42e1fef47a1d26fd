"""A `remember` run in the journal: its note found again by its bytes, and committed.

`notes.remember` writes a note under the writers' lock after adding its run to
the journal; a run killed before its commit, or whose commit failed, is
finished by the next writing run (`recovery.finish_pending`), which calls
`finish` here. It lives below `recovery` (and `notes` above both), so the
writers and the recovery never import `notes`.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from ..git import gitutil
from ..errors import TachikomaError
from ..memory import open_regular
from .model import Applied

#: The longest note `remember` writes (the indexer's own limit is larger).
MAX_NOTE_BYTES = 1_000_000


def message(path: str, by: str = "") -> str:
    """The commit message of `remember` writing the note `path` (`by`: who asked, for a trailer)."""
    trailer = gitutil.changed_by_trailer(by)
    return f"tachikoma: remember {path}\n" + (f"\n{trailer}" if trailer else "")


def find_note(root: Path, folder: str, stem: str, matches) -> str | None:
    """The first of `<folder>/<stem>[-n].md` whose bytes satisfy `matches`, or None."""
    directory = root / folder if folder else root
    name = re.compile(rf"{re.escape(stem)}(?:-([0-9]+))?\.md")
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    numbered = sorted((int(m.group(1) or 1), n) for n in names if (m := name.fullmatch(n)))
    for _, candidate in numbered:
        try:
            with open_regular(directory / candidate) as handle:  # a FIFO named like the note is no note
                data = handle.read(MAX_NOTE_BYTES + 64 * 1024)
        except OSError:
            continue
        if matches(data):
            return f"{folder}/{candidate}" if folder else candidate
    return None


def finish(root: Path, run: dict, config_path: str | os.PathLike | None = None) -> Applied | None:
    """Commit the note of a `remember` run left in the journal, if it was written (found by its bytes)
    and not changed since. Returns a `model.Applied` (its `remembered`, `commit`, `commit_error`,
    `commit_pending`: it failed again and stays in the journal), or None when there is nothing to do."""
    folder, stem, sha = str(run["folder"]), str(run["stem"]), str(run["sha256"])
    path = find_note(root, folder, stem, lambda data: hashlib.sha256(data).hexdigest() == sha)
    if path is None:
        return None  # killed before the note was written, or it was changed or removed since
    done = Applied(remembered=[path])
    try:
        done.commit = gitutil.commit(root, [path], message(path), config_path=config_path)
    except TachikomaError as exc:
        done.commit_error = f"{path} was not committed: {exc}"
        # Ignored by git, in a submodule: trying at every run would only say so for ever.
        done.commit_pending = not isinstance(exc, gitutil.NotCommitted)
    return done
