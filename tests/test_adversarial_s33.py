"""Adversarial checks of the month still to come in other languages (`tense`), the notes in a budget's
block (`recall.within_budget`) and fresh-only widening (`search.pool.fresh_answer`)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tachikoma import timeq

# Wednesday 25 March 2026, noon UTC.
AS_OF = datetime(2026, 3, 25, 12, 0, tzinfo=timezone.utc)


def labels(query: str) -> list[str]:
    return [w.label for w in timeq.read(query, AS_OF)]


@pytest.mark.parametrize("query", [
    # Each asks what was said or done in December (about something to come): the past as people say it,
    # as English's "What did Anna say in December about the next meeting?" (which keeps its December).
    "Was hat Anna im Dezember über das nächste Treffen gesagt?",
    "Was haben wir im Dezember über das nächste Release besprochen?",
    "Qu'est-ce qu'Anna a dit en décembre sur la prochaine réunion ?",
    "Qu'est-ce qu'on a décidé en décembre pour la prochaine version ?",
    "Qu'a-t-il dit en décembre sur la prochaine réunion ?",
    "¿Qué dijo Ana en diciembre sobre la próxima reunión?",
    "¿Qué compré en diciembre para el próximo viaje?",
    "¿Qué ha decidido Ana en diciembre sobre la próxima reunión?",
    "O que a Ana disse em dezembro sobre a próxima reunião?",  # told as Spanish by the words they share
    "Cosa ha detto Anna a dicembre sulla prossima riunione?",
    "Wat zei Anna in december over de volgende vergadering?",
    "Wat hebben we in december besloten over de volgende release?",
    "12月にアナは次の会議について何と言った？",
    "12月に決めた次のリリースの内容は？",
])
def test_a_question_about_what_was_said_of_what_comes_next_keeps_its_month(query):
    assert labels(query) == ["2025-12"], query


@pytest.mark.parametrize("query", [
    "Qu'est-ce qu'il y a de prévu en décembre ?",  # "il y a" is "there is", not "ago"
    "12月3日午前の予定は？",  # 午前: the morning, not "before"
    "12月の予定を確認したい",  # したい: want to, no past
    "12月除了开会还有什么安排？",  # 除了: besides, no past
])
def test_a_question_about_what_is_coming_is_not_read_as_the_past_by_a_look_alike(query):
    assert labels(query) == [], query
