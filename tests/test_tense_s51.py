"""A question about a day of the week that asks what is on it, or what someone is doing then, asks about the coming
one: asked on a Friday, "anything on Monday?" and "what am I doing on Monday?" are about the Monday ahead, as
"what will I do on Monday?" was, where "what did I do on Monday?" stays the one gone."""

from datetime import datetime, timedelta, timezone

import pytest

from tachikoma.when import timeq
from tachikoma.when.tense import plans_in

FRIDAY = datetime(2026, 12, 4, 8, 40, tzinfo=timezone(timedelta(hours=1)))


@pytest.mark.parametrize("question, day", [
    ("anything on Monday?", "2026-12-07"),
    ("What am I doing on Monday?", "2026-12-07"),
    ("what are we doing on Saturday", "2026-12-05"),
    ("what's on Thursday", "2026-12-10"),
    ("What is on Thursday?", "2026-12-10"),
    ("What will I do on Monday?", "2026-12-07"),
    ("What did I do on Monday?", "2026-11-30"),  # the past: the one gone
    ("What was on Monday?", "2026-11-30"),
    ("What was I doing on Monday?", "2026-11-30"),
    ("Who did I meet on Thursday?", "2026-12-03"),
    ("What's on this Monday?", "2026-11-30"),
    ("anything on Monday last week?", "2026-11-23"),  # "this Monday": this week's, gone or not
    ("What is on the 21st?", "2026-12-21"),  # a date keeps its own reading (a day within 31 days ahead)
])
def test_a_day_of_the_week_asked_about_is_the_one_the_tense_says(question, day):
    windows = timeq.read(question, FRIDAY)
    assert [w.label for w in windows] == [day], question


@pytest.mark.parametrize("question, plans", [
    ("what's on the shopping list", True),  # asks what is planned: only a day of the week said with it reads it
    ("is anything on fire", True),
    ("What is Anna doing about the leak?", False),  # "is Anna doing": not the asker nor a pronoun
    ("What was on the agenda?", False),
    ("what did I say was on Monday", False),  # the past
    ("anything on Monday last week?", False),
])
def test_the_words_that_ask_what_is_planned(question, plans):
    assert plans_in(question) is plans
