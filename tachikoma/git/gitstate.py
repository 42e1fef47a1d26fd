"""May tachikoma commit in this repository now? Not on a detached HEAD, and not while git is half way
through an operation of its own: a merge, a cherry-pick, a revert, a rebase, ``git am`` or a bisect.

A commit made then lands in the middle of that operation: on the branch a merge is about to commit
to, so ``git merge --abort`` no longer rewinds to where the merge started (it refuses, or takes the
tags back out with everything else), and among a rebase's or ``git am``'s own commits. So a writing
run refuses before it writes anything (`refuse_to_commit`), saying which operation it is and what
to do; `gitutil.commit_blobs` asks the same before every commit, so a run finished later (`recover`,
a `remember`) waits in the journal until the operation is over.
"""

from __future__ import annotations

import os
from pathlib import Path

from .gitrun import DetachedHead, GitError, run

#: The operations git keeps a state for in its folder while it waits on the user: (file or folder in
#: the git folder, what is going on, what to do about it). The first found is named.
_OPERATIONS = (
    ("rebase-merge", "a rebase is in progress", "finish it (`git rebase --continue`) or abort it "
                                                "(`git rebase --abort`)"),
    ("rebase-apply/applying", "`git am` is applying patches", "finish it (`git am --continue`, or `--skip`) "
                                                              "or abort it (`git am --abort`)"),
    ("rebase-apply", "a rebase is in progress", "finish it (`git rebase --continue`) or abort it "
                                                "(`git rebase --abort`)"),
    ("MERGE_HEAD", "a merge is in progress", "finish it (`git commit`) or abort it (`git merge --abort`)"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress", "finish it (`git cherry-pick --continue`) or abort it "
                                                         "(`git cherry-pick --abort`)"),
    ("REVERT_HEAD", "a revert is in progress", "finish it (`git revert --continue`) or abort it "
                                               "(`git revert --abort`)"),
    ("sequencer/todo", "a cherry-pick or revert of several commits is in progress",
     "finish it (`git cherry-pick --continue` or `git revert --continue`) or abort it (`--abort`)"),
    ("BISECT_START", "a bisect is in progress", "end it (`git bisect reset`)"),
)


class OperationInProgress(GitError):
    """Git is half way through a merge, cherry-pick, revert, rebase, ``git am`` or bisect: tachikoma does not
    commit until it is over. `operation` says which ("a merge is in progress")."""

    def __init__(self, message: str, operation: str):
        super().__init__(message)
        self.operation = operation


def _git_paths(root: Path, names: list[str]) -> list[str] | None:
    """Where each of `names` is in the git folder of the work tree holding `root` (a linked work tree's
    own), or None when `root` is in no work tree."""
    try:
        done = run(Path(root), ["rev-parse", "--is-inside-work-tree", *(part for n in names for part in ("--git-path", n))],
                   check=False, literal=False)
    except GitError:
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").split("\n")
    if done.returncode != 0 or lines[0].strip() != "true" or len(lines) < len(names) + 1:
        return None
    return [line if os.path.isabs(line) else os.path.join(root, line) for line in lines[1:len(names) + 1]]


def operation_in_progress(root: Path) -> tuple[str, str] | None:
    """(what is going on, what to do about it) when git is half way through an operation in the repository
    holding `root`; None when it is not, or `root` is in no work tree."""
    found = _git_paths(root, [name for name, _, _ in _OPERATIONS])
    if found is None:
        return None
    for (_, what, advice), path in zip(_OPERATIONS, found):
        if os.path.exists(path):
            return what, advice
    return None


def detached(root: Path) -> bool:
    """Whether `root` is in a git work tree whose HEAD is detached (not on a branch)."""
    if _git_paths(root, []) is None:
        return False
    return run(Path(root), ["symbolic-ref", "-q", "HEAD"], check=False, literal=False).returncode != 0


def refuse_to_commit(root: Path, consequence: str, otherwise: str = "") -> None:
    """Raise OperationInProgress or DetachedHead when tachikoma must not commit in the repository holding
    `root` now (see the module docstring). `consequence` says what that means for the caller ("nothing was
    tagged"), `otherwise` what else one may do (", or tag without committing"). Nothing when `root` is in
    no work tree."""
    operation = operation_in_progress(root)
    if operation is not None:
        what, advice = operation
        raise OperationInProgress(
            f"{what} in the git repository of {root}: {consequence}, since a commit now would become part of it "
            f"(and aborting it would no longer rewind to where it started); {advice} first{otherwise}", what)
    if detached(root):
        raise DetachedHead(
            f"HEAD is detached (not on a branch): {consequence}, since the commit would vanish from view at the "
            f"next checkout of a branch; check out a branch first{otherwise}")
