"""A day of the week asked in another language (issue 29): "letzten Dienstag", "mardi prochain", "el martes pasado",
"先週の金曜日", "下周五", "다음 주 수요일" are read as "last Tuesday", "next Tuesday" and "Friday of last week" are;
a habit ("jeden Montag", "le mardi"), a name ("Herr Freitag") and a day in a question told as another language
are not."""

from datetime import datetime, timedelta, timezone

import pytest

from tachikoma.when import tense, timeq
from tachikoma.language.function_words import question_language
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher
from test_ahead import assert_read_linear

SUNDAY = datetime(2026, 12, 6, 10, 0, tzinfo=timezone(timedelta(hours=1)))  # weeks run Monday to Sunday
THURSDAY = datetime(2027, 1, 21, 8, 45, tzinfo=timezone(timedelta(hours=1)))


def read(question, as_of):
    """As the search reads a question: about what is coming by its words or a day ahead it names."""
    language = question_language(question)
    coming = tense.ahead_in(question, language) or timeq.names_day_ahead(question, as_of, language)
    return [(w.label, w.ahead) for _, _, w in timeq.read_spans(question, as_of, ahead=coming)]


@pytest.mark.parametrize("question, as_of, windows", [
    # the latest one gone
    ("Was habe ich letzten Dienstag gemacht?", SUNDAY, [("2026-12-01", False)]),
    ("Was war am Montag beim Arzt?", SUNDAY, [("2026-11-30", False)]),
    ("Qu'est-ce qu'on a décidé mardi dernier ?", SUNDAY, [("2026-12-01", False)]),
    ("¿Qué pasó el viernes pasado?", SUNDAY, [("2026-12-04", False)]),
    ("O que fiz na segunda-feira passada?", SUNDAY, [("2026-11-30", False)]),
    ("Cosa abbiamo fatto lunedì scorso?", SUNDAY, [("2026-11-30", False)]),
    ("Wat hebben we vorige woensdag besproken?", SUNDAY, [("2026-12-02", False)]),
    ("金曜日に何した？", SUNDAY, [("2026-12-04", False)]),
    # the coming one: said "next", or asked about what is coming ("steht … an")
    ("Was ist nächsten Dienstag?", SUNDAY, [("2026-12-08", True)]),
    ("Was steht am Freitag an?", SUNDAY, [("2026-12-11", True)]),
    ("Qu'est-ce que j'ai jeudi prochain ?", SUNDAY, [("2026-12-10", True)]),
    ("¿Qué tengo el próximo lunes?", SUNDAY, [("2026-12-07", True)]),
    ("¿Puedo llamar a Sofía el viernes que viene?", SUNDAY, [("2026-12-11", True)]),  # the word after decides
    ("O que tenho na próxima sexta?", SUNDAY, [("2026-12-11", True)]),
    # the day of last, next or this week
    ("先週の金曜日に何があった？", SUNDAY, [("2026-11-27", False)]),
    ("来週の月曜日の予定は？", SUNDAY, [("2026-12-07", True)]),
    ("上周三开会说了什么？", SUNDAY, [("2026-11-25", False)]),
    ("下周五有什么安排？", SUNDAY, [("2026-12-11", True)]),
    ("지난주 화요일에 뭐 했어?", SUNDAY, [("2026-11-24", False)]),
    ("다음 주 수요일에 뭐 있어?", SUNDAY, [("2026-12-09", True)]),
    # next to another time: a day of it
    ("Was ist letzte Woche am Mittwoch passiert?", THURSDAY, [("2027-01-13", False)]),
    ("Was hat Dr. Wendt am Dienstag letzter Woche gesagt?", THURSDAY, [("2027-01-12", False)]),
    ("Was ist am Samstag in zwei Wochen?", THURSDAY, [("2027-02-06", True)]),
    ("Was habe ich am Donnerstag vor zwei Wochen gemacht?", THURSDAY, [("2027-01-07", False)]),
    ("A revisão ainda é na quinta-feira da próxima semana?", THURSDAY, [("2027-01-28", True)]),
    ("三个星期后的星期三，浩然几点起飞？", THURSDAY, [("2027-02-10", True)]),
    # no day
    ("Wer geht jeden Montag schwimmen?", SUNDAY, []),  # a habit
    ("Até que horas está aberto o ginásio ao domingo?", SUNDAY, []),
    ("Was hat Herr Freitag gesagt?", SUNDAY, []),  # a name
    ("What did Katrin say about Freitag?", SUNDAY, []),  # a bare day in a question told as English
    ("上周一起吃饭了吗？", SUNDAY, [("2026-11-23..2026-11-29", False)]),  # "together", not Monday: last week
    ("Qual é o horário na segunda hora?", SUNDAY, []),  # "segunda" alone is "second"
])
def test_a_day_of_the_week_in_another_language(question, as_of, windows):
    assert read(question, as_of) == windows


def test_a_daily_note_of_the_day_asked_ranks_first(tmp_path):
    """Two daily notes on the same subject: "letzten Dienstag" asks for Tuesday's, which the time factor
    prefers; unread, the day's name was a keyword neither note holds."""
    root = tmp_path / "memory"
    (root / "memory").mkdir(parents=True)
    for day, text in (("2026-12-01", "Physiotherapie: neue Übungen für den Rücken, dreimal die Woche."),
                      ("2026-12-03", "Physiotherapie: Rücken besser, Übungen bleiben wie sie sind.")):
        (root / "memory" / f"{day}.md").write_text(f"# {day}\n\n{text}\n", encoding="utf-8")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    try:
        answer = s.search("Was hat die Physiotherapie letzten Dienstag zum Rücken gesagt?", min_score=0,
                          as_of=SUNDAY)
        assert [w["label"] for w in answer["time"]] == ["2026-12-01"]
        assert answer["results"][0]["path"] == "memory/2026-12-01.md"
        assert answer["results"][0]["factors"]["time"] == 1.0 and answer["results"][1]["factors"]["time"] < 1.0
    finally:
        s.close()


@pytest.mark.parametrize("phrase", ["am Montag ", "on Monday ", "on Monday next week ", "Was war Montag "])
def test_reading_days_of_the_week_many_times_is_linear_in_the_query(phrase):
    # a day of the week next to another was made one day with it, and that day with the next: the phrase grew
    # with each, so 8× the query took 25× the time
    assert_read_linear(phrase, 400)


@pytest.mark.parametrize("question", ["What do we do every Monday?", "Who takes the bins out each Friday?"])
def test_an_english_habit_is_no_day_either(question):
    # found by this session's review: "every Monday" was read as last Monday, while "jeden Montag" is no day
    assert read(question, SUNDAY) == []
    assert read("What did we do on Monday?", SUNDAY) == [("2026-11-30", False)]
    assert_read_linear("every Monday ", 400)
