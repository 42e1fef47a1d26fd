"""Session 46's review of what the three agent faces reply (`tachikoma search --json`, the JSON API's /api/search, MCP's
`search` and `remember`), as an agent developer who pays for every token would read them. Each test says what was
broken and failed before its fix, or pins what held."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from example_memory import copy_example
from mcp_helpers import run_tools
from tachikoma import tokens
from test_adversarial_s45_agents import api, cli
from web_helpers import build_index

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUERY = "DRV8353 samples"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    """The example memory indexed with the hash embedder; the tests here only read it."""
    root = copy_example(tmp_path_factory.mktemp("replies") / "memory")
    build_index(root)
    return root


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
    assert json.loads(body)["budget"] == data["budget"]  # `search --json` is /api/search


def test_the_block_comes_in_the_json_when_asked_for(mem):
    """The block an agent pastes (`agent_text`) is one option away on both faces: `--agent-text`, `agent_text=1`.
    Failed before (an unknown option)."""
    block = cli(mem, "search", QUERY, "--budget", "300", "--in-process").stdout.decode()
    _, data = search_json(mem, QUERY, "--budget", "300", "--agent-text")
    assert data["agent_text"].rstrip("\n") == block.rstrip("\n") and data["budget"]["passages"]
    assert api(mem, q=QUERY, budget_tokens=300, agent_text=1).get_json()["agent_text"] == data["agent_text"]


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
    from tachikoma.reply import rounded

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
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        out += chunk
    process.wait(timeout=120)
    os.close(master)
    return out.decode().replace("\r\n", "\n")


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
