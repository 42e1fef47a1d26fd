"""Session 48: inputs a demanding user writes, against real files, a real SQLite index and real processes.

A tool's output that comes before any turn of a session (a session resumed from another file, a file cut mid-call),
in every agent format, and the count of secrets redacted on every face that indexes.
"""

from __future__ import annotations

import json
import shutil

import pytest

from gitrepo import CHECKOUT, tachikoma_cli

#: Real sessions of every format (tests/data), beside which a word is rare enough for keywords to count it.
SESSIONS = CHECKOUT / "tests" / "data" / "sessions"

#: A word no other line of the sessions holds: found only if the early tool output is kept.
ANSWER = "ops/zebrafish-vault"
OUTPUT = f"deploy token stored under {ANSWER} (rotated monthly)"
THEN = "thanks, carry on with the deploy"

# --------------------------------------------------------------------------- 1. a tool's output before any turn

#: Each format's session opening on a tool's output, then a user turn: (file, lines).
EARLY_OUTPUT = {
    "claude-code": ("claude/-home-mira-code-shop/3f2a9c1d-0000-4000-8000-000000000001.jsonl", [
        {"type": "permission-mode", "permissionMode": "default", "sessionId": "3f2a9c1d-0000-4000-8000-000000000001"},
        {"type": "user", "uuid": "u-1", "parentUuid": None, "sessionId": "3f2a9c1d-0000-4000-8000-000000000001",
         "cwd": "/home/mira/code/shop", "timestamp": "2026-06-02T09:00:00.000Z", "isSidechain": False,
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A",
                                                  "content": [{"type": "text", "text": OUTPUT}]}]}},
        {"type": "user", "uuid": "u-2", "parentUuid": "u-1", "sessionId": "3f2a9c1d-0000-4000-8000-000000000001",
         "cwd": "/home/mira/code/shop", "timestamp": "2026-06-02T09:00:05.000Z", "isSidechain": False,
         "message": {"role": "user", "content": THEN}},
    ]),
    "openclaw": ("openclaw/agents/main/sessions/5b1e0c2d-0000-4000-8000-000000000002.jsonl", [
        {"type": "session", "version": 3, "id": "5b1e0c2d-0000-4000-8000-000000000002", "cwd": "/home/mira",
         "timestamp": "2026-06-02T09:00:00.000Z"},
        {"type": "message", "id": "m1", "parentId": None, "timestamp": "2026-06-02T09:00:01.000Z",
         "message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "exec",
                     "content": [{"type": "text", "text": OUTPUT}], "isError": False}},
        {"type": "message", "id": "m2", "parentId": "m1", "timestamp": "2026-06-02T09:00:05.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": THEN}]}},
    ]),
    "codex": ("codex/sessions/2026/06/02/rollout-2026-06-02T09-00-00-7c0d1e2f-0000-4000-8000-000000000003.jsonl", [
        {"timestamp": "2026-06-02T09:00:00.000Z", "type": "session_meta",
         "payload": {"id": "7c0d1e2f-0000-4000-8000-000000000003", "cwd": "/home/mira/code/shop"}},
        {"timestamp": "2026-06-02T09:00:01.000Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "call_1",
                     "output": json.dumps({"output": OUTPUT, "metadata": {"exit_code": 0}})}},
        {"timestamp": "2026-06-02T09:00:05.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": THEN}]}},
    ]),
    "codex-legacy": ("codex/sessions/rollout-2025-05-07-8d1e2f3a-0000-4000-8000-000000000004.jsonl", [
        {"id": "8d1e2f3a-0000-4000-8000-000000000004", "timestamp": "2025-05-07T09:00:00.000Z", "instructions": ""},
        {"type": "function_call_output", "call_id": "call_1",
         "output": json.dumps({"output": OUTPUT, "metadata": {"exit_code": 0}})},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": THEN}]},
    ]),
    "generic": ("chats/2026-06-02-deploy.jsonl", [
        {"role": "tool", "name": "lookup", "content": OUTPUT},
        {"role": "user", "content": THEN},
    ]),
}


def output_line(lines: list[dict]) -> int:
    """The file line of the tool's output."""
    return next(number for number, line in enumerate(lines, 1) if ANSWER in json.dumps(line))


def jsonl(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("name", sorted(EARLY_OUTPUT))
def test_a_tool_output_before_any_turn_is_kept_with_the_first_turn(name):
    """The output was given to the last turn, of which there was none: it was left out without a word, and a
    search for what it held found nothing."""
    from tachikoma.transcripts import parse_transcript

    path, lines = EARLY_OUTPUT[name]
    result = parse_transcript(jsonl(lines), path)
    assert result.format == name and result.warnings == []
    assert [t.text for t in result.turns] == [THEN]
    assert [(t.side, t.line, t.text) for t in result.turns[0].tool_texts] == [("output", output_line(lines), OUTPUT)]


@pytest.mark.parametrize("name", sorted(EARLY_OUTPUT))
def test_a_tool_output_with_no_turn_to_keep_it_is_counted(name):
    """A file holding a tool's output and no turn: nothing to keep it with, and it is said."""
    from tachikoma.transcripts import parse_transcript, problem_kind

    path, lines = EARLY_OUTPUT[name]
    number = output_line(lines)
    result = parse_transcript(jsonl(lines[:number]), path)
    assert result.turns == []
    assert result.warnings[0] == f"{path}:{number}: 1 line of an unknown kind skipped (tool output before any turn ×1)"
    assert problem_kind(result.warnings[0]) == "unknown-lines"


@pytest.mark.parametrize("content", ["", [], "   ", [{"type": "text", "text": ""}]])
def test_a_claude_code_user_message_without_text_is_counted(content):
    """A user line holding nothing (no text, tool result, image or command): counted, as a chat's is, not dropped
    without a word; the turns around it are read."""
    from tachikoma.transcripts import parse_transcript, problem_kind

    session = "3f2a9c1d-0000-4000-8000-000000000002"
    lines = [{"type": "user", "uuid": "u-1", "sessionId": session, "timestamp": "2026-03-02T09:00:00Z",
              "message": {"role": "user", "content": "what did we ship?"}},
             {"type": "user", "uuid": "u-2", "sessionId": session, "timestamp": "2026-03-02T09:00:05Z",
              "message": {"role": "user", "content": content}},
             {"type": "assistant", "uuid": "a-1", "sessionId": session, "timestamp": "2026-03-02T09:00:09Z",
              "message": {"role": "assistant", "content": [{"type": "text", "text": "the billing fix"}]}}]
    result = parse_transcript(jsonl(lines), f"claude/-home-mira/{session}.jsonl")
    assert [t.text for t in result.turns] == ["what did we ship?", "the billing fix"]
    assert result.warnings == [f"claude/-home-mira/{session}.jsonl:2: 1 line of an unknown kind skipped "
                               "(user message without text ×1)"]
    assert problem_kind(result.warnings[0]) == "unknown-lines"


def test_a_codex_session_read_from_its_events_keeps_an_early_output_too():
    """A rollout with no response_item message is read from its events (user_message, agent_message): the tool
    output read before its first turn goes with that reading's first turn."""
    from tachikoma.transcripts import parse_transcript

    path, lines = EARLY_OUTPUT["codex"]
    events = lines[:2] + [{"timestamp": "2026-06-02T09:00:05.000Z", "type": "event_msg",
                           "payload": {"type": "user_message", "message": THEN}}]
    result = parse_transcript(jsonl(events), path)
    assert result.warnings == [] and [t.text for t in result.turns] == [THEN]
    assert [(t.line, t.text) for t in result.turns[0].tool_texts] == [(2, OUTPUT)]


def test_tool_text_off_keeps_no_early_output_and_counts_none():
    """`[transcripts] tool_text = false` keeps no tool output anywhere: one before any turn is no exception."""
    from tachikoma.transcripts import Options, parse_transcript

    path, lines = EARLY_OUTPUT["claude-code"]
    result = parse_transcript(jsonl(lines), path, Options(tool_text=False))
    assert result.warnings == [] and [t.tool_texts for t in result.turns] == [[]]


def test_a_search_finds_what_a_tool_gave_back_before_any_turn(tmp_path):
    """Through `tachikoma index` and `search --json`: each agent's session is found by the word only its early
    tool output holds, with that output's line and an excerpt read back from the file."""
    root = tmp_path / "memory"
    shutil.copytree(SESSIONS, root, ignore=shutil.ignore_patterns("not-a-transcript"))
    for path, lines in EARLY_OUTPUT.values():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(jsonl(lines), encoding="utf-8")
    done = tachikoma_cli(root, "index", "--embedder", "hash", "--json")
    summary = json.loads(done.stdout)
    ours = [w for w in summary["warnings"] if any(w.startswith(path) for path, _ in EARLY_OUTPUT.values())]
    assert done.returncode == 0 and ours == [], summary
    found = tachikoma_cli(root, "search", "zebrafish vault", "--json", "--limit", "10", "--min-score", "0")
    results = json.loads(found.stdout)["results"]
    by_path = {r["path"]: r for r in results}
    assert set(by_path) == {path for path, _ in EARLY_OUTPUT.values()}, [r["path"] for r in results]
    lines_of = dict(EARLY_OUTPUT.values())
    for path, result in by_path.items():
        [match] = result["tool_matches"]
        assert (match["side"], match["line"]) == ("output", output_line(lines_of[path])), (path, match)
        assert ANSWER in match["excerpt"], (path, match)


# --------------------------------------------------------------------------- 2. secrets redacted, on every face

#: What `tachikoma index` says of the secret memory (tests/secret_memory.py): every face that indexes says it so.
SAID = "10 secrets redacted in 2 files (shown as [secret: …]; [privacy] redact_secrets, docs/privacy.md)"
#: The same once a note holding one more key is remembered.
SAID_AFTER_REMEMBER = SAID.replace("10 secrets redacted in 2 files", "11 secrets redacted in 3 files")


@pytest.fixture
def secrets_mem(tmp_path):
    from secret_memory import secret_memory

    return secret_memory(tmp_path / "memory")


def note_with_a_key() -> str:
    from secret_memory import SECRETS

    return f"The CI bot's token, until the vault has it: GITHUB_TOKEN={SECRETS['github']}"


def test_index_and_stats_say_the_count_in_the_same_words(secrets_mem):
    """`stats` said "(docs/privacy.md)" where `index` said "(shown as [secret: …]; [privacy] redact_secrets, …)"."""
    done = tachikoma_cli(secrets_mem, "index")
    assert done.returncode == 0 and SAID in done.stdout, done.stdout
    assert f"index: {SAID}" in tachikoma_cli(secrets_mem, "stats").stdout
    summary = json.loads(tachikoma_cli(secrets_mem, "index", "--json").stdout)
    # in the same shape as `stats --json` and `index --watch --json` (it was "secrets" and "secret_files" here)
    assert summary["secrets_redacted"] == {"secrets": 10, "files": 2} and "secret_files" not in summary


def test_the_watcher_says_the_count_after_each_run(secrets_mem, capsys):
    """`index --watch` printed each watched run's line (and its JSON) without the count `index` gives."""
    from tachikoma.cli.indexing import watch_report
    from tachikoma.live import LiveMemory

    for as_json in (False, True):
        live = LiveMemory(secrets_mem, report=watch_report(as_json))
        try:
            (secrets_mem / "notes" / f"more-{as_json}.md").write_text("# More\n\nRye bread is on the list.\n")
            live.reindex({str(secrets_mem / "notes" / f"more-{as_json}.md")})
        finally:
            live.close()
        printed = capsys.readouterr().out
        if as_json:
            run = json.loads(printed)
            assert run["state"] == "done" and run["line"].endswith(f"; {SAID}"), run
            assert run["secrets_redacted"] == {"secrets": 10, "files": 2}
        else:
            assert printed.rstrip("\n").endswith(f"; {SAID}"), printed


def test_the_dashboards_index_panel_says_the_count(secrets_mem):
    """The panel's facts (what the index holds) and the summary of a run made from the page."""
    from tachikoma_dashboard.app import create_app
    from test_app import HTMX
    from test_app import make_client as client_for

    assert tachikoma_cli(secrets_mem, "index").returncode == 0
    app = create_app(memory=secrets_mem, port=5000)
    try:
        client = client_for(app)
        page = client.get("/reindex").get_data(as_text=True)
        assert f"<span class=\"muted\" data-secrets>{SAID}</span>" in page, page
        marker = 'name="csrf-token" content="'
        token = page[page.index(marker) + len(marker):]
        token = token[:token.index('"')]
        (secrets_mem / "notes" / "more.md").write_text("# More\n\nRye bread is on the list.\n")
        assert client.post("/reindex", headers={**HTMX, "X-CSRFToken": token}).status_code == 202
        assert app.extensions["tachikoma"].index_job.wait(60)["state"] == "done"
        done = client.get("/reindex/status", headers=HTMX).get_data(as_text=True)
        assert f"; {SAID}</p>" in done, done
        coverage = client.get("/coverage").get_data(as_text=True)
        assert f"data-secrets>{SAID}</span>" in coverage
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_mcp_remember_and_stats_say_the_count(secrets_mem):
    """MCP `remember` indexed the note and said "searchable now" only; `stats` carried the count in its structured
    content but not in its text. (Session 49: `remember` says the note's own secrets, `index` the index's.)"""
    from mcp_helpers import run_tools

    assert tachikoma_cli(secrets_mem, "index").returncode == 0
    (error, text, done), (stats_error, stats_text, _) = run_tools(
        secrets_mem, ("remember", {"text": note_with_a_key(), "title": "CI token"}), ("stats", {}))
    assert not error and done["indexed"] and done["secrets_redacted"] == {"secrets": 1, "files": 1}, done
    assert text.endswith("; searchable now; 1 secret redacted in the note (shown as [secret: …]; [privacy] "
                         "redact_secrets, docs/privacy.md)"), text
    assert done["index"].endswith(f"; {SAID_AFTER_REMEMBER}")
    assert not stats_error and f" {SAID_AFTER_REMEMBER}." in stats_text, stats_text


def test_the_command_line_remember_says_the_count(secrets_mem):
    """(Session 49: the note's own secrets, not the index's.)"""
    done = tachikoma_cli(secrets_mem, "remember", note_with_a_key(), "--title", "CI token")
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == SAID.replace(
        "10 secrets redacted in 2 files", "1 secret redacted in the note"), done.stdout
    again = tachikoma_cli(secrets_mem, "remember", "the printer is on floor 3", "--title", "Printer", "--json")
    assert json.loads(again.stdout)["secrets_redacted"] == {"secrets": 0, "files": 0}
