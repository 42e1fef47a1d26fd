"""Bulk tagging: choose files, see what would change, write it, and take it back.

`plan` never writes anything. `apply` writes a plan: markdown tags go into
each note's front matter (only the tag lines change, the body stays byte for
byte), transcript tags go into the tag file. It holds a lock on
``<root>/.cache/tag.lock`` while it writes, re-reads every file first and
skips any file whose tags changed since the plan was made, so two people (or
processes) tagging at once never lose each other's tags. In a git repository
the changed files are committed with a message that says what was tagged.
`undo` puts back exactly what was there before, byte for byte when the files
were not touched since.

The commit holds only tachikoma's change, never someone's uncommitted edit
of the same file: the same tag edit is made to the file as it is in HEAD
(and, separately, as it is staged in the index), and those versions are
committed and staged, while the work tree keeps both the person's edit and
the tags. So reverting a tagging commit takes back only the tags. A file
whose committed version cannot be edited safely (malformed front matter
there, not UTF-8, a merge conflict) is written but left out of the commit,
and `Applied.commit_error` says so. A file git has no version of yet
(untracked, including a new tag file) is committed whole, as it is in the
work tree; git-ignored files are not committed. Undo commits the same way.

A note whose front matter sets a tag twice (exactly, or as ``trust`` and
``Trust``) is skipped with a reason rather than guessed at; in the tag file,
where tachikoma rewrites whole entries, tagging a key replaces every spelling
of it.

Markdown files are never tagged by default: `default_plan` tags only
transcripts that have no tags at all, with the agent that wrote them as source
(`DEFAULTS_TEXT` says so, for every face). A .jsonl data file (no line is a
transcript message: `transcripts.is_data_file`) is never tagged, whatever the
selection: it is not memory.
"""

from __future__ import annotations

import base64
import errno
import functools
import hashlib
import io
import os
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import BinaryIO, NamedTuple

from filelock import FileLock, Timeout

from . import faults, gitutil, journal, tagfile, transcripts
from .atomic import atomic_write_bytes, atomic_write_with, remove_leftovers
from .documents import KINDS, MARKDOWN, TRANSCRIPT
from .config import load_config
from .errors import TachikomaError
from .frontmatter import read_front_matter, read_head, remove_keys, set_keys, split
from .globs import pattern_matches as _pattern_matches
from .gitutil import Blob
from .humanize import printable
from .memory import TAG_FILE, PathOutsideMemory, cache_dir, kind_of, open_regular, safe_path, walk
from .reader import BINARY_SNIFF_BYTES, unreadable_reason
from .replaced import Held, Placed, Unsaved, append_at_end
from .tags import EVERGREEN, UNTAGGED, WRITABLE_KEYS, InvalidTagValue, Tags, check_value, normalise_value

DEFAULTS = {"source": "tachikoma", "trust": "self", "confidence": "medium"}

LOCK_NAME = "tag.lock"
#: What writing runs are about to do, kept until it is committed: see `recover` and `journal`.
JOURNAL_NAME = journal.NAME
_BOM = "\ufeff"


# --------------------------------------------------------------------------- reading


def current_values(mapping: dict | None) -> dict[str, str]:
    """The raw tag values present in a front matter or tag-file mapping, as text.

    Keys are lower-cased tag keys; empty values count as absent.
    """
    found: dict[str, str] = {}
    for key, value in (mapping or {}).items():
        name = str(key).strip().lower()
        if name in WRITABLE_KEYS and value is not None and str(value).strip():
            found[name] = (normalise_value(name, value) or str(value)) if name == EVERGREEN else str(value)
    return found


# --------------------------------------------------------------------------- selecting


@dataclass(frozen=True)
class Selector:
    """Which files a tagging run looks at.

    - `kind`: "markdown", "transcript" or None for both.
    - `pattern`: matched on the path relative to the memory root. With a
      ``*``, ``?`` or ``[`` it is a glob: ``*`` matches within one folder
      level, ``**/`` any number of folders (``**/*.jsonl`` also matches
      ``a.jsonl`` at the top), and a glob without ``/`` matches the file name
      in any folder. Otherwise it is a folder (``2026-03/`` or ``2026-03``)
      or one file's path.
    - `paths`: only these files (relative paths), e.g. the ones an agent names.
    - `untagged_only`: only files with no tag at all (no valid or invalid value).
    - `modified_since` / `modified_until`: only files whose modification date
      (local calendar day) is on or after / on or before the date. A
      file's modification time is its last content commit's time when it is
      committed and unchanged since (tagging commits do not count,
      `gitutil.content_times`), else its file-system modification time.
    """

    kind: str | None = None
    pattern: str | None = None
    untagged_only: bool = False
    modified_since: date | None = None
    modified_until: date | None = None
    paths: frozenset[str] | None = None

    def __post_init__(self):
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}: use {' or '.join(KINDS)}")

    def matches_path(self, path: str, kind: str) -> bool:
        """Whether `path` (relative, POSIX) of `kind` passes the kind and pattern tests."""
        if self.kind is not None and kind != self.kind:
            return False
        if self.paths is not None and path not in self.paths:
            return False
        if not self.pattern:
            return True
        return _pattern_matches(self.pattern, path)

    def matches_date(self, modified: datetime) -> bool:
        day = modified.astimezone().date()
        if self.modified_since is not None and day < self.modified_since:
            return False
        if self.modified_until is not None and day > self.modified_until:
            return False
        return True

    @property
    def uses_dates(self) -> bool:
        return self.modified_since is not None or self.modified_until is not None


def _in_memory(root: Path, pattern: str) -> str | None:
    """An absolute path inside the memory (as a shell completes it, or pasted) relative to the memory
    folder, as patterns are. Any other pattern is kept, so "/*" still means the top level."""
    absolute = os.path.abspath(pattern)
    if absolute == str(root) or absolute.startswith(str(root) + os.sep):
        return absolute[len(str(root)) + 1:] or None
    return pattern


# --------------------------------------------------------------------------- planning


@dataclass
class Change:
    """The tags of one file before and after.

    Only keys that change appear. A key missing from `before` was absent from
    the file; a key missing from `after` is removed from it (undo).
    `created_block` is true for a markdown file whose front matter block
    exists only because of this tagging: undoing it removes the block again.
    `current` holds all the tags the file had when the change was planned
    (changing or not), for showing the change in context; see `describe`.
    """

    path: str
    kind: str
    before: dict[str, str]
    after: dict[str, str]
    created_block: bool = False
    current: dict[str, str] = field(default_factory=dict)

    def inverse(self) -> "Change":
        return Change(self.path, self.kind, dict(self.after), dict(self.before), self.created_block,
                      current=self.result)

    @property
    def keys(self) -> list[str]:
        return [k for k in WRITABLE_KEYS if k in self.before or k in self.after]

    @property
    def result(self) -> dict[str, str]:
        """All the file's tags once the change is made."""
        tags = {k: v for k, v in self.current.items() if k not in self.keys}
        tags.update(self.after)
        return {k: tags[k] for k in WRITABLE_KEYS if k in tags}

    def describe(self) -> str:
        """The change in context, e.g. "trust=owner, confidence=high → + source=x".

        Left of the arrow: every tag the file has now ("no tags"). Right: each
        change, "+ key=value" for an added tag, "key=value" for a replaced one
        and "- key" for a removed one.
        """
        now = {**self.current, **self.before}
        left = ", ".join(f"{k}={now[k]}" for k in WRITABLE_KEYS if k in now) or "no tags"
        right = []
        for key in self.keys:
            if key not in self.after:
                right.append(f"- {key}")
            elif key in self.before:
                right.append(f"{key}={self.after[key]}")
            else:
                right.append(f"+ {key}={self.after[key]}")
        return f"{left} → {', '.join(right)}"


class Kept(NamedTuple):
    """A file that keeps a valid value of its own where another was asked for (fill mode, no overwrite)."""

    path: str
    existing: dict[str, str]
    asked: dict[str, str]

    def describe(self) -> str:
        """e.g. "confidence=low kept, not medium"."""
        return "; ".join(f"{k}={v} kept, not {self.asked[k]}" for k, v in self.existing.items())


class Skip(NamedTuple):
    """A file left alone, and why (unpacks as `path, reason`)."""

    path: str
    reason: str


@dataclass
class Plan:
    root: Path
    values: dict[str, str]
    overwrite: bool
    changes: list[Change] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    #: Files that passed the selector (changed, skipped or already tagged).
    matched: int = 0
    #: The matched files that already had the values.
    unchanged_paths: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Notes larger than this are not tagged (``[index] max_file_bytes``: what indexing reads).
    max_bytes: int | None = None
    #: Files keeping a different value of their own (not `overwrite`); they may change otherwise too.
    kept: list[Kept] = field(default_factory=list)

    @property
    def unchanged(self) -> int:
        """Matched files neither changed nor skipped: they had the values, or kept their own."""
        return self.matched - len(self.changes) - len(self.skipped)

    @property
    def kept_unchanged(self) -> list[Kept]:
        """The kept files that change in no other way."""
        changing = {c.path for c in self.changes}
        return [k for k in self.kept if k.path not in changing]

    @property
    def already(self) -> int:
        """Matched files that had exactly the values asked for already."""
        return self.unchanged - len(self.kept_unchanged)


@dataclass
class Restore:
    """How to put one file back byte for byte once tachikoma wrote it.

    For the tag file, `original` is all its bytes before (None: it did not
    exist). For a note, whose body tagging never changes, `original` is only
    its head before (the front matter block, see `frontmatter.read_head`)
    and `head_only` is set: the body is taken from the file, so restoring
    a large note never holds it in memory.
    """

    original: bytes | None
    written_sha256: str
    original_sha256: str | None = None
    head_only: bool = False

    def as_json(self) -> dict:
        """A JSON-ready record (bytes as base64), for undo data kept on disk."""
        return {"original": None if self.original is None else base64.b64encode(self.original).decode("ascii"),
                "written_sha256": self.written_sha256, "original_sha256": self.original_sha256,
                "head_only": self.head_only}

    @classmethod
    def from_json(cls, record: dict) -> "Restore":
        """The Restore `as_json` made. Raises KeyError, TypeError or ValueError when it is damaged."""
        original = record["original"]
        return cls(None if original is None else base64.b64decode(original), record["written_sha256"],
                   record.get("original_sha256"), bool(record.get("head_only", False)))

    def before(self, written: bytes) -> bytes | None:
        """The bytes before the write, given the bytes written (which hash to `written_sha256`)."""
        if not self.head_only or self.original is None:
            return self.original
        return self.original + written[len(read_head(io.BytesIO(written))):]


@dataclass
class Applied:
    """What `apply` (or `undo`) wrote."""

    changes: list[Change] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    #: The commit id, or None (not a repository, commit=False, nothing to commit, or it failed).
    commit: str | None = None
    #: Why committing failed, for all files or some (each named); the files were written all the same.
    commit_error: str | None = None
    message: str = ""
    #: Relative path (or TAG_FILE) -> how to restore it exactly. In memory only.
    restore: dict[str, Restore] = field(default_factory=dict)
    #: What finishing an interrupted earlier run did first (see `recover`), or None.
    recovered: "Applied | None" = None
    #: Notes an interrupted `remember` had written, committed by `recover`.
    remembered: list[str] = field(default_factory=list)
    #: The commit failed as a whole (a lock, a full disk, a hook, a detached HEAD): the run stays in the
    #: journal and the next writing run commits it.
    commit_pending: bool = False

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.changes]


def check_values(values: dict[str, str | None]) -> dict[str, str]:
    """Validate and canonicalise values a person asked for (None values are dropped)."""
    checked: dict[str, str] = {}
    for key, raw in values.items():
        name = str(key).strip().lower()
        value = check_value(name, raw)
        if value is not None:
            checked[name] = value
    if not checked:
        raise InvalidTagValue(f"no tag values given: set at least one of {', '.join(WRITABLE_KEYS)}")
    return {k: checked[k] for k in WRITABLE_KEYS if k in checked}


def plan(root: Path, values: dict[str, str], selector: Selector | None = None, overwrite: bool = False,
         max_bytes: int | None = None) -> Plan:
    """What tagging the files chosen by `selector` with `values` would change. Writes nothing.

    Existing valid values are kept unless `overwrite`; an invalid existing
    value counts as missing and is replaced. Files whose front matter is
    malformed are listed in `skipped` and never rewritten, and so are notes
    indexing would not read: binary, or over `max_bytes` (default: the
    memory's ``[index] max_file_bytes``). Raises
    InvalidTagValue for a value outside the vocabulary, and TagFileError when
    the tag file cannot be read.
    """
    root = Path(root).resolve()
    selector = selector or Selector()
    if selector.pattern and os.path.isabs(selector.pattern):
        selector = replace(selector, pattern=_in_memory(root, selector.pattern))
    values = check_values(values)
    if max_bytes is None:
        max_bytes = load_config(root).max_file_bytes
    result = Plan(root=root, values=values, overwrite=overwrite, max_bytes=max_bytes)
    tags_file = tagfile.load(root)
    result.warnings.extend(tags_file.warnings)
    times = gitutil.content_times(root) if selector.uses_dates else {}
    dirty = gitutil.dirty_paths(root) if times else set()
    for item in walk(root, warn=functools.partial(_walk_warning, result, selector)):
        if not selector.matches_path(item.path, item.kind):
            continue
        if selector.uses_dates:
            committed = None if item.path in dirty else times.get(item.path)
            modified = committed or datetime.fromtimestamp(item.mtime_ns / 1e9).astimezone()
            if not selector.matches_date(modified):
                continue
        created_block = False
        if item.kind == MARKDOWN:
            if item.abspath.is_symlink():  # writing through it would change a file git knows by another name
                target = item.abspath.resolve().relative_to(root).as_posix()
                result.matched += 1
                result.skipped.append(Skip(item.path, f"a symlink to {target}: tag {target} itself"))
                continue
            try:
                with open_regular(item.abspath) as handle:
                    refused = refusal(handle, max_bytes)
                if refused:
                    result.matched += 1
                    result.skipped.append(Skip(item.path, refused))
                    continue
                fm = read_front_matter(item.abspath)
            except UnicodeDecodeError:
                result.matched += 1
                result.skipped.append(Skip(item.path, "front matter is not UTF-8 text; not rewritten"))
                continue
            except OSError as exc:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"cannot read ({exc.strerror})"))
                continue
            if fm.error:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"{fm.error}; fix it by hand, tachikoma will not rewrite it"))
                continue
            repeated = fm.duplicate_problem(WRITABLE_KEYS)
            if repeated:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"{repeated}; fix it by hand, tachikoma will not guess "
                                                      "which one to change"))
                continue
            mapping = fm.meta
            created_block = not fm.block
        else:
            entry = tags_file.entries.get(item.path)
            if item.path in tags_file.extra:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"its {TAG_FILE} entry is not a mapping of tags; fix it by hand"))
                continue
            mapping = entry
        tags = Tags.from_mapping(mapping)
        if selector.untagged_only and tags.status != UNTAGGED:
            continue
        result.matched += 1
        if item.kind == TRANSCRIPT and transcripts.is_data_file(item.abspath, item.size, max_bytes):
            result.skipped.append(Skip(item.path, f"{transcripts.NOT_A_TRANSCRIPT}; not tagged"))
            continue
        change, kept = _change_for(item.path, item.kind, mapping, tags, values, overwrite)
        if kept is not None:
            result.kept.append(kept)
        if change is not None:
            change.created_block = created_block
            result.changes.append(change)
        else:
            result.unchanged_paths.append(item.path)
    return result


def _walk_warning(result: Plan, selector: Selector, message: str) -> None:
    """A file the walk skipped (a FIFO, a symlink out of the memory) that the selection names is
    matched and skipped with the walk's reason, not "no file matched"; anything else is a warning."""
    path, _, reason = message.partition(": ")
    kind = kind_of(path)
    if reason and kind is not None and selector.matches_path(path, kind):
        result.matched += 1
        result.skipped.append(Skip(path, reason.removesuffix(", skipped")))
    else:
        result.warnings.append(message)


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def default_plan(root: Path, max_bytes: int | None = None) -> Plan:
    """The default tags (`DEFAULTS`, `DEFAULTS_TEXT`) for every transcript that has no tags at all:
    what `tachikoma tag` with no options and the dashboard's "Use the defaults" do.

    The source tells who wrote it: a session of another agent gets that agent
    (``claude-code``, ``codex``, ``openclaw``), a generic transcript keeps
    ``tachikoma``; trust and confidence are the same for all. A data file is
    skipped with a reason (as by `plan`), and so is an empty ``.jsonl`` (an
    agent creates it before its first line: its agent is not known yet).
    """
    result = plan(root, DEFAULTS, Selector(kind=TRANSCRIPT, untagged_only=True), max_bytes=max_bytes)
    kept = []
    for change in result.changes:
        found = transcripts.sniff_format(result.root / change.path)
        if found == "" and _is_empty(result.root / change.path):
            result.skipped.append(Skip(change.path, "empty (a session about to start); not tagged by default "
                                                    "until it holds a message"))
            continue
        if "source" in change.after:
            change.after["source"] = transcripts.default_source(found)
        kept.append(change)
    result.changes = kept
    sources = sorted({c.after["source"] for c in kept if "source" in c.after})
    if len(sources) > 1:  # for the commit message: which sources the run set
        result.values = {**result.values, "source": " / ".join(sources)}
    elif sources:
        result.values = {**result.values, "source": sources[0]}
    return result


def _change_for(path, kind, mapping, tags: Tags, values, overwrite) -> tuple[Change | None, Kept | None]:
    """The change `values` make to one file, and the different valid values it keeps (not `overwrite`)."""
    present = current_values(mapping)
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    kept: dict[str, str] = {}
    for key, value in values.items():
        if key == EVERGREEN:  # a switch: always set as asked
            if normalise_value(key, present.get(key)) == value:
                continue
        else:
            valid = getattr(tags, key)
            if valid is not None and valid != value and not overwrite:
                kept[key] = valid
                continue
            if valid is not None and valid == value:
                continue
        if key in present:
            before[key] = present[key]
        after[key] = value
    change = Change(path, kind, before, after, current=present) if after else None
    return change, (Kept(path, kept, {k: values[k] for k in kept}) if kept else None)


# --------------------------------------------------------------------------- writing


def apply(root: Path, plan: Plan, commit: bool = True, lock_timeout: float = 120, note: str = "",
          by: str = "") -> Applied:
    """Write `plan`; commit the changed files when in git and `commit` (`note`: a paragraph for the
    commit message, e.g. who asked for the change; `by`: who did, for a trailer, on a shared server).

    Files whose tags changed since the plan was made are skipped with a
    reason. Raises TagFileError (before writing anything) when the tag file is
    malformed, and TachikomaError when the lock cannot be had in time.
    """
    values = ", ".join(f"{k}={v}" for k, v in plan.values.items())
    limit = plan.max_bytes if plan.max_bytes is not None else load_config(Path(root)).max_file_bytes
    return _write(Path(root), plan.changes, commit, ("tag", values), restore=None, lock_timeout=lock_timeout,
                  max_bytes=limit, note=note, by=by)


def undo(root: Path, applied: "Applied | list[Change]", commit: bool = True, lock_timeout: float = 120,
         by: str = "") -> Applied:
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
                  lock_timeout=lock_timeout, by=by)


def _message(action: str, values: str, paths: list[str], note: str = "", by: str = "") -> str:
    """The commit message of a tagging run ("tag" with its `values`, or "undo") over `paths`."""
    if action == "undo":
        subject = f"tachikoma: undo tagging of {_files(len(paths))}"
    else:
        subject = f"tachikoma: tag {_files(len(paths))} ({values})"
    # The trailer (its own last paragraph) tells `gitutil.content_times` this commit changed tags only,
    # so tagging never makes a memory younger.
    return (subject + (f"\n\n{note}" if note else "") + _listing(paths) + f"\n{gitutil.TAGGING_TRAILER}: 1\n"
            + gitutil.changed_by_trailer(by))


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _listing(paths: list[str]) -> str:
    return "\n\n" + "\n".join(paths) + "\n" if paths else "\n"


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def lock_for(root: Path, timeout: float = 120) -> FileLock:
    """The lock every tag writer holds: `<root>/.cache/tag.lock`."""
    return FileLock(str(cache_dir(Path(root)) / LOCK_NAME), timeout=timeout)


def _write(root: Path, changes: list[Change], commit: bool, action: tuple[str, str], restore,
           lock_timeout: float, max_bytes: int | None = None, note: str = "", by: str = "") -> Applied:
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
    message = functools.partial(_message, *action, note=note, by=by)
    lock = acquire_writers_lock(root, lock_timeout)
    try:
        result.recovered = finish_pending(root)
        markdown = [c for c in changes if c.kind == MARKDOWN]
        transcripts = [c for c in changes if c.kind == TRANSCRIPT]
        for change in changes:
            if change.kind not in KINDS:
                result.skipped.append(Skip(change.path, f"unknown kind {change.kind!r}"))
        if commit and (markdown or transcripts) and gitutil.detached(root):
            raise gitutil.DetachedHead(
                "HEAD is detached (not on a branch): nothing was tagged, since the commit would vanish from view "
                "at the next checkout of a branch; check out a branch first, or tag without committing")
        # Read the tag file before writing anything, so a malformed one stops us early.
        tags_file = tagfile.load(root) if transcripts else None
        run_id = _save_journal(root, action, commit, markdown + transcripts) if markdown or transcripts else None
        written: list[str] = []
        # The notes replaced, held open a moment for a write that still reaches them.
        held = Held(lambda path, data, placed: _add_late(path, data, placed, held))
        try:
            for change in markdown:
                if _write_markdown(root, change, restore or {}, result, max_bytes, held):
                    written.append(change.path)
                    faults.point("tag-wrote-file")
                _report_unsaved(root, held.check(), result)
        finally:
            _report_unsaved(root, held.finish(), result)
        if transcripts:
            written += _write_transcripts(root, tags_file, transcripts, restore or {}, result)
        faults.point("tag-before-commit")
        if written:
            result.message = message([c.path for c in result.changes])
        if commit and written:
            _commit(root, written, result, message, restore or {})
        faults.point("tag-after-commit")
        if run_id is not None and not result.commit_pending:
            journal.drop(root, run_id)
    finally:
        lock.release()
    return result


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


def recover(root: Path, lock_timeout: float = 120) -> "Applied | None":
    """Finish the writing runs that were killed (kill -9, a power cut) or could not commit.

    A run keeps its planned changes in the journal (`journal`) until they
    are committed. For each run left over, the files it had already written
    (those whose tags now read as the change made them) are committed, with
    tachikoma's change only, as the run would have; temporary files it left
    are removed; then the run leaves the journal, unless its commit fails
    again (it then waits for the next run). Files it had not reached yet are
    left alone: running the same `tag` command again tags them. A `remember`
    killed before its commit gets its note committed (`notes.finish`).
    Every writing run does this first, so calling it is only needed when
    there is nothing new to write. Returns what was done (its `commit`,
    `commit_error`, `changes`, `remembered`), or None when no run was left
    or the ones that were had written nothing.
    """
    root = Path(root).resolve()
    if not journal.exists(root):
        return None
    lock = acquire_writers_lock(root, lock_timeout)
    try:
        return finish_pending(root)
    finally:
        lock.release()


def _save_journal(root: Path, action: tuple[str, str], commit: bool, changes: list[Change]) -> str:
    entries = [{k: v for k, v in asdict(c).items() if k != "current"} for c in changes]
    try:
        return journal.add(root, {"action": list(action), "commit": commit, "changes": entries})
    except OSError as exc:  # a full disk, a read-only .cache: before any file was touched
        why = f"{exc.strerror or exc}: the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        names = ", ".join(printable(c.path) for c in changes[:3]) + (", …" if len(changes) > 3 else "")
        raise TachikomaError(f"cannot write {printable(str(journal.path(root)))} ({why}); nothing was changed "
                             f"({names} not tagged)") from None


def finish_pending(root: Path) -> "Applied | None":
    """`recover`, with the writers' lock held (`acquire_writers_lock`); `root` resolved."""
    try:
        runs = journal.load(root)
    except ValueError as exc:
        journal.clear(root)  # killed while writing it: nothing had been touched yet
        return Applied(commit_error=f"ignored an unreadable {JOURNAL_NAME} ({exc})")
    if not runs:
        return None
    total = Applied()
    errors: list[str] = []
    for run in runs:
        try:
            if list(run.get("action") or [])[:1] == ["remember"]:
                from .notes import finish  # notes imports this module

                done = finish(root, run)
            else:
                done = _finish_run(root, run)
        except (KeyError, TypeError, ValueError) as exc:
            done = Applied(commit_error=f"ignored a damaged run in {JOURNAL_NAME} ({exc})")
        if done is None or not done.commit_pending:
            journal.drop(root, run["id"])
        if done is None:
            continue
        total.changes += done.changes
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


def _finish_run(root: Path, saved: dict) -> "Applied | None":
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
        message = functools.partial(_message, *action, note="Finished by a later run: the run that wrote it "
                                                            "was interrupted or could not commit.")
        result.message = message([c.path for c in result.changes])
        if commit:
            _commit(root, written, result, message, {})
    return result


def _made(root: Path, change: Change, tags_file: "tagfile.TagFile | None") -> bool:
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


def _commit(root: Path, written: list[str], result: Applied, message, restore: dict[str, Restore]) -> None:
    """Commit tachikoma's change to each of `written` (see the module docstring).

    `restore` is what undo was given (empty for apply).
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
    for path in written:
        now = known[path]
        edit = _git_edit(root, path, result, restore.get(path))
        if now.conflicted:
            problems.append(f"{path} has an unresolved merge conflict in git")
            continue
        if not now.tracked:
            if now.ignored:
                problems.append(f"{path} is ignored by git")
                continue
            full = root / path
            if not os.path.lexists(full):
                continue
            try:
                data = full.read_bytes()
            except OSError as exc:
                problems.append(f"{path}: cannot read ({exc.strerror})")
                continue
            # No earlier version in git: the file is committed whole, as it is now.
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
    errors = [f"not committed: {'; '.join(problems)}"] if problems else []
    committed = [c.path for c in result.changes if (TAG_FILE if c.kind == TRANSCRIPT else c.path) in contents]
    if committed:
        if problems:
            result.message = message(committed)
        try:
            result.commit = gitutil.commit_blobs(root, contents, result.message, stage=stage)
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
            return _edit_tag_file(root, data, transcripts, keep)
    else:
        change = next(c for c in result.changes if c.path == path)

        def semantic(data: bytes) -> bytes | None:
            return _edit_markdown(data, change)

    mine = result.restore.get(path)

    def edit(data: bytes) -> bytes | None:
        if mine is not None and mine.original_sha256 is not None and _sha(data) == mine.original_sha256:
            try:
                now: bytes | None = (root / path).read_bytes()
            except FileNotFoundError:
                now = None
            if _sha(now) == mine.written_sha256:
                return now
        if earlier is not None and _sha(data) == earlier.written_sha256:
            return earlier.before(data)
        return semantic(data)

    return edit


def _edit_markdown(data: bytes, change: Change) -> bytes:
    """`data`, a markdown file's bytes, with `change` made to its front matter. Raises ValueError."""
    head = read_head(io.BytesIO(data))
    return _edit_head(head, data[len(head):len(head) + _SAMPLE], change) + data[len(head):]


#: How much of the body `_edit_head` sees: enough to choose the line ending of a new block.
_SAMPLE = 200


def _edit_head(head: bytes, sample: bytes, change: Change) -> bytes:
    """The new head (see `frontmatter.read_head`) of a note whose head is `head` and whose body
    starts with `sample`, once `change` is made. Raises ValueError when it cannot be done safely."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("front matter is not UTF-8 text") from None
    start = sample.decode("utf-8", "replace")  # only read to pick a line ending; the body is never rewritten
    bom = _BOM if text.startswith(_BOM) else ""
    text = text[len(bom):] + start
    removed = [k for k in change.keys if k not in change.after]
    if removed:
        text = remove_keys(text, removed, drop_empty_block=change.created_block)
    if change.after:
        text = set_keys(text, {k: _written(k, v) for k, v in change.after.items()})
    if not text.endswith(start):
        raise ValueError("could not update front matter safely: the body would change")
    return (bom + text[:len(text) - len(start)]).encode("utf-8")


def _edit_entry(entries: dict, change: Change) -> None:
    """Make `change` to the tag-file entry of its path, replacing every spelling of each key."""
    entry = dict(entries.get(change.path) or {})
    for key in change.keys:
        for existing in [k for k in entry if str(k).strip().lower() == key]:
            del entry[existing]
        if key in change.after:
            entry[key] = _written(key, change.after[key])
    entries[change.path] = entry


def _written(key: str, value: str) -> str | bool:
    """How a value is written: evergreen as a YAML boolean (``evergreen: true``), the rest as text."""
    return value == "true" if key == EVERGREEN else value


def _edit_tag_file(root: Path, data: bytes, changes: list[Change], keep: bool) -> bytes | None:
    """`data`, a tag file's bytes, with only `changes` made (None: no entry left and `keep` false)."""
    parsed = tagfile.parse(root, data, name=f"{TAG_FILE} (in git)")
    entries = parsed.all_entries()
    for change in changes:
        if change.path in parsed.extra:
            raise ValueError(f"its entry for {change.path} is not a mapping of tags")
        _edit_entry(entries, change)
    if not keep and all(isinstance(v, dict) and not v for v in entries.values()):
        return None  # the work-tree file is gone and nothing is left to keep
    return tagfile.render(entries).encode("utf-8")


def _mismatch(now: dict[str, str], change: Change) -> str | None:
    """Why the file's tags no longer match `change.before`, or None."""
    for key in change.keys:
        expected, found = change.before.get(key), now.get(key)
        if expected != found:
            shown = "absent" if found is None else repr(found)
            return f"changed since the plan was made ({key} is now {shown}); not touched"
    return None


def refusal(handle: BinaryIO, max_bytes: int | None) -> str | None:
    """Why the open note must not be tagged, as indexing would not read it: over `max_bytes`
    (``[index] max_file_bytes``) or binary. Costs one stat and one small read."""
    size = os.fstat(handle.fileno()).st_size
    if max_bytes is not None and size > max_bytes:
        return f"{size} bytes, over the {max_bytes}-byte limit ([index] max_file_bytes); not tagged"
    position = handle.tell()
    unreadable = unreadable_reason(handle.read(BINARY_SNIFF_BYTES))
    handle.seek(position)
    return f"{unreadable}; not tagged" if unreadable else None


#: How many times a note that changes while it is being tagged is read again before it is skipped.
_ATTEMPTS = 5


class _Changed(Exception):
    """The note changed between being read and being replaced: nothing was replaced."""


def _write_markdown(root: Path, change: Change, restore: dict[str, Restore], result: Applied,
                    max_bytes: int | None, held: Held) -> bool:
    """Make `change` to one note: only its head is read and rewritten, the body is copied through.

    Someone may write the note meanwhile (an appending agent, an editor's
    save): the new file replaces the note only if the note is still the file
    read, byte for byte; if not, the note is read again and tagged anew, up
    to `_ATTEMPTS` times, then skipped with a reason. A write that reaches
    the old note after that check (through a descriptor opened before the
    rename) is put back into the new one by `held` (see `replaced`).
    """
    try:
        path = safe_path(root, change.path)
    except PathOutsideMemory as exc:
        result.skipped.append(Skip(change.path, str(exc)))
        return False
    for attempt in range(_ATTEMPTS):
        try:
            handle = open_regular(path)  # a FIFO swapped in since the plan is refused, not waited on
        except FileNotFoundError:
            result.skipped.append(Skip(change.path, "no longer exists"))
            return False
        except OSError as exc:
            result.skipped.append(Skip(change.path, f"cannot read ({exc.strerror})"))
            return False
        with handle:
            try:
                return _tag_note(path, handle, change, restore, result, max_bytes, held)
            except _Changed:
                pass
        time.sleep(0.01 * (attempt + 1))  # let the other writer finish
    result.skipped.append(Skip(change.path, f"kept changing while being tagged ({_ATTEMPTS} tries): not tagged, "
                                            "nothing lost; run again once it is quiet"))
    return False


def _tag_note(path: Path, handle: BinaryIO, change: Change, restore: dict[str, Restore], result: Applied,
              max_bytes: int | None, held: Held) -> bool:
    """One try of `_write_markdown` on the open note. Raises _Changed (see there)."""
    try:
        why = refusal(handle, max_bytes)
        head = read_head(handle)
    except ValueError as exc:
        why = f"{exc}; not rewritten"
    except OSError as exc:
        why = f"cannot read ({exc.strerror})"
    if why:
        result.skipped.append(Skip(change.path, why))
        return False
    old_sha = _stream_sha(handle, head)
    exact = restore.get(change.path)
    if exact is not None and exact.head_only and exact.original is not None and old_sha == exact.written_sha256:
        new_head = exact.original
    else:
        try:
            fm = split(head.decode("utf-8").removeprefix(_BOM))
        except UnicodeDecodeError:
            result.skipped.append(Skip(change.path, "front matter is not UTF-8 text; not rewritten"))
            return False
        problem = fm.error or fm.duplicate_problem(WRITABLE_KEYS)
        why = f"{problem}; not rewritten" if problem else _mismatch(current_values(fm.meta), change)
        if why:
            result.skipped.append(Skip(change.path, why))
            return False
        if not [k for k in change.keys if k not in change.after]:
            # Setting tags: note whether the block is new, so undo can remove it again.
            change = replace(change, created_block=not fm.block)
        handle.seek(len(head))
        try:
            new_head = _edit_head(head, handle.read(_SAMPLE), change)
        except ValueError as exc:
            result.skipped.append(Skip(change.path, f"{exc}; not rewritten"))
            return False
    try:
        new_sha = old_sha if new_head == head else _rewrite(path, handle, len(head), new_head, old_sha, held)
    except OSError as exc:  # EPERM, ENOSPC, an immutable file: this note only; the note is as it was
        result.skipped.append(Skip(change.path, f"cannot write ({_why(exc)}); not tagged"))
        return False
    result.changes.append(change)
    result.restore[change.path] = Restore(original=head, written_sha256=new_sha, original_sha256=old_sha,
                                          head_only=True)
    return new_head != head


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _stream_sha(handle: BinaryIO, head: bytes = b"", size: int | None = None) -> str:
    """The sha256 of the open file, or of its first `size` bytes, read in blocks (`head` is its start,
    already read)."""
    digest = hashlib.sha256(head)
    handle.seek(len(head))
    left = None if size is None else size - len(head)
    while left is None or left > 0:
        block = handle.read(_BLOCK if left is None else min(_BLOCK, left))
        if not block:
            break
        digest.update(block)
        if left is not None:
            left -= len(block)
    return digest.hexdigest()


_BLOCK = 1 << 20


def _identity(info: os.stat_result) -> tuple:
    """What tells that a file was replaced or written: which file it is, its size and modification time
    (not its ctime, which the rename over it changes)."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _rewrite(path: Path, handle: BinaryIO, body_at: int, new_head: bytes, expected_sha: str,
             held: Held) -> str:
    """Atomically replace `path` with `new_head` and the open file's bytes from `body_at`; return the
    sha256 of what was written.

    The replace happens only if `path` is still the file `handle` reads, that file did not change
    since `handle` was read and its bytes hash to `expected_sha`: else _Changed, and nothing is
    replaced. The file replaced is given to `held`, so a write that reaches it after the last check
    (through a descriptor opened before the rename) is put back into the note. The note keeps its
    modification time (plus 1 ns, so an incremental index still sees the change): a tag is not news,
    and a note outside git is dated by its mtime (`dates`)."""
    start = os.fstat(handle.fileno())
    old: list[int] = []  # the file at `path`, opened at the last check: the one the rename replaces
    digest, source = hashlib.sha256(new_head), hashlib.sha256()
    size = [0]

    def fill(out: BinaryIO) -> None:
        out.write(new_head)
        handle.seek(0)
        source.update(handle.read(body_at))
        for block in iter(lambda: handle.read(_BLOCK), b""):
            out.write(block)
            digest.update(block)
            source.update(block)
        size[0] = out.tell()

    def unchanged() -> None:
        if source.hexdigest() != expected_sha:
            raise _Changed()
        old.append(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))  # a FIFO: never waited on
        if (_identity(os.fstat(handle.fileno())) != _identity(start)
                or _identity(os.fstat(old[0])) != _identity(start)
                or _stream_sha(handle) != source.hexdigest()):
            raise _Changed()

    def was_the_note(old: Path) -> None:  # an editor's save in the last instant is put back, not lost
        if _identity(os.stat(old)) != _identity(start):
            raise _Changed()

    try:
        atomic_write_with(path, fill, before_replace=unchanged, displaced=was_the_note)
    except FileNotFoundError:
        _close(old)
        raise _Changed() from None  # renamed away meanwhile: read it again
    except BaseException:
        _close(old)
        raise
    held.hold(old.pop(), start.st_size, path)
    try:
        os.utime(path, ns=(start.st_atime_ns, start.st_mtime_ns + 1))
    except OSError:
        pass  # a file system that refuses it only costs the date, never the tags
    written = os.stat(path)
    held.placed(path, Placed(written.st_dev, written.st_ino, size[0]))
    return digest.hexdigest()


def _close(fds: list[int]) -> None:
    while fds:
        os.close(fds.pop())


def _add_late(path: Path, data: bytes, placed: Placed | None, held: Held) -> None:
    """Put `data` back into the note at `path`: bytes written to a file tagging replaced there, after the
    replacement (see `replaced`). They go right after the bytes the note was written with, before what
    was appended to it since (`_insert`); with one appending write (dating the note as that write would
    have) when nothing was appended since, or when the note is no longer the file written (someone
    else's: at its end)."""
    for _ in range(_ATTEMPTS):
        with open_regular(path) as handle:
            info = os.fstat(handle.fileno())
            if placed is None or not placed.is_(info) or info.st_size == placed.size:
                break
            try:
                _insert(path, handle, placed.size, data, held)
                return
            except _Changed:
                continue
    append_at_end(path, data)


def _insert(path: Path, handle: BinaryIO, at: int, data: bytes, held: Held) -> None:
    """Replace the note `handle` reads, at `path`, atomically with its bytes and `data` inserted at `at`;
    every other byte is kept. Lines appended to it meanwhile are no change: those appended while the copy
    was made are copied in just before the rename, and the file replaced is held, so a write reaching it
    later still comes back in turn. Raises _Changed when the note was replaced or its bytes copied changed."""
    start = os.fstat(handle.fileno())
    copied, source = [0], hashlib.sha256()
    old: list[int] = []
    copy: list[int] = []  # the new file, still writable after it was made durable

    def fill(out: BinaryIO) -> None:
        handle.seek(0)
        for block in iter(lambda: handle.read(min(_BLOCK, at - handle.tell())), b""):
            out.write(block)
            source.update(block)
        out.write(data)
        for block in iter(lambda: handle.read(_BLOCK), b""):
            out.write(block)
            source.update(block)
        copied[0] = handle.tell()
        copy.append(os.dup(out.fileno()))

    def the_note(info: os.stat_result) -> bool:
        return (info.st_dev, info.st_ino) == (start.st_dev, start.st_ino) and info.st_size >= copied[0]

    def unchanged() -> None:
        old.append(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
        if not the_note(os.fstat(old[0])) or _stream_sha(handle, size=copied[0]) != source.hexdigest():
            raise _Changed()
        # Lines appended while the copy was made durable go in too, so the rename leaves next to none
        # behind (those would come back after a wait, at the end). Not synced: a plain append is not.
        handle.seek(copied[0])
        for block in iter(lambda: handle.read(_BLOCK), b""):
            view = memoryview(block)
            while view:
                view = view[os.write(copy[0], view):]
            copied[0] += len(block)

    def was_the_note(displaced: Path) -> None:
        if not the_note(os.stat(displaced)):
            raise _Changed()

    try:
        atomic_write_with(path, fill, before_replace=unchanged, displaced=was_the_note)
    except FileNotFoundError:
        _close(old)
        raise _Changed() from None
    except BaseException:
        _close(old)
        raise
    finally:
        _close(copy)
    held.hold(old.pop(), copied[0], path)
    written = os.stat(path)
    held.placed(path, Placed(written.st_dev, written.st_ino, copied[0] + len(data)))


def _report_unsaved(root: Path, unsaved: list[Unsaved], result: Applied) -> None:
    """Late writes `Held` could not add back to their notes: each one's note is named with the reason."""
    for lost in unsaved:
        try:
            name = lost.path.relative_to(root).as_posix()
        except ValueError:
            name = str(lost.path)
        result.skipped.append(Skip(name, f"tagged, but {lost.size} bytes another program wrote to the note as it "
                                         f"was replaced could not be put back ({lost.why}): they are lost"))


def _write_transcripts(root: Path, tags_file: tagfile.TagFile, changes: list[Change],
                       restore: dict[str, Restore], result: Applied) -> list[str]:
    target = tags_file.path
    try:
        before_bytes: bytes | None = target.read_bytes()
    except FileNotFoundError:
        before_bytes = None
    exact = restore.get(TAG_FILE)
    if exact is not None and _sha(before_bytes) == exact.written_sha256:
        # Nothing touched the tag file since we wrote it: put the old bytes back.
        try:
            if exact.original is None:
                target.unlink()
            else:
                atomic_write_bytes(target, exact.original)
        except OSError as exc:
            return _unwritable_tag_file(changes, exc, result)
        result.changes.extend(changes)
        result.restore[TAG_FILE] = Restore(original=before_bytes, written_sha256=_sha(exact.original),
                                           original_sha256=_sha(before_bytes))
        return [TAG_FILE]

    # `tagfile.parse` already gave every entry its own copy, and `_edit_entry` replaces
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
        why = _mismatch(current_values(entries.get(change.path)), change)
        if why:
            result.skipped.append(Skip(change.path, why))
            continue
        _edit_entry(entries, change)
        done.append(change)
    if not done:
        return []
    try:
        tagfile.save(root, entries)
    except OSError as exc:
        return _unwritable_tag_file(done, exc, result)
    after_bytes = target.read_bytes()
    result.changes.extend(done)
    result.restore[TAG_FILE] = Restore(original=before_bytes, written_sha256=_sha(after_bytes),
                                       original_sha256=_sha(before_bytes))
    return [TAG_FILE] if after_bytes != before_bytes else []


def _unwritable_tag_file(changes: list[Change], exc: OSError, result: Applied) -> list[str]:
    """The tag file could not be written (it is as it was): each transcript change is skipped."""
    for change in changes:
        result.skipped.append(Skip(change.path, f"cannot write {TAG_FILE} ({_why(exc)}); not tagged"))
    return []
