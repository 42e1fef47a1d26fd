"""Search through the real index: JSON shape, explanations, filters, dates."""

from datetime import datetime, timezone

import numpy as np
import pytest

from tachikoma.reading import dates
from tachikoma import freshness
from tachikoma.indexer import runner
from tachikoma.config import RECENCY_PRESETS, load_config
from tachikoma.errors import EmbedderMismatch, TachikomaError
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import Filters

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
FACTOR_KEYS = {"similarity", "trust", "trust_weight", "confidence", "confidence_weight", "age_days", "date_source",
               "recency", "duplicate_penalty"}


@pytest.fixture
def searcher(git_memory):
    runner.run(git_memory, embedder_name="hash")
    s = Searcher(git_memory)
    yield s
    s.close()


def test_json_shape_and_score_is_the_product_of_its_factors(searcher):
    answer = searcher.search("DRV8353 gate driver samples", limit=10, now=NOW)
    assert answer["query"] == "DRV8353 gate driver samples"
    assert answer["results"], "the example memory mentions the DRV8353 several times"
    for r in answer["results"]:
        assert set(r) >= {"path", "chunk", "lines", "text", "score", "factors"}
        assert isinstance(r["lines"], list) and r["lines"][0] <= r["lines"][1]
        f = r["factors"]
        assert set(f) >= FACTOR_KEYS
        assert f["date_source"] in ("transcript", "frontmatter", "path", "git", "git-import", "mtime")
        assert f["date_trust"] == dates.TRUST[f["date_source"]]
        product = f["similarity"] * f["trust_weight"] * f["confidence_weight"] * f["recency"] * f["duplicate_penalty"]
        assert r["score"] == pytest.approx(product, rel=1e-12)
        rule = RECENCY_PRESETS["default"]
        age = max(f["age_days"], rule.half_life_days) if f["date_trust"] == "weak" else f["age_days"]
        expected = rule.floor + (1 - rule.floor) / (1 + age / rule.half_life_days)
        expected *= rule.superseded if f["recency_reason"] == "superseded" else 1.0
        assert f["recency"] == (1.0 if f["recency_reason"] == "evergreen" else pytest.approx(expected))
    scores = [r["score"] for r in answer["results"]]
    assert scores == sorted(scores, reverse=True)


def test_explanations_name_tags_and_date_sources(searcher):
    results = searcher.search("Martin meeting stand-up agenda coffee", limit=20, now=NOW)["results"]
    by_path = {r["path"]: r["factors"] for r in results}
    martin = by_path["martin.md"]
    assert (martin["trust"], martin["trust_weight"], martin["confidence"], martin["confidence_weight"]) == \
        ("owner", 1.0, "high", 1.0)
    assert martin["date_source"] == "frontmatter"
    assert martin["age_days"] == pytest.approx(11.0)  # updated: 2026-11-20
    meeting = by_path.get("2026-03-22/meeting-notes.md")
    if meeting:
        # dated by its folder's name, before git
        assert meeting["date_source"] == "path" and meeting["date"] == "2026-03-22T00:00:00+00:00"
        assert meeting["trust"] is None and meeting["trust_weight"] == 0.6


def test_at_most_two_chunks_per_file(memory):
    (memory / "big.md").write_text("\n".join(f"## Part {i}\n\n" + "ferrofluid pump " * 150 for i in range(6)))
    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    results = s.search("ferrofluid pump", limit=10, now=NOW)["results"]
    s.close()
    big = [r for r in results if r["path"] == "big.md"]
    assert len(big) == 2
    assert [r["factors"]["duplicate_penalty"] for r in big] == [1.0, 0.8]


def test_filters(searcher):
    q = "DRV8353 heat sink Jonas"
    kinds = {r["kind"] for r in searcher.search(q, 20, Filters(kind="transcript"), NOW)["results"]}
    assert kinds == {"transcript"}
    trusted = searcher.search(q, 20, Filters(trust="untrusted"), NOW)["results"]
    assert {r["path"] for r in trusted} == {"rumours.md"}
    untagged = searcher.search(q, 20, Filters(untagged=True), NOW)["results"]
    assert untagged and all(r["factors"]["trust"] is None and r["factors"]["confidence"] is None for r in untagged)


def test_weights_apply_at_query_time_without_reindex(git_memory, searcher):
    q = "Martin meeting stand-up agenda"
    before = {r["path"]: r["factors"]["trust_weight"] for r in searcher.search(q, 20, now=NOW)["results"]}
    (git_memory / "tachikoma.toml").write_text("[ranking.trust]\nowner = 0.25\n")
    fresh = Searcher(git_memory)
    after = {r["path"]: r for r in fresh.search(q, 20, now=NOW)["results"]}
    fresh.close()
    assert before["martin.md"] == 1.0 and after["martin.md"]["factors"]["trust_weight"] == 0.25


def test_config_errors_are_clear(git_memory):
    (git_memory / "tachikoma.toml").write_text("[ranking.trust]\nowner = 7\n")
    with pytest.raises(TachikomaError, match="ranking.trust.owner must be a number between 0 and 1"):
        load_config(git_memory)


def test_searcher_reloads_after_the_index_changes(memory):
    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    assert not s.search("zanzibar quokka", 5, now=NOW)["results"]
    (memory / "zoo.md").write_text("# Zoo\n\nThe zanzibar quokka exhibit opens in June.\n")
    runner.run(memory)
    assert s.search("zanzibar quokka", 5, now=NOW)["results"][0]["path"] == "zoo.md"
    s.close()


def test_no_index_and_wrong_embedder_are_clear_errors(memory):
    with pytest.raises(TachikomaError, match="run `tachikoma index`"):
        Searcher(memory)
    assert not (memory / ".cache" / "index.db").exists(), "searching must not create an index"
    runner.run(memory, embedder_name="hash")
    with pytest.raises(EmbedderMismatch, match="--reembed"):
        Searcher(memory, embedder_name="hash:64")


def test_empty_query_is_refused(searcher):
    with pytest.raises(TachikomaError, match="empty query"):
        searcher.search("   ")


def test_no_result_without_any_shared_signal(searcher):
    assert searcher.search("xylophone", 5, now=NOW)["results"] == []


def test_vector_cache_is_written_used_and_replaced(memory):
    runner.run(memory, embedder_name="hash")
    cache = memory / ".cache"
    s = Searcher(memory)
    first = s.search("DRV8353 samples", 5, now=NOW)
    s.close()
    files = sorted(p.name for p in cache.glob("vectors-*.npy"))
    assert len(files) == 3, files  # matrix, ids, dates
    s = Searcher(memory)
    snap = s.snapshot()
    assert isinstance(snap.matrix, np.memmap), "a cold search maps the cache instead of reading SQLite"
    assert s.search("DRV8353 samples", 5, now=NOW)["results"] == first["results"]
    s.close()
    (memory / "zoo.md").write_text("# Zoo\n\nThe zanzibar quokka exhibit opens in June.\n")
    runner.run(memory)
    s = Searcher(memory)
    assert s.search("zanzibar quokka", 5, now=NOW)["results"][0]["path"] == "zoo.md"
    s.close()
    assert len(list(cache.glob("vectors-*.npy"))) == 3, "the old generation's cache is removed"


def test_damaged_vector_cache_is_rebuilt(memory):
    runner.run(memory, embedder_name="hash")
    Searcher(memory).close()
    s = Searcher(memory)
    s.snapshot()
    s.close()
    for f in (memory / ".cache").glob("vectors-*.npy"):
        f.write_bytes(b"garbage")
    s = Searcher(memory)
    assert s.search("DRV8353 samples", 5, now=NOW)["results"]
    s.close()


def test_a_write_between_snapshot_and_chunk_texts_cannot_break_a_search(memory, monkeypatch):
    # The dashboard keeps one Searcher while `tachikoma index` rewrites chunks: the search
    # must read the snapshot and the chunk texts from the same state of the index.
    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    s.search("DRV8353 samples", 5, now=NOW)
    from tachikoma.search import searcher as search_module

    original = search_module.rank_snapshot

    def rank_then_reindex(*args, **kwargs):
        answer = original(*args, **kwargs)
        (memory / "2026-03-22" / "session-abc.jsonl").write_text(
            '{"role": "user", "content": "DRV8353 samples replaced entirely"}\n')
        runner.run(memory)  # deletes and re-inserts that file's chunks in another connection
        return answer

    monkeypatch.setattr(search_module, "rank_snapshot", rank_then_reindex)
    results = s.search("DRV8353 samples", 5, now=NOW)["results"]
    s.close()
    assert results and "2026-03-22/session-abc.jsonl" in {r["path"] for r in results}


def test_a_mismatch_names_where_the_embedder_was_chosen(memory, capsys):
    from tachikoma import cli

    runner.run(memory, embedder_name="hash")
    with pytest.raises(EmbedderMismatch, match=r"not hash:64 \(from --embedder\).*or drop --embedder"):
        Searcher(memory, embedder_name="hash:64")
    (memory / "tachikoma.toml").write_text('[embedder]\nname = "hash:64"\n')
    assert cli.main(["--memory", str(memory), "search", "anything"]) == 1
    err = capsys.readouterr().err
    assert f"(from [embedder] name in {memory / 'tachikoma.toml'})" in err
    assert "set it to \"auto\" (it asks for 'hash:64') to keep using the index's own" in err
    assert "drop --embedder" not in err


def test_a_rebuilt_index_never_reads_the_old_index_vector_cache(memory):
    """The cache is named by the index's own id and its generation: an index deleted and built again
    (generation counting from 0 again) at the same generation does not map the old vectors."""
    from tachikoma.store import Store

    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    s.search("DRV8353 samples", 5, now=NOW)
    old_generation = s.store.generation
    one_chunk = s.store.db.execute("SELECT f.path FROM files f JOIN chunks c ON c.file_id = f.id "
                                   "WHERE f.kind = 'markdown' GROUP BY f.id HAVING count(*) = 1").fetchone()[0]
    s.close()
    (memory / ".cache" / "index.db").unlink()
    for extra in (memory / ".cache").glob("index.db-*"):
        extra.unlink()
    # The same number of chunks as before, one of them saying something new.
    (memory / one_chunk).write_text("# Zoo\n\nThe zanzibar quokka exhibit opens in June.\n")
    runner.run(memory, embedder_name="hash")
    with Store(memory / ".cache" / "index.db") as store, store.db:
        store.set_meta("generation", str(old_generation))  # the old cache's generation, by chance
    s = Searcher(memory)
    top = s.search("zanzibar quokka", 5, now=NOW)["results"][0]
    assert top["path"] == one_chunk and top["factors"]["vector_similarity"] > 0.3
    s.close()


def test_a_failing_freshness_check_fails_the_search(memory, monkeypatch):
    """The freshness walk runs in a thread beside the ranking; what goes wrong there is the search's error."""
    runner.run(memory, embedder_name="hash")

    def broken(root, store, config_path=None):
        raise TachikomaError("cannot list the memory folder")
    monkeypatch.setattr(freshness, "answer_freshness", broken)
    s = Searcher(memory)
    with pytest.raises(TachikomaError, match="cannot list"):
        s.search("DRV8353 samples", 5, now=NOW)
    s.close()


def test_evergreen_globs_match_as_one_by_one(tmp_path):
    from tachikoma.globs import name_or_path_mask, name_or_path_matcher, name_or_path_matches

    patterns = ["identity.md", "MEMORY.md", "notes/*.md", "**/x?.jsonl", "a/b/", "[!a]*.MD", "dir", "*.[m]d", "Q*",
                "kelvin.md", "Straße.md"]
    paths = ["identity.md", "IDENTITY.MD", "memory.md", "notes/a.md", "notes/x/a.md", "x1.jsonl", "d/x2.jsonl",
             "a/b/c.md", "b.md", "ab.md", "dir/f.md", "dirx/f.md", "q.md", "z/Qa.md", "[x].md", "a/memory.MD",
             "n/\u212aelvin.md", "STRASSE.md", "straße.MD", "d/İdentity.md"]
    for count in (1, 2, 9, 11):
        for start in range(len(patterns) - count + 1):
            chosen = tuple(patterns[start:start + count])
            matches = name_or_path_matcher(chosen)
            for path in paths:
                assert matches(path) == any(name_or_path_matches(g, path) for g in chosen), (chosen, path)
            assert name_or_path_mask(chosen, paths) == [matches(p) for p in paths], chosen
