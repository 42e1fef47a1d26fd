"""Issue 16, items 11-13: a damaged index, a full disk and a memory the watcher cannot write are
each detected and said in one line that tells what to do, by every command that meets them."""

import time

import pytest

from tachikoma import indexer, memory as mem
from tachikoma.config import load_config
from tachikoma.mcp_server import MemoryTools, answer_text
from tachikoma.watcher import Reindexer


def note(root, rel, text="# note\nsome words about cats\n"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def indexed(tmp_path):
    root = tmp_path / "memory"
    note(root, "cats.md")
    note(root, "dogs.md", "# dogs\nwords about dogs and their walks\n")
    indexer.run(root, embedder_name="hash")
    return root


# --------------------------------------------------------------------------- 13: the watcher cannot write


def lock_unwritable(root):
    """Make the index lock impossible to open, even for root: a folder where the lock file goes
    (what a read-only mount does to the lock, without needing one)."""
    (root / mem.CACHE_DIR / "index.lock").unlink(missing_ok=True)
    (root / mem.CACHE_DIR / "index.lock").mkdir()


def test_a_run_that_cannot_take_the_lock_fails_in_one_line(indexed):
    lock_unwritable(indexed)
    warned = []
    reindexer = Reindexer(indexed, lambda: load_config(indexed), warn=warned.append)
    reindexer(set())  # an OSError escaped here, and the run stayed "running"
    assert reindexer.last["state"] == "failed" and "finished" in reindexer.last
    assert reindexer.error.startswith(f"cannot take the index lock {indexed / '.cache' / 'index.lock'} "
                                      "(Is a directory): indexing needs to write in")
    assert warned == [f"re-indexing failed: {reindexer.error}"]


def test_mcp_stats_and_search_freshness_report_the_failed_watch_run(indexed):
    lock_unwritable(indexed)
    tools = MemoryTools(indexed, watch=True)
    try:
        deadline = time.monotonic() + 30
        while tools.reindexer.runs == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        index = tools.stats()["index"]
        assert index["last_watch_run"]["state"] == "failed"
        assert index["watch_error"] and "cannot take the index lock" in index["watch_error"]
        answer = tools.search("cats")
        assert "cannot take the index lock" in answer["freshness"]["watch_error"]
        assert "the index is not kept up to date: cannot take the index lock" in answer_text(answer)
    finally:
        tools.close()
