"""Presentation of search results and numbers: query-word highlighting,
snippets, the score explanation, dates and percentages.

Pure functions of their arguments (no Flask request state), so they are
tested directly.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup, escape

from tachikoma.humanize import ago, days_ago, memory_day, plural, shown_day, when  # noqa: F401 (dashboard.templating)
from tachikoma.humanize import tool_match_text
from tachikoma.search.keywords import STOPWORDS
from tachikoma.search.keywords import query_terms as search_terms
from tachikoma.store.sqlite import highlight as fts_highlight
from tachikoma.transcripts import claude_code, codex, codex_legacy, generic, openclaw

#: Where a memory's date came from, in words (`dates.SOURCES`).
DATE_SOURCES = {"transcript": "the last turn's timestamp", "frontmatter": "front matter", "path": "the date in its path",
                "git": "its last content commit", "git-import": "the commit that imported it with many other files",
                "mtime": "the file's modification time"}
#: How far a date was trusted (`dates.TRUST`), for the explanation panel.
DATE_TRUST = {"own": "the memory's own date", "commit": "trusted as its last edit, not as its own date",
              "weak": "a weak date: it never counts as fresher than one half-life, nor supersedes a better-dated "
                      "memory"}


def dated(factors: dict) -> str:
    """A result's day (in the user's time zone, `humanize.memory_day`) and where it came from:
    "2026-03-22, from the date in its path"."""
    source = factors["date_source"]
    return f"{memory_day(factors)[0]}, from {DATE_SOURCES.get(source, source)}"


def recency_source(factors: dict) -> str:
    """Why the recency factor is what it is, for the explanation panel."""
    reason, rule = factors.get("recency_reason", "age"), factors.get("recency_rule", "default")
    if reason == "off":
        return "recency is off for this search"
    age = f"dated {dated(factors)} ({days_ago(memory_day(factors)[1])}"
    age += f"; {DATE_TRUST[factors['date_trust']]})" if factors.get("date_trust") in DATE_TRUST else ")"
    if reason == "evergreen":
        return f"evergreen: its age never counts ({age})"
    if reason == "superseded":
        newer = factors["superseded_by"]
        return (f"{age}; superseded by the newer {newer['path']} of {shown_day(newer['date'])}, which says much the "
                f"same; {rule} rule")
    return f"{age}; {rule} rule"


# --------------------------------------------------------------------------- query words in text


def query_terms(query: str, keywords: tuple[str, ...] | None = None) -> list[str]:
    """The words worth highlighting, longest first, no single letters: those keyword search used
    (`keywords`, the answer's: a word in more than half of the chunks scores nothing, so it is not
    marked), or without them the query's words keyword search would consider."""
    found = search_terms(query or "", skip=STOPWORDS) if keywords is None else keywords
    words = {w.lower() for w in found if len(w) > 1}
    return sorted(words, key=lambda w: (-len(w), w))


_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use characters: highlight() markers, never kept from memory text


@lru_cache(maxsize=256)  # snippet and highlight ask for the same text and query
def keyword_spans(text: str, query: str, keywords: tuple[str, ...] | None = None) -> tuple[tuple[int, int], ...]:
    """(start, end) of each word in `text` that keyword search matches for `query` (with `keywords`:
    for those words, see `query_terms`).

    SQLite's FTS5 marks them with the index's own tokenizer (porter
    stemming), so "retry" finds "retries" and "meetings" finds "meeting",
    just as the keyword index did.
    """
    terms = query_terms(query, keywords)
    if not terms or not text:
        return ()
    clean = text.replace(_OPEN, " ").replace(_CLOSE, " ")
    marked = fts_highlight(clean, terms, _OPEN, _CLOSE)
    if marked is None:
        return ()
    spans, offset, start = [], 0, 0
    for ch in marked:
        if ch == _OPEN:
            start = offset
        elif ch == _CLOSE:
            spans.append((start, offset))
        else:
            offset += 1
    return tuple(spans)


def highlight(text: str, query: str, keywords=None) -> Markup:
    """`text` escaped, with the words keyword search matched for `query` (or `keywords`) wrapped in <mark>."""
    out, last = [], 0
    for start, end in keyword_spans(text, query, None if keywords is None else tuple(keywords)):
        out.append(str(escape(text[last:start])))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        last = end
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def plain(text: str) -> str:
    """Markdown syntax a snippet should not show, taken out: heading marks, table rules and
    pipes (cells joined by " · "), code fences, ** and __ around bold text."""
    lines = []
    for line in text.split("\n"):
        if _TABLE_RULE.match(line) or _FENCE.match(line):
            continue
        row = _TABLE_ROW.match(line)
        if row:
            line = " · ".join(cell.strip() for cell in row.group(1).split("|"))
        line = _STRONG.sub(r"\2", _HEADING.sub("", line))
        lines.append(line)
    return "\n".join(lines)


_AGENTS = "|".join(re.escape(agent) for agent in sorted({claude_code.AGENT, codex.AGENT, codex_legacy.AGENT,
                                                         generic.AGENT, openclaw.AGENT}))
_SESSION_CONTEXT = re.compile(rf"(?:{_AGENTS})(?: (?:session|subagent) .*| · .*)?")  # chunking's context line
_DATE_LINE = re.compile(r"\[\d{4}-\d{2}-\d{2}[^\]\n]*\]")  # chunking.date_context


def passage(text: str, kind: str) -> str:
    """A result's text without the lines chunking put before a transcript passage (the session's
    context line, then its date line): the result already shows the file and its date."""
    if kind != "transcript":
        return text
    lines = text.split("\n")
    if lines and _SESSION_CONTEXT.fullmatch(lines[0]):
        lines.pop(0)
    if lines and _DATE_LINE.fullmatch(lines[0]):
        lines.pop(0)
    return "\n".join(lines) if any(line.strip() for line in lines) else text


def snippet(text: str, query: str, width: int = 360, keywords=None) -> str:
    """At most about `width` characters of `text` as plain text, around the first matched query word
    (of `keywords` when given), without blank lines."""
    text = re.sub(r"\n\s*\n+", "\n", plain(text).strip())
    if len(text) <= width:
        return text
    spans = keyword_spans(text, query, None if keywords is None else tuple(keywords))
    start = 0
    if spans and spans[0][0] > width // 3:
        start = text.rfind(" ", 0, spans[0][0] - width // 4) + 1
    end = start + width
    cut = text.rfind(" ", start, end)
    end = cut if cut > start + width // 2 else end
    return ("… " if start else "") + text[start:end].rstrip() + " …"


# --------------------------------------------------------------------------- the score explanation


def explain(result: dict) -> dict:
    """What the explanation panel shows: a bar per factor, where it came from, the arithmetic.

    `result` is one result of `Searcher.search`. The arithmetic multiplies
    the factors as shown (two decimals) and ends with the score.
    """
    f = result["factors"]
    trust = f"trust: {f['trust']}" if f["trust"] else "trust: none (missing or invalid)"
    confidence = f"confidence: {f['confidence']}" if f["confidence"] else "confidence: none (missing or invalid)"
    penalty = f["duplicate_penalty"]
    rows = [
        {"name": "similarity", "value": f["similarity"], "source": "how close the passage's meaning is to the query"},
        {"name": "trust", "value": f["trust_weight"], "source": trust},
        {"name": "confidence", "value": f["confidence_weight"], "source": confidence},
        {"name": "recency", "value": f["recency"], "source": recency_source(f), "title": f["date"]},
        *([{"name": "time", "value": f["time"], "source": f["time_reason"]}] if f.get("time_reason") else []),
        {"name": "duplicate penalty", "value": penalty,
         "source": "first passage from this file" if penalty >= 1 else "a better passage from this file ranks above"},
    ]
    if "vector_similarity" in f:  # hybrid search: similarity fuses meaning (vectors) and keywords (BM25)
        rows[0]["source"] = fusion_text(f)
        rows[1:1] = [
            {"name": "meaning", "value": f["vector_similarity"], "sub": True,
             "source": "cosine similarity of the query's and the passage's embeddings" if not f.get("vectors") else
             {"quick": "meaning from quick vectors: cosine of the quick tier's embeddings, on the full model's "
                       "scale (the full vectors are still being computed)"}.get(
                 f["vectors"], "not embedded yet: this passage is found by its keywords only for now")},
            {"name": "keywords", "value": f["keyword_score"], "sub": True,
             "source": "BM25 keyword match (the query's best match = 1)"
                       + (f"; {in_tools}" if (in_tools := tool_match_text(result)) else "")},
        ]
    terms = [f["similarity"], f["trust_weight"], f["confidence_weight"], f["recency"]]
    names = ["similarity", "trust", "confidence", "recency"]
    if f.get("time_reason"):
        terms.append(f["time"])
        names.append("time")
    if penalty < 1:
        terms.append(penalty)
        names.append("duplicate penalty")
    arithmetic = " × ".join(f"{t:.2f}" for t in terms) + f" = {result['score']:.2f}"
    return {"rows": rows, "arithmetic": arithmetic, "formula": " × ".join(names) + " = score"}


def fusion_text(factors: dict) -> str:
    """How the hybrid similarity was made from meaning and keywords."""
    fusion = factors.get("fusion") or {}
    w = float(fusion.get("keyword_weight", 0.0))
    v, k = factors["vector_similarity"], factors["keyword_score"]
    if fusion.get("method") == "rrf":
        return (f"reciprocal rank fusion of meaning ({v:.2f}) and keywords ({k:.2f}), "
                f"keyword weight {w:g}, k = {float(fusion.get('rrf_k', 60)):g}")
    return f"{1 - w:.2f} × meaning {v:.2f} + {w:.2f} × keywords {k:.2f}"


# --------------------------------------------------------------------------- dates and numbers


def num(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def pct(x) -> str:
    """A percentage with at most one decimal ("66.7%", "50%"); "–" for no number."""
    return f"{x:.1f}".rstrip("0").rstrip(".") + "%" if isinstance(x, (int, float)) else "–"


def fraction(part: float, whole: float) -> float:
    """`part` as a percentage of `whole` (0 when `whole` is 0)."""
    return (100.0 * part / whole) if whole else 0.0
