"""Session 46: the time-reading leftovers of session 45. Each test of a break failed before its fix; those saying
"still" or "as before" guard what must not move with it."""

from datetime import date, datetime, timezone

import pytest

from tachikoma.when import mentions, timeq
from tachikoma.search.keywords import STOPWORDS, query_terms
from time_reading import windows_at

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")  # a Thursday

windows = windows_at(TENTH)


# 1. "2、3日は" read the 3rd alone: two numbers listed before one day's word are a list, read as "2〜3日" is: two or
# three days when they follow each other up to 7 (a count: no day, "2〜3日は" as before), else the days from the first
# to the second ("29、30日", "29、30号", "29, 30일"; a count is never said with 号).
@pytest.mark.parametrize("query, expected", [
    ("2、3日は何をした？", []),
    ("2、3日は何がある？", []),
    ("2,3日は何をした？", []),
    ("ここ2、3日は何をした？", []),
    ("29、30日は何をした？", [("29、30日", "2026-11-29..2026-11-30", False)]),
    ("29、30日は何がある？", [("29、30日", "2026-12-29..2026-12-30", True)]),
    ("二十九、三十日に何をした？", [("二十九、三十日", "2026-11-29..2026-11-30", False)]),
    ("29、30号有什么安排？", [("29、30号", "2026-12-29..2026-12-30", True)]),
    ("2、3号有什么安排？", [("2、3号", "2027-01-02..2027-01-03", True)]),
    ("29, 30일에 뭐 해?", [("29, 30일", "2026-12-29..2026-12-30", True)]),
])
def test_two_days_listed_before_one_word(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query, expected", [
    ("2〜3日は何をした？", []),  # as before: two or three days
    ("2、3日で終わる？", []),
    ("2、3日の休みは？", []),
    ("2〜3号有什么安排？", [("2〜3号", "2027-01-02..2027-01-03", True)]),  # 号: days, never a count
    ("2日、3日は何をした？", [("2日", "2026-12-02", False), ("3日", "2026-12-03", False)]),  # as before: two days
    ("1、2、3日は何をした？", []),
])
def test_a_list_of_small_days_is_still_a_count(query, expected):
    assert windows(query) == expected


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


# 5. Korean "3일 차" (the third day of something) read the 3rd: "차" after a day counts the days of a stay, a diet, a
# trip ("3일 차에", "3일 차 일정", "100일 차"), as "3일째" does; "3일 차이" (three days apart) is no day either.
@pytest.mark.parametrize("query, expected", [
    ("3일 차에 뭐 했어?", []),
    ("3일 차 일정 어땠어?", []),
    ("1일 차에 뭐 했어?", []),
    ("여행 2일 차는 어땠어?", []),
    ("3일 차이 나?", []),
    ("3일에 뭐 했어?", [("3일", "2026-12-03", False)]),  # still
    ("29일 회의 어땠어?", [("29일", "2026-11-29", False)]),  # still
])
def test_korean_day_n_of_something(query, expected):
    assert windows(query) == expected


# 6. Korean work that lasts days was read as a day: "1일 알바" (a day's part-time job), "3일 알바", "공사가 3일이야?" (the
# works last three days); "29일 알바" is still the job on the 29th.
@pytest.mark.parametrize("query, expected", [
    ("1일 알바 어땠어?", []),
    ("3일 알바 어땠어?", []),
    ("3일 아르바이트 어땠어?", []),
    ("공사가 3일이야?", []),
    ("알바가 3일이야?", []),
    ("29일 알바 어땠어?", [("29일", "2026-11-29", False)]),
    ("공사가 29일이야?", [("29일", "2026-12-29", True)]),
    ("1일 회의 어땠어?", [("1일", "2026-12-01", False)]),  # as before
])
def test_korean_work_that_lasts_days(query, expected):
    assert windows(query) == expected


# 7. "29일로 미뤘어?" (postponed to the 29th) read the 29th gone, by its past tense: a day a thing was moved to is the
# coming one, whatever the tense ("29일로 옮겼어?", "29日に延期した？", "moved to the 29th").
@pytest.mark.parametrize("query, expected", [
    ("29일로 미뤘어?", [("29일", "2026-12-29", True)]),
    ("회의 29일로 옮겼어?", [("29일", "2026-12-29", True)]),
    ("회의를 3일로 연기했어?", [("3일", "2027-01-03", True)]),
    ("29日に延期した？", [("29日", "2026-12-29", True)]),
    ("会議は29日に変更した？", [("29日", "2026-12-29", True)]),
    ("Was the meeting moved to the 29th?", [("the 29th", "2026-12-29", True)]),
    ("Did they postpone the call until the 29th?", [("the 29th", "2026-12-29", True)]),  # no deadline
    ("29일에 뭐 했어?", [("29일", "2026-11-29", False)]),  # still the past
    ("29日に何をした？", [("29日", "2026-11-29", False)]),
    ("What did we do on the 29th?", [("on the 29th", "2026-11-29", False)]),
    ("3일 미뤘어?", []),  # still: postponed by three days
    ("3일 연기했어?", []),  # put off by three days (it read the 3rd)
])
def test_a_day_something_was_moved_to_is_the_coming_one(query, expected):
    assert windows(query) == expected


# 8. "What's on the 21st in July?" read as coming said "on the 21st" alone, and "in July" (its next one: no window) stayed
# a word asked besides the time: the day's phrase holds its month, as in the past tense.
JULY_2 = datetime(2026, 7, 2, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize("query, asked, expected", [
    ("What's on the 21st in July?", JULY_2, [("on the 21st in July", "2026-07-21", True)]),
    ("In July, on the 21st, what is on?", JULY_2, [("In July, on the 21st", "2026-07-21", True)]),
    ("What's due by the 21st in July?", JULY_2, [("by the 21st in July", "2026-07-02..2026-07-21", True)]),
    ("What's planned on the 21st in January?", TENTH, [("on the 21st in January", "2027-01-21", True)]),
    ("What did we do on the 21st in July?", JULY_2, [("on the 21st in July", "2025-07-21", False)]),  # as before
])
def test_a_coming_day_beside_its_month_is_said_as_both(query, asked, expected):
    assert windows(query, asked, ahead=timeq.names_day_ahead(query, asked) or None) == expected


def test_a_coming_day_beside_its_month_leaves_no_month_asked_besides():
    query = "What's on the 21st in July?"
    spans = timeq.read_spans(query, JULY_2, ahead=True)
    assert query_terms(timeq.without_time(query, spans, every=True), skip=STOPWORDS) == []
