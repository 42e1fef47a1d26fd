"""What MCP's `search` costs an agent in tokens, driven in-process by the official SDK's client.

Clients forward one form of a tool's answer to the model: Claude Code and VS Code the structured content
(serialized), others the text. Without a budget both forms carried the whole explanation, factor by factor
(about 190 tokens a result in JSON, 90 in words): ten results on the example memory came to 1,898 tokens
of text and 3,691 of structured content for 1,000 tokens of passages. Each form now carries each passage's
text once, with its source, date, trust, score and a short why beside it."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from mcp import Client

from example_memory import indexed_example
from tachikoma.replies import tokens
from tachikoma.embedders import offline_default
from tachikoma.mcp_server import build_server
from tachikoma.replies.budget import quoted

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: Tokens an agent is given per result beside its passage's text: in the structured content its fields
#: (path, lines, date, trust, confidence, score, why) and JSON's punctuation; in the text its number and source
#: line. And per answer: its other fields (freshness, the floor, as_of), or the framing line and header.
PER_RESULT = {"structured": 75, "text": 50}
PER_ANSWER = {"structured": 300, "text": 150}


@pytest.fixture(scope="module")
def ask(tmp_path_factory):
    root = indexed_example(tmp_path_factory.mktemp("size") / "memory", offline_default())  # the floor an agent meets
    server, tools = build_server(root, watch=False)

    def call(arguments: dict):
        async def scenario():
            async with Client(server) as client:
                return await client.call_tool("search", arguments)
        return asyncio.run(asyncio.wait_for(scenario(), timeout=120))

    yield call
    tools.close()


def test_ten_results_give_each_passage_once_in_each_form_with_what_an_agent_needs(ask):
    found = ask({"query": "DRV8353 samples", "limit": 10, "min_score": 0})
    assert not found.is_error
    text, data = found.content[0].text, found.structured_content
    results = data["results"]
    assert len(results) == 10
    passages = [r["text"] for r in results]
    serialized = json.dumps(data, ensure_ascii=False)
    n = len(results)
    structured_extra = tokens.count(serialized) - sum(tokens.count(json.dumps(p, ensure_ascii=False)) for p in passages)
    text_extra = tokens.count(text) - sum(tokens.count(quoted(p)) for p in passages)
    assert structured_extra <= PER_RESULT["structured"] * n + PER_ANSWER["structured"], structured_extra
    assert text_extra <= PER_RESULT["text"] * n + PER_ANSWER["text"], text_extra
    assert "agent_text" not in data and "match" not in data and "timing_ms" not in data
    assert serialized.count(json.dumps(passages[0], ensure_ascii=False)) == 1
    for r in results:
        assert {"path", "lines", "date", "trust", "confidence", "score", "why", "text"} <= set(r)
        assert "factors" not in r and "tags" not in r
        # the same source, trust and score in the text, below the passage quoted
        day = r["date"] + (f" ({r['weak_date']})" if r.get("weak_date") else "")  # rumours.md: imported
        assert f"\n   — {r['path']}:{r['lines'][0]}-{r['lines'][1]} · {day} · (" in text
        source = f"\n   — {r['path']}:{r['lines'][0]}-{r['lines'][1]} · "
        shown = re.search(rf" · score (\d\.\d{{3}}); {re.escape(r['why'])}\n", text[text.index(source):] + "\n")
        assert shown and abs(float(shown[1]) - r["score"]) <= 6e-4, text  # 3 decimals; the JSON's 4
        assert text.count(quoted(r["text"])) == 1


def test_no_good_match_says_why_and_what_to_try_in_one_short_line(ask):
    nothing = ask({"query": "zxqv blorf", "budget_tokens": 0})
    text, data = nothing.content[0].text, nothing.structured_content
    assert not nothing.is_error and data["no_good_match"] and data["results"] == []
    assert "\n" not in text and tokens.count(text) <= 50, tokens.count(text)
    assert text.startswith('No memory matches "zxqv blorf": nothing is close enough in meaning (best ')
    assert "or in words (best 0%, needs " in text and text.endswith("min_score: 0 shows the nearest passages anyway.")
    assert text == data["reason"]  # a structured-only client reads the same why


def test_a_budgets_structured_content_gives_its_passages_once(ask):
    found = ask({"query": "DRV8353 samples", "budget_tokens": 600, "min_score": 0})
    text, data = found.content[0].text, found.structured_content
    passages = data["budget"]["passages"]
    assert passages and "agent_text" not in data  # the block is the text content, not a second copy of it
    serialized = json.dumps(data, ensure_ascii=False)
    for p in passages:
        assert serialized.count(json.dumps(p["text"], ensure_ascii=False)) == 1
        assert quoted(p["text"]) in text
    assert tokens.count(text) <= 600


def test_the_time_a_question_named_is_given_in_words_an_agent_reads(ask):
    """`time` gave an agent each window's unix seconds beside its label ("start": 1795996800.0, "end": ...): the
    only times of the reply not in ISO 8601, saying again what the label says, about 20 tokens a window. An agent
    is given the phrase and the days it names; `search --json` without a budget keeps the seconds."""
    found = ask({"query": "what did we decide about the gate driver last week", "budget_tokens": 600, "min_score": 0})
    windows = found.structured_content["time"]
    assert [set(w) for w in windows] == [{"phrase", "label"}], windows
    assert windows[0]["phrase"] == "last week" and ".." in windows[0]["label"]
    ahead = ask({"query": "what is on next week", "budget_tokens": 600, "min_score": 0}).structured_content["time"]
    assert ahead and all(set(w) == {"phrase", "label", "ahead"} for w in ahead), ahead
