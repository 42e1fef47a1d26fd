"""The times a question names by the calendar's periods: a season ("last summer", "since the summer", "the winter of
2024"), in the meteorological seasons of the user's hemisphere (`periods.season`, `periods.south`; the northern one
unless a test says otherwise, tests/conftest.py), and a day of the month without its month ("on the 21st",
`ahead.nth_day`); a season or an ordinal that names a thing is none."""

from datetime import date, datetime

import pytest

from tachikoma.when import periods, timeq
from time_reading import windows_at

DECEMBER = datetime.fromisoformat("2026-12-04T10:00:00+01:00")
JULY = datetime.fromisoformat("2026-07-15T10:00:00+02:00")
JANUARY = datetime.fromisoformat("2027-01-20T10:00:00+01:00")


windows = windows_at()


@pytest.mark.parametrize("query, now, expected", [
    ("which alerts did we add after incidents this autumn", DECEMBER, [("this autumn", "2026-09-01..2026-11-30", False)]),
    ("What did we do last summer?", DECEMBER, [("last summer", "2026-06-01..2026-08-31", False)]),
    ("What did we do last summer?", JULY, [("last summer", "2025-06-01..2025-08-31", False)]),  # this one not over yet
    ("What happened last fall?", JANUARY, [("last fall", "2026-09-01..2026-11-30", False)]),
    ("What did I do this spring?", DECEMBER, [("this spring", "2026-03-01..2026-05-31", False)]),
    ("What have we done this summer?", JULY, [("this summer", "2026-06-01..2026-07-15", False)]),  # so far
    ("How was this winter so far?", JANUARY, [("this winter", "2026-12-01..2027-01-20", False)]),  # across the year's end
    ("What happened last winter?", JANUARY, [("last winter", "2025-12-01..2026-02-28", False)]),
    ("Which tools did we decide against since the summer?", DECEMBER,
     [("since the summer", "2026-06-01..2026-12-04", False)]),
    ("What did Caroline do during the summer?", DECEMBER, [("during the summer", "2026-06-01..2026-08-31", False)]),
    ("What changed after the summer?", DECEMBER, [("after the summer", "2026-09-01..", False)]),
    ("Where was Jolene in summer 2022?", DECEMBER, [("in summer 2022", "2022-06-01..2022-08-31", False)]),
    ("What happened in the winter of 2024?", DECEMBER, [("in the winter of 2024", "2024-12-01..2025-02-28", False)]),
    ("What's planned for next summer?", DECEMBER, [("next summer", "2027-06-01..2027-08-31", True)]),
    ("What's coming up this spring?", DECEMBER, [("this spring", "2027-03-01..2027-05-31", True)]),
])
def test_a_season_is_its_days(query, now, expected):
    assert windows(query, now) == expected


@pytest.mark.parametrize("query", [
    "Where are the winter tyres stored?",
    "What homework does Mia have over the winter break?",
    "When did Evan's son fall off his bike?",
    "What happened since the fall of Rome?",
    "What are we giving my mother-in-law for Spring Festival?",
    "what's winter pricing",
    "what did we write in next summer's plan",  # the past tense: no window still to come
])
def test_a_season_that_names_a_thing_is_no_time(query):
    assert windows(query, DECEMBER) == []


def test_a_season_as_a_habit_is_no_time():
    assert windows("What time is the Sunday call with my parents in summer?", DECEMBER) == [
        ("Sunday", "2026-11-29", False)]  # "in summer": every summer; its Sunday is still read


def test_a_relative_season_leaves_the_keywords_and_a_dated_one_stays():
    said = "What did we sell last summer?"
    spans = timeq.read_spans(said, DECEMBER)
    assert spans[0][2].relative and timeq.without_time(said, spans).split() == ["What", "did", "we", "sell", "?"]
    dated = timeq.read_spans("What did we sell in summer 2024?", DECEMBER)
    assert not dated[0][2].relative  # notes write "summer 2024": its words stay keywords


@pytest.mark.parametrize("name, year, first, last", [
    ("spring", 2024, date(2024, 3, 1), date(2024, 5, 31)),
    ("summer", 2024, date(2024, 6, 1), date(2024, 8, 31)),
    ("autumn", 2024, date(2024, 9, 1), date(2024, 11, 30)),
    ("fall", 2024, date(2024, 9, 1), date(2024, 11, 30)),
    ("winter", 2023, date(2023, 12, 1), date(2024, 2, 29)),  # into a leap February
    ("winter", 2024, date(2024, 12, 1), date(2025, 2, 28)),
])
def test_a_season_named_by_its_year(name, year, first, last):
    assert periods.season("", name, year, date(2030, 1, 1), False) == (first, last, False)
    assert periods.season("", name, year, date(2020, 1, 1), False) == (first, last, True)  # still to come


@pytest.mark.parametrize("query, phrase, label", [
    ("Was haben wir letzten Sommer gemacht?", "letzten Sommer", "2026-06-01..2026-08-31"),
    ("Was haben wir letztes Frühjahr gepflanzt?", "letztes Frühjahr", "2026-03-01..2026-05-31"),
    ("Was war seit dem Sommer los?", "seit dem Sommer", "2026-06-01..2026-12-04"),
    ("Qu'avons-nous fait l'été dernier ?", "l'été dernier", "2026-06-01..2026-08-31"),
    ("Qu’avons-nous fait l’été dernier ?", "l’été dernier", "2026-06-01..2026-08-31"),
    ("Qu'est-ce qui a changé depuis l'automne ?", "depuis l'automne", "2026-09-01..2026-12-04"),
    ("¿Qué hicimos el verano pasado?", "el verano pasado", "2026-06-01..2026-08-31"),
    ("O que fizemos no verão passado?", "no verão passado", "2026-06-01..2026-08-31"),
    ("Cosa abbiamo fatto l'estate scorsa?", "l'estate scorsa", "2026-06-01..2026-08-31"),
    ("Wat deden we vorige zomer?", "vorige zomer", "2026-06-01..2026-08-31"),
    ("去年の夏は何をしましたか？", "去年の夏", "2025-06-01..2025-08-31"),  # the summer of last year
    ("去年夏天我们去了哪里？", "去年夏天", "2025-06-01..2025-08-31"),
    ("지난 여름에 뭐 했지?", "지난 여름", "2026-06-01..2026-08-31"),
])
def test_a_season_in_another_language(query, phrase, label):
    assert windows(query, DECEMBER) == [(phrase, label, False)]


@pytest.mark.parametrize("query", [
    "Wo sind die Winterreifen?",
    "Wann kommt der Schornsteinfeger im Sommer?",  # a habit
    "Combien de parents accompagnateurs faut-il pour la sortie d'hiver ?",
    "Finalement, quand les pneus d'hiver ont-ils été posés ?",
    "夏に何を食べる？",
])
def test_a_season_in_another_language_that_is_no_time(query):
    assert windows(query, DECEMBER) == []


# A day of the month said without its month ("on the 21st", session 42): the next one, in the past tense the latest.
TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")


@pytest.mark.parametrize("query, expected", [
    ("What time does our shinkansen leave for Sendai on the 29th?", [("on the 29th", "2026-12-29", True)]),
    ("What is due by the 15th?", [("by the 15th", "2026-12-10..2026-12-15", True)]),
    ("What is on the 10th?", [("on the 10th", "2026-12-10", False)]),  # today
    ("What did we decide on the 3rd?", [("on the 3rd", "2026-12-03", False)]),
    ("What happened on the 29th?", [("on the 29th", "2026-11-29", False)]),  # the past tense: the latest
    ("What did we do on the 31st?", [("on the 31st", "2026-10-31", False)]),  # November has no 31st
    ("What happened on the 4th of July?", [("4th of July", "2026-07-04", False)]),  # its month named: read as before
])
def test_a_day_of_the_month_without_its_month(query, expected):
    assert windows(query, TENTH) == expected


@pytest.mark.parametrize("query", ["What changed in the 21st century?", "Who won for the 3rd time?",
                                   "What is the 2nd step of the runbook?", "Who lives on the 5th floor?"])
def test_an_ordinal_that_names_a_thing_is_no_day(query):
    assert windows(query, TENTH) == []


# ------------------------------------------------------------------ south of the equator

@pytest.mark.parametrize("query, now, expected", [
    ("What did we do last summer?", DECEMBER, [("last summer", "2025-12-01..2026-02-28", False)]),  # this one begun
    ("What did we do last summer?", JULY, [("last summer", "2025-12-01..2026-02-28", False)]),
    ("How was this winter so far?", JULY, [("this winter", "2026-06-01..2026-07-15", False)]),
    ("What happened in the winter of 2024?", DECEMBER, [("in the winter of 2024", "2024-06-01..2024-08-31", False)]),
    ("What's planned for next summer?", JULY, [("next summer", "2026-12-01..2027-02-28", True)]),
    ("Was haben wir letzten Sommer gemacht?", JULY, [("letzten Sommer", "2025-12-01..2026-02-28", False)]),
])
def test_south_of_the_equator_a_season_is_six_months_later(monkeypatch, query, now, expected):
    monkeypatch.setenv("TACHIKOMA_HEMISPHERE", "south")
    assert windows(query, now) == expected


@pytest.mark.parametrize("zone, is_south", [("Australia/Sydney", True), ("America/Sao_Paulo", True),
                                            ("Pacific/Auckland", True), ("Europe/Berlin", False),
                                            ("Asia/Tokyo", False), ("UTC", False), ("AEST-10", False)])
def test_the_hemisphere_is_where_the_time_zone_is(monkeypatch, zone, is_south):
    if zone[0].isupper() and "/" in zone and periods._latitude_sign(zone) == 0:
        pytest.skip("this system has no zone1970.tab or zone.tab listing its time zones")
    monkeypatch.delenv("TACHIKOMA_HEMISPHERE")
    monkeypatch.setenv("TZ", zone)
    assert periods.south() is is_south
    monkeypatch.setenv("TACHIKOMA_HEMISPHERE", "North")  # the setting wins over the zone
    assert periods.south() is False


def test_a_hemisphere_setting_that_says_neither_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TACHIKOMA_HEMISPHERE", "down under")
    with pytest.raises(periods.TachikomaError, match="'north' or 'south'"):
        windows("What did we do last summer?", JULY)


def test_in_a_container_whose_localtime_is_a_copy_the_zone_is_the_one_etc_timezone_names(monkeypatch, tmp_path):
    if periods._latitude_sign("Australia/Sydney") == 0:
        pytest.skip("this system has no zone1970.tab or zone.tab listing its time zones")
    copy, named = tmp_path / "localtime", tmp_path / "timezone"
    copy.write_bytes(b"TZif2 a copy, no link")
    named.write_text("Australia/Sydney\n")
    monkeypatch.setattr(periods, "LOCALTIME", str(copy))
    monkeypatch.setattr(periods, "TIMEZONE_NAME", str(named))
    monkeypatch.delenv("TACHIKOMA_HEMISPHERE")
    monkeypatch.delenv("TZ", raising=False)
    periods._south.cache_clear()
    assert periods.south() is True
    named.write_text("Europe/Berlin\n")
    periods._south.cache_clear()
    assert periods.south() is False
    named.unlink()  # neither says: north
    periods._south.cache_clear()
    assert periods.south() is False
    periods._south.cache_clear()
