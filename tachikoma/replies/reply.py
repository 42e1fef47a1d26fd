"""A search answer as the faces send it in JSON: what an agent is given, floats rounded, written compact.

Three faces send a search's answer as JSON: `tachikoma search --json`, the dashboard's /api/search and MCP's
structured content. This module says what they send, so the three cannot drift apart:

- `for_agent`: the answer as an agent is given it, each passage's text once with its source, date, trust, score
  and a short why beside it, and of the rest what an agent acts on. MCP's structured content always;
  `search --json` and /api/search when a token budget was asked (an agent that states a budget pays per token).
- `as_json`: what `search --json` and /api/search send: with a budget, `for_agent` (the block, ``agent_text``,
  only when asked for: it holds the passages a second time); without one, the whole answer, each result's
  factors and explanation included.
- `rounded`: every float to `DIGITS` decimals, in one place for every face.
- `dumps`: compact JSON for a program; indented for a person (the command line on a terminal).
"""

from __future__ import annotations

import json

from . import tokens
from .budget import agent_passage, named_results, no_match_text, whole
from ..humanize import nearest_hint, no_match_why

#: Decimals a float keeps in a JSON reply (scores, factors, similarities, the floor): the fourth decimal of a
#: score is already below what tells two results apart; a smaller value keeps `SMALL_DIGITS` significant digits.
DIGITS = 4
SMALL_DIGITS = 2
#: The floats that keep more: a result's age in days to the second (a second is 0.0000116 days), which the
#: explanation counts calendar days with (an `as_of` of a day searches at 23:59:59: 213.99998842 days, at 4
#: decimals 214.0, would say a day too many).
FINER = {"age_days": 5}

#: What an agent's reply (`for_agent`) holds beside the question, ``no_good_match``, the index's freshness and the
#: passages only when it says something: the question's words the memory holds nowhere, the files a question that
#: gathers was widened by, the time it named, the memories a search of several searched, the process that answered.
SAID_WHEN_SET = ("keywords_nowhere", "widened_by", "named_parts", "time", "memories", "served_by")
#: What an agent is not given of a time the question named: its bounds in unix seconds, which its ``label`` says in
#: days (the only times of a reply not in ISO 8601; ``search --json`` without a budget keeps them).
WINDOW_SECONDS = ("start", "end")
#: The index's freshness an agent is always given (`freshness.answer_freshness`; ``watching`` where a process watches
#: the folder: whether to search again shortly); the rest of it only when it says something to act on: chunks
#: without full vectors yet, result files gone, a watcher that failed.
FRESHNESS = ("state", "last_indexed_at", "changed_since", "watching")


def rounded(value, digits: int = DIGITS):
    """`value` (a JSON value) with every float to `digits` decimals (those `FINER` names to theirs), or, under 0.01,
    to `SMALL_DIGITS` significant digits (no score rounds to 0)."""
    if isinstance(value, float):
        if value != value or abs(value) >= 0.01 or value == 0:  # (NaN stays NaN)
            return round(value, digits)
        return float(f"{value:.{SMALL_DIGITS}g}")
    if isinstance(value, dict):
        return {key: rounded(item, FINER.get(key, DIGITS)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(item) for item in value]
    return value


def dumps(payload, pretty: bool = False) -> str:
    """`payload` as JSON, its floats `rounded`: compact (no space after a comma or colon) for a program, indented
    by two spaces when `pretty` (a person reading it on a terminal)."""
    if pretty:
        return json.dumps(rounded(payload), indent=2, ensure_ascii=False)
    return json.dumps(rounded(payload), ensure_ascii=False, separators=(",", ":"))


def line(payload) -> str:
    """`payload` as a program is sent it and a budget counts it: compact JSON (`dumps`) and the line break after it
    (the command line's and the JSON API's; MCP's structured content is sent without it)."""
    return dumps(payload) + "\n"


def for_agent(answer: dict, agent_text: bool = False) -> dict:
    """The search answer as an agent is given it: the question, ``no_good_match`` (and why, ``reason``), what
    `SAID_WHEN_SET` it has, the index's freshness (`agent_freshness`), ``staleness`` when a result was stale or
    `fresh_only` was asked, and the passages, each's text once: its results as `budget.agent_passage` gives them
    (path, lines, date, trust, confidence, score, why, text; memory, stale, tool calls when it has them), or a
    budget's ``budget`` with its passages so. Floats `rounded`. Left out (`search --json` without a budget keeps
    them): the query's words (each passage's ``why`` names those it holds), the floor and its evidence (said in
    ``reason``), the recency preset and the search's "now" (the time a question named is in ``time``), the embedder,
    timings, and each result's factors (said in its ``why``), chunk, kind and tags (its ``trust`` and
    ``confidence``). `agent_text`: the block too (``agent_text``, `as_json`). With a budget, ``used_tokens`` is what
    this reply counts as sent (`counted`) and the process that answered (``served_by``) is named only when it fits
    in the budget (`recall.within_budget` held the rest to it)."""
    out = {"query": answer["query"], "no_good_match": answer["no_good_match"]}
    if answer["no_good_match"]:
        out["reason"] = no_match_reply(answer)
    out.update({key: answer[key] for key in SAID_WHEN_SET if answer.get(key) and key != "served_by"})
    if out.get("time"):
        out["time"] = [{key: value for key, value in window.items() if key not in WINDOW_SECONDS}
                       for window in out["time"]]
    out["freshness"] = agent_freshness(answer.get("freshness") or {})
    staleness = answer.get("staleness") or {}
    if staleness.get("stale") or staleness.get("fresh_only"):
        out["staleness"] = staleness
    if "budget" in answer:
        out["budget"] = {**answer["budget"], "passages": [agent_passage(p) for p in answer["budget"]["passages"]]}
    else:
        out["results"] = [p.as_result() for p in whole(named_results(answer), answer.get("keywords") or [])]
    if agent_text:
        out["agent_text"] = answer["agent_text"]
    if not answer.get("served_by"):
        return counted(rounded(out))
    named = counted(rounded({**out, "served_by": answer["served_by"]}))
    over = "budget" in named and named["budget"]["used_tokens"] > named["budget"]["budget_tokens"]
    return counted(rounded(out)) if over else named


def counted(reply: dict) -> dict:
    """`reply` (`for_agent`'s) with its budget's ``used_tokens`` saying what the reply counts as sent (`line`: the
    count is written into what it counts, so it is counted again until it holds); as it is without a budget."""
    if "budget" not in reply:
        return reply
    # The count is a sum over the text's pieces (`tokens.count`), and the number is a piece of its own between JSON's
    # punctuation, so the reply counted once with 0 there gives the count for any number: the first guess is exact.
    reply["budget"]["used_tokens"] = 0
    rest = tokens.count(line(reply)) - tokens.count("0")
    used = rest
    while rest + tokens.count(str(used)) != used:
        used = rest + tokens.count(str(used))
    tried = []
    while used not in tried:
        tried.append(used)
        reply["budget"]["used_tokens"] = used
        real = tokens.count(line(reply))
        if real == used:
            return reply
        used = real
    reply["budget"]["used_tokens"] = max(tried[-2:])  # two counts a digit apart: the larger holds what it says
    return reply


def agent_freshness(fresh: dict) -> dict:
    """The index's freshness as an agent is given it: `FRESHNESS`, then ``embedded`` while chunks lack full vectors,
    ``missing_files`` when result files are gone, ``changed_files`` when result files changed since the index read
    them (their passages are the index's; `read` gives the file as it is now) and ``watch_error`` when the watcher
    failed."""
    out = {key: fresh.get(key) for key in FRESHNESS if key in fresh}
    embedded = fresh.get("embedded") or {}
    if embedded.get("full", 0) < embedded.get("chunks", 0):
        out["embedded"] = embedded
    out.update({key: fresh[key] for key in ("missing_files", "changed_files", "watch_error") if fresh.get(key)})
    return out


def as_json(answer: dict, agent_text: bool = False) -> dict:
    """What `search --json` and /api/search send: with a token budget, `for_agent` (and the block, ``agent_text``,
    when `agent_text`); without one, the whole answer, floats `rounded`."""
    if "budget" not in answer:
        return rounded(answer)
    return for_agent(answer, agent_text=agent_text)


def no_match_reply(answer: dict, face: str = "mcp") -> str:
    """Why a search found nothing good and what to try, in one sentence (held to the budget, if any): the
    floor's evidence and how to see the nearest passages anyway, as `face` spells it (`humanize.NO_FLOOR`); or,
    while the index may not hold the answer, that it is behind (`humanize.no_match_why`)."""
    if "budget" in answer:  # `budget.no_match_text`, as `recall.within_budget` made it
        return answer["agent_text"]
    return no_match_text(answer["query"], no_match_why(answer), hint=nearest_hint(answer, face))
