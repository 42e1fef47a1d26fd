"""Adversarial pass s35b: a day named ahead (timeq.names_day_ahead), a line given once (budget.select),
'many' never missing, and a session not stale by its own edits' commit."""

from datetime import datetime, timezone

from tachikoma import timeq


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def test_since_a_month_or_day_is_no_question_about_what_is_coming():
    # "since January" asked on 5 December counts from the January gone: its window stays
    for query in ("Expenses since January", "since the 3rd of January", "since January 3"):
        assert not timeq.names_day_ahead(query, _at("2026-12-05T12:00"))
    assert not timeq.names_day_ahead("Everything since 2 January", _at("2026-12-28T12:00"))


def test_last_month_named_is_no_question_about_what_is_coming():
    assert not timeq.names_day_ahead("Notes from last January", _at("2026-12-05T12:00"))
    assert timeq.names_day_ahead("Notes for January", _at("2026-12-05T12:00"))


def test_29_february_of_this_leap_year_is_coming():
    # asked on 25 February 2028, 29 February is 4 days ahead, not the one of 2024
    assert timeq.names_day_ahead("What is on 29 Feb?", _at("2028-02-25T12:00"))
    assert not timeq.names_day_ahead("What is on 29 Feb?", _at("2027-02-25T12:00"))
    assert not timeq.names_day_ahead("What is on 29 Feb?", _at("2028-03-01T12:00"))
