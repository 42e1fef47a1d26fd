"""The transcript readers, on fixtures written for this project in each agent's format
(tests/data/sessions: every line kind of Claude Code, OpenClaw, Codex and the generic shapes)."""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tachikoma.chunking import chunk_document
from tachikoma.reading.documents import TRANSCRIPT, Document
from tachikoma.transcripts import (Options, default_source, parse_timestamp, parse_transcript, problem_kind,
                                   sniff_format)

DATA = Path(__file__).parent / "data" / "sessions"
CLAUDE = "claude-code/-home-mira-code-tachikoma/5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218.jsonl"
CLAUDE_SUBAGENT = "claude-code/-home-mira-code-tachikoma/5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218/subagents/agent-a7f3c21.jsonl"
CLAUDE_INLINE = "claude-code/-Users-ken-shop/0b9d2e61-7c3a-4e55-8f10-c2d4e6f80a13.jsonl"
OPENCLAW = "openclaw/agents/main/sessions/8e2f4c6a-1d3b-4a5c-9e7f-0b2d4f6a8c1e.jsonl"
CODEX = "codex/sessions/2026/01/15/rollout-2026-01-15T10-20-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"
CODEX_LEGACY = "codex/sessions/rollout-2025-05-07-2f6e1c3a-8b7d-4e59-a0c1-d2e3f4a5b6c7.jsonl"
UTC = timezone.utc
#: Words each fixture holds only in what must never reach the embedder.
HIDDEN = ("SECRET", "TOOL-OUTPUT", "TOOL-INPUT", "HOOK-NOISE", "ENV-NOISE", "AGENTS-NOISE", "DEV-NOISE",
          "INSTRUCTIONS-NOISE", "BASH-OUTPUT", "iVBORw0", "gAAAA", "Caveat", "Set model to")


def parse(rel: str, options: Options | None = None):
    return parse_transcript((DATA / rel).read_text(encoding="utf-8"), rel, options)


def spoken(result) -> list[tuple[str, str]]:
    return [(t.speaker, t.body) for t in result.turns]


def embedded(result) -> str:
    doc = Document(path="x.jsonl", kind=TRANSCRIPT, turns=result.turns)
    return "\n".join(c.text for c in chunk_document(doc, 80))


def jsonl(*objects) -> str:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objects) + "\n"


@pytest.mark.parametrize("rel", [CLAUDE, CLAUDE_SUBAGENT, CLAUDE_INLINE, OPENCLAW, CODEX, CODEX_LEGACY,
                                 "generic/chat.jsonl", "generic/dialogue.jsonl"])
def test_no_tool_output_thinking_image_or_injected_text_reaches_the_embedder(rel):
    result = parse(rel)
    assert result.turns
    text = embedded(result)
    for hidden in HIDDEN:
        assert hidden not in text, (hidden, rel)
    assert all(t.timestamp is None or t.timestamp.tzinfo is UTC for t in result.turns)


def test_claude_code_session():
    result = parse(CLAUDE)
    assert result.format == "claude-code"
    assert spoken(result) == [
        ("summary", "Ranking explanations for transcript hits"),
        ("user", "[/init]"),
        ("user", "[/model opus]"),
        ("user", "Why does the search page rank the old rate-limiter note above yesterday's session?"),
        ("assistant", "Let me look at how recency is computed.\n[Read tachikoma/ranking.py]\n"
                      "[Grep \"half_life\" in tachikoma]"),
        ("assistant", "The session has no date, so it falls back to the file's mtime. I'll fix the transcript date "
                      "and run the tests.\n[Edit tachikoma/search.py]\n[Bash: pytest -q tests/test_search.py] failed"),
        ("user", "Here's the failing page\n[image]"),
        ("assistant", "I'll ask an explorer to find every place that reads transcript dates.\n"
                      "[Task Explore: Find transcript date readers]"),
        ("summary", "This session is being continued from a previous conversation that ran out of context. The "
                    "conversation is summarized below:\nAnalysis: the user asked why old notes outrank new sessions; "
                    "recency for transcripts used the file mtime."),
        ("user", "[! git log --oneline -3]"),
        ("user", "Good. Rebase onto main and push."),
        ("assistant", "[Bash: git rebase -i main]"),
        ("assistant", "Rebased onto main; the branch is ready to push."),
    ]
    # One turn per message: the four lines of reply msg_01A are one turn with their line range.
    reply = result.turns[4]
    assert (reply.line, reply.last_line) == (9, 11)
    assert reply.timestamp == datetime(2026, 2, 10, 9, 1, 5, tzinfo=UTC)
    assert result.turns[8].role == "summary"
    assert result.session == {"session": "5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218", "cwd": "/home/mira/code/tachikoma",
                              "branch": "sessions-rebase", "version": "2.0.31", "model": "claude-sonnet-4-5-20250929"}
    assert result.turns[3].context == ("Claude Code session 5c1e7a90 · ~/code/tachikoma · branch sessions")
    assert result.turns[-1].context.endswith("branch sessions-rebase · claude-sonnet-4-5-20250929")
    assert [problem_kind(w) for w in result.warnings] == ["unknown-lines"]
    assert result.warnings == [f"{CLAUDE}:30: 1 line of an unknown kind skipped (x-future-record ×1)"]


def test_claude_code_failing_tool_excerpt_is_optional():
    plain = parse(CLAUDE).turns[5].actions[-1]
    with_errors = parse(CLAUDE, Options(tool_errors=True)).turns[5].actions[-1]
    assert plain == "[Bash: pytest -q tests/test_search.py] failed"
    assert with_errors == ("[Bash: pytest -q tests/test_search.py] failed: FAILED tests/test_search.py::test_recency "
                           "- AssertionError: 0.5 != 0.9")


def test_claude_code_subagent_file_is_its_own_document_linked_to_its_parent():
    result = parse(CLAUDE_SUBAGENT)
    assert spoken(result) == [
        ("assistant → subagent", "List every function that reads a transcript turn's timestamp."),
        ("subagent", '[Grep "timestamp" in *.py]'),
        ("subagent", "Two readers use it: chunking.date_context and reader.parse_date."),
    ]
    assert {t.role for t in result.turns} == {"subagent"}
    assert result.session["parent"] == CLAUDE
    assert result.session["subagent"] == "a7f3c21"
    assert embedded(result).startswith("Claude Code subagent a7f3c21 of session 5c1e7a90 · ~/code/tachikoma · "
                                       "branch sessions · claude-haiku-4-5-20251001\n[2026-02-10,")


def test_claude_code_subagent_file_beside_its_session_links_it_too():
    text = (DATA / CLAUDE_SUBAGENT).read_text(encoding="utf-8")
    result = parse_transcript(text, "claude-code/-home-mira-code-tachikoma/agent-a7f3c21.jsonl")
    assert result.session["parent"] == "claude-code/-home-mira-code-tachikoma/5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218.jsonl"
    main = parse_transcript((DATA / CLAUDE).read_text(encoding="utf-8"), "p/agent-notes.jsonl")
    assert "parent" not in main.session  # a main session that happens to be called agent-*.jsonl


def test_claude_code_inline_parallel_subagents_are_named_and_never_share_a_chunk():
    result = parse(CLAUDE_INLINE)
    assert spoken(result)[2:6] == [
        ("assistant → subagent checkout-auditor", "Audit the checkout flow for double charges."),
        ("assistant → subagent refund-auditor", "Audit the refund flow for missing ledger entries."),
        ("subagent checkout-auditor", "Checkout retries the charge on timeout without an idempotency key."),
        ("subagent refund-auditor", "Refunds skip the ledger when the gateway answers 202."),
    ]
    doc = Document(path="x.jsonl", kind=TRANSCRIPT, turns=result.turns)
    chunks = chunk_document(doc, 80)
    assert len(chunks) == 3
    for chunk in chunks:
        assert not ("checkout-auditor" in chunk.text and "refund-auditor" in chunk.text and
                    "subagent refund" in chunk.text and "subagent checkout" in chunk.text)
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 8), (3, 5), (4, 6)]


def test_openclaw_session():
    result = parse(OPENCLAW)
    assert result.format == "openclaw"
    assert spoken(result) == [
        ("user", "[Fri 2026-02-06 08:49 CET] Remind me what we decided about the greenhouse heater."),
        ("assistant", "Let me check your notes.\n[memory_search: greenhouse heater decision]\n"
                      "[read memory/2026-01-30.md] failed"),
        ("assistant", "On 30 January you chose the 2 kW oil-filled heater on a thermostat set to 7 °C."),
        ("user", "[! df -h /home]"),
        ("summary", "Mira asked about the greenhouse heater; the decision (2 kW oil-filled, 7 °C thermostat) was "
                    "found in the notes of 30 January."),
        ("user", "Order the thermostat then.\n[image]"),
        ("assistant", "[exec: shop-cli order --sku THERMO-7 --qty 1]"),
        ("assistant", "Ordered: order 5521, arriving Monday."),
        ("summary", "An abandoned branch compared three thermostat shops."),
    ]
    assert result.turns[0].timestamp == datetime(2026, 2, 6, 7, 49, 3, 491000, tzinfo=UTC)
    assert result.turns[0].context == "OpenClaw session 8e2f4c6a · ~/.openclaw/workspace · claude-sonnet-4-5"
    assert result.turns[-2].context.endswith("gpt-5.2")  # the model_change after the compaction
    assert [problem_kind(w) for w in result.warnings] == ["unknown-lines"]
    assert "session_snapshot_v9 ×1" in result.warnings[0]


def test_codex_rollout():
    result = parse(CODEX)
    assert result.format == "codex"
    assert spoken(result) == [
        ("user", "Invoices round 0.005 down. Fix rounding to banker's rounding and run the tests."),
        ("assistant", "Rounding now uses banker's rounding (quantize with ROUND_HALF_EVEN); all 3 tests pass.\n"
                      '[shell: rg -n "round\\(" src]\n[apply_patch src/money.py]\n'
                      "[shell_command: pytest -q] failed\n[shell_command: pytest -q]"),
        ("summary", "The user asked to fix invoice rounding; money.py now rounds half to even and the tests pass."),
        ("user", "Search for the tax rule too."),
        ("assistant", "EU VAT may be rounded per line or per invoice; the ledger rounds per line.\n"
                      "[web_search: EU VAT rounding rule per line or per invoice]"),
    ]
    assert (result.turns[1].line, result.turns[1].last_line) == (11, 19)
    assert result.turns[0].context == "Codex session 019a2d7a · ~/code/ledger · branch fix-rounding"
    assert result.turns[1].context.endswith("· gpt-5.1-codex")
    assert result.turns[1].timestamp == datetime(2026, 1, 15, 10, 20, 8, tzinfo=UTC)
    with_errors = parse(CODEX, Options(tool_errors=True)).turns[1].actions[2]
    assert with_errors == "[shell_command: pytest -q] failed: E NameError: name 'quantize_half_even' is not defined"
    assert [problem_kind(w) for w in result.warnings] == ["unknown-lines"]


def test_codex_events_are_read_when_a_rollout_has_no_response_items():
    text = jsonl({"timestamp": "2026-01-02T10:00:00Z", "type": "session_meta", "payload": {"id": "abc", "cwd": "/w"}},
                 {"timestamp": "2026-01-02T10:00:01Z", "type": "event_msg",
                  "payload": {"type": "user_message", "message": "ping"}},
                 {"timestamp": "2026-01-02T10:00:02Z", "type": "event_msg",
                  "payload": {"type": "agent_message", "message": "pong"}})
    result = parse_transcript(text, "r.jsonl")
    assert spoken(result) == [("user", "ping"), ("assistant", "pong")]


def test_codex_legacy_rollout_uses_the_header_time():
    result = parse(CODEX_LEGACY)
    assert result.format == "codex-legacy"
    assert spoken(result) == [
        ("user", "Add a section on backups to the README."),
        ("assistant", "The README now has a Backups section describing the nightly dump.\n[shell: cat README.md]\n"
                      "[apply_patch README.md] failed"),
    ]
    stamp = datetime(2025, 5, 7, 16, 40, 12, 345000, tzinfo=UTC)
    assert [t.timestamp for t in result.turns] == [stamp, stamp]
    assert result.warnings == []


def test_generic_chat_and_dialogue():
    chat = parse("generic/chat.jsonl")
    assert chat.format == "generic"
    assert spoken(chat) == [("system", "You are Tachi."), ("user", "Order a blue backpack"),
                            ("assistant", "[shop_search: blue backpack 30l]"),
                            ("assistant", "Ordered the 30 l blue backpack.")]
    dialogue = parse("generic/dialogue.jsonl")
    assert spoken(dialogue) == [("Caroline", "I went to the LGBTQ support group yesterday."),
                                ("Melanie", "That sounds lovely, how was it?")]
    assert dialogue.turns[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert chat.warnings == dialogue.warnings == []
    assert not embedded(chat).startswith("Chat")  # no session: no context line


def test_a_data_file_is_one_not_a_transcript_problem():
    result = parse("not-a-transcript/prices.jsonl")
    assert result.turns == [] and result.format == ""
    assert len(result.warnings) == 1 and problem_kind(result.warnings[0]) == "not-a-transcript"
    assert result.warnings[0].startswith("not-a-transcript/prices.jsonl: not a transcript: none of its 3 lines")


def test_a_transcript_without_turns_is_a_problem():
    text = jsonl({"type": "session", "version": 3, "id": "s1", "cwd": "/w"},
                 {"type": "thinking_level_change", "id": "e1", "thinkingLevel": "high"})
    result = parse_transcript(text, "o.jsonl")
    assert result.format == "openclaw" and result.turns == []
    assert result.warnings == ["o.jsonl: OpenClaw transcript with no conversation turn (2 lines read)"]
    assert problem_kind(result.warnings[0]) == "no-turns"


def test_bad_lines_are_counted_once_and_the_rest_is_read():
    text = jsonl({"role": "user", "content": "one"}, "{broken", "[1, 2]", '"text"',
                 {"role": "assistant", "content": "two"}) + '{"role": "user", "cont'
    result = parse_transcript(text, "b.jsonl")
    assert spoken(result) == [("user", "one"), ("assistant", "two")]
    assert result.warnings == ["b.jsonl:2: 4 lines not a JSON object, skipped (line 2, 3, 4, 6); the last line "
                               "has no line break yet (still being written?)"]
    assert problem_kind(result.warnings[0]) == "bad-lines"


def test_deeply_nested_json_is_a_bad_line_not_a_crash():
    text = "[" * 100_000 + "\n" + json.dumps({"role": "user", "content": "after"}) + "\n"
    result = parse_transcript(text, "deep.jsonl")
    assert [t.text for t in result.turns] == ["after"]
    assert len(result.warnings) == 1 and result.warnings[0].startswith("deep.jsonl:1:")


def test_lines_split_on_newline_only():
    text = jsonl({"role": "user", "content": "a\u2028b"}, {"role": "assistant", "content": "c"}).replace("\n", "\r\n")
    result = parse_transcript(text, "t.jsonl")
    assert [(t.text, t.line) for t in result.turns] == [("a\u2028b", 1), ("c", 2)]


def test_sniff_format_and_default_sources(tmp_path):
    expected = {CLAUDE: "claude-code", CLAUDE_SUBAGENT: "claude-code", OPENCLAW: "openclaw", CODEX: "codex",
                CODEX_LEGACY: "codex-legacy", "generic/chat.jsonl": "generic", "not-a-transcript/prices.jsonl": ""}
    for rel, name in expected.items():
        assert sniff_format(DATA / rel) == name, rel
    assert sniff_format(tmp_path / "missing.jsonl") is None
    assert [default_source(n) for n in ("claude-code", "openclaw", "codex", "codex-legacy", "generic", None)] == \
        ["claude-code", "openclaw", "codex", "codex", "tachikoma", "tachikoma"]


def test_parse_timestamp():
    assert parse_timestamp("2025-06-01T10:00:00Z") == datetime(2025, 6, 1, 10, tzinfo=UTC)
    assert parse_timestamp("2025-06-01T10:00:00.123456789Z") == datetime(2025, 6, 1, 10, 0, 0, 123456, tzinfo=UTC)
    assert parse_timestamp("2025-06-01T12:00:00+02:00") == datetime(2025, 6, 1, 10, tzinfo=UTC)
    assert parse_timestamp("2025-06-01") == datetime(2025, 6, 1, tzinfo=UTC)
    assert parse_timestamp(1_748_772_000) == datetime(2025, 6, 1, 10, tzinfo=UTC)
    assert parse_timestamp(1_748_772_000_000) == datetime(2025, 6, 1, 10, tzinfo=UTC)
    for bad in ("yesterday", "", None, True, [], "2025-13-01"):
        assert parse_timestamp(bad) is None
    assert parse_timestamp("2025-06-01T10:00:00Z").tzinfo is UTC


def test_claude_code_2_1_lines_are_read_without_problems():
    """Claude Code 2.1 writes permission-mode, ai-title, last-prompt and attachment lines: 11 of 23 real
    sessions reported them as unknown lines. None is a problem; the generated title names the session
    (a user's rename wins over it)."""
    sid = "7d3e9b20-4c1a-4f6e-8a2b-9c0d1e2f3a4b"
    turn = {"sessionId": sid, "cwd": "/home/ana/code/bakery", "timestamp": "2026-04-02T08:00:00Z"}
    text = jsonl(
        {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": sid},
        {"type": "user", "message": {"role": "user", "content": "why does the oven timer reset at midnight?"},
         "uuid": "u1", **turn},
        {"type": "attachment", "attachment": {"type": "skill_listing", "content": "- pdf: read PDFs"},
         "uuid": "a1", "parentUuid": "u1", **turn},
        {"type": "ai-title", "aiTitle": "Oven timer midnight reset", "sessionId": sid},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant",
                                          "content": [{"type": "text", "text": "The timer stores local time."}]},
         "uuid": "a2", **turn},
        {"type": "last-prompt", "lastPrompt": "why does the oven timer reset at midnight?", "leafUuid": "a2",
         "sessionId": sid})
    result = parse_transcript(text, "claude-code/-home-ana-code-bakery/" + sid + ".jsonl")
    assert result.format == "claude-code" and result.warnings == []
    assert spoken(result) == [("user", "why does the oven timer reset at midnight?"),
                              ("assistant", "The timer stores local time.")]
    assert all(t.context.endswith(" · “Oven timer midnight reset”") for t in result.turns)
    renamed = text + jsonl({"type": "custom-title", "customTitle": "Timer bug", "sessionId": sid},
                           {"type": "ai-title", "aiTitle": "A later generated title", "sessionId": sid})
    result = parse_transcript(renamed, "claude-code/-home-ana-code-bakery/" + sid + ".jsonl")
    assert result.warnings == [] and all(t.context.endswith(" · “Timer bug”") for t in result.turns)
