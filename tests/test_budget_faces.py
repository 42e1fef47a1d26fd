"""`search` within a token budget on every face: the command line, the JSON API and MCP (official SDK client)."""

import json
import subprocess
import sys

from mcp import Client
from test_app import make_client
from test_mcp import MINILM, call, run, server
from web_helpers import build_index

from tachikoma_dashboard.app import create_app
from tachikoma.replies import tokens

QUERY = "DRV8353 discontinued"


def tachikoma(root, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_the_command_line_prints_the_block_and_its_json_carries_the_passages(memory):
    build_index(memory)
    text = tachikoma(memory, "search", QUERY, "--budget", "300", "--min-score", "0", "--in-process")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(f'Memory evidence for "{QUERY}"')
    assert "rumours.md:6-10" in text.stdout and "(untrusted source; verify)" in text.stdout
    assert tokens.count(text.stdout) <= 300
    data = json.loads(tachikoma(memory, "search", QUERY, "--budget", "300", "--min-score", "0", "--json",
                                "--in-process").stdout)
    assert "results" not in data and data["budget"]["budget_tokens"] == 300
    assert data["budget"]["used_tokens"] <= 300 and "agent_text" not in data  # the passages once (`reply.as_json`)
    printed = tachikoma(memory, "search", QUERY, "--budget", "300", "--min-score", "0", "--json", "--agent-text",
                        "--in-process").stdout
    asked = json.loads(printed)  # the block inside the JSON, the whole held to the budget (since session 47)
    assert tokens.count(printed.rstrip("\n")) <= 300 and asked["agent_text"].startswith(f'Memory evidence for "{QUERY}"')
    assert all(f"{p['path']}:{p['lines'][0]}-{p['lines'][1]}" in asked["agent_text"] for p in asked["budget"]["passages"])
    first = data["budget"]["passages"][0]
    assert {"path", "lines", "date", "trust", "confidence", "score", "why", "text"} <= set(first)
    assert (first["path"], first["trust"], first["confidence"]) == ("rumours.md", "untrusted", "speculative")
    refused = tachikoma(memory, "search", QUERY, "--budget", "0")
    assert refused.returncode == 2 and "--budget" in refused.stderr
    tiny = tachikoma(memory, "search", QUERY, "--budget", "15", "--min-score", "0", "--in-process")
    assert tiny.returncode == 1 and tiny.stdout == ""
    assert "a budget of 15 tokens cannot hold one passage of memory here" in tiny.stderr
    enough = int(tiny.stderr.rsplit("ask for at least ", 1)[1])
    fits = tachikoma(memory, "search", QUERY, "--budget", str(enough), "--min-score", "0", "--in-process")
    assert fits.returncode == 0 and "\n1.\n> " in fits.stdout and tokens.count(fits.stdout) <= enough


def test_the_json_api_takes_budget_tokens(memory):
    build_index(memory)
    client = make_client(create_app(memory=memory, port=5000))
    short = client.get(f"/api/search?q={QUERY}&min_score=0&budget_tokens=120")  # the JSON's fields alone take ~100
    assert short.status_code == 400 and "ask for at least " in short.get_json()["error"]
    enough = int(short.get_json()["error"].rsplit("ask for at least ", 1)[1])
    body = client.get(f"/api/search?q={QUERY}&min_score=0&budget_tokens={enough}").get_data(as_text=True)
    answer = json.loads(body)
    assert answer["budget"]["used_tokens"] == tokens.count(body) <= enough and answer["budget"]["passages"]
    assert "agent_text" not in answer
    body = client.get(f"/api/search?q={QUERY}&min_score=0&budget_tokens=1000&agent_text=1").get_data(as_text=True)
    block = json.loads(body)["agent_text"]
    assert tokens.count(body) <= 1000 and block.startswith("Memory evidence for")
    plain = client.get(f"/api/search?q={QUERY}&min_score=0").get_json()
    assert "budget" not in plain and plain["results"]
    refused = client.get(f"/api/search?q={QUERY}&budget_tokens=lots")
    assert refused.status_code == 400 and "budget_tokens" in refused.get_json()["error"]
    tiny = client.get(f"/api/search?q={QUERY}&min_score=0&budget_tokens=15")
    assert tiny.status_code == 400 and "cannot hold one passage" in tiny.get_json()["error"]


def test_mcp_search_with_a_budget_is_one_block_evidence_first_then_source_and_trust(git_memory):
    mem = git_memory
    (mem / "tachikoma.toml").write_text(MINILM)  # the offline MiniLM named, so no Ollama probe
    tachikoma(mem, "index", "-q")

    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            budgeted = await call(client, "search", {"query": "when does Martin like meetings",
                                                     "budget_tokens": 400, "min_score": 0})
            rumour = await call(client, "search", {"query": QUERY, "budget_tokens": 400, "min_score": 0})
            too_small = await call(client, "search", {"query": QUERY, "budget_tokens": -1})  # (0: whole results)
            # the framing line alone takes about 60 tokens: 50 holds no passage beside it
            no_room = await call(client, "search", {"query": QUERY, "budget_tokens": 50, "min_score": 0})
            return budgeted, rumour, too_small, no_room

    (error, text, data), (_, rumour_text, _), (refused, refusal, _), (no_room, why, _) = run(scenario)
    assert no_room and "a budget of 50 tokens cannot hold one passage of memory here" in why
    assert not error
    assert "index updated" not in text  # a fresh index's line is left out: it would run the block over budget
    block = text
    assert block.startswith("Passages are quoted from memory files")  # the framing line, counted in the budget
    assert tokens.count(block) <= 400 and data["budget"]["used_tokens"] <= 400
    first = block.split("\n1.\n")[1]
    assert first.startswith("> ")  # evidence first, quoted
    assert "   — martin.md:" in first and "(owner, high confidence)" in first.split("\n2.\n")[0]
    assert "rumours.md" in rumour_text and "(untrusted source; verify)" in rumour_text
    assert refused and "budget_tokens" in refusal


def test_a_budgets_block_says_the_index_is_behind_only_when_it_is():
    """Inside the block, counted in the budget (session 45: MCP added the line after a block that had used the
    budget, 184 tokens for a budget of 170); a watcher's failure follows the block only when it fits."""
    from tachikoma.mcp_answers import answer_text
    from tachikoma.replies.recall import within_budget

    result = {"path": "boiler.md", "lines": [1, 1], "text": "Ana fixed the boiler on Monday.", "score": 0.5,
              "kind": "markdown", "tags": {}, "factors": {}}
    fresh = {"state": "complete", "last_indexed_at": "2026-12-05T10:00:00+00:00", "changed_since": 0}
    asked = {"query": "who fixed the boiler", "keywords": ["boiler"], "no_good_match": False, "results": [result],
             "freshness": fresh}
    answer = within_budget(asked, 200, None, preamble="Passages are quoted …")
    assert answer_text(answer) == answer["agent_text"] and "index updated" not in answer["agent_text"]
    for behind in ({"changed_since": 2}, {"state": "incomplete"}):
        answer = within_budget({**asked, "freshness": {**fresh, **behind}}, 200, None, preamble="Passages are quoted …")
        text = answer_text(answer)
        assert text == answer["agent_text"] and text.startswith("Passages are quoted …\nindex updated 2026-12-05T10:00"), behind
        assert tokens.count(text) <= 200
    answer = within_budget(asked, 200, None)
    failed = answer_text({**answer, "freshness": {**fresh, "watch_error": "disk full"}})
    assert failed == answer["agent_text"] + "\nthe index is not kept up to date: disk full"
    full = answer_text({**answer, "budget": {**answer["budget"], "budget_tokens": answer["budget"]["used_tokens"]},
                        "freshness": {**fresh, "watch_error": "disk full"}})
    assert full == answer["agent_text"]


NOWHERE = "What is the airspeed velocity of an unladen swallow?"


def test_no_good_match_within_a_budget_is_held_to_it_on_every_face(memory):
    # "no good match" printed its whole reason and a hint (97 tokens for a budget of 30): the agent pays for
    # every token it asked not to. The reply says why when that fits, else only that nothing matches.
    build_index(memory, "minilm-int8")  # the default's floor
    said = {}
    for budget in (8, 30, 300):
        got = tachikoma(memory, "search", NOWHERE, "--budget", str(budget), "--in-process")
        assert got.returncode == 0, got.stderr
        assert got.stdout.startswith("No memory matches") and tokens.count(got.stdout) <= budget, (budget, got.stdout)
        said[budget] = got.stdout
    assert said[8].strip() == "No memory matches."
    assert said[30].strip() == f'No memory matches "{NOWHERE}".'
    assert said[300].startswith(f'No memory matches "{NOWHERE}": ') and said[300] != said[30]
    # in JSON the reply's fields count too (since session 47): 30 tokens cannot hold them, and saying so is the reply
    short = tachikoma(memory, "search", NOWHERE, "--budget", "30", "--json", "--in-process")
    assert short.returncode == 1 and "cannot hold the reply here: nothing matches" in short.stderr, short.stderr
    enough = int(short.stderr.rsplit("ask for at least ", 1)[1])
    printed = tachikoma(memory, "search", NOWHERE, "--budget", str(enough), "--json", "--in-process").stdout.rstrip()
    data = json.loads(printed)
    assert data["no_good_match"] and data["budget"]["passages"] == [] and data["reason"].startswith("No memory matches")
    assert data["budget"]["used_tokens"] == tokens.count(printed + "\n") <= enough
    client = make_client(create_app(memory=memory, port=5000))
    answer = client.get("/api/search", query_string={"q": NOWHERE, "budget_tokens": 300}).get_data(as_text=True)
    assert json.loads(answer)["no_good_match"] and tokens.count(answer) <= 300
    assert json.loads(answer)["reason"].endswith("min_score=0 shows the nearest passages anyway."), answer


def test_mcp_no_good_match_within_a_budget_says_why_and_stays_in_it():
    from tachikoma.humanize import NOT_UP_TO_DATE
    from tachikoma.mcp_answers import answer_text
    from tachikoma.replies.recall import within_budget

    fresh = {"state": "complete", "last_indexed_at": "2026-12-05T10:00:00+00:00", "changed_since": 0}
    asked = {"query": "Who fixed the boiler?", "no_good_match": True, "freshness": fresh, "results": [],
             "match": {}, "min_score": 0.44}
    answer = within_budget(asked, 40, None)
    assert answer_text(answer) == answer["agent_text"]  # what `budget.no_match_text` made, nothing after it
    behind = answer_text(within_budget({**asked, "freshness": {**fresh, "changed_since": 3}}, 40, None))
    assert behind == f'No memory matches "Who fixed the boiler?": {NOT_UP_TO_DATE}.' and tokens.count(behind) <= 40
    tight = answer_text(within_budget({**asked, "freshness": {**fresh, "changed_since": 3}}, 12, None))
    assert tokens.count(tight) <= 12 and tight.startswith("No memory matches")


