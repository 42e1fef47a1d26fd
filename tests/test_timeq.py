"""Reading the time a query asks about (`timeq.read`) against fixed as_of dates, and its factor."""

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from tachikoma.when import timeq

UTC = timezone.utc
# Wednesday 25 March 2026, noon UTC.
AS_OF = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)


def labels(query: str, as_of: datetime = AS_OF) -> list[tuple[str, str]]:
    return [(w.phrase, w.label) for w in timeq.read(query, as_of)]


@pytest.mark.parametrize("query, expected", [
    # explicit dates in common forms
    ("what happened on 2026-03-22?", [("on 2026-03-22", "2026-03-22")]),
    ("notes from 2026/03/02", [("2026/03/02", "2026-03-02")]),
    ("the meeting on March 22", [("March 22", "2026-03-22")]),
    ("the meeting on 22nd of March 2025", [("22nd of March 2025", "2025-03-22")]),
    ("Mar 3rd, 2024 release", [("Mar 3rd, 2024", "2024-03-03")]),
    ("what did we say on May 3", [("May 3", "2025-05-03")]),  # May 3 2026 is still to come
    # months and years
    ("what did we decide in March", [("in March", "2026-03")]),
    ("what was I building with Codex in October 2025?", [("October 2025", "2025-10")]),
    ("what did we ship in May", [("in May", "2025-05")]),
    ("trips last March", [("last March", "2025-03")]),
    ("everything in 2025", [("in 2025", "2025")]),
    ("since March", [("since March", "2026-03-01..2026-03-25")]),
    # days and weekdays
    ("what did I do today", [("today", "2026-03-25")]),
    ("what did I do yesterday", [("yesterday", "2026-03-24")]),
    ("the day before yesterday", [("the day before yesterday", "2026-03-23")]),
    ("I received jewelry last Saturday", [("last Saturday", "2026-03-21")]),
    ("lunch on Wednesday", [("on Wednesday", "2026-03-18")]),  # the latest one before today
    ("What did I do with Rachel on the Wednesday two months ago?", [("the Wednesday two months ago", "2026-01-21")]),
    # relative
    ("what did we change last week?", [("last week", "2026-03-16..2026-03-22")]),
    ("this week", [("this week", "2026-03-23..2026-03-25")]),
    ("the past weekend", [("the past weekend", "2026-03-21..2026-03-22")]),
    ("two weeks ago", [("two weeks ago", "2026-03-07..2026-03-15")]),
    ("3 days ago", [("3 days ago", "2026-03-21..2026-03-23")]),
    ("a couple of months ago", [("a couple of months ago", "2026-01-08..2026-02-07")]),
    ("shoes I cleaned last month", [("last month", "2026-02")]),
    ("in the past three months", [("in the past three months", "2025-12-24..2026-03-25")]),
    ("what did I do recently", [("recently", "2026-02-23..2026-03-25")]),
])
def test_reads_each_kind_of_expression(query, expected):
    assert labels(query) == expected


@pytest.mark.parametrize("query", [
    "upgrade to version 2.1.5", "the server listens on port 2026", "fix bug 1041 in the parser",
    "May I ask about the deploy", "we march on", "I may go", "set timeout to 30 seconds", "build 2026-13-40",
    "tag v2026.03.01", "I had 3 cats and 12 dogs", "How many engineers do I lead", "call 2026-03",
])
def test_non_dates_are_not_read(query):
    assert labels(query) == []


def test_month_and_year_boundaries():
    new_year = datetime(2026, 1, 2, 9, 0, tzinfo=UTC)  # a Friday
    assert labels("last month", new_year) == [("last month", "2025-12")]
    assert labels("in December", new_year) == [("in December", "2025-12")]
    assert labels("last week", new_year) == [("last week", "2025-12-22..2025-12-28")]
    assert labels("yesterday", new_year) == [("yesterday", "2026-01-01")]
    march_first = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)  # a leap year
    assert labels("yesterday", march_first) == [("yesterday", "2024-02-29")]
    assert labels("last month", march_first) == [("last month", "2024-02")]
    window = timeq.read("last month", march_first)[0]
    assert window.start == datetime(2024, 2, 1, tzinfo=UTC).timestamp()
    assert window.end == datetime(2024, 3, 1, tzinfo=UTC).timestamp()
    assert labels("on February 29", datetime(2025, 3, 1, tzinfo=UTC)) == [("February 29", "2024-02-29")]


def test_a_month_still_to_come_is_no_time_asked_about_and_a_day_is_its_coming_one():
    # Asked on 25 March: a question about what is coming means the next January or December, which no
    # memory is from yet; it was read as the last one (2026-01, 2025-12) and the answer said so.
    for query in ("What's planned for January?", "which deliveries are we waiting for in December",
                  "How much will the fee be from January?", "Whose birthdays come up before the end of June?",
                  "we'll meet in June, right?"):
        assert labels(query) == [], query
    # A day is a window still to come: the passages naming it rank first (`mentions`, session 39).
    for query in ("what's due on April 3", "what's scheduled for 3rd of April"):
        assert [(w.label, w.ahead) for w in timeq.read(query, AS_OF)] == [("2026-04-03", True)], query
    # ... and not then read as another language's month ("in december" is Dutch too)
    assert labels("which deliveries are we waiting for in december") == []
    # a question that also speaks of the past keeps the past reading
    assert labels("What did we plan for January?") == [("for January", "2026-01")]
    assert labels("what was due in December") == [("in December", "2025-12")]
    assert labels("what deliveries came in December") == [("in December", "2025-12")]


def test_a_month_still_to_come_in_another_language_is_no_time_asked_about():
    # The same rule in the languages `function_words.language_of` tells, with their own words: German "Was"
    # is "what", not English "was", so "Was ist im Januar geplant?" looks ahead.
    for query in ("Wer kommt im Dezember?", "Was ist im Januar geplant?", "Welche Lieferungen kommen im Dezember?",
                  "Qu'est-ce qui est prévu en janvier ?", "¿Qué está previsto en enero?",
                  "O que está marcado em janeiro?", "12月の予定は？", "12月有什么安排？", "12월에 예정된 일은?"):
        assert labels(query) == [], query
    # ... and one that speaks of the past, or asks with no word of either, keeps the month
    for query, label in (("Was war im Dezember los?", "2025-12"), ("Qu'est-ce qui s'est passé en janvier ?", "2026-01"),
                         ("¿Qué pasó en enero?", "2026-01"), ("12月に何をしましたか？", "2025-12"),
                         ("12月做了什么？", "2025-12"), ("12월에 뭐 했어?", "2025-12"),
                         ("Wann ist das Konzert vom Chor im März?", "2026-03")):
        assert [found for _, found in labels(query)] == [label], query
    # "since" always looks back, whatever else the question says
    assert [found for _, found in labels("Was ist seit Januar geplant?")] == ["2026-01-01..2026-03-25"]


@pytest.mark.parametrize("query", ["What did the doctor say in Mayo Clinic?", "my appointment in Mayo clinic",
                                   "in Julio we trust", "a week in juillet is too hot"])
def test_in_before_a_month_of_a_language_that_says_en_or_em_is_english(query):
    # "in" leads a German or Dutch month only: Spanish and French say "en", Portuguese "em"
    assert labels(query) == []


@pytest.mark.parametrize("query, label", [("Was war in Mai?", "2025-05"), ("wat gebeurde in maart?", "2026-03"),
                                          ("¿Qué pasó en mayo?", "2025-05"),
                                          ("Qu'est-ce qui s'est passé en juillet ?", "2025-07")])
def test_a_month_after_its_own_languages_in_is_still_read(query, label):
    assert [found for _, found in labels(query)] == [label]


@pytest.mark.parametrize("query, phrase, label", [
    ("What happened between March 1 and March 10?", "between March 1 and March 10", "2026-03-01..2026-03-10"),
    ("what did we do from March 1 to March 10", "from March 1 to March 10", "2026-03-01..2026-03-10"),
    ("between 2026-03-01 and 2026-03-10", "between 2026-03-01 and 2026-03-10", "2026-03-01..2026-03-10"),
    ("Whose birthdays fall between January and February?", "between January and February", "2026-01-01..2026-02-28"),
    # the first time named without a year is the latest one before the second: not the one after it
    ("did we meet between August and November 2023?", "between August and November 2023", "2023-08-01..2023-11-30"),
    ("Where was John between August 11 and August 15 2023?", "between August 11 and August 15 2023",
     "2023-08-11..2023-08-15"),
    ("between Dec 30 and Jan 3", "between Dec 30 and Jan 3", "2025-12-30..2026-01-03"),
    ("from October to December", "from October to December", "2025-10-01..2025-12-31"),
    # both years said, the later first: the same span, said the other way round
    ("What did we do between 2026-03-10 and 2026-03-01?", "between 2026-03-10 and 2026-03-01", "2026-03-01..2026-03-10"),
    ("from 10 March 2026 to 2 February 2026", "from 10 March 2026 to 2 February 2026", "2026-02-02..2026-03-10"),
    ("from 2027-01-01 to 2026-01-01", "from 2027-01-01 to 2026-01-01", "2026-01-01..2027-01-01"),
])
def test_a_span_between_two_times_is_one_window(query, phrase, label):
    assert labels(query) == [(phrase, label)]


def test_two_times_not_said_as_a_span_stay_two():
    assert labels("what happened in January and February?") == [("in January", "2026-01"), ("and February", "2026-02")]
    assert [label for _, label in labels("in March 2026 and in February 2026")] == ["2026-03", "2026-02"]
    assert labels("since January and until February")[0] == ("since January", "2026-01-01..2026-03-25")


def test_days_are_the_askers_days():
    """As of 02:00 on the 25th in Tokyo it is still the 24th in UTC: "yesterday" is Tokyo's 24th."""
    tokyo = timezone(timedelta(hours=9))
    as_of = datetime(2026, 3, 25, 2, 0, tzinfo=tokyo)
    window = timeq.read("yesterday", as_of)[0]
    assert window.label == "2026-03-24"
    assert window.start == datetime(2026, 3, 24, 0, 0, tzinfo=tokyo).timestamp()
    assert window.end - window.start == 86400
    # the same instant in UTC reads another day
    assert labels("yesterday", as_of.astimezone(UTC)) == [("yesterday", "2026-03-23")]
    with pytest.raises(ValueError):
        timeq.read("yesterday", datetime(2026, 3, 25))


def test_factor_is_one_inside_and_falls_with_distance():
    window = timeq.read("on 2026-03-22", AS_OF)
    day = datetime(2026, 3, 22, 15, 0, tzinfo=UTC).timestamp()
    dates = np.array([day, day + 86400 * 0.6, day + 86400 * 3, day - 86400 * 300])
    weight, nearest = timeq.factor(dates, window)
    assert weight[0] == 1.0
    assert 1.0 > weight[1] > weight[2] > weight[3] > timeq.OUTSIDE
    assert nearest.tolist() == [0, 0, 0, 0]
    none, _ = timeq.factor(dates, [])
    assert none.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_several_windows_count_the_nearest():
    windows = timeq.read("in March and April", datetime(2026, 5, 10, tzinfo=UTC))
    assert [w.label for w in windows] == ["2026-03", "2026-04"]
    april = datetime(2026, 4, 20, tzinfo=UTC).timestamp()
    weight, nearest = timeq.factor(np.array([april]), windows)
    assert weight[0] == 1.0 and nearest[0] == 1


def test_explanation_names_the_date_and_the_words():
    window = timeq.read("what happened on 2026-03-22", AS_OF)[0]
    inside = datetime(2026, 3, 22, 10, 0, tzinfo=UTC).timestamp()
    assert timeq.explain(1.0, inside, window, UTC) == "time: 2026-03-22, asked 'on 2026-03-22'"
    assert timeq.explain(0.8, inside - 86400 * 5, window, UTC) == (
        "time: 2026-03-17, asked 'on 2026-03-22', outside 2026-03-22")


@pytest.mark.parametrize("text, expected", [
    ("2026-03-22", datetime(2026, 3, 22, 23, 59, 59)),
    ("2026-03-22T08:30+09:00", datetime(2026, 3, 22, 8, 30, tzinfo=timezone(timedelta(hours=9)))),
    ("2026-03-22T08:30:00Z", datetime(2026, 3, 22, 8, 30, tzinfo=UTC)),
])
def test_parse_as_of(text, expected):
    parsed = timeq.parse_as_of(text)
    assert parsed.tzinfo is not None
    if expected.tzinfo is None:
        assert parsed.replace(tzinfo=None) == expected
    else:
        assert parsed == expected


@pytest.mark.parametrize("text", ["garbage", "2026-02-30", "March", "99999-01-01"])
def test_parse_as_of_refuses_non_dates(text):
    with pytest.raises(ValueError, match="as_of"):
        timeq.parse_as_of(text)


def test_parse_as_of_now():
    before = datetime.now(UTC)
    assert timeq.parse_as_of("now") >= before and timeq.parse_as_of(None).tzinfo is not None


# ------------------------------------------------------------------ other languages (issue 29)

@pytest.mark.parametrize("query, label", [
    ("Was war letzte Woche?", "2026-11-23..2026-11-29"),
    ("Was haben wir im Oktober besprochen?", "2026-10"),
    ("im Oktober 2025", "2025-10"),
    ("seit März", "2026-03-01..2026-12-04"),
    ("vor 3 Tagen", "2026-11-30..2026-12-02"),
    ("vor zwei Wochen", "2026-11-16..2026-11-24"),
    ("gestern", "2026-12-03"),
    ("¿Qué pasó la semana pasada?", "2026-11-23..2026-11-29"),
    ("hace un mes", "2026-10-20..2026-11-19"),
    ("en octubre", "2026-10"),
    ("desde enero", "2026-01-01..2026-12-04"),
    ("la semaine dernière", "2026-11-23..2026-11-29"),
    ("il y a deux jours", "2026-12-01..2026-12-03"),
    ("l'année dernière", "2025"),
    ("先週の会議", "2026-11-23..2026-11-29"),
    ("3日前", "2026-11-30..2026-12-02"),
    ("2025年10月", "2025-10"),
    ("10月3日の予約", "2026-10-03"),
    ("上个月的发票", "2026-11"),
    ("三天前", "2026-11-30..2026-12-02"),
    ("昨天", "2026-12-03"),
    ("O que aconteceu na semana passada?", "2026-11-23..2026-11-29"),
    ("há 3 dias", "2026-11-30..2026-12-02"),
    ("Quando é a inspeção em março?", "2026-03"),
    ("ontem", "2026-12-03"),
    ("Cosa è successo la settimana scorsa?", "2026-11-23..2026-11-29"),
    ("due settimane fa", "2026-11-16..2026-11-24"),
    ("a maggio", "2026-05"),
    ("l'altro ieri", "2026-12-02"),
    ("Wat gebeurde er vorige week?", "2026-11-23..2026-11-29"),
    ("drie dagen geleden", "2026-11-30..2026-12-02"),
    ("sinds januari", "2026-01-01..2026-12-04"),
    ("지난주에 뭐 했어?", "2026-11-23..2026-11-29"),
    ("3일 전", "2026-11-30..2026-12-02"),
    ("한 달 전", "2026-10-20..2026-11-19"),
    ("10월 3일 예약", "2026-10-03"),
    ("2025년 10월", "2025-10"),
    ("어제", "2026-12-03"),
])
def test_time_words_of_other_languages(query, label):
    now = datetime(2026, 12, 4, 12, tzinfo=UTC)
    assert [w.label for w in timeq.read(query, now)] == [label]


@pytest.mark.parametrize("query", ["Was haben wir hier besprochen?", "letzte Wochen", "en el mes", "Martin's notes",
                                   "Does she want to come over?", "What is due at Sei's?", "I ate da pizza",
                                   "세 사람", "twee"])
def test_words_like_time_words_are_no_time(query):
    assert timeq.read(query, datetime(2026, 12, 4, 12, tzinfo=UTC)) == []


@pytest.mark.parametrize("query, kept", [("先週の会議", " の会議"), ("Was war letzte Woche?", "Was war  ?"),
                                         ("Wann war das im Oktober?", "Wann war das im Oktober?")])
def test_other_languages_relative_times_are_not_keywords(query, kept):
    now = datetime(2026, 12, 4, 12, tzinfo=UTC)
    assert timeq.without_time(query, timeq.read_spans(query, now)) == kept


@pytest.mark.parametrize("query, read", [
    # a day of the week next to another time is a day of that time (session 39): it was read apart, as the
    # coming (or latest) such day, beside the other time
    ("What are we doing Saturday in three weeks?", [("Saturday in three weeks", "2026-04-18", True)]),
    ("What is on Friday next week?", [("on Friday next week", "2026-04-03", True)]),
    ("what is on next week on Friday", [("next week on Friday", "2026-04-03", True)]),
    ("What did we do on Friday last week?", [("on Friday last week", "2026-03-20", False)]),
    ("What did Andrew do on the Monday before July 24, 2023?", [("Monday before July 24, 2023", "2023-07-17", False)]),
    ("What did they plan on the Saturday after October 28, 2023?",
     [("Saturday after October 28, 2023", "2023-11-04", False)]),
    ("What happened on Monday, 2023-07-24?", [("on Monday, 2023-07-24", "2023-07-24", False)]),  # the date says which
    ("What did we do on Saturday and last week?", [("on Saturday", "2026-03-21", False),  # not next to each other
                                                   ("last week", "2026-03-16..2026-03-22", False)]),
])
def test_a_day_of_the_week_next_to_another_time_is_a_day_of_it(query, read):
    assert [(w.phrase, w.label, w.ahead) for w in timeq.read(query, AS_OF)] == read


@pytest.mark.parametrize("day, query, read", [
    # "this week" is the week so far (or the rest of it, asked about what is coming), too short a time for the day
    # nearest its middle: the day of the week is the one of today's week, still to come when after today. It was read
    # as the latest such day beside the week so far ("Tuesday this week" on a Tuesday: a week ago and Monday-Tuesday)
    (24, "What is on Tuesday this week?", [("on Tuesday this week", "2026-11-24", False)]),
    (24, "What is on Wednesday this week?", [("on Wednesday this week", "2026-11-25", True)]),
    (26, "What did I do on Monday this week?", [("on Monday this week", "2026-11-23", False)]),
    (23, "What is planned for Friday this week?", [("Friday this week", "2026-11-27", True)]),  # Monday: the rest of it
    (26, "Was ist diese Woche am Freitag?", [("diese Woche am Freitag", "2026-11-27", True)]),
    (24, "今週の金曜日は何がある？", [("今週の金曜日", "2026-11-27", True)]),
    (29, "Was war diese Woche am Montag?", [("diese Woche am Montag", "2026-11-23", False)]),  # a Sunday
])
def test_a_day_of_this_week_is_the_one_of_todays_week(day, query, read):
    now = datetime(2026, 11, day, 10, tzinfo=UTC)
    assert [(w.phrase, w.label, w.ahead) for w in timeq.read(query, now)] == read
