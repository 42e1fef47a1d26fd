"""Adversarial tests for session 37's time reading ("tomorrow", "in two weeks", their words in nine languages)
and the days of the week a passage names (`mentions.weekdays`): each failed before its fix."""

from datetime import datetime, timezone

import pytest
from test_ahead import assert_read_linear

from tachikoma.when import timeq

UTC = timezone.utc
WEDNESDAY = datetime(2026, 12, 2, 12, tzinfo=UTC)


@pytest.mark.parametrize("as_of", [datetime(9998, 6, 1, 12, tzinfo=UTC), datetime(9998, 12, 20, 12, tzinfo=UTC),
                                   datetime(9998, 12, 30, 12, tzinfo=UTC)])
@pytest.mark.parametrize("query", ["what's due after tomorrow?", "after next week", "after in two weeks",
                                   "anything after a week from today?", "Was kommt nach übermorgen? after morgen"])
def test_after_a_window_ahead_late_in_the_last_year_is_no_crash(query, as_of):
    # "after tomorrow" is the year after it: asked late in 9998 (the last year as_of takes), that year ran past
    # 9998 and `timewindow.days` raised ValueError out of the search
    for window in timeq.read(query, as_of):
        assert window.end <= datetime(9999, 1, 1, tzinfo=UTC).timestamp()


def test_after_tomorrow_is_read_up_to_the_last_day_a_search_reads():
    windows = timeq.read("what's due after tomorrow?", datetime(9998, 6, 1, 12, tzinfo=UTC))
    assert [(w.phrase, w.label, w.ahead) for w in windows] == [("after tomorrow", "9998-06-03..9998-12-31", True)]


@pytest.mark.parametrize("phrase", ["am morgen ", "morgen ", "esta mañana "])
def test_reading_morgen_many_times_is_linear_in_the_query(phrase):
    # each "morgen" split the whole text before it to find the word before: 8x the query took 35x the time
    assert_read_linear(phrase, 400)


THURSDAY = datetime(2026, 12, 3, tzinfo=UTC).date()


@pytest.mark.parametrize("text", [
    "Black Friday deals on the TV at MediaMarkt", "Good Friday is a holiday", "Cyber Monday: new laptop?",
    "Easter Monday off", "Ash Wednesday service", "I read the Sunday Times", "Herr Freitag rief an",
    "Frau Sonntag kommt vorbei", "Mardi gras in New Orleans", "giovedì grasso", "Viernes Santo", "He is my Man Friday",
    "Plácido Domingo concert tickets", "四周一起去", "一周一次"])
def test_a_day_of_the_week_inside_a_name_is_no_day_to_come(text):
    # "Black Friday" was read as the Friday after the passage's date, so a note about TV deals answered "what's
    # due in 2 days?" before the note naming the day
    from tachikoma.when.mentions import weekdays

    assert weekdays(text, THURSDAY, THURSDAY) == []


@pytest.mark.parametrize("text, named", [
    ("Friday: Ros comes", [datetime(2026, 12, 4).date()]),
    ("周一周二开会", [datetime(2026, 12, 7).date(), datetime(2026, 12, 8).date()]),  # Monday, Tuesday
    ("这周五", [datetime(2026, 12, 4).date()]),
    ("Domingo: misa", [datetime(2026, 12, 6).date()]),  # the day, at a line's start
    ("el domingo vamos", [datetime(2026, 12, 6).date()]),
])
def test_a_day_of_the_week_outside_a_name_is_still_read(text, named):
    from tachikoma.when.mentions import weekdays

    assert weekdays(text, THURSDAY, THURSDAY) == named


def test_black_friday_deals_do_not_answer_whats_due_in_two_days(tmp_path):
    from test_ahead import _ask
    from test_everyday_rules import put

    root = tmp_path / "memory"
    put(root, "todo.md", "# To do\n\n- 2026-12-03: send Kiezrad the November invoice\n")
    put(root, "shop.md", "# Shopping\n\nBlack Friday deals on the TV at MediaMarkt.\n")
    put(root, "bike.md", "# Bike\n\nThe bike needs new brakes before the spring.\n")
    answer = _ask(root, "what's due in 2 days?", "2026-12-02")
    assert answer["match"]["naming_the_time_asked"] == 1
    assert answer["results"][0]["path"] == "todo.md"


@pytest.mark.parametrize("query", [
    "What has changed in a week?", "Who haven't I called in a month?", "What have I learned in 2 years?",
    "I haven't run in two weeks", "What's changed in two weeks?", "Which plants haven't been watered in a week?",
    "How has my weight changed in a month?"])
def test_in_n_after_the_english_perfect_is_how_long_not_when(query):
    # "What has changed in a week?" was read as the days 3 to 10 from today, a window still to come
    assert [(w.phrase, w.label) for w in timeq.read(query, WEDNESDAY) if w.ahead] == []


@pytest.mark.parametrize("query, label", [
    ("What do I have planned in two weeks?", "2026-12-12..2026-12-20"),  # a plan
    ("What have I got on in two weeks?", "2026-12-12..2026-12-20"),
    ("What do I have to get fixed in two weeks?", "2026-12-12..2026-12-20"),  # an infinitive
    ("What will I have learned in 2 years?", "2028-06-01..2029-06-02"),  # "will have": still to come
    ("What's needed in 3 days?", "2026-12-04..2026-12-06"),
])
def test_in_n_with_have_that_is_no_perfect_is_still_when(query, label):
    assert [w.label for w in timeq.read(query, WEDNESDAY) if w.ahead] == [label]


@pytest.mark.parametrize("phrase", ["in a day, ", "x in a week ", "in one year; "])
def test_reading_in_a_unit_many_times_is_linear_in_the_query(phrase):
    # each "in a day" searched the whole question for "how many" again: 8x the phrases took 50x the time
    assert_read_linear(phrase, 300)


@pytest.mark.parametrize("query, phrase", [
    ("Cosa fa Marco domani?", "domani"),  # "fa": he does, no "ago"
    ("Che cosa si fa domani?", "domani"),
    ("Che fa Anna la prossima settimana?", "prossima settimana"),
    ("Cosa fa Marco tra tre giorni?", "tra tre giorni"),
])
def test_italian_fa_is_ago_only_after_a_time(query, phrase):
    # Italian "fa" (does) was read as "ago", the past: "Cosa fa Marco domani?" named no time at all
    assert [w.phrase for w in timeq.read(query, WEDNESDAY) if w.ahead] == [phrase]


@pytest.mark.parametrize("query", ["Cosa è successo tre giorni fa?", "Cosa ho scritto poco fa?",
                                   "Cosa c'era 2 settimane fa?", "Cosa era successo tempo fa?"])
def test_italian_ago_is_still_the_past(query):
    from tachikoma.when.tense import past_in

    assert past_in(query, "Italian")


@pytest.mark.parametrize("query", [
    "Was mache ich Samstag Morgen?",  # Saturday morning
    "Was steht Sonntag morgen an?",
    "Wat doe ik zaterdag morgen?",
    "Was mache ich am frühen Morgen?",
    "Was mache ich am nächsten Morgen?",  # the next morning
    "¿Qué nos depara el mañana?",  # the future
])
def test_morgen_after_a_day_or_an_adjective_is_a_morning(query):
    # "Samstag Morgen" was read as tomorrow (the day itself is read since session 40: "Sonntag" is the coming Sunday)
    assert [w.phrase for w in timeq.read(query, WEDNESDAY) if w.ahead and w.phrase.lower().endswith(("morgen", "mañana"))] == []
    assert [w.label for w in timeq.read("Was steht Sonntag morgen an?", WEDNESDAY)] == ["2026-12-06"]


def test_morgen_morgen_is_tomorrow_once():
    assert [(w.phrase, w.label) for w in timeq.read("Was mache ich morgen Morgen?", WEDNESDAY)] == [
        ("morgen", "2026-12-03")]


@pytest.mark.parametrize("query", ["先天后天的区别是什么？", "先天和后天哪个更重要？", "后天性免疫缺陷的资料",
                                   "性格是后天形成的吗？", "明日葉の育て方", "明日菜さんの誕生日は？", "明日美の誕生日は？"])
def test_houtian_acquired_and_asu_names_are_no_day(query):
    # 后天 "acquired" (先天后天: innate and acquired) was read as the day after tomorrow; 明日葉 (a plant) as tomorrow
    assert [w.phrase for w in timeq.read(query, WEDNESDAY) if w.ahead] == []


@pytest.mark.parametrize("query, phrase", [("后天开会吗？", "后天"), ("我后天要交报告吗？", "后天"),
                                           ("明日、明日香に会う？", "明日"), ("明日は何時？", "明日")])
def test_houtian_and_ashita_as_days_are_still_read(query, phrase):
    assert [w.phrase for w in timeq.read(query, WEDNESDAY) if w.ahead] == [phrase]


@pytest.mark.parametrize("question, language, besides", [
    (" 有雨吗？", "Chinese", True),  # "明天有雨吗？": will it rain tomorrow?
    (" 冷吗？", "Chinese", True),  # cold?
    (" 비 와?", "Korean", True),  # rain?
    (" 눈 와?", "Korean", True),  # snow?
    (" 有什么事？", "Chinese", False),  # what's on?
    ("은 뭐 해?", "Korean", False),  # what am I doing?
    ("の予定は？", "Japanese", False),
    ("呢？", "Chinese", False),
])
def test_a_chinese_or_korean_word_of_one_character_is_asked_about(question, language, besides):
    # a single CJK character was never a word asked about: "明天有雨吗？" asked about tomorrow alone, and the note
    # naming tomorrow's date answered a question about the weather
    from tachikoma.search.keywords import asks_besides_time

    assert asks_besides_time(question, language) is besides


def test_will_it_rain_tomorrow_is_no_good_match_in_a_memory_without_weather(tmp_path):
    from test_ahead import _ask
    from test_everyday_rules import put

    root = tmp_path / "memory"
    put(root, "todo.md", "# To do\n\n- 2026-12-03: send Kiezrad the November invoice\n")
    put(root, "bike.md", "# Bike\n\nThe bike needs new brakes before the spring.\n")
    for question in ("明天有雨吗？", "내일 비 와?"):
        assert _ask(root, question, "2026-12-02")["no_good_match"] is True, question
    assert _ask(root, "明天有什么事？", "2026-12-02")["no_good_match"] is False
