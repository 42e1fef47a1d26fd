"""Adversarial review of the days of the week asked in another language (session 40b): habits said in CJK
("毎週月曜日", "每周一", "매주 월요일"), Chinese words that hold a day's name ("下周日程": next week's schedule,
"两周一次": every two weeks), the traditional and spoken Chinese weeks ("上週五", "上个礼拜五"), the week before
last and after next ("上上周五", "先々週の金曜日", "再来週の月曜日"), Japanese days without 日 ("先週の金曜"),
"le mardi de la semaine prochaine", the past of "hattest … geplant", and a long run of spaces read in linear time."""

from datetime import datetime, timedelta, timezone

import pytest

from tachikoma.when import timeq
from linear import assert_linear
from test_ahead import assert_read_linear
from test_foreign_weekdays import SUNDAY, THURSDAY, read


@pytest.mark.parametrize("question, as_of, windows", [
    # a habit in Japanese, Chinese or Korean is every such day, no one day (was the latest Monday gone)
    ("毎週月曜日に何をする？", SUNDAY, []),
    ("毎月曜日に何をする？", SUNDAY, []),
    ("每周一做什么？", SUNDAY, []),
    ("每个星期一做什么？", SUNDAY, []),
    ("매주 월요일에 뭐 해?", SUNDAY, []),
    ("월요일마다 뭐 해?", SUNDAY, []),
    ("월요일에 뭐 했어?", SUNDAY, [("2026-11-30", False)]),  # a day still
    # Italian "il lunedì" is a habit, as French "le mardi" is; of a week, one day
    ("Cosa faccio il lunedì?", SUNDAY, []),
    ("Cosa è successo il lunedì della settimana scorsa?", SUNDAY, [("2026-11-23", False)]),
    ("Qu'est-ce qu'il y a le mardi de la semaine prochaine ?", SUNDAY, [("2026-12-08", True)]),  # was the week
    ("Qu'est-ce qui s'est passé le mardi de la semaine dernière ?", SUNDAY, [("2026-11-24", False)]),
    ("Qu'est-ce que je fais le mardi ?", SUNDAY, []),
    # "la" between a day and its week ("mardi la semaine prochaine"): a day of it, not two windows
    ("Qu'est-ce qu'il y a mardi la semaine prochaine ?", SUNDAY, [("2026-12-08", True)]),
    ("Cosa c'è martedì la settimana prossima?", SUNDAY, [("2026-12-08", True)]),
    # traditional and spoken Chinese weeks (were the week, nothing, or the latest Friday gone)
    ("上週五做了什麼？", SUNDAY, [("2026-11-27", False)]),
    ("下週一有什麼安排？", SUNDAY, [("2026-12-07", True)]),
    ("週一有什麼安排？", SUNDAY, [("2026-12-07", True)]),
    ("上個禮拜五做了什麼？", SUNDAY, [("2026-11-27", False)]),
    ("上个礼拜五做了什么？", SUNDAY, [("2026-11-27", False)]),
    # the week before last, after next (were last or next week's day)
    ("上上周五做了什么？", SUNDAY, [("2026-11-20", False)]),
    ("下下周五有什么安排？", SUNDAY, [("2026-12-18", True)]),
    ("先々週の金曜日に何した？", SUNDAY, [("2026-11-20", False)]),
    ("再来週の月曜日の予定は？", SUNDAY, [("2026-12-14", True)]),
    ("지지난주 금요일에 뭐 했어?", SUNDAY, [("2026-11-20", False)]),
    ("다다음 주 월요일에 뭐 있어?", SUNDAY, [("2026-12-14", True)]),
    ("上上周五做了什么？", THURSDAY, [("2027-01-08", False)]),
    # Japanese days without 日 (were the week, or nothing)
    ("先週の金曜に何した？", SUNDAY, [("2026-11-27", False)]),
    ("来週の土曜の予定は？", SUNDAY, [("2026-12-12", True)]),
    ("金曜に何した？", SUNDAY, [("2026-12-04", False)]),
    ("日曜大工で何を作った？", SUNDAY, []),  # do-it-yourself
    # Chinese words holding a day's name: no day (were next Sunday, last Sunday, a Monday, next Wednesday …)
    ("下周日程是什么？", SUNDAY, [("2026-12-07..2026-12-13", True)]),  # next week's schedule
    ("上周日记里写了什么？", SUNDAY, [("2026-11-23..2026-11-29", False)]),  # last week's diary
    ("上周日本之行怎么样？", SUNDAY, [("2026-11-23..2026-11-29", False)]),  # last week's trip to Japan
    ("两周一次的会议是什么？", SUNDAY, []),  # every two weeks
    ("下周三天假期去哪里？", SUNDAY, [("2026-12-07..2026-12-13", True)]),  # three days off next week
    ("下周六点的会议是什么？", SUNDAY, [("2026-12-07..2026-12-13", True)]),  # at six next week
    ("下周三天气怎么样？", SUNDAY, [("2026-12-09", True)]),  # the weather next Wednesday: a day
    ("周一周二做了什么？", SUNDAY, [("2026-11-30", False), ("2026-12-01", False)]),
    # "next" in the past tense is no window, as "What had you planned for next Tuesday?" (was next Tuesday)
    ("Was hattest du für nächsten Dienstag geplant?", SUNDAY, []),
    ("Was hattet ihr für nächsten Dienstag geplant?", SUNDAY, []),
    ("Qu'est-ce que tu avais prévu pour mardi prochain ?", SUNDAY, []),
    ("¿Qué habías planeado para el próximo martes?", SUNDAY, []),
    ("Was habe ich nächsten Dienstag?", SUNDAY, [("2026-12-08", True)]),
])
def test_a_day_of_the_week_in_another_language_adversarial(question, as_of, windows):
    assert read(question, as_of) == windows


@pytest.mark.parametrize("space", [" ", "\u3000"])
def test_a_long_run_of_spaces_is_read_in_linear_time(space):
    # a CJK day's lead was optional and the spaces after it were not: at each space the pattern ran to the end
    # of the run, so 8000 spaces took seconds and 32000 a minute and a half
    assert_linear(lambda query: timeq.read(query, SUNDAY), lambda n: "Was ist" + space * n + "?", 4000)


@pytest.mark.parametrize("phrase", ["le mardi de la semaine prochaine ", "每周一 ", "上上周五 ", "매주 월요일 "])
def test_reading_the_new_day_phrases_many_times_is_linear(phrase):
    assert_read_linear(phrase, 300)


def test_the_week_before_last_on_each_day_of_the_week():
    monday = datetime(2026, 11, 30, 12, tzinfo=timezone(timedelta(hours=1)))
    for k in range(7):
        as_of = monday + timedelta(days=k)
        assert read("上上周三做了什么？", as_of) == [("2026-11-18", False)]
        assert read("下下周三有什么安排？", as_of) == [("2026-12-16", True)]
