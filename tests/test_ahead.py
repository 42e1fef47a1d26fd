"""A window still to come a question names ("next week", "in the next six months", "nächste Woche", "来週"):
its days (`tachikoma.when.ahead`), how `timeq` reads it (`Window.ahead`), and how `mentions` ranks by it."""

from datetime import date, datetime, timedelta, timezone

import pytest
from linear import assert_linear
from test_adversarial_s34b import search
from test_everyday_rules import put, written_before

from tachikoma.when import ahead, mentions, timeq
from tachikoma.when.timeq import OUTSIDE

UTC = timezone.utc
WEDNESDAY = datetime(2026, 12, 2, 12, tzinfo=UTC)
SUNDAY = datetime(2026, 12, 6, 12, tzinfo=UTC)
MONDAY = datetime(2026, 12, 7, 12, tzinfo=UTC)
FRIDAY = datetime(2026, 12, 4, 12, tzinfo=UTC)


def ahead_of(query: str, as_of: datetime = WEDNESDAY) -> list[tuple[str, str]]:
    """(phrase, label) of each window still to come `query` names; a time that is no such window fails."""
    windows = timeq.read(query, as_of)
    assert all(w.ahead for w in windows), [(w.phrase, w.label) for w in windows]
    return [(w.phrase, w.label) for w in windows]


@pytest.mark.parametrize("as_of, week, rest_of_this_week, coming_week", [
    # asked on a Wednesday, a Sunday and a Monday of the same fortnight
    (WEDNESDAY, "2026-12-07..2026-12-13", "2026-12-02..2026-12-06", "2026-12-02..2026-12-09"),
    (SUNDAY, "2026-12-07..2026-12-13", "2026-12-06..2026-12-13", "2026-12-06..2026-12-13"),
    (MONDAY, "2026-12-14..2026-12-20", "2026-12-07..2026-12-13", "2026-12-07..2026-12-14"),
])
def test_the_weeks_ahead_by_the_day_they_are_asked(as_of, week, rest_of_this_week, coming_week):
    assert ahead_of("what's on next week?", as_of) == [("next week", week)]
    # "this week" in a question about what is coming: the rest of it (on a Sunday, and the week that follows)
    assert ahead_of("what's planned for this week?", as_of) == [("this week", rest_of_this_week)]
    assert ahead_of("anything due this coming week?", as_of) == [("this coming week", coming_week)]


@pytest.mark.parametrize("query, expected", [
    ("what's on the week after next?", [("the week after next", "2026-12-14..2026-12-20")]),
    ("Whose birthdays are coming up in the next six months?", [("in the next six months", "2026-12-02..2027-06-03")]),
    ("anything in the next week?", [("in the next week", "2026-12-02..2026-12-09")]),
    ("what happens over the coming weeks?", [("over the coming weeks", "2026-12-02..2026-12-23")]),  # a few: 3
    ("in the next 10 days, what is due?", [("in the next 10 days", "2026-12-02..2026-12-12")]),
    ("what is planned next month?", [("next month", "2027-01")]),
    ("what is planned the month after next?", [("the month after next", "2027-02")]),
    ("what is planned next year?", [("next year", "2027")]),
    ("what is planned for this month?", [("this month", "2026-12-02..2026-12-31")]),
    ("what will we do next weekend?", [("next weekend", "2026-12-12..2026-12-13")]),
    ("What will we discuss on Monday?", [("on Monday", "2026-12-07")]),  # the coming one, not the one gone
    ("What's on next Tuesday?", [("next Tuesday", "2026-12-08")]),  # already in next week: that one
    ("What's on next Friday?", [("next Friday", "2026-12-04..2026-12-11")]),  # this week's or next week's
    ("anything due before next week?", [("before next week", "2026-12-02..2026-12-06")]),
    ("dentist next week?", [("next week", "2026-12-07..2026-12-13")]),  # no other word of the future
    ("WHAT'S ON NEXT WEEK", [("NEXT WEEK", "2026-12-07..2026-12-13")]),
])
def test_english_windows_ahead(query, expected):
    assert ahead_of(query) == expected


@pytest.mark.parametrize("query, phrase", [
    ("Was steht nächste Woche an?", "nächste Woche"),  # its "Was" is no English past
    ("Was ist in der kommenden Woche?", "kommenden Woche"),
    ("qu'est-ce qu'on a la semaine prochaine ?", "semaine prochaine"),
    ("¿qué tenemos la próxima semana?", "próxima semana"),
    ("¿qué hay la semana que viene?", "semana que viene"),
    ("O que temos na próxima semana?", "próxima semana"),
    ("cosa c'è la prossima settimana?", "prossima settimana"),
    ("wat is er volgende week?", "volgende week"),
    ("来週の予定は？", "来週"),
    ("下周有什么安排？", "下周"),
    ("다음 주 일정은?", "다음 주"),
    ("다음 주에 뭐 있어?", "다음 주"),  # with a particle
])
def test_next_week_in_every_language(query, phrase):
    assert ahead_of(query) == [(phrase, "2026-12-07..2026-12-13")]


@pytest.mark.parametrize("query, expected", [
    ("Was steht in den nächsten drei Wochen an?", ("nächsten drei Wochen", "2026-12-02..2026-12-23")),
    ("Qu'avons-nous dans les trois prochains jours ?", ("trois prochains jours", "2026-12-02..2026-12-05")),
    ("¿Qué hay en los próximos seis meses?", ("próximos seis meses", "2026-12-02..2027-06-03")),
    ("Cosa c'è nei prossimi giorni?", ("prossimi giorni", "2026-12-02..2026-12-05")),  # no number: a few
    ("Wat staat er de komende weken gepland?", ("komende weken", "2026-12-02..2026-12-23")),
    ("今後3ヶ月の予定は？", ("今後3ヶ月", "2026-12-02..2027-03-03")),
    ("未来三天有什么安排？", ("未来三天", "2026-12-02..2026-12-05")),
    ("앞으로 6개월 일정", ("앞으로 6개월", "2026-12-02..2027-06-03")),
    ("Was ist übernächste Woche?", ("übernächste Woche", "2026-12-14..2026-12-20")),
    ("再来週の予定", ("再来週", "2026-12-14..2026-12-20")),
    ("Was ist nächsten Monat?", ("nächsten Monat", "2027-01")),
    ("来年の予定", ("来年", "2027")),
])
def test_other_windows_ahead_in_other_languages(query, expected):
    assert ahead_of(query) == [expected]


@pytest.mark.parametrize("query", [
    "When is the Next Week Records showcase?",  # a name
    "What did I write in next week's retro notes?",  # asked in the past tense
    "What did we say about next Tuesday?",
    "Was hat Anna über nächste Woche gesagt?",
    "When is the next week off?",  # "the next week" without "in" or a number: the next one of them
    "다음 주소로 보내줘",  # "the following address"
    "Wann ist der nächste Termin?",
])
def test_what_is_no_window_ahead(query):
    assert not [w for w in timeq.read(query, WEDNESDAY) if w.ahead]


def test_the_week_after_next_is_not_next_week():
    assert [label for _, label in ahead_of("what's on the week after next?")] == ["2026-12-14..2026-12-20"]
    assert [label for _, label in ahead_of("what's on next week?")] == ["2026-12-07..2026-12-13"]


def test_this_weekend_asked_on_a_weekday_is_the_coming_one():
    assert ahead_of("What's on this weekend?", FRIDAY) == [("this weekend", "2026-12-05..2026-12-06")]
    assert ahead_of("Was machen wir dieses Wochenende?", FRIDAY) == [("dieses Wochenende", "2026-12-05..2026-12-06")]
    # the one gone, in the past tense; on a Saturday, the one under way, as before
    gone = timeq.read("What did we do this weekend?", FRIDAY)
    assert [(w.label, w.ahead) for w in gone] == [("2026-11-28..2026-11-29", False)]
    assert [w.ahead for w in timeq.read("What's on this weekend?", FRIDAY + timedelta(days=1))] == [False]


def test_this_week_not_asked_ahead_stays_the_days_gone():
    assert [(w.label, w.ahead) for w in timeq.read("what did we do this week?", WEDNESDAY)] == [
        ("2026-11-30..2026-12-02", False)]


def test_a_window_ahead_leaves_the_keywords_and_makes_a_month_the_coming_one():
    spans = timeq.read_spans("what's on next week and on 3 January?", WEDNESDAY)
    # 3 January: the coming one, a window of its own
    assert [(w.phrase, w.ahead) for _, _, w in spans] == [("next week", True), ("3 January", True)]
    assert timeq.without_time("what's on next week, apart from the usual clubs",
                              timeq.read_spans("what's on next week, apart from the usual clubs", WEDNESDAY)) == \
        "what's on  , apart from the usual clubs"
    window = timeq.read("dentist next week?", WEDNESDAY)[0]
    assert window.relative and window.as_dict()["ahead"] is True
    assert "ahead" not in timeq.read("dentist last week?", WEDNESDAY)[0].as_dict()


def test_two_windows_ahead_said_as_one_span():
    assert ahead_of("between next Monday and next Friday") == [
        ("between next Monday and next Friday", "2026-12-04..2026-12-11")]


def test_a_window_ahead_past_the_last_year_is_none():
    last = datetime(9998, 12, 31, 12, tzinfo=UTC)
    for query in ("what is on next year?", "next week", "in the next 999 years", "after next week"):
        assert timeq.read(query, last) == []


def assert_read_linear(phrase: str, n: int, windows_each: int | None = None) -> None:
    """`timeq.read` of `phrase` said 8n times takes less than 16 times the CPU time of it said n times (8× the
    phrases: ~8× the time); with `windows_each`, each saying of it reads that many windows."""
    def check(windows, times: int) -> None:
        if windows_each is not None:
            assert len(windows) == windows_each * times

    assert_linear(lambda query: timeq.read(query, WEDNESDAY), lambda times: phrase * times, n, check=check)


def test_reading_windows_ahead_is_linear_in_the_query():
    assert_read_linear("next week and on 3 March, ", 500, windows_each=2)  # each 3 March the coming one


def test_the_days_of_a_window_ahead():
    today = date(2026, 12, 2)
    assert ahead.span("next", "month", date(2026, 12, 31)) == (date(2027, 1, 1), date(2027, 1, 31))
    assert ahead.span("after next", "month", date(2026, 12, 31)) == (date(2027, 2, 1), date(2027, 2, 28))
    assert ahead.span("this", "weekend", date(2026, 12, 6)) == (date(2026, 12, 6), date(2026, 12, 6))
    assert ahead.span("coming", "month", today) == (today, date(2027, 1, 2))
    assert ahead.next_units(6, "month", today) == (today, date(2027, 6, 3))
    assert ahead.weekday(2, today, False) == (today, today)  # "on Wednesday" asked on a Wednesday: today
    assert ahead.weekday(2, today, True) == (date(2026, 12, 9), date(2026, 12, 9))


def test_mark_prefers_a_day_inside_the_window():
    windows = timeq.read("what's on next week?", WEDNESDAY)
    results = [{"path": "later.md", "score": 0.4, "text": "Dentist on 2027-01-20", "factors": {}},
               {"path": "none.md", "score": 0.45, "text": "Dentist twice a year", "factors": {}},
               {"path": "inside.md", "score": 0.3, "text": "Nativity on 10 December, 14:00", "factors": {}},
               {"path": "near.md", "score": 0.3, "text": "Market on 2026-12-14", "factors": {}}]
    marked = mentions.mark(results, WEDNESDAY.date(), windows, UTC)
    by = {r["path"]: r for r in marked}
    assert marked[0]["path"] == "inside.md" and by["inside.md"]["factors"]["time"] == 1.0
    assert by["inside.md"]["factors"]["time_reason"] == (
        "asked what is coming: names 2026-12-10, inside 'next week' (2026-12-07..2026-12-13)")
    assert by["near.md"]["factors"]["time_reason"] == (
        "asked what is coming: names 2026-12-14, still to come, outside 'next week' (2026-12-07..2026-12-13)")
    # outside, by how far: a day after the window is nearly in it, one five weeks on barely above naming none
    assert 1.0 > by["near.md"]["factors"]["time"] > by["later.md"]["factors"]["time"] > OUTSIDE
    assert by["none.md"]["factors"]["time"] == OUTSIDE
    # the same days without a window: any day still to come counts in full, as before
    plain = mentions.mark([dict(r, factors={}) for r in results], WEDNESDAY.date())
    assert {r["path"]: r["factors"]["time"] for r in plain} == {"later.md": 1.0, "none.md": OUTSIDE,
                                                                "inside.md": 1.0, "near.md": 1.0}


def test_a_window_ahead_alone_weighs_what_is_outside_it_as_a_time_alone_does():
    from tachikoma.when.timeq import OUTSIDE_TIME_ONLY

    windows = timeq.read("what's on next week?", WEDNESDAY)
    results = [{"path": "near.md", "score": 0.5, "text": "Market on 2026-12-14", "factors": {}},
               {"path": "none.md", "score": 0.5, "text": "Dentist twice a year", "factors": {}},
               {"path": "inside.md", "score": 0.2, "text": "Nativity on 10 December", "factors": {}}]
    marked = mentions.mark(results, WEDNESDAY.date(), windows, UTC, alone=True)
    assert [(r["path"], r["factors"]["time"]) for r in marked] == [
        ("inside.md", 1.0), ("near.md", OUTSIDE_TIME_ONLY), ("none.md", OUTSIDE_TIME_ONLY)]


def test_a_window_ahead_reaches_past_the_horizon():
    windows = timeq.read("what is planned in the next two years?", WEDNESDAY)
    results = [{"path": "far.md", "score": 0.5, "text": "Roof works on 2028-03-01", "factors": {}}]
    assert mentions.mark(results, WEDNESDAY.date(), windows, UTC)[0]["factors"]["time"] == 1.0
    assert mentions.days_ahead("Roof works on 2028-03-01", None, WEDNESDAY.date()) == []  # past the 400 days


def test_next_week_finds_the_note_naming_a_day_in_it(tmp_path):
    root = tmp_path / "memory"
    put(root, "school.md", "# School dates\n\nTheo's nativity: Thursday 10 December, 14:00, in the hall.\n")
    put(root, "later.md", "# School dates\n\nSchool dates: the spring concert on 2027-03-18 in the hall.\n")
    put(root, "memory/2026-11-25.md", "# 2026-11-25\n\nSchool dates and the hall: a note of last week.\n")
    answer = search(root, "which school dates are next week?", "2026-12-02")
    first = answer["results"][0]
    assert first["path"] == "school.md" and first["factors"]["time"] == 1.0
    assert "inside 'next week' (2026-12-07..2026-12-13)" in first["factors"]["time_reason"]
    assert [(w["phrase"], w["label"], w["ahead"]) for w in answer["time"]] == [
        ("next week", "2026-12-07..2026-12-13", True)]
    assert "week" not in answer["keywords"] and "next" not in answer["keywords"]
    # no time factor on the memories' own dates (none is from next week): last week's note gets only what
    # naming no day still to come gives
    note = next(r for r in answer["results"] if r["path"] == "memory/2026-11-25.md")
    assert note["factors"]["time"] == OUTSIDE
    assert note["factors"]["time_reason"] == ("asked what is coming: names no day still to come (from 2026-12-02, "
                                              "within 400 days)")


def _ask(root, question: str, as_of: str, limit: int = 5) -> dict:
    """Index `root` (every file written the day before `as_of`) with the hash embedder and ask with a floor no
    meaning reaches: what keywords or the time decide."""
    from tachikoma.indexer import runner
    from tachikoma.search.searcher import Searcher

    written_before(root, as_of)
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        return searcher.search(question, limit, min_score=0.99, as_of=as_of)
    finally:
        searcher.close()


def test_a_window_ahead_and_nothing_else_is_answered_by_a_passage_naming_a_day_in_it(tmp_path):
    # "what's on next week?" held "next" and "week" as keywords, which notes rarely hold: without them, only the
    # days the passages name tell that a list of next week's appointments answers it
    root = tmp_path / "memory"
    put(root, "plans.md", "# Plans\n\n- 2026-12-09: Ros turns 70, lunch in Frome\n- 2027-01-12: orthodontist\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup every Sunday.\n")
    put(root, "bike.md", "# Bike\n\nThe bike needs new brakes before the spring.\n")
    answer = _ask(root, "what's on next week?", "2026-12-02", limit=1)
    assert answer["no_good_match"] is False and answer["match"]["answered_by"] == "time"
    assert answer["match"]["naming_the_time_asked"] == 1
    assert [r["path"] for r in answer["results"]] == ["plans.md"]
    # the week after it: no passage names a day in it, so no good match, and the reason says so
    from tachikoma.humanize import no_match_reason

    after = _ask(root, "what's on the week after next?", "2026-12-02")
    assert after["no_good_match"] is True and after["results"] == []
    assert after["match"]["naming_the_time_asked"] == 0
    assert no_match_reason(after).endswith("and no passage names a day in the time asked about")


def test_a_window_ahead_with_other_words_decides_as_before(tmp_path):
    root = tmp_path / "memory"
    put(root, "plans.md", "# Plans\n\n- 2026-12-09: Ros turns 70, lunch in Frome\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup every Sunday.\n")
    answer = _ask(root, "which concerts are on next week?", "2026-12-02")  # "concerts": held nowhere
    assert answer["no_good_match"] is True and "naming_the_time_asked" not in answer["match"]


def test_every_window_ahead_holds_a_hint():
    # a question holding no word of `AHEAD_HINTS` is not read for a window still to come: each table's phrase
    # must hold one, and the English patterns' "next", "coming" and "upcoming" are hints themselves
    from tachikoma.when.time_words import AHEAD_HINTS, FOREIGN_NEXT, NEXT_WORD_LANGUAGE

    for phrase in [*FOREIGN_NEXT, *NEXT_WORD_LANGUAGE, "next", "coming", "upcoming"]:
        assert any(word in phrase.lower() for word in AHEAD_HINTS), phrase
