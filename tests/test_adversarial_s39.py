"""Adversarial tests for session 39's time reading (a day still to come as a window of that day, days and months in
six more languages, `mentions.days` reading only the patterns a text can match): each failed before its fix."""

from datetime import date, datetime, timezone

import pytest
from test_adversarial_s34b import search
from test_everyday_rules import put

from tachikoma.when import mentions, timeq

UTC = timezone.utc
SUNDAY = datetime(2026, 12, 6, 10, tzinfo=UTC)


def _read(query: str, as_of: datetime = SUNDAY, ahead: bool | None = None) -> list[tuple[str, bool]]:
    return [(w.label, w.ahead) for _, _, w in timeq.read_spans(query, as_of, ahead=ahead)]


@pytest.mark.parametrize("query, read", [
    # asked on 6 December: the 1st has begun, so the span is this December's, not 20 December to next 1 December
    ("What's planned from 1 December to 20 December?", [("2026-12-01..2026-12-20", True)]),
    ("What's planned between 1 December and 10 January?", [("2026-12-01..2027-01-10", True)]),
    ("What's planned between 10 December and 20 December?", [("2026-12-10..2026-12-20", True)]),  # unchanged
])
def test_a_span_ahead_whose_first_day_has_begun_is_not_a_year_backwards(query, read):
    # each day was its next occurrence on its own: "1 December" next year's, "20 December" this year's, and the
    # span ran from the earlier to the later of them (2026-12-20..2027-12-01)
    assert _read(query, ahead=True) == read


@pytest.mark.parametrize("as_of", [datetime(9998, 12, 20, 12, tzinfo=UTC), datetime(9998, 12, 31, 12, tzinfo=UTC)])
@pytest.mark.parametrize("query", ["What's on 2 January?", "What's planned before 15 January?",
                                   "Qu'est-ce qui est prévu le 2 janvier ?", "12月15日の予定は？"])
def test_a_day_ahead_past_the_last_year_a_search_reads_is_no_crash(query, as_of):
    # the next 2 January asked late in 9998 (the last year as_of takes) is in 9999: `timewindow.days` raised
    # ValueError out of `read_spans`, so out of the search; now it is a day ahead with no window, as before
    ahead = timeq.names_day_ahead(query, as_of) or None
    for _, _, window in timeq.read_spans(query, as_of, ahead=ahead):
        assert window.end <= datetime(9999, 1, 1, tzinfo=UTC).timestamp()


@pytest.mark.parametrize("query", ["What did I finish after step 3. May I ask?", "I finished step 3. May I see what's next?",
                                   "Read part 2. March on to part 3 after that"])
def test_a_sentence_ending_in_a_number_before_may_or_march_is_no_date(query):
    # "3. November" is that day now (German style); "3. May I …" read as 3 May, which "May I" never was
    assert _read(query) == [] and _read(query, ahead=True) == []


def test_a_day_before_march_and_may_with_a_dot_and_a_year_is_still_a_date():
    assert _read("What did we do on 3. November?") == [("2026-11-03", False)]
    assert _read("What happened on 3. May 2025?") == [("2025-05-03", False)]


@pytest.mark.parametrize("query", ["we have 3 august visitors coming", "What's planned for the 3 august guests?"])
def test_a_lowercase_august_after_a_number_is_no_foreign_month(query):
    # English day_month reads lowercase "august" as the adjective; the new German/Dutch pattern read it again as
    # the month
    assert _read(query) == [] and _read(query, ahead=True) == []


def test_a_lowercase_german_august_with_its_lead_and_dot_is_a_date():
    assert _read("Was war am 3. august?") == [("2026-08-03", False)]  # typed in lower case, as chats are


@pytest.mark.parametrize("text", ["5 APRİL and 3 May", "Due ſept 5 or 5 ſept, or May 3", "FRİDAY and Monday",
                                  "ſonntags and Monday"])
def test_a_word_that_folds_to_a_month_or_day_only_in_the_regex_is_no_crash(text):
    # re.IGNORECASE matches "APRİL" (Turkish dotted İ) and "ſept" (long s) to "april", "sept", but .lower() of them
    # is no month's name: `_MONTH_OF[...]` raised KeyError once any month word let the pattern run
    today = date(2026, 12, 6)
    assert mentions.days(text, None, today) == [date(2027, 5, 3)] or "May" not in text
    mentions.weekdays(text, date(2026, 12, 1), today)


def test_a_search_about_what_is_coming_over_a_passage_in_turkish_capitals_is_no_crash(tmp_path):
    root = tmp_path / "memory"
    put(root, "notes/tr.md", "# PLAN\n\nTOPLANTI 5 APRİL, then the dentist on 3 May.\n")
    answer = search(root, "What's planned for next month?", "2026-04-01")
    assert answer["results"][0]["path"] == "notes/tr.md"


@pytest.mark.parametrize("query, read", [
    ("What's due by 15 December?", [("2026-12-06..2026-12-15", True)]),
    ("What do I have to finish until 15 December?", [("2026-12-06..2026-12-15", True)]),
    ("What's due by Dec 15?", [("2026-12-06..2026-12-15", True)]),
    ("Was ist bis zum 15. Dezember fällig?", [("2026-12-06..2026-12-15", True)]),
    ("¿Qué tengo hasta el 15 de diciembre?", [("2026-12-06..2026-12-15", True)]),
    ("What's planned from 10 December until 15 December?", [("2026-12-10..2026-12-15", True)]),  # a span, as was
    ("What's on 15 December?", [("2026-12-15", True)]),  # that day alone, as was
])
def test_a_day_ahead_said_as_a_deadline_is_every_day_up_to_it(query, read):
    # "by 15 December" was a window of the 15th alone: a passage naming the 10th, due before it, fell to the
    # factor of one naming no day at all
    assert _read(query, ahead=timeq.names_day_ahead(query, SUNDAY) or None) == read


def test_what_is_due_by_a_day_finds_what_is_due_before_it(tmp_path):
    root = tmp_path / "memory"
    put(root, "tax.md", "# Tax\n\nTax return due 10 December, send it to the accountant.\n")
    put(root, "dentist.md", "# Dentist\n\nCheck-up on 15 December at 18:30.\n")
    put(root, "misc.md", "# Misc\n\nBuy milk and bread, call the landlord.\n")
    answer = search(root, "What's due by 15 December?", "2026-12-06")
    tax = next(r for r in answer["results"] if r["path"] == "tax.md")
    assert tax["factors"]["time"] == 1.0 and "inside 'by 15 December'" in tax["factors"]["time_reason"]


def test_reading_deadlines_ahead_is_linear_in_the_query():
    from test_ahead import assert_read_linear

    assert_read_linear("what's due by 15 December and bis zum 3. Januar, ", 300)
