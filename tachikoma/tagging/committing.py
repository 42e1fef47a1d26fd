"""The git commit of a writing run: tachikoma's change only, never someone's uncommitted edit
of the same file (see the package's docstring), nor a note git does not track: its text was never
added to git, so it is tagged and said, not committed (`untracked_text`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..git import gitutil
from ..reading.documents import TRANSCRIPT
from ..errors import TachikomaError
from ..git.gitutil import Blob
from ..memory import TAG_FILE, kind_of
from .edit import edit_markdown, edit_tag_file
from .model import Applied, Restore


#: How the commit message of an undo starts (`message`, `is_undo`).
UNDO_SUBJECT = "tachikoma: undo tagging of "


def message(action: str, values: str, paths: list[str], note: str = "", by: str = "") -> str:
    """The commit message of a tagging run ("tag" with its `values`, or "undo") over `paths`."""
    if action == "undo":
        subject = f"{UNDO_SUBJECT}{_files(len(paths))}"
    else:
        subject = f"tachikoma: tag {_files(len(paths))} ({values})"
    # The trailer (its own last paragraph) tells `gitutil.content_times` this commit changed tags only,
    # so tagging never makes a memory younger.
    return (subject + (f"\n\n{note}" if note else "") + _listing(paths) + f"\n{gitutil.TAGGING_TRAILER}: 1\n"
            + gitutil.changed_by_trailer(by))


def is_undo(commit_message: str) -> bool:
    """Whether a commit with the tagging trailer, whose message is `commit_message`, is an undo's (it carries the
    trailer too, so that an undo never makes a memory younger), not a tagging."""
    return commit_message.startswith(UNDO_SUBJECT)


def listed(commit_message: str) -> list[str]:
    """The files a tagging's commit message (`message`) lists, the paragraph before its trailers: those the run
    tagged (a transcript among them, though git saw only the tag file change); [] when the message lists none or a
    hook rewrote it so that another paragraph stands there."""
    paragraphs = commit_message.strip().split("\n\n")
    for i, paragraph in enumerate(paragraphs):
        if any(line.startswith(f"{gitutil.TAGGING_TRAILER}:") for line in paragraph.splitlines()):
            names = paragraphs[i - 1].splitlines() if i >= 2 else []
            return names if names and all(kind_of(name) for name in names) else []
    return []


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _listing(paths: list[str]) -> str:
    return "\n\n" + "\n".join(paths) + "\n" if paths else "\n"


def untracked_text(paths: list[str]) -> str:
    """Why notes git does not track were tagged but not committed: committed, their whole text would go into
    git, though nobody added it there."""
    it, its = ("it", "its") if len(paths) == 1 else ("them", "their")
    return (f"{', '.join(paths)} {'is' if len(paths) == 1 else 'are'} not tracked by git (tachikoma commits no "
            f"file you have not added: `git add` {it} to commit {it} with {its} tags)")


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()



def commit_written(root: Path, written: list[str], result: Applied, message, restore: dict[str, Restore],
                   config_path: str | os.PathLike | None = None) -> None:
    """Commit tachikoma's change to each of `written` (see the module docstring).

    `restore` is what undo was given (empty for apply); `config_path`: the settings file (``--config``)
    whose ``[git] hook_timeout`` counts.
    """
    try:
        known = gitutil.versions(root, written)
    except TachikomaError as exc:
        result.commit_error = _pending(str(exc))
        result.commit_pending = True
        return
    if known is None:
        return
    contents: dict[str, Blob | None] = {}
    stage: dict[str, Blob | None] = {}
    problems: list[str] = []
    untracked: list[str] = []
    for path in written:
        now = known[path]
        edit = _git_edit(root, path, result, restore.get(path))
        if now.conflicted:
            problems.append(f"{path} has an unresolved merge conflict in git")
            continue
        if now.submodule is not None:
            problems.append(gitutil.in_submodule(path, now.submodule))
            continue
        if not now.tracked:
            if now.ignored:
                problems.append(f"{path} is ignored by git")
                continue
            full = root / path
            if not os.path.lexists(full):
                continue
            if path != TAG_FILE:  # a note nobody added: its text is not tachikoma's to commit
                untracked.append(path)
                continue
            try:
                data = full.read_bytes()
            except OSError as exc:
                problems.append(f"{path}: cannot read ({exc.strerror})")
                continue
            # The tag file, new: tachikoma's own file, holding tags only, is committed whole.
            mode = "100755" if os.stat(full).st_mode & 0o100 else "100644"
            contents[path] = stage[path] = Blob(data, mode, worktree=True)
            continue
        if any(v is not None and v.mode not in ("100644", "100755") for v in (now.head, now.index)):
            problems.append(f"{path} is not a regular file in git")
            continue
        try:
            head = edit(now.head.data) if now.head is not None else None
            staged = edit(now.index.data) if now.index is not None else None
        except (ValueError, TachikomaError) as exc:
            problems.append(f"{path}: its version in git cannot be tagged safely ({exc}); "
                            "the file is tagged but the change is not committed")
            continue
        if now.head is not None:
            contents[path] = None if head is None else Blob(head, now.head.mode)
        else:
            contents[path] = None if staged is None else Blob(staged, now.index.mode)
        if now.index is not None:
            stage[path] = None if staged is None else Blob(staged, now.index.mode)
    problems += [untracked_text(untracked)] * bool(untracked)
    errors = [f"not committed: {'; '.join(problems)}"] if problems else []
    committed = [c.path for c in result.changes if (TAG_FILE if c.kind == TRANSCRIPT else c.path) in contents]
    if committed:
        if problems:
            result.message = message(committed)
        try:
            result.commit = gitutil.commit_blobs(root, contents, result.message, stage=stage, config_path=config_path)
            result.committed = committed if result.commit else []
        except TachikomaError as exc:
            errors.append(_pending(str(exc)))
            result.commit_pending = True
    result.commit_error = "; ".join(errors) or None


def _pending(error: str) -> str:
    return f"{error} (the files are written; the next tachikoma run that writes commits them)"


def _git_edit(root: Path, path: str, result: Applied, earlier: Restore | None):
    """A function making tachikoma's change to another version (bytes) of the file at `path`.

    A version equal to the file as it was before this write becomes the file
    as written; for undo, a version equal to what the apply wrote (`earlier`)
    gets its exact former bytes back; any other version gets the same tag
    edit made to it. The function returns the new bytes (None: the file
    should not exist) and raises ValueError or TagFileError when that
    version cannot be edited safely.
    """
    if path == TAG_FILE:
        transcripts = [c for c in result.changes if c.kind == TRANSCRIPT]
        keep = os.path.lexists(root / TAG_FILE)

        def semantic(data: bytes) -> bytes | None:
            return edit_tag_file(root, data, transcripts, keep)
    else:
        change = next(c for c in result.changes if c.path == path)

        def semantic(data: bytes) -> bytes | None:
            return edit_markdown(data, change)

    mine = result.restore.get(path)

    def edit(data: bytes) -> bytes | None:
        if mine is not None and mine.original_sha256 is not None and sha(data) == mine.original_sha256:
            try:
                now: bytes | None = (root / path).read_bytes()
            except FileNotFoundError:
                now = None
            if sha(now) == mine.written_sha256:
                return now
        if earlier is not None and sha(data) == earlier.written_sha256:
            return earlier.before(data)
        return semantic(data)

    return edit


