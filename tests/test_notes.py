"""`notes.remember`: a new note, written atomically, never over another file, committed alone."""

import os
from datetime import datetime, timezone

import pytest

from gitrepo import git
from tachikoma import notes
from tachikoma.reading.frontmatter import split
from tachikoma.memory import read_text
from tachikoma.errors import TachikomaError

WHEN = datetime(2026, 11, 30, 9, 15, tzinfo=timezone.utc)


def test_note_has_front_matter_and_the_body_byte_for_byte(tmp_path):
    body = "Line one\r\nline *two*: ü\n\n```\ncode: [1, 2]\n```"  # CRLF, unicode, YAML-looking text, no final \n
    written = notes.remember(tmp_path, body, "Title: with colon\nand # hash", None,
                             {"trust": "Owner", "confidence": None, "source": "a: b"}, now=WHEN)
    data = (tmp_path / written.path).read_bytes().decode()
    assert written.path == "title-with-colon-and-hash.md" and written.commit is None
    fm = split(data)
    assert fm.meta == {"title": "Title: with colon and # hash", "date": "2026-11-30T09:15:00+00:00",
                       "trust": "owner", "source": "a: b"}
    assert data.endswith("---\n\n# Title: with colon and # hash\n\n" + body + "\n")  # the title as a heading
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_the_title_is_the_notes_heading_unless_the_text_has_one(tmp_path):
    """A note reads like a person's: `# title` first (it was only in front matter). Text that starts
    with its own heading keeps it alone, and without a title that heading is the title."""
    titled = notes.remember(tmp_path, "Anna prefers tea.", "Anna's drinks", now=WHEN)
    assert split((tmp_path / titled.path).read_text()).body == "\n# Anna's drinks\n\nAnna prefers tea.\n"
    untitled = notes.remember(tmp_path, "The deploy key lives in the vault", now=WHEN)
    assert split((tmp_path / untitled.path).read_text()).body.startswith(
        "\n# The deploy key lives in the vault\n\nThe deploy key")
    own = notes.remember(tmp_path, "## Deploy keys\nThey live in the vault.", now=WHEN)
    assert own.path == "deploy-keys.md"
    data = (tmp_path / own.path).read_text()
    assert split(data).meta["title"] == "Deploy keys"
    assert data.endswith("---\n\n## Deploy keys\nThey live in the vault.\n")


def test_never_overwrites_and_numbers_the_next_note(tmp_path):
    (tmp_path / "ideas.md").write_text("mine")
    first = notes.remember(tmp_path, "one", "Ideas", now=WHEN)
    second = notes.remember(tmp_path, "two", "Ideas", now=WHEN)
    assert (first.path, second.path) == ("ideas-2.md", "ideas-3.md")
    assert (tmp_path / "ideas.md").read_text() == "mine"
    untitled = notes.remember(tmp_path, "  The deploy key lives in the vault  ", now=WHEN)
    assert untitled.path == "the-deploy-key-lives-in-the-vault.md"


def test_folder_is_made_inside_the_memory_only(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    assert notes.remember(root, "x", "a", "notes/2026/", now=WHEN).path == "notes/2026/a.md"
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", root / "link")
    for folder in ("../escape", "/etc", ".git", "notes/../../x", "link", "link/deeper"):
        with pytest.raises(notes.NoteError):
            notes.remember(root, "x", "a", folder, now=WHEN)
    assert not (tmp_path / "escape").exists() and not list((tmp_path / "outside").iterdir())
    (root / "file.md").write_text("x")
    with pytest.raises(notes.NoteError, match="is a file"):
        notes.remember(root, "x", "a", "file.md", now=WHEN)


def test_a_folder_that_cannot_be_made_is_a_note_error(tmp_path):
    """A folder under a file, or a dangling symlink inside the memory, cannot be made: a NoteError
    that says so (an agent got "Error executing tool remember" and nothing else), nothing written."""
    (tmp_path / "file.md").write_text("x")
    os.symlink("gone", tmp_path / "dangling")
    for folder, words in (("file.md/sub", "file.md/sub"), ("dangling", "dangling")):
        with pytest.raises(notes.NoteError, match=words):
            notes.remember(tmp_path, "x", "a", folder, now=WHEN)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "file.md"]


def test_refuses_empty_text_bad_values_and_huge_notes(tmp_path):
    for text in ("", "   \n", "a\x00b"):
        with pytest.raises(notes.NoteError):
            notes.remember(tmp_path, text)
    with pytest.raises(notes.NoteError, match="trust"):
        notes.remember(tmp_path, "x", values={"trust": "maybe"})
    with pytest.raises(notes.NoteError, match="larger"):
        notes.remember(tmp_path, "x" * (notes.MAX_NOTE_BYTES + 1))
    with pytest.raises(notes.NoteError, match="title"):
        notes.remember(tmp_path, "x", "t" * 201)
    assert list(tmp_path.iterdir()) == []


def test_commits_only_the_new_note(git_memory):
    (git_memory / "martin.md").write_text("an uncommitted edit\n")
    written = notes.remember(git_memory, "Remember this.", "R", now=WHEN)
    assert written.commit and written.commit_error is None
    assert git(git_memory, "show", "--name-only", "--format=", written.commit).split() == ["r.md"]
    assert git(git_memory, "status", "--porcelain").split() == ["M", "martin.md"]


def test_notes_remembered_at_once_are_each_committed(git_memory):
    """An agent's parallel `remember` calls (and a tagging run beside them): every note is committed, none is
    left untracked with "HEAD moved while committing" (they commit one at a time, under the tag writers' lock)."""
    from concurrent.futures import ThreadPoolExecutor

    from tachikoma.tagging import applying, model, planning

    def tag_martin():
        plan = planning.plan(git_memory, {"confidence": "low"}, model.Selector(paths=["martin.md"]), overwrite=True)
        return applying.apply(git_memory, plan).commit_error

    with ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(notes.remember, git_memory, f"Otter count {i}.", "otters", now=WHEN) for i in range(5)]
        tagged = pool.submit(tag_martin)
        written = [f.result() for f in futures]
    assert [w.commit_error for w in written] == [None] * 5 and all(w.commit for w in written)
    assert tagged.result() is None
    assert git(git_memory, "status", "--porcelain") == ""


def test_read_text_ranges_and_refusals(memory):
    lines = (memory / "martin.md").read_text().splitlines()
    assert read_text(memory, "martin.md")["text"].splitlines() == lines
    part = read_text(memory, "martin.md", "2-3")
    assert part["lines"] == [2, 3] and part["text"].splitlines() == lines[1:3]
    assert read_text(memory, "martin.md", f"2-{len(lines) + 50}")["lines"] == [2, len(lines)]
    for path, lines_wanted in (("../x.md", None), ("tachikoma-tags.yaml", None), ("martin.md", "0-2"),
                               ("martin.md", "5-2"), ("martin.md", f"{len(lines) + 1}"), ("nowhere.md", None)):
        with pytest.raises(TachikomaError):
            read_text(memory, path, lines_wanted)
    with pytest.raises(TachikomaError, match="bytes"):
        read_text(memory, "martin.md", max_bytes=10)
