"""The approximate vector index of large memories: codes, storage, incremental updates, search hook."""

from datetime import datetime, timezone

import numpy as np
import pytest

from tachikoma.indexer import runner
from tachikoma.search import vector_index
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import Filters

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def unit(rows: int, dim: int, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_nearest_by_code_finds_the_nearest_vectors():
    matrix = unit(3000, 96)
    planted = [17, 300, 1200, 2500, 2999]  # five vectors close to one another, among random ones
    close = matrix[17] + 0.3 * unit(5, 96, seed=2)
    matrix[planted] = close / np.linalg.norm(close, axis=1, keepdims=True)
    index, encoded = vector_index.build(matrix, np.arange(3000))
    assert encoded == 3000 and index.codes.shape == (3000, 2)
    q = matrix[17] + 0.3 * unit(1, 96, seed=1)[0]
    near = index.candidates(q / np.linalg.norm(q), 100)
    assert len(near) == 100 and np.all(np.diff(near) > 0)
    assert set(np.argsort(-(matrix @ q))[:5]) == set(planted) <= set(near.tolist())


def test_candidates_keep_to_the_allowed_rows():
    matrix = unit(500, 64)
    index, _ = vector_index.build(matrix, np.arange(500))
    allowed = np.zeros(500, dtype=bool)
    allowed[::7] = True
    near = index.candidates(matrix[3], 20, allowed)
    assert len(near) == 20 and allowed[near].all()
    assert set(index.candidates(matrix[3], 10_000, allowed).tolist()) == set(np.flatnonzero(allowed).tolist())


def test_stored_codes_are_used_only_for_their_own_rows(tmp_path):
    matrix, ids = unit(400, 64), np.arange(10, 410)
    built, encoded = vector_index.open_or_build(tmp_path, "abc-1", matrix, ids)
    assert encoded == 400
    again, encoded = vector_index.open_or_build(tmp_path, "abc-1", matrix, ids)
    assert encoded == 0 and np.array_equal(np.asarray(again.codes), built.codes)
    # Other rows under the same name (a file written for something else) are not trusted.
    assert vector_index._read(tmp_path, "abc-1", ids + 1) is None
    # A damaged file is rebuilt, never read.
    next(tmp_path.glob("ann-abc-1.*.codes.npy")).write_bytes(b"garbage")
    _, encoded = vector_index.open_or_build(tmp_path, "abc-1", matrix, ids)
    assert encoded == 400


def test_a_new_generation_encodes_only_its_new_or_changed_rows(tmp_path):
    matrix, ids = unit(1000, 64), np.arange(1000)
    vector_index.open_or_build(tmp_path, "abc-1", matrix, ids)
    # Rows 100-109 deleted, 1000-1004 added, and id 999 reused for another vector.
    keep = np.r_[0:100, 110:1000]
    new_matrix = np.vstack([matrix[keep], unit(5, 64, seed=3)])
    new_matrix[keep.shape[0] - 1] = unit(1, 64, seed=4)[0]
    new_ids = np.r_[ids[keep], 1000:1005]
    index, encoded = vector_index.open_or_build(tmp_path, "abc-2", new_matrix, new_ids)
    assert encoded == 6, "the five added rows and the reused id, nothing else"
    fresh, _ = vector_index.build(new_matrix, new_ids, previous=None)
    again = vector_index.encode(new_matrix, index.centre, index.rot)
    assert np.array_equal(np.asarray(index.codes), again), "every code is its own vector's"
    assert fresh.codes.shape == index.codes.shape
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 2 and names[0].startswith("ann-abc-2.") and names[0].endswith(".codes.npy") \
        and names[1] == "ann-abc-2.meta.npz", names
    # Another index (another id) lends nothing.
    _, encoded = vector_index.open_or_build(tmp_path, "xyz-3", new_matrix, new_ids)
    assert encoded == new_matrix.shape[0]


def _answers(memory, query, min_chunks, shortlist, monkeypatch, filters=None):
    monkeypatch.setattr(vector_index, "SHORTLIST", shortlist)
    s = Searcher(memory)
    s.vector_index_min_chunks = min_chunks
    try:
        return s.search(query, 10, now=NOW, filters=filters), s.snapshot().vector_index is not None
    finally:
        s.close()


@pytest.mark.parametrize("query", ["DRV8353 gate driver samples", "what coffee does the owner like",
                                   "motor controller thermal review"])
def test_search_through_the_index_answers_as_the_exact_scan(memory, monkeypatch, query):
    """With a shortlist as large as the memory the index changes nothing in the answer: same
    results, same explanations (word rarities count over the whole index, not the shortlist)."""
    runner.run(memory, embedder_name="hash")
    exact, _ = _answers(memory, query, 10**9, 10, monkeypatch)
    approx, used = _answers(memory, query, 1, 10**6, monkeypatch)
    assert used and not _answers(memory, query, 10**9, 10, monkeypatch)[1]
    assert approx["results"] == exact["results"] and approx["match"] == exact["match"]
    filtered_exact, _ = _answers(memory, query, 10**9, 10, monkeypatch, Filters(kind="markdown"))
    filtered, _ = _answers(memory, query, 1, 10**6, monkeypatch, Filters(kind="markdown"))
    assert filtered["results"] == filtered_exact["results"]


def test_a_short_shortlist_still_explains_exact_cosines_and_never_names_deleted_chunks(memory, monkeypatch):
    runner.run(memory, embedder_name="hash")
    answer, used = _answers(memory, "DRV8353 gate driver samples", 1, 3, monkeypatch)
    assert used and answer["results"]
    s = Searcher(memory)
    snap = s.snapshot()
    for r in answer["results"]:
        f = list(snap.paths).index(r["path"])
        rows = np.flatnonzero(snap.chunk_file == f)
        cosines = np.clip(np.asarray(snap.matrix[rows]) @ s.embedder.embed_query(answer["query"]), 0, 1)
        assert min(abs(cosines - r["factors"]["vector_similarity"])) < 1e-6
    s.close()
    gone = answer["results"][0]["path"]
    (memory / gone).unlink()
    runner.run(memory)
    again, _ = _answers(memory, "DRV8353 gate driver samples", 1, 3, monkeypatch)
    assert gone not in {r["path"] for r in again["results"]}
    names = sorted(p.name for p in (memory / ".cache").glob("ann-*"))
    assert len(names) == 2, names  # the new generation's codes and meta; the old ones are removed


def test_word_rarities_of_a_shortlist_count_over_the_whole_index(memory):
    from tachikoma.search.keywords import keyword_coverage, keyword_search

    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    snap = s.snapshot()
    query = "DRV8353 gate driver samples"
    matches = keyword_search(s.store, query, len(snap.chunk_ids), 200)
    whole = keyword_coverage(s.store, query, snap, matches)
    rows = np.flatnonzero(whole > 0)[:3]
    part = snap.rows(rows)
    assert part.chunk_count == len(snap.chunk_ids) > len(rows) > 0
    assert np.allclose(keyword_coverage(s.store, query, part, matches), whole[rows])
    s.close()


def test_codes_are_read_with_the_centre_they_were_built_with(tmp_path):
    """Two processes building the same generation at once (one reusing an older centre): the meta
    names its own codes file, so codes and centre always come from one build."""
    matrix, ids = unit(300, 64), np.arange(300)
    first, _ = vector_index.build(matrix, ids)
    shifted = vector_index.BinaryIndex(first.centre + 0.2, first.rot, np.zeros_like(first.codes), ids, first.probe)
    second = vector_index.BinaryIndex(shifted.centre, shifted.rot,
                                      vector_index.encode(matrix, shifted.centre, shifted.rot), ids, first.probe)
    vector_index._write(tmp_path, "abc-1", first)
    codes_of_first = next(tmp_path.glob("ann-abc-1.*.codes.npy"))
    vector_index._write(tmp_path, "abc-1", second)  # the other process's meta lands last
    read = vector_index._read(tmp_path, "abc-1", ids)
    assert np.array_equal(read.centre, second.centre) and np.array_equal(np.asarray(read.codes), second.codes)
    assert codes_of_first.exists() and not np.array_equal(first.codes, second.codes)


def test_the_shortlist_union_is_numpys():
    """`search.searcher._sorted_union` (what joins the vector shortlist and the keyword matches) is np.union1d."""
    from tachikoma.search.searcher import _sorted_union

    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 50, 5000):
        a, b = rng.integers(0, 60, n), rng.integers(0, 60, n // 3)
        assert np.array_equal(_sorted_union(a, b), np.union1d(a, b))


def test_the_shortlist_grows_with_the_index_and_as_the_codes_get_shorter():
    """The measured points (bench/bench_million.py at 1M chunks: recall@10 1.0 with 4,000 at 768 dimensions,
    0.997 with 16,000 at 384) and never below `SHORTLIST`."""
    assert vector_index.shortlist_size(1_000_000, 768) == 4_000
    assert vector_index.shortlist_size(1_000_000, 384) == 16_000
    assert vector_index.shortlist_size(100_000, 384) == vector_index.SHORTLIST
    assert vector_index.shortlist_size(300_000, 384) == 4_800
    sizes = [vector_index.shortlist_size(n, 384) for n in (20_000, 250_000, 500_000, 2_000_000)]
    assert sizes == sorted(sizes) and sizes[0] == vector_index.SHORTLIST


@pytest.mark.parametrize("query", ["What did I do last week?", "what happened last week"])
def test_a_large_memory_ranks_the_memories_of_the_time_asked_about(tmp_path, monkeypatch, query):
    """The shortlist is the chunks nearest in meaning and the keyword matches; a question about a time ranks the
    memories of that time first, and they need be neither ("What did I do last week?" is near nothing). They
    are candidates too, so a large memory answers as the exact scan does."""
    memory = tmp_path / "memory"
    memory.mkdir()
    for n in range(120):
        (memory / f"deploy-{n:03}.md").write_text(
            f"---\ndate: 2025-0{1 + n % 9}-1{n % 10}\n---\n# Deployment {n}\n\nRolled out the canary for the "
            f"kubernetes deployment {n}; the rollout of service {n} was paused twice.\n", encoding="utf-8")
    for day, text in ((24, "Picked up the new bicycle from the shop on Lindenstrasse."),
                      (26, "Dinner at Hana's; we planned the ski trip in February.")):
        (memory / f"week-{day}.md").write_text(f"---\ndate: 2026-11-{day}\n---\n# Diary\n\n{text}\n", encoding="utf-8")
    runner.run(memory, embedder_name="hash")
    exact, _ = _answers(memory, query, 10**9, 3, monkeypatch)
    approx, used = _answers(memory, query, 1, 3, monkeypatch)
    assert used and {r["path"] for r in exact["results"][:2]} == {"week-24.md", "week-26.md"}
    assert [(r["path"], r["score"]) for r in approx["results"][:2]] == [(r["path"], r["score"]) for r in
                                                                         exact["results"][:2]]
