"""Italian, Portuguese and Dutch words that say what a question asks, not about what, as German's, French's and
Spanish's do: "Cosa ho fatto ieri?" asks about yesterday alone, as "What did I do yesterday?" does."""

import pytest

from tachikoma.language.function_words import question_language
from tachikoma.search.keywords import asks_besides_time

from test_ahead import _ask
from test_everyday_rules import put


@pytest.mark.parametrize("question, language, besides", [
    ("Cosa ho fatto ?", "Italian", False),  # "ieri" blanked out: what the time phrase leaves
    ("Cosa è successo ?", "Italian", False),
    ("O que eu fiz ?", "Portuguese", False),
    ("O que aconteceu ?", "Portuguese", False),
    ("Wat heb ik gedaan?", "Dutch", False),
    ("Wat is er gebeurd?", "Dutch", False),
    ("Cosa ho fatto con il tetto?", "Italian", True),  # the roof: something besides the time
    ("Wat heb ik met de fiets gedaan?", "Dutch", True),
])
def test_words_that_say_what_is_asked_are_no_subject(question, language, besides):
    assert question_language(question) == language
    assert asks_besides_time(question, language) is besides


@pytest.mark.parametrize("question", ["what's the bus fare to Leeds", "where is the deed to the house"])
def test_their_english_homographs_tell_no_other_language(question):
    assert question_language(question) is None


@pytest.mark.parametrize("question, as_of", [
    ("cosa ho fatto ieri", "2026-12-04"),
    ("o que aconteceu ontem?", "2026-12-04"),
    ("wat heb ik gisteren gedaan?", "2026-12-04"),
])
def test_a_question_about_a_day_alone_is_answered_by_that_day(tmp_path, question, as_of):
    # "fatto", "aconteceu" and "gedaan" were keywords that no note held: the day's journal was no good match
    root = tmp_path / "memory"
    put(root, "journals/2026_12_03.md", "- Riunione con Saskia, poi palestra.\n- Meeting with the landlord.\n")
    put(root, "pages/bike.md", "# Bike\n\nThe bike needs new brakes before the spring.\n")
    answer = _ask(root, question, as_of, limit=1)
    assert answer["no_good_match"] is False and answer["match"]["answered_by"] == "time", answer["match"]
    assert [r["path"] for r in answer["results"]] == ["journals/2026_12_03.md"]
