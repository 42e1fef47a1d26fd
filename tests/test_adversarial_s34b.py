"""Adversarial tests of session 34b: a question about what is coming ranked by the days its passages name
(`tachikoma.when.mentions`, `Searcher.search`)."""

from datetime import date

import pytest
from linear import assert_linear
from test_everyday_rules import put, written_before

from tachikoma.when import mentions
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

WRITTEN = date(2026, 11, 20)
TODAY = date(2026, 12, 4)


def search(root, question: str, as_of: str) -> dict:
    """Index `root` (every file written the day before `as_of`) with the hash embedder and ask `question` (5
    results, no floor) as of `as_of`."""
    written_before(root, as_of)
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        return searcher.search(question, 5, min_score=0, as_of=as_of)
    finally:
        searcher.close()


def dump(n: int) -> str:
    """A data dump on one line of `n` days (no spaces: the chunker keeps it one chunk)."""
    return ",".join(f"2026-12-{1 + i % 28:02d}" for i in range(n))


def prose(n: int) -> str:
    return "We met on 18 Dec 14:20 and talked about the 3.12. release. " * n


def test_a_long_passage_full_of_days_is_ranked(tmp_path):
    # 40,000 days on one line (a chunk of 440,000 characters): every question about what is coming that
    # ranked it took 24 s, each day checked against all read before (`test_reading_days_is_linear…`)
    root = tmp_path / "memory"
    put(root, "dates.md", "# Upcoming deliveries\n\n" + dump(40000) + "\n")
    put(root, "other.md", "# Deliveries\n\nThe next delivery comes soon.\n")
    answer = search(root, "What upcoming deliveries?", "2026-12-04")
    assert answer["results"][0]["path"] == "dates.md"
    assert "still to come" in answer["results"][0]["factors"]["time_reason"]


@pytest.mark.parametrize("make", [dump, prose])
def test_reading_days_is_linear_in_the_passage(make):
    def read(text):
        named = mentions.days(text, WRITTEN, TODAY)
        assert date(2026, 12, 18) in named

    assert_linear(read, make, 2000)  # 8× the text: ~8× the time (the overlap check was ~64×)


def test_the_duplicate_penalty_follows_the_order_the_days_give(tmp_path):
    # Two passages of one file: the one naming the day came second by its words (× 0.8) and first after the
    # other's × 0.6; it still said "a better passage from this file ranks above" with nothing above it.
    from math import prod

    from tachikoma.search import explain

    root = tmp_path / "memory"
    put(root, "dentist.md", "# Dentist\n\nMy dentist checkup dentist checkup dentist checkup with Dr. Weber, twice a "
        "year. " + " ".join(f"word{i}" for i in range(300)) + "\n\n# Next\n\nDentist checkup booked: 2026-12-18. "
        + " ".join(f"other{i}" for i in range(300)) + "\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup every Sunday.\n")
    answer = search(root, "When is my next dentist checkup?", "2026-12-04")
    first, second = answer["results"][:2]
    assert first["path"] == second["path"] == "dentist.md"
    assert "2026-12-18" in first["text"]
    assert first["factors"]["duplicate_penalty"] == 1.0
    assert second["factors"]["duplicate_penalty"] == 0.8
    said = {id(r): {x.name: x.why for x in explain.factors(r)}["duplicate penalty"] for r in (first, second)}
    assert (said[id(first)], said[id(second)]) == (explain.FIRST, explain.REPEAT)
    for result in answer["results"]:
        assert result["score"] == pytest.approx(prod(x.value for x in explain.multiplied(result)))


@pytest.mark.parametrize("question, coming", [
    ("What's the shop next to the bakery called?", False),  # "next to": beside, as "due to" is because of
    ("Who lives next door to Anna?", False),
    ("Where is Grandpa's will kept?", False),  # a will: the paper
    ("Who is the executor of my will?", False),
    ("When is my next dentist appointment?", True),
    ("What will the new boiler cost?", True),
    ("Who will read Grandpa's will?", True),
    ("What's next on the list?", True),
])
def test_next_to_and_a_will_are_no_question_about_what_is_coming(question, coming):
    from tachikoma.when.tense import ahead

    assert ahead(question) is coming


def test_a_question_about_a_place_next_to_another_gets_no_time_factor(tmp_path):
    root = tmp_path / "memory"
    put(root, "deli.md", "# Neighbourhood\n\nKowalski's deli is the shop right next to the bakery.\n")
    put(root, "bakery.md", "# Bakery\n\nThe bakery shop is called Kornblume; Christmas stollen pickup there on 23 Dec.\n")
    answer = search(root, "What's the shop next to the bakery called?", "2026-12-04")
    assert answer["results"][0]["path"] == "deli.md"
    for result in answer["results"]:
        assert result["factors"]["time"] == 1.0
        assert "asked what is coming" not in (result["factors"].get("time_reason") or "")


@pytest.mark.parametrize("text, written, named", [
    # "25 Dec" in a note of 5 January is the Christmas just gone
    ("Christmas dinner at Oma's on 25 Dec was lovely", date(2027, 1, 5), [date(2026, 12, 25)]),
    ("New Year's Eve at the Müllers, 31.12.", date(2027, 1, 2), [date(2026, 12, 31)]),
    ("Dentist on 8 Jan", date(2026, 12, 28), [date(2027, 1, 8)]),
    ("Leap day party on 29 Feb", date(2027, 3, 10), [date(2028, 2, 29)]),  # no 29 February in 2027: 2028's
    ("Leap day party on 29 Feb", date(2028, 1, 10), [date(2028, 2, 29)]),
])
def test_a_day_without_a_year_is_the_first_from_three_months_before_the_note(text, written, named):
    assert mentions.days(text, written, written) == named


def test_last_christmas_is_no_day_still_to_come_in_january():
    assert mentions.days_ahead("Christmas dinner at Oma's on 25 Dec was lovely", date(2027, 1, 5),
                               date(2027, 1, 10)) == []


def test_a_search_as_of_the_last_year_asked_about_what_is_coming_does_not_overflow(tmp_path):
    # as_of takes years up to 9998; 400 days after 31 December 9998 is past the last day a date can hold
    root = tmp_path / "memory"
    put(root, "far.md", "# Far\n\nThe millennium party is on 9999-01-05.\n")
    answer = search(root, "When is the next millennium party?", "9998-12-31")
    assert "names 9999-01-05, still to come" in answer["results"][0]["factors"]["time_reason"]
    assert mentions.days_ahead("on 9999-12-31", date.max, date.max) == []
