"""Issue 16, items 11-13: a damaged index, a full disk and a memory the watcher cannot write are
each detected and said in one line that tells what to do, by every command that meets them."""

import errno
import os
import random
import re
import shutil
import subprocess
import sys
import sqlite3
import time
from pathlib import Path

import pytest

from tachikoma import memory as mem
from tachikoma.indexer import pipeline, runner, status
from tachikoma.config import load_config
from tachikoma.errors import TachikomaError
from tachikoma.mcp_answers import answer_text
from tachikoma.mcp_server import MemoryTools
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
    runner.run(root, embedder_name="hash")
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


# --------------------------------------------------------------------------- 11: a damaged index


@pytest.fixture
def big_indexed(tmp_path):
    """An index of many pages, so damage can land in the middle of it."""
    root = tmp_path / "memory"
    for i in range(80):
        note(root, f"n{i:02}.md", f"# Note {i}\n\n" + " ".join(f"word{(i * 7 + j) % 500}" for j in range(300)) + "\n")
    runner.run(root, embedder_name="hash")
    return root


def scribble_middle(path):
    """Random bytes over part of every third page in the middle of the file (seeded)."""
    rng = random.Random(7)
    size = path.stat().st_size
    with open(path, "r+b") as out:
        for page in range(2, size // 4096 - 1, 3):
            out.seek(page * 4096 + 100)
            out.write(rng.randbytes(2000))


def overwrite_tail(path):
    rng = random.Random(8)
    with open(path, "r+b") as out:
        out.seek(path.stat().st_size - 4096)
        out.write(rng.randbytes(4096))


def cut_vectors(path):
    db = sqlite3.connect(path)  # as the sqlite3 shell would: not through tachikoma
    with db:
        db.execute("UPDATE chunks SET vector = substr(vector, 1, 1)")
    db.close()


def zero_keyword_index(path):
    """The keyword index's blocks zeroed in place (quick_check passes; keyword search silently finds nothing)."""
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE chunks_fts_data SET block = zeroblob(length(block)) WHERE id > 10")
    db.close()


def folder_instead(path):
    path.unlink()
    path.mkdir()


def stale_journal(path):
    rng = random.Random(9)
    Path(f"{path}-journal").write_bytes(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + rng.randbytes(5000))


DAMAGES = {"middle-pages": scribble_middle, "last-4kb": overwrite_tail, "vectors-cut": cut_vectors,
           "folder": folder_instead, "stale-journal": stale_journal, "keyword-index": zero_keyword_index}


def assert_damage_advice(message: str, root) -> None:
    assert "\n" not in message
    assert message.startswith(f"the index {mem.index_path(root)} is damaged (")
    assert message.endswith(f"delete {root / mem.CACHE_DIR} and run `tachikoma index` to rebuild it from the memory "
                            "files"), message


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_every_reader_of_a_damaged_index_says_so_with_the_advice(big_indexed, damage):
    from tachikoma_dashboard.app import create_app
    from tachikoma import stats
    from tachikoma.search.searcher import Searcher

    root = big_indexed
    for stale in (root / mem.CACHE_DIR).glob("vectors-*"):
        stale.unlink()
    DAMAGES[damage](mem.index_path(root))
    with pytest.raises(TachikomaError) as caught:
        Searcher(root).search("word12 word40")
    assert_damage_advice(str(caught.value), root)
    assert_damage_advice(stats.report(root)["index"]["note"], root)
    tools = MemoryTools(root, watch=False)
    try:
        with pytest.raises(TachikomaError) as caught:
            tools.search("word12")
        assert_damage_advice(str(caught.value), root)
        assert_damage_advice(tools.stats()["index"]["note"], root)
    finally:
        tools.close()
    client = create_app(memory=root, port=5000).test_client()
    page = client.get("/coverage", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert f"delete {root / mem.CACHE_DIR} and run" in page
    if damage == "stale-journal":
        # The indexer opens the index for writing, which lets SQLite deal with the journal: it repairs.
        runner.run(root)
        assert Searcher(root).search("word12")["results"]
        return
    with pytest.raises(TachikomaError) as caught:
        runner.run(root)  # said "0 changed" over a truncated index or cut vectors
    assert_damage_advice(str(caught.value), root)


def test_the_full_check_runs_once_per_state_of_the_index(big_indexed, monkeypatch):
    from tachikoma.store import index_check
    from tachikoma.search.searcher import Searcher

    root = big_indexed
    checks = []
    real = index_check.problem
    monkeypatch.setattr(index_check, "problem", lambda *a: checks.append(1) or real(*a))
    for _ in range(3):
        Searcher(root).search("word12")
    assert checks == []  # the indexer recorded the state its own writes left
    index_check.forget(mem.index_path(root))
    for _ in range(3):
        Searcher(root).search("word12")
    assert checks == [1]
    note(root, "new.md")
    runner.run(root, embedder_name="hash")
    Searcher(root).search("word12")
    assert checks == [1]


def test_vectors_of_nan_are_damage_when_loaded(big_indexed):
    from tachikoma.store import index_check
    from tachikoma.search.searcher import Searcher

    root = big_indexed
    path = mem.index_path(root)
    for stale in (root / mem.CACHE_DIR).glob("vectors-*"):
        stale.unlink()
    db = sqlite3.connect(path)
    with db:
        dim = int(db.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()[0])
        db.execute("UPDATE chunks SET vector = ? WHERE id = (SELECT min(id) FROM chunks)",
                   (bytes.fromhex("0000c07f") * dim,))  # NaN, the right size: the full check passes it
    db.close()
    index_check.record(path)  # damage that keeps the file's stamp (bits rotting on the disk)
    with pytest.raises(TachikomaError) as caught:
        Searcher(root).search("word12")
    assert_damage_advice(str(caught.value), root)
    assert "NaN" in str(caught.value)


def test_readers_during_an_index_run_do_not_check_the_file_again(big_indexed, monkeypatch):
    """The indexer records the state each batch leaves: the dashboard polling during a long run
    must not make a full check (seconds on a large index) at every poll."""
    from tachikoma.store import index_check

    root = big_indexed
    for i in range(12):
        note(root, f"more/m{i:02}.md", f"# More {i}\n\nother words {i}\n")
    monkeypatch.setattr(pipeline, "STORE_BATCH_CHUNKS", 2)  # a commit every two files (one chunk each)
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 2)
    checks, seen = [], []
    real = index_check.problem
    monkeypatch.setattr(index_check, "problem", lambda *a: checks.append(1) or real(*a))

    def poll(done, total, _note):
        fresh = status.freshness(root)
        seen.append((fresh["state"], fresh["files"]))

    runner.run(root, progress=poll)
    assert {state for state, _ in seen} == {"incomplete"}
    assert sorted({files for _, files in seen}) == list(range(80, 93, 2))  # polled after each of six batches
    assert checks == []


# --------------------------------------------------------------------------- 12: a full disk


def fill(folder):
    """Write a filler file until the file system holding `folder` has no room left."""
    with open(folder / "filler", "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


@pytest.fixture
def small_disk(tmp_path):
    """A real 4 MB file system (tmpfs), when this test runs as root on Linux; skipped elsewhere."""
    if sys.platform != "linux" or os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small file system needs root on Linux")
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_full_disk_is_named_by_search_stats_mcp_and_tag(small_disk):
    from tachikoma import stats
    from tachikoma.tagging import applying, model, planning
    from tachikoma.search.searcher import Searcher

    root = small_disk / "memory"
    note(root, "cats.md", "---\ntrust: owner\n---\n# cats\nsome words about cats\n")
    runner.run(root, embedder_name="hash")
    before = (root / "cats.md").read_bytes()
    fill(small_disk)
    full = f"cannot open the index {mem.index_path(root)}: the disk is full ("
    with pytest.raises(TachikomaError, match=re.escape(full)):
        Searcher(root).search("cats")
    assert stats.report(root)["index"]["note"].startswith(full)
    tools = MemoryTools(root, watch=False)
    try:
        with pytest.raises(TachikomaError, match=re.escape(full)):
            tools.search("cats")
    finally:
        tools.close()
    plan = planning.plan(root, {"trust": "self"}, model.Selector(paths={"cats.md"}), overwrite=True)
    with pytest.raises(TachikomaError) as caught:
        applying.apply(root, plan, commit=False)  # said only "No space left on device"
    assert str(caught.value) == (f"cannot write {root / mem.CACHE_DIR / 'tagging-journal.json'} (No space left on "
                                 "device: the disk is full); nothing was changed (cats.md not tagged)")
    assert (root / "cats.md").read_bytes() == before
    assert not [p.name for p in (root / mem.CACHE_DIR).iterdir() if p.name.endswith(".tmp")]


def test_an_io_error_on_a_nearly_full_disk_says_the_disk_is_full(tmp_path, monkeypatch):
    """Where no small file system can be mounted: the same verdict, with the free space faked."""
    import shutil as real_shutil
    from tachikoma.store import sqlite_errors as store

    path = tmp_path / ".cache" / "index.db"
    monkeypatch.setattr(store.shutil, "disk_usage", lambda _folder: real_shutil._ntuple_diskusage(10**9, 10**9 - 4096, 4096))
    message = str(store.index_error(path, sqlite3.OperationalError("disk I/O error")))
    assert message == (f"cannot open the index {path}: the disk is full (4 KB free) (disk I/O error); free some "
                       "space and try again")
    message = str(store.index_error(path, sqlite3.OperationalError("database or disk is full")))
    assert message == f"cannot write the index {path}: the disk is full (4 KB free); free some space and try again"
    monkeypatch.setattr(store.shutil, "disk_usage", lambda _folder: real_shutil._ntuple_diskusage(10**9, 0, 10**9))
    assert str(store.index_error(path, sqlite3.OperationalError("disk I/O error"))) == \
        f"cannot open the index {path} (disk I/O error)"


def test_tag_on_a_full_disk_names_the_file_and_changes_nothing(tmp_path, monkeypatch):
    from tachikoma.tagging import applying, journal, model, planning

    root = tmp_path / "memory"
    note(root, "cats.md", "---\ntrust: owner\n---\n# cats\n")
    before = (root / "cats.md").read_bytes()
    plan = planning.plan(root, {"trust": "self"}, model.Selector(paths={"cats.md"}), overwrite=True)

    def no_space(path, *_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal, "atomic_write_text", no_space)
    with pytest.raises(TachikomaError, match=r"tagging-journal\.json \(No space left on device: the disk is full\); "
                                             r"nothing was changed \(cats\.md not tagged\)"):
        applying.apply(root, plan, commit=False)
    assert (root / "cats.md").read_bytes() == before


def test_damage_the_full_check_cannot_see_is_said_when_the_keyword_index_meets_it(big_indexed):
    """quick_check does not read FTS5's own tables: a search meeting them broken says so in one line
    (the MCP tool and the dashboard turned the raw sqlite3 error into an internal error)."""
    from tachikoma.search.searcher import Searcher

    root = big_indexed
    db = sqlite3.connect(mem.index_path(root))
    with db:
        db.execute("DELETE FROM chunks_fts_data WHERE id > 10")
    db.close()
    for search in (lambda: Searcher(root).search("word12 word40"),
                   lambda: MemoryTools(root, watch=False).search("word12 word40")):
        with pytest.raises(TachikomaError) as caught:
            search()
        assert_damage_advice(str(caught.value), root)


def test_the_keyword_index_check_works_on_a_read_only_connection_too(big_indexed):
    """FTS5's integrity-check is a write statement to SQLite: a read-only index (a read-only memory) is
    checked by decoding every entry instead, and finds the same damage."""
    from tachikoma.store import index_check

    path = mem.index_path(big_indexed)
    readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert index_check.keyword_index_problem(readonly) is None
    zero_keyword_index(path)
    found = index_check.keyword_index_problem(readonly)
    readonly.close()
    assert found is not None and found.startswith("keyword index damaged: database disk image is malformed")
    writable = sqlite3.connect(path)
    assert index_check.keyword_index_problem(writable).startswith("keyword index damaged:")
    assert not writable.in_transaction
    writable.close()
