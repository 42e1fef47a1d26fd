"""A day of the month said without its month in Japanese, Chinese and Korean ("29日に", "29号", "29일에",
`periods.cjk_nth_day_window`), read as "on the 29th" is (`ahead.nth_day`): the next one, in the past tense the latest;
a count of days, an issue, a line, a room, a rate or a habit is none, and a day after its month is read as before."""

from datetime import datetime

import pytest
from linear import assert_linear

from tachikoma.when import timeq
from tachikoma.when.foreign_time import CJK_DAY_AFTER, FOREIGN_PATTERNS, KOREAN_DAY_AFTER
from time_reading import windows_at

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")


windows = windows_at(TENTH)


@pytest.mark.parametrize("query, expected", [
    ("29日の会議は何時から？", [("29日", "2026-12-29", True)]),
    ("29日に何がある？", [("29日", "2026-12-29", True)]),
    ("29日までに何を出す？", [("29日", "2026-12-29", True)]),
    ("会議は29日？", [("29日", "2026-12-29", True)]),
    ("10日は何の日？", [("10日", "2026-12-10", False)]),  # today
    ("3日に何を決めた？", [("3日", "2026-12-03", False)]),  # the past tense: the latest
    ("29日に何があった？", [("29日", "2026-11-29", False)]),
    ("31日に何をした？", [("31日", "2026-10-31", False)]),  # November has no 31st
    ("29号要交什么？", [("29号", "2026-12-29", True)]),
    ("29日开会吗？", [("29日", "2026-12-29", True)]),
    ("3号我们决定了什么？", [("3号", "2026-12-03", False)]),
    ("29일에 뭐 있어?", [("29일", "2026-12-29", True)]),
    ("29일 오후에 회의 있어?", [("29일", "2026-12-29", True)]),
    ("3일에 뭘 정했어?", [("3일", "2026-12-03", False)]),
])
def test_a_day_of_the_month_without_its_month(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query, expected", [
    ("12月29日の会議は？", [("12月29日", "2025-12-29", False)]),  # a month and day: `cjk_md`, as before
    ("10월 3일에 뭐 했어?", [("10월 3일", "2026-10-03", False)]),
    ("上个月3号发生了什么？", [("上个月", "2026-11", False)]),  # its month said: the day is not read alone
    ("来月3日の予定は？", [("来月", "2027-01", True)]),
    ("다음 달 3일에 뭐 있어?", [("다음 달", "2027-01", True)]),
    ("12月29日と30日に何があった？", [("12月29日", "2025-12-29", False)]),  # not the 30th of November
    ("3日後の予定は？", [("3日後", "2026-12-12..2026-12-14", True)]),  # in three days
    ("3일 후에 뭐 있어?", [("3일 후", "2026-12-12..2026-12-14", True)]),
    ("3日前に何を食べた？", [("3日前", "2026-12-06..2026-12-08", False)]),  # three days ago
])
def test_what_was_read_before_is_read_as_before(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query", [
    "29日間の旅行はどうだった？",  # 29 days long
    "3日で終わる？",  # in three days' work
    "3日目に何をした？",  # the third day
    "毎月29日に何をする？",  # every month: a habit
    "週3日出社するのは誰？",  # three days a week
    "2泊3日の旅行はどこ？",  # two nights, three days
    "1日に何回コーヒーを飲む？",  # a day: a rate
    "3日に1回は何をする？",  # once every three days
    "1日の流れは？",  # a day's
    "第3号はいつ出た？",  # an issue
    "3号线怎么走？",  # a metro line
    "3号楼在哪里？",  # a building
    "3号会议室在哪？",  # a meeting room
    "3号是谁？",  # a player's number
    "29일간 뭐 했어?",  # for 29 days
    "3일 동안 뭐 했어?",
    "1일에 몇 번 먹어?",  # a day: a rate
    "1일 권장량은?",  # a daily amount
    "매월 29일에 뭐 해?",  # every month
    "What happened on 29日?",  # not told as Japanese
])
def test_a_number_of_days_or_a_thing_is_no_day(query):
    assert windows(query) == []


@pytest.mark.parametrize("query, expected", [
    # Chinese numerals, in a Chinese question (`foreign_time.chinese_number`)
    ("二十九号要交什么？", [("二十九号", "2026-12-29", True)]),
    ("三十一日开会吗？", [("三十一日", "2026-12-31", True)]),
    ("十五号有什么安排？", [("十五号", "2026-12-15", True)]),
    ("三号我们决定了什么？", [("三号", "2026-12-03", False)]),
    ("廿九号见面吗？", [("廿九号", "2026-12-29", True)]),
    ("二十九号和三十号有什么安排？", [("二十九号", "2026-12-29", True), ("三十号", "2026-12-30", True)]),
    # a Korean day before a particle or a word (`foreign_time.KOREAN_DAY_AFTER`)
    ("29일은 뭐 해?", [("29일", "2026-12-29", True)]),
    ("29일 회의 몇 시야?", [("29일", "2026-12-29", True)]),
    ("29일 몇 시에 만나?", [("29일", "2026-12-29", True)]),
    ("29일이 무슨 요일이야?", [("29일", "2026-12-29", True)]),
    ("회의가 29일이야?", [("29일", "2026-12-29", True)]),
    ("29일도 회의 있어?", [("29일", "2026-12-29", True)]),
    ("29일의 일정은?", [("29일", "2026-12-29", True)]),  # the schedule of the 29th: no three-day schedule
    ("3일은 뭘 정했어?", [("3일", "2026-12-03", False)]),
    ("1일에 뭐 했어?", [("1일", "2026-12-01", False)]),
    # a range: one window (`periods._cjk_range`)
    ("29日〜30日の予定は？", [("29日〜30日", "2026-12-29..2026-12-30", True)]),
    ("29日から30日まで何がある？", [("29日から30日", "2026-12-29..2026-12-30", True)]),
    ("29〜30日の予定は？", [("29〜30日", "2026-12-29..2026-12-30", True)]),
    ("29号到30号有什么安排？", [("29号到30号", "2026-12-29..2026-12-30", True)]),
    ("二十九号到三十号之间有什么安排？", [("二十九号到三十号", "2026-12-29..2026-12-30", True)]),
    ("29일부터 30일까지 뭐 있어?", [("29일부터 30일", "2026-12-29..2026-12-30", True)]),
    ("29~30일에 뭐 있어?", [("29~30일", "2026-12-29..2026-12-30", True)]),
    ("29日から3日まで何がある？", [("29日から3日", "2026-12-29..2027-01-03", True)]),  # into January
    ("8日から12日まで何がある？", [("8日から12日", "2026-12-08..2026-12-12", True)]),  # under way: this one
    ("3日から5日まで何をした？", [("3日から5日", "2026-12-03..2026-12-05", False)]),
    ("3号到5号我们做了什么？", [("3号到5号", "2026-12-03..2026-12-05", False)]),
    ("29일부터 30일 동안 뭐 해?", [("29일", "2026-12-29", True)]),  # from the 29th, for 30 days: the 29th
    # a day of the week in brackets picks the month (the next 29th that is a Monday: March; `periods._cjk_days`)
    ("29日(月)の会議は？", [("29日(月)", "2027-03-29", True)]),
    ("29日(月曜日)の会議は？", [("29日(月曜日)", "2027-03-29", True)]),
    ("29일(월) 회의는?", [("29일(월)", "2027-03-29", True)]),
    ("29号（周一）开会吗？", [("29号（周一）", "2027-03-29", True)]),  # not the Monday gone by
    ("29日(火)の会議は？", [("29日(火)", "2026-12-29", True)]),  # it agrees
    ("3日(月)に何があった？", [("3日(月)", "2026-08-03", False)]),  # the latest 3rd that was a Monday
    ("29日(水)の会議は？", [("29日(水)", "2026-12-29", True)]),  # no near 29th is a Wednesday: the number
    ("29日(月)〜30日(火)の予定は？", [("29日(月)〜30日(火)", "2027-03-29..2027-03-30", True)]),  # as written
])
def test_numerals_particles_ranges_and_weekdays(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query, expected", [
    ("12月29日〜30日の予定は？", [("12月29日", "2026-12-29", True)]),  # its month: `cjk_md`, as before
    ("3日と10日に何があった？", [("3日", "2026-12-03", False), ("10日", "2026-12-10", False)]),  # two days
    ("일요일에 뭐 해?", [("일요일", "2026-12-06", False)]),  # Sunday stays Sunday
    ("下周一开会吗？", [("下周一", "2026-12-14", True)]),
])
def test_what_is_no_new_day_is_read_as_before(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query", [
    "3日の旅行はどうだった？",  # a trip of three days (as often as the trip on the 3rd: `foreign_time.CJK_DAY_COUNTED`)
    "3日の休みは何をした？",
    "ここ3日、何をした？",  # these three days
    "1일에 다 했어",  # in one day
    "1일에 끝냈어?",
])
def test_a_count_of_days_read_as_a_day_before_is_none(query):
    assert windows(query) == []


@pytest.mark.parametrize("query", [
    # what the new readings (Korean particles and words, Chinese numerals, ranges) must leave unread
    "2〜3日で届く？",  # two or three days
    "2〜3日の休みは？",
    "3일은 걸려?",  # it takes three days
    "3일도 안 걸려?",
    "3일로 줄였어?",  # cut to three days
    "3일 만에 다 했어",
    "3일 정도 걸려?",
    "3일 연속 비 왔어?",  # three days in a row
    "3일 휴가 어디 갔어?",  # a holiday of three days
    "20일 넘게 걸렸어?",
    "30일 무료 체험 언제 끝나?",  # a free trial of thirty days
    "1~2일 걸려?",
    "1일 한도는?",  # "1일" before a word saying "per day" (session 45: "1일 회의" is the 1st's meeting)
    "일주일 동안 뭐 했어?",  # a week
    "일정이 어떻게 돼?",  # the schedule
    "这三日我们做了什么？",  # these three days
    "三日内要交吗？",  # within three days
    "三号楼在哪里？",  # a building
    "一号线怎么走？",  # a metro line
    "两号开会吗？",  # 两 is "two of", never a day's number
])
def test_a_count_of_days_or_a_thing_stays_no_day(query):
    assert windows(query) == []


@pytest.mark.parametrize("make", [
    lambda n: "1" + " " * n + "日",
    lambda n: "1〜" * (n // 2),
    lambda n: ("1" + " " * 50 + "〜" + " " * 50) * (n // 102),
    lambda n: "二十" * (n // 2),
    lambda n: "十" * n,
    lambda n: "29일" + " " * n + "회의",
    lambda n: "29일" + " " * n,
    lambda n: "1日(" * (n // 3),
])
def test_reading_a_long_question_of_days_is_linear(make):
    """The day pattern's look-ahead for a range and the Korean words after a day do not backtrack: the pattern and
    what follows each day it finds read 100,000 characters in about 8× the time of 12,500, and `timeq` reads 8× the
    text in about 8× the time."""
    pattern, told = FOREIGN_PATTERNS["cjk_nth_day"], {"Japanese", "Chinese", "Korean"}

    def scan(text: str) -> None:
        for m in pattern.finditer(text):
            for language in told:
                CJK_DAY_AFTER[language].match(text, m.end())
            KOREAN_DAY_AFTER.match(text, m.end())
        KOREAN_DAY_AFTER.match(text, 4)

    assert_linear(scan, make, 12_500)
    assert_linear(lambda text: timeq.read_spans(text, TENTH), make, 6_000)


@pytest.mark.parametrize("phrase", ["29日〜30日の", "二十九号到三十号", "29일부터 30일까지 ", "29日(月)の", "29일 회의 "])
def test_reading_many_days_is_linear(phrase):
    # 8× the phrases: ~8× the time
    assert_linear(lambda text: timeq.read_spans(text, TENTH), lambda times: phrase * times, 500)
