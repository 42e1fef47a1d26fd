"""YAML front matter: read it, and change single keys without touching the body.

A markdown file may start with a block fenced by ``---`` lines holding YAML.
Reading never raises: malformed YAML yields an error message and an empty
mapping. Writing edits only the lines of the keys it sets, so comments, key
order and every byte of the body stay as they were.

The YAML is read by `yaml_rules.load_yaml` (YAML 1.2 booleans, dates as text, ``source`` as written), as the tag
file's is. A key given twice, exactly or differing only in case, is not an error when reading: the value
written last counts, and `FrontMatter.duplicate_keys` reports the repetition so callers can warn (the reader,
stats) or refuse to rewrite it (tagging).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import yaml
from yaml.nodes import MappingNode, ScalarNode

from .yaml_rules import LIBYAML, YamlDocument, YamlError, describe_duplicates, duplicate_keys, load_yaml

#: The opening fence: ``---``, maybe with a comment after it (``--- # tags, see the wiki``: YAML allows one after
#: the document start marker); the comment runs to the line's end, and no line break YAML counts ends it earlier.
_FENCE = r"\A(?:\ufeff)?---(?:[ \t]+#[^\r\n\x85\u2028\u2029]*|[ \t]*)"
_OPEN = re.compile(_FENCE + r"\r?\n")
#: An opening fence whose comment holds a line break YAML counts (1.1, as PyYAML and libyaml read it) and a "\n" line
#: does not: U+0085, U+2028, U+2029 or, in a note whose lines do not end so (`_OPEN_CR`), a carriage return alone.
#: The fence's line runs to its "\n"; YAML reads each piece after such a break as a line of its own (`_opening`).
_OPEN_BROKEN = re.compile(_FENCE + r"(?:[\x85\u2028\u2029]|\r(?!\n))[^\n]*?\r?\n")
_YAML_BREAK = re.compile(r"(\r\n|[\r\x85\u2028\u2029])")
_BREAK_NAMES = {"\x85": "next line (U+0085)", "\u2028": "line separator (U+2028)",
                "\u2029": "paragraph separator (U+2029)", "\r": "carriage return", "\r\n": "line break"}
#: An opening fence ended by a carriage return alone, and the block's lines too (its closing fence comes before any
#: "\n"), or the note's (it holds no "\n" but at its end): classic Mac OS line endings, which are not read. Carriage
#: returns in the fence's comment of a note whose lines end with "\n" are not that (`_OPEN_BROKEN`).
_OPEN_CR = re.compile(_FENCE + r"\r(?:[^\n]*?\r(?:---|\.\.\.)[ \t]*(?:\r|\n|\Z)|[^\n]*\n?\Z)")
#: Why a note with CR-only line endings is neither read for front matter nor tagged.
CR_ONLY = ("the note's lines end with a carriage return alone (classic Mac OS line endings), which tachikoma "
           "does not read as front matter nor rewrite; convert it to LF or CRLF line endings (`mac2unix`, or "
           "your editor's line-ending setting)")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
#: `read_front_matter` gives up on front matter longer than this (reported as a problem).
MAX_FRONT_MATTER = 1 << 20


@dataclass
class FrontMatter:
    """The result of splitting a markdown text."""

    meta: dict = field(default_factory=dict)
    #: Raw text of the front matter block including both fences ("" if none).
    block: str = ""
    #: Everything after the block, unchanged.
    body: str = ""
    #: 1-based line number of the body's first line in the file.
    body_line: int = 1
    #: A one-line description of what was wrong, or None.
    error: str | None = None
    #: Each top-level key as written, with its 1-based line in the file.
    key_lines: list[tuple[object, int]] = field(default_factory=list)
    #: The YAML node of the block (`YamlDocument.node`: line 0 is the file's second line), or None.
    node: object = None

    def duplicate_keys(self, names=None) -> dict[str, list[tuple[str, int]]]:
        """Keys set more than once (case-insensitively), limited to `names` (lower-case) if given."""
        found = duplicate_keys(self.key_lines)
        if names is not None:
            wanted = {str(n).lower() for n in names}
            found = {k: v for k, v in found.items() if k in wanted}
        return found

    def duplicate_problem(self, names=None) -> str | None:
        """A sentence naming every repeated key (of `names`), or None."""
        found = self.duplicate_keys(names)
        if not found:
            return None
        return "front matter: " + "; ".join(describe_duplicates(k, v) for k, v in found.items())


def split(text: str) -> FrontMatter:
    """Split `text` into front matter and body. Never raises."""
    if _OPEN_CR.match(text):
        return FrontMatter(body=text, error=CR_ONLY)
    opening, unread = _opening(text)
    if not opening:
        return FrontMatter(body=text)
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        return FrontMatter(body=text, error="front matter opened with --- but never closed")
    end = closing.end()
    if text.startswith("\r\n", end):
        end += 2
    elif text.startswith("\n", end):
        end += 1
    block, body = text[:end], text[end:]
    body_line = block.count("\n") + 1
    if unread:
        return FrontMatter(block=block, body=body, body_line=body_line, error=f"malformed front matter at line 1: {unread}")
    yaml_text = text[opening.end() : closing.start()]
    try:
        doc = load_yaml(yaml_text, first_line=2) if yaml_text.strip() else YamlDocument(data={})
    except YamlError as exc:
        where = f" at line {exc.line}" if exc.line is not None else ""
        return FrontMatter(block=block, body=body, body_line=body_line,
                           error=f"malformed front matter{where}: {exc.problem}")
    if doc.data is None:  # comments only
        return FrontMatter(block=block, body=body, body_line=body_line)
    if not isinstance(doc.data, dict):
        return FrontMatter(block=block, body=body, body_line=body_line,
                           error="front matter is not a mapping of keys to values")
    return FrontMatter(meta=doc.data, block=block, body=body, body_line=body_line,
                       key_lines=[(key, line) for key, line, _ in doc.keys], node=doc.node)


def _opening(text: str) -> tuple[re.Match | None, str | None]:
    """The opening fence line of `text` (None: it opens no front matter), and why it cannot be read (None: it can).

    A comment after the fence may hold U+0085, U+2028 or U+2029, which YAML 1.1 (PyYAML, libyaml: the readers
    tachikoma uses) takes for a line break and YAML 1.2 for a character of the comment. Each piece after such a
    break that is blank or a comment (``# ...``), after spaces only, reads alike either way, and the block is read; a
    piece holding anything else would be YAML to one reader and comment to the other, and is reported rather than
    guessed at, as is a tab before its comment (an error to YAML 1.1, as after any line break). A carriage return
    alone there (in a note whose lines end with "\n") ends the line to every YAML reader but not to a reader of
    lines (tachikoma's editing, an editor's): read alike when what follows it is blank or a comment, and reported
    otherwise, never as classic Mac OS line endings (`CR_ONLY`). Such a character right after a fence with no comment
    (``---`` U+2028 ``trust: owner``) is no comment's to YAML 1.2 either: to it the ``---`` line goes on, which opens
    nothing; the writer is told to put a line break there (removing the character would leave no fence).
    """
    opening = _OPEN.match(text)
    if opening:
        return opening, None
    opening = _OPEN_BROKEN.match(text)
    if not opening:
        return None, None
    parts = _YAML_BREAK.split(opening.group().rstrip("\r\n"))
    commented = "#" in parts[0]  # else the fence alone is before it: removing the character would leave no fence
    holder = "the comment after the opening ---" if commented else "the opening --- line"
    fix = "remove that character" if commented else "put a line break in place of that character"
    for brk, piece in zip(parts[1::2], parts[2::2]):
        # A carriage return alone: every YAML reader ends the line there, though the note's lines end with "\n".
        where = (", which YAML reads as a line break though the note's lines end with a line feed," if brk == "\r"
                 else ", where YAML 1.1 (tachikoma's reader) ends the line,")
        if "\t" in piece.split("#", 1)[0]:  # a line YAML 1.1 reads opens with a tab: an error to it, not blank
            return opening, (f"{holder} holds a {_BREAK_NAMES[brk]}{where} and the line after it opens with a tab, "
                             f"which cannot start a YAML line; {fix} {'or' if commented else 'and remove'} the tab")
        if piece.strip(" \t") and not piece.lstrip(" \t").startswith("#"):
            shown = piece.strip(" \t")
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            said = ("would be YAML on the fence's own line" if brk == "\r"
                    else "would be read as YAML and not as comment (YAML 1.2 reads it as comment)" if commented
                    else "would be a line of YAML to YAML 1.1 but to YAML 1.2, which reads no line break there, "
                         "part of the --- line, which then opens no front matter")
            after = ", or start the text after it with #" if commented else (
                f" to make `{shown}` a line of the front matter, or remove that character and the text after it")
            return opening, f"{holder} holds a {_BREAK_NAMES[brk]}{where} so `{shown}` after it {said}; {fix}{after}"
    return opening, None


def read_front_matter(path: Path) -> FrontMatter:
    """Split the front matter of the markdown file at `path`, reading only its head.

    Reads lines up to the closing fence, so a long note costs one small read.
    `body` of the result is always "" (it was not read). Raises OSError when
    the file cannot be read and UnicodeDecodeError when the head is not UTF-8.
    """
    from ..memory import open_regular

    with open_regular(path) as handle:  # never a FIFO: reading it would block
        try:
            head = read_head(handle)
        except ValueError as exc:
            return FrontMatter(error=str(exc))
    if head in (b"", codecs.BOM_UTF8):
        return FrontMatter()
    return split(head.decode("utf-8"))


def read_head(handle: BinaryIO) -> bytes:
    """The bytes a front matter edit may change, read from the start of the open binary `handle`.

    That is the front matter block with both fences and the closing line's
    newline (with a UTF-8 byte order mark before it, if any); for a file with
    no block, only its byte order mark, or b"". The handle is left just after
    them, so the rest is the body, which can be copied without being read
    into memory. A block never closed comes back whole (`split` then reports
    it). Raises ValueError when the block is longer than `MAX_FRONT_MATTER`,
    or its opening fence ends with a carriage return alone (`CR_ONLY`).
    """
    start = handle.tell()
    first = handle.readline(MAX_FRONT_MATTER)
    after = handle.read(1)  # whether the note goes on after its first line, as `_OPEN_CR` reads it
    handle.seek(start + len(first))
    if _OPEN_CR.match((first + after).decode("utf-8", "replace")):
        handle.seek(start)
        raise ValueError(CR_ONLY)
    if not _opening(first.decode("utf-8", "replace"))[0]:
        bom = codecs.BOM_UTF8 if first.startswith(codecs.BOM_UTF8) else b""
        handle.seek(start + len(bom))
        return bom
    head = [first]
    size = len(first)
    while True:
        line = handle.readline(MAX_FRONT_MATTER)
        if not line:
            break
        head.append(line)
        size += len(line)
        if _CLOSE.match(line.decode("utf-8", "replace")):
            break
        if size > MAX_FRONT_MATTER:
            raise ValueError(f"front matter longer than {MAX_FRONT_MATTER} bytes or never closed")
    return b"".join(head)


def yaml_scalar(value: str) -> str:
    """Render a string as a one-line YAML scalar that reads back as the same string."""
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**9)
    return dumped.removesuffix("\n...\n").rstrip("\n")


_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")


def _lines(block: str) -> list[str]:
    # Split on "\n" only: str.splitlines would also split at \r, U+2028 and others.
    return re.findall(r"[^\n]*\n|[^\n]+", block)


def _continues(line: str) -> bool:
    """Whether `line` can only belong to the value of the key above it."""
    return line[:1] in (" ", "\t") or line.rstrip("\r\n") == "-" or line.startswith("- ")


def _key_spans(body_lines: list[str]) -> list[tuple[str, int, int]]:
    """(lower-cased key, first line, end) of each top-level ``key:`` line and its value.

    The value runs over the indented lines (and ``- `` items) that follow,
    with the blank lines between them. Blank lines after the value stay
    outside (they separate it from the next key), except after a value of
    several lines at the very end of the block, where YAML counts them in it.
    """
    spans = []
    i, n = 0, len(body_lines)
    while i < n:
        match = _KEY_LINE.match(body_lines[i])
        if not match:
            i += 1
            continue
        end = j = i + 1
        while j < n:
            if not body_lines[j].strip():
                j += 1
                continue
            if not _continues(body_lines[j]):
                break
            j += 1
            end = j
        if j == n and end > i + 1:
            end = n
        spans.append((match.group(1).lower(), i, end))
        i = end
    return spans


def _refuse_duplicates(fm: FrontMatter, names) -> None:
    problem = fm.duplicate_problem(names)
    if problem:
        raise ValueError(f"{problem}; tachikoma will not guess which one to change")


def layout_problem(fm: FrontMatter, names, spans: list[tuple[str, int, int]]) -> str | None:
    """Why tachikoma cannot edit the keys `names` (lower-case) of the front matter `fm`, whose top-level
    ``key:`` lines are `spans` (`_key_spans`), or None. It edits ``key: value`` lines that start at the
    first column; a YAML flow mapping (``{trust: owner}``), indented keys, or a tag key written another way
    (``"trust": owner``) would be read differently once it added or changed a line."""
    node = fm.node
    if isinstance(node, MappingNode) and node.flow_style:
        return ("front matter is written as a YAML flow mapping ({...}), and tachikoma changes only `key: value` "
                "lines; write each key on a line of its own to tag the note")
    if isinstance(node, MappingNode) and node.start_mark.column > 0:
        return (f"front matter keys are indented (by {node.start_mark.column} characters), and tachikoma changes "
                "only `key: value` lines that start at the first column; remove the indentation to tag the note")
    found = {key for key, _, _ in spans}
    for key, line in fm.key_lines:
        name = str(key).strip().lower()
        if name in names and name not in found:
            return (f"front matter line {line} sets {name} in a form tachikoma does not change; write it as "
                    f"`{name}: value` at the start of the line to tag the note")
    return None


@dataclass
class _Place:
    """Where a top-level key's value is, in the lines of the block (`_lines`, the first line after the opening
    fence being 0): from `first` at column `first_col` to `last` at `last_col` (the column after it)."""

    first: int
    first_col: int
    last: int
    last_col: int
    #: Whether the value is a scalar written on its key's line alone (`trust: owner  # a comment`).
    one_line: bool
    #: Whether the value is a plain or quoted scalar (not `|`, `>`, a list or a mapping).
    scalar: bool


def _value_places(fm: FrontMatter, body_lines: list[str]) -> dict[int, _Place]:
    """For each top-level key written at the start of a line of `body_lines`: that line -> where its value is.

    The places come from the YAML node's character offsets, not its line numbers: YAML also breaks lines at a
    carriage return alone, U+0085, U+2028 and U+2029, which `_lines` does not."""
    import bisect

    node = fm.node
    places: dict[int, _Place] = {}
    if not isinstance(node, MappingNode):
        return places
    starts, offset = [], 0
    for line in body_lines:
        starts.append(offset)
        offset += len(line)
    # libyaml skips a byte order mark that starts the text without counting it in its offsets (PyYAML's own
    # scanner counts it).
    skipped = 1 if body_lines and body_lines[0].startswith("\ufeff") and LIBYAML else 0

    def where(index: int) -> tuple[int, int]:
        index += skipped
        line = max(bisect.bisect_right(starts, index) - 1, 0)
        return line, index - starts[line]

    for key_node, value_node in node.value:
        key_line, key_col = where(key_node.start_mark.index)
        if key_col:
            continue
        (first, first_col), (last, last_col) = where(value_node.start_mark.index), where(value_node.end_mark.index)
        # An alias (`trust: *a`) is the node it names, written elsewhere: its marks are not this key's.
        scalar = (isinstance(value_node, ScalarNode) and value_node.style not in ("|", ">")
                  and value_node.start_mark.index >= key_node.end_mark.index)
        places[key_line] = _Place(first, first_col, last, last_col, scalar and first == last == key_line, scalar)
    return places


def _check_result(result: str, expected_body: str, names, before: dict) -> FrontMatter:
    """`split(result)`, once checked: the body is `expected_body`, none of the keys `names` is set twice, and
    every other key of the front matter `before` reads as it did. Raises ValueError."""
    check = split(result)
    if check.error or check.body != expected_body:
        raise ValueError(f"could not update front matter safely: {check.error or 'body changed'}")
    if check.duplicate_keys(names):
        raise ValueError("could not update front matter safely: a key would be set twice")
    for key in {*before, *check.meta}:
        if str(key).strip().lower() not in names and (before.get(key, _ABSENT) != check.meta.get(key, _ABSENT)):
            raise ValueError(f"could not update front matter safely: {key} would read differently")
    return check


_ABSENT = object()


def set_keys(text: str, values: dict[str, str | bool]) -> str:
    """Return `text` with top-level front matter keys set to `values`.

    Existing lines for those keys are replaced in place (keys matched
    case-insensitively, written back lower-case), together with the lines
    of a value that continued below them; a plain or quoted value is
    replaced alone, whatever lines it spans, so a comment after it (or after
    its key, above a value on the next line) stays. Missing keys
    are appended at the end of the block; a file without front matter gets a
    new block. The body is copied verbatim, and every other key must read
    back as it was. Raises ValueError when the
    existing front matter is malformed, sets one of the keys more than once
    (``trust`` and ``Trust``), or is laid out in a way tachikoma does not
    edit (`layout_problem`), because rewriting it could lose what the person
    wrote, and for a note with CR-only line endings (`CR_ONLY`).
    """
    values = {str(k).lower(): v for k, v in values.items()}
    fm = split(text)
    if fm.error:
        raise ValueError(fm.error)
    _refuse_duplicates(fm, values)
    if not fm.block and re.search(r"\r(?!\n)", text[:200]) and "\n" not in text[:200]:
        raise ValueError(CR_ONLY)  # a block with other line endings than the note's would only confuse
    lines = _lines(fm.block)
    below = lines[-1] if lines else fm.body.partition("\n")[0] + "\n" * ("\n" in fm.body)
    newline = _new_ending("".join(lines[1:-1]), fm.block + fm.body, below)
    if not lines:
        lines = ["---" + newline, "---" + newline]
    body_lines, closing = lines[1:-1], lines[-1]
    spans = _key_spans(body_lines)
    problem = layout_problem(fm, values, spans)
    if problem:
        raise ValueError(problem)
    places = _value_places(fm, body_lines)
    remaining = dict(values)
    for key, start, end in spans:
        if key not in remaining or start not in places:  # not a key: a line of a value that looks like one
            continue
        line = body_lines[start]
        eol = _ending(line)  # a line rewritten keeps its own ending
        place = places[start]
        if place.one_line:
            # The value alone changes: a comment after it stays (`trust: self  # checked by Martin`), and so
            # do the comment lines below it, which belong to no value.
            rest = line[place.last_col:].rstrip("\r\n")
            body_lines[start] = f"{key}: {yaml_scalar(remaining.pop(key))}{rest}{eol}"
            continue
        if place.scalar:
            # A value on the next line or over several: it alone is replaced, on its first line, and what is
            # around it stays (a comment after the key, after the value, the lines below it).
            body_lines[place.first] = (body_lines[place.first][:place.first_col] + yaml_scalar(remaining.pop(key))
                                       + body_lines[place.last][place.last_col:])
            for j in range(place.first + 1, place.last + 1):
                body_lines[j] = ""
            written = _KEY_LINE.match(body_lines[start]).group(1)
            body_lines[start] = key + body_lines[start][len(written):]
            continue
        body_lines[start] = f"{key}: {yaml_scalar(remaining.pop(key))}{eol}"
        for j in range(start + 1, end):
            body_lines[j] = ""
    if body_lines and not body_lines[-1].endswith("\n") and remaining:
        body_lines[-1] += newline
    for key, value in remaining.items():
        body_lines.append(f"{key}: {yaml_scalar(value)}{newline}")
    result = lines[0] + "".join(body_lines) + closing + fm.body
    check = _check_result(result, fm.body, values, fm.meta)
    lowered = {str(k).strip().lower(): v for k, v in check.meta.items()}
    for key, value in values.items():
        read = lowered.get(key)
        if (read is not value) if isinstance(value, bool) else (str(read) != value):
            raise ValueError(f"could not update front matter safely: {key} reads back differently")
    return result


def _ending(line: str) -> str:
    """The ending of one of `_lines`' lines: CRLF, LF, or "" (a last line without one)."""
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _new_ending(inner: str, seen: str, below: str) -> str:
    """The ending of a line `set_keys` adds to a front matter block: the one most of the block's own lines (`inner`,
    between its fences) end with; when it has none or they tie, the one most lines of the text `seen` end with (the
    block and the body as far as it was given: `tagging.edit` gives its first `tagging.edit.SAMPLE` bytes); when
    those tie too, that of the line the new one is written above (`below`: the closing fence, or for a new block the
    body's first line), else LF. A fence's own ending does not decide it alone: `--- # tags` CRLF, then `---` LF
    and a body of LF lines is a file of LF lines whose first line an editor ended otherwise. A carriage return alone
    ends no line here (a note with such line endings is not edited: `CR_ONLY`)."""
    for text in (inner, seen):
        crlf = text.count("\r\n")
        lf = text.count("\n") - crlf
        if crlf != lf:
            return "\r\n" if crlf > lf else "\n"
    return _ending(below) or "\n"


def remove_keys(text: str, keys, drop_empty_block: bool = False) -> str:
    """Return `text` without the top-level front matter `keys` (matched case-insensitively).

    Only the lines of those keys (and the lines of a value continued below
    them) are removed; the body is copied verbatim. A file without front
    matter is returned unchanged. When `drop_empty_block` is true and nothing
    is left between the fences, the whole block goes, so a block that
    tachikoma added disappears again; otherwise an empty ``---``/``---``
    block stays. Raises ValueError when the existing front matter is
    malformed or sets one of the keys more than once.
    """
    wanted = {str(key).lower() for key in keys}
    fm = split(text)
    if fm.error:
        raise ValueError(fm.error)
    if not fm.block:
        return text
    _refuse_duplicates(fm, wanted)
    lines = _lines(fm.block)
    opening, body_lines, closing = lines[0], lines[1:-1], lines[-1]
    spans = _key_spans(body_lines)
    problem = layout_problem(fm, wanted, spans)
    if problem:
        raise ValueError(problem)
    places = _value_places(fm, body_lines)
    for key, start, end in spans:
        if key in wanted and start in places:  # else not a key: a line of a value that looks like one
            for j in range(start, max(end, places[start].last + 1 if places[start].scalar else end)):
                body_lines[j] = ""
    kept = [line for line in body_lines if line]
    expected_body = fm.body
    if drop_empty_block and not kept:
        bom = "\ufeff" if opening.startswith("\ufeff") else ""
        result = expected_body = bom + fm.body
    else:
        result = opening + "".join(kept) + closing + fm.body
    check = _check_result(result, expected_body, wanted, fm.meta)
    if any(str(k).strip().lower() in wanted for k in check.meta):
        raise ValueError("could not update front matter safely: a key is still present")
    return result
