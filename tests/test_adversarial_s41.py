"""Adversarial inputs for the weight a question asking for a kind of thing puts on its best passages
(`answer_kind.weigh`, session 41): questions wrongly read as asking a time of day, and passages wrongly read as
holding the kind asked, each of which now moves a ranking, not only "no good match"."""

from datetime import date

import pytest

from tachikoma.search import answer_kind
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

TODAY = date(2026, 12, 6)
HEAD = "---\ntrust: owner\nconfidence: high\n---\n"


@pytest.mark.parametrize("question", [
    "What time tracking tool does the team use?",
    "What time-tracking app did I try?",
    "What time-consuming chores did I postpone?",
    "What time saving tips did I write down?",
    "What time-sensitive tasks are pending?",
    "What time blocks did I put in my calendar?",
    "What time constraints did the client give?",
    "What time sheet template do we use?",
    "What time-boxing method did Sara suggest?",
])
def test_time_before_a_noun_asks_for_no_time_of_day(question):
    """"what time" before a noun it qualifies asks for a kind of thing (a tool, chores, tips), as "what time
    management" and "what time zone" already were."""
    assert answer_kind.asked(question) is None


@pytest.mark.parametrize("question", [
    "What time is the dentist next week?", "Do you remember what time the train left?",
    "What time in the morning do I usually run?", "What time does the coach leave?", "what time?",
    "What time - roughly - did we leave?",
])
def test_a_time_of_day_is_still_asked(question):
    assert answer_kind.asked(question) is answer_kind.CLOCK


def test_a_question_on_a_time_tracking_tool_is_not_weighed_by_a_time_of_day(tmp_path):
    """The note naming the tool answers; a standup note holding "9:30" does not, and was put above it."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "tools.md").write_text(HEAD + "# Tools\n\nThe team tracks its hours in Toggl; the time tracking tool "
                                   "replaced the spreadsheets.\n", encoding="utf-8")
    (root / "standup.md").write_text(HEAD + "# Standup\n\nStandup at 9:30: the team talked about the tracking tool "
                                     "and the spreadsheets.\n", encoding="utf-8")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    try:
        answer = s.search("What time tracking tool does the team use?", min_score=0)
        assert answer["results"][0]["path"] == "tools.md"
        assert not any("asked" in r["factors"] for r in answer["results"])
    finally:
        s.close()


def test_a_transcripts_date_line_is_no_day_it_holds(tmp_path):
    """Every passage of a dated conversation starts with the day it was said on ("[2026-03-01, Sunday 1 March
    2026]", `chunking.date_context`): read as a day it holds, it answered every birthday question, outranked a
    note as close and kept "no good match" away."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "chat.jsonl").write_text(
        '{"speaker": "user", "text": "Tomás\'s birthday party: Lego theme at the zoo, what should I bring?", '
        '"timestamp": "2026-03-01T10:00:00Z"}\n'
        '{"speaker": "assistant", "text": "A Lego set for Tomás\'s birthday party.", '
        '"timestamp": "2026-03-01T10:01:00Z"}\n', encoding="utf-8")
    (root / "party.md").write_text(HEAD + "# Party\n\nTomás's birthday party at the zoo: Lego theme.\n",
                                   encoding="utf-8")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    try:
        answer = s.search("When is Tomás's birthday?", min_score=0)
        chat = next(r for r in answer["results"] if r["path"] == "chat.jsonl")
        assert chat["text"].startswith("[2026-03-01, Sunday 1 March 2026]")
        assert chat["factors"]["asked"] == answer_kind.LACKING, chat["factors"]["asked_reason"]
        floored = s.search("When is Tomás's birthday?", min_score=0.2)
        assert floored["no_good_match"] is True and floored["match"]["passages_holding_it"] == 0
    finally:
        s.close()


@pytest.mark.parametrize("kind, text", [
    (answer_kind.BIRTHDAY, "[2026-03-01, Sunday 1 March 2026]\nuser: What should I get Tomás?"),
    (answer_kind.BORN, "[2026-03-01 – 2026-03-02, Sunday 1 March – Monday 2 March 2026]\nuser: Lukas loves Lego."),
    # a session id of digits is no phone number
    (answer_kind.NUMBER, "Claude Code session 20251203 · ~/code/shop · branch main\n[2025-12-03, Wednesday 3 December "
                         "2025]\nuser: Where is the dentist's number?"),
])
def test_a_transcripts_context_lines_hold_nothing_asked(kind, text):
    assert not answer_kind.holds(kind, {"text": text, "kind": "transcript"}, TODAY)
    assert answer_kind.holds(kind, {"text": text, "kind": "markdown"}, TODAY)  # a note's own lines are its text


@pytest.mark.parametrize("text", [
    "The mortgage rate is 4.25% fixed.", "Lunch cost €12.50.", "It cost $9.99 a month", "£4.99 a month",
    "Weighs 2.50 kg", "Ran 5.30 km on Sunday", "paid 12.50 EUR", "We rented it at 8 euros a day",
    "Cruising at 30 mph", "FTE 0.75 from March",
])
def test_an_amount_or_a_measure_is_no_time_of_day(text):
    """A decimal amount reads as "9.30" does; now that holding the kind keeps a passage × 1 against × 0.7, a note
    on a mortgage's rate answered "What time is the bank appointment?" as well as one with the appointment's time."""
    assert not answer_kind.CLOCK.held(text, TODAY)


@pytest.mark.parametrize("text", [
    "Meeting at 9.30 am", "Treffen 9.30 Uhr", "Call at 9.30", "at 10", "um 9.30 beim Bahnhof", "9.30-10.30 standup",
    "Pick-up 7.45, gate 12", "Abfahrt 0:30", "dinner at 8, €40 a head", "at 19:30 (€12.50 a ticket)",
])
def test_a_time_of_day_beside_an_amount_is_still_read(text):
    assert answer_kind.CLOCK.held(text, TODAY)


def test_a_question_asking_a_time_puts_the_note_holding_it_above_one_on_a_rate(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "rate.md").write_text(HEAD + "# Bank\n\nThe bank appointment: the mortgage rate offered is 4.25%.\n",
                                  encoding="utf-8")
    (root / "slot.md").write_text(HEAD + "# Bank\n\nBank appointment on Friday, 10:15, bring the payslips.\n",
                                  encoding="utf-8")
    runner.run(root, embedder_name="hash")
    s = Searcher(root)
    try:
        results = s.search("What time is the bank appointment?", min_score=0)["results"]
        assert {r["path"]: r["factors"]["asked"] for r in results} == {"slot.md": 1.0, "rate.md": answer_kind.LACKING}
    finally:
        s.close()
