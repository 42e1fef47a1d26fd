"""What a tagging is: which files (`Selector`), what changes in one (`Change`), the preview
(`Plan`), how to put a file back byte for byte (`Restore`) and what a run wrote (`Applied`)."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import NamedTuple

from ..reading.documents import KINDS
from ..reading.frontmatter import read_head
from ..globs import pattern_error, pattern_matches
from ..reading.tags import EVERGREEN, WRITABLE_KEYS, InvalidTagValue, check_value, normalise_value

DEFAULTS = {"source": "tachikoma", "trust": "self", "confidence": "medium"}


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
    - `pattern`: matched on the path relative to the memory root (several, as a
      tuple: a file matching any of them; `patterns`). With a
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
    pattern: str | tuple[str, ...] | None = None
    untagged_only: bool = False
    modified_since: date | None = None
    modified_until: date | None = None
    paths: frozenset[str] | None = None

    def __post_init__(self):
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}: use {' or '.join(KINDS)}")
        for pattern in self.patterns:
            if error := pattern_error(pattern):
                raise InvalidTagValue(error)

    def matches_path(self, path: str, kind: str) -> bool:
        """Whether `path` (relative, POSIX) of `kind` passes the kind and pattern tests."""
        if self.kind is not None and kind != self.kind:
            return False
        if self.paths is not None and path not in self.paths:
            return False
        if not self.pattern:
            return True
        return any(pattern_matches(pattern, path) for pattern in self.patterns)

    @property
    def patterns(self) -> tuple[str, ...]:
        """`pattern` as a tuple (empty: no pattern)."""
        return (self.pattern,) if isinstance(self.pattern, str) else tuple(self.pattern or ())

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

    def inverse(self) -> Change:
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

        Left of the arrow: every tag the file has now ("no quality tags": a note's
        own topic tags, ``tags: [...]``, are none of trust, confidence, source or
        evergreen, so a note holding them has none either). Right: each
        change, "+ key=value" for an added tag, "key=value" for a replaced one
        and "- key" for a removed one.
        """
        now = {**self.current, **self.before}
        left = ", ".join(f"{k}={now[k]}" for k in WRITABLE_KEYS if k in now) or "no quality tags"
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
    #: Skipped files that are no failure: a .jsonl data file (never tagged), an empty session (by the defaults).
    not_memory: set[str] = field(default_factory=set)
    #: The files the selection names by path that ``[index] exclude`` leaves out, each with why
    #: (`memory.Exclusion.refusal`): skipped too, and what MCP's `tag` refuses with.
    excluded: dict[str, str] = field(default_factory=dict)
    #: The selection's folders and globs that match files ``[index] exclude`` leaves out and no other, each with
    #: why (`Skip`: the pattern, the reason): nothing they name is tagged, which is no success (exit status 1).
    excluded_patterns: list[Skip] = field(default_factory=list)

    @property
    def left_untagged(self) -> list[Skip]:
        """The skipped files that were to be tagged and are not (binary, malformed front matter, …)."""
        return [skip for skip in self.skipped if skip.path not in self.not_memory]

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
    def from_json(cls, record: dict) -> Restore:
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
    recovered: Applied | None = None
    #: Notes an interrupted `remember` had written, committed by `recover`.
    remembered: list[str] = field(default_factory=list)
    #: The commit failed as a whole (a lock, a full disk, a hook, a detached HEAD): the run stays in the
    #: journal and the next writing run commits it.
    commit_pending: bool = False

    #: The paths of `changes` the commit holds (a transcript's through the tag file).
    committed: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.changes]

    @property
    def why_not_committed(self) -> str:
        """`commit_error` as a sentence after "not committed: " ("" when there is none)."""
        return not_committed(self.commit_error or "")

    def commit_report(self) -> str:
        """Exactly what was committed and what was not, when the commit failed for some files or all: "committed 2
        of the 3 files tagged in 1a2b3c4d5e (a.md, b.md); not committed: c.md is not tracked by git …", or
        "the 3 files tagged were not committed: …". "" when `commit_error` is None."""
        if not self.commit_error:
            return ""
        why = self.why_not_committed
        n = len(self.changes)
        files = f"{n} file" if n == 1 else f"{n} files"
        if not self.commit:
            return (f"the file tagged was not committed: {why}" if n == 1 else
                    f"the {files} tagged were not committed: {why}")
        # A commit beside a commit error: the files it left out are each named in `why` with the reason.
        return (f"committed {len(self.committed)} of the {files} tagged in {self.commit[:10]} "
                f"({', '.join(self.committed)}); not committed: {why}")


def not_committed(commit_error: str) -> str:
    """A commit error without its leading "not committed: " (`committing.commit_written`), for a face that
    says "Not committed: …" itself."""
    return commit_error.removeprefix("not committed: ")


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


