"""Tomorrow, the day after, and "in two weeks" (`timeq`, `ahead.in_units`): each a window still to come, in every
language `time_words` knows, and what such a question finds."""

from datetime import date, datetime, timezone

import pytest
from test_ahead import WEDNESDAY, _ask, ahead_of, assert_read_linear
from test_everyday_rules import put

from tachikoma.when import ahead, timeq
from tachikoma.when.time_words import AHEAD_HINTS, FOREIGN_TOMORROW


@pytest.mark.parametrize("query, expected", [
    ("what's due tomorrow?", [("tomorrow", "2026-12-03")]),
    ("What time is the dentist tomorrow morning?", [("tomorrow", "2026-12-03")]),
    ("what happens the day after tomorrow", [("the day after tomorrow", "2026-12-04")]),
    ("what do I have in two weeks?", [("in two weeks", "2026-12-12..2026-12-20")]),  # give or take half a week
    ("what's on in a week's time?", [("in a week's time", "2026-12-05..2026-12-13")]),
    ("is the boiler service in 3 days?", [("in 3 days", "2026-12-04..2026-12-06")]),  # give or take a day
    ("anything due within two weeks?", [("within two weeks", "2026-12-02..2026-12-16")]),  # up to then
    ("what's happening in a month?", [("in a month", "2026-12-17..2027-01-16")]),
    ("in a day or two, what is due?", [("in a day", "2026-12-02..2026-12-04")]),  # never before today
    ("AIMA is in under two weeks: where?", [("in under two weeks", "2026-12-12..2026-12-20")]),
    ("which release goes out a week from today?", [("a week from today", "2026-12-09")]),  # that day
    ("is the trip two weeks from tomorrow?", [("two weeks from tomorrow", "2026-12-17")]),
])
def test_english_tomorrow_and_in_n(query, expected):
    assert ahead_of(query) == expected


@pytest.mark.parametrize("query, phrase, label", [
    ("Was steht morgen an?", "morgen", "2026-12-03"),
    ("Morgen früh zum Zahnarzt?", "Morgen", "2026-12-03"),
    ("Was ist übermorgen?", "übermorgen", "2026-12-04"),
    ("Qu'est-ce que j'ai demain ?", "demain", "2026-12-03"),
    ("Et après-demain ?", "après-demain", "2026-12-04"),
    ("¿Qué tengo mañana?", "mañana", "2026-12-03"),
    ("¿Y mañana por la mañana?", "mañana", "2026-12-03"),  # the second one is the morning
    ("¿Qué hay pasado mañana?", "pasado mañana", "2026-12-04"),
    ("O que tenho amanhã?", "amanhã", "2026-12-03"),
    ("E depois de amanhã?", "depois de amanhã", "2026-12-04"),
    ("Cosa c'è domani?", "domani", "2026-12-03"),
    ("E dopodomani?", "dopodomani", "2026-12-04"),
    ("Wat staat er morgen?", "morgen", "2026-12-03"),
    ("En overmorgen?", "overmorgen", "2026-12-04"),
    ("明日の予定は？", "明日", "2026-12-03"),
    ("明後日は何がある？", "明後日", "2026-12-04"),
    ("明天有什么安排？", "明天", "2026-12-03"),
    ("后天开会吗？", "后天", "2026-12-04"),
    ("내일 뭐 있어?", "내일", "2026-12-03"),
    ("내일은 뭐 해?", "내일", "2026-12-03"),
    ("모레 일정은?", "모레", "2026-12-04"),
    ("Was ist in zwei Wochen?", "in zwei Wochen", "2026-12-12..2026-12-20"),
    ("Qu'est-ce qu'il y a dans deux semaines ?", "dans deux semaines", "2026-12-12..2026-12-20"),
    ("¿Qué hay en dos semanas?", "en dos semanas", "2026-12-12..2026-12-20"),
    ("O que há daqui a uma semana?", "daqui a uma semana", "2026-12-05..2026-12-13"),
    ("Cosa c'è tra tre giorni?", "tra tre giorni", "2026-12-04..2026-12-06"),
    ("Wat is er over twee weken?", "over twee weken", "2026-12-12..2026-12-20"),
    ("2週間後の予定は？", "2週間後", "2026-12-12..2026-12-20"),
    ("两周后有什么？", "两周后", "2026-12-12..2026-12-20"),
    ("3일 뒤에 뭐 있어?", "3일 뒤", "2026-12-04..2026-12-06"),
    ("일주일 뒤에 집에 있어야 해?", "일주일 뒤", "2026-12-05..2026-12-13"),
    ("三个星期以后视频是几点？", "三个星期以后", "2026-12-19..2026-12-27"),
    ("Le slide vanno mandate tra circa quattro settimane?", "tra circa quattro settimane", "2026-12-26..2027-01-03"),
])
def test_tomorrow_and_in_n_in_other_languages(query, phrase, label):
    assert ahead_of(query) == [(phrase, label)]


@pytest.mark.parametrize("query", [
    "What did I plan for tomorrow?",  # asked in the past tense
    "Was habe ich heute Morgen gemacht?",  # "heute Morgen": this morning
    "Guten Morgen, was gibt's?",
    "¿Qué hice esta mañana?",
    "¿Qué tengo por la mañana?",
    "how many times did I run in two weeks",
    "twice in two weeks",
    "the first time in a year",
    "I ran 40 km in a day",
    "How many health-related devices do I use in a day?",  # a rate
    "明日香さんの誕生日は？",  # Asuka, a name
    "12月3日后的会议",  # after 3 December, a date
    "Tomorrowland tickets",
])
def test_what_is_no_tomorrow(query):
    assert not [w for w in timeq.read(query, WEDNESDAY) if w.ahead]


def test_in_units_is_that_day_give_or_take_half_a_unit_from_today_on():
    today = date(2026, 12, 2)
    assert ahead.in_units(2, "week", today) == (date(2026, 12, 12), date(2026, 12, 20))
    assert ahead.in_units(3, "day", today) == (date(2026, 12, 4), date(2026, 12, 6))
    assert ahead.in_units(1, "day", today) == (today, date(2026, 12, 4))
    assert ahead.in_units(1, "year", today)[0] == date(2027, 6, 2)


def test_tomorrow_in_every_language_is_a_hint():
    # the window-ahead patterns run only on a question holding a hint ("in two weeks" runs on every question)
    for phrase in [*FOREIGN_TOMORROW, "tomorrow", "the day after tomorrow"]:
        assert any(word in phrase.lower() for word in AHEAD_HINTS), phrase


def test_reading_in_n_is_linear_in_the_query():
    # "in a day" in a how-many question: a rate, no window
    assert_read_linear("in two weeks and twice in 3 days, how many in a day, ", 500, windows_each=1)


def test_whats_on_tomorrow_is_answered_by_the_passage_naming_tomorrow(tmp_path):
    root = tmp_path / "memory"
    put(root, "todo.md", "# To do\n\n- 2026-12-03: send Kiezrad the November invoice\n- 2026-12-18: tax return\n")
    put(root, "week.md", "# This week\n\n- 4 Dec: dentist at 09:30, Dr Aydın\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup every Sunday.\n")
    answer = _ask(root, "what's on tomorrow?", "2026-12-02", limit=1)
    assert answer["match"]["answered_by"] == "time" and answer["match"]["naming_the_time_asked"] == 1
    assert [r["path"] for r in answer["results"]] == ["todo.md"]
    assert [(w["phrase"], w["label"], w["ahead"]) for w in answer["time"]] == [("tomorrow", "2026-12-03", True)]
    assert "tomorrow" not in answer["keywords"]
    later = _ask(root, "Was steht übermorgen an?", "2026-12-02", limit=1)
    assert [r["path"] for r in later["results"]] == ["week.md"]
    # a day no passage names: no good match, as for a week ahead
    nothing = _ask(root, "what's on in five weeks?", "2026-12-02")
    assert nothing["no_good_match"] is True and nothing["match"]["naming_the_time_asked"] == 0


def test_tomorrow_is_the_askers_tomorrow():
    # read in the zone of as_of: late on the 2nd in Tokyo is already the 3rd in UTC+9
    tokyo = datetime(2026, 12, 2, 23, 30, tzinfo=timezone.utc).astimezone(
        timezone(__import__("datetime").timedelta(hours=9)))
    assert ahead_of("明日の予定は？", tokyo) == [("明日", "2026-12-04")]


@pytest.mark.parametrize("question, language, besides", [
    ("what's due  ?", None, False),  # "tomorrow" blanked: "due" says only that it is still to come
    ("Was steht   an?", "German", False),
    ("の予定は？", "Japanese", False),
    ("有什么安排？", "Chinese", False),
    (" 뭐 있어?", "Korean", False),
    ("What am I doing  ?", None, False),
    ("What are my plans for  ?", None, False),
    ("what's the weather  ?", None, True),
    ("Wie wird das Wetter   in Berlin?", "German", True),
    ("のガス点検は何時から？", "Japanese", True),
])
def test_what_a_question_asks_besides_its_time(question, language, besides):
    from tachikoma.search.keywords import asks_besides_time

    assert asks_besides_time(question, language) is besides


@pytest.mark.parametrize("question, language, past", [
    ("Was habe ich übermorgen?", "German", False),  # "haben" alone: to have
    ("Welche Termine habe ich morgen?", "German", False),
    ("Was hat Anna gesagt?", "German", True),  # with a participle: the past
    ("Was hab ich gestern aufgeschrieben?", "German", True),
    ("Was haben wir bezahlt?", "German", True),
    ("Wat heb ik morgen?", "Dutch", False),
    ("Wat heeft Sam besloten?", "Dutch", True),
])
def test_haben_says_the_past_only_with_a_participle(question, language, past):
    from tachikoma.when.tense import past_in

    assert past_in(question, language) is past


THURSDAY = date(2026, 12, 3)


@pytest.mark.parametrize("text, named", [
    # a day said alone: the first such day after the passage's own date (a Thursday here)
    ("Sami works Saturday, so Ros comes Friday night", [date(2026, 12, 5), date(2026, 12, 4)]),
    ("am Samstag Probe", [date(2026, 12, 5)]),
    ("Lundi : réunion", [date(2026, 12, 7)]),
    ("土曜日に会う", [date(2026, 12, 5)]),
    ("Thursday: standup", [date(2026, 12, 10)]),  # its own weekday: the next one
    # one gone: none
    ("last Saturday we went", []),
    ("letzten Samstag", []),
    ("每周一次", []),  # once a week, no Monday
])
def test_a_day_of_the_week_a_passage_names(text, named):
    from tachikoma.when.mentions import weekdays

    assert weekdays(text, THURSDAY, THURSDAY) == named


@pytest.mark.parametrize("text", ["Mia has swimming every Sunday", "Sundays: swimming", "sonntags Schwimmen",
                                  "tous les dimanches", "los domingos", "毎週日曜に", "매주 일요일", "zondags zwemmen"])
def test_a_day_of_the_week_said_as_a_habit_is_every_such_day_from_today(text):
    from tachikoma.when.mentions import HABIT_WEEKS, weekdays

    named = weekdays(text, date(2026, 1, 4), THURSDAY)  # written long ago: the habit holds from today on
    assert named == [date(2026, 12, 6) + (date(2026, 12, 13) - date(2026, 12, 6)) * k for k in range(HABIT_WEEKS)]


def test_the_days_of_the_week_count_only_for_a_window_still_to_come_shorter_than_a_week(tmp_path):
    root = tmp_path / "memory"
    put(root, "people/mia.md", "# Mia\n\nSwimming every Sunday at the Hallenbad, 10:00.\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup and bread.\n")
    put(root, "school.md", "# School\n\nThe school trip is on 2027-01-20.\n")
    answer = _ask(root, "what's on the day after tomorrow?", "2026-12-04", limit=1)  # a Sunday
    assert [r["path"] for r in answer["results"]] == ["people/mia.md"]
    assert "names 2026-12-06, inside 'the day after tomorrow'" in answer["results"][0]["factors"]["time_reason"]
    # a window of a week or more holds every day of the week: they tell nothing there
    week = _ask(root, "what's on next week?", "2026-12-04")
    assert week["no_good_match"] is True and week["match"]["naming_the_time_asked"] == 0
    # asked what is coming without a window, no day of the week counts
    from tachikoma.when.mentions import days_ahead

    assert days_ahead("Swimming every Sunday, and Saturday the trip", date(2026, 12, 3), date(2026, 12, 4)) == []
