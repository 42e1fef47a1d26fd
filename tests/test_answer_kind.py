"""What a question asks for (`answer_kind`): a question asking for a phone number, a time of day or a birthday gets
"no good match" when none of its best passages holds one, and says so; a passage holding one answers."""

import json
from datetime import date

import pytest

from tachikoma.search import answer_kind
from tachikoma.replies.budget import why
from tachikoma.cli import main
from tachikoma.humanize import no_match_reason
from tachikoma.indexer import runner
from tachikoma.search.explain import sentence
from tachikoma.search.searcher import Searcher
from tachikoma_dashboard.app import create_app
from test_app import HTMX, make_client

TODAY = date(2026, 12, 6)


@pytest.mark.parametrize("question, kind", [
    ("What's Marta's phone number?", answer_kind.NUMBER),
    ("Wie lautet die IBAN der Hausverwaltung?", answer_kind.NUMBER),
    ("Quel est le numéro de téléphone de M. Le Goff ?", answer_kind.NUMBER),
    ("¿Cuál es el número de cuenta bancaria de Sofía?", answer_kind.NUMBER),
    ("ミアの担任の先生の電話番号は？", answer_kind.NUMBER),
    ("What time is my call with Harriet tomorrow?", answer_kind.CLOCK),
    ("Um wie viel Uhr beginnt das Krippenspiel?", answer_kind.CLOCK),
    ("À quelle heure ferme la boulangerie ?", answer_kind.CLOCK),
    ("明天晚上几点和公公婆婆视频？", answer_kind.CLOCK),
    ("인천에 몇 시에 도착해?", answer_kind.CLOCK),
    ("When is Lukas's birthday?", answer_kind.BIRTHDAY),
    ("マルティンの誕生日はいつですか？", answer_kind.BIRTHDAY),
    ("公公的生日是哪天？", answer_kind.BIRTHDAY),
    ("How much did we pay for the Clio?", None),  # an amount: digits are in nearly every passage on money
    # not a kind a passage visibly holds
    ("What did Elena give David for his birthday?", None),
    ("When is Ha-rin's first birthday party?", None),
    ("who builds the mobile app", None),
    ("Which mobile carrier did I switch to?", None),
    ("How much notice do we have to give?", None),
    ("新幹線で東京から大阪まで何時間かかりますか？", None),  # how many hours: a duration
    ("갈비찜을 압력솥으로 하면 얼마나 걸려?", None),  # how long
    ("What's the weather in Hamburg tomorrow?", answer_kind.WEATHER),
    ("Is it going to rain at the market tomorrow?", answer_kind.WEATHER),
    ("Wie wird das Wetter morgen in Berlin?", answer_kind.WEATHER),
    ("¿Qué tiempo hará mañana en Madrid?", answer_kind.WEATHER),
    ("Vai chover amanhã em Lisboa?", answer_kind.WEATHER),
    ("明天北京天气怎么样？", answer_kind.WEATHER),
    ("明日は雨が降りますか？", answer_kind.WEATHER),
    ("5월에 제주도 날씨 어때?", answer_kind.WEATHER),
    ("What did Audrey do to give her dogs extra comfort as the weather cooled down?", None),  # LoCoMo: named
    ("Roughly how much in sales did the Halloween forecast miss cost us?", None),
    ("what timezone is Ines in", None),
    ("phone number of the GP", answer_kind.NUMBER),
    ("what's the doctor's number", answer_kind.NUMBER),
    ("Which tooth number got the root canal?", None),
    ("What is Dana's mobile number?", answer_kind.NUMBER),
    ("What is James planning to do after receiving Samantha's phone number?", None),  # LoCoMo: named, not asked
    ("Whose phone number did James receive during the beach outing?", None),
    ("What time management techniques do Deborah and Jolene use?", None),  # LoCoMo
    ("What time of year do they harvest?", None),
])
def test_the_kind_a_question_asks_for(question, kind):
    assert answer_kind.asked(question) is kind


@pytest.mark.parametrize("kind, text, holds", [
    (answer_kind.NUMBER, "Marta: +351 912 345 678 (mobile)", True),
    (answer_kind.NUMBER, "IBAN DE89 3704 0044 0532 0130 00", True),
    (answer_kind.NUMBER, "Decided on 2027-02-03 and again on 11.12.2026.", False),  # days are no numbers
    (answer_kind.NUMBER, "Flat 12, 3 rooms, 74 m²", False),
    (answer_kind.CLOCK, "Ameliyat öncesi görüşme: 26 Ocak 2027, saat 10:00", True),
    (answer_kind.CLOCK, "às 10h40", True),
    (answer_kind.CLOCK, "pick-up at 7 pm", True),
    (answer_kind.CLOCK, "Handy ab 22 Uhr in die Küche", True),
    (answer_kind.CLOCK, "晚上八点视频", True),
    (answer_kind.CLOCK, "저녁 여덟 시에 통화", True),
    (answer_kind.CLOCK, "Am 11.12.2026 schriftlich Einwendungen erhoben", False),  # a day, not a time
    (answer_kind.CLOCK, "세 시간 걸렸다", False),  # three hours: a duration
    (answer_kind.BIRTHDAY, "Tomás, born 9 July 1989 in Braga", True),
    (answer_kind.BIRTHDAY, "아빠 생신은 음력 3월 2일이다", True),
    (answer_kind.BIRTHDAY, "公公生日是农历八月十五", True),
    (answer_kind.BIRTHDAY, "It's my daughter's birthday today!", True),  # the passage's own date is its day
    (answer_kind.BIRTHDAY, "Loves hiking and bad puns.", False),
    (answer_kind.WEATHER, "Forecast for the market: rain all day Saturday.", True),
    (answer_kind.WEATHER, "Morgen 3 °C und Schnee in Berlin.", True),
    (answer_kind.WEATHER, "明天北京有雨", True),
    (answer_kind.WEATHER, "Hamburg: Joost's flat is near the Elbe, we stay there in March.", False),
    (answer_kind.WEATHER, "浩然带雨桐回去", False),  # 雨桐 is a name
    (answer_kind.WEATHER, "Babcia mieszka na Pogodnie", False),  # a part of Szczecin
])
def test_what_a_passage_holds(kind, text, holds):
    assert kind.held(text, TODAY) is holds


@pytest.fixture
def people(tmp_path):
    root = tmp_path / "memory"
    (root / "people").mkdir(parents=True)
    (root / "people" / "marta.md").write_text(
        "---\ntrust: owner\nconfidence: high\n---\n# Marta\n\nMarta runs the bakery on Rua Augusta. Marta's phone "
        "broke last week, so Marta said to call the shop instead.\n", encoding="utf-8")
    (root / "people" / "joao.md").write_text(
        "---\ntrust: owner\nconfidence: high\n---\n# João\n\nJoão fixes bikes and lends us his phone charger.\n",
        encoding="utf-8")
    runner.run(root, embedder_name="hash")
    return root


def test_found_but_not_what_is_asked_is_no_good_match(people):
    """Marta's note is found by its meaning and words ("Marta", "phone") but holds no number: the answer says
    "no good match" and why. Once her number is written down, the same question finds it. No floor (min_score
    0): every search is answered, as the benchmarks measure ranking."""
    s = Searcher(people)
    try:
        marta = s.search("What's Marta's phone number?", min_score=0.3)
        assert marta["no_good_match"] is True and marta["results"] == []
        match = marta["match"]
        assert match["answered_by"] is None and match["asked_for"] == "a phone or account number"
        assert match["passages_holding_it"] == 0 and match["passages_read"] == 2
        assert no_match_reason(marta) == ("the question asks for a phone or account number and none of the 2 best "
                                          "passages holds one")
        unfloored = s.search("What's Marta's phone number?", min_score=0)
        assert unfloored["no_good_match"] is False and "asked_for" not in unfloored["match"]
        assert unfloored["results"][0]["path"] == "people/marta.md"
        kept = s.search("What's Marta's phone number?", min_score=0.3, decide=False)  # several memories decide
        assert kept["no_good_match"] is True and kept["results"]
    finally:
        s.close()
    note = people / "people" / "marta.md"
    note.write_text(note.read_text(encoding="utf-8") + "Her new number: +351 912 345 678.\n", encoding="utf-8")
    runner.run(people, embedder_name="hash")
    s = Searcher(people)
    try:
        marta = s.search("What's Marta's phone number?", min_score=0.3)
        assert marta["no_good_match"] is False and marta["results"][0]["path"] == "people/marta.md"
        assert marta["match"]["passages_holding_it"] == 1
    finally:
        s.close()


def test_the_command_line_says_what_is_missing(people, capsys):
    assert main(["--memory", str(people), "search", "What's Marta's phone number?", "--min-score", "0.3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no good match: the question asks for a phone or account number and none of the 2 best "
                          "passages holds one")
    assert main(["--memory", str(people), "search", "What's Marta's phone number?", "--min-score", "0.3", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["no_good_match"] is True and answer["match"]["asked_for"] == "a phone or account number"


def test_the_dashboard_and_the_api_say_it_too(people):
    (people / "tachikoma.toml").write_text("[search]\nmin_score = 0.3\n", encoding="utf-8")
    app = create_app(memory=people, port=5000)
    client = make_client(app)
    try:
        html = client.get("/?q=What%27s+Marta%27s+phone+number%3F", headers=HTMX).get_data(as_text=True)
        assert "No good match for" in html and 'class="asked-for"' in html
        assert ("Notes on its subject were found, but the question asks for a phone or account number and none of the "
                "2 best passages holds one") in html
        api = client.get("/api/search?q=What%27s+Marta%27s+phone+number%3F").get_json()
        assert api["no_good_match"] and api["match"]["asked_for"] == "a phone or account number"
        other = client.get("/?q=zxqv+blorf+quux", headers=HTMX).get_data(as_text=True)
        assert "No good match for" in other and "asked-for" not in other
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_a_passage_holding_what_is_asked_ranks_above_one_as_close_that_lacks_it(tmp_path):
    """The offsite note is a little closer to the question; the one holding "8:15" answers it. Its weight is the
    question's kind, on every search (no floor too), and the explanation says so for each."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "offsite.md").write_text(
        "---\ntrust: owner\nconfidence: high\n---\n# Offsite\n\nThe coach to the offsite leaves from the office car "
        "park; the offsite agenda is in the shared drive.\n", encoding="utf-8")
    (root / "ticket.md").write_text(
        "---\ntrust: owner\nconfidence: high\n---\n# Coach\n\nThe coach to the offsite leaves at 8:15 from the "
        "office.\n", encoding="utf-8")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    try:
        for floor in (0.3, 0):
            answer = s.search("What time does the coach to the offsite leave?", min_score=floor)
            ticket, offsite = answer["results"][:2]
            assert (ticket["path"], offsite["path"]) == ("ticket.md", "offsite.md")
            assert ticket["factors"]["asked"] == 1.0 and offsite["factors"]["asked"] == answer_kind.LACKING
            assert offsite["score"] / answer_kind.LACKING > ticket["score"]  # first without the weight
            assert "asked for (the question asks for a time of day: this passage holds none)" in sentence(offsite)
            assert "this passage holds one" in why(ticket, [])
        plain = s.search("When does the coach to the offsite leave?", min_score=0)  # no kind asked: no weight
        assert len(plain["results"]) == 2 and not any("asked" in r["factors"] for r in plain["results"])
    finally:
        s.close()
    app = create_app(memory=root, port=5000)  # the dashboard's explanation says it too, escaped as any text
    try:
        html = make_client(app).get("/?q=What+time+does+the+coach+to+the+offsite+leave%3F",
                                    headers=HTMX).get_data(as_text=True)
        assert html.index("ticket.md") < html.index("offsite.md")
        assert "asked for" in html and "the question asks for a time of day: this passage holds none" in html
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_the_weight_moves_a_files_duplicate_penalty_to_its_new_first_passage():
    results = [{"path": "a.md", "score": 0.5, "text": "The call is on Zoom.", "factors": {"duplicate_penalty": 1.0}},
               {"path": "b.md", "score": 0.45, "text": "No time here.", "factors": {"duplicate_penalty": 1.0}},
               {"path": "a.md", "score": 0.4 * 0.8, "text": "The call is at 10:30.",
                "factors": {"duplicate_penalty": 0.8}}]
    held = [answer_kind.CLOCK.held(r["text"], date(2026, 12, 4)) for r in results]
    assert held == [False, False, True]
    weighed = answer_kind.weigh(results, answer_kind.CLOCK, held)
    assert [(r["path"], r["factors"]["duplicate_penalty"]) for r in weighed] == [
        ("a.md", 1.0), ("b.md", 1.0), ("a.md", 0.8)]
    assert weighed[0]["text"] == "The call is at 10:30." and weighed[0]["score"] == pytest.approx(0.4)
    assert weighed[2]["score"] == pytest.approx(0.5 * answer_kind.LACKING * 0.8)
