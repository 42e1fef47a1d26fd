"""A `read` held to what an agent is willing to pay for at once: ``[mcp] read_tokens``.

An agent pays for every token of a tool's answer, and its client forwards one of the answer's two forms (the text, or
the structured content) to its model whole. `read` answered as long as the lines asked for were, up to
``[index] max_file_bytes``: a Codex session holding one pasted log of 1.5 MB came back as about 300,000 tokens of text
and as many of structured content, more than a model's whole context. An answer whose larger form, counted as it is
sent (`tokens.count`; the structured content as compact JSON), holds more than the cap is refused before it is sent,
naming its size and the lines from its first that fit, so the agent reads on in parts (`refusal`).
"""

from __future__ import annotations

from ..errors import TachikomaError
from ..humanize import printable
from . import tokens
from .reply import dumps

def check(answer: dict, text: str, cap: int) -> None:
    """Raise TachikomaError when the `read` `answer` (its structured content) or its `text` holds more than `cap`
    tokens (0: no cap), saying how many and which lines fit (`refusal`)."""
    if not cap or max(len(text), len(dumps(answer))) * 2 <= cap:  # a character is at most two tokens' worth
        return
    cost = max(tokens.count(text), tokens.count(dumps(answer)))
    if cost > cap:
        raise TachikomaError(refusal(answer, cost, cap))


def refusal(answer: dict, cost: int, cap: int) -> str:
    """Why the answer is not sent: its size, the cap, and the line range from its first line that fits (its pieces, a
    note's or a JSONL file's lines, a session's turns or a shared index's passages, counted alike in both forms), or
    that its first piece alone is larger than the cap."""
    first, last = answer["lines"] if "lines" in answer else (None, None)
    pieces = _pieces(answer)
    room = cap - min(cost, cap) // 10 - 200  # the answer's own fields and framing, and JSON's escaping
    used, fits = 0, None
    for start, end, text in pieces:
        used += max(tokens.count(text), tokens.count(dumps(text)))
        if used > room:
            break
        fits = (first if first is not None else start, end)
    where = printable(answer["path"]) + (f" {_lines(first, last)}" if first is not None else "")
    said = (f"{where} would be about {cost:,} tokens, more than the {cap:,} a read gives at once "
            "([mcp] read_tokens)")
    if fits is None:
        start, end, _ = pieces[0] if pieces else (first, first, "")
        on = f"; read on from line {end + 1}" if last is not None and end < last else ""
        return (f"{said}; {_lines(start, end)} alone is more than that: it is not read whole here (search finds its "
                f"passages){on}")
    return f"{said}: ask for lines '{fits[0]}-{fits[1]}', then read on from line {fits[1] + 1}"


def _lines(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _pieces(answer: dict) -> list[tuple[int, int, str]]:
    """The answer's pieces in order, each (first line, last line, its text)."""
    if answer.get("view") == "turns":
        return [(t["line"], t["last_line"], "\n".join([t["text"] or "", *t["actions"]])) for t in answer["turns"]]
    if answer.get("view") == "indexed":
        return [(p["lines"][0], p["lines"][1], p["text"]) for p in answer["passages"]]
    first = answer["lines"][0]
    return [(first + i, first + i, line) for i, line in enumerate(answer["text"].split("\n"))]
