"""`tachikoma.search.pool`: searchers kept open between queries (dashboard, MCP), and what a failed
query or a rebuilt index does to them. On SQLite; tests/test_web_memories.py covers PostgreSQL."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from tachikoma.indexer import runner
from tachikoma.errors import BadQuery
from tachikoma.search.searcher import Searcher
from tachikoma.config import load_config
from tachikoma.search.pool import Searchers, memory_key, warm_after_run
from tachikoma.store import locate


@pytest.fixture
def indexed(memory):
    runner.run(memory, embedder_name="hash")
    return memory


def test_a_searcher_is_made_once_and_kept_until_a_query_fails(indexed):
    pool, made = Searchers(), []
    key = memory_key(locate(indexed))

    def make() -> Searcher:
        made.append(Searcher(indexed))
        return made[-1]

    try:
        with pool.use(key, make) as first:
            assert first.search("Martin meetings", 3)["results"]
        with pool.use(key, make) as again:
            assert again is first
        with pytest.raises(BadQuery), pool.use(key, make) as s:
            s.search("   ", 3)  # refused before the index is read: the searcher stays
        with pool.use(key, make) as again:
            assert again is first and len(made) == 1
        with pytest.raises(RuntimeError), pool.use(key, make):
            raise RuntimeError("a query that failed half-way")
        with pytest.raises(sqlite3.ProgrammingError):  # its connection went with it
            first.store.db.execute("SELECT 1")
        with pool.use(key, make) as fresh:
            assert fresh is not first and fresh.search("Martin meetings", 3)["results"]
        assert pool.open_count() == 1
    finally:
        pool.close()
    with pytest.raises(sqlite3.ProgrammingError):
        made[-1].store.db.execute("SELECT 1")
    with pytest.raises(RuntimeError, match="closed"), pool.use(key, make):
        pass


def test_an_index_rebuilt_with_another_embedder_gets_a_new_searcher(indexed):
    pool = Searchers()
    key = memory_key(locate(indexed))
    try:
        with pool.use(key, lambda: Searcher(indexed)) as before:
            assert before.dim == 512
        runner.run(indexed, reembed=True, embedder_name="hash:256")
        with pool.use(key, lambda: Searcher(indexed)) as after:
            assert after is not before and after.dim == 256
            assert after.search("Martin meetings", 3)["results"]
    finally:
        pool.close()


def test_the_least_recently_used_searcher_is_closed_beyond_the_cap(indexed):
    """Each open searcher holds its memory's vectors in RAM: a dashboard over many memories keeps only
    `max_open`, closing the one searched least recently (opened again when it is searched next)."""
    pool, made = Searchers(max_open=2), []

    def make() -> Searcher:
        made.append(Searcher(indexed))
        return made[-1]

    try:
        for key in ("a", "b", "c"):
            with pool.use((key,), make) as searcher:
                searcher.search("Martin meetings", 3)
        assert pool.open_count() == 2
        with pytest.raises(sqlite3.ProgrammingError):  # "a", the least recently used, was closed
            made[0].store.db.execute("SELECT 1")
        with pool.use(("b",), make) as again:  # "b" is kept, and is now the most recently used
            assert again is made[1]
        with pool.use(("a",), make) as reopened:
            assert reopened is made[3] and reopened.search("Martin meetings", 3)["results"]
        with pytest.raises(sqlite3.ProgrammingError):  # so "c" went this time
            made[2].store.db.execute("SELECT 1")
        made[1].store.db.execute("SELECT 1")
        with pool.use(("b",), make) as held:  # one in use is never closed under its user
            with pool.use(("c",), make):
                with pool.use(("d",), make):
                    held.store.db.execute("SELECT 1")
        assert pool.open_count() <= 3
    finally:
        pool.close()


def test_an_index_run_brings_the_open_searcher_up_to_date_before_the_next_query(indexed):
    """A long-lived process warms its searcher after each run (the watcher's `Reindexer`, the dashboard's
    `IndexJob`): the next query finds the new index read and its freshness counted, instead of paying
    for both (5.6 s at 100k chunks after a one-file change)."""
    from tachikoma.watcher import Reindexer

    pool = Searchers()
    key = memory_key(locate(indexed))
    settings = lambda: load_config(indexed)  # noqa: E731 (a one-line closure handed on)
    try:
        with pool.use(key, lambda: Searcher(indexed)) as searcher:
            searcher.search("Martin meetings", 3)
            before = searcher.store.generation
        (indexed / "projects" / "late.md").write_text("# Late\n\nThe quokka sleeps at noon.\n")
        Reindexer(indexed, settings, after=lambda: warm_after_run(pool, indexed, settings))({"projects/late.md"})
        with pool.use(key, lambda: pytest.fail("the searcher was kept")) as again:
            assert again is searcher and searcher.store.generation != before
            assert searcher._snapshot.generation == searcher.store.generation  # read already
            assert searcher._freshness[0] == searcher.store.generation  # counted already
            assert any(r["path"] == "projects/late.md" for r in searcher.search("quokka noon", 3)["results"])
        warm_after_run(pool, indexed, lambda: load_config(indexed / "missing"))  # never raises
    finally:
        pool.close()


def test_a_run_asked_for_while_the_last_one_warms_up_still_runs(indexed):
    from tachikoma.web.index_job import IndexJob

    warming, release, warmed = threading.Event(), threading.Event(), []

    def after() -> None:
        warmed.append(True)
        if len(warmed) == 1:
            warming.set()
            release.wait(30)

    job = IndexJob(indexed, lambda: load_config(indexed), after=after)
    assert job.start("watch")
    assert warming.wait(60)
    (indexed / "projects" / "during.md").write_text("# During\n\nwritten while the first run warmed up\n")
    assert not job.start("watch")  # one is running: asked for again after it
    release.set()
    job.wait(60)
    assert len(warmed) == 2 and job.snapshot()["state"] == "done"
    with locate(indexed).open(readonly=True) as store:
        assert "projects/during.md" in store.files()
