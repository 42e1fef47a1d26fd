"""Session 47: inputs a demanding user writes, against real files, real git repositories and real processes.

`{}` and other lines of a chat transcript that hold no turn, front matter opened by ``--- # a comment``, the
``[git]`` settings of a file given with ``--config``, notes and tag files made read-only (chmod 444), and a tag
file with a line break other than LF or CRLF, or ending in a block scalar without a final line break.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from gitrepo import git, hook, tachikoma_cli
from mcp_helpers import run_tools

#: A pre-commit hook slower than the time limit the tests set (1 s), quick enough that a test which waits for
#: it (the limit not honoured) fails in seconds, not after the default 300 s.
SLOW_HOOK = "sleep 6\n"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the memory but git's own and the cache, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink() and not {".git", ".cache"} & set(p.relative_to(root).parts)}


# --------------------------------------------------------------------------- 3. [git] settings from --config


def test_the_hook_time_limit_of_a_config_file_given_with_the_option_counts(git_memory, tmp_path):
    """`--config FILE` set every other setting, but `[git] hook_timeout` was read from the memory's own
    tachikoma.toml only: a team's settings kept outside the memory waited 300 s for a hung hook."""
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", SLOW_HOOK)
    head = git(git_memory, "rev-parse", "HEAD")
    started = time.monotonic()
    done = tachikoma_cli(git_memory, "--config", str(settings), "tag", "--path", "martin.md", "--trust", "external",
                         "--overwrite", "--json")
    assert time.monotonic() - started < 5.5, "the hook was waited for: the setting was not read"
    answer = json.loads(done.stdout)
    assert done.returncode == 1 and answer["commit"] is None, done.stdout
    assert "did not finish within 1 s ([git] hook_timeout)" in answer["commit_error"], answer["commit_error"]
    assert git(git_memory, "rev-parse", "HEAD") == head


def test_a_bad_hook_time_limit_in_the_config_file_stops_the_run_before_it_writes(git_memory, tmp_path):
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 0\n")
    before = snapshot(git_memory)
    done = tachikoma_cli(git_memory, "--config", str(settings), "tag", "--path", "martin.md", "--trust",
                         "external", "--overwrite")
    assert done.returncode == 1 and "git.hook_timeout must be a number of seconds > 0" in done.stderr, done.stderr
    assert str(settings) in done.stderr
    assert snapshot(git_memory) == before


def test_remember_keeps_to_the_hook_time_limit_of_the_config_file(git_memory, tmp_path):
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", SLOW_HOOK)
    done = tachikoma_cli(git_memory, "--config", str(settings), "remember", "the printer is on floor 3",
                         "--title", "Printer")
    assert "did not finish within 1 s ([git] hook_timeout)" in done.stdout + done.stderr


def test_mcp_tag_and_remember_keep_to_the_hook_time_limit_of_the_server_config_file(git_memory, tmp_path):
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", SLOW_HOOK)
    (tag_error, _, tagged), (remember_error, _, remembered) = run_tools(
        git_memory, ("tag", {"paths": ["martin.md"], "confidence": "low"}),
        ("remember", {"text": "the printer is on floor 3", "title": "Printer"}), config_path=str(settings))
    assert not tag_error and tagged["commit"] is None and "within 1 s" in tagged["commit_error"], tagged
    assert not remember_error and remembered["commit"] is None and "within 1 s" in remembered["commit_error"]


# --------------------------------------------------------------------------- 2. `--- # a comment` opens front matter


COMMENTED = ("--- # tags, see the wiki\ntitle: Martin's printer\ntrust: owner  # I wrote it\nconfidence: high\n---\n"
             "# Printer\n\nfloor 3, the one by the window\n")


@pytest.mark.parametrize("opening", ["--- # tags, see the wiki", "---\t#tags", "---   #", "\ufeff--- # with a BOM"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_front_matter_opened_by_a_comment_is_read(tmp_path, opening, newline):
    """YAML allows a comment after the document start marker; such a note's front matter was body text and its
    tags were ignored (the note untagged)."""
    from tachikoma.frontmatter import read_front_matter, split

    text = f"{opening}{newline}trust: owner{newline}confidence: high{newline}---{newline}# Printer{newline}"
    fm = split(text.removeprefix("\ufeff"))
    assert fm.error is None and fm.meta == {"trust": "owner", "confidence": "high"}
    assert fm.body == f"# Printer{newline}" and fm.body_line == 5
    note = tmp_path / "n.md"
    note.write_bytes(text.encode("utf-8"))
    assert read_front_matter(note).meta == {"trust": "owner", "confidence": "high"}


@pytest.mark.parametrize("first", ["---# not a comment", "--- trust: owner", "----"])
def test_a_first_line_that_is_no_document_start_opens_no_front_matter(first):
    from tachikoma.frontmatter import split

    text = f"{first}\ntrust: owner\n---\nbody\n"
    assert split(text).meta == {} and split(text).body == text


def test_a_note_opened_by_a_comment_is_tagged_in_place_and_undone_byte_for_byte(git_memory):
    """Tagging it wrote a second front matter block above the first (the comment line taken for body text)."""
    from tachikoma.tagging import applying

    note = git_memory / "printer.md"
    note.write_text(COMMENTED)
    git(git_memory, "add", "printer.md")
    git(git_memory, "commit", "-q", "-m", "printer")
    done = tachikoma_cli(git_memory, "stats", "--json")
    assert json.loads(done.stdout)["trust"]["owner"] >= 1
    preview = tachikoma_cli(git_memory, "tag", "--path", "printer.md", "--trust", "external", "--source", "web",
                            "--overwrite", "--dry-run", "--json")
    answer = json.loads(preview.stdout)
    assert [(c["path"], c["before"], c["after"]) for c in answer["changes"]] == [
        ("printer.md", {"trust": "owner"}, {"trust": "external", "source": "web"})], answer
    applied = tachikoma_cli(git_memory, "tag", "--path", "printer.md", "--trust", "external", "--source", "web",
                            "--overwrite", "--json")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert note.read_text() == COMMENTED.replace("trust: owner  #", "trust: external  #").replace(
        "confidence: high\n", "confidence: high\nsource: web\n")
    assert git(git_memory, "status", "--porcelain") == ""
    from tachikoma.tagging.model import Change

    undone = applying.undo(git_memory, [Change("printer.md", "markdown", {"trust": "owner"},
                                               {"trust": "external", "source": "web"})])
    assert not undone.skipped and note.read_text() == COMMENTED
