"""A question that names several things asks about each (`search.parts`): the things found in the question, each
searched on its own, and the answers put together; through the command line on a real index."""

import json

import pytest

from tachikoma.search.parts import merged, named

from test_cli import tachikoma


@pytest.mark.parametrize("question, things", [
    ("Which came first: Elena's talk in Vienna, the climbing refresher at Kosmos, or the Porto trip?",
     ["Elena's talk in Vienna", "the climbing refresher at Kosmos", "the Porto trip"]),
    ("put the dentist, moving day and Hana's birthday in date order", ["put the dentist", "moving day",
                                                                       "Hana's birthday"]),
    ("order these: the bike repair, Kyoto, the dentist", ["the bike repair", "Kyoto", "the dentist"]),
    ("what shipped first - procrastinate, 0042a or 0042b?", ["procrastinate", "0042a", "0042b"]),
    # titles that open with a preposition, a question word or hold "and" name things all the same
    ("Which came out first: Before Sunrise, Before Sunset or Before Midnight?",
     ["Before Sunrise", "Before Sunset", "Before Midnight"]),
    ("which did I watch first: When Harry Met Sally, Pride and Prejudice, or Do The Right Thing?",
     ["When Harry Met Sally", "Pride and Prejudice", "Do The Right Thing"]),
])
def test_the_things_a_question_names(question, things):
    assert named(question) == things


@pytest.mark.parametrize("question", [
    "What did Anna and Ben decide?",  # two names joined by "and": one question about both
    "Hi, what did we decide about the retry policy, again?",  # commas, but no list of things
    "Walk me through the boiler: when it broke, what the plumber said, and when it was fixed",  # a list of questions
    "Which event happened first, the meeting with Rachel or the pride parade?",  # two: each half of the question
    "How many kitchen items did I replace or fix?",
    "Who graduated first, second and third among Emma, Rachel and Alex?",  # commas inside one longer sentence
    "Which of a, b, c, d, e, f came first?",  # too many to be a list of things asked about
    "Was it this, that or the other?",  # words with nothing to look for
    "Hi, At Work, Kyoto",  # a greeting is no thing, title-cased or not
    "Frankly, At the office, the dentist, Kyoto",
])
def test_a_question_read_as_one(question):
    assert named(question) == []


def _answer(results, no_good_match=False, keywords=()):
    return {"query": "q", "keywords": list(keywords), "results": results, "no_good_match": no_good_match,
            "match": {"answered_by": None if no_good_match else "meaning"}}


def _result(path, score, chunk=0):
    return {"path": path, "chunk": chunk, "score": score, "lines": [1, 2]}


def test_each_things_best_memory_ranks_beside_the_questions_best():
    """Each answer's results by their score relative to its best: a thing's best memory is level with the
    question's best, whatever their raw scores."""
    whole = _answer([_result("a.md", 0.60), _result("b.md", 0.55), _result("c.md", 0.50), _result("d.md", 0.45)])
    porto = _answer([_result("porto.md", 0.30), _result("b.md", 0.20)], keywords=["porto"])
    kosmos = _answer([_result("kosmos.md", 0.40)], keywords=["kosmos"])
    out = merged(whole, ["the Porto trip", "Kosmos"], [porto, kosmos], limit=4)
    assert [r["path"] for r in out["results"]] == ["a.md", "porto.md", "kosmos.md", "b.md"]
    assert [r.get("found_for") for r in out["results"]] == [None, "the Porto trip", "Kosmos", None]
    assert out["named_parts"] == [{"part": "the Porto trip", "results": 1, "no_good_match": False},
                                  {"part": "Kosmos", "results": 1, "no_good_match": False}]
    assert out["keywords"] == ["porto", "kosmos"]


def test_a_thing_found_answers_a_question_that_had_no_good_match():
    whole = _answer([], no_good_match=True)
    out = merged(whole, ["the Porto trip", "the dentist"], [_answer([_result("porto.md", 0.5)]),
                                                           _answer([], no_good_match=True)], limit=5)
    assert not out["no_good_match"] and out["match"]["answered_by"] == "meaning"
    assert [r["path"] for r in out["results"]] == ["porto.md"]
    assert out["named_parts"][1] == {"part": "the dentist", "results": 0, "no_good_match": True}


def test_nothing_found_for_any_thing_leaves_the_answer_as_it_was():
    whole = _answer([], no_good_match=True)
    assert merged(whole, ["x", "y"], [_answer([], True), _answer([], True)], limit=5) is whole


def test_a_file_gives_two_passages_at_most():
    whole = _answer([_result("a.md", 0.6, 0), _result("a.md", 0.5, 1)])
    part = _answer([_result("a.md", 0.4, 2), _result("b.md", 0.3)])
    out = merged(whole, ["it"], [part], limit=5)
    assert [(r["path"], r["chunk"]) for r in out["results"]] == [("a.md", 0), ("a.md", 2), ("b.md", 0)]


NOTES = {
    "travel/vienna.md": "# Vienna conference\n\nElena gave her talk on soil microbes at the Vienna conference "
                        "on 14 March. The slides went down well.\n",
    "sport/climbing.md": "# Climbing\n\nBooked the refresher course at Kosmos bouldering gym for 2 May: two "
                         "evenings with Jonas.\n",
    "travel/porto.md": "# Porto\n\nFlights to Porto for the long weekend, 20 to 23 June. Stay near Ribeira.\n",
    "garden.md": "# Garden\n\nThe tomatoes need staking; the compost bin is full again.\n",
    "work/standup.md": "# Standup\n\nWe moved the release to Thursday. Nothing else to report.\n",
}


def test_a_question_naming_three_things_finds_each(tmp_path):
    for path, text in NOTES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert tachikoma("index", "--memory", str(tmp_path)).returncode == 0
    question = "Which came first: Elena's talk in Vienna, the climbing refresher at Kosmos, or the Porto trip?"
    out = json.loads(tachikoma("search", question, "--memory", str(tmp_path), "--json", "--limit", "4").stdout)
    assert not out["no_good_match"]
    assert {"travel/vienna.md", "sport/climbing.md", "travel/porto.md"} <= {r["path"] for r in out["results"][:4]}
    assert [p["part"] for p in out["named_parts"]] == ["Elena's talk in Vienna", "the climbing refresher at Kosmos",
                                                       "the Porto trip"]
    said = tachikoma("search", question, "--memory", str(tmp_path), "--limit", "4").stdout
    assert ("a question that names several things: each searched on its own too, its best ranked beside the "
            "question's own: “Elena's talk in Vienna” (1 result)") in said
    assert "to “the Porto trip”, one of the things the question names, searched on its own" in said
    # Cut to a budget, the reply gives passages, not results: its note counts none (it said "(1 result)" beside
    # however many passages fitted); in JSON each passage says what it was found for.
    cut = tachikoma("search", question, "--memory", str(tmp_path), "--budget", "400").stdout
    assert "question's own: “Elena's talk in Vienna”, “the climbing refresher at Kosmos”, “the Porto trip”\n" in cut
    passages = json.loads(tachikoma("search", question, "--memory", str(tmp_path), "--budget", "1000",
                                    "--json").stdout)["budget"]["passages"]
    assert any(p["why"].startswith("found for “the Porto trip”") for p in passages)
    off = tmp_path / "off.toml"
    off.write_text("[search]\nnamed_parts = false\n", encoding="utf-8")
    asked_as_one = json.loads(tachikoma("search", question, "--memory", str(tmp_path), "--json", "--limit", "4",
                                         "--config", str(off)).stdout)
    assert asked_as_one["no_good_match"] and "named_parts" not in asked_as_one  # read as one: a third of each


def test_a_things_passage_falls_off_against_its_own_best_within_a_budget():
    """A budget's falloff (a result under half the best score gives no passage) measures a result found for a
    thing against that thing's best, not the question's: its scores are its own search's."""
    from tachikoma.replies import budget

    def found(path, score, part=None):
        return {**_result(path, score), "kind": "markdown", "text": f"retry notes in {path}", "factors": {},
                **({"found_for": part} if part else {})}

    results = [found("a.md", 0.60), found("porto.md", 0.20, "the Porto trip"), found("b.md", 0.10),
               found("c.md", 0.08, "the Porto trip")]
    units = [[budget.Unit(1, 2, r["text"])] for r in results]
    out = budget.select(results, units, ["retry"], 2000)
    assert [p.path for p in out["passages"]] == ["a.md", "porto.md"]
    assert out["left_out"]["below_falloff"] == 2
    assert "found for “the Porto trip”" in out["passages"][1].why


def test_the_answers_evidence_is_the_best_of_its_searches():
    """As several memories' answers give it: the best meaning and keyword coverage any search found, so an answer
    a thing's search gave does not show the question's own weaker evidence beside it."""
    whole = _answer([], no_good_match=True)
    whole["match"].update(best_vector_similarity=0.31, best_keyword_coverage=0.4)
    thing = _answer([_result("porto.md", 0.5)])
    thing["match"].update(best_vector_similarity=0.58, best_keyword_coverage=0.25)
    out = merged(whole, ["a", "b", "c"], [thing, _answer([], True), _answer([], True)], limit=5)
    assert out["match"]["best_vector_similarity"] == 0.58 and out["match"]["best_keyword_coverage"] == 0.4


def test_a_budgeted_reply_counts_the_passages_it_holds_for_each_thing():
    """Cut to a token budget, ``named_parts`` counts the passages the reply holds for each thing, not the results
    the search found: a thing's result under its falloff, or one the budget had no room for, gives no passage (the
    JSON said "the Porto trip": 2 beside one passage found for it)."""
    from tachikoma.replies import reply
    from tachikoma.replies.recall import within_budget

    def found(path, score, part=None, words=8):
        return {**_result(path, score), "kind": "markdown", "factors": {}, "tags": {},
                "text": f"Porto and Kosmos notes in {path}. " + "More about the long weekend away. " * words,
                **({"found_for": part} if part else {})}

    results = [found("a.md", 0.60), found("kosmos.md", 0.40, "Kosmos"), found("porto.md", 0.30, "the Porto trip"),
               found("porto-old.md", 0.05, "the Porto trip")]  # under half its own search's best: no passage
    searched = [{"part": "the Porto trip", "results": 2, "no_good_match": False},
                {"part": "Kosmos", "results": 1, "no_good_match": False},
                {"part": "the dentist", "results": 0, "no_good_match": True}]
    fresh = {"state": "complete", "last_indexed_at": "2026-12-05T10:00:00+00:00", "changed_since": 0}
    asked = {"query": "Which came first: the Porto trip, Kosmos or the dentist?", "keywords": ["porto", "kosmos"],
             "no_good_match": False, "results": results, "freshness": fresh, "named_parts": searched}

    def counts(named):
        return {p["part"]: p["results"] for p in named}

    for form in ("block", "json", "mcp"):
        got = within_budget(asked, 2000, None, form=form)
        assert [p["path"] for p in got["budget"]["passages"]] == ["a.md", "kosmos.md", "porto.md"], form
        assert counts(got["named_parts"]) == {"the Porto trip": 1, "Kosmos": 1, "the dentist": 0}, form
        assert got["named_parts"][2]["no_good_match"]  # what the thing's own search found stays said
        assert counts(reply.for_agent(got)["named_parts"]) == counts(got["named_parts"])
    assert counts(asked["named_parts"]) == {"the Porto trip": 2, "Kosmos": 1, "the dentist": 0}  # not changed in place
    # A budget with room for the first passage alone: neither thing has a passage in the reply.
    tight = within_budget({**asked, "results": [{**r, "text": r["text"] * 4} for r in results]}, 320, None,
                          form="json")
    assert [p["path"] for p in tight["budget"]["passages"]] == ["a.md"]
    assert counts(reply.as_json(tight)["named_parts"]) == {"the Porto trip": 0, "Kosmos": 0, "the dentist": 0}
