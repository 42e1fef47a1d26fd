"""Shared fixtures: a private copy of the example memory, optionally as a git repository."""

import shutil
from pathlib import Path

import pytest

from gitrepo import git, isolate

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "memory"


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


@pytest.fixture
def isolated_git(tmp_path, monkeypatch):
    """The code under test sees no global or system git config (no identity anywhere)."""
    isolate(monkeypatch, tmp_path / "home")
