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
  and are listed as stale.
- Entries that are not a mapping, and keys other than the three tags, are
  reported as warnings and kept as they are.
- A path is any relative POSIX path (``/`` between folders, no empty, ``.``
  or ``..`` part); a backslash is an ordinary character in a file name.
- Each entry is its own mapping once loaded: YAML anchors and aliases
  (``b.jsonl: *x``) are copied, so tagging one path never changes another.
- A tag given twice in one entry (``trust`` and ``Trust``) is reported; the
  value written last counts, and tagging that key replaces both.
- Values are read as for front matter (`frontmatter.load_yaml`): ``no`` and
  ``on`` are text, dates are text, ``source`` keeps numbers as written.
- When tachikoma writes the file it starts it with a fixed comment, sorts the
  paths, writes tags in the order trust, confidence, source and drops
  entries left without any key. Other comments are not kept.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .atomic import atomic_write_text
from .documents import SUFFIX_KIND, MARKDOWN
from .errors import TachikomaError
from .memory import TAG_FILE, open_regular
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
        """Paths with an entry whose file does not exist (kept, but reported)."""
        return sorted(p for p in self.entries if not (self.root / p).is_file())

    def all_entries(self) -> dict:
        """Everything to pass to `save` to write the file back without loss."""
        merged = dict(self.extra)
        merged.update(self.entries)
        return merged


def tag_file_path(root: Path) -> Path:
    """`<root>/tachikoma-tags.yaml`; a symlink there must stay inside the memory folder."""
    path = Path(root) / TAG_FILE
    if path.is_symlink():
        try:
            target = path.resolve(strict=False)
            inside = Path(root).resolve() in target.parents
        except (OSError, RuntimeError):
            inside = False
        if not inside:
            raise TagFileError(f"{path} is a symlink that points outside the memory folder: "
                               "tachikoma will not read or write through it")
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
    from .frontmatter import YamlError, describe_duplicates, duplicate_keys, load_yaml

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
    return result


def save(root: Path, entries: dict) -> Path:
    """Write `entries` (path -> mapping of tags) to the tag file atomically.

    Paths are sorted, tag keys written trust, confidence, source first, and
    entries with an empty mapping are dropped. Values that are not mappings
    (see `TagFile.extra`) are written back as they are. Returns the file path.
    """
    path = tag_file_path(root)
    atomic_write_text(path, render(entries))
    return path


def render(entries: dict) -> str:
    """The text `save` writes for `entries`."""
    data: dict = {}
    for key in sorted(entries, key=lambda k: (not isinstance(k, str), str(k))):
        value = entries[key]
        if isinstance(value, dict):
            if not value:
                continue
            ordered = {}
            lowered = {str(k).strip().lower(): k for k in value}
            for tag in WRITABLE_KEYS:
                if tag in lowered:
                    ordered[lowered[tag]] = value[lowered[tag]]
            for k, v in value.items():
                if k not in ordered:
                    ordered[k] = v
            value = ordered
        data[key] = value
    body = ""
    if data:
        import yaml

        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        body = yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True,
                         default_flow_style=False, width=10**9)
    return HEADER + body


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
