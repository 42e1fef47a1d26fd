"""Which files belong to the memory, and which paths inside it may be opened."""

import os
import sys

import pytest

from tachikoma import memory as mem
from tachikoma.errors import TachikomaError


def walk(root):
    warnings = []
    return [f.path for f in mem.walk(root, warnings.append)], warnings


def test_symlink_loop_is_skipped_with_a_warning(tmp_path):
    (tmp_path / "ok.md").write_text("# ok\n")
    (tmp_path / "l1.md").symlink_to("l2.md")
    (tmp_path / "l2.md").symlink_to("l1.md")
    paths, warnings = walk(tmp_path)
    assert paths == ["ok.md"]
    assert any(w.startswith("l1.md: symlink loop") for w in warnings), warnings
    with pytest.raises(mem.PathOutsideMemory, match="symlink loop"):
        mem.safe_path(tmp_path, "l1.md")


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_name_that_is_not_utf8_is_skipped_and_shown_readably(tmp_path):
    (tmp_path / "ok.md").write_text("# ok\n")
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"d\xe9j\xe0"))
    open(os.path.join(os.fsencode(tmp_path), b"d\xe9j\xe0", b"inner.md"), "w").close()
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.md"), "w") as handle:
        handle.write("# x\n")
    paths, warnings = walk(tmp_path)
    assert paths == ["ok.md"]
    assert "caf\\xe9.md: file name is not valid UTF-8, skipped (rename it to index it)" in warnings
    assert any(w.startswith("d\\xe9j\\xe0: folder name is not valid UTF-8") for w in warnings), warnings
    for w in warnings:
        w.encode("utf-8")  # printable anywhere


def test_symlink_into_a_hidden_folder_is_refused(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[remote]\nurl = https://u:TOKEN@example.com/x.git\n")
    (tmp_path / "cfg.md").symlink_to(".git/config")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up.md").symlink_to("../.git/config")
    (tmp_path / "note.md").write_text("# note\n")
    (tmp_path / "alias.md").symlink_to("note.md")  # inside and visible: fine, and note.md is listed once
    paths, warnings = walk(tmp_path)
    assert paths == ["note.md"]
    assert "cfg.md: symlink points into a hidden folder or file, skipped" in warnings
    assert "sub/up.md: symlink points into a hidden folder or file, skipped" in warnings
    for rel in ("cfg.md", "sub/up.md"):
        with pytest.raises(mem.PathOutsideMemory, match="hidden"):
            mem.safe_path(tmp_path, rel)
    assert mem.safe_path(tmp_path, "alias.md") == tmp_path / "alias.md"


def test_symlinked_folder_into_a_hidden_folder_is_refused(tmp_path):
    (tmp_path / ".private").mkdir()
    (tmp_path / ".private" / "secret.md").write_text("# secret\n")
    (tmp_path / "open").symlink_to(".private")
    paths, warnings = walk(tmp_path)
    assert paths == [] and warnings == [f".private: 1 memory file, hidden, not read ({mem.HIDDEN_READ})",
                                        "open: symlink points into a hidden folder or file, skipped"]
    with pytest.raises(mem.PathOutsideMemory, match="hidden"):
        mem.safe_path(tmp_path, "open/secret.md")


@pytest.mark.skipif(os.sep == "\\", reason="on Windows a backslash separates folders")
def test_backslash_is_an_ordinary_character_on_posix(tmp_path):
    (tmp_path / "a\\b.jsonl").write_text('{"role":"user","content":"x"}\n')
    paths, _ = walk(tmp_path)
    assert paths == ["a\\b.jsonl"]
    assert mem.safe_path(tmp_path, "a\\b.jsonl").read_text().startswith("{")
    for bad in ("x\\..\\..\\y.md", "..\\etc\\passwd", "../x.md", "/etc/passwd", ".git/config", "a/.hidden.md",
                "a\x00.md", ""):
        if bad.startswith("x\\"):  # one odd file name inside the root: allowed (it does not exist)
            assert mem.safe_path(tmp_path, bad) == tmp_path / bad
            continue
        with pytest.raises(mem.PathOutsideMemory):
            mem.safe_path(tmp_path, bad)


def test_printable_escapes_control_characters_and_undecodable_bytes():
    assert mem.printable("café/notes.md") == "café/notes.md"
    assert mem.printable("new\nline.md") == "new\\nline.md"
    assert mem.printable("\x1b[31mred.md") == "\\x1b[31mred.md"
    assert mem.printable("evil\u202egnp.md") == "evil\\u202egnp.md"
    assert mem.printable(os.fsdecode(b"caf\xe9.md")) == "caf\\xe9.md"


def test_cache_that_is_a_file_is_a_one_line_error(tmp_path):
    (tmp_path / ".cache").write_text("not a folder")
    with pytest.raises(TachikomaError, match=r"\.cache is a file, not a folder"):
        mem.cache_dir(tmp_path)
    assert (tmp_path / ".cache").read_text() == "not a folder"


def test_an_in_memory_symlink_is_listed_only_when_its_file_is_not(tmp_path):
    (tmp_path / "real.md").write_text("# real\n")
    (tmp_path / "alias.md").symlink_to("real.md")
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "again.md").symlink_to("../alias.md")  # a chain ends at real.md too
    (tmp_path / "plain.txt").write_text("# kept as a note only through its links\n")
    (tmp_path / "b-link.md").symlink_to("plain.txt")
    (tmp_path / "a-link.md").symlink_to("plain.txt")
    (tmp_path / "log.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    (tmp_path / "log-link.jsonl").symlink_to("log.jsonl")
    paths, warnings = walk(tmp_path)
    assert paths == ["a-link.md", "log.jsonl", "real.md"] and warnings == []


def test_a_line_range_past_the_end_names_the_length_in_words(tmp_path):
    from tachikoma.errors import TachikomaError
    from tachikoma.memory import read_text

    (tmp_path / "one.md").write_text("only line\n")
    (tmp_path / "three.md").write_text("a\nb\nc\n")
    with pytest.raises(TachikomaError, match=r"which has 1 line$"):
        read_text(tmp_path, "one.md", "5-9")
    with pytest.raises(TachikomaError, match=r"which has 3 lines$"):
        read_text(tmp_path, "three.md", "900-950")


def test_kind_of_reads_the_suffix_as_pathlib_does():
    from pathlib import PurePosixPath

    from tachikoma.reading.documents import SUFFIX_KIND

    for name in ["a.md", "A.MD", "x/y.jsonl", "dir.md/file", "a.", "..md", "a.tar.md", "noext", "d/.md",
                 "note.markdown", "a.md.bak", "x/a.jsonl/", "x/a.md/.", "x/a.md//"]:
        assert mem.kind_of(name) == SUFFIX_KIND.get(PurePosixPath(name).suffix.lower()), name  # no reset archives here


def test_walk_lists_what_it_stats_without_building_paths(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "n.md").write_text("x")
    (tmp_path / "t.jsonl").write_text("{}\n")
    (tmp_path / "link.md").symlink_to(tmp_path / "sub" / "n.md")
    found = {f.path: f for f in mem.walk(tmp_path)}
    assert sorted(found) == ["sub/n.md", "t.jsonl"], "a symlink to a listed file is that file"
    item = found["sub/n.md"]
    assert item.abspath == (tmp_path / "sub" / "n.md").resolve() and item.size == 1
    assert item.mtime_ns == (tmp_path / "sub" / "n.md").stat().st_mtime_ns


#: Claude Code's memory in a project: read, though under a hidden folder.
CLAUDE_MEMORY = ["CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", ".claude/rules/testing.md",
                 ".claude/rules/api/style.md", "app/.claude/CLAUDE.md"]
#: Memory files in hidden places that are not read: each said (a folder once, with how many it holds).
HIDDEN_MEMORY = {".claude/commands/review.md", ".claude/agents/critic.md", ".claude/notes.md",
                 ".claude/rules/.draft.md", ".trash/old.md", ".trash/2026/older.jsonl", "notes/.draft.md"}
#: Hidden, and never said: not memory files, git's and caches' folders, an editor's lock file.
NEVER_SAID = {".claude/settings.json", ".claude/settings.local.json", ".obsidian/workspace.json",
              ".git/description.md", ".cache/x.md", "notes/.#lock.md", "notes/._note.md"}


def make_files(root, paths):
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# a note\n\nsome text\n")


def test_claude_codes_memory_is_read_and_every_other_hidden_memory_file_is_said(tmp_path):
    """Regression: `.claude/CLAUDE.md` (Claude Code's project memory) and `.claude/rules/` were skipped silently,
    as every hidden file and folder was: nothing said a memory file was left out."""
    make_files(tmp_path, CLAUDE_MEMORY + sorted(HIDDEN_MEMORY | NEVER_SAID))
    paths, warnings = walk(tmp_path)
    assert paths == sorted(CLAUDE_MEMORY)
    said = f"hidden, not read ({mem.HIDDEN_READ})"
    assert sorted(warnings) == [f".claude/agents: 1 memory file, {said}", f".claude/commands: 1 memory file, {said}",
                                f".claude/notes.md: {said}", f".claude/rules/.draft.md: {said}",
                                f".trash: 2 memory files, {said}", f"notes/.draft.md: {said}"]
    for rel in CLAUDE_MEMORY:
        assert mem.safe_path(tmp_path, rel) == tmp_path / rel
    for rel in HIDDEN_MEMORY | NEVER_SAID | {".git/config"}:
        with pytest.raises(mem.PathOutsideMemory):
            mem.safe_path(tmp_path, rel)
    (tmp_path / "rules.md").symlink_to(".claude/rules/testing.md")  # a symlink into them is no way out
    (tmp_path / "git.md").symlink_to(".git/description.md")
    paths, warnings = walk(tmp_path)
    assert "rules.md" not in paths and ".claude/rules/testing.md" in paths  # the file itself, listed once
    assert "git.md: symlink points into a hidden folder or file, skipped" in warnings


def test_a_symlinked_hidden_folder_is_not_looked_into(tmp_path):
    outside = tmp_path / "outside"
    make_files(outside, ["a.md"])
    root = tmp_path / "memory"
    make_files(root, ["note.md"])
    (root / ".elsewhere").symlink_to(outside)
    assert walk(root) == (["note.md"], [])  # nothing outside the memory is listed, not even to count it
