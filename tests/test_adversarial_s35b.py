"""Adversarial pass s35b: a day named ahead (timeq.names_day_ahead), a line given once (budget.select),
'many' never missing, and a session not stale by its own edits' commit."""

from datetime import datetime, timezone

from tachikoma.when import timeq


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def test_since_a_month_or_day_is_no_question_about_what_is_coming():
    # "since January" asked on 5 December counts from the January gone: its window stays
    for query in ("Expenses since January", "since the 3rd of January", "since January 3"):
        assert not timeq.names_day_ahead(query, _at("2026-12-05T12:00"))
    assert not timeq.names_day_ahead("Everything since 2 January", _at("2026-12-28T12:00"))


def test_last_month_named_is_no_question_about_what_is_coming():
    assert not timeq.names_day_ahead("Notes from last January", _at("2026-12-05T12:00"))
    assert timeq.names_day_ahead("Notes for January", _at("2026-12-05T12:00"))


def test_29_february_of_this_leap_year_is_coming():
    # asked on 25 February 2028, 29 February is 4 days ahead, not the one of 2024
    assert timeq.names_day_ahead("What is on 29 Feb?", _at("2028-02-25T12:00"))
    assert not timeq.names_day_ahead("What is on 29 Feb?", _at("2027-02-25T12:00"))
    assert not timeq.names_day_ahead("What is on 29 Feb?", _at("2028-03-01T12:00"))


def test_a_code_blocks_blank_line_left_alone_is_no_passage():
    # three chunks of a note over one code block: the first two give lines 1-2 and 4-5; the third's only
    # line not given is the block's blank line 3, which came back as a passage of no text
    from tachikoma.replies import budget
    from tachikoma.replies.recall import note_units

    whole = ["```", "retry = 3", "", "backoff = 30", "```"]
    results, units = [], []
    for (first, last), score in (((1, 2), 0.9), ((4, 5), 0.85), ((1, 5), 0.8)):
        text = "\n".join(whole[first - 1:last])
        results.append({"path": "n.md", "lines": [first, last], "text": text, "score": score, "kind": "markdown",
                        "factors": {}, "tags": {}})
        units.append(note_units(text, first))
    out = budget.select(results, units, ["retry", "backoff"], 2000, falloff=0.0)
    assert [p.lines for p in out["passages"]] == [(1, 2), (4, 5)]
    assert all(p.text.strip() for p in out["passages"]) and out["left_out"]["overlap"] == 1


def test_many_capitalised_is_never_missing_either():
    # "How Many cats does Owen have?" keeps "Many" as a keyword (a capital after the first word may be a
    # name); it was 'not in this memory: Many' and lowered every match
    from tachikoma.search.keywords import nowhere_weight

    for many in ("Many", "MANY", "many"):
        assert nowhere_weight({many: 0, "cats": 1, "Owen": 1}, 20) == ([], 0.0)
    missing, weight = nowhere_weight({"Many": 0, "Pixel": 0, "cats": 1}, 20)
    assert missing == ["Pixel"] and weight > 0


def test_many_is_no_word_a_match_is_missing_when_deciding_no_good_match(tmp_path):
    # "How many cats?" held its one word in full, yet 'many', said nowhere, weighed most in the keyword
    # coverage: "no passage holds most of the query's words (best 42%)", no good match; "Which cats?" matched
    from tachikoma.indexer import runner
    from tachikoma.search.searcher import Searcher

    root = tmp_path / "memory"
    root.mkdir()
    (root / "owen.md").write_text("# Owen\n\nOwen has two cats named Pixel and Byte.\n")
    for i in range(20):
        (root / f"t{i}.md").write_text(f"# Topic {i}\n\nThe deploy of service{i} runs at noon with rollback plan{i}.\n")
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    which = searcher.search("Which cats?", min_score=0.5)
    many = searcher.search("How many cats?", min_score=0.5)
    assert which["match"]["answered_by"] == "keywords"
    assert many["match"]["answered_by"] == "keywords" and not many["no_good_match"]
    assert many["match"]["best_keyword_coverage"] == which["match"]["best_keyword_coverage"]


def test_a_malformed_session_line_does_not_break_the_search_that_checks_its_own_commits(tmp_path):
    # a tool result whose tool_use_id is a list, a MultiEdit whose edits are a number, a path with a NUL or a
    # lone surrogate, a timestamp past 9999 in UTC: each raised (TypeError, ValueError, UnicodeEncodeError,
    # OverflowError) out of staleness.mark, and with it the search of every face
    import json

    from test_staleness import commit, ops_repo, stale_sessions, tool_result, tool_use, write_session

    from tachikoma.indexer import runner
    from tachikoma.transcripts.edits import session_edits

    repo = ops_repo(tmp_path)
    root = tmp_path / "memory"
    deploy = str(repo / "scripts" / "deploy.sh")
    path = write_session(root, "2026-10-02-deploy.jsonl", repo, [
        ("2026-10-02T08:41:23Z", "user", "Make the deploy script fail on errors."),
        ("2026-10-02T08:42:32Z", "assistant", [tool_use("e1", "Edit", file_path=deploy, old_string="set -e\n",
                                                        new_string="set -eu\n")]),
        ("2026-10-02T08:42:40Z", "user", [tool_result("e1", "The file has been updated.")]),
        ("2026-10-02T08:46:22Z", "assistant", "The deploy script now fails on errors and unset variables."),
    ])
    odd = [{"type": "tool_result", "tool_use_id": ["e9"], "is_error": True},
           {"type": "tool_use", "id": {"x": 1}, "name": "Edit", "input": {"file_path": deploy, "old_string": "a",
                                                                          "new_string": "b"}},
           tool_use("e2", "MultiEdit", file_path=deploy, edits=5),
           tool_use("e3", "Write", file_path=str(repo / "scripts" / "a\u0000.sh"), content="x"),
           tool_use("e4", "Write", file_path=str(repo / "scripts" / "\ud800.sh"), content="x")]
    with path.open("a") as handle:
        for block in odd:
            handle.write(json.dumps({"type": "assistant", "timestamp": "2026-10-02T08:45:00Z", "cwd": str(repo),
                                     "message": {"role": "assistant", "content": [block]}}) + "\n")
        handle.write(json.dumps({"type": "assistant", "timestamp": "9999-12-31T23:00:00-05:00", "cwd": str(repo),
                                 "message": {"role": "assistant", "content": [tool_use("e5", "Write", file_path=deploy,
                                                                                       content="x")]}}) + "\n")
    assert [w.tool for w in session_edits(path)[deploy]] == ["Edit", "Edit", "MultiEdit"]
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -eu\nrestart\n"}, "2026-10-02T09:05:00+00:00")
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -eu\nmigrate\n"}, "2026-11-20T10:02:00+00:00")
    runner.run(root, embedder_name="hash")
    stale = stale_sessions(root)["sessions/2026-10-02-deploy.jsonl"]
    assert stale["text"] == "stale: scripts/deploy.sh changed in 1 commit since, last 2026-11-20"
