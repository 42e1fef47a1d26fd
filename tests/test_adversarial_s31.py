"""Adversarial checks of session 31's changes: words found nowhere weigh on every keyword match, a
question's language told by its function words, and time words in Portuguese, Italian, Dutch and Korean."""

from datetime import datetime, timezone

import pytest

from test_hybrid import TopicEmbedder

from tachikoma.config import Config
from tachikoma.indexer import runner
from tachikoma.search.keywords import nowhere_weight
from tachikoma.search.searcher import Searcher

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text("# Invoice\n\nThe invoice for the garden shed was paid.\n")
    (root / "c.md").write_text("# Meeting\n\nThe meeting moved to Tuesday, in Muenchen.\n")
    (root / "d.md").write_text("# Boat\n\nThe boat needs new paint before spring.\n")
    embedder = TopicEmbedder()
    runner.run(root, Config(), embedder=embedder)
    searcher = Searcher(root, Config(), embedder=embedder)
    yield searcher
    searcher.close()


def test_a_word_held_under_its_other_spelling_is_not_found_nowhere(notes):
    # "München" is looked for as "München" and "Muenchen" (`segment.query_words`); the note says "Muenchen".
    answer = notes.search("meeting in München", 5, now=NOW)
    assert answer["keywords_nowhere"] == []
    assert answer["results"][0]["path"] == "c.md" and answer["results"][0]["factors"]["keyword_score"] == 1.0


def test_a_word_found_nowhere_weighs_once_whatever_its_spellings(notes):
    # one word of the question in no note: "Düsseldorf" weighs as "zebra" does, not twice
    umlaut = notes.search("meeting in Düsseldorf", 5, now=NOW)
    plain = notes.search("meeting in zebra", 5, now=NOW)
    assert umlaut["keywords_nowhere"] == ["Düsseldorf"] and plain["keywords_nowhere"] == ["zebra"]
    assert umlaut["results"][0]["factors"]["keyword_score"] == pytest.approx(
        plain["results"][0]["factors"]["keyword_score"])
    assert nowhere_weight({"Düsseldorf": 0, "Duesseldorf": 0}, 10) == (["Düsseldorf"], nowhere_weight({"zebra": 0}, 10)[1])
    assert nowhere_weight({"München": 0, "Muenchen": 2}, 10) == ([], 0.0)
