"""A day of the month said without its month in Japanese, Chinese and Korean ("29日に", "29号", "29일에",
`periods.cjk_nth_day_window`), read as "on the 29th" is (`ahead.nth_day`): the next one, in the past tense the latest;
a count of days, an issue, a line, a room, a rate or a habit is none, and a day after its month is read as before."""

from datetime import datetime

import pytest

from tachikoma import timeq

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")


def windows(query: str, now: datetime = TENTH) -> list[tuple[str, str, bool]]:
    return [(w.phrase, w.label, w.ahead) for _, _, w in timeq.read_spans(query, now)]


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
