"""Shared fixtures: a private copy of the example memory, optionally as a git repository."""

from pathlib import Path

import pytest

from example_memory import copy_example
from gitrepo import git, isolate


@pytest.fixture(autouse=True, scope="session")
def model_cache(tmp_path_factory) -> Path:
    """MiniLM's built ONNX graphs go to one folder per test session (not ~/.cache), shared by the
    subprocesses the tests start, and found there whatever HOME a test sets."""
    folder = tmp_path_factory.mktemp("model-cache")
    with pytest.MonkeyPatch.context() as session:
        session.setenv("TACHIKOMA_MODEL_CACHE", str(folder))
        yield folder


@pytest.fixture(autouse=True, scope="session")
def northern_seasons():
    """The tests' seasons are the northern hemisphere's wherever they run (`periods.south` would read the local time
    zone's); tests/test_periods.py sets the southern where it means it."""
    with pytest.MonkeyPatch.context() as session:
        session.setenv("TACHIKOMA_HEMISPHERE", "north")
        yield


@pytest.fixture(autouse=True, scope="session")
def resident_sockets(tmp_path_factory) -> Path:
    """The sockets of running tachikomas (`tachikoma.resident`) go to one folder per test session, so a
    search in a test never reaches a dashboard or MCP server the user runs, nor one of another session."""
    folder = tmp_path_factory.mktemp("run")
    folder.chmod(0o700)
    with pytest.MonkeyPatch.context() as session:
        session.setenv("XDG_RUNTIME_DIR", str(folder))
        yield folder


@pytest.fixture
def memory(tmp_path) -> Path:
    """A copy of examples/memory, safe to change."""
    return copy_example(tmp_path / "memory")


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


@pytest.fixture
def indexed_example(tmp_path) -> Path:
    """A copy of examples/memory committed to a new git repository and indexed with the hashing embedder:
    what the tests that start a real server serve."""
    from web_helpers import build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    return root


@pytest.fixture(scope="session")
def pg(tmp_path_factory):
    """A real PostgreSQL 18 + pgvector server for the session (`pg_server.Server`), started when a test
    first asks for it."""
    from pg_server import Server

    server = Server(tmp_path_factory.mktemp("postgres"))
    yield server
    server.stop()


@pytest.fixture
def url(pg):
    """The URL of a new, empty database on that server."""
    return pg.url(pg.new_database())
