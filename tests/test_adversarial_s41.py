"""Adversarial inputs for the weight a question asking for a kind of thing puts on its best passages
(`answer_kind.weigh`, session 41): questions wrongly read as asking a time of day, and passages wrongly read as
holding the kind asked, each of which now moves a ranking, not only "no good match"."""

from datetime import date

import pytest

from tachikoma import answer_kind
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
