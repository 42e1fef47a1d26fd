"""A question in another language to a memory whose embedder reads English only: "no good match" says why
and what to do, on the command line, the API and the dashboard (`function_words.language_of`,
`humanize.language_hint`).

A real index of the example memory with the default offline embedder (minilm-int8, English only): a German
question about Martin's dentist appointment shares no word with the English notes and its meaning cannot
reach them, so the answer is "no good match"; before, nothing said that the language was the reason.
"""

from __future__ import annotations

import pytest

from tachikoma.language.function_words import question_language
from tachikoma.humanize import language_hint, no_match_reason
from tachikoma.search.keywords import STOPWORDS
from tachikoma.search.searcher import Searcher
from tachikoma_dashboard.app import create_app
from test_app import HTMX, make_client
from web_helpers import build_index, copy_memory


@pytest.mark.parametrize("question, language", [
    ("Wann ist der nächste Zahnarzttermin von Martin?", "German"),
    ("Quand est le rendez-vous chez le dentiste ?", "French"),
    ("¿Cuándo es la cita con el dentista?", "Spanish"),
    ("歯医者の予約はいつですか", "Japanese"),
    ("电机驱动芯片的供应商是谁？", "Chinese"),
    ("치과 예약은 언제?", "Korean"),
    ("Где ключи?", "a Cyrillic-script language"),
    ("When is Martin's dentist appointment?", None),
    ("What hat did Ben wear?", None),  # one German function word is no evidence
    ("Why did the plant die in winter?", None),  # "die" and "in" are English too
    ("Die Hard cast", None),
    # Italian, Portuguese and Dutch are told too, each by the language with most function words
    ("Qual é a coima por deixar monstros na rua sem marcar?", "Portuguese"),
    ("Quando é a próxima inspeção do carro?", "Portuguese"),  # its "a" and "do" are not counted as English
    ("A che ora apre la farmacia di turno?", "Italian"),
    ("Wanneer is de afspraak met de tandarts?", "Dutch"),
    ("¿Cuál es la capital de Argentina?", "Spanish"),  # was French: "la" and "de" are French too
    ("Was war vorgestern los?", "German"),  # "war" is English too, "los" says what is asked
    ("la la land soundtrack", None),  # one French word, twice
    ("vitamin c and d", None),  # single letters (French "c'", "d'") alone tell nothing
    ("Qu'est-ce que c'est ?", "French"),
    ("Was hab ich gestern aufgeschrieben?", "German"),
    # English clitics are no French "s" or "d" ("s'il"), and English words outnumber false friends
    ("When is Melanie's daughter's birthday?", None),
    ("What's Marta's phone number?", None),
    ("What does Nate want to do when he goes over to Joanna's place?", None),  # Dutch "want", "over"
])
def test_the_language_of_a_question(question, language):
    # one reading for the search and for `tense` (they took two English word lists, session 33)
    assert question_language(question) == language


@pytest.mark.parametrize("question, keywords", [
    ("Was war vorgestern los?", []),  # a time alone: "vorgestern" is read by `timeq`, and German's too
    ("Was hab ich gestern aufgeschrieben?", []),
    ("Wie heißt der Hund von Frau Kaiser?", ["Hund", "Frau", "Kaiser"]),
    ("Was ist beim Feldtest in der Uckermark passiert?", ["Feldtest", "Uckermark"]),
])
def test_words_that_say_what_a_german_question_asks_are_no_keywords(question, keywords):
    from tachikoma.search.keywords import query_terms
    assert query_terms(question, skip=STOPWORDS) == keywords


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    root = copy_memory(tmp_path_factory.mktemp("hint") / "memory")
    build_index(root, embedder="minilm-int8")
    return root


def ask(root, question: str) -> dict:
    searcher = Searcher(root)
    try:
        return searcher.search(question, 5)
    finally:
        searcher.close()


def test_no_good_match_in_another_language_says_the_embedder_reads_english_only(memory):
    answer = ask(memory, "Wann ist der nächste Zahnarzttermin von Martin?")
    assert answer["no_good_match"] and answer["match"]["question_language"] == "German"
    reason = no_match_reason(answer)
    assert "the question is in German" in reason and "reads English only" in reason
    assert "--embedder e5-small" in reason and answer["embedder"] in reason


def test_an_english_question_with_no_good_match_gets_no_language_hint(memory):
    answer = ask(memory, "What is the capital of Peru?")
    assert answer["no_good_match"] and "question_language" not in answer["match"]
    assert language_hint(answer) is None and "English only" not in no_match_reason(answer)


def test_the_dashboard_and_the_api_say_it_too(memory):
    app = create_app(memory=memory, port=5000)
    client = make_client(app)
    try:
        html = client.get("/?q=Wann+ist+der+n%C3%A4chste+Zahnarzttermin+von+Martin%3F", headers=HTMX).get_data(as_text=True)
        assert "No good match for" in html and 'class="language-hint"' in html
        assert "The question is in German and this memory" in html and "reads English only" in html
        api = client.get("/api/search?q=Wann+ist+der+n%C3%A4chste+Zahnarzttermin+von+Martin%3F").get_json()
        assert api["no_good_match"] and api["match"]["question_language"] == "German"
        english = client.get("/?q=What+is+the+capital+of+Peru%3F", headers=HTMX).get_data(as_text=True)
        assert "No good match for" in english and "language-hint" not in english
    finally:
        app.extensions["tachikoma"].index_job.wait(30)
