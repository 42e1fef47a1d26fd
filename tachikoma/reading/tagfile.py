"""The tag file: quality tags for files that cannot carry front matter.

Markdown notes keep their ``trust``, ``confidence`` and ``source`` in YAML
front matter. Session transcripts (``*.jsonl``) cannot, so their tags live
in one file at the top of the memory folder, ``tachikoma-tags.yaml``. It is
meant to be committed to git next to the files it describes, and it may be
edited by hand. The search index only ever holds a copy of these tags.

Format
------

A YAML mapping. Each key is the path of a file relative to the memory
folder, written with forward slashes (``/``) on every platform. Each value is
a mapping of tag keys to values::

    # tachikoma tag file — tags for files that cannot carry front matter.
    2026-03-22/session-abc.jsonl:
      trust: self
      confidence: medium
      source: tachikoma
    "notes from the field/2026-04-01 call.jsonl":
      trust: external

- ``trust``: ``owner``, ``self``, ``external`` or ``untrusted``.
- ``confidence``: ``high``, ``medium``, ``low`` or ``speculative``.
- ``source``: any text (where the content came from).

Tag keys and values are case-insensitive. A key may be left out; an unknown
value counts as missing when ranking and is reported by ``tachikoma stats``.
Quote a path that contains ``: `` or starts with a special character; tachikoma
quotes such paths itself when it writes the file.

Rules:

- A file that is not valid YAML, or whose top level is not a mapping, is an
  error naming the line: tachikoma refuses to use it (or write over it) until
  it is fixed, because treating it as empty would erase every tag on the next
  write.
- Entries for markdown files are ignored with a warning: front matter is
  where a note's tags live.
- Entries for files that no longer exist are kept (the file may come back)
  and are listed as stale; so is an entry whose file exists only with other
  capitals (``Chat.jsonl`` for ``chat.jsonl``), even where the file system
  ignores case. Two entries that differ only in case are reported.
- The tag file is a file of its own: a symlink in its place is refused,
  wherever it points (a write through it would replace that file).
- Entries that are not a mapping, and keys other than the three tags, are
  reported as warnings and kept as they are.
- A path is any relative POSIX path (``/`` between folders, no empty, ``.``
  or ``..`` part); a backslash is an ordinary character in a file name.
- Each entry is its own mapping once loaded: YAML anchors and aliases
  (``b.jsonl: *x``) are copied, so tagging one path never changes another.
- A tag given twice in one entry (``trust`` and ``Trust``) is reported; the
  value written last counts, and tagging that key replaces both.
- Values are read as for front matter (`yaml_rules.load_yaml`): ``no`` and
  ``on`` are text, dates are text, ``source`` keeps numbers as written.
- When tachikoma writes the file it changes only the entries that change
  (`render`): other lines stay byte for byte, comments included, a changed
  tag keeps the comments around its value (after it, or after its key when
  the value is on the next line), a flow-style entry (``{trust: self}``) is
  edited item by item, a new entry goes where the sorted order puts it, and
  an entry left without any key is removed. A new file, or one it cannot
  edit in place (anchors and aliases, a flow-style top level, a line break
  other than LF or CRLF), is written whole: a fixed comment, the paths
  sorted, tags in the order trust, confidence, source; other comments are
  then not kept.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..atomic import atomic_write_text
from .documents import SUFFIX_KIND, MARKDOWN
from ..errors import TachikomaError
from ..memory import TAG_FILE, open_regular
from . import tagfile_edit
from .tags import WRITABLE_KEYS, Tags

HEADER = (
    "# tachikoma tag file — tags for files that cannot carry front matter.\n"
    "# Keys are paths relative to this folder; values map trust, confidence and source.\n"
    "# trust: owner | self | external | untrusted\n"
    "# confidence: high | medium | low | speculative\n"
    "# source: free text\n"
)


class TagFileError(TachikomaError):
    """The tag file cannot be read safely.

    `line` (1-based, or None) and `problem` (what is wrong, without the advice
    to fix it) let a read-only face such as the coverage page say it its own way.
    """

    def __init__(self, message: str, line: int | None = None, problem: str | None = None):
        super().__init__(message)
        self.line = line
        self.problem = problem or message


@dataclass
class TagFile:
    """The parsed tag file of one memory folder."""

    root: Path
    #: path -> the raw mapping written for it (every mapping entry, markdown ones included).
    entries: dict[str, dict] = field(default_factory=dict)
    #: Entries that are not `path: mapping`, kept verbatim so a save never loses them.
    extra: dict = field(default_factory=dict)
    #: "tachikoma-tags.yaml:LINE: what is wrong" for each entry ignored in whole or part.
    warnings: list[str] = field(default_factory=list)
    #: path -> 1-based line of its entry.
    lines: dict[str, int] = field(default_factory=dict)
    #: Whether the file exists on disk.
    exists: bool = False

    @property
    def path(self) -> Path:
        return self.root / TAG_FILE

    def tags_for(self, path: str) -> Tags:
        """The tags of the file at relative POSIX `path` (empty for markdown paths)."""
        entry = self.entries.get(path)
        if entry is None or _is_markdown(path):
            return Tags()
        return Tags.from_mapping(entry)

    def stale(self) -> list[str]:
        """Paths with an entry whose file does not exist by that very name (kept, but reported): on a
        case-insensitive file system an entry ``Chat.jsonl`` finds the file ``chat.jsonl``, but the file's
        tags are looked up by the name the walk gives it, so the entry counts for nothing."""
        names: dict[Path, set[str]] = {}

        def exists(path: str) -> bool:
            folder = self.root
            for part in path.split("/"):
                if folder not in names:
                    try:
                        names[folder] = set(os.listdir(folder))
                    except OSError:
                        names[folder] = set()
                if part not in names[folder]:
                    return False
                folder = folder / part
            return folder.is_file()

        return sorted(p for p in self.entries if not exists(p))

    def named_otherwise(self, path: str) -> str | None:
        """The file that exists under `path` with other capitals only (``chat.jsonl`` for ``Chat.jsonl``), or
        None. Only the file's own folder is searched, named as `path` names it, or with other capitals."""
        folder, _, name = path.rpartition("/")
        try:
            listed = os.listdir(self.root / folder) if folder else os.listdir(self.root)
        except OSError:
            return None
        found = next((n for n in sorted(listed) if n != name and n.casefold() == name.casefold()), None)
        return None if found is None else f"{folder}/{found}" if folder else found

    def all_entries(self) -> dict:
        """Everything to pass to `save` to write the file back without loss."""
        merged = dict(self.extra)
        merged.update(self.entries)
        return merged


def tag_file_path(root: Path) -> Path:
    """`<root>/tachikoma-tags.yaml`. Raises TagFileError when it is a symlink, wherever it points: a write
    through it would replace the file it points to (a note, the settings, git's own files), and git would
    hold the link, not the tags."""
    path = Path(root) / TAG_FILE
    if path.is_symlink():
        try:
            target = path.resolve(strict=False)
            rel = target.relative_to(Path(root).resolve()).as_posix()
        except (OSError, RuntimeError, ValueError):
            raise TagFileError(f"{path} is a symlink that points outside the memory folder: tachikoma will not read "
                               "or write through it; put the tag file itself there",
                               problem="a symlink that points outside the memory folder") from None
        kind = SUFFIX_KIND.get(PurePosixPath(rel).suffix.lower())
        what = {MARKDOWN: " (a note)"}.get(kind, " (a transcript)" if kind else "")
        raise TagFileError(f"{path} is a symlink to {rel}{what}: tachikoma reads and writes the tag file only as a "
                           f"file of its own, since a write through the link would replace {rel}, and git would "
                           "hold the link, not the tags; put the tag file itself there (replace the link by the "
                           "file)", problem=f"a symlink to {rel}{what}")
    return path


def load(root: Path) -> TagFile:
    """Read `<root>/tachikoma-tags.yaml`. A missing file is an empty TagFile.

    Raises TagFileError naming the file and line when the YAML is malformed,
    its top level is not a mapping, or a path appears twice.
    """
    root = Path(root)
    path = tag_file_path(root)
    try:
        with open_regular(path) as handle:  # never a FIFO named like it: reading one would wait for ever
            raw = handle.read()
    except FileNotFoundError:
        return TagFile(root=root)
    except OSError as exc:
        raise TagFileError(f"{path}: cannot read the tag file ({exc.strerror})") from exc
    return parse(root, raw)


def parse(root: Path, raw: bytes, name: str | None = None) -> TagFile:
    """Parse the bytes of a tag file (as `load` does) for the memory folder `root`.

    `name` is how to call the file in errors (default: its path). The
    result has `exists` set. Raises TagFileError like `load`.
    """
    # YAML is imported only when there is a tag file to read: a search's freshness check loads it.
    from .yaml_rules import YamlError, describe_duplicates, duplicate_keys, load_yaml

    root = Path(root)
    result = TagFile(root=root, exists=True)
    path = name or result.path
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TagFileError(f"{path}: not UTF-8 text (byte {exc.start}); fix or re-save it as UTF-8",
                           problem=f"not UTF-8 text (byte {exc.start})") from exc

    try:
        doc = load_yaml(text)
    except YamlError as exc:
        conflict = _conflict_marker(text)
        if conflict is not None:  # a merge or rebase stopped on it: YAML's own complaint would say nothing useful
            problem = "unresolved merge conflict (<<<<<<< ... >>>>>>> markers)"
            raise TagFileError(f"{path}: line {conflict}: {problem}; resolve the conflict (keep one of the versions "
                               "of each entry), then `git add` the file", line=conflict, problem=problem) from exc
        where = f" at line {exc.line}" if exc.line is not None else ""
        raise TagFileError(f"{path}: malformed YAML{where}: {exc.problem}; fix the file",
                           line=exc.line, problem=f"malformed YAML: {exc.problem}") from exc
    data = doc.data
    if data is None:
        return result
    if not isinstance(data, dict):
        problem = f"expected a mapping of file paths to tags, found {type(data).__name__}"
        raise TagFileError(f"{path}: line 1: {problem}; fix the file", line=1, problem=problem)

    first_line: dict = {}
    for key, line, sub_keys in doc.keys:
        where = f"{TAG_FILE}:{line}"
        try:
            seen = first_line.get(key)
        except TypeError:  # an unhashable key cannot be a path
            raise TagFileError(f"{path}: line {line}: a key is not a file path; fix the file",
                               line=line, problem="a key is not a file path") from None
        if seen is not None:
            problem = f"{key!r} is listed twice (first at line {seen})"
            raise TagFileError(f"{path}: line {line}: {problem}; merge the two entries", line=line, problem=problem)
        first_line[key] = line
        value = data.get(key)
        # Each entry gets its own copy: an alias (b.jsonl: *x) must not share a's mapping.
        value = copy.deepcopy(value)
        if not isinstance(key, str) or not _is_relative_posix(key):
            result.warnings.append(f"{where}: {key!r} is not a relative path inside the memory folder; ignored")
            result.extra[key] = value
            continue
        if not isinstance(value, dict):
            if value is None:
                result.warnings.append(f"{where}: {key} has no tags; ignored")
            else:
                result.warnings.append(
                    f"{where}: {key}: expected a mapping of tags, found {type(value).__name__}; ignored")
            result.extra[key] = value
            continue
        result.entries[key] = value
        result.lines[key] = line
        if _is_markdown(key):
            result.warnings.append(
                f"{where}: {key} is a markdown file: put its tags in its front matter; entry ignored")
            continue
        for tag_key, tag_value in value.items():
            name = str(tag_key).strip().lower()
            if name not in WRITABLE_KEYS:
                result.warnings.append(
                    f"{where}: {key}: unknown key {tag_key!r} (use {', '.join(WRITABLE_KEYS)}); ignored")
            elif isinstance(tag_value, (dict, list)):
                result.warnings.append(f"{where}: {key}: {tag_key} must be a single value; ignored")
        for name, places in duplicate_keys(sub_keys or []).items():
            if name in WRITABLE_KEYS:
                result.warnings.append(f"{TAG_FILE}:{places[-1][1]}: {key}: {describe_duplicates(name, places)}; "
                                       "the last one is used")
    for name, places in case_clashes(result.lines).items():
        result.warnings.append(f"{TAG_FILE}:{places[-1][1]}: {' and '.join(repr(p) for p, _ in places)} differ only in "
                               "case: on a case-insensitive file system (macOS, Windows) they name one file, and "
                               "only one of the entries counts there; merge them")
    return result


def case_clashes(paths) -> dict[str, list]:
    """The paths of `paths` (a mapping path -> anything, in order) that differ only in case: lower-cased path
    -> [(path, its value), ...], for each group of two or more."""
    groups: dict[str, list] = {}
    for path, value in paths.items():
        groups.setdefault(path.casefold(), []).append((path, value))
    return {name: group for name, group in groups.items() if len(group) > 1}


def save(root: Path, entries: dict, previous: str | None = None) -> Path:
    """Write `entries` (path -> mapping of tags) to the tag file atomically, as `render` (with the file's
    text before, `previous`, edited in place where it can be). Returns the file path."""
    path = tag_file_path(root)
    atomic_write_text(path, render(entries, previous))
    return path


def render(entries: dict, previous: str | None = None) -> str:
    """The text of a tag file holding `entries` (entries with an empty mapping are dropped).

    With `previous`, the file's text before, only the entries that differ are
    edited, in place (`tagfile_edit.edited`): every other line stays byte for byte, its
    comments with it, and a changed tag keeps the comments around its value.
    Lines are YAML's (a carriage return alone, U+0085, U+2028 and U+2029 end
    one too). Where that cannot be done safely (anchors or aliases, a
    flow-style top level, a value that is no text, a result that would not
    read back as `entries`), and without `previous`, the whole file
    is written anew: the fixed header, paths sorted, tag keys trust,
    confidence, source first; other comments are then not kept. Values that
    are not mappings (see `TagFile.extra`) are written back as they are."""
    if previous is not None:
        edited = tagfile_edit.edited(previous, entries)
        if edited is not None and _holds(edited, entries):
            return edited
    return HEADER + tagfile_edit.whole(entries)


def _holds(text: str, entries: dict) -> bool:
    """Whether the tag file `text` reads back as `entries` (an empty mapping: no entry): an edit in place is kept
    only then."""
    try:
        return parse(Path("."), text.encode("utf-8")).all_entries() == {k: v for k, v in entries.items() if v != {}}
    except TagFileError:
        return False


def _conflict_marker(text: str) -> int | None:
    """The 1-based line of the first merge conflict marker (``<<<<<<< HEAD``) in `text`, or None."""
    lines = text.split("\n")
    opening = next((i for i, line in enumerate(lines) if line.startswith("<<<<<<<")), None)
    if opening is None or not any(line.startswith(">>>>>>>") for line in lines[opening + 1:]):
        return None
    return opening + 1


def _is_markdown(path: str) -> bool:
    return SUFFIX_KIND.get(PurePosixPath(path).suffix.lower()) == MARKDOWN


def _is_relative_posix(path: str) -> bool:
    """Whether `path` is a relative POSIX path, as `memory.walk` writes them.

    A backslash is an ordinary file-name character on POSIX, so ``a\\b.jsonl``
    is one file at the top of the folder.
    """
    if not path or "\x00" in path or path.startswith("/"):
        return False
    return all(part not in ("..", ".", "") for part in path.split("/"))
