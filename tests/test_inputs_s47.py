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
