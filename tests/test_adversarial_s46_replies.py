"""Session 46's review of what the three agent faces reply (`tachikoma search --json`, the JSON API's /api/search, MCP's
`search` and `remember`), as an agent developer who pays for every token would read them. Each test says what was
broken and failed before its fix, or pins what held."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from example_memory import indexed_example
from mcp_helpers import run_tools
from terminal import drained
from tachikoma.replies import tokens
from test_adversarial_s45_agents import api, cli
from web_helpers import build_index

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUERY = "DRV8353 samples"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    """The example memory indexed with the hash embedder; the tests here only read it."""
    return indexed_example(tmp_path_factory.mktemp("replies") / "memory")


def search_json(root, *args: str) -> tuple[str, dict]:
    """`tachikoma search … --json` as a program reads it (stdout a pipe): its output and what it says."""
    done = cli(root, "search", *args, "--json", "--in-process")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    return out, json.loads(out)


def floats(value, key: str = ""):
    """Every float in a JSON value, with the key it is under."""
    if isinstance(value, float):
        yield key, value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from floats(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from floats(item, key)


def text_tokens(passages: list[dict]) -> int:
    """The tokens of the passages' own text, as JSON writes it."""
    return sum(tokens.count(json.dumps(p["text"], ensure_ascii=False)) for p in passages)


# --------------------------------------------------------------------------- 1. a budget's JSON reply


#: What a budgeted JSON reply may spend beyond its passages' text (`tokens.count`, which counts compact JSON's
#: punctuation high: about 0.78 of it is cl100k's count): its envelope (the question, no_good_match, the index's
#: freshness, the budget's own counts: about 110) and, per passage, its source, date, trust, score and why with
#: JSON's punctuation (about 70).
ENVELOPE, PER_PASSAGE = 125, 75


@pytest.mark.parametrize("budget", [300, 1000])
def test_a_budgeted_json_reply_gives_each_passage_once_and_little_beside_it(mem, budget):
    """`search --budget 300 --json` on the example memory was 4,406 characters (1,393 tokens) for 149 tokens of
    passages: every passage twice (in `budget.passages` and again in `agent_text`, the block), each with its rank,
    tokens, kind, an empty `also_in` and a null `stale`, inside an indented envelope with the embedder, timings and
    the floor's evidence, and floats to 17 digits. The JSON API's body was the same. Failed before (both faces)."""
    out, data = search_json(mem, QUERY, "--budget", str(budget))
    body = api(mem, q=QUERY, budget_tokens=budget).get_data(as_text=True)
    for reply in (out, body):
        answer = json.loads(reply)
        passages = answer["budget"]["passages"]
        assert passages and "agent_text" not in answer and "results" not in answer
        for p in passages:
            assert reply.count(json.dumps(p["text"], ensure_ascii=False)) == 1
            assert {"path", "lines", "date", "trust", "confidence", "score", "why", "text"} <= set(p)
            assert not {"rank", "tokens", "kind"} & set(p) and p.get("also_in", [1]) and p.get("stale", 1)
        overhead = tokens.count(reply) - text_tokens(passages)
        assert overhead <= ENVELOPE + PER_PASSAGE * len(passages), (overhead, len(passages))
    assert json.loads(body)["budget"]["passages"] == data["budget"]["passages"]  # `search --json` is /api/search
    assert tokens.count(out) == data["budget"]["used_tokens"] <= budget  # each counts itself, its line break too (s47)


def test_the_block_comes_in_the_json_when_asked_for(mem):
    """The block an agent pastes (`agent_text`) is one option away on both faces: `--agent-text`, `agent_text=1`.
    Failed before (an unknown option)."""
    block = cli(mem, "search", QUERY, "--budget", "1000", "--in-process").stdout.decode()
    _, data = search_json(mem, QUERY, "--budget", "1000", "--agent-text")
    assert data["agent_text"].rstrip("\n").split("\n")[1:] == block.rstrip("\n").split("\n")[1:]
    assert data["budget"]["passages"]
    assert api(mem, q=QUERY, budget_tokens=1000, agent_text=1).get_json()["agent_text"] == data["agent_text"]


def test_the_block_is_asked_for_with_a_budget_only(mem):
    """Without a budget there is no block: `--agent-text` alone is a usage error, `agent_text=1` a 400, and a
    yes-or-no that is neither is refused as the API's other yes-or-nos are. Failed before (exit 2 for an unknown
    option, but the API answered 200 and ignored it)."""
    done = cli(mem, "search", QUERY, "--json", "--agent-text")
    assert done.returncode == 2 and b"--agent-text goes with --budget" in done.stderr, done.stderr
    alone = api(mem, q=QUERY, agent_text=1)
    assert alone.status_code == 400 and "agent_text goes with budget_tokens" in alone.get_json()["error"]
    neither = api(mem, q=QUERY, budget_tokens=300, agent_text="maybe")
    assert neither.status_code == 400 and "agent_text must be true or false" in neither.get_json()["error"]


def test_json_replies_give_floats_to_four_decimals(mem):
    """Scores, factors and similarities came with 17 significant digits (0.23634667053488925), which no reader acts
    on, in `search --json`, /api/search and MCP's structured content. An age in days keeps 5 decimals (the second
    it was measured at: the explanation counts calendar days from it). Failed before (every face)."""
    _, whole = search_json(mem, QUERY)
    _, budgeted = search_json(mem, QUERY, "--budget", "300")
    api_whole = api(mem, q=QUERY).get_json()
    [(_, _, structured)] = run_tools(mem, ("search", {"query": QUERY, "budget_tokens": 300}))
    for reply in (whole, budgeted, api_whole, structured):
        found = list(floats(reply))
        assert found and all(x == round(x, 5 if key == "age_days" else 4) for key, x in found if abs(x) >= 0.01), found
    assert whole["results"][0]["score"] > 0 and any(key == "age_days" for key, _ in floats(whole))


def test_a_tiny_float_keeps_its_size(mem):  # pins the rounding: no score rounds to 0
    from tachikoma.replies.reply import rounded

    assert rounded({"a": [0.000012345, 0.23634667, 172.55491, 1.0, 3]}) == {"a": [1.2e-05, 0.2363, 172.5549, 1.0, 3]}


def test_json_is_compact_for_a_program_and_indented_for_a_person(mem):
    """`search --json` printed indented JSON into a pipe (a program pays for the spaces and line breaks: the reply of
    `--budget 300` above was 1,393 tokens indented, 1,196 compact) and the JSON API's every body was indented. Now
    both are compact, and the command line indents for a terminal. Failed before (the pipe and the API)."""
    out, _ = search_json(mem, QUERY, "--limit", "1")
    assert out.count("\n") == 1 and out.endswith("}\n") and ": " not in out.split('"text"')[0]
    body = api(mem, q=QUERY, limit=1).get_data(as_text=True)
    assert body.count("\n") <= 1 and '{"query":' in body
    stats = cli(mem, "stats", "--json").stdout.decode()
    assert stats.count("\n") == 1 and json.loads(stats)["files"]
    shown = on_a_terminal([sys.executable, "-m", "tachikoma", "search", QUERY, "--limit", "1", "--json",
                           "--in-process", "--memory", str(mem)])
    assert shown.startswith("{\n  \"query\": ") and json.loads(shown)["results"], shown[:200]


def on_a_terminal(command: list[str]) -> str:
    """What `command` prints when its stdout is a terminal (a pseudo-terminal), line breaks as "\\n"."""
    import pty

    master, follower = pty.openpty()
    process = subprocess.Popen(command, stdout=follower, stderr=subprocess.DEVNULL)
    os.close(follower)
    return drained(master, process).decode().replace("\r\n", "\n")


def test_mcps_budgeted_structured_content_gives_passages_as_the_json_does(mem):
    """MCP's structured content with a budget gave each passage with its rank, tokens, kind, an empty `also_in`, a
    null `stale` and its date to the second (702 tokens for 112 of passages at a budget of 300). It gives them as
    `search --json` and /api/search do now. Failed before."""
    [(error, text, data)] = run_tools(mem, ("search", {"query": QUERY, "budget_tokens": 300}))
    assert not error and tokens.count(text) <= 300
    passages = data["budget"]["passages"]
    _, cli_data = search_json(mem, QUERY, "--budget", "300")
    for p in passages:
        assert set(p) <= set(cli_data["budget"]["passages"][0]) | {"also_in", "stale", "trimmed", "memory", "tools"}
        assert len(p["date"]) == 10 and not {"rank", "tokens", "kind"} & set(p)
    overhead = tokens.count(json.dumps(data, ensure_ascii=False)) - text_tokens(passages)
    assert overhead <= ENVELOPE + PER_PASSAGE * len(passages), overhead


# --------------------------------------------------------------------------- 2. MCP's search takes `untagged`


def found_paths(data: dict) -> list[str]:
    """The files of an answer's results, or of its budget's passages."""
    return [r["path"] for r in data.get("results") or data["budget"]["passages"]]


def test_mcps_search_takes_untagged_as_the_command_line_and_the_api_do(mem):
    """`tachikoma search --untagged` and /api/search's `untagged` give only files with neither trust nor confidence;
    MCP's `search` had no such argument (only `trust: "missing"`, files without trust), and the SDK dropped it
    unread: `untagged: true` gave martin.md (owner, high) first. Failed before."""
    _, asked = search_json(mem, "Martin", "--untagged", "--min-score", "0", "--limit", "20")
    api_paths = found_paths(api(mem, q="Martin", untagged=1, min_score=0, limit=20).get_json())
    [(error, text, data)] = run_tools(mem, ("search", {"query": "Martin", "untagged": True, "min_score": 0,
                                                       "limit": 20}))
    assert not error, text
    untagged = found_paths(asked)
    assert untagged and "martin.md" not in untagged and api_paths == untagged
    assert found_paths(data) == untagged[:len(found_paths(data))] and found_paths(data)


# --------------------------------------------------------------------------- 3. a limit is a whole number, strictly


@pytest.mark.parametrize("argument, value", [("limit", True), ("limit", "5"), ("limit", 5.0),
                                             ("budget_tokens", True), ("budget_tokens", "300")])
def test_mcp_takes_a_json_integer_for_a_count(mem, argument, value):
    """MCP's `search` took `limit: true` as 1, `limit: "5"` and `5.0` as 5, `budget_tokens: "300"` as 300 (pydantic's
    lax mode): an agent's mistake passed unnoticed. A count is a JSON integer, not a bool, a string or a float.
    Failed before."""
    [(error, text, _)] = run_tools(mem, ("search", {"query": QUERY, argument: value}))
    assert error and f"invalid arguments for search: {argument}:" in text and "integer" in text, text


@pytest.mark.parametrize("value", ["5_0", "５", "+5", " 5", "5 ", "٥"])
def test_the_json_api_and_the_command_line_take_a_count_in_plain_digits(mem, value):
    """/api/search read `limit=5_0` as 50 and a full-width `５` (or an Arabic-Indic `٥`) as 5, as Python's int() does,
    and so did `tachikoma search --limit` and `--budget`. A count is plain ASCII digits on both faces. Failed before
    (every value, on both faces)."""
    for name in ("limit", "budget_tokens"):
        refused = api(mem, q=QUERY, **{name: value})
        assert refused.status_code == 400 and f"{name} must be a whole number" in refused.get_json()["error"], name
    for option in ("--limit", "--budget"):
        done = cli(mem, "search", QUERY, option, value, "--in-process")
        assert done.returncode == 2 and b"is not a whole number" in done.stderr, (option, done.stderr)


def test_a_plain_count_is_taken_on_every_face(mem):  # pins
    assert len(api(mem, q="Martin", limit="05", min_score=0).get_json()["results"]) == 5
    _, data = search_json(mem, "Martin", "--limit", "05", "--min-score", "0")
    [(error, _, structured)] = run_tools(mem, ("search", {"query": QUERY, "limit": 5, "min_score": 0,
                                                          "budget_tokens": 300}))
    assert len(data["results"]) == 5 and not error and structured["budget"]["passages"]


# --------------------------------------------------------------------------- 4. the command line bounds the query


def test_the_command_line_bounds_a_query_as_the_api_and_mcp_do(mem):
    """The JSON API and MCP refuse a query over 2,000 characters (`vocabulary.MAX_QUERY_CHARS`: a document pasted by
    mistake); `tachikoma search` embedded and ranked any length (a 200,000-character query ran for 40 s). Now a usage
    error, exit 2, saying the length and the limit. Failed before."""
    long = "motor " * 334  # 2,004 characters, in words
    done = cli(mem, "search", *long.split(), "--in-process")
    assert done.returncode == 2 and b"the query is 2,003 characters long; the limit is 2,000" in done.stderr, done.stderr
    refused = api(mem, q=long)
    assert refused.status_code == 400 and "the limit is 2,000" in refused.get_json()["error"]
    [(error, text, _)] = run_tools(mem, ("search", {"query": long}))
    assert error and "2000" in text, text
    assert cli(mem, "search", "m" * 2000, "--in-process", "--json").returncode == 0  # the limit itself is taken


# --------------------------------------------------------------------------- 5. remember's null is the default


@pytest.fixture
def writable(git_memory):
    build_index(git_memory)
    return git_memory


def test_remember_with_null_trust_writes_an_agents_note_not_an_untagged_one(writable):
    """MCP `remember(trust=null)` wrote a note with no trust (untagged), which ranks by `[ranking.trust] missing`: a
    user may set that to 1.0 (untagged as good as owner), so null let an agent's note outrank its own `self` trust.
    Null is now what leaving the argument out is: trust self, confidence medium. Failed before."""
    [(error, text, data)] = run_tools(writable, ("remember", {"text": "The lab door code is 4711.", "title": "door",
                                                              "trust": None, "confidence": None}))
    assert not error, text
    note = (writable / data["path"]).read_text()
    assert "trust: self" in note and "confidence: medium" in note, note


def test_remember_still_takes_a_lower_trust(writable):  # pins
    [(error, text, data)] = run_tools(writable, ("remember", {"text": "A forum says the DRV8353 is discontinued.",
                                                              "trust": "untrusted", "confidence": "low"}))
    note = (writable / data["path"]).read_text()
    assert not error and "trust: untrusted" in note and "confidence: low" in note, text


# --------------------------------------------------------------------------- 6. MCP's search has a default budget


def test_mcps_search_answers_within_a_budget_unless_asked_for_whole_results(mem):
    """MCP's `search` asked with a question alone gave ten whole results: on the example memory (MiniLM) 1,447 tokens
    of text and 1,737 of structured content for "DRV8353 samples", while a budget of 1,000 gives the best evidence in
    298 and 398 (and on LongMemEval holds more of the answer turns than ten whole results do). It answers within
    `[mcp] budget_tokens` (1,000) now; `budget_tokens: 0` or a `limit` asks for whole results. Failed before."""
    [(error, text, data), (_, _, whole), (_, _, three)] = run_tools(
        mem, ("search", {"query": QUERY}), ("search", {"query": "Martin", "budget_tokens": 0, "min_score": 0}),
        ("search", {"query": "Martin", "limit": 3, "min_score": 0}))
    assert not error and "results" not in data and data["budget"]["budget_tokens"] == 1000, text
    assert data["budget"]["passages"] and tokens.count(text) <= 1000
    assert "budget" not in whole and len(whole["results"]) > 3 and "budget" not in three
    assert [r["path"] for r in three["results"]] == [r["path"] for r in whole["results"][:3]]


def test_the_default_budget_is_the_memorys_setting(tmp_path):
    root = indexed_example(tmp_path / "memory")
    (root / "tachikoma.toml").write_text("[mcp]\nbudget_tokens = 400\n")
    [(_, text, data)] = run_tools(root, ("search", {"query": QUERY}))
    assert data["budget"]["budget_tokens"] == 400 and tokens.count(text) <= 400
    (root / "tachikoma.toml").write_text("[mcp]\nbudget_tokens = 0\n")
    [(_, _, data)] = run_tools(root, ("search", {"query": QUERY, "min_score": 0}))
    assert "budget" not in data and data["results"]
    from tachikoma.config import load_config
    from tachikoma.errors import TachikomaError

    for wrong in ("-1", "true", "1.5", '"1000"'):
        (root / "tachikoma.toml").write_text(f"[mcp]\nbudget_tokens = {wrong}\n")
        with pytest.raises(TachikomaError, match=r"mcp.budget_tokens must be a whole number from 0 \(whole results\)"):
            load_config(root)


def test_no_good_match_within_the_default_budget_still_says_what_to_try(mem):  # pins, against the default budget
    """Without a budget MCP's "no good match" ends with what to try ("min_score 0 shows the nearest passages anyway.");
    a budget's reply, now MCP's default, left it out. It comes when it fits the budget, on every face."""
    [(error, text, data)] = run_tools(mem, ("search", {"query": "zxqv blorf", "min_score": 0.9}))
    assert not error and data["no_good_match"] and data["budget"]["passages"] == [], text
    assert text.startswith('No memory matches "zxqv blorf": ') and text.endswith(" min_score: 0 shows the nearest "
                                                                                 "passages anyway."), text
    compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert data["reason"] == text and data["budget"]["used_tokens"] == tokens.count(compact + "\n")
    tight = cli(mem, "search", "zxqv blorf", "--budget", "30", "--min-score", "0.9", "--in-process").stdout.decode()
    assert tokens.count(tight) <= 30 and "min_score" not in tight, tight
