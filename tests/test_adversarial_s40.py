"""Adversarial inputs for what a question asks for (`answer_kind`): questions wrongly read as asking a phone
number, a time of day or a birthday's day, passages holding one unrecognised, and text that made a pattern slow."""

from datetime import date

import pytest
from linear import assert_linear

from tachikoma.search import answer_kind
from tachikoma.humanize import no_match_reason
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

TODAY = date(2026, 12, 6)


@pytest.mark.parametrize("make", [lambda n: "1" * n, lambda n: "一" * n, lambda n: "7" * n + "月"])
def test_reading_a_passage_is_linear_in_a_run_of_numerals(make):
    """An hour or a month before 時/点/月 was any run of numerals, tried from each of its characters: 10,000
    digits took about 3 seconds a pattern, growing with the square of the run."""
    def read(text):
        for kind in answer_kind.KINDS:
            kind.held(text, TODAY)

    assert_linear(read, make, 4000, within=20)  # 8× the text: ~8× the time (quadratic was ~64×, seconds at 10,000)


@pytest.mark.parametrize("kind, text", [
    # a French phone number written with dots holds a day's shape ("06.12.34"), which was taken out as one
    (answer_kind.NUMBER, "Tél. : 06.12.34.56.78"),
    (answer_kind.NUMBER, "0171-23-45-67"),
    # full-width digits and separators, as a Japanese keyboard writes them
    (answer_kind.NUMBER, "電話：０３－１２３４－５６７８"),
    (answer_kind.CLOCK, "集合は１９：３０"),
    # a time right after a CJK character: no word boundary between them
    (answer_kind.CLOCK, "会议10:00开始"),
    (answer_kind.CLOCK, "dinner at 8 o’clock"),  # a typographic apostrophe
    # an hour after the word for "at" alone
    (answer_kind.CLOCK, "Dinner at 8 at Luigi's"),
    (answer_kind.CLOCK, "Wir treffen uns um 8 beim Bahnhof"),
    (answer_kind.CLOCK, "Quedamos a las 8 en la plaza"),
    (answer_kind.CLOCK, "Jantar às 8"),
    (answer_kind.CLOCK, "Cena alle 8 da Mario"),
    (answer_kind.CLOCK, "Pick-up at seven"),
    (answer_kind.CLOCK, "um acht Uhr"),
    (answer_kind.CLOCK, "ten past nine"),
])
def test_a_passage_holding_it_is_read(kind, text):
    assert kind.held(text, TODAY)


@pytest.mark.parametrize("kind, text", [
    (answer_kind.NUMBER, "Decided on 2027-02-03 and again on 11.12.2026."),  # days are still no numbers
    (answer_kind.NUMBER, "Away 11.12.2026-12.12.2026, back 2026-12-14–2026-12-18"),
    (answer_kind.CLOCK, "Am 11.12.2026 schriftlich Einwendungen erhoben"),
    (answer_kind.CLOCK, "It cost 10.000 euros"),
    (answer_kind.CLOCK, "At one point she left."),
    (answer_kind.CLOCK, "Es sind acht."),
    # a measure after "at"/"à" is no hour
    (answer_kind.CLOCK, "Bedroom at 19 °C at night"),
    (answer_kind.CLOCK, "Tomasz at 60% for six months"),
    (answer_kind.CLOCK, "le CPE à 5 minutes"),
    (answer_kind.CLOCK, "plaquettes de frein à 4 mm"),
    (answer_kind.CLOCK, "We looked at two routing vendors"),
])
def test_still_not_held(kind, text):
    assert not kind.held(text, TODAY)


@pytest.mark.parametrize("text", ["Lukas — bday 12/25", "生日：5/3", "Her birthday is on the 14th."])
def test_a_passage_holding_a_birthday_is_read(text):
    assert answer_kind.BIRTHDAY.held(text, TODAY) and answer_kind.BORN.held(text, TODAY)


@pytest.mark.parametrize("text", ["Lukas (born 1989) grew up in Graz", "Oma Hilde (geb. 1941)", "1989年生まれ", "1990년생"])
def test_the_year_one_was_born_in_answers_when_but_is_no_birthday(text):
    # "When was Lukas born?"; "When is Martin's birthday?" is not answered by "Lena, Martin's daughter, was born in
    # 2019" (an everyday off-topic question answered so)
    assert answer_kind.BORN.held(text, TODAY) and not answer_kind.BIRTHDAY.held(text, TODAY)
    assert answer_kind.asked("When was Lukas born?") is answer_kind.BORN
    assert answer_kind.asked("Wann wurde Oma Hilde geboren?") is answer_kind.BORN


@pytest.mark.parametrize("question, kind", [
    ("When's Ana's birthday?", answer_kind.BIRTHDAY),  # "'s" right after "when" was never read
    ("When is Ana's birthday brunch?", None),  # a party's day, which a passage may give as "Saturday at 11"
    ("When is Ana's birthday bash?", None),
    ("When is Lukas's birthday weekend?", None),
])
def test_what_a_birthday_question_asks(question, kind):
    assert answer_kind.asked(question) is kind


@pytest.mark.parametrize("question", [
    "What time-zone is Ines in?",  # "what timezone" and "what time zone" were not read as asking a time already
    "What time difference is there between Berlin and Tokyo?",
    "What time limit is there for the exam?",
    "What time commitment does the course need?",
    "Mi ha detto che ora lavora a Milano?",  # "that now": Italian "ora" is "now" too
    "医生提了几点建议？",  # "a few suggestions"
    "医生说了几点注意事项？",
    "何時もの店はどこ？",  # いつも, "usual"
    "몇 시즌까지 봤어?",  # "how many seasons"
    "我的账号被盗了怎么办？",  # an account one logs into
    "账号密码是什么？",
])
def test_not_asking_a_kind(question):
    assert answer_kind.asked(question) is None


@pytest.mark.parametrize("question, kind", [
    ("What time do we leave?", answer_kind.CLOCK),
    ("A che ora parte il treno?", answer_kind.CLOCK),
    ("Che ora è?", answer_kind.CLOCK),
    ("Per che ora è prenotato il tavolo?", answer_kind.CLOCK),
    ("幾點開門？", answer_kind.CLOCK),
    ("몇시에 만나?", answer_kind.CLOCK),
    ("房东的银行账号是什么？", answer_kind.NUMBER),
    ("账号是多少？", answer_kind.NUMBER),
])
def test_still_asking_a_kind(question, kind):
    assert answer_kind.asked(question) is kind


@pytest.mark.parametrize("question, kind", [
    ("Hoe laat ik de huisarts weten dat ik niet kom?", None),  # "how do I let … know": laten, not laat
    ("Hoe laat je een hond uit?", None),
    ("Hoe laat begint de film?", answer_kind.CLOCK),
    ("Hoe laat ben je thuis?", answer_kind.CLOCK),
    ("Weet je hoe laat ik moet vertrekken?", answer_kind.CLOCK),
    ("Context first.\nHoe laat begint de film?", answer_kind.CLOCK),
])
def test_dutch_hoe_laat(question, kind):
    assert answer_kind.asked(question) is kind


@pytest.mark.parametrize("question, kind", [
    # asking about the number, not for it: a passage answering it ("Tim changed his number because of spam calls")
    # need not hold one
    ("Warum hat Tim seine Handynummer geändert?", None),
    ("Wer hat meine Telefonnummer weitergegeben?", None),
    ("Pourquoi Paul a changé de numéro de téléphone ?", None),
    ("¿Por qué cambió Ana su número de teléfono?", None),
    ("Perché Luca ha cambiato numero di telefono?", None),
    ("Waarom heeft Tim een nieuw telefoonnummer?", None),
    ("How do I change my IBAN?", None),
    ("When did I last update the sort code?", None),
    # asking for it
    ("Wie lautet die IBAN der Hausverwaltung?", answer_kind.NUMBER),
    ("Telefonnummer von Marta?", answer_kind.NUMBER),
    ("Qual è il numero di telefono di Luca?", answer_kind.NUMBER),
    ("Wat is het telefoonnummer van de huisarts?", answer_kind.NUMBER),
    ("Do we have the IBAN?", answer_kind.NUMBER),
])
def test_a_number_asked_about_is_not_asked_for(question, kind):
    assert answer_kind.asked(question) is kind


def test_one_passage_read_is_said_so():
    answer = {"match": {"asked_for": "a time of day", "passages_read": 1, "passages_holding_it": 0}, "min_score": 0.3}
    assert no_match_reason(answer) == "the question asks for a time of day and the one passage found holds none"
    answer["match"]["passages_read"] = 3
    assert no_match_reason(answer) == "the question asks for a time of day and none of the 3 best passages holds one"


def test_a_french_number_with_dots_answers(tmp_path):
    """End to end: the note holding Paul's number in the French way answers; before, its first groups were taken
    out as a day (06.12.34) and the answer was "no good match"."""
    root = tmp_path / "memory"
    (root / "people").mkdir(parents=True)
    (root / "people" / "paul.md").write_text(
        "---\ntrust: owner\nconfidence: high\n---\n# Paul Le Goff\n\nPaul Le Goff, le plombier. Numéro de téléphone de "
        "Paul Le Goff : 06.12.34.56.78\n", encoding="utf-8")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    try:
        paul = s.search("Quel est le numéro de téléphone de Paul Le Goff ?", min_score=0.3)
    finally:
        s.close()
    assert paul["match"].get("passages_holding_it") == 1
    assert paul["no_good_match"] is False and paul["results"][0]["path"] == "people/paul.md"
