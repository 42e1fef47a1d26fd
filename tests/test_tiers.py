"""Tiers of vectors (issue 21): keyword search over everything before any vector exists, vectors filled
in newest first, an interrupted run resumed, and how much is embedded said by stats and freshness."""

import os
import re
import sqlite3

import numpy as np
import pytest

from tachikoma import cli, memory as mem
from tachikoma.indexer import pipeline, reporting, runner, status
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.search.searcher import Searcher
from tachikoma.store import Store


class Stopping(HashingEmbedder):
    """The hashing embedder; raises KeyboardInterrupt once `stop_after` texts are embedded, and runs
    `during(texts)` before each call (to look at the index from outside meanwhile)."""

    def __init__(self, stop_after=None, during=None):
        super().__init__(512)
        self.embedded: list[str] = []
        self.stop_after, self.during = stop_after, during

    def embed_documents(self, texts, progress=None):
        if self.during:
            self.during(texts)
        if self.stop_after is not None and len(self.embedded) >= self.stop_after:
            raise KeyboardInterrupt
        self.embedded.extend(texts)
        return super().embed_documents(texts, progress)


def dated_notes(root, n=12):
    """`n` notes whose front matter dates them one day apart, note 0 the oldest; each holds a unique word."""
    for i in range(n):
        (root / f"dated-{i:02}.md").write_text(
            f"---\nupdated: 2026-03-{i + 1:02}\n---\n# Dated {i}\n\nThe marker word zq{i}x is in this note only.\n",
            encoding="utf-8")


def test_keyword_search_works_before_any_vector_and_says_keywords_only(memory):
    dated_notes(memory)
    seen = {}

    def during(texts):
        if seen:
            return
        # Another process's view (its own read-only connection), while the indexer holds the index open.
        searcher = Searcher(memory, embedder=HashingEmbedder(512))
        try:
            seen["answer"] = searcher.search("zq3x", 5, min_score=0)
        finally:
            searcher.close()
        seen["fresh"] = status.freshness(memory)

    runner.run(memory, embedder=Stopping(during=during))
    answer = seen["answer"]
    assert answer["results"] and answer["results"][0]["path"] == "dated-03.md"
    assert answer["results"][0]["factors"]["vectors"] == "none"
    assert answer["results"][0]["factors"]["vector_similarity"] == 0.0
    assert answer["freshness"]["state"] == "incomplete"
    total = answer["freshness"]["embedded"]["chunks"]
    assert answer["freshness"]["embedded"] == {"chunks": total, "full": 0, "quick": 0, "none": total} and total > 12
    assert seen["fresh"]["note"].startswith(f"0 of {total} chunks have full vectors ({total} keyword search only)")
    # Once the run is done, every chunk has its full vector and explanations are as they always were.
    searcher = Searcher(memory, embedder=HashingEmbedder(512))
    try:
        done = searcher.search("zq3x", 5, min_score=0)
    finally:
        searcher.close()
    assert "vectors" not in done["results"][0]["factors"] and done["results"][0]["factors"]["vector_similarity"] > 0
    assert done["freshness"]["embedded"] == {"chunks": total, "full": total, "quick": 0, "none": 0}


def test_vectors_are_filled_in_newest_memories_first(memory, monkeypatch):
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 4)
    for old in list(memory.rglob("*.md")) + list(memory.rglob("*.jsonl")):
        old.unlink()
    dated_notes(memory)
    embedder = Stopping()
    runner.run(memory, embedder=embedder)
    order = [next(i for i in range(12) if f"zq{i}x" in text) for text in embedder.embedded]
    assert order == sorted(order, reverse=True) == list(range(11, -1, -1))


def test_an_interrupted_run_resumes_without_reading_or_embedding_again(memory, monkeypatch):
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 8)
    for i in range(30):
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(300)))
    first = Stopping(stop_after=16)
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=first)
    paths = {f.path for f in mem.walk(memory)}
    with Store(mem.index_path(memory)) as store:
        assert set(store.files()) == paths, "every file is stored (keyword-searchable) before embedding starts"
        tiers = store.tier_counts()
        texts = {t for (t,) in store.db.execute("SELECT DISTINCT text FROM chunks")}
    assert tiers["full"] == 16 and tiers["none"] > 0
    assert status.freshness(memory)["state"] == "incomplete"

    second = Stopping()
    summary = runner.run(memory, embedder=second)
    assert (summary.added, summary.changed, summary.rechunked) == (0, 0, 0), "nothing is read again"
    assert not set(first.embedded) & set(second.embedded), "nothing is embedded twice"
    assert set(first.embedded) | set(second.embedded) == texts
    assert summary.chunks_embedded == len(second.embedded)
    with Store(mem.index_path(memory)) as store:
        assert store.tier_counts()["none"] == 0
    assert status.freshness(memory)["state"] == "complete"


@pytest.mark.parametrize("version", [3, 4])
def test_an_older_index_is_upgraded_in_place_keeping_its_vectors_and_tool_texts(memory, version):
    from test_tool_texts import CLAUDE, _claude_lines, _write

    from tachikoma import store as store_module

    _write(memory, CLAUDE, _claude_lines())  # a session whose tool calls give tool texts (schema 4)
    runner.run(memory, embedder_name="hash")
    path = mem.index_path(memory)
    # The same index as that schema wrote it: the chunks table without the `quick` column, and
    # before schema 4 no tool texts either.
    schema = store_module.SCHEMA.replace("date REAL,               -- transcripts", "date REAL                -- transcripts")
    schema = "\n".join(line for line in schema.splitlines()
                       if not line.strip().startswith("quick BLOB") and "chunks_unembedded" not in line)
    if version == 4:
        schema += store_module.TOOL_SCHEMA
    # Its triggers handed FTS5 the text as written (schema 6 segments it: `segment.index_text`).
    schema = re.sub(r"tachikoma_keywords\(((?:new|old)\.\w+)\)", r"\1", schema)
    assert "quick" not in schema and "unembedded" not in schema and "tachikoma_keywords" not in schema
    old = path.with_name(f"schema-{version}.sqlite")
    db = sqlite3.connect(old)
    db.executescript(schema)
    db.execute("ATTACH ? AS current", (str(path),))
    db.execute("INSERT INTO meta SELECT * FROM current.meta")
    db.execute("INSERT INTO files SELECT * FROM current.files")
    db.execute("INSERT INTO chunks SELECT id, file_id, idx, line_start, line_end, text, hash, vector, date "
               "FROM current.chunks")
    if version == 4:
        db.execute("INSERT INTO tool_texts SELECT * FROM current.tool_texts")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    db.commit()
    before = db.execute("SELECT id, vector FROM chunks ORDER BY id").fetchall()
    tools = db.execute("SELECT * FROM tool_texts ORDER BY id").fetchall() if version == 4 else None
    db.execute("DETACH current")
    db.close()
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    os.replace(old, path)
    summary = runner.run(memory, embedder_name="hash")
    assert summary.chunks_embedded == 0
    with Store(path) as store:
        assert store.get_meta("schema_version") == str(store_module.SCHEMA_VERSION) == "7"
        assert store.db.execute("SELECT count(*) FROM multilingual").fetchone() == (0,)  # schema 7: made empty
        assert store.db.execute("SELECT id, vector FROM chunks ORDER BY id").fetchall() == before
        assert store.tier_counts() == {"full": len(before), "quick": 0, "none": 0}
        assert store.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_unembedded'").fetchone()
        if version == 4:  # kept as they were, not read again
            assert tools and store.db.execute("SELECT * FROM tool_texts ORDER BY id").fetchall() == tools
    if version == 4:
        searcher = Searcher(memory, embedder=HashingEmbedder(512))
        try:  # words only a tool call holds are found through the upgraded index
            answer = searcher.search("advance_by", 3, min_score=0)
        finally:
            searcher.close()
        assert answer["results"][0]["path"] == CLAUDE and answer["results"][0]["factors"]["keyword_in_tools"] > 0


def test_the_vector_index_waits_for_full_vectors_and_never_hides_a_chunk_meanwhile(memory, monkeypatch):
    """A large index's shortlist by sign codes (`vector_index`) is not built while chunks lack their
    full vectors: their zero rows would skew the codes' centre (which later generations keep), and a
    chunk with no full vector could never be shortlisted. Every chunk is scored meanwhile; the codes
    built once the index is whole are the full vectors' own."""
    from tachikoma.search import vector_index

    monkeypatch.setattr(pipeline, "EMBED_SLICE", 4)
    dated_notes(memory)
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=Stopping(stop_after=4))  # one slice of the newest chunks embedded

    def ask(min_chunks, query="zq0x"):
        searcher = Searcher(memory, embedder=HashingEmbedder(512))
        searcher.vector_index_min_chunks = min_chunks
        try:
            return searcher.search(query, 5, min_score=0, as_of="2026-06-01"), searcher.snapshot()
        finally:
            searcher.close()

    partial, snap = ask(1)
    assert snap.tier is not None and snap.vector_index is None and not list(memory.glob(".cache/ann-*"))
    assert partial["results"][0]["path"] == "dated-00.md", "the oldest note, not embedded yet, is found"
    assert partial["results"][0]["factors"]["vectors"] == "none"
    assert partial["results"] == ask(10**9)[0]["results"], "the same answer as the exact scan"

    runner.run(memory, embedder=HashingEmbedder(512))
    whole, snap = ask(1)
    assert snap.tier is None and snap.vector_index is not None
    full = np.asarray(snap.matrix)
    assert np.allclose(snap.vector_index.centre, full.mean(axis=0), atol=1e-6)
    assert np.array_equal(np.asarray(snap.vector_index.codes),
                          vector_index.encode(full, snap.vector_index.centre, snap.vector_index.rot))
    assert whole["results"][0]["path"] == "dated-00.md" and "vectors" not in whole["results"][0]["factors"]


def test_stats_and_search_say_how_much_is_embedded(memory, capsys):
    dated_notes(memory)
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=Stopping(stop_after=0))
    assert cli.main(["--memory", str(memory), "stats"]) == 0
    out = capsys.readouterr().out
    assert "0 of " in out and "chunks have full vectors" in out and "keyword search only" in out
    assert cli.main(["--memory", str(memory), "search", "--embedder", "hash", "--min-score", "0", "zq5x"]) == 0
    captured = capsys.readouterr()
    assert "chunks have full vectors" in captured.err
    assert "meaning (not embedded yet: keywords only)" in captured.out


# -- the quick tier (static vectors distilled from MiniLM) ------------------------------------------


def test_a_distilled_token_vector_is_minilm_on_that_token_and_rebuilds_the_same():
    from tachikoma.embedders import static
    from tachikoma.embedders.minilm import MiniLMEmbedder

    model = MiniLMEmbedder(runtime="onnx")
    model.load()
    words = ["cat", "meeting", "paris", "tuesday"]
    ids = np.array([model._tokenizer.token_to_id(w) for w in words])
    rows = static.token_vectors(model._runtime, model._tokenizer, ids)
    rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    # [CLS] word [SEP] is what MiniLM embeds for the word alone: the same vector.
    assert np.allclose(np.sum(rows * model.embed_documents(words), axis=1), 1.0, atol=1e-5)
    # PCA and SIF weighting are deterministic (component signs fixed), and keep the tokens apart.
    vocabulary = np.arange(1000, 1600)
    vectors = static.token_vectors(model._runtime, model._tokenizer, vocabulary)
    first, second = static.reduce(vectors, 64), static.reduce(vectors.copy(), 64)
    assert first.shape == (600, 64) and first.dtype == np.float32 and np.array_equal(first, second)
    weights = np.linalg.norm(first, axis=1)
    assert weights[0] < weights[-1], "a commoner (earlier) token weighs less"


@pytest.fixture
def small_table(monkeypatch, tmp_path):
    """A quick-tier table distilled from the first 3,000 vocabulary tokens only (the whole vocabulary
    takes a minute of CPU): a real distillation, enough for the example memory's words."""
    from tachikoma.embedders import static
    from tachikoma.embedders.minilm import MiniLMEmbedder

    def distil_small(progress=None):
        model = MiniLMEmbedder(runtime="onnx")
        model.load()
        size = model._tokenizer.get_vocab_size(with_added_tokens=False)
        reduced = static.reduce(static.token_vectors(model._runtime, model._tokenizer, np.arange(3000)))
        table = np.zeros((size, static.DIMS), dtype=np.float32)
        table[:3000] = reduced
        return table

    monkeypatch.setattr(static, "distill", distil_small)
    monkeypatch.setattr(static, "table_file", lambda sha: tmp_path / "static-small.npy")
    return static


def test_quick_vectors_answer_first_and_full_vectors_change_nothing_once_in(memory, tmp_path, small_table):
    import shutil as sh

    from tachikoma.embedders.minilm import MiniLMEmbedder

    twin = tmp_path / "twin"
    sh.copytree(memory, twin)
    query = "what does Martin prefer for meetings"
    summary = runner.run(memory, embedder_name="minilm", vectors="quick")
    assert summary.chunks_quick == summary.chunks > 0 and summary.chunks_embedded == 0
    with Store(mem.index_path(memory)) as store:
        assert store.tier_counts() == {"full": 0, "quick": summary.chunks, "none": 0}
        assert store.get_meta("quick_embedder") == small_table.MINILM_STATIC

    def ask(root):
        searcher = Searcher(root, embedder=MiniLMEmbedder())
        try:
            return searcher.search(query, 5, as_of="2026-06-01")
        finally:
            searcher.close()

    quick = ask(memory)
    assert quick["results"] and {r["factors"]["vectors"] for r in quick["results"]} == {"quick"}
    assert quick["freshness"]["embedded"]["quick"] == summary.chunks
    assert 0 < quick["results"][0]["factors"]["vector_similarity"] <= 1

    runner.run(memory, embedder_name="minilm")
    runner.run(twin, embedder_name="minilm")  # the same memory, never through the quick tier
    full, direct = ask(memory), ask(twin)
    assert all("vectors" not in r["factors"] for r in full["results"])
    strip = lambda answer: [(r["path"], r["lines"], r["score"], r["factors"]) for r in answer["results"]]  # noqa: E731 (a one-line closure handed on)
    assert strip(full) == strip(direct)
    assert full["match"] == direct["match"]
    with Store(mem.index_path(memory)) as store:
        assert store.tier_counts()["full"] == summary.chunks
        assert store.db.execute("SELECT count(*) FROM chunks WHERE quick IS NOT NULL").fetchone()[0] == 0


def test_while_only_quick_vectors_exist_no_good_match_still_works(memory, small_table):
    """Issue 32, break 8: with quick vectors only, 7 of 16 off-topic queries were answered as matches
    ("qwertyuiop asdfghjkl" reached 0.60 on the full model's scale). Quick vectors still rank, but
    only full vectors or the query's words decide that an answer has a good match."""
    from tachikoma.embedders.minilm import MiniLMEmbedder

    runner.run(memory, embedder_name="minilm", vectors="quick")
    searcher = Searcher(memory, embedder=MiniLMEmbedder())
    try:
        for query in ("qwertyuiop asdfghjkl", "zxqv blorf snargle"):
            answer = searcher.search(query, 5, as_of="2026-06-01")
            assert answer["no_good_match"] and answer["results"] == []
            assert answer["match"]["meaning_from_full_vectors_only"] is True
        open_answer = searcher.search("qwertyuiop asdfghjkl", 5, as_of="2026-06-01", min_score=0)
        assert open_answer["results"], "quick vectors still rank what the floor lets through"
        named = searcher.search("Martin meetings", 5, as_of="2026-06-01")
        assert not named["no_good_match"] and named["match"]["answered_by"] == "keywords"
    finally:
        searcher.close()


def test_the_quick_tier_is_for_the_minilm_family_and_large_runs_only():
    from tachikoma.embedders import create

    assert pipeline.quick_tier(HashingEmbedder(512), 10**6) is None
    assert pipeline.quick_tier(create("minilm"), pipeline.QUICK_TIER_MIN_CHUNKS - 1) is None
    assert pipeline.quick_tier(create("minilm"), pipeline.QUICK_TIER_MIN_CHUNKS).name.startswith("minilm-static")
    assert pipeline.quick_tier(create("minilm-int8"), 1, wanted=True) is not None


# -- the dashboard's Index panel ------------------------------------------------------------------


def test_the_index_panel_shows_phase_files_chunks_rate_and_time_left(memory, monkeypatch):
    from tachikoma_dashboard.app import create_app

    runner.run(memory, embedder_name="hash")
    app = create_app(memory=memory, port=5000)
    job = app.extensions["tachikoma"].index_job
    client = app.test_client()
    clock = [100.0]
    monkeypatch.setattr("tachikoma.web.index_job.time.monotonic", lambda: clock[0])
    job.state = job._fresh("reindex")
    job._phase = ("", clock[0])
    job._progress(3, 40, "notes/a.md")
    job._detail(reporting.RunProgress(files_done=3, files_total=40, bytes_done=300, bytes_total=4000))
    reading = client.get("/reindex/status", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert 'data-phase="reading"' in reading and "3 of 40 files read and stored (searchable by keyword" in reading

    state = reporting.RunProgress(files_done=40, files_total=40, bytes_done=4000, bytes_total=4000,
                                  phase="full vectors", chunks_total=8310)
    job._detail(state)  # the embedding phase starts now
    clock[0] += 20.0
    state.chunks_embedded = 1024
    job._detail(state)
    html = client.get("/reindex/status", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert 'data-phase="full vectors"' in html
    assert "full vectors, 1,024 of 8,310 chunks" in html and "40/40 files stored" in html
    assert "51.2 chunks/s" in html and "about 2 min left" in html  # (8310 - 1024) / 51.2 = 142 s
    assert '<progress max="8310" value="1024"' in html
    job.state = {"state": "idle"}
