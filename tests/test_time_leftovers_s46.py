"""Session 46: the time-reading leftovers of session 45. Each test of a break failed before its fix; those saying
"still" or "as before" guard what must not move with it."""

from datetime import date, datetime

import pytest

from tachikoma import mentions
from time_reading import windows_at

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")  # a Thursday

windows = windows_at(TENTH)


# 2. "12月29日 月曜日" showed no day of the week in its phrase since session 45 (the day of the week after a day is read
# with the day, so no longer beside the date): a month and day's phrase holds it, in brackets too; the window is the
# date's, as before.
@pytest.mark.parametrize("query, expected", [
    ("12月29日 月曜日の会議は？", [("12月29日 月曜日", "2025-12-29", False)]),
    ("12月29日月曜日に何をした？", [("12月29日月曜日", "2025-12-29", False)]),
    ("12月29日(月)の会議は？", [("12月29日(月)", "2025-12-29", False)]),
    ("12월 29일 월요일에 뭐 했어?", [("12월 29일 월요일", "2025-12-29", False)]),
    ("12月29号周一开会了吗？", [("12月29号周一", "2025-12-29", False)]),
    ("2025年12月29日 月曜日に何をした？", [("2025年12月29日 月曜日", "2025-12-29", False)]),
    ("12月29日(月末)の会議は？", [("12月29日", "2025-12-29", False)]),  # as before: no day of the week
])
def test_a_month_and_days_phrase_holds_its_day_of_the_week(query, expected):
    assert windows(query) == expected


def test_a_month_and_day_with_its_day_of_the_week_still_to_come():
    assert windows("12月29日 月曜日の会議は？", ahead=True) == [("12月29日 月曜日", "2026-12-29", True)]


# 3. A passage's dates in Chinese numerals were not read (`mentions.days`): "十二月三日", "2025年十二月二十九日" are.
@pytest.mark.parametrize("text, expected", [
    ("十二月三日に会議があった", ["2026-12-03"]),
    ("十二月二十九号开会", ["2026-12-29"]),
    ("2025年十二月二十九日に出発", ["2025-12-29"]),
    ("三月三日はひな祭り", ["2027-03-03"]),
    ("12月3日に会議", ["2026-12-03"]),  # as before
    ("二十二月三日", []),  # no month
    ("三日月を見た", []),
    ("十二月十十日", []),  # no day
])
def test_a_passages_dates_in_chinese_numerals(text, expected):
    assert [str(d) for d in mentions.days(text, None, date(2026, 12, 4))] == expected


# 4. A month alone in Chinese numerals was not read ("十二月的会议"): before a word that makes it the month it is, as
# "12月的会议" is; a rate ("一月一次"), a longer number ("二十二月") or a word holding 一 ("同一月") is none.
@pytest.mark.parametrize("query, expected", [
    ("十二月的会议是什么？", [("十二月", "2026-12", False)]),
    ("十一月的会议", [("十一月", "2026-11", False)]),
    ("三月份做了什么？", [("三月", "2026-03", False)]),
    ("十一月做了什么？", [("十一月", "2026-11", False)]),
    ("十二月に何をした？", [("十二月", "2026-12", False)]),
    ("十月は何をした？", [("十月", "2026-10", False)]),
    ("十一月到十二月做了什么？", [("十一月", "2026-11", False), ("十二月", "2026-12", False)]),
    ("二月と三月に何をした？", [("二月", "2026-02", False), ("三月", "2026-03", False)]),
])
def test_a_month_alone_in_chinese_numerals(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query", [
    "十二月有什么安排？",  # still to come: its next one, no time asked about (as "12月有什么安排？")
    "一月一次开会吗？",  # once a month
    "一月に一回会う？",
    "二十二月有什么？",
    "同一月内做了什么？",
    "五月雨って何？",
    "一月前做了什么？",  # as often a month ago
])
def test_a_month_in_numerals_is_still_none_here(query):
    assert windows(query) == []
