"""What agents did in tool calls is found by keyword, never embedded (issue 19, item 3).

Three sessions of my own, one per agent format, each holding an identifier
only inside a tool call: a Claude Code Edit's new text and a Bash output, a
Codex apply_patch body, an OpenClaw tool result. Each must rank its session
first, name the tool, the side and the file line, and never reach the embedder.
"""

import json
from pathlib import Path

import pytest

from tachikoma import chunking
from tachikoma.humanize import tool_match_text
from tachikoma.indexer import runner
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.search.searcher import Searcher
from tachikoma.store import STORE_ENV
from tachikoma.transcripts import parse_transcript

from counting_embedder import MINILM_WINDOW, CountingEmbedder

CLAUDE = "claude/-home-ana-shop/0b7d2e51-5c1a-4f7e-a1c3-9e4d8a6b2f10.jsonl"
CODEX = "codex/2026/03/04/rollout-2026-03-04T09-12-00-7f3e2a10-aaaa-4bbb-8ccc-1234567890ab.jsonl"
OPENCLAW = "openclaw/agents/main/sessions/5d0c9b7e-1f2a-4c3b-9d8e-7a6b5c4d3e2f.jsonl"


def _claude_lines() -> list[dict]:
    base = {"sessionId": "0b7d2e51-5c1a-4f7e-a1c3-9e4d8a6b2f10", "cwd": "/home/ana/shop", "gitBranch": "timers",
            "version": "2.1.3", "isSidechain": False, "userType": "external"}
    new_code = ("class InMemoryTimerStore(TimerStore):\n    \"\"\"Keeps timers in a dict, for tests.\"\"\"\n\n"
                "    def __init__(self):\n        self._timers = {}\n")
    return [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-03-02T10:00:00Z",
         "message": {"role": "user", "content": "The timer tests hit the real database. Give them a fake store."}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-03-02T10:00:05Z",
         "message": {"id": "msg_01", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
             {"type": "text", "text": "I'll add a store that keeps timers in memory."},
             {"type": "tool_use", "id": "toolu_edit", "name": "Edit", "input": {
                 "file_path": "/home/ana/shop/timers/store.py", "old_string": "# fakes go here\n",
                 "new_string": new_code}}]}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2026-03-02T10:00:06Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_edit",
              "content": "The file /home/ana/shop/timers/store.py has been updated."}]},
         "toolUseResult": {"filePath": "/home/ana/shop/timers/store.py", "newString": new_code}},
        {**base, "type": "assistant", "uuid": "a2", "timestamp": "2026-03-02T10:01:00Z",
         "message": {"id": "msg_02", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
             {"type": "tool_use", "id": "toolu_bash", "name": "Bash",
              "input": {"command": "pytest -q tests/test_timers.py", "description": "Run the timer tests"}}]}},
        {**base, "type": "user", "uuid": "u3", "timestamp": "2026-03-02T10:01:09Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_bash", "is_error": True, "content": [
                 {"type": "text", "text": "FAILED tests/test_timers.py::test_snooze - AttributeError: "
                                          "'FakeClock' object has no attribute 'advance_by'\n1 failed, 11 passed"}]}]}},
        {**base, "type": "assistant", "uuid": "a3", "timestamp": "2026-03-02T10:02:00Z",
         "message": {"id": "msg_03", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
             {"type": "text", "text": "One test still fails on the clock; the store itself works."}]}},
    ]


def _codex_lines() -> list[dict]:
    patch = ("*** Begin Patch\n*** Add File: review/registry.py\n+class ReviewSessionRegistry:\n"
             "+    \"\"\"Which review sessions are open, by reviewer.\"\"\"\n+    def __init__(self):\n"
             "+        self.open = {}\n*** End Patch\n")
    return [
        {"timestamp": "2026-03-04T09:12:00Z", "type": "session_meta",
         "payload": {"id": "7f3e2a10-aaaa-4bbb-8ccc-1234567890ab", "cwd": "/home/ana/shop",
                     "git": {"branch": "review"}}},
        {"timestamp": "2026-03-04T09:12:01Z", "type": "turn_context", "payload": {"cwd": "/home/ana/shop",
                                                                                 "model": "gpt-5-codex"}},
        {"timestamp": "2026-03-04T09:12:02Z", "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "Track which code reviews are still open."}]}},
        {"timestamp": "2026-03-04T09:12:30Z", "type": "response_item", "payload": {
            "type": "custom_tool_call", "status": "completed", "call_id": "call_patch", "name": "apply_patch",
            "input": patch}},
        {"timestamp": "2026-03-04T09:12:31Z", "type": "response_item", "payload": {
            "type": "custom_tool_call_output", "call_id": "call_patch",
            "output": json.dumps({"output": "Success. Updated the following files:\nA review/registry.py\n",
                                  "metadata": {"exit_code": 0}})}},
        {"timestamp": "2026-03-04T09:12:40Z", "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "Added a registry of open reviews."}]}},
    ]


def _openclaw_lines() -> list[dict]:
    return [
        {"type": "session", "version": 3, "id": "5d0c9b7e-1f2a-4c3b-9d8e-7a6b5c4d3e2f",
         "timestamp": "2026-03-05T08:00:00Z", "cwd": "/home/ana/.openclaw/workspace"},
        {"type": "message", "id": "m1", "parentId": None, "timestamp": "2026-03-05T08:00:01Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "Why does the paste helper fire twice?"}]}},
        {"type": "message", "id": "m2", "parentId": "m1", "timestamp": "2026-03-05T08:00:05Z",
         "message": {"role": "assistant", "model": "claude-opus-4", "content": [
             {"type": "toolCall", "id": "tc1", "name": "exec",
              "arguments": {"command": "grep -rn 'addListener' src/paste"}}]}},
        {"type": "message", "id": "m3", "parentId": "m2", "timestamp": "2026-03-05T08:00:06Z",
         "message": {"role": "toolResult", "toolCallId": "tc1", "toolName": "exec", "isError": False,
                     "content": [{"type": "text", "text": "src/paste/hooks.ts:14: window.addListener("
                                                          "OnClipboardChange, handler)\nsrc/paste/hooks.ts:31: "
                                                          "window.addListener(OnClipboardChange, handler)"}]}},
        {"type": "message", "id": "m4", "parentId": "m3", "timestamp": "2026-03-05T08:00:20Z",
         "message": {"role": "assistant", "model": "claude-opus-4", "content": [
             {"type": "text", "text": "The listener is registered twice in the hooks file; remove the second."}]}},
    ]


NOTE = """# Timers

The shop's timers are kept in Postgres. Snoozing a timer moves its deadline.
Reviews of the timer code happen on Fridays.
"""


def _write(root: Path, rel: str, lines: list[dict]) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def agents(tmp_path) -> Path:
    root = tmp_path / "memory"
    _write(root, CLAUDE, _claude_lines())
    _write(root, CODEX, _codex_lines())
    _write(root, OPENCLAW, _openclaw_lines())
    (root / "notes").mkdir()
    (root / "notes" / "timers.md").write_text(NOTE, encoding="utf-8")
    return root.resolve()


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, monkeypatch) -> str:
    """Each test of an indexed memory runs on both engines (a real PostgreSQL for the second)."""
    if request.param == "postgresql":
        pg = request.getfixturevalue("pg")
        monkeypatch.setenv(STORE_ENV, pg.url(pg.new_database()))
    return request.param


@pytest.fixture
def indexed(agents, engine):
    embedder = CountingEmbedder(MINILM_WINDOW)
    runner.run(agents, embedder=embedder)
    return agents, embedder


def _search(root: Path, query: str, **kwargs) -> dict:
    searcher = Searcher(root, embedder=HashingEmbedder(512))
    try:
        return searcher.search(query, **kwargs)
    finally:
        searcher.close()


@pytest.mark.parametrize("query, path, tool, side, line", [
    ("InMemoryTimerStore", CLAUDE, "Edit", "input", 2),           # only in an Edit's new text
    ("advance_by", CLAUDE, "Bash", "output", 5),                   # only in a tool's output
    ("ReviewSessionRegistry", CODEX, "apply_patch", "input", 4),   # only in an apply_patch body
    ("OnClipboardChange", OPENCLAW, "exec", "output", 4),          # only in an OpenClaw tool result
])
def test_an_identifier_only_in_a_tool_call_is_found_with_its_tool_side_and_line(indexed, engine, query, path, tool,
                                                                                side, line):
    root, _ = indexed
    # A floor no cosine reaches: the answer stands on keywords alone, and must not be "no good match".
    answer = _search(root, query, min_score=0.99)
    assert not answer["no_good_match"] and answer["match"]["answered_by"] == "keywords"
    first = answer["results"][0]
    assert ("memory" in first) == (engine == "postgresql")  # a shared store names the memory: this ran there
    assert first["path"] == path
    assert first["factors"]["keyword_in_tools"] == pytest.approx(1.0)
    evidence = first["tool_matches"][0]
    assert (evidence["tool"], evidence["side"], evidence["line"]) == (tool, side, line)
    assert query.lower() in evidence["excerpt"].lower()
    assert first["lines"][0] <= line or side == "output"  # the call's own turn is in the chunk


def test_tool_text_never_reaches_the_embedder_nor_a_chunk(indexed):
    root, embedder = indexed
    embedded = "\n".join(embedder.embedded)
    for identifier in ("InMemoryTimerStore", "advance_by", "ReviewSessionRegistry", "OnClipboardChange"):
        assert identifier not in embedded
    assert "[Edit timers/store.py]" in embedded and "[apply_patch review/registry.py]" in embedded


def test_prose_outranks_the_same_words_in_tool_text(indexed):
    root, _ = indexed
    # "timers" is in the note's own text and in the Claude session's tool texts and prose: the note's
    # words are its own, a tool text weighs half (ranking.TOOL_KEYWORD_WEIGHT).
    answer = _search(root, "Postgres snoozing", min_score=0)
    assert answer["results"][0]["path"] == "notes/timers.md"
    assert "keyword_in_tools" not in answer["results"][0]["factors"]


def test_a_word_in_no_text_nor_tool_text_is_still_no_good_match(indexed):
    root, _ = indexed
    answer = _search(root, "Zanzibar", min_score=0.99)
    assert answer["no_good_match"]


def test_reader_keeps_tool_texts_with_the_turn_that_made_the_call():
    text = "".join(json.dumps(line) + "\n" for line in _claude_lines())
    turns = parse_transcript(text, CLAUDE).turns
    edit_turn = next(t for t in turns if "[Edit timers/store.py]" in t.actions)
    assert [(t.tool, t.side, t.line) for t in edit_turn.tool_texts] == [("Edit", "input", 2), ("Edit", "output", 3)]
    assert "InMemoryTimerStore" in edit_turn.tool_texts[0].text
    assert "InMemoryTimerStore" not in edit_turn.body  # the embedded text keeps only the tool line
    # toolUseResult repeats the new text: it is not read a second time
    assert "InMemoryTimerStore" not in edit_turn.tool_texts[1].text


def test_keyword_words_keep_every_word_the_index_would_find_once():
    words = chunking.keyword_words("def f(x):\n    return InMemoryTimerStore(x) + InMemoryTimerStore(y)  # é_ok")
    assert words.split() == ["def", "f", "x", "return", "inmemorytimerstore", "y", "é", "ok"]
    assert chunking.keyword_words("a" * 65 + " b") == "b"  # encoded data is not a word


def _hostile_session(root: Path) -> None:
    """A Claude Code session whose Bash output holds markup next to a unique word."""
    lines = _claude_lines()[:3] + [
        {**{k: v for k, v in _claude_lines()[3].items()}, "message": {
            "id": "msg_09", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
                {"type": "tool_use", "id": "toolu_cat", "name": "Bash", "input": {"command": "cat page.html"}}]}},
        {**{k: v for k, v in _claude_lines()[4].items()}, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_cat",
             "content": "<script>alert('QuokkaBanner')</script><b>hi</b>"}]}},
    ]
    _write(root, "claude/-home-ana-web/9e8d7c6b-0000-4000-8000-000000000001.jsonl", lines)


def test_the_dashboard_shows_the_matching_tool_text_escaped(agents):
    from tachikoma_dashboard.app import create_app
    from web_helpers import build_index

    _hostile_session(agents)
    build_index(agents)
    app = create_app(memory=agents, port=5000)
    client = app.test_client()
    try:
        html = client.get("/?q=QuokkaBanner", base_url="http://127.0.0.1:5000").get_data(as_text=True)
        assert "In the output of Bash" in html
        assert "<script>" not in html and "&lt;script&gt;alert(" in html
        assert "<mark>QuokkaBanner</mark>" in html
        page = client.get("/file/claude/-home-ana-web/9e8d7c6b-0000-4000-8000-000000000001.jsonl?lines=4-5",
                          base_url="http://127.0.0.1:5000").get_data(as_text=True)
        assert "output of Bash, line 5" in page and "<script>" not in page
        assert "&lt;script&gt;alert(&#39;QuokkaBanner&#39;)&lt;/script&gt;" in page
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_the_command_line_says_the_match_was_in_a_tool_call(indexed, capsys):
    from tachikoma.cli import main

    root, _ = indexed
    assert main(["search", "--memory", str(root), "--embedder", "hash", "ReviewSessionRegistry"]) == 0
    out = capsys.readouterr().out
    assert "1. " in out and CODEX in out.split("\n")[0] + out.split("\n")[1]
    assert "keywords 100% from tool calls: the input of apply_patch (line 4): " in out
    assert "+class ReviewSessionRegistry:" in out


def test_two_calls_of_one_tool_on_one_line_are_one_place(tmp_path):
    """Two Edits in one message (one file line) both hold the word: the explanation said "the input of Edit
    (line 2), the input of Edit (line 2)". Each place is said once."""
    base = {"sessionId": "0b7d2e51-5c1a-4f7e-a1c3-9e4d8a6b2f11", "cwd": "/home/ana/shop", "isSidechain": False}

    def call(i, name, arguments):
        return {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": arguments}

    edits = [call(i, "Edit", {"file_path": f"/home/ana/shop/f{i}.py", "old_string": "x\n",
                              "new_string": f"QuokkaLedger = {i}\n"}) for i in (1, 2)]
    checks = [call(i, "Bash", {"command": command}) for i, command in ((3, "git status"), (4, "pytest -q"), (5, "ls"))]
    root = tmp_path / "memory"
    _write(root, "claude/s.jsonl", [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-03-02T10:00:00Z",
         "message": {"role": "user", "content": "Rename the ledger constant in both files."}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-03-02T10:00:05Z",
         "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Both."}, *edits]}},
        {**base, "type": "assistant", "uuid": "a2", "timestamp": "2026-03-02T10:00:09Z",
         "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Checking."}, *checks]}}])
    (root / "notes.md").write_text(NOTE, encoding="utf-8")
    runner.run(root, embedder=HashingEmbedder(512))
    first = _search(root, "QuokkaLedger", min_score=0.99)["results"][0]
    assert [(m["tool"], m["side"], m["line"]) for m in first["tool_matches"]] == [("Edit", "input", 2)]
    assert tool_match_text(first) == "keywords 100% from tool calls: the input of Edit (line 2)"


def test_tool_strength_adds_at_half_weight_and_says_its_share():
    import numpy as np

    from tachikoma.search.ranking import keyword_relevance_with_tools

    nan = np.nan
    own = np.array([-4.0, nan, -2.0, nan])
    tool = np.array([nan, -4.0, -2.0, nan])
    relevance, share = keyword_relevance_with_tools(own, tool, tool_weight=0.5)
    # strengths 4, 2, 2 + 1 = 3, 0: the chunk's own text outranks the same strength in tool text
    assert relevance.tolist() == [1.0, 0.5, 0.75, 0.0]
    assert share.tolist() == [0.0, 1.0, pytest.approx(1 / 3), 0.0]
    only_tools, _ = keyword_relevance_with_tools(np.full(2, nan), np.array([-3.0, -1.5]))
    assert only_tools.tolist() == [1.0, 0.5]  # tool texts alone: the best is 1 whatever their weight


def test_what_a_users_shell_command_printed_is_kept_for_keyword_search():
    base = {"type": "user", "sessionId": "s", "cwd": "/w", "isSidechain": False}
    lines = [{**base, "uuid": "1", "message": {"role": "user", "content": "<bash-input>ls dist</bash-input>"}},
             {**base, "uuid": "2", "message": {"role": "user", "content":
                                               "<bash-stdout>bundle-7f3a.js\nZephyrWidget.css</bash-stdout>"
                                               "<bash-stderr></bash-stderr>"}}]
    turns = parse_transcript("".join(json.dumps(x) + "\n" for x in lines), "s.jsonl").turns
    assert [t.actions for t in turns] == [["[! ls dist]"]]
    assert [(x.tool, x.side, x.line) for x in turns[0].tool_texts] == [("! shell", "output", 2)]
    assert "ZephyrWidget" in turns[0].tool_texts[0].text and "ZephyrWidget" not in turns[0].body


@pytest.mark.parametrize("share", [1.9e-07, 0.004])
def test_a_share_that_rounds_to_no_percent_says_nothing_of_tool_calls(share):
    """A result whose keywords came from tool calls by a sliver: no "keywords 0% from tool calls" line."""
    result = {"factors": {"keyword_in_tools": share},
              "tool_matches": [{"tool": "Bash", "side": "output", "line": 14}]}
    assert tool_match_text(result) is None
    result["factors"]["keyword_in_tools"] = 0.006  # 1% is said, as before
    assert tool_match_text(result) == "keywords 1% from tool calls: the output of Bash (line 14)"


def test_a_passage_within_a_budget_says_where_in_the_tool_calls_its_match_was(indexed, capsys):
    # MCP answers within a budget by default: a passage chosen for an identifier only written in a patch must
    # say so, as a whole result does, not only "close in meaning" (session 47, a new user's memory).
    from tachikoma.cli import main

    root, _ = indexed
    # 500: since a budget holds the JSON as sent, 300 cannot hold the fields of a shared store's reply and a passage
    assert main(["search", "--memory", str(root), "--embedder", "hash", "ReviewSessionRegistry", "--budget", "500",
                 "--json", "--in-process"]) == 0
    first = json.loads(capsys.readouterr().out)["budget"]["passages"][0]
    assert first["path"] == CODEX
    assert first["tools"].startswith("keywords 100% from tool calls: the input of apply_patch (line 4): ")
    assert "ReviewSessionRegistry" in first["tools"]
    assert main(["search", "--memory", str(root), "--embedder", "hash", "ReviewSessionRegistry", "--budget", "300",
                 "--in-process"]) == 0
    assert "(keywords 100% from tool calls: the input of apply_patch (line 4): " not in capsys.readouterr().out
