"""Session 43b: the breaks earlier adversarial reviews left in the reading of a question's time, of what it asks for
and of a passage's time of day. Each test of a break failed before its fix; those saying "still" or "as before" guard
what must not move with it."""

from datetime import date, datetime

import pytest

from tachikoma.search import answer_kind
from tachikoma.when import mentions
from tachikoma.language.function_words import question_language
from time_reading import windows_at

DECEMBER = datetime.fromisoformat("2026-12-04T10:00:00+01:00")  # a Friday
JANUARY = datetime.fromisoformat("2027-01-10T10:00:00+01:00")
TODAY = date(2026, 12, 4)


windows = windows_at(DECEMBER)


# 1. "during the winter" asked on 4 December read 1 to 4 December: a season under way still in its first month is not
# the one meant by "during", "over", "through" (the one that ended is); "this winter" still is.
@pytest.mark.parametrize("query, expected", [
    ("What did we do during the winter?", [("during the winter", "2025-12-01..2026-02-28", False)]),
    ("What did we do over the winter?", [("over the winter", "2025-12-01..2026-02-28", False)]),
    ("What did we do through the winter?", [("through the winter", "2025-12-01..2026-02-28", False)]),
    ("What did we do throughout the winter?", [("throughout the winter", "2025-12-01..2026-02-28", False)]),
])
def test_during_a_season_in_its_first_month_is_the_last_one(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query, now, expected", [
    ("What did we do this winter?", DECEMBER, [("this winter", "2026-12-01..2026-12-04", False)]),
    ("What did we do last winter?", DECEMBER, [("last winter", "2025-12-01..2026-02-28", False)]),
    ("What did we do over the winter?", JANUARY, [("over the winter", "2026-12-01..2027-01-10", False)]),  # 2nd month
    ("What did we do over the autumn?", DECEMBER, [("over the autumn", "2026-09-01..2026-11-30", False)]),
])
def test_this_season_and_a_season_past_its_first_month_are_read_as_before(query, now, expected):
    assert windows(query, now) == expected


def test_over_a_season_under_way_asked_ahead_is_the_rest_of_it():
    assert windows("What's planned over the winter?", ahead=True) == [
        ("over the winter", "2026-12-04..2027-02-28", True)]


# 2. "the summer before last", "summer '24" were not read.
@pytest.mark.parametrize("query, expected", [
    ("What did we do the summer before last?", [("the summer before last", "2025-06-01..2025-08-31", False)]),
    ("Where did we go in the summer before last?", [("in the summer before last", "2025-06-01..2025-08-31", False)]),
    ("What did we do the winter before last?", [("the winter before last", "2024-12-01..2025-02-28", False)]),
    ("What did we do in summer '24?", [("in summer '24", "2024-06-01..2024-08-31", False)]),
    ("What did we do in summer \u201924?", [("in summer \u201924", "2024-06-01..2024-08-31", False)]),
    ("What happened in winter '98?", [("in winter '98", "1998-12-01..1999-02-28", False)]),
])
def test_a_season_before_last_and_an_apostrophe_year(query, expected):
    assert windows(query) == expected


# 3. "between the 1st and the 5th of December" read two windows, the 1st of this December and last year's 5th.
@pytest.mark.parametrize("query, ahead, expected", [
    ("What happened between the 1st and the 5th of December?", None,
     [("between the 1st and the 5th of December", "2025-12-01..2025-12-05", False)]),
    ("What's planned between the 1st and the 15th of February?", True,
     [("between the 1st and the 15th of February", "2027-02-01..2027-02-15", True)]),
])
def test_a_day_of_the_month_before_a_day_with_its_month_is_that_months(query, ahead, expected):
    assert windows(query, ahead=ahead) == expected


def test_a_span_across_a_month_end_is_still_read():
    assert windows("What happened from the 28th to 3 January?") == [
        ("from the 28th to 3 January", "2025-12-28..2026-01-03", False)]


# 4. "on the 21st in July" read 21 November and July.
@pytest.mark.parametrize("query, ahead, expected", [
    ("What happened on the 21st in July?", None, [("on the 21st in July", "2026-07-21", False)]),
    ("What did we do in July on the 21st?", None, [("in July on the 21st", "2026-07-21", False)]),
    # its month in the phrase since session 46 (the coming January alone is no window)
    ("What's planned on the 21st in January?", True, [("on the 21st in January", "2027-01-21", True)]),
    ("What happened on the 31st in June?", None, [("in June", "2026-06", False)]),  # no such day: not a wrong one
])
def test_a_day_of_the_month_beside_a_month_is_that_months(query, ahead, expected):
    assert windows(query, ahead=ahead) == expected


# 5. A number shaped as a time of day that is a measure, a version or a score.
@pytest.mark.parametrize("line", ["line height 1.25", "line-height: 1.25", "uv python install 3.12",
                                  "We won 3:10 against them", "aspect ratio 16:10", "she is 1.75 tall"])
def test_a_measure_a_version_or_a_score_is_no_time_of_day(line):
    assert not answer_kind.CLOCK.held(line, TODAY)


@pytest.mark.parametrize("line", ["Pick-up at 3:10", "Treffen um 15:30 Uhr", "10:30 dentist", "Call at 3.30pm",
                                  "Standup 9.45", "at 10.10"])
def test_a_time_of_day_is_still_one(line):
    assert answer_kind.CLOCK.held(line, TODAY)


# 6. "We meet at 10.10." was 10 October: after "at" it is a time of day.
def test_at_ten_past_ten_is_a_time_not_a_day():
    assert mentions.days("We meet at 10.10.", None, TODAY) == []
    assert answer_kind.CLOCK.held("We meet at 10.10.", TODAY)
    assert mentions.days("Treffen am 10.10.", None, TODAY) == [date(2026, 10, 10)]  # German "am": a day
    assert mentions.days("Meeting at 10.10.2026", None, TODAY) == [date(2026, 10, 10)]  # a year: a day


# 7. "ce dimanche" was read as a bare "dimanche" (the latest one): it is this week's, as "this Sunday" is.
@pytest.mark.parametrize("query, expected", [
    ("Qu'est-ce qu'on fait ce dimanche ?", [("ce dimanche", "2026-12-06", True)]),
    ("Qu'avons-nous fait ce lundi ?", [("ce lundi", "2026-11-30", False)]),
])
def test_ce_and_a_french_day_is_this_weeks(query, expected):
    assert windows(query) == expected


# 8. "Bu akşam ne var?" held only Turkish words that are English homographs ("bu", "ne", "var").
def test_a_short_turkish_question_about_an_evening_is_turkish():
    assert question_language("Bu akşam ne var?") == "Turkish"
    assert question_language("What's on this evening?") is None  # still English


# 9. An idea "born" is a figure of speech, not a birth.
@pytest.mark.parametrize("query", ["When was the idea born?", "When was the idea for the app born?",
                                   "Wann wurde die Idee geboren?"])
def test_a_figurative_birth_asks_no_day_of_birth(query):
    assert answer_kind.asked(query) is None


@pytest.mark.parametrize("query", ["When was Lena born?", "When was the baby born?", "When was the company founder born?",
                                   "When was the band's drummer born?", "Wann wurde Lukas geboren?"])
def test_a_birth_is_still_asked(query):
    assert answer_kind.asked(query) is answer_kind.BORN


# 10. "What time window" asks for a span, not a time of day.
def test_what_time_window_asks_no_time_of_day():
    assert answer_kind.asked("What time window do we have for the deploy?") is None
    assert answer_kind.asked("What time do we deploy?") is answer_kind.CLOCK
