"""Adversarial inputs for what a question asks for and what a passage holds (`answer_kind`, session 42): numbers
shaped as a time of day that are none (a version, a verse, a day and month), questions naming the weather without
asking it, and the Polish, Turkish and week-boundary time reading."""

from datetime import date, timedelta

import pytest
from linear import assert_linear

from tachikoma.search import answer_kind

TODAY = date(2026, 12, 6)
HEAD = "---\ntrust: owner\nconfidence: high\n---\n"


@pytest.mark.parametrize("text", [
    "upgraded to Python 3.12", "Node 18.04", "John 3:16", "v2.10.1", "Ubuntu 22.04 on the old laptop",
    "Python 3.11 and 3.12 both pass", "iOS 17.10 broke the widget", "Python3.12", "Eyes: -2.75 both",
    "cargo_2w,8.00,26.00,45.00", "21 passed in 1.44s", "Romans 8:28 was read at the wedding",
    # a day and month without a year, each closed by its dot (German notes): no time of day
    "Zahlbar bis 14.12.", "Freeze agreed: 18.12. to 04.01.", "Sechs Termine: 12.11., 19.11., 26.11.",
])
def test_a_number_shaped_as_a_time_that_is_none(text):
    assert answer_kind.CLOCK.held(text, TODAY) is False


@pytest.mark.parametrize("text", [
    "at 3:15", "15:30", "9.30 am", "um 9.30 Uhr", "14h30", "3 pm", "午後3時", "Doors 19.30", "the 7.45 train",
    "Lunch with John 12:30", "9:00-17:00", "2026-12-06T10:30", "We meet at 10.30.", "ratio 16:9 at 10:15",
    "Python 3.12 upgrade call at 14.00", "à 10h30 s'il te plaît", "Mark 14:00 dentist",
])
def test_a_time_of_day_stays_one(text):
    assert answer_kind.CLOCK.held(text, TODAY) is True


@pytest.mark.parametrize("text", ["ratio 16:9", "score 3:1", "final score 2:1"])
def test_a_ratio_or_a_score_is_no_time(text):
    """Read so before this session too (one digit after the colon): kept."""
    assert answer_kind.CLOCK.held(text, TODAY) is False


@pytest.mark.parametrize("question", [
    "What's the weather station's IP?", "weather app password", "What is the weather app password?",
    "What's the weather API key?", "How is the weather affecting the harvest?", "What's the weather forecast app called?",
    "Wie ist das Wetter-App-Passwort?", "Quel est le mot de passe de l'appli météo ?", "天气站的IP地址是多少？",
    "天気アプリのパスワードは？", "天气预报app叫什么？", "날씨 앱 비밀번호가 뭐야?", "Jakie jest hasło do aplikacji pogodowej?",
    "Hava durumu uygulamasının şifresi ne?",
    # not the weather at all: Polish "pogodzić się" (to make up), Spanish "hace falta" (it takes)
    "Kiedy się pogodzili?", "Czy pogodziłem się z bratem?", "¿Qué tiempo hace falta para renovar el pasaporte?",
])
def test_the_weather_named_to_say_which_other_thing_is_not_asked(question):
    assert answer_kind.asked(question) is None


@pytest.mark.parametrize("question", [
    "What's the weather like?", "What's the weather?", "What was the weather when we hiked Snowdon?",
    "What will the weather be on Saturday?", "how's the weather in Lisbon", "Check the weather forecast",
    "What's the weather forecast for the Christmas market tomorrow?", "Wie wird das Wetter morgen in Berlin?",
    "Quelle est la météo à Lyon demain ?", "Météo demain ?", "明天天气怎么样", "明日の天気予報は？", "오늘 날씨는?",
    "내일 서울 날씨", "5월에 제주도 날씨 어때?", "Jaka będzie jutro pogoda w Gdańsku?", "Yarın İzmir'de hava durumu nasıl?",
    "¿Qué tiempo hace hoy en Sevilla?",
])
def test_the_weather_is_still_asked(question):
    assert answer_kind.asked(question) is answer_kind.WEATHER


@pytest.mark.parametrize("question", [
    # Japanese, Chinese, Korean, Turkish put why, who, when anywhere: it asks about the number, not for it
    "为什么换了手机号？", "谁改了我的电话号码？", "电话号码是谁给的？", "什么时候换的手机号？", "なぜ電話番号を変えたの？",
    "誰が電話番号を変えたの？", "いつ電話番号を変えた？", "왜 전화번호를 바꿨어?", "누가 전화번호 바꿨어?",
    "언제 전화번호 바꿨어?",
    "Telefon numaramı neden değiştirdim?", "Telefon numaramı kim değiştirdi?", "Hesap numarasını kime verdim?",
    "Ne zaman telefon numaramı değiştirdim?",
    # the number named to say which other thing is asked of
    "What's the account number format for UK banks?", "What's the phone number format in Poland?",
    "What's my account number's check digit?", "Which IBAN format does Stripe need?",
])
def test_a_question_about_a_number_does_not_ask_for_one(question):
    assert answer_kind.asked(question) is None


@pytest.mark.parametrize("question", [
    "ミアの担任の先生の電話番号は？", "いつもの電話番号は？", "전화번호가 어떻게 되세요?", "手机号是多少？",
    "Anna'nın telefon numarası ne?",
    "What's Marta's phone number again?", "What's the phone number Marta gave me?", "phone number of the GP",
    "What's the phone number for the vet", "Wie lautet die IBAN der Hausverwaltung?", "Wie lautet die IBAN-Nummer?",
    "Quel est l'IBAN du propriétaire ?", "What is the IBAN?", "What's the sort code?", "what's the doctor's number",
])
def test_a_number_is_still_asked(question):
    assert answer_kind.asked(question) is answer_kind.NUMBER


@pytest.mark.parametrize("unit", ["-", "."])
def test_reading_a_long_run_of_dashes_for_the_kind_asked_is_linear(unit):
    """The number's "^\\W*(?:[\\w.-]+'s )?" read a dash or a dot both ways: "-" × 16,000 took 3 s (× 64 of 2,000)."""
    assert_linear(answer_kind.asked, lambda n: (unit * n)[:n], 2000, within=24)


def _days_read(question: str, today: date) -> list[tuple[str, bool]]:
    """The days `question` asked on `today` (at noon UTC) reads, each with whether it is still to come."""
    from datetime import datetime, timezone

    from tachikoma.when import tense, timeq
    from tachikoma.language.function_words import question_language
    now = datetime(today.year, today.month, today.day, 12, tzinfo=timezone.utc)
    language = question_language(question)
    coming = tense.ahead_in(question, language) or timeq.names_day_ahead(question, now, language)
    return [(w.label, w.ahead) for _, _, w in timeq.read_spans(question, now, ahead=coming)]


@pytest.mark.parametrize("question, today, day, ahead", [
    # "this Saturday" is this week's (Monday to Sunday), as "Saturday this week" is: not the one gone by
    ("What's on this Saturday?", date(2026, 12, 9), "2026-12-12", True),
    ("What's on this Sunday?", date(2026, 12, 12), "2026-12-13", True),
    ("What's on this Sunday?", date(2026, 12, 7), "2026-12-13", True),
    ("Was ist diesen Sonntag?", date(2026, 12, 12), "2026-12-13", True),
    ("Co jest w tę niedzielę?", date(2026, 12, 12), "2026-12-13", True),
    ("Bu pazar ne var?", date(2026, 12, 9), "2026-12-13", True),
    ("¿Qué hay este domingo?", date(2026, 12, 9), "2026-12-13", True),
    # asked in the past tense, the one gone by; on that day, today; before it in the week, this week's
    ("What did I do this Saturday?", date(2026, 12, 9), "2026-12-05", False),
    ("Was habe ich diesen Sonntag gemacht?", date(2026, 12, 9), "2026-12-06", False),
    ("What's on this Sunday?", date(2026, 12, 6), "2026-12-06", False),
    ("What did I do this Monday?", date(2026, 12, 9), "2026-12-07", False),
    ("What's on this Monday?", date(2026, 12, 6), "2026-11-30", False),
])
def test_this_day_of_the_week_is_this_weeks(question, today, day, ahead):
    assert _days_read(question, today) == [(day, ahead)]


def test_this_day_of_the_week_and_that_day_this_week_agree():
    for today in (date(2026, 12, 7) + timedelta(days=n) for n in range(7)):
        for name in ("Monday", "Wednesday", "Saturday", "Sunday"):
            assert _days_read(f"What's on this {name}?", today)[0][0] == _days_read(f"{name} this week", today)[0][0]


@pytest.mark.parametrize("question", [
    "What did I do last weekend?", "Was habe ich letztes Wochenende gemacht?", "Co robiłem w zeszły weekend?",
    "Geçen hafta sonu ne yaptım?", "先週末は何をした？", "Qu'est-ce que j'ai fait le week-end dernier ?",
])
@pytest.mark.parametrize("today", [date(2027, 1, 2), date(2027, 1, 3)])
def test_last_weekend_asked_on_a_weekend_is_the_one_before(question, today):
    """On a Saturday it read that Saturday and the Sunday after it (this weekend, half of it still to come), on a
    Sunday the same weekend "this weekend" reads: the last is the one before it, over the year's end here."""
    assert _days_read(question, today) == [("2026-12-26..2026-12-27", False)]
    assert _days_read("What did I do this weekend?", today)[0][0].startswith("2027-01-02")
