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
from collections.abc import Callable, Sequence
from pathlib import Path

from . import budget, tokens
from .. import memory
from ..reading.documents import TRANSCRIPT
from ..errors import BadQuery, TachikomaError
from ..chunking import read_line
from ..fences import FenceTracker
from ..humanize import answer_notes, index_behind, index_line, nearest_hint, no_match_why
from ..reading.turn_view import read_for_agent, turn_body
from ..vocabulary import BUDGET_RESULTS


def note_units(text: str, first_line: int) -> list[budget.Unit]:
    """The paragraphs of note lines starting at file line `first_line`, each line outside a code block as the chunks
    hold it (`chunking.read_line`): a line that says nothing (Logseq's ``id:: <uuid>``) is left out, ending its
    paragraph as a blank line does (each line of a paragraph is the file's next), block references are left out."""
    out: list[budget.Unit] = []
    block: list[tuple[int, str]] = []
    fences = FenceTracker()
    for i, line in enumerate(text.split("\n")):
        in_code = fences.code(line)
        line = line if in_code else read_line(line) or ""
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


def units_of(root: Path | None, result: dict, redact: bool = True) -> list[budget.Unit]:
    """The units of one search result, read from its file under `root` ([] when it cannot be read), its
    secrets as markers unless `redact` is false (``[privacy] redact_secrets``).

    A transcript's units are its turns, and the turn before its first (the question its answer
    answers); a chunk that is a piece of a turn too long for one chunk is that piece, not the
    whole turn."""
    if root is None:
        return []
    first, last = result["lines"]
    try:
        if memory.kind_of(result["path"]) == TRANSCRIPT:
            read = read_for_agent(root, result["path"], f"{max(1, first - 1)}-{last}", redact=redact)
            units = [budget.Unit(t["line"], t["last_line"], f"{t['speaker']}: {turn_body(t)}")
                     for t in read["turns"] if turn_body(t) and t["last_line"] >= first - 1]
            before = [u for u in units if u.last < first]
            inner = [u for u in units if u.last >= first]
            piece = _chunk_turn_text(result.get("text") or "")
            if len(inner) == 1 and len(piece.split()) * 1.5 < len(inner[0].text.split()):
                inner = [budget.Unit(inner[0].first, inner[0].last, piece)]
            return [replace(u, context=True) for u in before[-1:]] + inner
        read = memory.read_text(root, result["path"], f"{first}-{last}", redact=redact)
        return note_units(read["text"], read["lines"][0])
    except (TachikomaError, OSError, ValueError):
        return []


RESULTS = BUDGET_RESULTS  # a search cut to a budget ranks at least this many results to choose from


#: The forms a budgeted answer is sent in, each held to the budget as it is sent (`sent`): the block alone (the command
#: line without --json), compact JSON (`reply.as_json`: `search --json`, /api/search), that JSON holding the block too
#: (``agent_text``: `--agent-text`, ``agent_text=1``), and MCP's two side by side (its structured content, `reply.for_agent`,
#: and its text, the block with the line that frames passages as data).
FORMS = ("block", "json", "json+text", "mcp")
#: What takes a budget's first tokens before a passage's text, in each form's words (the refusal says it).
FRAME_WORDS = {"block": "the block's first line and the passage's source",
               "json": "the reply's JSON fields (the question, the index's freshness, the budget's counts) and the "
                       "passage's source, date, trust, score and why",
               "json+text": "the reply's JSON fields, the block's first line and the passage's source, date, trust, "
                            "score and why, twice",
               "mcp": "the reply's JSON fields (the structured content) and the passage's source, date, trust, score "
                      "and why"}


def sent(answer: dict, form: str) -> list[str]:
    """What a face sends of a budgeted answer in `form` (`FORMS`), each piece held to the budget on its own: the
    block, or the JSON as it is serialised (compact), or MCP's structured content and its text."""
    from .reply import as_json, for_agent, line

    if form == "block":
        return [answer["agent_text"]]
    if form == "mcp":
        return [line(for_agent(answer)), answer["agent_text"]]
    return [line(as_json(answer, agent_text=form == "json+text"))]


def within_budget(answer: dict, budget_tokens: int, root: Path | Callable[[dict], Path | None] | None,
                  falloff: float = budget.FALLOFF, preamble: str = "", form: str = "block", face: str = "cli",
                  redact: bool = True) -> dict:
    """The answer with its results replaced by passages that fit `budget_tokens` in `form` (`FORMS`: what the face
    sends, counted as it is sent, by `sent`).

    `root`: the memory folder, or a function giving a result's folder (a shared store). Adds
    ``"budget": {"budget_tokens", "used_tokens", "left_out", "passages"}`` and ``"agent_text"`` (the
    block an agent can paste, `preamble` its first line, counted in the budget) and keeps the rest of
    the answer (freshness, match, keywords). Raises BadQuery when the budget cannot hold one passage with
    its source line and the block's first line, or in JSON the reply's fields (saying what would). The answer's
    notes (the index's freshness while it is behind its files; `humanize.answer_notes`: words found nowhere) follow
    the preamble, counted too, and are left out when the evidence would not fit beside them (a long question's
    many unknown words). A question with no good match says why (`humanize.no_match_why`: while the index is
    behind, that it is) and what to try as `face` spells it (`humanize.nearest_hint`), as much as fits."""
    if form not in FORMS:
        raise ValueError(f"a budgeted answer is sent as one of {', '.join(FORMS)}, not {form!r}")
    results = answer.get("results") or []
    query = answer.get("query", "")
    rest = {k: v for k, v in answer.items() if k != "results"}
    if answer.get("no_good_match") or not results:  # nothing to choose from: why, held to the budget
        return _no_match(rest, budget_tokens, form, face)
    folder = root if callable(root) else (lambda _result: root)
    units = _Units(results, folder, redact)
    cost, text_cost = _costs(form)

    named = budget.named_results(answer)  # a passage names its memory when several were searched

    def select(first: str) -> dict:
        return budget.select(named, units, answer.get("keywords") or [], budget_tokens, falloff=falloff,
                             reserve=_reserve(rest, budget_tokens, first, form), cost=cost, text_cost=text_cost)

    fresh = answer.get("freshness") or {}
    notes = [index_line(fresh)] * index_behind(fresh) + answer_notes(answer, counted=False)  # passages, not results
    first = "\n".join([preamble] * bool(preamble) + notes)
    chosen = select(first)
    if notes and "needed" in chosen:  # no room for the first passage beside the notes: without them
        first, chosen = preamble, select(preamble)
    if "needed" in chosen:
        raise _too_small(budget_tokens, chosen["needed"] - budget.MIN_PIECE, chosen["needed"], form)
    if form == "block":
        return _with(rest, chosen, query, first, results)
    return _held(rest, chosen, query, first, budget_tokens, form, results)


class _Units(Sequence):
    """Each result's units (`units_of`), read from its file when `budget.select` first asks for them: a result
    under the falloff is never read."""

    def __init__(self, results: list[dict], folder: Callable[[dict], Path | None], redact: bool):
        self.results, self.folder, self.redact, self.read = results, folder, redact, {}

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i: int) -> list[budget.Unit]:
        if i not in self.read:
            self.read[i] = units_of(self.folder(self.results[i]), self.results[i], self.redact)
        return self.read[i]


def _costs(form: str) -> tuple[Callable | None, Callable[[str], int]]:
    """What a passage costs in `form` (`budget.select`'s `cost` and `text_cost`): the block's, its JSON's (with the
    comma after it), or both."""
    if form == "block":
        return None, tokens.count
    from .reply import dumps

    def as_json(p: budget.Passage, _n: int) -> int:
        return tokens.count(dumps(budget.agent_passage(p.as_dict()))) + 1

    def text_json(text: str) -> int:
        return tokens.count(dumps(text))

    if form == "json":
        return as_json, text_json
    if form == "json+text":  # the block inside the JSON: a string, escaped
        return (lambda p, n: as_json(p, n) + tokens.count(dumps(p.block(n)))), (lambda text: 2 * text_json(text))
    return (lambda p, n: max(as_json(p, n), budget.block_cost(p, n))), text_json  # mcp: each on its own


def _reserve(rest: dict, budget_tokens: int, first: str, form: str) -> int:
    """The tokens `form` spends before its first passage: the block's first lines (`first`, the header), and in JSON
    the reply's fields, counted as sent with no passage (its counts at their largest)."""
    block = budget.header_tokens(rest.get("query", ""), budget_tokens) + tokens.count(first + "\n" * bool(first))
    if form == "block":
        return block
    empty = {"budget_tokens": budget_tokens, "used_tokens": budget_tokens, "passages": [],
             "left_out": {"below_falloff": 99, "overlap": 99, "duplicate": 99, "over_budget": 99}}
    header = budget.header(rest.get("query", ""), 99, budget_tokens, budget_tokens)
    shell = {**rest, "budget": empty, "agent_text": "\n".join([first] * bool(first) + [header])}
    return max(tokens.count(piece) for piece in sent(shell, form)) + 1


def _too_small(budget_tokens: int, frame: int, needed: int, form: str) -> BadQuery:
    return BadQuery(f"a budget of {budget_tokens} tokens cannot hold one passage of memory here: "
                    f"{FRAME_WORDS[form]} take {frame} before any of its text; ask for at least {needed}")


def _with(rest: dict, chosen: dict, query: str, first: str, results: list[dict],
          block_used: int | None = None) -> dict:
    """The answer with `chosen`'s passages (`budget.select`'s, of `results`), and their block; `block_used`: what
    the block's first line says it uses (default: the selection's count). The things the question names
    (``named_parts``) count the passages the reply holds for each, not the search's results (`held_for`)."""
    out = dict(rest)
    out["budget"] = {**{k: v for k, v in chosen.items() if k != "passages"},
                     "passages": [p.as_dict() for p in chosen["passages"]]}
    if rest.get("named_parts"):
        out["named_parts"] = held_for(rest["named_parts"], results, chosen["passages"])
    said = chosen if block_used is None else {**chosen, "used_tokens": block_used}
    out["agent_text"] = budget.agent_text(query, said, first)
    return out


def _held(rest: dict, chosen: dict, query: str, first: str, budget_tokens: int, form: str,
          results: list[dict]) -> dict:
    """The answer with `chosen`'s passages as `form` sends it (`sent`), held to `budget_tokens` as counted there: the
    last passage left out while it does not fit, the only one cut shorter; ``used_tokens`` is then what the JSON
    counts (`reply.as_json`, `reply.for_agent` count it again as they send it), and the block's first line says what
    the block counts. Raises BadQuery when not even `budget.FIRST_PIECE` tokens of the first passage fit."""
    chosen = {**chosen, "passages": list(chosen["passages"]), "left_out": dict(chosen["left_out"])}
    while True:
        out = _settled_block(rest, chosen, query, first, results)
        over = max(tokens.count(piece) for piece in sent(out, form)) - budget_tokens
        if over <= 0:
            return out
        if len(chosen["passages"]) > 1:
            chosen["passages"].pop()
            chosen["left_out"]["over_budget"] += 1
            continue
        only = chosen["passages"][0]  # cut by what is over (its text is twice in JSON holding the block)
        keep = tokens.count(only.text) - -(-over // (2 if form == "json+text" else 1)) - 1
        if keep < budget.FIRST_PIECE:
            frame = budget_tokens + over - tokens.count(only.text)
            raise _too_small(budget_tokens, frame, frame + budget.MIN_PIECE, form)
        text = tokens.cut(only.text, keep)
        last = only.lines[0] + text.count("\n") if only.kind == "markdown" else only.lines[1]
        chosen["passages"][0] = replace(only, text=text + "…", lines=(only.lines[0], last), trimmed=True)


def _settled_block(rest: dict, chosen: dict, query: str, first: str, results: list[dict]) -> dict:
    """`_with`, the block's first line saying what the block itself counts."""
    used = chosen["used_tokens"]
    for _ in range(4):
        out = _with(rest, chosen, query, first, results, block_used=used)
        counted = tokens.count(out["agent_text"])
        if counted == used:
            break
        used = counted
    return out


def held_for(named: list[dict], results: list[dict], passages: list[budget.Passage]) -> list[dict]:
    """The things a question names (``named_parts``), each counted as the passages chosen of `results` hold it
    (a passage's result `found_for` it, or ranked as high for it: `search.parts.recounted`): a thing's result under
    the falloff, a duplicate or one the budget had no room for is no passage of the reply. What each thing's own
    search found (``no_good_match``) stays as it was."""
    from ..search.parts import recounted  # here: search/ costs numpy, which printing a host's answer never needs

    return recounted({"named_parts": named, "results": [results[p.rank - 1] for p in passages]})["named_parts"]


def _no_match(rest: dict, budget_tokens: int, form: str, face: str) -> dict:
    """A budgeted answer with nothing to choose from: the longest `budget.no_match_texts` whose reply fits in `form`
    (why and what to try, as `face` spells it, when there is no good match; that nothing matches, when the memory has
    no results). Raises BadQuery when not even the bare fact fits beside a JSON reply's fields."""
    matchless = bool(rest.get("no_good_match"))
    candidates = budget.no_match_texts(rest.get("query", ""), no_match_why(rest) if matchless else "",
                                       hint=nearest_hint(rest, face) if matchless else "")
    out = dict(rest)
    for text in candidates:
        out["agent_text"] = text
        out["budget"] = budget.select([], [], [], budget_tokens, reserve=tokens.count(text))
        if max(tokens.count(piece) for piece in sent(out, form)) <= budget_tokens:
            return out
    if form == "block":
        return out
    needed = max(tokens.count(piece) for piece in sent(out, form))
    raise BadQuery(f"a budget of {budget_tokens} tokens cannot hold the reply here: nothing matches, and saying so "
                   f"with the reply's JSON fields (the question, the index's freshness, the budget's counts) takes "
                   f"{needed}; ask for at least {needed}")
