"""Session 48: inputs a demanding user writes, against real files and real git repositories.

Front matter opened by ``--- # a comment`` whose comment holds a line break YAML counts and Python's lines do not
(U+2028, U+2029, U+0085).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitrepo import git, tachikoma_cli

#: The line breaks YAML (1.1, as PyYAML and libyaml read it) counts inside a line that a "\n" does not end.
BREAKS = {"\u2028": "U+2028", "\u2029": "U+2029", "\x85": "U+0085"}


def commit_note(root: Path, name: str, data: bytes) -> Path:
    note = root / name
    note.write_bytes(data)
    git(root, "add", name)
    git(root, "commit", "-q", "-m", name)
    return note


# --------------------------------------------------------------------------- 1. a comment YAML reads as a comment


@pytest.mark.parametrize("char", list(BREAKS))
@pytest.mark.parametrize("after", ["# the wiki has the rest", "", "  ", "\t# indented"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_comment_holding_a_yaml_line_break_before_another_comment_is_read(tmp_path, char, after, newline):
    """`--- # tags<U+2028># more`: every YAML reader sees comments there (YAML 1.1 breaks the line and the rest is a
    comment too; YAML 1.2 reads one comment), so the front matter is read; it was body text, its tags ignored."""
    from tachikoma.reading.frontmatter import read_front_matter, split

    text = (f"--- # tags, see the wiki{char}{after}{newline}trust: owner{newline}confidence: high{newline}---{newline}"
            f"# Printer{newline}floor 3{char}by the window{newline}")
    fm = split(text)
    assert fm.error is None and fm.meta == {"trust": "owner", "confidence": "high"}, fm
    assert fm.body == f"# Printer{newline}floor 3{char}by the window{newline}" and fm.body_line == 5
    note = tmp_path / "n.md"
    note.write_bytes(text.encode("utf-8"))
    read = read_front_matter(note)
    assert read.error is None and read.meta == {"trust": "owner", "confidence": "high"}


def test_such_a_note_is_counted_tagged_in_place_and_undone_byte_for_byte(git_memory):
    """Tagging it wrote a second front matter block above the first (its opening line taken for body text), and
    stats counted it untagged."""
    from tachikoma.tagging import applying
    from tachikoma.tagging.model import Change

    text = ("--- # tags, see the wiki\u2028# (pasted from the team page)\ntitle: Printer notes\n"
            "trust: owner  # I wrote it\nconfidence: high\n---\n# Printer\n\nfloor 3\u2028by the window\x85\n")
    note = commit_note(git_memory, "printer.md", text.encode("utf-8"))
    before = json.loads(tachikoma_cli(git_memory, "stats", "--json").stdout)
    assert not [p for p in before["problems"] if p["path"] == "printer.md"], before["problems"]
    done = tachikoma_cli(git_memory, "tag", "--path", "printer.md", "--trust", "external", "--source", "web",
                         "--overwrite", "--json")
    answer = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(c["path"], c["before"], c["after"]) for c in answer["changes"]] == [
        ("printer.md", {"trust": "owner"}, {"trust": "external", "source": "web"})], answer
    tagged = note.read_bytes().decode("utf-8")
    assert tagged == text.replace("trust: owner  #", "trust: external  #").replace(
        "confidence: high\n", "confidence: high\nsource: web\n")
    assert tagged.count("---") == 2 and git(git_memory, "status", "--porcelain") == ""
    undone = applying.undo(git_memory, [Change("printer.md", "markdown", {"trust": "owner"},
                                               {"trust": "external", "source": "web"})])
    assert not undone.skipped and note.read_bytes() == text.encode("utf-8")


# --------------------------------------------------------------------------- 2. a comment YAML would read as YAML


@pytest.mark.parametrize("char", list(BREAKS))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_comment_whose_rest_yaml_reads_as_a_value_is_reported_not_guessed(tmp_path, char, newline):
    """`--- # tags<U+2028>see the wiki`: YAML 1.1 (PyYAML, libyaml: tachikoma's) ends the line at U+2028 and reads
    "see the wiki" as YAML, YAML 1.2 reads it as part of the comment. Not read as front matter, and said, with the
    character and its line, as other unreadable front matter is."""
    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import read_front_matter, split

    text = (f"--- # tags for Martin{char}see the wiki{newline}trust: owner{newline}---{newline}# Printer{newline}")
    fm = split(text)
    assert fm.meta == {} and fm.error is not None, fm
    assert fm.error.startswith("malformed front matter at line 1: ") and BREAKS[char] in fm.error, fm.error
    assert "see the wiki" in fm.error and "comment" in fm.error
    assert fm.body == f"# Printer{newline}"
    note = tmp_path / "martin.md"
    note.write_bytes(text.encode("utf-8"))
    assert read_front_matter(note).error == fm.error
    document = reader.read_document(tmp_path, "martin.md", "markdown")
    assert document.tags.trust is None
    assert [w for w in document.warnings if BREAKS[char] in w and w.startswith("martin.md:1: malformed front")], \
        document.warnings


def test_such_a_note_is_skipped_by_every_face_with_the_reason_and_never_rewritten(git_memory):
    from tachikoma.tagging import model, planning

    data = "--- # tags\u2028trust: self\nconfidence: high\n---\n# Anna\n\nBody\u2028line.\n".encode("utf-8")
    note = commit_note(git_memory, "anna.md", data)
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern="anna.md"), overwrite=True)
    assert planned.changes == [] and "U+2028" in dict(planned.skipped)["anna.md"], planned.skipped
    done = tachikoma_cli(git_memory, "tag", "--path", "anna.md", "--path", "martin.md", "--trust", "external",
                         "--overwrite", "--json")
    answer = json.loads(done.stdout)
    assert done.returncode == 1 and [c["path"] for c in answer["changes"]] == ["martin.md"], answer
    assert "U+2028" in {s["path"]: s["reason"] for s in answer["skipped"]}["anna.md"]
    assert note.read_bytes() == data and git(git_memory, "status", "--porcelain") == ""
    stats = json.loads(tachikoma_cli(git_memory, "stats", "--json").stdout)
    problems = {p["path"]: p for p in stats["problems"]}
    assert "U+2028" in problems["anna.md"]["reason"] and problems["anna.md"]["kind"] == "front-matter", problems
