"""A German or Dutch compound asked that the memory holds only in parts (`search.compounds`), on both engines."""

from __future__ import annotations

import unicodedata

import pytest
from both_engines import on_both, write_memory

from tachikoma.search import compounds
from tachikoma.search.keywords import WordRows, keyword_search, keyword_terms
from tachikoma.search.searcher import Searcher
from tachikoma.store import locate

NOTES = {
    "zahn.md": "# Termine\n\nTermin beim Zahnarzt am Dienstag um neun.\n",
    "chor.md": "# Chor\n\nProben dienstags in der Aula. Vor Konzerten zusätzlich zwei Samstage.\n",
    "heizung.md": "# Haus\n\nDie Wartung der Heizung macht Firma Kolb im Oktober.\n",
    "reise.md": "# Reise\n\nIn drei Tagen fahren wir nach Rügen. Eing. links; es reicht.\n",
    "study.md": "# Study\n\nUnder the bridge we were standing for an hour.\n",
}


def _asked(store, query: str, language: str | None) -> tuple[list[str], dict[str, float]]:
    """The keyword terms of `query` and the keyword matches they find (file: BM25)."""
    spans = store.chunk_spans()
    terms = keyword_terms(store, query, len(spans), language=language)
    found = {spans[i][0]: score for i, score in keyword_search(store, query, len(spans), None, terms=terms)}
    return terms, found


@pytest.fixture
def both(tmp_path, url, monkeypatch):
    """The same memory on SQLite and on PostgreSQL, open for reading."""
    with on_both(tmp_path, url, monkeypatch, NOTES) as stores:
        yield stores


@pytest.mark.parametrize("query, terms, expected", [
    ("Zahnarzttermin", ["zahnarzt", "termin"], ["zahn.md"]),  # its parts written apart
    # the first part as written: both stemmers read "heizungs" as "heizung" (the linking "s" is tried next)
    ("Heizungswartung", ["heizungs", "wartung"], ["heizung.md"]),
    ("Zusatzproben", ["zusatz*", "proben"], ["chor.md"]),  # the first part begins "zusätzlich" (accents folded)
])
def test_a_compound_asked_finds_the_note_holding_its_parts_on_both_engines(both, query, terms, expected):
    on_sqlite, on_postgres = both
    lite, shared = _asked(on_sqlite, query, "German"), _asked(on_postgres, query, "German")
    assert lite[0] == shared[0] == terms
    assert sorted(lite[1]) == sorted(shared[1]) == expected, (lite, shared)
    for path in expected:
        assert shared[1][path] == pytest.approx(lite[1][path], rel=0.05), (lite, shared)


def test_no_split_without_both_parts_nor_outside_german_and_dutch(both):
    for store in both:
        # an inflection is read as the memory writes it ("Samstage"), not split where "tagen" is held too
        terms, found = _asked(store, "Samstagen", "German")
        assert terms == ["samstag"] and list(found) == ["chor.md"]
        assert _asked(store, "Festtagen", "German") == ([], {})  # "tagen" is held, "fest" is not: no split
        # German writes a compound noun with a capital: "eingereicht" is a verb ("eing" and "reicht" are not split
        # off it), unless the whole question is in lower case
        assert _asked(store, "Wann wurde die Tagung eingereicht", "German")[0] == []
        assert compounds.split(store, "eingereicht", 10) == [("eing", 1), ("reicht", 1)]  # what it would be
        assert _asked(store, "wann ist der zahnarzttermin", "German")[0] == ["zahnarzt", "termin"]
        # an English question's word is never split, though "under" and "standing" are both held
        assert _asked(store, "understanding", None) == ([], {})
        assert compounds.split(store, "understanding", 10) == [("under", 1), ("standing", 1)]  # what it would be
        assert _asked(store, "Zahnarzttermin", "Dutch")[0] == ["zahnarzt", "termin"]


def test_a_word_longer_than_any_compound_is_not_split(tmp_path):
    root = write_memory(tmp_path / "memory", NOTES)
    with locate(root).open(readonly=True) as store:
        asked = []
        counts = store.keyword_counts
        store.keyword_counts = lambda terms, cap: asked.append(len(terms)) or counts(terms, cap)
        # a pasted string of 2,000 letters ending in a word the memory holds: no 2,000 counts, no split
        assert compounds.parts(store, "x" * 1994 + "termin", 10) == []
        assert asked == []
        assert compounds.parts(store, "Zahnarzttermin", 10) == [("zahnarzt", 1), ("termin", 1)]
        assert asked and max(asked) <= len("Zahnarzttermin")


def test_the_compound_is_held_where_its_rarer_part_is(both):
    for store in both:
        words = WordRows(store)
        spans = store.chunk_spans()
        counts: dict[str, int] = {}
        keyword_terms(store, "Zahnarzttermin Proben", len(spans), counts=counts, words=words, language="German")
        # "Zahnarzt" and "Termin" are in one note each: the compound is read as one of them, found in that note
        assert counts["Zahnarzttermin"] == 1
        assert [spans[i][0] for i in words.rows("Zahnarzttermin")] == ["zahn.md"]


def test_the_search_answers_from_the_parts_and_lists_them(tmp_path):
    root = write_memory(tmp_path / "memory", NOTES)
    searcher = Searcher(root)
    try:
        # a floor no meaning reaches (the hash vectors): the keywords alone decide whether it is a match
        answer = searcher.search("Wann ist der Zahnarzttermin?", 3, min_score=0.99)
        english = searcher.search("When is the Zahnarzttermin?", 3, min_score=0.99)
    finally:
        searcher.close()
    assert answer["keywords"] == ["zahnarzt", "termin"]
    assert answer["results"][0]["path"] == "zahn.md"
    assert answer["match"]["answered_by"] == "keywords" and answer["match"]["best_keyword_coverage"] == 1.0
    # told as English, the word is not split: found nowhere, the search says so
    assert english["keywords"] == [] and english["keywords_nowhere"] == ["Zahnarzttermin"]
    assert english["no_good_match"]


def test_a_query_typed_with_its_marks_apart_is_read_composed(tmp_path):
    """Adversarial pass: "u" + U+0308 (a combining diaeresis, as some keyboards and macOS text give it) is not
    "ü" to the umlaut's second spelling, nor a letter to the compound rule (`str.isalpha` is false): the query is
    composed first (NFC)."""
    root = write_memory(tmp_path / "memory", {**NOTES, "muenchen.md": "# Umzug\n\nWir ziehen nach Muenchen.\n"})
    searcher = Searcher(root)
    try:
        for composed in ("Wann ist der Zahnarzttermin in Zürich?", "Wann ziehen wir nach München?"):
            typed = unicodedata.normalize("NFD", composed)
            assert typed != composed
            asked, expected = (searcher.search(q, 3, min_score=0.99) for q in (typed, composed))
            assert asked["keywords"] == expected["keywords"] and asked["query"] == composed
            assert [r["path"] for r in asked["results"]] == [r["path"] for r in expected["results"]]
        assert "Muenchen" in expected["keywords"] and expected["results"][0]["path"] == "muenchen.md"
    finally:
        searcher.close()
