"""Shared fixtures: a private copy of the example memory, optionally as a git repository."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "memory"


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.com"}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def memory(tmp_path) -> Path:
    """A copy of examples/memory, safe to change."""
    root = tmp_path / "memory"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".cache"))
    return root


@pytest.fixture
def git_memory(memory) -> Path:
    """The example memory as a git repository, every file committed on 2026-06-01."""
    git(memory, "init", "-q", "-b", "main")
    git(memory, "add", "-A")
    git(memory, "commit", "-q", "-m", "memory", date="2026-06-01T12:00:00+00:00")
    return memory
