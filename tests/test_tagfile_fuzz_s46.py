"""Session 46: the tag file's in-place editor (`tagfile.render` with the text before), fuzzed.

Hypothesis writes realistic tag files, as people and tachikoma write them: header comments, comments above, beside
and between entries and tags, blank lines, paths plain and quoted (spaces, unicode, ``#``, ``: ``), CRLF, a byte
order mark, flow-style entries, tags spelled twice, keys that are no tags, entries that are no mapping, no final
newline; then edits them as tagging does (`tagging.edit.edit_entry`: a tag set, changed or removed, an entry
removed, new entries). Each generated file records which lines belong to which entry and which comment is where,
so the properties can say exactly what must survive:

- the result parses (`tagfile.parse`) to exactly the entries asked for;
- every line outside the entries that change is in the result, unchanged and in the same order;
- every comment survives but those on lines that had to go (a removed entry, a removed tag);
- the same edit made again changes nothing, and the whole rewrite (`previous=None`) reads the same.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from tachikoma.reading import tagfile
from tachikoma.reading.frontmatter import yaml_scalar
from tachikoma.tagging.edit import edit_entry
from tachikoma.tagging.model import Change
from in_order import missing_in_order

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TRUSTS = ["owner", "self", "external", "untrusted", "Owner", "maybe"]
CONFIDENCES = ["high", "medium", "low", "speculative", "HIGH"]
SOURCES = ["tachikoma", "claude-code", "web", "a: colon", "hash # inside", "yes", "no", "null", "~", "2026-03-22",
           "1.0", "0x1F", "Ünï 日本 🙂", "it's", 'say "hi"', "- dash", "[brackets]", "{braces}", "*star", "&amp",
           "!bang", "%percent", "@at", "`tick", "trailing space ", " leading", "true", "on", ""]
WANTED = {"trust": ["owner", "self", "external", "untrusted"],
          "confidence": ["high", "medium", "low", "speculative"],
          "source": ["tachikoma", "web", "a: b # c", "yes", "2026-03-22", "1.0", "日本 🙂", "it's \"x\"", "null"],
          "evergreen": ["true", "false"]}

#: The lines of a block scalar (`note: |`), one like a comment, one like a key.
BLOCK_SCALAR = ["text", "# a line of the text, not a comment", "trust: not a key"]

_segment = st.lists(st.sampled_from(list("abcxyz019-_. ") + ["#", ":", ": ", " #", "ü", "日本", "🙂", "'", '"', "\\",
                                                           "&", "*", "!", "%", "@", "?", ",", "[", "]", "{", "}"]),
                    min_size=1, max_size=6).map("".join)


@st.composite
def paths(draw) -> str:
    parts = draw(st.lists(_segment, min_size=1, max_size=3))
    parts = [p if p.strip(" ") not in ("", ".", "..") else "x" + p for p in parts]
    return "/".join(parts) + draw(st.sampled_from([".jsonl", ".jsonl", ".txt", ".md"]))


@st.composite
def written(draw, value: str) -> str:
    """`value` as a YAML scalar on one line: as tachikoma writes it, or double or single quoted."""
    style = draw(st.sampled_from(["tachikoma", "tachikoma", "double", "single"]))
    if style == "double":
        return _double(value, escape=draw(st.booleans()))
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    return yaml_scalar(value)


def _double(value: str, escape: bool = False) -> str:
    """`value` double-quoted, with characters past ASCII escaped (``\\u00fc``, ``\\U0001f642``) if `escape`."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif escape and ord(ch) > 0xFFFF:
            out.append(f"\\U{ord(ch):08x}")
        elif escape and ord(ch) > 0x7E:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@dataclass
class Line:
    text: str
    #: Index of the entry whose key..last content line this line is, else None.
    entry: int | None = None
    #: The tag key (lower-case) whose key or value is on this line, for a tag's lines.
    tag: str | None = None
    #: Which key of its entry that is (a tag may be given twice, as `trust` and `Trust`).
    item: int | None = None
    #: The comment on this line ("# c7 checked by Martin"), if any.
    comment: str | None = None


@dataclass
class Generated:
    lines: list[Line] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    #: The line break: LF or CRLF mostly, and (session 47) those only YAML counts: a carriage return alone,
    #: U+0085, U+2028, U+2029.
    newline: str = "\n"
    bom: bool = False
    final_newline: bool = True

    def text(self) -> str:
        text = "".join(line.text + self.newline for line in self.lines)
        if not self.final_newline:
            text = text[:-len(self.newline)]
        return ("\ufeff" if self.bom else "") + text


class Comments:
    """Comments told apart by their number: "# c7 checked by Martin"."""

    def __init__(self):
        self.count = 0

    def __call__(self, draw) -> str:
        self.count += 1
        extra = draw(st.sampled_from(["", " checked by Martin", " a: b", " #2", " 日本", " key: value # more"]))
        return f"# c{self.count}{extra}"


@st.composite
def tag_files(draw) -> Generated:
    gen = Generated(newline=draw(st.sampled_from(NEWLINES)), bom=draw(st.integers(0, 4)) == 0,
                    final_newline=draw(st.integers(0, 4)) > 0)
    comment = Comments()

    def comment_line(indent: str = "", entry: int | None = None) -> None:
        text = comment(draw)
        gen.lines.append(Line(indent + text, entry=entry, comment=text))

    for _ in range(draw(st.integers(0, 2))):
        comment_line()
    if gen.lines and draw(st.booleans()):
        gen.lines.append(Line(""))
    start = draw(st.sampled_from(["", "", "", "", "---", "--- # the tags", "%YAML 1.1\n---"]))
    gen.lines += [Line(line) for line in start.split("\n") if start]
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 7))):
        path = draw(paths())
        if path in used:
            continue
        used.add(path)
        index = len(gen.paths)
        gen.paths.append(path)
        for _ in range(draw(st.integers(0, 2))):
            comment_line()
        key = draw(written(path))
        kind = draw(st.sampled_from(["block"] * 6 + ["flow", "flow lines", "text", "null", "list"]))
        key_comment = comment(draw) if kind in ("block", "null") and draw(st.integers(0, 3)) == 0 else None
        after_key = "  " + key_comment if key_comment else ""
        if kind == "text":
            gen.lines.append(Line(f"{key}: {draw(written(draw(st.sampled_from(SOURCES[:-1]))))}", entry=index))
        elif kind == "null":
            gen.lines.append(Line(f"{key}:{after_key}", entry=index, comment=key_comment))
        elif kind == "list":
            gen.lines.append(Line(f"{key}: [a, b]", entry=index))
        elif kind.startswith("flow"):
            gen.lines += _flow_entry(draw, key, index, comment, lines=kind == "flow lines")
        else:
            gen.lines.append(Line(f"{key}:{after_key}", entry=index, comment=key_comment))
            gen.lines += _block_entry(draw, index, comment)
        for _ in range(draw(st.integers(0, 3)) // 2):  # comments after an entry, indented or not
            comment_line(draw(st.sampled_from(["", "  "])))
        if draw(st.integers(0, 3)) == 0:
            gen.lines.append(Line(""))
    if draw(st.integers(0, 3)) == 0:
        comment_line()
    if gen.paths and draw(st.integers(0, 8)) == 0:  # a document end marker
        gen.lines.append(Line("..."))
        if draw(st.booleans()):
            comment_line()
    while not gen.final_newline and gen.lines and not gen.lines[-1].text:
        gen.lines.pop()  # a last line without a line break has something on it
    return gen


def _tag_value(draw, name: str) -> str:
    if name == "trust":
        return draw(written(draw(st.sampled_from(TRUSTS))))
    if name == "confidence":
        return draw(written(draw(st.sampled_from(CONFIDENCES))))
    if name == "evergreen":
        return draw(st.sampled_from(["true", "false", "True", "'true'"]))
    if name == "tags":
        return "[a, b]"
    return draw(written(draw(st.sampled_from(SOURCES))))


def _block_entry(draw, index: int, comment: Comments) -> list[Line]:
    """The lines of a block mapping of tags (and other keys): each `key: value` on its line, or the value on
    the next line below a comment, or continued on the next line; comments and blank lines between."""
    indent = " " * draw(st.sampled_from([2, 2, 4, 1]))
    keys = draw(st.lists(st.sampled_from(["trust", "confidence", "source", "evergreen", "Trust", "note", "tags",
                                          "seen", "Source"]), min_size=1, max_size=5, unique=True))
    lines = []
    for item, tag in enumerate(keys):
        name = tag.lower()
        form = draw(st.sampled_from(["line"] * 6 + ["below", "continued", "block scalar"]))
        if form == "block scalar" and name not in ("trust", "confidence", "evergreen"):
            lines.append(Line(f"{indent}{tag}: |", entry=index, tag=name, item=item))
            lines += [Line(f"{indent}  {text}", entry=index, tag=name, item=item) for text in BLOCK_SCALAR]
            continue
        if form == "below":  # the value on the next line, under a comment
            line = Line(f"{indent}{tag}:", entry=index, tag=name, item=item)
            if draw(st.booleans()):
                line.comment = comment(draw)
                line.text += "   " + line.comment
            lines += [line, Line(f"{indent}  {_tag_value(draw, name)}", entry=index, tag=name, item=item)]
        elif form == "continued" and name in ("source", "note", "seen"):
            line = Line(f"{indent}{tag}: {draw(st.sampled_from(['one', 'two words', 'a:b']))}", entry=index,
                        tag=name, item=item)
            last = Line(f"{indent}  {draw(st.sampled_from(['more', 'and more']))}", entry=index, tag=name, item=item)
            if draw(st.booleans()):
                last.comment = comment(draw)
                last.text += "  " + last.comment
            lines += [line, last]
        else:
            line = Line(f"{indent}{tag}: {_tag_value(draw, name)}", entry=index, tag=name, item=item)
            if draw(st.integers(0, 2)) == 0:
                line.comment = comment(draw)
                line.text += draw(st.sampled_from(["  ", " ", "\t"])) + line.comment
            lines.append(line)
        if draw(st.integers(0, 5)) == 0:
            text = comment(draw)
            lines.append(Line(draw(st.sampled_from([indent, ""])) + text, entry=index, comment=text))
        if draw(st.integers(0, 6)) == 0:
            lines.append(Line("", entry=index))
    while lines and lines[-1].tag is None:  # an entry ends with its last tag line
        lines.pop()
    return lines


def _flow_entry(draw, key: str, index: int, comment: Comments, lines: bool) -> list[Line]:
    """`key: {trust: "self", source: "web"}`, on one line or one item a line with comments after the commas."""
    tags = draw(st.lists(st.sampled_from(["trust", "confidence", "source", "note"]), min_size=1, max_size=3,
                         unique=True))
    values = {"trust": TRUSTS, "confidence": CONFIDENCES, "source": SOURCES[:-1], "note": SOURCES[:-1]}
    items = [(t, f"{t}: {_double(draw(st.sampled_from(values[t])))}") for t in tags]
    if not lines or len(items) < 2:
        line = Line(f"{key}: {{{', '.join(text for _, text in items)}}}", entry=index)
        if draw(st.booleans()):
            line.comment = comment(draw)
            line.text += "  " + line.comment
        return [line]
    out = [Line(f"{key}: {{", entry=index)]
    for i, (tag, text) in enumerate(items):
        line = Line(f"    {text}" + ("," if i < len(items) - 1 else ""), entry=index, tag=tag, item=i)
        if draw(st.booleans()):
            line.comment = comment(draw)
            line.text += "  " + line.comment
        out.append(line)
    out.append(Line("  }", entry=index))
    return out


@st.composite
def edits(draw, parsed: tagfile.TagFile) -> tuple[dict, set[str], set[str]]:
    """Entries edited as tagging edits them; and the paths of changed and of removed entries."""
    entries = copy.deepcopy(parsed.all_entries())
    changed, removed = set(), set()
    for path in list(parsed.entries):
        action = draw(st.sampled_from(["keep", "keep", "tag", "tag", "untag", "remove"]))
        if action == "keep":
            continue
        if action == "remove":
            entries[path] = {}
            changed.add(path)
            removed.add(path)
            continue
        keys = draw(st.lists(st.sampled_from(list(WANTED)), min_size=1, max_size=3, unique=True))
        after = {} if action == "untag" else {k: draw(st.sampled_from(WANTED[k])) for k in keys}
        change = Change(path, "transcript", before={k: "x" for k in keys}, after=after)
        edit_entry(entries, change)
        changed.add(path)
        if not entries[path]:
            removed.add(path)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(paths())
        if path in entries:
            continue
        entries[path] = {k: draw(st.sampled_from(WANTED[k]))
                         for k in draw(st.lists(st.sampled_from(list(WANTED)), min_size=1, max_size=3, unique=True))}
    return entries, changed, removed


#: The line breaks a tag file is written with (LF and CRLF most often).
NEWLINES = ["\n", "\n", "\r\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"]
#: Every line break YAML counts (and `str.splitlines`, which `_lines` uses).
BREAKS = "\r\n\x85\u2028\u2029"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _check(gen: Generated, data) -> None:
    text = gen.text()
    note(f"text: {text!r}")
    parsed = tagfile.parse(Path("."), text.encode("utf-8"))
    entries, changed, removed = data.draw(edits(parsed))
    wanted = {k: v for k, v in entries.items() if v != {}}
    result = tagfile.render(entries, text)
    note(f"result: {result!r}")

    # 1. it reads back as asked
    assert tagfile.parse(Path("."), result.encode("utf-8")).all_entries() == wanted

    # 2. edited in place: the byte order mark kept, every line outside the changed entries kept, in order
    if not text.strip("\ufeff\r\n "):
        return  # an empty file is written anew, with tachikoma's header
    assert result.startswith("\ufeff") == gen.bom
    assert not result.removeprefix("\ufeff").startswith(tagfile.HEADER), "written whole"
    originals, results = _lines(text.removeprefix("\ufeff")), _lines(result.removeprefix("\ufeff"))
    touched = {i for i, path in enumerate(gen.paths) if path in changed}
    assert len(originals) == len(gen.lines)
    kept = [original for original, line in zip(originals, gen.lines)
            if line.entry not in touched and (wanted or line.text != "...")]  # no entry left: no document to end
    missing = missing_in_order([k.rstrip(BREAKS) for k in kept], [r.rstrip(BREAKS) for r in results])
    assert missing is None, f"line lost or moved: {missing!r}"
    # byte for byte, line breaks included (the last line, without one, may gain one when an entry goes after it)
    missing = missing_in_order([k for k in kept if k != k.rstrip(BREAKS)], results)
    assert missing is None, f"line changed: {missing!r}"

    # 3. every comment survives but those on lines that had to go
    removed_indexes = {i for i, path in enumerate(gen.paths) if path in removed}
    for line in gen.lines:
        if line.comment is None or line.entry in removed_indexes:
            continue
        if line.tag is not None and gen.paths[line.entry] in changed:
            entry = entries[gen.paths[line.entry]]
            spellings = [k for k in entry if str(k).strip().lower() == line.tag]
            if not spellings:
                continue  # the tag was removed with its line
            own = [g.item for g in gen.lines if g.entry == line.entry and g.tag == line.tag]
            if line.item != own[-1]:
                continue  # an earlier spelling of a tag given twice goes (tagging replaces both)
        assert line.comment in result, f"comment lost: {line.comment!r}"

    # 4. the same edit again changes nothing; the whole rewrite reads the same
    assert tagfile.render(entries, result) == result
    assert tagfile.parse(Path("."), tagfile.render(entries).encode("utf-8")).all_entries() == wanted


@FUZZ
@given(tag_files(), st.data())
def test_the_tag_file_is_edited_in_place_without_loss(gen, data):
    _check(gen, data)


ODD = ["\r", "\r\n", "\n", "\t", " ", "#", ": ", ":", ",", "'", '"', "-", "- ", "? ", "|", ">", "{", "}", "[", "]", "&",
       "*", "!", "!!str ", "%", "@", "`", "...", "---", "\ufeff", "\u2028", "\x85", "\x00", "\\", "~", "null", "日"]


@FUZZ
@given(tag_files(), st.data())
def test_a_tag_file_made_odd_is_edited_or_written_whole_never_wrongly(gen, data):
    """Random characters put anywhere: a file that still parses is edited (or written whole) to read exactly as
    asked, without any exception; the same edit again changes nothing."""
    text = gen.text()
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        text = text[:at] + data.draw(st.sampled_from(ODD)) + text[at:]
    note(f"text: {text!r}")
    try:
        parsed = tagfile.parse(Path("."), text.encode("utf-8"))
    except tagfile.TagFileError:
        return
    entries, _, _ = data.draw(edits(parsed))
    wanted = {k: v for k, v in entries.items() if v != {}}
    result = tagfile.render(entries, text)
    note(f"result: {result!r}")
    assert tagfile.parse(Path("."), result.encode("utf-8")).all_entries() == wanted
    assert tagfile.render(entries, result) == result
