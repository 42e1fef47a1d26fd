"""Session 46: the tag file's and the front matter's editors against inputs the property tests do not write.

Each test names what was lost (or how long it took) before its fix. The properties themselves are in
tests/test_tagfile_fuzz_s46.py and tests/test_frontmatter_fuzz_s46.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitrepo import git, tag
from tachikoma.reading import tagfile
from tachikoma.reading.frontmatter import split
from tachikoma.tagging import applying
from tachikoma.tagging.edit import edit_markdown
from tachikoma.tagging.model import Change


def entries_of(text: str) -> dict:
    return tagfile.parse(Path("."), text.encode("utf-8")).all_entries()


def edited(text: str, **changes) -> str:
    """`text` with each path's entry replaced by the given mapping (None: removed), as `render` writes it;
    checked to read back as asked."""
    entries = entries_of(text)
    for path, entry in changes.items():
        entries[path.replace("__", "/").replace("_", ".")] = {} if entry is None else entry
    result = tagfile.render(entries, text)
    assert entries_of(result) == {k: v for k, v in entries.items() if v != {}}
    return result


def tagged(text: str, before: dict, after: dict) -> str:
    return edit_markdown(text.encode("utf-8"), Change("n.md", "markdown", before, after)).decode("utf-8")


# --------------------------------------------------------------------------- the tag file


def test_a_tag_file_of_comments_under_a_document_start_keeps_them():
    """`---` and comments, no entry yet (a template): even with nothing to change, the file came back as
    tachikoma's header alone; the comments and the byte order mark were lost."""
    text = "\ufeff---\n# tags for my sessions, see the wiki\n"
    assert tagfile.render({}, text) == text
    assert tagfile.render({"a.jsonl": {"trust": "self"}}, text) == text + "a.jsonl:\n  trust: self\n"


def test_a_new_last_entry_goes_above_the_document_end_marker():
    """An entry sorted after all others was appended after `...`, a second document: the result did not parse,
    so the whole file was written anew and every comment was lost."""
    text = "# mine\na.jsonl:\n  trust: self  # checked\n...\n# notes after the document\n"
    assert edited(text, z_jsonl={"trust": "owner"}) == (
        "# mine\na.jsonl:\n  trust: self  # checked\nz.jsonl:\n  trust: owner\n...\n# notes after the document\n")


def test_a_new_entry_never_goes_inside_the_block_scalar_above_it():
    """A line of a block scalar that starts with `#` looked like a comment about the next entry: the new
    entry went above it, into the scalar, which the check caught, and the whole file was written anew."""
    text = ("# mine\na.jsonl:\n  note: |\n    text\n    # part of the note, not a comment\n"
            "# about c\nc.jsonl:\n  trust: self\n")
    assert edited(text, b_jsonl={"trust": "owner"}) == (
        "# mine\na.jsonl:\n  note: |\n    text\n    # part of the note, not a comment\n"
        "b.jsonl:\n  trust: owner\n# about c\nc.jsonl:\n  trust: self\n")


def test_an_entry_without_tags_is_removed_in_place():
    """`a.jsonl:` with nothing after it compared equal to "no entry", so removing it was not done in place:
    the check saw it still there, and the whole file was written anew."""
    text = "# mine\na.jsonl:\nb.jsonl:\n  trust: x  # kept\n"
    entries = entries_of(text)
    del entries["a.jsonl"]
    assert tagfile.render(entries, text) == "# mine\nb.jsonl:\n  trust: x  # kept\n"


@pytest.mark.parametrize("before, after", [
    ("  trust:   # asked Martin\n    self\n", "  trust:   # asked Martin\n    owner\n"),
    ("  source: one\n    two  # where from\n", "  source: web  # where from\n"),
    ('  source: "one\n    two"  # where from\n', "  source: web  # where from\n"),
    ("  Trust: self  # mine\n", "  trust: owner  # mine\n"),
])
def test_a_changed_tag_keeps_its_comments_when_its_value_spans_lines(before, after):
    """The value alone changes, whatever lines it spans: a comment between the key and a value on the next
    line, or after a value continued on the next, was lost with the lines."""
    key = "trust" if "rust" in before else "source"
    value = "owner" if key == "trust" else "web"
    text = "# mine\na.jsonl:\n" + before + "  confidence: low\n"
    assert edited(text, a_jsonl={key: value, "confidence": "low"}) == "# mine\na.jsonl:\n" + after + \
        "  confidence: low\n"


def test_a_flow_entry_over_several_lines_keeps_its_comments():
    """`{trust: self,  # mine` ... `}`: a flow mapping over several lines may hold comments; the entry was
    written anew on one line, without them."""
    text = "a.jsonl: {trust: self,  # asked Martin\n  confidence: low}  # after\nb.jsonl:\n  trust: x\n"
    result = edited(text, a_jsonl={"trust": "owner", "confidence": "low"})
    assert "# asked Martin" in result and "# after" in result and "b.jsonl:\n  trust: x\n" in result


@pytest.mark.parametrize("odd", ["\r", "\u2028", "\x85", "\u2029"])
def test_a_line_break_only_yaml_counts_is_edited_in_place(odd):
    """A tag file holding a line break other than LF and CRLF (a carriage return alone, U+0085, U+2028, U+2029:
    YAML breaks lines there) was written whole, its comments lost (a strict xfail until session 47): the
    editor's line arithmetic now sees the lines YAML sees."""
    text = f"# mine\na.jsonl:\n  trust: self  # checked\n  note: one{odd}    two\n# about b{odd}b.jsonl:\n  trust: x\n"
    note = entries_of(text)["a.jsonl"]["note"]
    assert note == ("one\u2028two" if odd == "\u2028" else "one\u2029two" if odd == "\u2029" else "one two")
    assert edited(text, a_jsonl={"trust": "owner", "note": note}) == text.replace("self  #", "owner  #")
    assert edited(text, b_jsonl=None) == text.replace("b.jsonl:\n  trust: x\n", "")  # its comment stays
    assert edited(text, a__c_jsonl={"trust": "owner"}) == text.replace(
        "# about b", "a/c.jsonl:\n  trust: owner\n# about b")
    assert edited(text, c_jsonl={"source": "web"}) == text + "c.jsonl:\n  source: web\n"


@pytest.mark.parametrize("newline", ["\r", "\u2028"])
def test_a_tag_file_of_lone_line_breaks_is_edited_with_its_own(newline):
    """Every line ended by a carriage return alone (classic Mac OS): a new entry's lines end so too."""
    text = newline.join(["# mine", "a.jsonl:", "  trust: self  # checked", ""])
    result = edited(text, b_jsonl={"trust": "owner"})
    assert result == text + ("b.jsonl:\r  trust: owner\r" if newline == "\r" else "b.jsonl:\n  trust: owner\n")


@pytest.mark.parametrize("header", ["|", ">", "|+", "|-", "|2"])
def test_a_block_scalar_ending_the_file_without_a_line_break(header):
    """A block scalar that ends the file without a line break gains one (its value changes) when anything is
    written after it, so a new entry sorted after it made the file be written whole, its comments lost (a strict
    xfail until session 47). The new entry goes above that last entry instead, out of order; a new tag of that
    entry goes above the block scalar's key. After `|-`, whose value has no final line break anyway, they go where
    they belong."""
    text = f"# mine\n\n# about a\na.jsonl:\n  trust: self  # checked\n  note: {header}\n    text"
    ending = f"a.jsonl:\n  trust: self\n  confidence: {header}\n    text"
    asked = {**entries_of(ending)["a.jsonl"], "source": "web"}
    if header == "|-":
        assert edited(text, b_jsonl={"trust": "owner"}) == text + "\nb.jsonl:\n  trust: owner\n"
        assert edited(ending, a_jsonl=asked) == ending + "\n  source: web"
        return
    assert edited(text, b_jsonl={"trust": "owner"}) == text.replace("# about a", "b.jsonl:\n  trust: owner\n# about a")
    assert edited(ending, a_jsonl=asked) == ending.replace("  confidence", "  source: web\n  confidence")


def test_hand_written_yaml_forms_are_edited_in_place():
    """Tags, quoted keys, yes/no/null/dates, comments holding `: ` and `#`, tabs: edited in place."""
    text = ("%YAML 1.1\n---\n# key: value # not an entry\n!!str 'a.jsonl':  # trust: owner\n"
            "  trust: !!str self\t# a: b # c\n  source: no\n  seen: 2026-01-02\n  note: null\n"
            "A.jsonl: {trust: self}\n")
    result = edited(text, a_jsonl={"trust": "yes", "source": "no", "seen": "2026-01-02", "note": None})
    assert result == text.replace("trust: !!str self\t", "trust: 'yes'\t")


# --------------------------------------------------------------------------- large files (times: bench/bench_tagfile_edit.py)


def test_a_tag_added_to_every_entry_of_a_large_file_is_edited_in_place():
    """Each entry given a new tag looked for "\\r\\n" in the whole file again (10,000 entries took 10 s; the
    time is bench/bench_tagfile_edit.py's): every comment stays."""
    paths = [f"2026-{i % 12 + 1:02d}/session-{i:05d}.jsonl" for i in range(2_000)]
    text = "# mine\n" + "".join(f"# about {p}\n{p}:\n  trust: self  # c{i}\n" for i, p in enumerate(paths))
    result = tagfile.render({p: {"trust": "self", "source": "web"} for p in paths}, text)
    assert not result.startswith(tagfile.HEADER) and result.count("# about ") == 2_000 and "  # c1999\n" in result


def test_new_entries_below_a_long_comment_are_placed_in_order():
    """Each new entry walked up the comment lines above the entry it precedes again (2,000 new entries under a
    header of 10,000 comment lines took 8 s; the time is bench/bench_tagfile_edit.py's)."""
    text = "# a comment line\n" * 2_000 + "b.jsonl:\n  trust: self\n"
    entries = {"b.jsonl": {"trust": "self"}, **{f"a{i:05d}.jsonl": {"trust": "self"} for i in range(500)}}
    result = tagfile.render(entries, text)
    assert result.startswith("# a comment line\n" * 2_000) and entries_of(result) == entries
    assert result.index("a00499.jsonl:") < result.index("b.jsonl:")


# --------------------------------------------------------------------------- front matter


def test_removing_a_tag_never_changes_another_value():
    """A line of a multi-line quoted title that read like a tag (`trust: b`) was removed with the real tag:
    the title silently lost it (and setting the tag was refused). Only lines where YAML sees a key count as
    keys now, and any other key that would read differently makes the edit refused, the note left as it was."""
    text = '---\ntitle: "a\ntrust: b\nc"\ntrust: owner\n---\nBody\n'
    assert tagged(text, {"trust": "owner"}, {}) == '---\ntitle: "a\ntrust: b\nc"\n---\nBody\n'
    assert tagged(text, {"trust": "owner"}, {"trust": "self"}) == text.replace("trust: owner", "trust: self")


def test_any_other_key_reading_differently_refuses_the_edit():
    """The check made on every front matter edit: the keys it was not asked to change read as before."""
    from tachikoma.reading.frontmatter import _check_result

    before = split("---\ntitle: a b\ntrust: owner\n---\nBody\n").meta
    with pytest.raises(ValueError, match="title would read differently"):
        _check_result("---\ntitle: a\ntrust: self\n---\nBody\n", "Body\n", {"trust"}, before)
    assert _check_result("---\ntitle: a b\ntrust: self\n---\nBody\n", "Body\n", {"trust"}, before)


@pytest.mark.parametrize("odd", ["\r", "\u2028", "\x85"])
def test_a_comment_survives_a_line_break_only_yaml_counts(odd):
    """A carriage return alone (or U+2028, U+0085) in a comment line made YAML's line numbers and tachikoma's
    disagree: the comment after the changed value was dropped."""
    text = f"---\n# one{odd}# two\ntrust: owner  # checked by Martin\n---\nBody\n"
    result = tagged(text, {"trust": "owner"}, {"trust": "self"})
    assert result == text.replace("trust: owner", "trust: self")


@pytest.mark.parametrize("before, after", [
    ("trust:   # asked Martin\n  owner\n", "trust:   # asked Martin\n  self\n"),
    ("source: one\n  two  # where from\n", "source: web  # where from\n"),
    ("source: 'one\n  two'  # where from\n", "source: web  # where from\n"),
    ("Trust: owner  # mine\n", "trust: self  # mine\n"),
])
def test_a_changed_front_matter_value_keeps_its_comments_when_it_spans_lines(before, after):
    key = "trust" if "rust" in before else "source"
    value = "self" if key == "trust" else "web"
    text = "---\ntitle: t\n" + before + "date: 2026-01-02\n---\nBody\n"
    result = tagged(text, {key: "x"}, {key: value})
    assert result == "---\ntitle: t\n" + after + "date: 2026-01-02\n---\nBody\n"


# --------------------------------------------------------------------------- through a real run, and its undo


ODD_TAGS = ("\ufeff# our tags, by hand\r\n"
            "2026-03-22/session-abc.jsonl: {trust: self,  # asked Martin\r\n"
            "  source: tachikoma}  # a flow entry over two lines\r\n"
            "\r\n"
            "# the design chat\r\n"
            "2026-05-10/design-chat.jsonl:\r\n"
            "  trust:   # checked\r\n"
            "    external\r\n"
            "  note: |\r\n"
            "    # a line of the note\r\n"
            "...\r\n"
            "# after the document\r\n")


def test_a_run_and_its_undo_edit_an_odd_tag_file_in_place(git_memory):
    """A byte order mark, CRLF, a flow entry over two lines with comments, a value below its key's comment, a
    block scalar holding a `#` line, a document end marker: a real run changes the tags of two entries and adds
    a third, all in place; the commit holds exactly that, and undo gives the file back byte for byte."""
    (git_memory / tagfile.TAG_FILE).write_bytes(ODD_TAGS.encode("utf-8"))
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "odd tags")
    applied = tag(git_memory, "2026-*/*.jsonl", "untrusted")
    assert applied.commit and applied.commit_error is None
    text = (git_memory / tagfile.TAG_FILE).read_bytes().decode("utf-8")
    assert text == ("\ufeff# our tags, by hand\r\n"
                    "2026-03-22/session-abc.jsonl: {trust: untrusted,  # asked Martin\r\n"
                    "  source: tachikoma}  # a flow entry over two lines\r\n"
                    "\r\n"
                    "2026-04-02/session-chat.jsonl:\r\n"
                    "  trust: untrusted\r\n"
                    "# the design chat\r\n"
                    "2026-05-10/design-chat.jsonl:\r\n"
                    "  trust:   # checked\r\n"
                    "    untrusted\r\n"
                    "  note: |\r\n"
                    "    # a line of the note\r\n"
                    "...\r\n"
                    "# after the document\r\n"), text
    committed = subprocess.run(["git", "show", f"HEAD:{tagfile.TAG_FILE}"], cwd=git_memory, capture_output=True,
                               check=True).stdout
    assert committed == text.encode("utf-8")
    undone = applying.undo(git_memory, applied)
    assert undone.commit and (git_memory / tagfile.TAG_FILE).read_bytes() == ODD_TAGS.encode("utf-8")
