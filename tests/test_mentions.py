"""The days a passage names (`tachikoma.when.mentions`), and a question about what is coming ranked by them."""

from datetime import date

import pytest
from test_adversarial_s34b import search
from test_everyday_rules import put

from tachikoma.when import mentions
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher
from tachikoma.when.timeq import OUTSIDE

WRITTEN = date(2026, 11, 20)
TODAY = date(2026, 12, 4)


@pytest.mark.parametrize("text, named", [
    ("- 2026-12-18 cargo bike service", [date(2026, 12, 18)]),
    ("Zsófi arrives 18 Dec 14:20", [date(2026, 12, 18)]),  # the time is no day
    ("on December 18th, 2027", [date(2027, 12, 18)]),
    ("Samstagsproben: 20. Februar und 6. März", [date(2027, 2, 20), date(2027, 3, 6)]),
    ("Feita a 11 de fevereiro de 2027 no centro", [date(2027, 2, 11)]),
    ("le 3 mars, salle B", [date(2027, 3, 3)]),
    ("Termin am 14.03.2027 und am 20.02.", [date(2027, 3, 14), date(2027, 2, 20)]),
    ("2027年1月3日と12月5日", [date(2027, 1, 3), date(2026, 12, 5)]),
    ("다음 접종은 12월 15일", [date(2026, 12, 15)]),
    ("the next one in November 2027", [date(2027, 11, 30)]),  # a month of a year: its last day
    ("a próxima ou em novembro de 2027.", [date(2027, 11, 30)]),
    # a day without a year: the first from three months before the note's date on
    ("Paid on 8 Nov", [date(2026, 11, 8)]),
    ("Renewed on 3 Oct", [date(2026, 10, 3)]),  # the October just gone, not the next
    ("Dentist on 8 Jan", [date(2027, 1, 8)]),
    ("5 Dec, 1500 people came", [date(2026, 12, 5)]),  # a count is no year
    ("Great-grandpa was born on 3 March 1890", [date(1890, 3, 3)]),  # but a year long past is
    ("On December 5, 1850 the house was built", [date(1850, 12, 5)]),
    # what each pattern needs is looked for before it is tried: a month's name in any case, after a bracket
    ("Call the garage back (Dec 5) about the quote", [date(2026, 12, 5)]),
    ("Abgabe: 3. MÄRZ", [date(2027, 3, 3)]),
    ("no day here, only 42 boxes and 7 crates", []),
])
def test_the_days_a_passage_names(text, named):
    assert mentions.days(text, WRITTEN, TODAY) == named


@pytest.mark.parametrize("text", [
    "we 2 may go hiking", "march 3 miles to the lake", "version 1.2.3 of the app", "IP 192.168.1.1",
    "31 February is no day", "Room 12, floor 3", "",
    "Petra is expecting (due January).",  # a month alone is read nowhere (measured: docs/evaluation.md)
])
def test_what_is_no_day(text):
    assert mentions.days(text, WRITTEN, TODAY) == []


def test_the_days_ahead_are_from_today_on_and_within_the_horizon():
    assert mentions.days_ahead("met on 2026-12-01, next on 2026-12-18", WRITTEN, TODAY) == [date(2026, 12, 18)]
    assert mentions.days_ahead("seen on 2026-12-01", WRITTEN, TODAY) == []
    assert mentions.days_ahead("guarantee to May 2029", WRITTEN, TODAY) == []  # too far to be a plan
    assert mentions.days_ahead("today, 2026-12-04", WRITTEN, TODAY) == [TODAY]
    # a passage naming its own day (a transcript's date line) names no plan, even when written today
    assert mentions.days_ahead("[2026-12-04, Friday 4 December 2026] user: see you", TODAY, TODAY) == []
    assert mentions.days_ahead("[2026-12-04] user: the dentist on 2026-12-18", TODAY, TODAY) == [date(2026, 12, 18)]


def test_a_past_day_without_a_year_is_no_day_still_to_come():
    # an OpenClaw daily note of 15 September: "since 3 August" was read as next August, a day still to come
    assert mentions.days_ahead("Ana has been on leave since 3 August.", date(2026, 9, 15), TODAY) == []
    assert mentions.days_ahead("Kita schließt am 3. August", date(2026, 9, 15), TODAY) == []
    # a plan far ahead is still one: a past day a note names in passing is a recent one
    assert mentions.days_ahead("Our wedding is on 14 February!", date(2026, 7, 20), TODAY) == [date(2027, 2, 14)]
    assert mentions.days_ahead("Flights home booked for 20 Dec", date(2026, 6, 15), TODAY) == [date(2026, 12, 20)]
    assert mentions.days_ahead("Ana is back on 3 February.", date(2026, 9, 15), TODAY) == [date(2027, 2, 3)]


def test_mark_gives_the_time_factor_and_ranks_again():
    results = [{"path": "dentist.md", "score": 0.5, "text": "Dr. Weber, checkups twice a year",
                "factors": {"date": "2026-11-01T00:00:00+00:00"}},
               {"path": "appointments.md", "score": 0.4, "text": "Dentist on 18 Dec at nine",
                "factors": {"date": "2026-11-20T00:00:00+00:00", "time": 1.0}}]
    marked = mentions.mark(results, TODAY)
    assert [r["path"] for r in marked] == ["appointments.md", "dentist.md"]
    assert marked[0]["score"] == 0.4 and marked[0]["factors"]["time"] == 1.0
    assert marked[0]["factors"]["time_reason"] == "asked what is coming: names 2026-12-18, still to come"
    assert marked[1]["score"] == pytest.approx(0.5 * OUTSIDE) and marked[1]["factors"]["time"] == OUTSIDE
    assert marked[1]["factors"]["time_reason"] == ("asked what is coming: names no day still to come (from 2026-12-04, "
                                                   "within 400 days)")


def test_a_question_about_what_is_coming_finds_the_passage_that_names_its_day(tmp_path):
    root = tmp_path / "memory"
    put(root, "people/dr-weber.md", "# Dentist\n\nMy dentist checkup is with Dr. Weber, twice a year.\n")
    put(root, "appointments.md", "# Dentist\n\nMy dentist checkup with Dr. Weber: 2026-12-18.\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup every Sunday.\n")
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        coming = searcher.search("When is my next dentist checkup?", 2, min_score=0, as_of="2026-12-04")
        past = searcher.search("When was my last dentist checkup?", 2, min_score=0, as_of="2026-12-04")
    finally:
        searcher.close()
    first, second = coming["results"]
    assert (first["path"], second["path"]) == ("appointments.md", "people/dr-weber.md")
    assert "names 2026-12-18, still to come" in first["factors"]["time_reason"]
    assert second["factors"]["time"] == OUTSIDE
    assert second["score"] / OUTSIDE > first["score"]  # by what they say alone, the other note came first
    assert all("asked what is coming" not in (r["factors"].get("time_reason") or "") for r in past["results"])


@pytest.mark.parametrize("question, coming", [
    ("When is the rent due?", True), ("What is due next week?", True),
    ("Which ailment does Sam have to face due to his weight?", False),  # "due to": because of
    ("Why was the train late? Due to snow?", False),
])
def test_due_to_is_no_question_about_what_is_coming(question, coming):
    from tachikoma.when.tense import ahead

    assert ahead(question) is coming


@pytest.mark.parametrize("question, coming", [
    ("what is on 10 December", True),  # 5 days ahead, 360 gone: the coming one
    ("plans for Dec 12", True),
    ("what happens from 7 to 13 December", True),
    ("plans for January", True),
    ("What did we do on 10 December?", False),  # the past tense: the one gone
    ("What is on 3 December?", False),  # two days gone
    ("Meeting notes March 3", False),  # nearer ahead than gone, but months away: last year's
    ("What's happening on 12 January?", True),  # 38 days ahead: within two months
    ("Notes from January 2025", False),  # its year named
    ("what is on in December", False),  # this month
])
def test_a_day_without_its_year_just_ahead_is_the_coming_one(question, coming):
    from datetime import datetime, timezone

    from tachikoma.language.function_words import question_language
    from tachikoma.when.timeq import names_day_ahead

    now = datetime(2026, 12, 5, 10, tzinfo=timezone.utc)
    assert names_day_ahead(question, now, question_language(question)) is coming


def test_what_is_on_a_day_just_ahead_finds_the_note_that_names_it(tmp_path):
    # Asked on 5 December, "10 December" was read as a year ago: the time factor favoured last December's
    # notes and the appointment came second (a new user's memory).
    root = tmp_path / "memory"
    put(root, "notes/car.md", "# Car\n\nTÜV inspection for the car on 10 December at 9:00, bring the papers.\n")
    put(root, "memory/2025-12-10.md", "# 10 December 2025\n\nThe car went to the garage for winter tyres.\n")
    put(root, "cooking.md", "# Cooking\n\nLentil soup every Sunday.\n")
    answer = search(root, "what is on 10 December for the car", "2026-12-05")
    assert [(w["label"], w["ahead"]) for w in answer["time"]] == [("2026-12-10", True)]  # not a year ago
    first = answer["results"][0]
    assert first["path"] == "notes/car.md" and "names 2026-12-10, inside '10 December'" in first["factors"]["time_reason"]


@pytest.mark.parametrize("question, language, read", [
    ("What is on 15 December?", None, [("2026-12-15", True)]),  # the coming one: a window of that day
    ("what is on Dec 15", None, [("2026-12-15", True)]),
    ("Was steht am 15. Dezember an?", "German", [("2026-12-15", True)]),
    ("¿Qué hay el 15 de diciembre?", "Spanish", [("2026-12-15", True)]),
    ("12月15日の予定は？", "Japanese", [("2026-12-15", True)]),
    ("Was war am 3. November?", "German", [("2026-11-03", False)]),  # gone: that day
    ("Qu'est-ce qui s'est passé le 3 mars ?", "French", [("2026-03-03", False)]),
    ("¿Qué pasó el 2 de noviembre de 2025?", "Spanish", [("2025-11-02", False)]),  # its year named
    ("I ate 3 mars bars", None, []),  # "mars" with no lead, mark or "de": no day
    ("Was ist am 31. Februar?", "German", []),  # no such day
])
def test_a_day_and_month_in_any_language(question, language, read):
    from datetime import datetime, timezone

    from tachikoma.when import timeq

    now = datetime(2026, 12, 4, 10, tzinfo=timezone.utc)
    ahead = timeq.names_day_ahead(question, now, language)
    assert [(w.label, w.ahead) for _, _, w in timeq.read_spans(question, now, ahead=ahead)] == read


def test_the_day_asked_ranks_the_passage_naming_it_above_other_days_to_come(tmp_path):
    # "What's on 15 December?" ranked any passage naming any day still to come alike: the flight on the 21st came
    # first, by its words.
    root = tmp_path / "memory"
    put(root, "flights.md", "# What's on: flights\n\nWhat's on for the trip: flight to Frankfurt on 21 December.\n")
    put(root, "dentist.md", "# Dentist\n\nCheck-up on 15 December at 18:30, Higobashi Dental.\n")
    answer = search(root, "What's on 15 December?", "2026-12-04")
    first = answer["results"][0]
    assert first["path"] == "dentist.md"
    assert "names 2026-12-15, inside '15 December'" in first["factors"]["time_reason"]


def test_a_window_reads_the_days_of_passages_far_down_the_ranking(tmp_path):
    # The days of only the 30 best passages were read: an appointments table that names the week asked about,
    # but none of its words, ranked below 30 plans that do (a real memory: "What's planned for the week after
    # next?").
    root = tmp_path / "memory"
    for n in range(40):
        put(root, f"plans/plan-{n:02d}.md", f"# Plan {n}\n\nWhat is planned: idea {n} is planned for some day.\n")
    put(root, "appointments.md", "# Upcoming\n\n| Tue 15 Dec | 18:30 | Owen: dentist, Higobashi Dental |\n")
    answer = search(root, "What's planned for the week after next?", "2026-12-04")
    assert answer["results"][0]["path"] == "appointments.md"
    assert "inside 'the week after next'" in answer["results"][0]["factors"]["time_reason"]
