"""Recall within a token budget: the most useful evidence of a ranked answer that fits, not its first chunks.

Pure: it is given the search's results (path, line range, text, score, tags, factors), each with
its units (the turns of a transcript chunk or the paragraphs of a note chunk, each with its file
lines; `recall.units_of` reads them), and the query's words; it reads nothing.

How the passages are chosen (`select`):

1. **Adaptive cut.** Results are taken best first while their score without their tags' weights
   (`relevance`) is at least `FALLOFF` × the best of their own search (the question's, or a thing's it
   names: `search.parts.best_scores`); what falls below is weak evidence and left out, even when the
   budget has room. The tags order the passages but do not cut them: an untagged note (0.42) that
   answers as well as a tagged chat above it (0.81 or 0.9) is under half its score.
2. **Trimmed to what matched.** In each result the unit holding most of the query's words (rarer
   words first: a word found in fewer of the results counts more) is the passage's centre (one of
   the chunk's own units: the turn before a transcript chunk is context, never the centre); the
   matched units next to it are added, and one unmatched unit, the one before it (the question an
   answer answers), while the passage stays under `PASSAGE_SHARE` of the budget and `PASSAGE_MAX`
   tokens. A result matched by meaning alone keeps its first own units. A centre longer than that is
   cut to a window around its first matched word, leaving room for the unit before it.
3. **Never twice.** A line already given by an earlier passage is not given again: a note's paragraph
   keeps its other lines (two chunks that overlap split a list at different lines), a turn or a chunk
   reached in part is left out; a passage left with nothing new is dropped (``overlap``).
4. **The same fact from two files once.** A passage whose word 5-grams are at least `DUPLICATE`
   contained in those of a passage already chosen is dropped, and the chosen one says where else
   it is (``also_in``). Two files quoting the same sentences are caught; the same fact in other
   words is not.
5. **Within the budget.** Passages are counted as an agent receives them (heading line and text,
   `tokens.count`); one that does not fit is cut to the room left when that is at least
   `MIN_PIECE` tokens, else skipped for smaller ones after it. At least one passage always comes
   back: the best result, cut to the budget when it alone is larger, as long as `FIRST_PIECE` tokens
   of its text fit beside its source line; a smaller budget gets none, and ``needed`` says how many
   tokens would give one (the faces refuse it: `recall.within_budget`). A passage's line range is
   that of the text it kept: a cut that leaves out the turn before the match, or the first lines
   of a note's paragraph, leaves their lines out of the range too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from . import tokens
from ..humanize import printable, short_query, shown_day, tool_match_text, unsafe_escaped
from ..language.segment import fold_accents

#: Results scoring below this share of the best score are left out (the adaptive cut).
FALLOFF = 0.5
#: A passage grows around its match up to this share of the budget, and at most `PASSAGE_MAX` tokens.
PASSAGE_SHARE = 0.4
PASSAGE_MAX = 250
#: A passage whose 5-grams are this much contained in a chosen one's is a duplicate.
DUPLICATE = 0.8
#: A passage is cut to the room left in the budget only when at least this many tokens are left.
MIN_PIECE = 40
#: The first passage, cut to the budget, keeps at least this many tokens of text; a smaller budget is
#: refused (`select`'s ``needed``) rather than answered with a source line and no evidence.
FIRST_PIECE = MIN_PIECE // 2
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Unit:
    """A turn or paragraph of a result: its file lines (first, last) and text. `lined`: each line of
    the text is one line of the file, from `first` (a note's paragraph), so a piece of the text has
    lines of its own; otherwise (a turn, a chunk) any piece of it is given the unit's lines."""
    first: int
    last: int
    text: str
    lined: bool = False
    #: Given for context only, not part of the result's chunk (the turn before a transcript chunk, the
    #: question its answer answers): added around the passage's centre, never its centre.
    context: bool = False

    def piece(self, start: int, end: int, text: str | None = None) -> Unit:
        """The unit holding only ``self.text[start:end]`` (shown as `text`, "…" marks and all), with
        the file lines of that piece."""
        shown = self.text[start:end] if text is None else text
        if not self.lined:
            return Unit(self.first, self.last, shown)
        return Unit(self.first + self.text.count("\n", 0, start),
                    self.first + self.text.count("\n", 0, max(start, end - 1)), shown, lined=True)


@dataclass
class Passage:
    path: str
    lines: tuple[int, int]
    text: str
    score: float
    rank: int  # the result's place in the ranking, from 1
    date: str | None
    trust: str | None
    confidence: str | None
    why: str
    kind: str = "markdown"
    tokens: int = 0
    trimmed: bool = False
    also_in: list[str] = field(default_factory=list)
    memory: str | None = None
    stale: str | None = None  # `staleness`: "stale: billing/retry.py changed in 3 commits since, last …"
    #: Where a whole result's keywords were found in its tool calls, and their text read back
    #: (`humanize.tool_match_text`: "keywords 100% from tool calls: the input of Edit (line 12): …").
    tools: str | None = None
    #: Where a weak date comes from (`reading.dates`: the commit that imported the file with many others, or the
    #: file's time), said beside it: it is not when what the passage says happened. None: the memory's own date or
    #: its last edit.
    weak_date: str | None = None

    def heading(self) -> str:
        """The line before the passage's text: where it is from and how far to trust it."""
        day = (self.date or "")[:10] or "undated"
        day += f" ({self.weak_date})" if self.weak_date and self.date else ""
        stale = f"; {printable(self.stale)}: check the code" if self.stale else ""
        trust = trust_words(self.trust, self.confidence)
        where = f"[{self.memory}] {self.path}" if self.memory is not None else self.path
        return f"{printable(where)}:{self.lines[0]}-{self.lines[1]} · {day} · ({trust}{stale})"

    def block(self, n: int, with_why: bool = False) -> str:
        """The passage as the agent's block shows it, numbered `n`: its text, then where it is from (and,
        `with_why`, its score and why, and where its keywords were found in tool calls)."""
        also = f"; also in {', '.join(self.also_in)}" if self.also_in else ""
        why = f" · score {self.score:.3f}" + f"; {self.why}" * bool(self.why) if with_why else ""
        tools = f"\n   ({printable(self.tools)})" if with_why and self.tools else ""
        return f"{n}.\n{quoted(self.text.strip())}\n   — {self.heading()}{also}{why}{tools}\n"

    def as_dict(self) -> dict:
        """Everything the passage holds (`recall.within_budget`'s ``budget.passages``); its memory and tool calls
        when it has them."""
        out = {"path": self.path, "lines": list(self.lines), "date": self.date, "trust": self.trust,
               "confidence": self.confidence, "score": self.score, "rank": self.rank, "why": self.why,
               "text": self.text, "tokens": self.tokens, "trimmed": self.trimmed, "also_in": self.also_in,
               "kind": self.kind, "stale": self.stale}
        out.update({key: value for key, value in (("memory", self.memory), ("tools", self.tools),
                                                  ("weak_date", self.weak_date)) if value is not None})
        return out

    def as_result(self) -> dict:
        """The passage as an agent is given it (`agent_passage`)."""
        return agent_passage(self.as_dict())


#: What an agent is given of a passage beside its path, lines, date, trust, confidence, score, why and text, only
#: when it has it: its memory (a shared store), stale files, tool calls, the other files holding it, that it
#: was trimmed (less than its result: `read` gives the rest), and where a weak date comes from.
AGENT_EXTRAS = ("memory", "stale", "tools", "also_in", "trimmed", "weak_date")


def agent_passage(passage: dict) -> dict:
    """A passage (`Passage.as_dict`) as an agent is given it (MCP's structured content; `search --json` and
    /api/search with a budget): where, when (the day), how far to trust it, its score and why, and its text, then
    `AGENT_EXTRAS` it has. Left out: its rank (the order says it), its tokens and kind (its path says it)."""
    out = {"path": passage["path"], "lines": list(passage["lines"]), "date": (passage.get("date") or "")[:10] or None,
           "trust": passage.get("trust"), "confidence": passage.get("confidence"), "score": passage["score"],
           "why": passage.get("why"), "text": passage["text"]}
    out.update({key: passage[key] for key in AGENT_EXTRAS if passage.get(key)})
    return out


def trust_words(trust: str | None, confidence: str | None) -> str:
    """How far to act on a memory, in words: an owner's or the agent's own sure memory plainly, an
    untrusted or speculative one hedged."""
    if trust == "untrusted":
        return "untrusted source; verify"
    if confidence in ("low", "speculative"):
        return f"{confidence}; verify before acting"
    if trust == "external":
        return "external source" + (f", {confidence} confidence" if confidence else "")
    if trust in ("owner", "self") and confidence == "high":
        return f"{trust}, high confidence"
    parts = [p for p in (trust, f"{confidence} confidence" if confidence else None) if p]
    return ", ".join(parts) if parts else "untagged"


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def asked(terms: list[str]) -> list[str]:
    """The query's keywords (`terms`, as the answer lists them) as the text is read for them: lower case, a
    prefix term ("zusatz*", a compound's first part) as the start it asks for."""
    return [t.lower().removesuffix("*") for t in terms if t.strip("*")]


def _held(text: str) -> set[str]:
    """The words of `text` as `_matches` reads them: each as written and with its accents folded, as the keyword
    index reads them ("école" is held as "ecole" too)."""
    written = words(text)
    return {*written, *map(fold_accents, written)}


def _matches(word_set: set[str], term: str) -> bool:
    """Whether `word_set` (`_held`) holds `term`, accents folded: "schedule" finds "schedules", "ecole" "école",
    "zusatz" (asked "zusatz*") "zusätzlich"."""
    folded = fold_accents(term)
    return term in word_set or folded in word_set or len(term) >= 4 and any(w.startswith(folded) for w in word_set)


def _weights(terms: list[str], results_units: list[list[Unit]]) -> dict[str, float]:
    """A term found in fewer of the results that may give a passage counts more (1 / results holding it)."""
    sets = [_held(" ".join(u.text for u in units)) for units in results_units]
    return {t: 1.0 / max(1, sum(_matches(s, t) for s in sets)) for t in terms}


def _unit_scores(units: list[Unit], weights: dict[str, float]) -> list[float]:
    out = []
    for unit in units:
        held = _held(unit.text)
        out.append(sum(w for t, w in weights.items() if _matches(held, t)))
    return out


def window_span(text: str, terms: list[str], budget: int) -> tuple[int, int]:
    """Where `window` cuts `text`: the kept text is ``text[start:end]``."""
    if tokens.count(text) <= budget:
        return 0, len(text)
    lowered = text.lower()
    hits = [i for i in (lowered.find(t) for t in terms) if i >= 0]
    start = 0
    if hits:
        at = min(hits)
        before = max(text.rfind("\n", 0, at), text.rfind(". ", 0, at))
        start = before + 1 if before >= 0 else 0
        if tokens.count(text[start:at]) > budget // 2:  # a long sentence: start a few words before
            start = max(0, text.rfind(" ", 0, max(0, at - 60)) + 1)
    rest = text[start:]
    start += len(rest) - len(rest.lstrip())
    body = tokens.cut(text[start:], max(1, budget - 2 * (start > 0) - 1))
    return start, start + len(body)


def window(text: str, terms: list[str], budget: int) -> str:
    """At most `budget` tokens of `text` around its first matched term (from the start of that line
    or sentence), marked with "…" where cut."""
    return _marked(text, *window_span(text, terms, budget))


def _marked(text: str, start: int, end: int) -> str:
    """``text[start:end]`` with "…" where text was cut off before or after it."""
    if (start, end) == (0, len(text)):
        return text
    return "…" * (start > 0) + text[start:end] + "…" * bool(text[end:].strip())


def _cut_units(units: list[Unit], terms: list[str], budget: int) -> list[Unit]:
    """`units` as `window` cuts their text (`_render_units`) to `budget` tokens: the units the kept
    text reaches into, the first and last of them cut to their kept piece (with its own lines), "…"
    where text was cut off. [] when nothing of them is kept."""
    text = _render_units(units)
    start, end = window_span(text, terms, budget)
    if (start, end) == (0, len(text)):
        return list(units)
    kept, at = [], 0
    for unit in units:
        lo, hi = max(start - at, 0), min(end - at, len(unit.text))
        if lo < hi:
            kept.append(unit.piece(lo, hi))
        at += len(unit.text) + 1
    if kept and start > 0:
        kept[0] = replace(kept[0], text="…" + kept[0].text)
    if kept and text[end:].strip():
        kept[-1] = replace(kept[-1], text=kept[-1].text + "…")
    return kept


def _shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + n]) for i in range(max(1, len(w) - n + 1))} if w else set()


def why(result: dict, matched: list[str]) -> str:
    """Why a result ranks where it does, in a few words an agent reads beside its score: "matched retry,
    schedule" (else "matched in its tool calls", else how close in meaning), the time the question named, whether
    it holds the kind of thing asked for ("a time of day"), and a newer memory that supersedes it ("superseded by
    b.md (2026-05-01)").
    The whole arithmetic is `search.explain.sentence`."""
    f = result.get("factors") or {}
    parts = [f"found for “{result['found_for']}”"] if result.get("found_for") else []
    if matched:
        parts.append("matched " + ", ".join(matched[:6]))
    elif tool_match_text(result):  # its words are in its tool calls (``tools`` says where), not its meaning
        parts.append("matched in its tool calls")
    elif f.get("vector_similarity") is not None:
        parts.append(f"close in meaning ({f['vector_similarity']:.2f})")
    if f.get("time_reason"):
        parts.append(str(f["time_reason"]))
    if f.get("asked_reason"):
        parts.append(str(f["asked_reason"]))
    newer = f.get("superseded_by")
    if f.get("recency_reason") == "superseded" and newer:
        parts.append(f"superseded by {newer['path']} ({shown_day(newer['date'])})")
    return "; ".join(parts)


def matched_terms(text: str, terms: list[str]) -> list[str]:
    """The query's words (`terms`, lower case) that `text` holds ("schedule" finds "schedules")."""
    held = _held(text)
    return [t for t in terms if _matches(held, t)]


def _render_units(units: list[Unit]) -> str:
    return "\n".join(u.text for u in units)


def _passage_units(units: list[Unit], scores: list[float], cap: int, terms: list[str]) -> tuple[list[Unit], bool]:
    """The units of one passage (contiguous) and whether it is less than the whole result.

    The centre is the best matched unit of the chunk's own (the first of them when none matched; a
    `Unit.context` unit is never the centre, only its neighbour); a centre larger than
    the cap is cut to two thirds of it around its match, leaving room for a neighbour. Matched
    neighbours are added while they fit, and one unmatched neighbour at most, the one before (the
    question an answer answers, the lead-in of a paragraph), cut to the room left if need be."""
    if not units:
        return [], False
    own = [i for i, u in enumerate(units) if not u.context] or list(range(len(units)))
    centre = max(range(len(units)), key=lambda i: (scores[i], not units[i].context, -i)) if max(scores) > 0 else own[0]
    picked = list(units)
    if tokens.count(units[centre].text) > cap:
        picked[centre] = (_cut_units([units[centre]], terms, cap * 2 // 3) or [units[centre]])[0]
    lo = hi = centre
    unmatched = 0
    while True:
        options = [i for i in (lo - 1, hi + 1) if 0 <= i < len(units) and (scores[i] > 0 or not unmatched)]
        options.sort(key=lambda i: (-scores[i], i > hi))  # matched ones first, then the one before
        added = False
        for i in options:
            if tokens.count(_render_units(picked[min(lo, i):max(hi, i) + 1])) <= cap:
                added = True
            elif (room := cap - tokens.count(_render_units(picked[lo:hi + 1])) - 2) >= MIN_PIECE // 2:
                head = tokens.cut(units[i].text, room)
                picked[i] = units[i].piece(0, len(head), head + "…")
                added = True
            if added:
                unmatched += scores[i] <= 0
                lo, hi = min(lo, i), max(hi, i)
                break
        if not added:
            break
    return picked[lo:hi + 1], (lo, hi) != (0, len(units) - 1) or picked[lo:hi + 1] != units[lo:hi + 1]


def _not_given(unit: Unit, given: set[int]) -> list[Unit]:
    """What of `unit` no earlier passage gave (`given`: its file's lines given): all of it, the runs of a
    note's paragraph's lines not given (not one of blank lines only: a code block's), or nothing of a turn or
    chunk given in part."""
    lines = range(unit.first, unit.last + 1)
    if not given.intersection(lines):
        return [unit]
    rows = unit.text.split("\n")
    if not unit.lined or len(rows) != len(lines):
        return []
    runs: list[list[tuple[int, str]]] = [[]]
    for line, row in zip(lines, rows):
        if line in given:
            runs.append([])
        else:
            runs[-1].append((line, row))
    return [replace(unit, first=run[0][0], last=run[-1][0], text="\n".join(row for _, row in run))
            for run in runs if any(row.strip() for _, row in run)]  # not a code block's blank line alone


def block_cost(passage: Passage, n: int) -> int:
    """What passage number `n` costs in the block (`Passage.block`): `select`'s default."""
    return tokens.count(passage.block(n))


def relevance(result: dict) -> float:
    """A result's score without its tags' weights (trust × confidence): how well it answers, which the adaptive cut
    reads. The tags order the passages; they do not leave out an untagged note that answers as well as the tagged
    chat ranked above it (0.42 against 0.81: under half its score)."""
    f = result.get("factors") or {}
    tags = float(f.get("trust_weight") or 1.0) * float(f.get("confidence_weight") or 1.0)
    return float(result.get("score") or 0) / tags


def select(results: list[dict], units: Sequence[list[Unit]], terms: list[str], budget: int,
           falloff: float = FALLOFF, passage_share: float = PASSAGE_SHARE, reserve: int = 0,
           cost: Callable[[Passage, int], int] | None = None, text_cost: Callable[[str], int] = tokens.count) -> dict:
    """The passages of `results` (ranked, best first; `units[i]` the units of `results[i]`) for a
    budget of `budget` tokens. Returns ``{"budget_tokens", "used_tokens", "passages": [Passage],
    "left_out": {"below_falloff", "overlap", "duplicate", "over_budget"}}``, and ``"needed"`` (the budget
    that would hold the first passage) when this one cannot. `units` is read in order, and of a result under the
    falloff only while none has given a passage (a lazy sequence need not read the rest). `reserve` tokens of the
    budget are kept for a heading (`agent_text`'s first line, or a JSON reply's fields) and counted as used. `cost`:
    what passage number n costs in the reply as it is sent (default `block_cost`), `text_cost` what its text alone
    costs there."""
    custom = cost is not None
    cost_of = cost or block_cost
    if budget < 1:
        raise ValueError(f"a token budget must be at least 1, not {budget}")
    terms = asked(terms)
    left_out = {"below_falloff": 0, "overlap": 0, "duplicate": 0, "over_budget": 0}
    out = {"budget_tokens": budget, "used_tokens": min(reserve, budget), "passages": [], "left_out": left_out}
    if not results:
        return out
    # A result falls off under `falloff` × the best score of its own search: the question's, or that of the thing
    # the question names that it was found for (`search.parts`), whose scores are its own.
    from ..search.parts import best_scores  # here: search/ costs numpy, which printing a host's answer never needs

    best = best_scores(results, relevance)
    falls = [bool(i) and relevance(r) < falloff * best[r.get("found_for")] for i, r in enumerate(results)]
    weights = _weights(terms, [units[i] for i, fell in enumerate(falls) if not fell])
    cap = max(MIN_PIECE, min(int(budget * passage_share), PASSAGE_MAX))
    given: dict[tuple[str, str | None], set[int]] = {}  # (path, memory): the file lines given
    chosen: list[tuple[Passage, set]] = []
    used = min(reserve, budget)
    for rank, result in enumerate(results, 1):
        score = float(result.get("score") or 0)
        if chosen and falls[rank - 1]:
            left_out["below_falloff"] += 1
            continue
        its_units = units[rank - 1]
        path, memory = result["path"], result.get("memory")
        if not its_units:  # nothing finer known: the chunk is one unit
            its_units = [Unit(result["lines"][0], result["lines"][1], result.get("text") or "")]
        fresh = [piece for u in its_units for piece in _not_given(u, given.get((path, memory), set()))]
        if not fresh:
            left_out["overlap"] += 1
            continue
        scores = _unit_scores(fresh, weights)
        picked, trimmed = _passage_units(fresh, scores, cap, terms)
        trimmed = trimmed or len(fresh) < len(its_units)
        text = _render_units(picked)
        if tokens.count(text) > cap:
            picked, trimmed = _cut_units(picked, terms, cap) or picked, True
            text = _render_units(picked)
        matched = matched_terms(text, terms)
        shingles = _shingles(text)
        twin = next((p for p, s in chosen if shingles and len(shingles & s) >= DUPLICATE * len(shingles)), None)
        if twin is not None:
            where = f"{path}:{picked[0].first}-{max(u.last for u in picked)}"
            extra = tokens.count(f"; also in {where}") + 1
            if custom:  # what naming it costs in the reply as it is sent
                at = next(i for i, (p, _) in enumerate(chosen, 1) if p is twin)
                extra = cost_of(replace(twin, also_in=[*twin.also_in, where]), at) - cost_of(twin, at)
            if where not in twin.also_in and used + extra <= budget:
                twin.also_in.append(where)
                twin.tokens += extra
                used += extra
            left_out["duplicate"] += 1
            continue
        tags, factors = result.get("tags") or {}, result.get("factors") or {}
        passage = Passage(path=path, lines=(picked[0].first, max(u.last for u in picked)), text=text, score=score,
                          rank=rank, date=factors.get("date"), trust=tags.get("trust") or factors.get("trust"),
                          confidence=tags.get("confidence") or factors.get("confidence"),
                          why=why(result, matched), kind=result.get("kind") or "markdown", trimmed=trimmed,
                          memory=memory, stale=(result.get("stale") or {}).get("text"), tools=tools_text(result),
                          weak_date=weak_date(factors))
        n = len(chosen) + 1
        cost = cost_of(passage, n)
        room = budget - used
        if cost > room:
            frame = cost - text_cost(text) + 2
            if not chosen and room - frame < FIRST_PIECE:  # no room for the evidence itself: say what would do
                out["needed"] = max(used, reserve) + frame + MIN_PIECE
                left_out["over_budget"] += len(results) - rank + 1
                break
            if not chosen or room - frame >= MIN_PIECE:
                cut = _cut_units(picked, terms, max(1, room - frame))
                if cut:  # the lines are those of the text kept, not of the text cut off
                    picked = cut
                    passage.lines = (cut[0].first, max(u.last for u in cut))
                    passage.text = _render_units(cut)
                else:
                    passage.text = window(text, terms, max(1, room - frame))
                passage.trimmed = True
                cost = cost_of(passage, n)
            else:
                left_out["over_budget"] += 1
                continue
        passage.tokens = cost
        used += cost
        given.setdefault((path, memory), set()).update(
            line for u in fresh if any(u.first <= k.last and k.first <= u.last for k in picked)  # units the
            for line in range(u.first, u.last + 1))  # kept text reaches into
        chosen.append((passage, shingles))
        if used >= budget:
            left_out["over_budget"] += len(results) - rank
            break
    out["passages"] = [p for p, _ in chosen]
    out["used_tokens"] = used
    return out


def quoted(text: str) -> str:
    """Every line of memory text after '> ' (a blank one as '>'): a passage (or a turn `read` shows)
    cannot pass itself off as the answer's own text, and what would act on a terminal (ESC, a carriage return, a
    bidirectional override) is shown escaped (`humanize.unsafe_escaped`)."""
    return "\n".join(f"> {unsafe_escaped(line)}" if line else ">" for line in text.splitlines())


def header(query: str, passages: int, used: int | None = None, budget: int | None = None) -> str:
    """The block's first line after its preamble: the question, how many passages, and of a budget, how
    much of it they use."""
    spent = f", {used} of {budget} tokens" if budget is not None else ""
    return f'Memory evidence for "{short_query(query)}" ({passages} passage{"s" * (passages != 1)}{spent}):'


def header_tokens(query: str, budget: int) -> int:
    """The tokens `agent_text`'s first line takes at most (for `select`'s `reserve`)."""
    return tokens.count(header(query, 99, budget, budget)) + 1


def no_match_texts(query: str, reason: str, hint: str = "") -> list[str]:
    """The replies to a question with no good match, longest first: the question, why and what to try (`hint`,
    `humanize.nearest_hint`), the question and why, the question alone, the bare fact (the agent knows what it
    asked)."""
    quoted_query = f'No memory matches "{short_query(query)}"'
    candidates = [f"{quoted_query}: {reason}. {hint}"] * bool(reason and hint) + [f"{quoted_query}: {reason}."] * bool(reason)
    return candidates + [f"{quoted_query}.", "No memory matches."]


def no_match_text(query: str, reason: str, budget_tokens: int | None = None, hint: str = "") -> str:
    """The reply to a question with no good match, held to its budget: the longest of `no_match_texts` that fits
    (the bare fact when none does). No budget: the first."""
    candidates = no_match_texts(query, reason, hint)
    return next((text for text in candidates if budget_tokens is None or tokens.count(text) <= budget_tokens),
                candidates[-1])


def agent_text(query: str, selection: dict, preamble: str = "", with_why: bool = False) -> str:
    """One block an agent can paste: the evidence first (quoted), each passage followed by where it
    came from and how far to trust it ("(untrusted source; verify)"); `preamble` is its first line.
    `selection`: `select`'s, or ``{"passages": whole(...)}`` (no budget: the header says no tokens);
    `with_why`: each source line adds the passage's score and why (`Passage.block`)."""
    passages = selection["passages"]
    if not passages:
        return f'No memory matches "{short_query(query)}".'
    blocks = [preamble] * bool(preamble)
    blocks += [header(query, len(passages), selection.get("used_tokens"), selection.get("budget_tokens")) + "\n"]
    blocks += [p.block(n, with_why) for n, p in enumerate(passages, 1)]
    return "\n".join(blocks)


def named_results(answer: dict) -> list[dict]:
    """The answer's results as its passages name their memory: each its own only when the search covered several
    memories (the answer's ``memories``, the rule of the dashboard's badge and the command line's lines). A search of
    one memory of a shared store names it nowhere: on every passage's source line and in its JSON it was tokens an
    agent pays for and learns nothing from (`read` takes a path of the memory searched without one)."""
    results = answer.get("results") or []
    if answer.get("memories"):
        return results
    return [{key: value for key, value in r.items() if key != "memory"} if "memory" in r else r for r in results]


def whole(results: list[dict], terms: list[str]) -> list[Passage]:
    """Each result whole, as a passage (a search without a budget): its text untrimmed, its why from the
    query's words (`terms`) it holds, and where tool calls matched (`Passage.tools`)."""
    terms = asked(terms)
    out = []
    for rank, result in enumerate(results, 1):
        tags, factors = result.get("tags") or {}, result.get("factors") or {}
        out.append(Passage(path=result["path"], lines=tuple(result["lines"]), text=(result.get("text") or "").strip(),
                           score=float(result.get("score") or 0), rank=rank, date=factors.get("date"),
                           trust=tags.get("trust") or factors.get("trust"),
                           confidence=tags.get("confidence") or factors.get("confidence"),
                           why=why(result, matched_terms(result.get("text") or "", terms)),
                           kind=result.get("kind") or "markdown", memory=result.get("memory"),
                           stale=(result.get("stale") or {}).get("text"),
                           tools=tools_text(result), weak_date=weak_date(factors)))
    return out


#: How a passage's weak date is said (`Passage.weak_date`), by its source (`reading.dates`).
WEAK_DATES = {"git-import": "imported", "mtime": "file time"}


def weak_date(factors: dict) -> str | None:
    """Where a result's date comes from when it is weak (`WEAK_DATES`: an import commit, a file's time); None for
    the memory's own date or its last edit."""
    return WEAK_DATES.get(factors.get("date_source")) if factors.get("date_trust") == "weak" else None


def tools_text(result: dict) -> str | None:
    """Where a result's keywords were found in its tool calls and the first place's text (`Passage.tools`), for a
    passage within a budget as for a whole result: the passage's own text may not hold the words at all."""
    tools = tool_match_text(result)
    excerpt = (result.get("tool_matches") or [{}])[0].get("excerpt") if tools else None
    return f"{tools}: {excerpt}" if excerpt else tools
