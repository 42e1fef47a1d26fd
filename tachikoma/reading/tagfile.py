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
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..atomic import atomic_write_text
from .documents import SUFFIX_KIND, MARKDOWN
from ..errors import TachikomaError
from ..memory import TAG_FILE, open_regular
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
    edited, in place (`_edited`): every other line stays byte for byte, its
    comments with it, and a changed tag keeps the comments around its value.
    Lines are YAML's (a carriage return alone, U+0085, U+2028 and U+2029 end
    one too). Where that cannot be done safely (anchors or aliases, a
    flow-style top level, a value that is no text, a result that would not
    read back as `entries`), and without `previous`, the whole file
    is written anew: the fixed header, paths sorted, tag keys trust,
    confidence, source first; other comments are then not kept. Values that
    are not mappings (see `TagFile.extra`) are written back as they are."""
    if previous is not None:
        edited = _edited(previous, entries)
        if edited is not None:
            return edited
    data = {key: _ordered(entries[key]) for key in sorted(entries, key=_path_order) if entries[key] != {}}
    return HEADER + (_dump(data) if data else "")


def _path_order(key) -> tuple[bool, str]:
    return not isinstance(key, str), str(key)


def _ordered(value):
    """A mapping of tags with trust, confidence and source first; anything else as it is."""
    if not isinstance(value, dict):
        return value
    lowered = {str(k).strip().lower(): k for k in value}
    ordered = {lowered[tag]: value[lowered[tag]] for tag in WRITABLE_KEYS if tag in lowered}
    ordered.update((k, v) for k, v in value.items() if k not in ordered)
    return ordered


def _dump(data: dict, flow: bool = False) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=flow,
                     width=10**9)


def _edited(text: str, entries: dict) -> str | None:
    """`text`, a tag file's, with only the entries that differ from `entries` edited (see `render`), or None
    when that cannot be done safely."""
    import bisect

    import yaml

    from .frontmatter import yaml_scalar
    from .yaml_rules import YamlLoader

    bom = "\ufeff" if text.startswith("\ufeff") else ""
    written = text[len(bom):]  # libyaml's marks count characters from after it
    if not written.strip():
        return None  # an empty file is written anew, with the header
    # The lines as YAML counts them: a carriage return alone, U+0085, U+2028 and U+2029 break lines too. `text` has
    # each of them as "\n", the same length, so every index is the same in both and the line arithmetic below
    # (`_line_start`, `_after_line`, ...) sees YAML's lines; the edits are made to the file's own text.
    text = _LONE_BREAK.sub("\n", written)
    try:
        if ("&" in text or "*" in text) and any(isinstance(event, (yaml.AliasEvent, yaml.NodeEvent)) and event.anchor
                                                for event in yaml.parse(written, Loader=YamlLoader)):
            return None  # an edit of one entry could change another
        loader = YamlLoader(written)
        try:
            node = loader.get_single_node()
            if isinstance(node, yaml.ScalarNode) and node.value == "" and node.tag == _NULL:
                node = None  # "---" and comments: no entry yet (the comments stay)
            if node is not None and (not isinstance(node, yaml.MappingNode) or node.flow_style
                                     or node.start_mark.column != 0):
                return None
            old = {} if node is None else loader.construct_document(node)
            nodes = {} if node is None else {loader.construct_object(k, deep=True): (k, v) for k, v in node.value}
        finally:
            loader.dispose()
    except (yaml.YAMLError, TypeError, ValueError, RecursionError):
        return None
    if not isinstance(old, dict):
        return None
    wanted = {key: value for key, value in entries.items() if value != {}}
    newline = "\r\n" if "\r\n" in written else "\r" if "\r" in written and "\n" not in written else "\n"
    edits: list[tuple[int, int, str]] = []  # (start, end, new text) in `text`
    try:
        for key in old:
            key_node, value_node = nodes[key]
            if key not in wanted:  # before comparing: an entry with no value (`a.jsonl:`) equals no entry
                edits.append((_line_start(text, key_node.start_mark.index), _end_of(text, value_node), ""))
            elif old[key] == wanted[key]:
                continue
            elif isinstance(value_node, yaml.MappingNode) and isinstance(wanted[key], dict):
                # block or flow ({trust: self}), only the tags that change: comments in and after it stay
                edits += _entry_edits(text, value_node, old[key], wanted[key], yaml_scalar, newline)
            else:
                return None
    except (KeyError, _NotText):
        return None
    new = [key for key in wanted if key not in old]
    if not all(isinstance(key, str) and isinstance(wanted[key], dict) for key in new):
        return None
    # Each new entry goes before the first entry written in the file that sorts after it (and its comments):
    # the entries in sorted order, with the least index in the file among those from each one on.
    placed = sorted((_path_order(k), n[0].start_mark.index) for k, n in nodes.items())
    orders = [order for order, _ in placed]
    # The last entry goes at the end of the document: before its end marker ("..."), if it has one.
    marker = _DOCUMENT_END.search(text, 0 if node is None else _end_of(text, node))
    end = len(text) if marker is None else marker.start()
    if marker is not None and not wanted:  # "..." ends a document; with no entry left, there is none to end
        line_end = text.find("\n", end)
        edits.append((end, len(text) if line_end < 0 else line_end + 1, ""))
    first_from = [end] * (len(placed) + 1)
    for i in range(len(placed) - 1, -1, -1):
        first_from[i] = min(placed[i][1], first_from[i + 1])
    # Where each entry starts and its content ends, in the file's order: the comment lines above an entry
    # start below the entry before it (a line of its block scalar may start with "#").
    spans = sorted((k.start_mark.index, _end_of(text, v)) for k, v in nodes.values())
    starts = [start for start, _ in spans]
    above: dict[int, int] = {}
    inserted: dict[int, str] = {}
    # A block scalar ending the file without a line break ("note: |" / "  text"): a line break after it would join
    # its value ("text\n"), so an entry that goes at the end goes above the last entry instead (out of order).
    if end == len(text) and not text.endswith("\n") and node is not None and _open_block(text, node):
        end = _comments_above(text, spans[-1][0], spans[-2][1] if len(spans) > 1 else 0)
    for key in sorted(new, key=_path_order):
        index = min(first_from[bisect.bisect_right(orders, _path_order(key))], end)
        if index < end and index not in above:
            before = bisect.bisect_left(starts, index) - 1
            above[index] = _comments_above(text, index, spans[before][1] if before >= 0 else 0)
        at = above[index] if index < end else end
        block = _dump({key: _ordered(wanted[key])}).replace("\n", newline)
        if at == len(text) and not text.endswith("\n") and at not in inserted:
            block = newline + block
        inserted[at] = inserted.get(at, "") + block
    edits += [(at, at, block) for at, block in inserted.items()]
    pieces, done = [bom], 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < done:
            return None  # two edits of the same lines: not one this knows how to make
        pieces += [written[done:start], replacement]
        done = end
    pieces.append(written[done:])
    result = "".join(pieces)
    try:
        if parse(Path("."), result.encode("utf-8")).all_entries() != wanted:
            return None
    except TagFileError:
        return None
    return result


_NULL = "tag:yaml.org,2002:null"
#: The line breaks YAML counts that are neither LF nor CRLF's CR (see `_edited`).
_LONE_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
#: The header of a block scalar (after its tag, if any): group 1 holds its indicators ("+": keep its blank lines).
_BLOCK_HEADER = re.compile(r"(?:![^ \t]*[ \t]+)?[|>]([^ \t\r\n#]*)")
#: A document end marker at the start of a line.
_DOCUMENT_END = re.compile(r"^\.\.\.(?=[ \t\r\n#]|\Z)", re.MULTILINE)


class _NotText(Exception):
    """A value the in-place edit does not write (not text nor a boolean)."""


def _entry_edits(text: str, mapping, before: dict, after: dict, scalar, newline: str) -> list[tuple[int, int, str]]:
    """The edits that turn one entry's mapping node (`mapping`, block or flow, read as `before`) into `after`:
    only the tags that change; a changed value is replaced alone, without the comments around it."""
    import yaml

    flow = mapping.flow_style
    children: dict[str, list] = {}
    for key_node, value_node in mapping.value:
        children.setdefault(str(key_node.value).strip().lower(), []).append((key_node, value_node))
    names_before = {str(k).strip().lower() for k in before}
    names_after = {str(k).strip().lower(): k for k in after}
    edits = []
    dropped: set[int] = set()  # the key nodes of a flow mapping's items to remove
    added: list[tuple[str, str]] = []  # the tags a flow mapping gains: (name, "key: value")
    rank = {tag: i for i, tag in enumerate(WRITABLE_KEYS)}
    for name in sorted(names_before | set(names_after), key=lambda n: rank.get(n, len(rank))):
        old_items = [(k, v) for k, v in before.items() if str(k).strip().lower() == name]
        new_items = [(k, v) for k, v in after.items() if str(k).strip().lower() == name]
        if old_items == new_items:
            continue
        if len(new_items) > 1:
            raise _NotText()
        spelled = children.get(name, [])
        for key_node, value_node in spelled[:-1] if new_items else spelled:
            if flow:
                dropped.add(id(key_node))
            else:
                edits.append((_line_start(text, key_node.start_mark.index), _end_of(text, value_node), ""))
        if not new_items:
            continue
        key, value = new_items[0]
        key_text, value_text = _text_of(key, scalar), _text_of(value, scalar)
        line = f"{key_text}: {value_text}"
        if spelled:
            key_node, value_node = spelled[-1]
            if (isinstance(value_node, yaml.ScalarNode) and value_node.style not in ("|", ">")
                    and value_node.end_mark.index > value_node.start_mark.index):
                # The value alone (and the key, spelled otherwise): comments between and after them stay, on
                # whatever lines the value spanned.
                if text[key_node.start_mark.index:key_node.end_mark.index] != key_text:
                    edits.append((key_node.start_mark.index, key_node.end_mark.index, key_text))
                edits.append((value_node.start_mark.index, value_node.end_mark.index, value_text))
                continue
            one_line = (isinstance(value_node, yaml.ScalarNode)
                        and value_node.start_mark.line == value_node.end_mark.line == key_node.start_mark.line)
            end = value_node.end_mark.index if one_line or flow else \
                _line_end(text, _end_of(text, value_node))
            edits.append((key_node.start_mark.index, end, line))
            continue
        if flow:
            added.append((name, line))
            continue
        later = [k for k, _ in mapping.value if rank.get(str(k.value).strip().lower(), len(rank)) > rank.get(name, 0)]
        indent = " " * mapping.value[0][0].start_mark.column
        at = _line_start(text, later[0].start_mark.index) if later else _end_of(text, mapping)
        if at == len(text) and _open_block(text, mapping):  # not after it: its value would gain a line break
            at = _line_start(text, mapping.value[-1][0].start_mark.index)
        if at == len(text) and not text.endswith("\n"):
            line = newline + indent + line
            edits.append((at, at, line))
        else:
            edits.append((at, at, indent + line + newline))
    if not flow:
        return edits
    # A flow mapping's new tags go before the first item kept that they precede, or after the last item kept
    # (after its `{` when none is).
    kept = [(k, v) for k, v in mapping.value if id(k) not in dropped]
    if added and not kept:
        at = mapping.start_mark.index + 1
        edits.append((at, at, ", ".join(line for _, line in added)))
    for name, line in added if kept else []:
        later = [k for k, _ in kept if rank.get(str(k.value).strip().lower(), len(rank)) > rank.get(name, 0)]
        if later:
            edits.append((later[0].start_mark.index, later[0].start_mark.index, line + ", "))
        else:
            edits.append((kept[-1][1].end_mark.index, kept[-1][1].end_mark.index, ", " + line))
    return edits + _flow_removals(text, mapping.value, dropped)


def _flow_removals(text: str, items: list, dropped: set[int]) -> list[tuple[int, int, str]]:
    """The edits that remove the items of a flow mapping whose key nodes are `dropped`: each run of them with
    the comma after it, what follows that comma (a comment) staying; a run at the end with the comma before
    it when that is on the same line, else leaving it (``{a: 1,}`` is allowed)."""
    edits = []
    i = 0
    while i < len(items):
        if id(items[i][0]) not in dropped:
            i += 1
            continue
        j = i
        while j + 1 < len(items) and id(items[j + 1][0]) in dropped:
            j += 1
        start, end = items[i][0].start_mark.index, items[j][1].end_mark.index
        if j + 1 < len(items):
            while text[end:end + 1] in (" ", "\t"):
                end += 1
            end += text[end:end + 1] == ","
            spaces = end
            while text[spaces:spaces + 1] in (" ", "\t"):
                spaces += 1
            edits.append((start, spaces if text[spaces:spaces + 1] not in ("#", "\r", "\n") else end, ""))
        else:
            before = start
            while before > 0 and text[before - 1] in " \t":
                before -= 1
            edits.append((before - 1 if i > 0 and text[before - 1:before] == "," else start, end, ""))
        i = j + 1
    return edits


def _text_of(value, scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str):
        raise _NotText()
    return scalar(value)


def _end_of(text: str, node) -> int:
    """The index just after the line break of the last line of `node`'s content: not the comments after it, nor
    the blank lines a block scalar (``|``) ends with unless they are part of its value (``|+``)."""
    import yaml

    mark = _last(node)
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        header = _BLOCK_HEADER.match(text, node.start_mark.index)
        if header and "+" not in header.group(1):
            content = mark.index
            while content > header.end() and text[content - 1] in " \t\r\n":
                content -= 1
            end = text.find("\n", content)
            return len(text) if end < 0 else end + 1
    return _after_line(text, mark)


def _open_block(text: str, node) -> bool:
    """Whether `node`'s content ends in a block scalar (``|``, ``>``; not ``|-``, which strips its final line
    break) that runs to the end of `text`, which has no final line break: anything written after it would add one
    to its value."""
    import yaml

    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    if not (isinstance(node, yaml.ScalarNode) and node.style in ("|", ">") and not text.endswith("\n")):
        return False
    header = _BLOCK_HEADER.match(text, node.start_mark.index)
    return header is not None and "-" not in header.group(1) and _end_of(text, node) == len(text)


def _last(node):
    """The mark just after the last character of `node`'s content (not the comments or blank lines after it)."""
    import yaml

    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    return node.end_mark


def _line_end(text: str, after: int) -> int:
    """`after`, the index after a line's break, moved back before that break ("\\n" or "\\r\\n")."""
    end = after - 1 if text[after - 1:after] == "\n" else after
    return end - 1 if text[end - 1:end] == "\r" else end


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _after_line(text: str, mark) -> int:
    """The index just after the line break of the line `mark` ends on (a mark at a line's start ends the line
    before)."""
    index = mark.index
    if mark.column == 0 and index > 0:
        return index
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


def _comments_above(text: str, index: int, floor: int = 0) -> int:
    """The start of the comment lines right above the line at `index` (they are about it), or of that line
    when they run up to the top of the file (the file's own header). None of them starts before `floor`, the
    end of the entry above."""
    line = start = _line_start(text, index)
    while start > floor:
        above = _line_start(text, start - 1)
        if not text[above:start].lstrip().startswith("#"):
            return start
        start = above
    return start if floor else line


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
