"""Adversarial checks of session 31's changes: words found nowhere weigh on every keyword match, a
question's language told by its function words, and time words in Portuguese, Italian, Dutch and Korean."""

from datetime import datetime, timezone

import pytest

from test_hybrid import TopicEmbedder, topic_memory

from tachikoma.when import timeq
from tachikoma.config import Config
from tachikoma.indexer import runner
from tachikoma.language.function_words import language_of
from tachikoma.search.keywords import STOPWORDS, nowhere_weight, query_terms
from tachikoma.search.pool import merge_answers
from tachikoma.search.searcher import Searcher

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


@pytest.fixture
def notes(tmp_path):
    searcher = topic_memory(tmp_path / "memory", {
        "a.md": "# Invoice\n\nThe invoice for the garden shed was paid.\n",
        "c.md": "# Meeting\n\nThe meeting moved to Tuesday, in Muenchen.\n",
        "d.md": "# Boat\n\nThe boat needs new paint before spring.\n"})
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


TODAY = datetime(2026, 12, 4, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize("query", [
    "a Mars rover", "I ate a mars bar", "order a mai tai", "a Mayo Clinic visit",  # Italian's "a" + another month
    "da mei",  # Italian's "since" + a Dutch month
    "notes from the call in Mei's office", "in Julio’s house",  # a month word with a possessive is a name
])
def test_english_words_after_a_foreign_lead_are_no_month(query):
    assert timeq.read(query, TODAY) == []


@pytest.mark.parametrize("query, label", [
    ("a maggio", "2026-05"), ("Cosa è successo a maggio?", "2026-05"), ("da marzo", "2026-03-01..2026-12-04"),
    ("in mei", "2026-05"), ("Wat deden we in mei 2025?", "2025-05"), ("em maio", "2026-05"),
])
def test_foreign_months_after_their_leads_are_still_read(query, label):
    assert [w.label for w in timeq.read(query, TODAY)] == [label]


@pytest.mark.parametrize("query", [
    "2026년 2월 29일", "2023년 2월 29일",  # no such day that year: not the latest 29 February (2024)
    "1960년 3월에 무슨 일이 있었어?",  # a year out of range: not March of this year
    "2026年 2月29日",
])
def test_a_korean_or_chinese_date_with_its_year_is_not_read_without_it(query):
    assert timeq.read(query, TODAY) == []


@pytest.mark.parametrize("query, labels, kept", [
    ("12월 5일 전화 내용", ["2025-12-05"], "전화"),  # the call of 5 December (전화: telephone), not "5 days ago"
    ("10일 전기 요금", [], "전기"),  # the electricity bill of the 10th
    ("1년 전체 매출", [], "전체"),  # the whole year's sales
    ("3일 전에 뭐 했어?", ["2026-11-30..2026-12-02"], "뭐"),  # "ago" with a particle is still read
    ("2주 전쯤", ["2026-11-16..2026-11-24"], "쯤"),
])
def test_korean_ago_is_a_word_of_its_own(query, labels, kept):
    spans = timeq.read_spans(query, TODAY)
    assert [w.label for _, _, w in spans] == labels
    assert kept in timeq.without_time(query, spans, every=True).split()  # no word is cut in half


@pytest.mark.parametrize("query, keywords", [
    ("van door repair", ["van", "door", "repair"]),  # Dutch "van", "door"
    ("sliding door van", ["sliding", "door", "van"]),
    ("the dot-com era", ["dot", "com", "era"]),  # Portuguese "com", "era"
    ("con ed bill", ["con", "ed", "bill"]),  # Italian "con", "ed"
    ("my son's car insurance", ["son", "car", "insurance"]),  # French "son", "car"
    ("photo of man in hat", ["photo", "man", "hat"]),  # German "man", "hat"
    ("my son's hay fever", ["son", "hay", "fever"]),  # Spanish "son", "hay"
])
def test_english_words_that_are_function_words_elsewhere_keep_an_english_query_english(query, keywords):
    assert language_of(query, STOPWORDS) is None
    assert query_terms(query, skip=STOPWORDS) == keywords


@pytest.mark.parametrize("question, language", [
    ("Wer hat die Schlüssel?", "German"), ("Was hat die letzte Heizungswartung gekostet?", "German"),
    ("Hat er Zeit?", "German"), ("Wanneer is de afspraak met de tandarts?", "Dutch"), ("Hoe laat is het?", "Dutch"),
    ("Van wie is die auto?", "Dutch"), ("Non ho tempo", "Italian"), ("Con chi?", "Italian"),
    ("Tem um carro?", "Portuguese"), ("No hay problema", "Spanish"), ("¿Cuál es la capital de Argentina?", "Spanish"),
])
def test_a_question_with_a_function_word_english_has_not_is_still_told(question, language):
    assert language_of(question, STOPWORDS) == language


def test_a_word_no_memory_holds_is_found_nowhere_even_beside_an_empty_memory(notes, tmp_path):
    # Several memories answer as one (`pool.merge_answers`): "zebra" is in no note of either, one of them
    # empty (its files all deleted), so the merged answer must still say it is found nowhere.
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "a.md").write_text("# Zebra-free\n\nNothing here.\n")
    embedder = TopicEmbedder()
    runner.run(empty, Config(), embedder=embedder)
    (empty / "a.md").unlink()
    runner.run(empty, Config(), embedder=embedder)
    other = Searcher(empty, Config(), embedder=embedder)
    try:
        alone = other.search("meeting zebra", 5, now=NOW, decide=False)
        answers = [notes.search("meeting zebra", 5, now=NOW, decide=False), alone]
    finally:
        other.close()
    assert alone["keywords_nowhere"] == ["meeting", "zebra"]  # an empty memory holds no word
    assert merge_answers(answers, 5, ["notes", "empty"])["keywords_nowhere"] == ["zebra"]
    assert merge_answers(answers[::-1], 5, ["empty", "notes"])["keywords_nowhere"] == ["zebra"]
