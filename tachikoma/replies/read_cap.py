"""A `read` held to what an agent is willing to pay for at once: ``[mcp] read_tokens``.

An agent pays for every token of a tool's answer, and its client forwards one of the answer's two forms (the text, or
the structured content) to its model whole. `read` answered as long as the lines asked for were, up to
``[index] max_file_bytes``: a Codex session holding one pasted log of 1.5 MB came back as about 300,000 tokens of text
and as many of structured content, more than a model's whole context. An answer whose larger form, counted as it is
sent (`tokens.count`; the structured content as compact JSON), holds more than the cap is refused before it is sent,
naming its size and the lines from its first that fit, so the agent reads on in parts (`refusal`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import TachikomaError
from ..humanize import printable
from . import tokens
from .reply import dumps

#: Of a first guess at the pieces that fit, how much of the cap an answer cut to them may fill before it is cut again
#: (`_fitting`): a margin for a read made again a moment later (a session grown by a line).
FILL = 0.95


def check(answer: dict, text: str, cap: int, render: Callable[[dict], str]) -> None:
    """Raise TachikomaError when the `read` `answer` (its structured content) or its `text` (`render(answer)`, as
    `mcp_answers.read_text` writes it) holds more than `cap` tokens (0: no cap), saying how many and which lines fit
    (`refusal`)."""
    if not cap or max(len(text), len(dumps(answer))) * 2 <= cap:  # a character is at most two tokens' worth
        return
    cost = _cost(answer, text)
    if cost > cap:
        raise TachikomaError(refusal(answer, cost, cap, render))


def _cost(answer: dict, text: str) -> int:
    """What the answer costs as sent: its larger form, the text or the structured content as compact JSON."""
    return max(tokens.count(text), tokens.count(dumps(answer)))


def refusal(answer: dict, cost: int, cap: int, render: Callable[[dict], str]) -> str:
    """Why the answer is not sent: its size, the cap, and the line range from its first line that fits (its pieces, a
    note's or a JSONL file's lines, a session's turns or a shared index's passages), measured as the answer cut to
    them is sent (`_fitting`), so asking for it is answered; or that its first piece alone is larger than the cap, or
    that the cap is smaller than a read's own framing."""
    first, last = answer["lines"] if "lines" in answer else (None, None)
    pieces = _pieces(answer)
    where = printable(answer["path"]) + (f" {_lines(first, last)}" if first is not None else "")
    said = (f"{where} would be about {cost:,} tokens, more than the {cap:,} a read gives at once "
            "([mcp] read_tokens)")
    count = _fitting(answer, pieces, cost, cap, render)
    if count:
        end = pieces[count - 1][1]
        if answer.get("view") == "indexed" and count < len(pieces):  # passages overlap: not the next one's lines
            end = max(pieces[count - 1][0], min(end, pieces[count][0] - 1))
        fits = (first if first is not None else pieces[0][0], end)
        return f"{said}: ask for lines '{fits[0]}-{fits[1]}', then read on from line {fits[1] + 1}"
    empty = _first(answer, 0)
    if (framing := _cost(empty, render(empty))) >= cap:
        return (f"{said}; [mcp] read_tokens ({cap:,}) is less than a read's own framing (about {framing:,} tokens): "
                "raise it, or set 0 for no cap")
    start, end, _ = pieces[0] if pieces else (first, first, "")
    on = f"; read on from line {end + 1}" if last is not None and end < last else ""
    return (f"{said}; {_lines(start, end)} alone is more than that: it is not read whole here (search finds its "
            f"passages){on}")


def _fitting(answer: dict, pieces: list[tuple[int, int, str]], cost: int, cap: int,
             render: Callable[[dict], str]) -> int:
    """How many of the answer's first `pieces` fit within `cap` as an answer holding them alone is sent: a first guess
    by each piece's own text (the answer's fields and framing a tenth of the cap and 200 tokens), then the answer cut
    to that many measured as sent (each line's number, each quoted line's "> ", JSON's escapes counted), and cut
    again until it fits, so the lines named are answered when asked for (never the same refusal again)."""
    room = cap - min(cost, cap) // 10 - 200
    used, count = 0, 0
    for _, _, text in pieces:
        used += max(tokens.count(text), tokens.count(dumps(text)))
        if used > room:
            break
        count += 1
    while count:
        part = _first(answer, count)
        sent = _cost(part, render(part))
        if sent <= cap * FILL:
            break
        count = min(count - 1, int(count * cap * FILL / sent))
    return count


def _first(answer: dict, count: int) -> dict:
    """The answer cut to its first `count` pieces (`_pieces`), as a read of their lines would give it."""
    first = answer["lines"][0] if "lines" in answer else None
    if answer.get("view") == "turns":
        turns = answer["turns"][:count]
        return {**answer, "turns": turns, "lines": [first, turns[-1]["last_line"] if turns else first]}
    if answer.get("view") == "indexed":
        return {**answer, "passages": answer["passages"][:count]}
    lines = answer["text"].split("\n")[:count]
    return {**answer, "text": "\n".join(lines), "lines": [first, first + len(lines) - 1]}


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
