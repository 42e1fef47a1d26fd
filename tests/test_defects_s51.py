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
