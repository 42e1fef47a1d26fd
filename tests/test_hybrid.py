"""Hybrid relevance: FTS5 BM25 fused with vector similarity, its explanation, hostile queries."""

from datetime import datetime, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from example_memory import copy_example

from tachikoma.indexer import runner
from tachikoma.search import ranking
from tachikoma.config import Config, SearchConfig, load_config
from tachikoma.embedders.base import l2_normalise
from tachikoma.errors import TachikomaError
from tachikoma.search import explain
from tachikoma.search.keywords import keyword_search, nowhere_weight, query_terms
from tachikoma.search.scoring import rank_snapshot
from tachikoma.search.searcher import Searcher
from tachikoma.store.fts import keyword_expression
from tachikoma.store import Store

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


class TopicEmbedder:
    """Vectors by topic words only: blind to names and numbers, like a model that never saw them."""

    name = "topic:5"
    dim = 5
    max_words = 200
    TOPICS = ("invoice", "garden", "meeting", "boat")

    def _vector(self, text):
        words = text.lower().split()
        vec = np.array([sum(w.strip(".,:?") == t for w in words) for t in self.TOPICS] + [0], dtype=np.float32)
        return vec if vec.any() else np.array([0, 0, 0, 0, 1], dtype=np.float32)  # no topic: unlike everything

    def embed_documents(self, texts, progress=None):
        return l2_normalise(np.stack([self._vector(t) for t in texts]))

    def embed_query(self, text):
        return l2_normalise(self._vector(text))


def topic_memory(root, notes: dict[str, str]) -> Searcher:
    """A memory of `notes` (file name → text) in a new folder `root`, indexed with the `TopicEmbedder`: its
    searcher."""
    root.mkdir()
    for name, text in notes.items():
        (root / name).write_text(text)
    embedder = TopicEmbedder()
    runner.run(root, Config(), embedder=embedder)
    return Searcher(root, Config(), embedder=embedder)


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "memory"
    searcher = topic_memory(root, {"a.md": "# Invoice\n\nThe invoice for the garden shed was paid.\n",
                                   "b.md": "# Invoice\n\nInvoice INV-88213 from Kowalczyk went to the archive.\n",
                                   "c.md": "# Meeting\n\nThe meeting moved to Tuesday.\n",
                                   "d.md": "# Boat\n\nThe boat needs new paint before spring.\n",
                                   "e.md": "# Boat\n\nThe boat Aurora-7 sails from Gdynia.\n"})
    yield root, searcher
    searcher.close()


def test_exact_rare_name_and_number_the_vector_misses_are_found(notes):
    root, searcher = notes
    vector_only = Config(search=SearchConfig(keyword_weight=0.0))
    for query in ("Kowalczyk", "INV-88213", "what did Kowalczyk send"):
        missed = searcher.search(query, 5, now=NOW, config=vector_only)["results"]
        assert all(r["path"] != "b.md" for r in missed), "the vector alone does not find it"
        answer = searcher.search(query, 5, now=NOW)
        hybrid = answer["results"]
        assert hybrid and hybrid[0]["path"] == "b.md", query
        # whole unless a word of the query is in no note ("send": the note says it "went to the archive")
        assert (hybrid[0]["factors"]["keyword_score"] == 1.0) == (not answer["keywords_nowhere"]), query


def test_keyword_breaks_a_tie_the_vector_cannot(notes):
    _, searcher = notes
    # Both boat notes are equally close to "boat" for the vector; only e.md names the Aurora-7.
    results = searcher.search("boat Aurora-7", 5, now=NOW)["results"]
    assert [r["path"] for r in results[:2]] == ["e.md", "d.md"]
    e, d = results[0]["factors"], results[1]["factors"]
    assert e["vector_similarity"] == pytest.approx(d["vector_similarity"])
    assert e["keyword_score"] > d["keyword_score"]


def test_explanation_shows_both_parts_and_the_product_still_holds(notes):
    _, searcher = notes
    answer = searcher.search("garden invoice Kowalczyk", 10, now=NOW)
    assert answer["results"]
    w = Config().search.keyword_weight
    for r in answer["results"]:
        f = r["factors"]
        assert f["fusion"] == {"method": "convex", "keyword_weight": w}
        assert 0 <= f["vector_similarity"] <= 1 and 0 <= f["keyword_score"] <= 1
        assert f["similarity"] == pytest.approx((1 - w) * f["vector_similarity"] + w * f["keyword_score"], rel=1e-12)
        product = f["similarity"] * f["trust_weight"] * f["confidence_weight"] * f["recency"] * f["duplicate_penalty"]
        assert r["score"] == pytest.approx(product, rel=1e-12)
    assert max(r["factors"]["keyword_score"] for r in answer["results"]) == 1.0


def test_weight_and_method_come_from_tachikoma_toml(notes):
    root, _ = notes
    (root / "tachikoma.toml").write_text('[search]\nkeyword_weight = 0\n')
    s = Searcher(root, embedder=TopicEmbedder())
    for r in s.search("garden invoice", 5, now=NOW)["results"]:
        assert r["factors"]["similarity"] == r["factors"]["vector_similarity"]
        assert r["factors"]["fusion"]["keyword_weight"] == 0.0
    s.close()
    (root / "tachikoma.toml").write_text('[search]\nfusion = "rrf"\nkeyword_weight = 0.5\nrrf_k = 10\n')
    s = Searcher(root, embedder=TopicEmbedder())
    results = s.search("Kowalczyk invoice", 5, now=NOW)["results"]
    s.close()
    assert results[0]["path"] == "b.md"  # first in both lists: (1 − w) + w = 1
    assert results[0]["factors"]["similarity"] == pytest.approx(1.0)
    assert results[0]["factors"]["fusion"] == {"method": "rrf", "keyword_weight": 0.5, "rrf_k": 10.0}


@pytest.mark.parametrize("toml, message", [
    ("[search]\nkeyword_weight = 1.5\n", "search.keyword_weight must be a number between 0 and 1"),
    ("[search]\nkeyword_weight = true\n", "search.keyword_weight must be a number between 0 and 1"),
    ('[search]\nfusion = "max"\n', "search.fusion must be one of convex, rrf"),
    ("[search]\nkeyword_candidates = 0\n", "search.keyword_candidates must be a whole number"),
    ("[search]\nweight = 0.3\n", "unknown key search.weight"),
])
def test_search_settings_are_checked(tmp_path, toml, message):
    (tmp_path / "tachikoma.toml").write_text(toml)
    with pytest.raises(TachikomaError, match=message):
        load_config(tmp_path)


def test_fusion_functions():
    cfg = SearchConfig(keyword_weight=0.25)
    fused = ranking.fuse(np.array([0.8, 0.0, 0.4]), np.array([0.0, 1.0, 0.5]), cfg)
    assert fused.tolist() == pytest.approx([0.6, 0.25, 0.425])
    assert ranking.keyword_relevance(np.array([-2.0, np.nan, -0.5])).tolist() == [1.0, 0.0, 0.25]
    assert ranking.keyword_relevance(np.array([np.nan, np.nan])).tolist() == [0.0, 0.0]
    # words found nowhere weigh on every match: the best one is no longer whole
    assert ranking.keyword_relevance(np.array([-2.0, np.nan, -0.5]), nowhere=2.0).tolist() == [0.5, 0.0, 0.125]
    assert ranking.keyword_relevance(np.array([np.nan]), nowhere=2.0).tolist() == [0.0]
    assert ranking.rrf_ranks(np.array([0.1, 0.0, 0.9, 0.5]), 2).tolist() == [0, 0, 1, 2]
    rrf = ranking.fuse(np.array([0.9, 0.5, 0.0]), np.array([0.0, 1.0, 0.2]), SearchConfig(keyword_weight=0.5,
                                                                                         fusion="rrf", rrf_k=1))
    # ranks: vector 1, 2, –; keyword –, 1, 2 → 2 × (0.5/(1+r_v) + 0.5/(1+r_k))
    assert rrf.tolist() == pytest.approx([0.5, 0.5 * 2 / 3 + 0.5, 0.5 * 2 / 3])


def test_words_found_nowhere_are_counted_as_missing_from_every_match():
    words, weight = nowhere_weight({"mattress": 0, "old": 3, "rid": 0}, 10)
    assert words == ["mattress", "rid"]
    assert weight == pytest.approx(2 * np.log(10.5 / 0.5))  # FTS5's idf of a word in none of 10 chunks, each
    assert nowhere_weight({"old": 3}, 10) == ([], 0.0)
    assert nowhere_weight({"old": 0}, 0) == (["old"], 0.0)


def test_how_many_is_no_missing_word(tmp_path):
    # "How many books did I read?" in a memory that never says "many": it printed "not in this memory: “many”"
    # and lowered every keyword match (the right note's 1.00 to 0.63), as a missing subject would.
    assert nowhere_weight({"many": 0, "books": 2, "read": 1}, 10) == ([], 0.0)
    searcher = topic_memory(tmp_path / "memory", {
        "books.md": "# Books\nRead this year: Kairos, Demon Copperhead, Orbital.\n",
        "garden.md": "# Garden\nThe roses need cutting back in March.\n",
        "car.md": "# Car\nThe inspection is due in spring.\n"})
    try:
        answer = searcher.search("how many books did I read", 3)
    finally:
        searcher.close()
    assert answer["keywords_nowhere"] == [] and answer["keywords"] == ["books", "read"]
    first = answer["results"][0]
    assert first["path"] == "books.md" and first["factors"]["keyword_score"] == pytest.approx(1.0)


def test_a_memory_whose_held_words_weigh_nothing_keeps_its_keyword_match_relative(tmp_path):
    """In a memory of two notes a word in one of them has FTS5's floor idf (1e-6): a word found nowhere
    would weigh a million times more and wipe out the keyword part, so it is not weighed there."""
    assert nowhere_weight({"dentist": 1, "checkup": 0}, 2) == ([], 0.0)
    assert nowhere_weight({"dentist": 1, "checkup": 0}, 3)[0] == ["checkup"]  # idf log(2.5/1.5) > 0 counts
    searcher = topic_memory(tmp_path / "memory", {
        "dentist.md": "# Dentist\nMy dentist appointment is on Tuesday at 9:30 with Dr. Weber.\n",
        "groceries.md": "# Groceries\nBuy oat milk, coffee beans and rye bread.\n"})
    try:
        answer = searcher.search("when is my dentist checkup", 2)
    finally:
        searcher.close()
    assert answer["keywords_nowhere"] == []
    first = answer["results"][0]
    assert first["path"] == "dentist.md" and first["factors"]["keyword_score"] == pytest.approx(1.0)


def test_an_english_query_with_a_word_found_nowhere_gives_no_whole_keyword_match(notes):
    _, searcher = notes
    whole = searcher.search("Kowalczyk invoice", 5, now=NOW)
    assert whole["keywords_nowhere"] == [] and whole["results"][0]["factors"]["keyword_score"] == 1.0
    # "zebra" is in no note: the note that names Kowalczyk holds two of the three words
    partial = searcher.search("Kowalczyk invoice zebra", 5, now=NOW)
    assert partial["keywords_nowhere"] == ["zebra"]
    best = partial["results"][0]
    assert best["path"] == "b.md"
    assert 0.3 < best["factors"]["keyword_score"] < 0.9
    explained = {f.name: f.why for f in explain.factors(best)}
    assert "found nowhere" in explained["keywords"]
    # a question in another language is not held to it (its inflections are found nowhere more often)
    german = searcher.search("Wann ist die Rechnung von Kowalczyk fällig?", 5, now=NOW)
    assert german["keywords_nowhere"] == []
    assert max(r["factors"]["keyword_score"] for r in german["results"]) == 1.0


def test_rank_snapshot_without_keyword_scores_is_vector_only(notes):
    _, searcher = notes
    snap = searcher.snapshot()
    q = TopicEmbedder().embed_query("garden")
    cfg = Config(search=SearchConfig(keyword_weight=0.0))
    answer = rank_snapshot(snap, q, 5, cfg, now=NOW)
    assert answer["factors"][0]["similarity"] == answer["factors"][0]["vector_similarity"]
    assert answer["factors"][0]["keyword_score"] == 0.0


def test_query_terms_and_expression():
    assert query_terms('say "hi" AND (bye OR NEAR/3) x* ^y col:umn') == \
        ["say", "hi", "AND", "bye", "OR", "NEAR", "3", "x", "y", "col", "umn"]
    assert query_terms("Hi hi HI") == ["Hi"]
    # A Japanese run gives the character pairs of its words, cut at its particles (segment.query_words,
    # tests/test_japanese_words.py): not "語の", "のテ".
    assert query_terms("日本語のテキスト café naïve") == ["日本", "本語", "テキ", "キス", "スト", "café", "naïve"]
    assert query_terms("😀 ✨ --- \x00 \u200b") == []
    assert keyword_expression(["AND", "x"]) == '"AND" OR "x"'
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == 32


def _fts(folder, texts):
    """A real SQLite store holding `texts` as chunks 1, 2, ... of one file (zero vectors)."""
    store = Store(folder / f"index-{len(list(folder.glob('index-*.db')))}.db")
    with store.writing():
        store.replace_file({"path": "a.md", "kind": "markdown", "sha256": "x", "size": 1, "mtime_ns": 1},
                           [(i, 1, 1, text, str(i), bytes(8), None) for i, text in enumerate(texts)])
    return store


def test_words_in_most_chunks_and_over_the_budget_are_left_out(tmp_path):
    db = _fts(tmp_path, ["the cat sat", "the dog ran", "the cow slept", "a zebra ate"])
    assert keyword_search(db, "the", 4, 10) == []  # in 3 of 4 chunks: no BM25 weight
    assert [r for r, _ in keyword_search(db, "the zebra", 4, 10)] == [4]
    # A memory of one chunk: its words are in "more than half" of the chunks, and still match.
    assert [r for r, _ in keyword_search(_fts(tmp_path, ["Martin prefers short meetings"]), "Martin meetings", 1, 10)] == [1]
    db = _fts(tmp_path, [f"alpha {i}" if i % 2 else f"beta {i}" for i in range(100)] + ["gamma"])
    # alpha and beta are each in 50 of 101 chunks; with a budget of 60 postings only gamma and one of them fit
    ids = {r for r, _ in keyword_search(db, "alpha beta gamma", 101, None, postings=60)}
    assert 101 in ids and len(ids) == 51


HOSTILE = ['"', '""', "'", "AND", "OR", "NOT", "a AND", "NEAR(a b, 3)", "*", "a*", "^start", "(", ")", "((a)",
           "text:foo", ":", "-x", "+y", "a\x00b", "\\", "日本語", "حروف عربية", "😀🔥", "{col}", "a OR OR b",
           "NOT NOT", "near/2", "\u200b", "x" * 5000, "🇫🇷 café", "D8:6; D9:17", "'; DROP TABLE chunks; --"]


@pytest.fixture(scope="module")
def example_searcher(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("hostile") / "memory")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    yield s
    s.close()


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_do_not_crash(example_searcher, query):
    if not query.strip():
        return
    answer = example_searcher.search(query, 5, now=NOW)
    assert isinstance(answer["results"], list)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_any_text_is_a_safe_keyword_query(example_searcher, text):
    snap = example_searcher.snapshot()
    for _rowid, score in keyword_search(example_searcher.store, text, len(snap.chunk_ids), 50):
        assert score <= 0
    if text.strip():
        example_searcher.search(text, 3, now=NOW)


def test_english_function_words_are_not_keywords(tmp_path):
    db = _fts(tmp_path, ["what did you do", "zebra stripes", "the cat did run", "a dog", "an owl"])
    assert keyword_search(db, "what did you do", 5, 10) == []
    assert [r for r, _ in keyword_search(db, "What did the zebra do?", 5, 10)] == [2]
    assert query_terms("What did the zebra do", skip=frozenset({"what", "did", "the", "do"})) == ["zebra"]


def test_capitalised_stop_words_after_the_first_word_are_kept():
    from tachikoma.search.keywords import STOPWORDS, query_terms

    assert query_terms("What did Melanie do in May 2023?", skip=STOPWORDS) == ["Melanie", "May", "2023"]
    assert query_terms("May I ask what Will said", skip=STOPWORDS) == ["ask", "Will"]  # "said" says what is asked
    assert query_terms("what may break", skip=STOPWORDS) == ["break"]
