"""The little git that tachikoma needs: where the repository is, when files were
last committed, and committing exactly the change it made.

Every function works on a memory root that may be a subfolder of the
repository. Paths given and returned are relative to that root, with forward
slashes. When git is not installed or the root is not in a work tree,
`repo_toplevel` and `content_times` quietly say so (None, {}); `commit`
and `commit_blobs` return None.

Committing never sweeps in anything else. `commit_blobs` commits given file
contents (not the work tree) on top of HEAD, through a private index: other
staged files stay staged and out of the commit, and the work tree is not
touched. So tachikoma can commit only its own edit of a file whose work-tree
copy also holds someone's unsaved change (see `tagging`). The commit is made
with ``git commit-tree`` and moved into place with ``git update-ref``,
which fails rather than overwrite a HEAD that moved meanwhile.

The repository's own commit hooks run as ``git commit`` runs them (through
``git hook run``): ``pre-commit`` with ``GIT_INDEX_FILE`` naming the private
index (as for ``git commit <paths>``), ``prepare-commit-msg`` and
``commit-msg`` on the message (their edits are kept), ``post-commit`` after
the branch moved (`gitrun`). A hook that refuses raises HookRefused and nothing is
committed; one that does not finish in time (``[git] hook_timeout``, `hook_timeout`) is stopped and
nothing is committed either. With ``commit.gpgSign`` set the commit is signed, as ``git commit`` signs it (a
signature that cannot be made is an error: no unsigned commit). A detached HEAD is refused (DetachedHead): a commit there is lost
from view at the next ``git checkout`` of a branch; so is a merge, cherry-pick, revert, rebase, ``git am`` or
bisect in progress (`gitstate.OperationInProgress`).
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import faults
from . import gitrun, gitstate
from .gitrun import GitError, NotCommitted, hook, hooked_message
from .gitrun import run as _run

FALLBACK_NAME = "tachikoma"
FALLBACK_EMAIL = "tachikoma@localhost"


def _rev_parse(root: Path, *flags: str) -> list[str] | None:
    """The lines `git rev-parse` prints for `flags`, or None when `root` is not in a work tree."""
    try:
        proc = _run(Path(root), ["rev-parse", "--is-inside-work-tree", *flags], check=False)
    except GitError:
        return None
    if proc.returncode != 0:
        return None
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")
    if lines[0].strip() != "true" or len(lines) < len(flags) + 1:
        return None
    return lines[1:len(flags) + 1]


def repo_toplevel(root: Path) -> Path | None:
    """The top folder of the git work tree holding `root`, or None."""
    found = _rev_parse(root, "--show-toplevel")
    return Path(found[0]) if found else None


def _prefix(root: Path) -> str | None:
    """`root` relative to the top of its work tree ("" at the top, "sub/" below it)."""
    found = _rev_parse(root, "--show-prefix")
    return found[0] if found else None


#: The git trailer that marks tachikoma's own tagging commits (see `tagging`); `content_times` skips them.
TAGGING_TRAILER = "Tachikoma-Tagging"
#: The git trailer that says who asked for a change on a shared server: a signed-in person through the
#: dashboard, or an agent through MCP over HTTP (`tachikoma.web.access.Identity.changed_by`).
CHANGED_BY_TRAILER = "Tachikoma-Changed-By"


def tagging_commits(root: Path, limit: int = 5, scan: int = 200) -> list[dict]:
    """The newest commits with the `TAGGING_TRAILER` among the last `scan` that touched files under `root`
    (at most `limit`): {"commit", "created" (unix seconds), "message", "paths" (relative to root)}; []
    outside git or when git fails."""
    sep, end = "\x1f", "\x1e"
    try:
        done = _run(root, ["log", f"-n{scan}", "--no-renames", "--name-only", "--relative",
                           f"--format={end}%H{sep}%ct{sep}%B{sep}", "--", "."], check=False, literal=False)
    except GitError:
        return []
    found: list[dict] = []
    if done.returncode != 0:
        return found
    for block in done.stdout.decode("utf-8", "replace").split(end)[1:]:
        commit, created, rest = block.split(sep, 2)
        message, _, names = rest.partition(sep)
        if f"\n{TAGGING_TRAILER}:" in "\n" + message:
            found.append({"commit": commit, "created": float(created), "message": message.strip(),
                          "paths": [_unquoted(n) for n in names.strip().splitlines() if n]})
            if len(found) == limit:
                break
    return found


def commit_changes(root: Path, commits: list[str]) -> dict[str, dict[str, tuple[list[str], list[str]]]]:
    """The lines each of `commits` removed and added in each file under `root` (relative to it), without context or
    positions: {commit: {path: (removed, added)}}; {} outside git or when git fails. For telling a tagging undone by
    a later commit (`tachikoma.web.recent_taggings`): one ``git show`` for them all, small for tags' lines."""
    if not commits:
        return {}
    try:
        done = _run(root, ["show", "-U0", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", "--relative",
                           "--src-prefix=a/", "--dst-prefix=b/", "--format=\x1e%H", *commits, "--", "."],
                    check=False, literal=False)
    except GitError:
        return {}
    found: dict[str, dict[str, tuple[list[str], list[str]]]] = {}
    lines: tuple[list[str], list[str]] | None = None
    changes, in_hunk = None, False
    for line in done.stdout.decode("utf-8", "surrogateescape").split("\n") if done.returncode == 0 else ():
        if line.startswith("\x1e"):
            changes, lines = found.setdefault(line[1:].strip(), {}), None
        elif line.startswith("diff --git "):
            lines, in_hunk = None, False
        elif not in_hunk and line.startswith(("--- ", "+++ ")) and changes is not None:
            name = _unquoted(line[4:].removesuffix("\t"))  # (a tab ends a name holding a space)
            if name != "/dev/null":  # a/… or b/…: a file's name in either
                lines = changes.setdefault(name[2:], ([], []))
        elif line.startswith("@@"):
            in_hunk = True
        elif in_hunk and lines is not None and line[:1] in ("-", "+"):
            lines[line[0] == "+"].append(line[1:])
    return found


def _unquoted(name: str) -> str:
    """A file name as a diff's header gives it: as is, or unquoted from git's C-style quotes ("a/\\303\\251.md")."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    raw = name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "surrogateescape")


def changed_by_trailer(by: str) -> str:
    """The trailer line for `by` (one line, whatever it holds), or "" for nobody named."""
    by = " ".join(by.split())
    return f"{CHANGED_BY_TRAILER}: {by}\n" if by else ""
#: Front matter keys that say how to rank a note, not what it says: a commit changing only these
#: does not make the note younger.
METADATA_KEYS = frozenset({"trust", "confidence", "source", "evergreen"})
_MARKDOWN_SUFFIXES = (".md", ".markdown")
_NULL_OID = "0" * 40


#: A commit that adds at least this many files of the memory folder is an import (a memory copied
#: in, a bulk move), not an edit: its time says when the files were committed, not when what they
#: say was written. So is the folder's first commit when it adds more than one file.
IMPORT_FILES = 5


@dataclass(frozen=True)
class ContentChange:
    """The last commit that changed a file's content: when, and whether it was an import."""

    when: datetime
    imported: bool = False


def content_times(root: Path, verdicts: dict[str, bool] | None = None) -> dict[str, datetime]:
    """The time of each file's `content_changes` entry."""
    return {path: change.when for path, change in content_changes(root, verdicts).items()}


def content_changes(root: Path, verdicts: dict[str, bool] | None = None) -> dict[str, ContentChange]:
    """When each file under `root` last changed in what it says: the time (aware, UTC) of the
    last commit that changed more than its quality tags, and whether that commit was an import
    (`IMPORT_FILES`).

    Skipped: commits carrying the ``Tachikoma-Tagging: 1`` trailer, and
    commits whose change to a markdown note touches nothing but front matter
    keys in `METADATA_KEYS` (tags edited by hand, or tagged by an older
    tachikoma). A file whose every commit is skipped is absent (so it is
    dated by what comes next, never by its tagging). History only: a fresh
    clone gives the same dates.

    `verdicts` caches "is this change (old blob:new blob) metadata only?",
    which never changes; pass the same dict (e.g. persisted) to skip reading
    blobs again. Empty when `root` is not in a repository.
    """
    root = Path(root)
    prefix = _prefix(root)
    if prefix is None:
        return {}
    proc = _run(
        root,
        ["log", "--no-renames", "--no-color", "--no-show-signature", "--raw", "--no-abbrev", "-z",
         f"--format=%x00%ct %(trailers:key={TAGGING_TRAILER},valueonly,separator=%x2C)", "--", "."],
        check=False, literal=False,
    )
    if proc.returncode != 0:
        return {}  # an empty repository (no commit yet) has no history to read
    added: list[int] = []  # per commit, newest first: how many files of the folder it added
    history = _parse_raw_log(proc.stdout, prefix, added)  # path -> [(time, tagging, old, new, commit)]
    verdicts = {} if verdicts is None else verdicts
    position = dict.fromkeys(history, 0)
    found: dict[str, tuple[float, int]] = {}
    while position:
        ask: dict[str, tuple[str, str]] = {}
        for path, i in list(position.items()):
            changes = history[path]
            while i < len(changes) and changes[i][1]:
                i += 1  # a tachikoma tagging commit
            if i == len(changes):
                del position[path]
                continue
            when, _, old, new, number = changes[i]
            position[path] = i
            pair = f"{old}:{new}"
            if not path.endswith(_MARKDOWN_SUFFIXES) or _NULL_OID in (old, new) or old == new:
                found[path] = (when, number)  # added, deleted, or not a note: its content changed
                del position[path]
            elif pair in verdicts:
                if verdicts[pair]:
                    position[path] = i + 1
                else:
                    found[path] = (when, number)
                    del position[path]
            else:
                ask[pair] = (old, new)
        if ask:
            blobs = _read_blobs(root, {oid for pair in ask.values() for oid in pair})
            for pair, (old, new) in ask.items():
                verdicts[pair] = metadata_only(blobs[old], blobs[new])
    first = len(added) - 1  # the folder's first commit

    def imported(number: int) -> bool:
        return added[number] >= IMPORT_FILES or (number == first and added[number] > 1)

    return {path: ContentChange(datetime.fromtimestamp(ts, timezone.utc), imported(number))
            for path, (ts, number) in found.items()}


def metadata_only(old: bytes, new: bytes) -> bool:
    """Whether two versions of a note differ only in front matter keys of `METADATA_KEYS`."""
    from ..reading.frontmatter import split  # the YAML loader, only when a change needs reading

    try:
        before, after = split(old.decode("utf-8-sig")), split(new.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return False
    if before.error or after.error:
        return False

    def content(fm) -> tuple:
        meta = {str(k): v for k, v in (fm.meta or {}).items() if str(k).strip().lower() not in METADATA_KEYS}
        return repr(sorted(meta.items(), key=lambda kv: kv[0])), fm.body.replace("\r\n", "\n")

    return content(before) == content(after)


def _parse_raw_log(output: bytes, prefix: str,
                   added: list[int] | None = None) -> dict[str, list[tuple[float, bool, str, str, int]]]:
    """Parse `git log --raw --no-abbrev -z --format=%x00%ct <trailer values>`.

    Each commit is NUL, "time trailer-values", NUL, then per file a
    ":modes old new status" field (the first one after a newline) and the
    file name field. Each change carries its commit's number (0 the first
    listed); `added`, when given, gets per commit how many files under
    `prefix` it added.
    """
    history: dict[str, list[tuple[float, bool, str, str, int]]] = {}
    added = [] if added is None else added
    fields = output.split(b"\0")
    current: tuple[float, bool] | None = None
    i, n = 0, len(fields)
    while i < n:
        field = fields[i]
        if field == b"":
            if i + 1 < n and fields[i + 1]:
                head = fields[i + 1].decode("utf-8", "replace").split(" ", 1)
                try:
                    current = (float(head[0]), "1" in (head[1] if len(head) > 1 else "").split(","))
                    added.append(0)
                except ValueError:
                    current = None
            i += 2
            continue
        info = field.lstrip(b"\n")
        if info.startswith(b":") and i + 1 < n and current is not None:
            parts = info.decode("ascii", "replace").split()
            path = fields[i + 1].decode("utf-8", "surrogateescape")
            if len(parts) >= 5 and path.startswith(prefix) and len(path) > len(prefix):
                number = len(added) - 1
                history.setdefault(path[len(prefix):], []).append(
                    (current[0], current[1], parts[2], parts[3], number))
                added[number] += parts[4].startswith("A")
            i += 2
            continue
        i += 1
    return history


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


@dataclass(frozen=True)
class Blob:
    """The content of one file for git, and its mode ("100644", "100755" or "120000").

    `worktree` marks work-tree bytes: git's clean filters and line-ending
    rules apply to them as for ``git add``. Other data is stored as it is
    (content taken from git and edited).
    """

    data: bytes
    mode: str = "100644"
    worktree: bool = False


@dataclass(frozen=True)
class Versions:
    """What git holds for one path: its content in HEAD and in the index (None: not there)."""

    head: Blob | None = None
    index: Blob | None = None
    #: The index holds an unresolved merge conflict for it.
    conflicted: bool = False
    #: Neither in HEAD nor in the index, and matched by .gitignore.
    ignored: bool = False
    #: The path (relative to the root) of the git submodule it is in: another repository's file.
    submodule: str | None = None

    @property
    def tracked(self) -> bool:
        return self.head is not None or self.index is not None or self.conflicted


def _where(root: Path) -> tuple[Path, str] | None:
    """(top of the work tree, `root` relative to it as "" or "sub/"), or None."""
    found = _rev_parse(root, "--show-toplevel", "--show-prefix")
    return (Path(found[0]), found[1]) if found else None


def _head(root: Path) -> str | None:
    proc = _run(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], check=False, literal=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def _read_blobs(root: Path, oids: set[str]) -> dict[str, bytes]:
    """The contents of the blobs `oids`, in one ``git cat-file --batch``."""
    if not oids:
        return {}
    order = sorted(oids)
    out = _run(root, ["cat-file", "--batch"], input="".join(o + "\n" for o in order).encode(), literal=False).stdout
    found: dict[str, bytes] = {}
    pos = 0
    for oid in order:
        newline = out.index(b"\n", pos)
        header = out[pos:newline].split()
        if len(header) != 3:
            raise GitError(f"git cat-file: cannot read object {oid}")
        size = int(header[2])
        found[oid] = out[newline + 1:newline + 1 + size]
        pos = newline + 1 + size + 1
    return found


def versions(root: Path, paths: list[str]) -> dict[str, Versions] | None:
    """HEAD and index contents of each of `paths` (relative to `root`); None when not in git.

    Paths git does not know have empty Versions (with `ignored` set when
    .gitignore matches them).
    """
    root = Path(root)
    where = _where(root)
    if where is None:
        return None
    _, prefix = where
    wanted = set(paths)
    head_entries: dict[str, tuple[str, str]] = {}
    gitlinks: set[str] = set()  # submodules, in HEAD or the index
    if _head(root) is not None:
        for (mode, kind, oid), rel in _entries(root, ["ls-tree", "-r"], prefix, "HEAD"):
            gitlinks.update([rel] if kind == "commit" and rel else [])
            if rel in wanted and kind == "blob":
                head_entries[rel] = (mode, oid)
    index_entries: dict[str, tuple[str, str]] = {}
    conflicted: set[str] = set()
    for (mode, oid, stage), rel in _entries(root, ["ls-files", "-s"], prefix):
        gitlinks.update([rel] if mode == "160000" and rel else [])
        if rel not in wanted:
            continue
        if stage != "0":
            conflicted.add(rel)
        else:
            index_entries[rel] = (mode, oid)
    submodule = {p: next((g for g in gitlinks if p.startswith(g + "/")), None) for p in paths}
    unknown = [p for p in paths if p not in head_entries and p not in index_entries and p not in conflicted
               and submodule[p] is None]  # check-ignore fails on a path in a submodule
    ignored: set[str] = set()
    if unknown:
        # check-ignore takes path names, not patterns (and refuses --literal-pathspecs).
        proc = _run(root, ["check-ignore", "-z", "--stdin"], check=False, literal=False,
                    input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in unknown))
        if proc.returncode not in (0, 1):
            raise GitError(f"git check-ignore failed in {root}: {proc.stderr.decode('utf-8', 'replace').strip()}")
        ignored = {name.decode("utf-8", "surrogateescape") for name in proc.stdout.split(b"\0") if name}
    contents = _read_blobs(root, {oid for _, oid in head_entries.values()} | {oid for _, oid in index_entries.values()})

    def blob(entry):
        return None if entry is None else Blob(contents[entry[1]], entry[0])

    return {p: Versions(head=blob(head_entries.get(p)), index=None if p in conflicted else blob(index_entries.get(p)),
                        conflicted=p in conflicted, ignored=p in ignored, submodule=submodule[p]) for p in paths}


def _entries(root: Path, command: list[str], prefix: str, *revision: str):
    """(fields, path relative to `root`) of each "fields<TAB>name" record `git <command> -z` prints
    for the tree below `root` (ls-tree: mode, type, object; ls-files -s: mode, object, stage)."""
    out = _run(root, [*command, "-z", "--full-name", *revision, "--", "."]).stdout
    for record in out.split(b"\0"):
        if record:
            info, _, name = record.partition(b"\t")
            yield info.decode().split(), _relative(name, prefix)


def _relative(name: bytes, prefix: str) -> str | None:
    path = name.decode("utf-8", "surrogateescape")
    return path[len(prefix):] if path.startswith(prefix) else None


def _hash_objects(top: Path, prefix: str, blobs: list[tuple[str, Blob]]) -> dict[int, str]:
    """Write each blob into the object store; returns id(blob) -> object id."""
    oids: dict[int, str] = {}
    raw = [(path, blob) for path, blob in blobs if not blob.worktree]
    with tempfile.TemporaryDirectory(prefix="tachikoma-git-") as tmp:
        names = []
        for i, (_, blob) in enumerate(raw):
            name = os.path.join(tmp, str(i))
            with open(name, "wb") as handle:
                handle.write(blob.data)
            names.append(name)
        if names:
            out = _run(top, ["hash-object", "-w", "--no-filters", "--stdin-paths"],
                       input="".join(n + "\n" for n in names).encode(), literal=False).stdout.decode().split()
            for (_, blob), oid in zip(raw, out):
                oids[id(blob)] = oid
    for path, blob in blobs:
        if blob.worktree:
            # As `git add` would store it: clean filters and line endings for this path.
            out = _run(top, ["hash-object", "-w", "--stdin", f"--path={prefix}{path}"], input=blob.data,
                       literal=False).stdout.decode().strip()
            oids[id(blob)] = out
    return oids


def _update_index(top: Path, prefix: str, entries: dict[str, tuple[str, str] | None],
                  env: dict[str, str] | None = None) -> None:
    """Set entries (path -> (mode, object id), or None to remove the path) in the index named by
    `env`, or the real one."""
    info = b"".join(f"{mode} {oid}\t{prefix}{path}".encode("utf-8", "surrogateescape") + b"\0"
                    for path, (mode, oid) in ((p, e) for p, e in entries.items() if e is not None))
    gone = b"".join(f"{prefix}{path}".encode("utf-8", "surrogateescape") + b"\0"
                    for path, entry in entries.items() if entry is None)
    if info:
        _retry(lambda: _run(top, ["update-index", "-z", "--index-info"], input=info, env=env, literal=False))
    if gone:
        _retry(lambda: _run(top, ["update-index", "-z", "--force-remove", "--stdin"], input=gone, env=env,
                            literal=False))


def _index_entries(root: Path, prefix: str, paths) -> dict[str, tuple[str, str] | None]:
    """The real index's (mode, object id) of each of `paths` (None: not in it, or conflicted)."""
    wanted = set(paths)
    found: dict[str, tuple[str, str] | None] = dict.fromkeys(wanted)
    for (mode, oid, stage), rel in _entries(root, ["ls-files", "-s"], prefix):
        if rel in wanted and stage == "0":
            found[rel] = (mode, oid)
    return found


def commit_blobs(root: Path, contents: dict[str, Blob | None], message: str,
                 stage: dict[str, Blob | None] | None = None,
                 config_path: str | os.PathLike | None = None) -> str | None:
    """Commit `contents` (path relative to `root` -> Blob, or None to delete it) on top of HEAD.

    The commit is HEAD plus exactly these contents, whatever the work tree
    or the index hold. The real index gets `stage` for its paths (None
    removes a path from it; paths not named are left as they were), so that
    what was committed does not show up as a staged change back.

    The real index is updated *before* the branch moves. Killed in between,
    the repository holds the change staged but not committed, which a plain
    ``git commit`` would commit; the other order would leave HEAD with the
    change and the index without it, and the next plain commit would
    silently take the change back out. (`tagging` finishes such a commit on
    its next run.) If the branch cannot be moved, the index entries are put
    back as they were.

    The repository's hooks run (see the module docstring). Returns the
    commit id, or None when `root` is not in a work tree or the commit would
    change nothing. Raises GitError when git fails or HEAD moved while
    committing, HookRefused when a hook refuses, DetachedHead when HEAD is
    not on a branch, `gitstate.OperationInProgress` during a merge, rebase,
    ...; then nothing was committed.
    """
    root = Path(root)
    if not contents:
        return None
    where = _where(root)
    if where is None:
        return None
    top, prefix = where
    gitstate.refuse_to_commit(root, "tachikoma does not commit")
    timeout = hook_timeout(root, config_path)
    base = _head(root)
    stage = dict(stage or {})
    wanted = [(p, b) for p, b in list(contents.items()) + list(stage.items()) if b is not None]
    oids = _hash_objects(top, prefix, wanted)

    def entries(blobs: dict[str, Blob | None]) -> dict[str, tuple[str, str] | None]:
        return {p: None if b is None else (b.mode, oids[id(b)]) for p, b in blobs.items()}

    with tempfile.TemporaryDirectory(prefix="tachikoma-index-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        _run(top, ["read-tree", base] if base else ["read-tree", "--empty"], env=env, literal=False)
        _update_index(top, prefix, entries(contents), env=env)
        tree = _run(top, ["write-tree"], env=env, literal=False).stdout.decode().strip()
        if base is not None:
            base_tree = _run(top, ["rev-parse", f"{base}^{{tree}}"], literal=False).stdout.decode().strip()
            if tree == base_tree:
                return None
        message = hooked_message(top, tmp, message, env, timeout)
        # What pre-commit staged (a formatter's `git add`) is committed, as `git commit` would.
        tree = _run(top, ["write-tree"], env=env, literal=False).stdout.decode().strip()
    parents = ["-p", base] if base else []
    # `git commit-tree` does not read commit.gpgSign itself: a repository that signs its commits gets signed ones.
    signs = _run(top, ["config", "--type=bool", "--get", "commit.gpgsign"], check=False, literal=False)
    sign = ["-S"] if signs.stdout.strip() == b"true" else []
    new = _run(top, _identity_args(root) + ["commit-tree", tree, *parents, *sign, "-F", "-"], literal=False,
               input=message.encode("utf-8"), timeout=timeout if sign else None).stdout.decode().strip()
    subject = message.strip().splitlines()[0] if message.strip() else ""
    reflog = f"commit{'' if base else ' (initial)'}: {subject}"
    previous = _index_entries(root, prefix, stage) if stage else {}
    if stage:
        _update_index(top, prefix, entries(stage))
    faults.point("commit-before-ref")
    proc = _run(top, ["update-ref", "-m", reflog, "HEAD", new, base or ""], check=False, literal=False)
    faults.point("commit-after-ref")
    if proc.returncode != 0:
        reason = "; ".join(proc.stderr.decode("utf-8", "replace").strip().splitlines())[:300]
        if stage:
            _update_index(top, prefix, previous)
        raise GitError(f"git update-ref failed in {root} (did HEAD move meanwhile?): {reason}")
    hook(top, "post-commit", [], timeout=timeout)
    return new


def hook_timeout(root: Path, config_path: str | os.PathLike | None = None) -> float:
    """Seconds each commit hook of the memory at `root` may take: its settings' ``[git] hook_timeout`` (the
    settings file `config_path`, given with ``--config``, else the memory's own, as `config.load_config`
    finds it), else `gitrun.HOOK_TIMEOUT`. Raises TachikomaError when the settings file cannot be read."""
    from ..config import load_config

    return load_config(Path(root), config_path).hook_timeout or gitrun.HOOK_TIMEOUT


def commit(root: Path, paths: list[str], message: str, config_path: str | os.PathLike | None = None) -> str | None:
    """Commit exactly `paths` (relative to `root`) as they are in the work tree; return the commit id.

    Other staged or modified files are left alone (and stay staged). Paths
    that were deleted are committed as deletions; the index is updated to
    match what was committed. Returns None when `root` is not in a git work
    tree or none of the paths differs from the last commit. Raises GitError
    when git fails, NotCommitted when a path is ignored by git, in a
    submodule or in an unresolved merge conflict (the files on disk are not
    touched either way). `config_path`: the settings file (``--config``) whose
    ``[git] hook_timeout`` counts (`hook_timeout`).
    """
    root = Path(root)
    paths = sorted(set(paths))
    if not paths:
        return None
    known = versions(root, paths)
    if known is None:
        return None
    contents: dict[str, Blob | None] = {}
    for path in paths:
        now = known[path]
        full = root / path
        if now.conflicted:
            raise NotCommitted(f"{path} has an unresolved merge conflict; not committed")
        if now.submodule is not None:
            raise NotCommitted(in_submodule(path, now.submodule))
        if not os.path.lexists(full):
            if now.tracked:
                contents[path] = None
            continue
        if now.ignored:
            raise NotCommitted(f"{path} is ignored by git (.gitignore); not committed")
        contents[path] = _worktree_blob(full)
    return commit_blobs(root, contents, message, stage=contents, config_path=config_path)


def in_submodule(path: str, submodule: str) -> str:
    """Why `path`, a file of the git submodule `submodule`, is not committed."""
    return (f"{path} is in the git submodule {submodule}, another repository (tachikoma commits only to the "
            f"memory's own; commit it in {submodule})")


def _worktree_blob(full: Path) -> Blob:
    info = os.lstat(full)
    if stat.S_ISLNK(info.st_mode):
        return Blob(os.fsencode(os.readlink(full)), "120000")
    mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
    return Blob(full.read_bytes(), mode, worktree=True)


def _retry(action, attempts: int = 20, delay: float = 0.25):
    """Run a git command, waiting while another git process holds the index lock."""
    for attempt in range(attempts):
        try:
            return action()
        except GitError as exc:
            if "index.lock" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(delay)
