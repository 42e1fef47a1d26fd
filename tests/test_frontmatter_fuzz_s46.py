"""Session 46: the front matter editor tagging uses (`tagging.edit.edit_markdown`: `frontmatter.remove_keys`
and `set_keys` on the note's head, the body copied), fuzzed.

Hypothesis writes notes as people write them: a byte order mark or not, LF or CRLF, a front matter block (or
none) with titles, dates, lists, block scalars, nested mappings, the tags with comments after their values,
comment lines and blank lines, and a body holding anything (``---`` lines, ``trust:`` lines, carriage returns,
unicode, no final newline); then sets, changes and removes tags as a run and its undo do. Each generated block
records which line is which key's, so the properties can say exactly what must survive:

- the body after the front matter is byte for byte the same;
- the result's front matter reads the tags asked for, and every other key as it was;
- every line of the block outside the keys that change is in the result, unchanged and in order;
- every comment survives but those on a removed tag's line, and a changed value keeps the comment after it;
- the same change made again changes nothing, and undoing it gives back what it read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tachikoma.reading.frontmatter import read_head, split, yaml_scalar
from tachikoma.tagging.edit import edit_markdown
from tachikoma.tagging.model import Change, current_values
from tachikoma.reading.tags import WRITABLE_KEYS
from in_order import missing_in_order

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

VALUES = {"trust": ["owner", "self", "external", "untrusted", "Owner", "maybe"],
          "confidence": ["high", "medium", "low", "speculative"],
          "source": ["web", "a: colon", "hash # inside", "yes", "no", "null", "2026-03-22", "1.0", "Ünï 日本 🙂",
                     "it's", 'say "hi"', "- dash", "[x]", "{y}", "*star", "&amp", "!bang", "%pc", "@at", "true"],
          "evergreen": ["true", "false"]}
WANTED = {"trust": ["owner", "self", "external", "untrusted"], "confidence": ["high", "medium", "low", "speculative"],
          "source": ["web", "a: b # c", "yes", "2026-03-22", "1.0", "日本 🙂", "it's \"x\"", "null", "x" * 300],
          "evergreen": ["true", "false"]}
BODY_LINES = ["# Title", "", "Some text.", "---", "...", "trust: body", "  indented", "- item", "日本語 🙂",
              "tab\there", "carriage\rreturn", "# heading with: colon", "```yaml", "trust: fenced", "```",
              "\u2028 line separator", "trailing spaces   "]


@dataclass
class Line:
    text: str
    #: The top-level key (lower-case) whose span this line is in, or None.
    key: str | None = None
    #: Whether this is the key's own line.
    first: bool = False
    #: The comment on this line ("# c7 ..."), or None.
    comment: str | None = None


@dataclass
class Note:
    lines: list[Line] = field(default_factory=list)
    block: bool = True
    crlf: bool = False
    bom: bool = False
    closing: str = "---"
    body: str = ""

    def text(self) -> str:
        newline = "\r\n" if self.crlf else "\n"
        head = ""
        if self.block:
            head = "---" + newline + "".join(line.text + newline for line in self.lines) + self.closing + newline
        return ("\ufeff" if self.bom else "") + head + self.body

    def data(self) -> bytes:
        return self.text().encode("utf-8")


def _written(draw, value: str) -> str:
    style = draw(st.sampled_from(["tachikoma", "tachikoma", "double", "single"]))
    if style == "double":
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    return yaml_scalar(value)


@st.composite
def notes(draw) -> Note:
    note = Note(block=draw(st.integers(0, 5)) > 0, crlf=draw(st.booleans()), bom=draw(st.integers(0, 4)) == 0,
                closing=draw(st.sampled_from(["---", "---", "---  ", "..."])))
    count = 0

    def comment() -> str:
        nonlocal count
        count += 1
        return f"# c{count}" + draw(st.sampled_from(["", " checked by Martin", " a: b", " #2", " 日本"]))

    keys = draw(st.lists(st.sampled_from(["title", "date", "tags", "notes", "meta", "trust", "confidence", "source",
                                          "evergreen", "aliases", "Trust", "Source"]),
                         max_size=7, unique_by=str.lower))
    for key in keys:
        name = key.lower()
        for _ in range(draw(st.integers(0, 3)) // 2):
            text = comment()
            note.lines.append(Line(text, comment=text))
        if draw(st.integers(0, 5)) == 0:
            note.lines.append(Line(""))
        form = draw(st.sampled_from(["line"] * 5 + ["below", "continued", "quoted over lines"]))
        if name in VALUES and form == "below":  # the value on the next line, under a comment after the key
            line = Line(f"{key}:", key=name, first=True)
            if draw(st.booleans()):
                line.comment = comment()
                line.text += "   " + line.comment
            value = "true" if name == "evergreen" else _written(draw, draw(st.sampled_from(VALUES[name])))
            note.lines += [line, Line(f"  {value}", key=name)]
        elif name in ("source", "title") and form != "line":  # a value continued on the next line
            first, second = draw(st.sampled_from([("one", "two"), ("a:b", "c"), ("x", "- y")]))
            if form == "quoted over lines":
                first, second = f'"{first}', f'{second}"'
            last = Line(f"  {second}", key=name)
            if draw(st.booleans()):
                last.comment = comment()
                last.text += "  " + last.comment
            note.lines += [Line(f"{key}: {first}", key=name, first=True), last]
        elif name in VALUES:
            line = Line(f"{key}: {_written(draw, draw(st.sampled_from(VALUES[name])))}", key=name, first=True)
            if name == "evergreen":
                line.text = f"{key}: {draw(st.sampled_from(['true', 'false', 'True', 'yes']))}"
            if draw(st.booleans()):
                line.comment = comment()
                line.text += draw(st.sampled_from(["  ", " ", "\t"])) + line.comment
            note.lines.append(line)
        elif name == "title":
            note.lines.append(Line(f"title: {_written(draw, draw(st.sampled_from(VALUES['source'])))}", key=name,
                                   first=True))
        elif name == "date":
            note.lines.append(Line(f"date: {draw(st.sampled_from(['2026-03-22', '2026-02-30', '2026-03-22T10:00']))}",
                                   key=name, first=True))
        elif name == "tags":
            if draw(st.booleans()):
                note.lines.append(Line("tags: [a, b]", key=name, first=True))
            else:
                indent = draw(st.sampled_from(["", "  "]))
                note.lines += [Line("tags:", key=name, first=True), Line(f"{indent}- a", key=name),
                               Line(f"{indent}- trust: inner", key=name)]
        elif name == "notes":
            note.lines += [Line(f"notes: {draw(st.sampled_from(['|', '>', '|-', '|+']))}", key=name, first=True),
                           Line("  trust: not a key", key=name), Line("  # not a comment", key=name),
                           Line("  ---", key=name)]
        elif name == "meta":
            note.lines += [Line("meta:", key=name, first=True), Line("  trust: inner", key=name),
                           Line("  source: inner", key=name)]
        else:
            note.lines.append(Line("aliases: []", key=name, first=True))
    if draw(st.integers(0, 3)) == 0:
        text = comment()
        note.lines.append(Line(text, comment=text))
    if not note.block:
        note.lines = []
    body = draw(st.lists(st.sampled_from(BODY_LINES), max_size=6))
    newline = "\r\n" if note.crlf else "\n"
    note.body = newline.join(body) + (newline if body and draw(st.booleans()) else "")
    if not note.block and note.body.startswith("---"):
        note.body = "x" + note.body  # a body that opens with a fence would be a block
    if not note.block and "\r" in note.body.replace("\r\n", "") and "\n" not in note.body[:200]:
        note.body = note.body.replace("\r", "")  # a note with CR-only line endings is refused, not tagged
    return note


@st.composite
def changes(draw, note: Note) -> Change:
    meta = current_values(split(note.text().removeprefix("\ufeff")).meta)
    keys = draw(st.lists(st.sampled_from(WRITABLE_KEYS), min_size=1, max_size=4, unique=True))
    before = {k: meta[k] for k in keys if k in meta}
    after = {k: draw(st.sampled_from(WANTED[k])) for k in keys if draw(st.integers(0, 3)) > 0 or k not in before}
    return Change("note.md", "markdown", before, after, created_block=not note.block)


def _body(data: bytes) -> str:
    return split(data.decode("utf-8").removeprefix("\ufeff")).body


def _meta(data: bytes) -> dict:
    return {str(k).lower(): v for k, v in split(data.decode("utf-8").removeprefix("\ufeff")).meta.items()}


def _check(note: Note, change: Change) -> None:
    data = note.data()
    result = edit_markdown(data, change)

    # 1. the body, byte for byte
    head, new_head = read_head(_io(data)), read_head(_io(result))
    assert result[len(new_head):] == data[len(head):]
    assert _body(result) == _body(data)
    assert result.startswith(b"\xef\xbb\xbf") == note.bom

    # 2. the tags asked for, every other key as it was
    before, after = _meta(data), _meta(result)
    for key in change.keys:
        if key in change.after:
            expected = change.after[key] == "true" if key == "evergreen" else change.after[key]
            assert after.get(key) == expected and type(after.get(key)) is type(expected), (key, after.get(key))
        else:
            assert key not in after
    assert {k: v for k, v in after.items() if k not in change.keys} == \
        {k: v for k, v in before.items() if k not in change.keys}

    # 3. every line outside the keys that change, byte for byte and in order; the comments
    if note.block:
        newline = "\r\n" if note.crlf else "\n"
        result_lines = result.decode("utf-8").removeprefix("\ufeff").split(newline)
        kept = [line.text for line in note.lines if line.key not in change.keys]
        assert missing_in_order(kept, result_lines) is None, f"line lost: {missing_in_order(kept, result_lines)!r}"
        text = result.decode("utf-8")
        for line in note.lines:
            if line.comment and not (line.key in change.keys and line.key not in change.after):
                assert line.comment in text, f"comment lost: {line.comment!r}"

    # 4. idempotent; undone, it reads as before (byte for byte for tags it added)
    assert edit_markdown(result, change) == result
    undone = edit_markdown(result, change.inverse())
    assert current_values(_meta(undone)) == current_values(before)
    assert {k: v for k, v in _meta(undone).items() if k not in WRITABLE_KEYS} == \
        {k: v for k, v in before.items() if k not in WRITABLE_KEYS}
    assert _body(undone) == _body(data)
    if not change.before:
        assert undone == data


def _io(data: bytes):
    import io

    return io.BytesIO(data)


@FUZZ
@given(st.data())
def test_a_note_is_tagged_without_loss(data):
    note = data.draw(notes())
    change = data.draw(changes(note))
    _check(note, change)


@pytest.mark.parametrize("text", ["---\ntrust: owner\nTrust: self\n---\nBody\n",
                                  "---\n{trust: owner}\n---\nBody\n",
                                  "---\n  trust: owner\n---\nBody\n",
                                  "---\ntrust: [unclosed\n---\nBody\n"])
def test_front_matter_it_cannot_edit_is_refused_and_left_alone(text):
    with pytest.raises(ValueError):
        edit_markdown(text.encode(), Change("n.md", "markdown", {"trust": "owner"}, {"trust": "external"}))


ODD = ["\r", "\r\n", "\n", "\t", " ", "#", ": ", ":", ",", "'", '"', "-", "- ", "? ", "|", ">", "{", "}", "[", "]", "&",
       "*", "!", "!!str ", "%", "@", "`", "...", "---", "\ufeff", "\u2028", "\x85", "\\", "~", "null", "日", "trust: ",
       "\ntrust: x", "\n  "]


@FUZZ
@given(st.data())
def test_a_note_made_odd_is_tagged_right_or_refused(data):
    """Random characters put anywhere in a note's head: the edit is refused with a ValueError, or its result keeps
    the body byte for byte, reads the tags asked for and every other key as it was; never another exception."""
    note_ = data.draw(notes())
    text = note_.text()
    head = len(read_head(_io(text.encode("utf-8"))).decode("utf-8"))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, head))
        text = text[:at] + data.draw(st.sampled_from(ODD)) + text[at:]
        head += 1
    change = data.draw(changes(note_))
    raw = text.encode("utf-8")
    try:
        result = edit_markdown(raw, change)
    except ValueError:
        return
    old, new = read_head(_io(raw)), read_head(_io(result))
    assert result[len(new):] == raw[len(old):]
    before, after = _meta(raw), _meta(result)
    for key in change.keys:
        if key in change.after:
            expected = change.after[key] == "true" if key == "evergreen" else change.after[key]
            assert after.get(key) == expected
        else:
            assert key not in after
    assert {k: v for k, v in after.items() if k not in change.keys} == \
        {k: v for k, v in before.items() if k not in change.keys}
    assert edit_markdown(result, change) == result
