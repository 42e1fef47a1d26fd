"""Session 42b's adversarial review of the times added in session 42: a season ("last summer", `periods.season`) and
a day of the month without its month ("on the 21st", `ahead.nth_day`). Each test failed before its fix."""

from datetime import datetime

import pytest

from time_reading import windows_at

DECEMBER = datetime.fromisoformat("2026-12-04T10:00:00+01:00")
SEVENTH = datetime.fromisoformat("2026-12-07T10:00:00+01:00")


windows = windows_at()


# An ordinal said without "on" or a word like "by", "from", "for" before it counts things, not days: read as a day it
# narrowed every answer to one day (and, ahead, made the question one about what is coming).
@pytest.mark.parametrize("query", [
    "Who was the 1st to arrive?",
    "What is the 5th in the list?",
    "What happened at the 5th and final meeting?",
    "Who won the 3rd, and who the 4th?",
    "What about the 3rd?",
])
def test_an_ordinal_without_a_lead_is_no_day(query):
    assert windows(query, DECEMBER) == []


@pytest.mark.parametrize("query, expected", [
    ("What's planned for the 21st?", [("the 21st", "2026-12-21", True)]),
    ("What did we do the morning of the 21st?", [("the 21st", "2026-11-21", False)]),
    ("What happened since the 3rd?", [("since the 3rd", "2026-12-03..2026-12-04", False)]),
])
def test_an_ordinal_after_a_lead_is_still_a_day(query, expected):
    assert windows(query, DECEMBER) == expected


# Two days of the month said as a span without their month: the first moves back to an earlier month, not a whole
# year (it made "between the 3rd and the 10th" eleven months long).
@pytest.mark.parametrize("query, now, expected", [
    ("What happened between the 3rd and the 10th?", DECEMBER,
     [("between the 3rd and the 10th", "2026-11-03..2026-11-10", False)]),
    ("What happened from the 1st to the 5th?", DECEMBER, [("from the 1st to the 5th", "2026-11-01..2026-11-05", False)]),
    ("What's planned from the 5th to the 10th?", SEVENTH, [("from the 5th to the 10th", "2026-12-05..2026-12-10", True)]),
    ("What happened from the 28th to the 3rd?", SEVENTH, [("from the 28th to the 3rd", "2026-11-28..2026-12-03", False)]),
])
def test_two_days_of_the_month_as_a_span(query, now, expected):
    assert windows(query, now) == expected


# "Last Summer" with both words capitalised inside a sentence is a title (as "the Next Week Records showcase" is a
# name): read as a time it narrowed the answer to last June to August and took "summer" out of the keywords.
@pytest.mark.parametrize("query", [
    "What did I write about I Know What You Did Last Summer?",
    'Did we watch "Last Summer" by Catherine Breillat?',
])
def test_a_season_said_as_a_title_is_no_time(query):
    assert windows(query, DECEMBER) == []


@pytest.mark.parametrize("query", ["Last Summer was great, what did we do?", "What did we do last Summer?",
                                   "WHAT DID WE DO LAST SUMMER?"])
def test_a_capitalised_season_that_is_no_title_is_a_time(query):
    assert [label for _, label, _ in windows(query, DECEMBER)] == ["2026-06-01..2026-08-31"]


# A Japanese or Korean season that runs on into a longer word names a place, a dish or a name, no time: read as one,
# "去年の秋田旅行" (last year's Akita trip) asked about September to November only and took "秋" out of "秋田".
@pytest.mark.parametrize("query, expected", [
    ("去年の秋田旅行で何を食べた？", [("去年", "2025", False)]),  # Akita: last year, not its autumn
    ("去年の秋葉原で何を買った？", [("去年", "2025", False)]),
    ("この春巻きはどこで買った？", []),  # a spring roll
    ("この秋刀魚はどこで買った？", []),  # a saury
    ("この秋山さんは誰？", []),  # Mr Akiyama
    ("이번 겨울왕국 어땠어?", []),  # Frozen
])
def test_a_cjk_season_inside_a_longer_word_is_no_time(query, expected):
    assert windows(query, DECEMBER) == expected


@pytest.mark.parametrize("query, expected", [
    ("去年の夏休みに何をした？", "2025-06-01..2025-08-31"),  # the summer holidays
    ("去年の夏祭りで何を食べた？", "2025-06-01..2025-08-31"),
    ("去年の夏に何をした？", "2025-06-01..2025-08-31"),
    ("지난 여름방학에 뭐 했어?", "2026-06-01..2026-08-31"),
    ("지난 겨울 뭐 했어?", "2025-12-01..2026-02-28"),
    ("去年冬天我们去了哪里？", "2025-12-01..2026-02-28"),  # Chinese: no spaces, its 天 ends the season
])
def test_a_cjk_season_before_a_particle_or_its_holidays_is_a_time(query, expected):
    assert [label for _, label, _ in windows(query, DECEMBER)] == [expected]


# "in the summer, 2000 people" counts people: it read as the summer of the year 2000.
def test_a_number_after_a_season_and_a_comma_that_counts_things_is_no_year():
    assert windows("How many came when in the summer, 2000 people visited?", DECEMBER) == []
    assert windows("What did we do in the summer, 2024?", DECEMBER) == [
        ("in the summer, 2024", "2024-06-01..2024-08-31", False)]
    assert windows("In the summer of 2024 we moved; where to?", DECEMBER) == [
        ("In the summer of 2024", "2024-06-01..2024-08-31", False)]
