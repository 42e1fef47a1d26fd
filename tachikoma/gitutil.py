"""The little git that tachikoma needs: where the repository is, when files were
last committed, and committing exactly the files it changed.

Every function works on a memory root that may be a subfolder of the
repository. Paths given and returned are relative to that root, with forward
slashes. When git is not installed or the root is not in a work tree,
`repo_toplevel` and `last_commit_times` quietly say so (None, {}); `commit`
returns None.
"""

from __future__ import annotations

import os
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from .errors import TachikomaError

FALLBACK_NAME = "tachikoma"
FALLBACK_EMAIL = "tachikoma@localhost"


class GitError(TachikomaError):
    """A git command failed."""


def _run(root: Path, args: list[str], check: bool = True, literal: bool = True) -> subprocess.CompletedProcess:
    """Run git in `root`. Raises GitError when git is missing or (with check) fails."""
    command = ["git"]
    if literal:
        # A file named "*.md" or ":x" must mean that file, not a pattern.
        command.append("--literal-pathspecs")
    command += args
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C")  # stable error messages
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        proc = subprocess.run(command, cwd=root, capture_output=True, env=env, stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}") from exc
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = "; ".join(line for line in message if line.strip())[:500] or f"exit status {proc.returncode}"
        raise GitError(f"git {args[0]} failed in {root}: {reason}")
    return proc


def repo_toplevel(root: Path) -> Path | None:
    """The top folder of the git work tree holding `root`, or None."""
    try:
        proc = _run(Path(root), ["rev-parse", "--is-inside-work-tree", "--show-toplevel"], check=False)
    except GitError:
        return None
    if proc.returncode != 0:
        return None
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 2 or lines[0].strip() != "true":
        return None
    return Path(lines[1])


def _prefix(root: Path) -> str | None:
    """`root` relative to the top of its work tree ("" at the top, "sub/" below it)."""
    try:
        proc = _run(Path(root), ["rev-parse", "--is-inside-work-tree", "--show-prefix"], check=False)
    except GitError:
        return None
    if proc.returncode != 0:
        return None
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")
    if not lines or lines[0].strip() != "true":
        return None
    return lines[1] if len(lines) > 1 else ""


def last_commit_times(root: Path) -> dict[str, datetime]:
    """Last commit time (aware, UTC) of every file ever committed under `root`.

    Keys are paths relative to `root`. One `git log` call covers the whole
    history; renames are seen as a deletion plus an addition, so a deleted or
    renamed-away path may appear too (callers look up the paths they have).
    Files never committed are absent. Empty when `root` is not in a repository.
    """
    root = Path(root)
    prefix = _prefix(root)
    if prefix is None:
        return {}
    proc = _run(
        root,
        ["log", "--no-renames", "--no-color", "--no-show-signature", "--name-only", "-z",
         "--format=%x00%ct", "--", "."],
        check=False, literal=False,
    )
    if proc.returncode != 0:
        # An empty repository (no commit yet) has no history to read.
        return {}
    return _parse_log(proc.stdout, prefix)


def _parse_log(output: bytes, prefix: str) -> dict[str, datetime]:
    """Parse `git log --format=%x00%ct --name-only -z` output.

    Each commit is NUL, its timestamp, NUL, then a newline and its file names
    each ended by NUL. File names are never empty, so an empty field always
    starts a commit.
    """
    times: dict[str, float] = {}
    fields = output.split(b"\0")
    current: float | None = None
    first_name = False
    i = 0
    n = len(fields)
    while i < n:
        field = fields[i]
        if field == b"":
            if i + 1 < n:
                try:
                    current = float(fields[i + 1].strip())
                except ValueError:
                    current = None
                first_name = True
                i += 2
                continue
            break
        if current is not None:
            name = field
            if first_name and name.startswith(b"\n"):
                name = name[1:]
            first_name = False
            path = name.decode("utf-8", "surrogateescape")
            if path.startswith(prefix):
                rel = path[len(prefix):]
                if rel and (rel not in times or times[rel] < current):
                    times[rel] = current
        i += 1
    return {path: datetime.fromtimestamp(ts, timezone.utc) for path, ts in times.items()}


def dirty_paths(root: Path) -> set[str]:
    """Tracked files under `root` whose working copy differs from the last commit.

    Modified, staged, deleted and renamed files (both names of a rename),
    relative to `root`; their last commit time says nothing about their
    content. Untracked files are not listed (they have no commit time
    anyway). Empty when `root` is not in a repository.
    """
    root = Path(root)
    prefix = _prefix(root)
    if prefix is None:
        return set()
    proc = _run(root, ["status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules",
                       "--", "."], check=False, literal=False)
    if proc.returncode != 0:
        return set()
    found: set[str] = set()
    fields = proc.stdout.split(b"\0")
    i = 0
    while i < len(fields):
        record = fields[i]
        i += 1
        if len(record) < 4:
            continue
        status, name = record[:2], record[3:]
        names = [name]
        if b"R" in status or b"C" in status:
            # A rename or copy is followed by its original path in the next field.
            if i < len(fields):
                names.append(fields[i])
            i += 1
        for raw in names:
            path = raw.decode("utf-8", "surrogateescape")
            if path.startswith(prefix) and len(path) > len(prefix):
                found.add(path[len(prefix):])
    return found


def _identity_args(root: Path) -> list[str]:
    """`-c user.name=… -c user.email=…` for whichever is not configured."""
    args: list[str] = []
    for key, fallback, env in (("user.name", FALLBACK_NAME, "GIT_AUTHOR_NAME"),
                               ("user.email", FALLBACK_EMAIL, "GIT_AUTHOR_EMAIL")):
        proc = _run(root, ["config", "--get", key], check=False, literal=False)
        if proc.returncode != 0 or not proc.stdout.strip():
            if not os.environ.get(env):
                args += ["-c", f"{key}={fallback}"]
    return args


def commit(root: Path, paths: list[str], message: str) -> str | None:
    """Commit exactly `paths` (relative to `root`) with `message`; return the commit id.

    Other staged or modified files are left alone. Paths that were deleted are
    committed as deletions. Returns None when `root` is not in a git work tree
    or none of the paths differs from the last commit. Raises GitError when
    git fails (the files on disk are not touched either way).
    """
    root = Path(root)
    paths = sorted(set(paths))
    if not paths or repo_toplevel(root) is None:
        return None
    present = [p for p in paths if os.path.lexists(root / p)]
    absent = [p for p in paths if p not in present]
    tracked_absent: list[str] = []
    if absent:
        proc = _run(root, ["ls-files", "-z", "--", *absent])
        tracked_absent = [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
        # ls-files prints paths relative to the cwd, which is root.
    if present:
        _retry(lambda: _run(root, ["add", "--", *present]))
    if tracked_absent:
        _retry(lambda: _run(root, ["rm", "--cached", "--quiet", "--ignore-unmatch", "--", *tracked_absent]))
    targets = present + tracked_absent
    if not targets:
        return None
    has_head = _run(root, ["rev-parse", "--verify", "--quiet", "HEAD"], check=False, literal=False).returncode == 0
    if has_head:
        diff = _run(root, ["diff", "--cached", "--quiet", "HEAD", "--", *targets], check=False)
        if diff.returncode == 0:
            return None
    args = _identity_args(root) + ["commit", "--quiet", "--no-edit", "-m", message]
    if has_head:
        args += ["--only", "--", *targets]
    else:
        # The first commit of a repository: --only needs a HEAD, so commit the
        # index, which holds only what was staged (ours and anything staged before).
        args += ["--", *targets]
    _retry(lambda: _run(root, args))
    head = _run(root, ["rev-parse", "HEAD"], literal=False)
    return head.stdout.decode().strip()


def _retry(action, attempts: int = 20, delay: float = 0.25):
    """Run a git command, waiting while another git process holds the index lock."""
    for attempt in range(attempts):
        try:
            return action()
        except GitError as exc:
            if "index.lock" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(delay)
