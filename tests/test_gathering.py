"""A question that gathers from several memories ("how many", "in total") is read again with the best
passages of the files it matched best (pseudo-relevance feedback: `ranking.widened_query`,
`scoring.rank_snapshot`'s `gather`), and says so."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tachikoma.config import Config, load_config
from tachikoma.embedders.base import l2_normalise
from tachikoma.humanize import widened_text
from tachikoma.indexer import runner
from tachikoma.search import explain, ranking
from tachikoma.language.function_words import question_language
from tachikoma.search.keywords import COUNTING, GATHERING, counts_in, gathers_in
from tachikoma.search.pool import merge_answers
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import Filters

AS_OF = "2026-12-01"


class Nearest:
    """Exact nearest neighbours in place of `vector_index`'s: what is tested is the searcher's shortlist."""

    def __init__(self, matrix):
        self.matrix = np.asarray(matrix)

    def distances(self, qvec):
        return -(self.matrix @ qvec)

    def candidates(self, qvec, count, allowed=None, dist=None):
        return np.sort(np.argsort(self.distances(qvec) if dist is None else dist, kind="stable")[:count])


class HarbourEmbedder:
    """Vectors by two topic words: "boat" and "harbour" (anything else: a direction of its own)."""

    name = "harbour:3"
    dim = 3
    max_words = 200

    def _vector(self, text):
        words = [w.strip(".,:?!").lower() for w in text.split()]
        vec = np.array([words.count("boat"), words.count("harbour"), 0], dtype=np.float32)
        return vec if vec.any() else np.array([0, 0, 1], dtype=np.float32)

    def embed_documents(self, texts, progress=None):
        return l2_normalise(np.stack([self._vector(t) for t in texts]))

    def embed_query(self, text):
        return l2_normalise(self._vector(text))


NOTES = {
    "one.md": "---\ntrust: owner\n---\n# One\nboat harbour boat\n",
    "two.md": "# Two\nboat harbour\n",
    "three.md": "# Three\nboat harbour harbour\n",
    "four.md": "# Four\nharbour\n",  # nothing of the question's own meaning: found only by what the others say
    "five.md": "# Five\nlemons\n",
}


def memory_of(root, notes: dict[str, str]):
    root.mkdir()
    for name, text in notes.items():
        (root / name).write_text(text)
    runner.run(root, Config(), embedder=HarbourEmbedder())
    return root


@pytest.fixture
def harbour(tmp_path):
    return memory_of(tmp_path / "memory", NOTES)


def ask(root, query, config=None, **options):
    searcher = Searcher(root, config or load_config(root), embedder=HarbourEmbedder())
    try:
        return searcher.search(query, 5, as_of=AS_OF, min_score=0.0, **options)
    finally:
        searcher.close()


def test_the_widened_query_is_the_question_moved_towards_the_mean_of_its_best_passages():
    q = l2_normalise(np.array([1.0, 0.0, 0.0], dtype=np.float32))
    rows = l2_normalise(np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]], dtype=np.float32))
    wide = ranking.widened_query(q, rows, 1.0)
    mean = rows.mean(axis=0)
    expected = q + mean / np.linalg.norm(mean)
    assert np.linalg.norm(wide) == pytest.approx(1.0)
    assert wide == pytest.approx(expected / np.linalg.norm(expected))
    assert ranking.widened_query(q, rows, 0.0) == pytest.approx(q)


def test_gathering_is_how_many_and_in_total_not_how_much():
    assert GATHERING.search("How many boat trips did I take?") and GATHERING.search("what did I spend in total")
    assert GATHERING.search("the total of my invoices") and GATHERING.search("all the boats I sailed")
    assert not GATHERING.search("How much is the harbour fee?") and COUNTING.search("How much is the harbour fee?")


def test_a_question_that_gathers_finds_a_memory_only_its_best_files_lead_to(harbour):
    answer = ask(harbour, "How many boat trips in total?")
    assert answer["widened_by"] == [{"path": "one.md"}, {"path": "two.md"}, {"path": "three.md"}]
    found = {r["path"]: r["factors"] for r in answer["results"]}
    assert found["four.md"]["meaning_from_question"] == 0.0 and found["four.md"]["vector_similarity"] > 0.2
    assert "lemons" not in " ".join(r["text"] for r in answer["results"])  # far from both: still nothing
    first = answer["results"][0]["factors"]
    assert first["meaning_from_question"] == pytest.approx(2 / np.sqrt(5), abs=1e-6)  # cos((1,0,0), (2,1,0))
    # "no good match" reads the question's own meaning, not the widened one
    assert answer["match"]["best_vector_similarity"] == pytest.approx(2 / np.sqrt(5), abs=1e-6)
    why = explain.meaning_why(first)
    assert why.endswith(f"{explain.WIDENED}: 0.89 from the question alone")
    assert widened_text(answer) == ("a question that gathers from several memories: read together with one.md, "
                                    "two.md and three.md, the files it matched best")


def test_the_floor_decides_on_the_question_alone(harbour):
    # widened, one.md's meaning passes 0.95; the question alone gives it 0.89, and four.md nothing
    searcher = Searcher(harbour, load_config(harbour), embedder=HarbourEmbedder())
    try:
        answer = searcher.search("How many boat trips in total?", 5, as_of=AS_OF, min_score=0.95)
        widened = searcher.search("How many boat trips in total?", 5, as_of=AS_OF, min_score=0.0)
    finally:
        searcher.close()
    assert widened["results"][0]["factors"]["vector_similarity"] > 0.95
    assert answer["no_good_match"] and answer["results"] == [] and answer["widened_by"] == []  # names nothing


def test_questions_that_do_not_gather_and_feedback_off_are_read_as_asked(harbour):
    for query, config in (("How much is a boat trip?", None),
                          ("boat trips", None),
                          ("Wie viel kostet ein boat trip?", None),  # another language's "how much": no gathering
                          ("How many boat trips in total?",
                           replace(Config(), search=replace(Config().search, feedback_files=0)))):
        answer = ask(harbour, query, config)
        assert answer["widened_by"] == [] and widened_text(answer) is None, query
        assert "four.md" not in {r["path"] for r in answer["results"]}, query
        assert all("meaning_from_question" not in r["factors"] for r in answer["results"]), query


@pytest.mark.parametrize("query, gathers", [
    ("Combien de voyages en bateau au total ?", True),
    ("Wie viele Bootsfahrten hatten wir insgesamt?", True),
    ("Was kostet die Krone insgesamt?", True),  # too short to be told German: every language's words
    ("¿Cuántos viajes en barco hicimos?", True),
    ("Quantos livros li este ano?", True),
    ("看中医一共花了多少钱？", True),
    ("ボートには何回乗った？", True),
    ("보트를 몇 번 탔어?", True),
    ("인천에 몇 시에 도착해?", False),  # 몇 시: what time
    ("Das Konzert war total gut, wo war es?", False),  # German "total": totally
    ("Wie viel kostet die Miete?", False),  # "how much": one amount (measured, docs/evaluation.md)
    ("Quanto passou a ser a renda?", False),
])
def test_a_question_gathers_by_the_words_of_its_language(query, gathers):
    language = question_language(query)
    assert gathers_in(query, language) is gathers and counts_in(query, language) is gathers


def test_a_question_in_another_language_that_gathers_is_widened_and_counts(harbour):
    search = Config().search
    for query in ("Combien de boat trips au total ?", "Wie viele boat trips hatten wir insgesamt?"):
        answer = ask(harbour, query)
        assert answer["widened_by"] == [{"path": "one.md"}, {"path": "two.md"}, {"path": "three.md"}], query
        assert {r["factors"]["fusion"]["keyword_weight"] for r in answer["results"]} == {
            search.counting_keyword_weight}, query
    weight = {r["factors"]["fusion"]["keyword_weight"] for r in ask(harbour, "Das war total gut, boat?")["results"]}
    assert weight == {search.keyword_weight}


def test_widening_takes_only_files_the_search_may_show(harbour):
    answer = ask(harbour, "How many boat trips in total?", filters=Filters(untagged=True))  # one.md is tagged
    assert answer["widened_by"] == [{"path": "two.md"}, {"path": "three.md"}]  # four.md: nothing to widen by
    assert "one.md" not in {r["path"] for r in answer["results"]}


def test_several_memories_list_each_ones_widening_with_its_name():
    a = {"widened_by": [{"path": "one.md"}], "keywords_nowhere": [], "keywords": [], "results": [],
         "no_good_match": True, "match": {"best_vector_similarity": 0.1, "best_keyword_coverage": None}}
    b = dict(a, widened_by=[{"path": "x.md"}])
    merged = merge_answers([a, b], 5, ["home", "work"])
    assert merged["widened_by"] == [{"path": "one.md", "memory": "home"}, {"path": "x.md", "memory": "work"}]
    assert widened_text(merged).endswith("read together with [home] one.md and [work] x.md, the files it matched best")


def test_feedback_files_must_be_a_whole_number(tmp_path):
    for value in ("-1", "1.5", "true"):
        (tmp_path / "tachikoma.toml").write_text(f"[search]\nfeedback_files = {value}\n")
        with pytest.raises(Exception, match="search.feedback_files must be a whole number"):
            load_config(tmp_path)


def test_on_a_shortlist_the_widened_question_brings_its_own_nearest(harbour, monkeypatch):
    # A large index scores a shortlist: the question's nearest chunks and its keyword matches. four.md is
    # neither (its meaning for the question is 0), so the widened question's own nearest are added to it.
    from tachikoma.search import vector_index

    monkeypatch.setattr(vector_index, "open_or_build", lambda folder, key, matrix, ids: (Nearest(matrix), False))
    monkeypatch.setattr(vector_index, "shortlist_size", lambda n, dim: 4)  # the question's: five.md, not four.md
    searcher = Searcher(harbour, load_config(harbour), embedder=HarbourEmbedder())
    exact = Searcher(harbour, load_config(harbour), embedder=HarbourEmbedder())
    searcher.vector_index_min_chunks = 2  # every index is "large"
    try:
        plain = searcher.search("boat trips", 5, as_of=AS_OF, min_score=0.0)
        answer = searcher.search("How many boat trips in total?", 5, as_of=AS_OF, min_score=0.0)
        truth = exact.search("How many boat trips in total?", 5, as_of=AS_OF, min_score=0.0)
        assert searcher.snapshot().vector_index is not None  # the shortlist was taken
    finally:
        searcher.close()
        exact.close()
    assert "four.md" not in {r["path"] for r in plain["results"]}
    assert [(r["path"], r["score"]) for r in answer["results"]] == [(r["path"], r["score"]) for r in truth["results"]]
    assert "four.md" in {r["path"] for r in answer["results"]} and answer["widened_by"] == truth["widened_by"]


def test_a_search_cut_to_a_budget_reads_the_question_as_asked(harbour):
    # A budget's passages should hold the answer's own lines: the widened question favours what its best
    # files say in general (docs/evaluation.md, "A question that gathers"), so it is not widened there.
    from tachikoma.search.pool import Searchers, search_as_asked

    asked = {"query": "How many boat trips in total?", "limit": 5, "min_score": 0.0, "as_of": AS_OF}
    searchers = Searchers()
    try:
        own = lambda config: searchers.use("harbour", lambda: Searcher(harbour, config, embedder=HarbourEmbedder()))  # noqa: E731
        ranked = search_as_asked(harbour, load_config(harbour), searchers, asked, own)
        budgeted = search_as_asked(harbour, load_config(harbour), searchers, dict(asked, budget_tokens=300), own)
    finally:
        searchers.close()
    assert [w["path"] for w in ranked["widened_by"]] == ["one.md", "two.md", "three.md"]
    assert budgeted["widened_by"] == [] and budgeted["budget"]["passages"]
    assert "four.md" not in {p["path"] for p in budgeted["budget"]["passages"]}


def test_the_files_that_widen_are_those_of_the_best_results_tags_included(tmp_path):
    # An untrusted, speculative note closest in meaning does not steer the question: the files that widen
    # it are those of its best results as it ranks them alone (0.95 × 0.25 is below three.md's 0.45 × 1.0).
    owner = "---\ntrust: owner\nconfidence: high\n---\n"
    root = memory_of(tmp_path / "memory", {
        "one.md": owner + "# One\nboat harbour boat\n", "two.md": owner + "# Two\nboat harbour\n",
        "three.md": owner + "# Three\nboat harbour harbour\n",
        "rumour.md": "---\ntrust: untrusted\nconfidence: speculative\n---\n# Rumour\nboat boat boat harbour\n"})
    answer = ask(root, "How many boat trips in total?")
    assert [w["path"] for w in answer["widened_by"]] == ["one.md", "two.md", "three.md"]
    assert answer["results"][0]["path"] == "one.md"
