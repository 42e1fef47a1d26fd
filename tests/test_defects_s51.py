"""Session 51: defects seen in use, each against real files (and, where it matters, the real embedded PostgreSQL).

1. An agent's budgeted reply from one memory of a shared (PostgreSQL) store named that memory on every passage's
   source line (``[notes] martin.md:7-17 …``) and in every passage's JSON: tokens an agent pays for and learns
   nothing from. The memory is named only when the search covered several (the answer's ``memories``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from example_memory import example_and_runbook
from mcp_helpers import tree_env
from tachikoma.store import STORE_ENV

QUERY = "what does Martin prefer for meetings"

# --------------------------------------------------------------------------- 1. one memory of a shared store


@pytest.fixture
def shared(tmp_path, url, monkeypatch):
    """The example memory ("notes") and a runbook ("operations"), indexed into one PostgreSQL database."""
    monkeypatch.setenv(STORE_ENV, url)
    notes, _ops = example_and_runbook(tmp_path)
    return notes, url


def test_one_memory_of_a_shared_store_is_not_named_on_every_passage(shared):
    """`search --budget` (the block and its JSON) and MCP's search (its text and structured content) of one memory
    said ``[notes]`` before every passage's source and ``"memory":"notes"`` in every passage. Failed before."""
    from tachikoma.mcp_answers import answer_text
    from tachikoma.mcp_server import MemoryTools

    notes, url = shared
    run = lambda *a: subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(notes), *a],  # noqa: E731
                                    capture_output=True, text=True, env=tree_env(**{STORE_ENV: url}), timeout=300)
    block = run("search", QUERY, "--budget", "600", "--in-process")
    assert block.returncode == 0, block.stderr
    assert "— martin.md:" in block.stdout and "[notes]" not in block.stdout, block.stdout
    as_json = run("search", QUERY, "--budget", "600", "--json", "--in-process")
    assert as_json.returncode == 0, as_json.stderr
    passages = json.loads(as_json.stdout)["budget"]["passages"]
    assert passages and all("memory" not in p for p in passages), passages
    tools = MemoryTools(notes, watch=False)
    try:
        answer = tools.search(QUERY)  # the server's budget
        assert answer["budget"]["passages"] and "[notes]" not in answer_text(answer)
        whole = tools.search(QUERY, 3, budget_tokens=0)  # whole results, as an agent reads them
        assert "[notes]" not in answer_text(whole)
        # Several memories: each passage says whose it is, in the text and the JSON.
        both = tools.search("restart the quokka service", min_score=0, memories=["notes", "operations"])
        assert "[operations] runbook.md" in answer_text(both)
        assert {p["memory"] for p in both["budget"]["passages"]} >= {"operations"}
    finally:
        tools.close()


# --------------------------------------------------------------------------- 3. a budget over the limit


def test_a_budget_over_the_limit_is_refused_in_one_short_line(tmp_path):
    """MCP's search refused `budget_tokens: 200000` in 754 characters: pydantic's "less than or equal to 100000" and
    then the argument's whole description. A value over its maximum is told the maximum alone, on every face.
    Failed before (MCP's length)."""
    from example_memory import indexed_example
    from mcp_helpers import run_tools
    from tachikoma_dashboard.app import create_app

    mem = indexed_example(tmp_path / "mem")
    (error, text, _), (_, limit_text, _) = run_tools(mem, ("search", {"query": "x", "budget_tokens": 200_000}),
                                                      ("search", {"query": "x", "limit": 500}))
    assert error and text == ("invalid arguments for search: budget_tokens: at most 100,000, got 200000. "
                              "Correct them and call search again."), text
    assert "limit: at most 100, got 500." in limit_text and len(limit_text) < 120, limit_text
    api = create_app(memory=mem, port=5000, watch=False).test_client().get(
        "/api/search", base_url="http://127.0.0.1:5000", query_string={"q": "x", "budget_tokens": "200000"})
    assert api.status_code == 400 and "100,000" in api.get_json()["error"] and len(api.get_json()["error"]) < 80
    cli = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "search", "x", "--budget", "200000"],
                         capture_output=True, text=True, env=tree_env(), timeout=120)
    assert cli.returncode == 2 and cli.stderr.splitlines()[-1].endswith("is not a whole number from 1 to 100,000")
