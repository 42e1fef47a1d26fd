"""Adversarial review (session 44) of the CJK days of the month said without their month (commit 3b9ecf5: Chinese
numerals, Korean days before particles and words, ranges, counts, a day of the week in brackets;
`periods.cjk_nth_day_window`). Each case says whether it failed before its fix ("failed before") or guards what
must not move ("pins")."""

import random
from datetime import datetime

import pytest
from linear import assert_linear

from tachikoma.when import timeq
from time_reading import windows_at

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")  # a Thursday
NOVEMBER = datetime.fromisoformat("2026-11-10T21:00:00+09:00")  # November has no 31st
FEBRUARY = datetime.fromisoformat("2027-02-10T21:00:00+09:00")  # nor February 2027 a 29th


windows = windows_at(TENTH)


# ------------------------------------------------------------ 1. a range whose second day its month lacks

@pytest.mark.parametrize("query, now, expected", [
    # failed before: the 30th of November to the next 31st (31 December), a month and a day; in the past tense
    # up to three weeks still to come
    ("30日〜31日の予定は？", NOVEMBER, [("30日〜31日", "2026-12-30..2026-12-31", True)]),
    ("30日〜31日に何をした？", TENTH, [("30日〜31日", "2026-10-30..2026-10-31", False)]),
    ("30日から31日まで何をした？", TENTH, [("30日から31日", "2026-10-30..2026-10-31", False)]),
    ("30号到31号我们做了什么？", TENTH, [("30号到31号", "2026-10-30..2026-10-31", False)]),
    ("三十号到三十一号我们做了什么？", TENTH, [("三十号到三十一号", "2026-10-30..2026-10-31", False)]),
    ("30일부터 31일까지 뭐 했어?", TENTH, [("30일부터 31일", "2026-10-30..2026-10-31", False)]),
    # failed before: asked on the 10th, 28 November to 31 December read as under way
    ("28日〜31日の予定は？", TENTH, [("28日〜31日", "2026-12-28..2026-12-31", True)]),
    ("29日〜31日に何をした？", TENTH, [("29日〜31日", "2026-10-29..2026-10-31", False)]),
    # failed before: February 2027 has no 29th: 28 February to 29 March
    ("28日〜29日の予定は？", FEBRUARY, [("28日〜29日", "2027-03-28..2027-03-29", True)]),
    # failed before: a day of the week in brackets chose a 30th (30 November, a Monday) whose month has no 31st;
    # no near month has both, so the numbers alone
    ("30日(月)〜31日の予定は？", NOVEMBER, [("30日(月)〜31日", "2026-12-30..2026-12-31", True)]),
])
def test_a_range_lies_in_one_month_or_runs_into_the_next(query, now, expected):
    assert windows(query, now) == expected


@pytest.mark.parametrize("query, now, expected", [
    # pins: a range into the next month, one under way, one on the last day, one backwards (a cycle: the 30th
    # to the next 29th), February's 29th and 30th in a year without them (the next month that has both)
    ("29日から3日まで何がある？", TENTH, [("29日から3日", "2026-12-29..2027-01-03", True)]),
    ("8日から12日まで何がある？", TENTH, [("8日から12日", "2026-12-08..2026-12-12", True)]),
    ("31日〜1日の予定は？", TENTH, [("31日〜1日", "2026-12-31..2027-01-01", True)]),
    ("30日〜29日の予定は？", TENTH, [("30日〜29日", "2026-11-30..2026-12-29", True)]),
    ("29日〜30日の予定は？", FEBRUARY, [("29日〜30日", "2027-03-29..2027-03-30", True)]),
    ("29日〜30日に何をした？", FEBRUARY, [("29日〜30日", "2027-01-29..2027-01-30", False)]),
    ("3日から5日まで何をした？", TENTH, [("3日から5日", "2026-12-03..2026-12-05", False)]),
    ("29日(月)〜30日の予定は？", TENTH, [("29日(月)〜30日", "2027-03-29..2027-03-30", True)]),
])
def test_ranges_read_as_before(query, now, expected):
    assert windows(query, now) == expected


# ------------------------------------------------------------ 2. a day of the week in brackets

@pytest.mark.parametrize("query, now, expected", [
    # failed before: the second day's bracket was left out of the phrase, and not read ("29日〜30日(火)": the 30th
    # of December is a Wednesday; 30 March 2027 is a Tuesday)
    ("29日(月)〜30日(火)の予定は？", TENTH, [("29日(月)〜30日(火)", "2027-03-29..2027-03-30", True)]),
    ("29日(月)から30日(火)まで何がある？", TENTH, [("29日(月)から30日(火)", "2027-03-29..2027-03-30", True)]),
    ("29号（周一）到30号（周二）有什么安排？", TENTH, [("29号（周一）到30号（周二）", "2027-03-29..2027-03-30", True)]),
    ("29일(월)부터 30일(화)까지 뭐 있어?", TENTH, [("29일(월)부터 30일(화)", "2027-03-29..2027-03-30", True)]),
    ("29日〜30日(火)の予定は？", TENTH, [("29日〜30日(火)", "2027-03-29..2027-03-30", True)]),
    # failed before: a weekday in brackets says a date, never a count ("3日の出張": a trip of three days;
    # "3日(月)の出張": the trip on Monday the 3rd); read so before 3b9ecf5
    ("3日(木)の旅行はどうだった？", TENTH, [("3日(木)", "2026-12-03", False)]),
    ("3日(日)の出張は？", TENTH, [("3日(日)", "2027-01-03", True)]),
    ("3일(목) 휴가 어디 갔어?", TENTH, [("3일(목)", "2026-12-03", False)]),
    ("3日(月)〜5日(水)の出張は？", TENTH, [("3日(月)〜5日(水)", "2027-05-03..2027-05-05", True)]),
])
def test_a_weekday_in_brackets_after_either_day(query, now, expected):
    assert windows(query, now) == expected


MARCH_30 = datetime.fromisoformat("2027-03-30T12:00:00+09:00")  # Tuesday: Monday 29 March was yesterday


@pytest.mark.parametrize("query, now, expected", [
    # failed before: asked the day after Monday the 29th, no coming 29th within four months is a Monday, and the
    # number alone was read: 29 April, a Thursday. The weekday names yesterday ("Monday the 29th" does too)
    ("29日(月)の会議は？", MARCH_30, [("29日(月)", "2027-03-29", False)]),
    ("29일(월) 회의 안건은?", MARCH_30, [("29일(월)", "2027-03-29", False)]),
    ("29日(月)〜30日(火)の予定は？", datetime.fromisoformat("2027-04-02T12:00:00+09:00"),
     [("29日(月)〜30日(火)", "2027-03-29..2027-03-30", False)]),
    # pins: a coming one near enough is still read first; the past tense never reads one still to come; a
    # weekday no near month agrees with reads the number
    ("29日(月)の会議は？", TENTH, [("29日(月)", "2027-03-29", True)]),
    ("29日(月)の会議で何を決めた？", MARCH_30, [("29日(月)", "2027-03-29", False)]),
    ("3日(月)に何があった？", TENTH, [("3日(月)", "2026-08-03", False)]),
    ("29日(水)の会議は？", TENTH, [("29日(水)", "2026-12-29", True)]),
    ("29日(火)の会議は？", TENTH, [("29日(火)", "2026-12-29", True)]),
])
def test_a_weekday_gone_by_is_read_when_none_is_coming(query, now, expected):
    assert windows(query, now) == expected


# ------------------------------------------------------------ 3. Korean counts read as days

@pytest.mark.parametrize("query", [
    # failed before (read nothing before 3b9ecf5: a word after "3일" did not make it a day): days a week, nights
    # and days, in a row, at least
    "주 3일 근무해?",
    "주3일 출근해?",
    "주 4일 근무제 언제부터야?",
    "매주 3일 운동해?",
    "일주일에 3일 운동해?",
    "일주일에 3일은 운동해?",
    "한 주에 3일 출근해?",
    "3박 4일 뭐 했어?",
    "연속 3일 비 왔어?",
    "최소 3일 필요해?",
    # failed before: the words of "it takes" and "needs" (소요, 필요), "day and night"
    "3일 소요돼?",
    "배송은 3~5일 소요돼?",
    "3일 필요해?",
    "3일 밤낮으로 일했어?",
    # failed before (also before 3b9ecf5): "제" is Korean's "第", the third day
    "제3일에 뭐 했어?",
    # Japanese, as "ここ3日" is not a day: at least, only, in a row
    "最低3日は休みたい？",
    "少なくとも3日は休む？",
    "たった3日に何ができる？",
])
def test_a_count_of_days_is_no_day(query):
    assert windows(query) == []


@pytest.mark.parametrize("query, expected", [
    # pins: a day after words of time that are no count
    ("지난 3일에 뭐 했어?", [("3일", "2026-12-03", False)]),
    ("오는 29일 회의 몇 시야?", [("29일", "2026-12-29", True)]),
    ("다음 주 3일에 뭐 있어?", [("다음 주", "2026-12-14..2026-12-20", True), ("3일", "2027-01-03", True)]),
    ("29일 회의 몇 시야?", [("29일", "2026-12-29", True)]),
    ("3일 하루 종일 뭐 했어?", [("3일", "2026-12-03", False)]),  # all day on the 3rd
    ("29일 소요 예산 얼마야?", [("29일", "2026-12-29", True)]),  # "소요" as a noun before another
])
def test_korean_days_read_as_before(query, expected):
    assert windows(query) == expected


# ------------------------------------------------------------ 4. Chinese: "之间" alone, "一日"

@pytest.mark.parametrize("query", [
    # failed before: "之间" (between) after one day: within a day, three days
    "一日之间发生了什么？",
    "三日之间我们做了什么？",
    # failed before: "一日" in Chinese numerals is a day's worth, as Japanese "1日" ("一日游", "一日三餐")
    "一日都没休息？",
    "一日要多少钱？",
])
def test_a_chinese_count_is_no_day(query):
    assert windows(query) == []


@pytest.mark.parametrize("query, expected", [
    # pins: between two days, "一号", a range from the 1st, digits as before
    ("二十九号到三十号之间有什么安排？", [("二十九号到三十号", "2026-12-29..2026-12-30", True)]),
    ("29号和30号之间有什么安排？", [("29号", "2026-12-29", True), ("30号", "2026-12-30", True)]),
    ("一号有什么安排？", [("一号", "2027-01-01", True)]),
    ("一日到三日有什么安排？", [("一日到三日", "2027-01-01..2027-01-03", True)]),
    ("1日有什么安排？", [("1日", "2027-01-01", True)]),
])
def test_chinese_days_read_as_before(query, expected):
    assert windows(query) == expected


# ------------------------------------------------------------ 5. what held: no exception, linear time

def test_no_string_of_days_numerals_and_particles_raises():
    """Pins: a fixed-seed fuzz over a CJK-and-digits alphabet; every window has its start before its end."""
    alphabet = list("0123456789０２９一二三九十廿卅两百日号號일月火水(（)）〜~-到至에은도이의로 　、周期曜第제박주") + [
        "から", "부터", "까지", "(月)", "（周一）", "29日", "二十九号", "29일", "は", "の", "旅行", "휴가", "했어", "した"]
    rng = random.Random(44)
    nows = [TENTH, FEBRUARY, datetime.fromisoformat("9999-12-31T12:00:00+00:00"),
            datetime.fromisoformat("0001-01-01T12:00:00+00:00")]
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))
        for now in nows:
            for start, end, window in timeq.read_spans(text, now):
                assert start < end and window.start < window.end, (text, now)


@pytest.mark.parametrize("unit", ["29日(月)〜", "二十九号到", "29일은 ", "주 3일 ", "3박 4일 ", "29日(", "29〜30日(火)"])
def test_long_runs_read_in_linear_time(unit):
    assert_linear(lambda text: timeq.read_spans(text, TENTH), lambda n: unit * (n // len(unit)), 12_500)
