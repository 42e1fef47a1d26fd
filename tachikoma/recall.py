"""A search answer cut to a token budget: the units of each result read from its file, then `budget.select`.

The faces (command line, JSON API, MCP) call `within_budget` with the answer `Searcher.search`
gave; they only pass the budget through. The units of a result are read from the memory file
behind it (its lines only): a transcript's turns as `turn_view` reads them ("speaker: text" and
their tool lines, each with its JSONL lines), a note's paragraphs (runs of lines between blank
lines; a fenced code block stays whole). A file that cannot be read any more (deleted since, or
in another memory of a shared store whose folder is not known) gives its chunk as one unit.
"""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Callable
from pathlib import Path

from . import budget, memory, tokens
from .reading.documents import TRANSCRIPT
from .errors import BadQuery, TachikomaError
from .fences import FenceTracker
from .humanize import answer_notes, index_behind, index_line, nearest_hint, no_match_why
from .reading.turn_view import read_for_agent, turn_body
from .vocabulary import BUDGET_RESULTS


def note_units(text: str, first_line: int) -> list[budget.Unit]:
    """The paragraphs of note lines starting at file line `first_line`."""
    out: list[budget.Unit] = []
    block: list[tuple[int, str]] = []
    fences = FenceTracker()
    for i, line in enumerate(text.split("\n")):
        in_code = fences.code(line)
        if line.strip() or in_code:
            block.append((first_line + i, line.rstrip()))
        elif block:
            out.append(budget.Unit(block[0][0], block[-1][0], "\n".join(t for _, t in block), lined=True))
            block = []
    if block:
        out.append(budget.Unit(block[0][0], block[-1][0], "\n".join(t for _, t in block), lined=True))
    return out


_TURN_LINE = re.compile(r"^[^\s:\[][^:\n]{0,60}: ")


def _chunk_turn_text(text: str) -> str:
    """A transcript chunk's text without its context lines (session, date): from its first turn."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _TURN_LINE.match(line)), 0)
    return "\n".join(lines[first:])


def units_of(root: Path | None, result: dict) -> list[budget.Unit]:
    """The units of one search result, read from its file under `root` ([] when it cannot be read).

    A transcript's units are its turns, and the turn before its first (the question its answer
    answers); a chunk that is a piece of a turn too long for one chunk is that piece, not the
    whole turn."""
    if root is None:
        return []
    first, last = result["lines"]
    try:
        if memory.kind_of(result["path"]) == TRANSCRIPT:
            read = read_for_agent(root, result["path"], f"{max(1, first - 1)}-{last}")
            units = [budget.Unit(t["line"], t["last_line"], f"{t['speaker']}: {turn_body(t)}")
                     for t in read["turns"] if turn_body(t) and t["last_line"] >= first - 1]
            before = [u for u in units if u.last < first]
            inner = [u for u in units if u.last >= first]
            piece = _chunk_turn_text(result.get("text") or "")
            if len(inner) == 1 and len(piece.split()) * 1.5 < len(inner[0].text.split()):
                inner = [budget.Unit(inner[0].first, inner[0].last, piece)]
            return [replace(u, context=True) for u in before[-1:]] + inner
        read = memory.read_text(root, result["path"], f"{first}-{last}")
        return note_units(read["text"], read["lines"][0])
    except (TachikomaError, OSError, ValueError):
        return []


RESULTS = BUDGET_RESULTS  # a search cut to a budget ranks at least this many results to choose from


def within_budget(answer: dict, budget_tokens: int, root: Path | Callable[[dict], Path | None] | None,
                  falloff: float = budget.FALLOFF, preamble: str = "") -> dict:
    """The answer with its results replaced by passages that fit `budget_tokens`.

    `root`: the memory folder, or a function giving a result's folder (a shared store). Adds
    ``"budget": {"budget_tokens", "used_tokens", "left_out", "passages"}`` and ``"agent_text"`` (the
    block an agent can paste, `preamble` its first line, counted in the budget) and keeps the rest of
    the answer (freshness, match, keywords). Raises BadQuery when the budget cannot hold one passage with
    its source line and the block's first line (saying what would). The answer's notes (the index's freshness
    while it is behind its files; `humanize.answer_notes`: words found nowhere) follow the preamble, counted too,
    and are left out when the evidence would not fit beside them (a long question's many unknown words). A question
    with no good match says why (`humanize.no_match_why`: while the index is behind, that it is)."""
    results = answer.get("results") or []
    query = answer.get("query", "")
    if answer.get("no_good_match") or not results:  # nothing to choose from: why, held to the budget
        out = {k: v for k, v in answer.items() if k != "results"}
        matchless = bool(answer.get("no_good_match"))
        out["agent_text"] = budget.no_match_text(query, no_match_why(answer) if matchless else "", budget_tokens,
                                                 hint=nearest_hint(answer) if matchless else "")
        out["budget"] = budget.select([], [], [], budget_tokens, reserve=tokens.count(out["agent_text"]))
        return out
    folder = root if callable(root) else (lambda _result: root)
    units = [units_of(folder(r), r) for r in results]

    def select(first: str) -> dict:
        return budget.select(results, units, answer.get("keywords") or [], budget_tokens, falloff=falloff,
                             reserve=budget.header_tokens(query, budget_tokens) + tokens.count(first + "\n" * bool(first)))

    fresh = answer.get("freshness") or {}
    notes = [index_line(fresh)] * index_behind(fresh) + answer_notes(answer)
    first = "\n".join([preamble] * bool(preamble) + notes)
    chosen = select(first)
    if notes and "needed" in chosen:  # no room for the first passage beside the notes: without them
        first, chosen = preamble, select(preamble)
    if "needed" in chosen:
        raise BadQuery(f"a budget of {budget_tokens} tokens cannot hold one passage of memory here: the "
                       f"block's first line and the passage's source take {chosen['needed'] - budget.MIN_PIECE} "
                       f"before any of its text; ask for at least {chosen['needed']}")
    passages = chosen["passages"]
    out = {k: v for k, v in answer.items() if k != "results"}
    out["budget"] = {**{k: v for k, v in chosen.items() if k != "passages"},
                     "passages": [p.as_dict() for p in passages]}
    out["agent_text"] = budget.agent_text(query, chosen, first)
    return out
