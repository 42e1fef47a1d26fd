"""Presentation of search results and numbers: query-word highlighting,
snippets, the score explanation, dates and percentages.

Pure functions of their arguments (no Flask request state), so they are
tested directly.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from markupsafe import Markup, escape

from tachikoma.chunking import heading
from tachikoma.humanize import ago, memory_day, plural, when  # noqa: F401 (tachikoma_dashboard.templating)
from tachikoma.search import explain as explained
from tachikoma.search.explain import DATE_SOURCES
from tachikoma.search.keywords import STOPWORDS
from tachikoma.search.keywords import query_terms as search_terms
from tachikoma.language.segment import has_runs
from tachikoma.store.fts import highlight as fts_highlight

def dated(factors: dict) -> str:
    """A result's day (in the user's time zone, `humanize.memory_day`) and where it came from:
    "2026-03-22, from the date in its path"."""
    source = factors["date_source"]
    return f"{memory_day(factors)[0]}, from {DATE_SOURCES.get(source, source)}"


# --------------------------------------------------------------------------- query words in text


def query_terms(query: str, keywords: tuple[str, ...] | None = None) -> list[str]:
    """The words worth highlighting, longest first, no single letters (a single CJK character is a
    word): those keyword search used (`keywords`, the answer's: a word in more than half of the
    chunks scores nothing, so it is not marked), or without them the query's words keyword search
    would consider."""
    found = search_terms(query or "", skip=STOPWORDS) if keywords is None else keywords
    words = {w.lower() for w in found if len(w) > 1 or has_runs(w)}
    return sorted(words, key=lambda w: (-len(w), w))


#: A query word's umlauts spelled out, put back for highlighting: "muenchen" marks "München" (the
#: keyword index holds both spellings of an umlaut word, `segment.index_text`).
_SPELLED_UMLAUTS = (("ae", "ä"), ("oe", "ö"), ("ue", "ü"))


def _with_umlauts(word: str) -> str | None:
    spelled = word
    for pair, umlaut in _SPELLED_UMLAUTS:
        spelled = spelled.replace(pair, umlaut)
    return None if spelled == word else spelled


#: The combining marks of the scripts whose words the keyword index reads without them (`segment`).
_RUN_MARKS = "".join(chr(c) for start, end in ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF))
                     for c in range(start, end + 1) if unicodedata.category(chr(c))[0] == "M")


def _run_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each place in `text` where one of `words` (runs of CJK or Thai characters:
    bigrams and single characters, `segment.query_words`) is written."""
    spans = []
    for word in words:
        # Thai, Lao, Khmer and Myanmar words are compared without their vowel and tone marks.
        pattern = re.compile(f"[{_RUN_MARKS}]*".join(re.escape(ch) for ch in word))
        start = 0
        while (found := pattern.search(text, start)) is not None:
            spans.append(found.span())
            start = found.start() + 1
    return spans


def _merged(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """`spans` sorted, overlapping or touching ones made one: "歯医" and "医者" mark "歯医者"."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return tuple((a, b) for a, b in out)


_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use characters: highlight() markers, never kept from memory text


@lru_cache(maxsize=256)  # snippet and highlight ask for the same text and query
def keyword_spans(text: str, query: str, keywords: tuple[str, ...] | None = None) -> tuple[tuple[int, int], ...]:
    """(start, end) of each word in `text` that keyword search matches for `query` (with `keywords`:
    for those words, see `query_terms`).

    SQLite's FTS5 marks them with the index's own tokenizer (porter
    stemming, accents folded), so "retry" finds "retries" and "meetings" finds
    "meeting", just as the keyword index did. Words of scripts written without
    spaces (their bigrams and characters) are marked where they are written,
    next ones joined ("歯医", "医者" mark "歯医者").
    """
    terms = query_terms(query, keywords)
    if not terms or not text:
        return ()
    runs = [t for t in terms if has_runs(t)]
    words = [t for t in terms if not has_runs(t)]
    words += [spelled for w in words if (spelled := _with_umlauts(w))]
    spans = _run_spans(text, runs)
    clean = text.replace(_OPEN, " ").replace(_CLOSE, " ")
    marked = fts_highlight(clean, words, _OPEN, _CLOSE) if words else None
    if marked is None:
        return _merged(spans)
    offset, start = 0, 0
    for ch in marked:
        if ch == _OPEN:
            start = offset
        elif ch == _CLOSE:
            spans.append((start, offset))
        else:
            offset += 1
    return _merged(spans)


def highlight(text: str, query: str, keywords=None) -> Markup:
    """`text` escaped, with the words keyword search matched for `query` (or `keywords`) wrapped in <mark>."""
    out, last = [], 0
    for start, end in keyword_spans(text, query, None if keywords is None else tuple(keywords)):
        out.append(str(escape(text[last:start])))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        last = end
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def plain(text: str) -> str:
    """Markdown syntax a snippet should not show, taken out: heading marks (a heading, `## Checks` or a bullet
    holding one, `- ## Checks`, as the chunker reads one: `chunking.heading`, shown as its title), table rules and
    pipes (cells joined by " · "), code fences, ** and __ around bold text."""
    lines = []
    for line in text.split("\n"):
        if _TABLE_RULE.match(line) or _FENCE.match(line):
            continue
        row = _TABLE_ROW.match(line)
        if row:
            line = " · ".join(cell.strip() for cell in row.group(1).split("|"))
        titled = heading(line)
        line = _STRONG.sub(r"\2", titled[1] if titled is not None else line)
        lines.append(line)
    return "\n".join(lines)


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
    """What the explanation panel shows: a bar per factor with why it is what it is, the arithmetic and
    its formula, all worded by `search.explain` (the words the command line and MCP print).

    `result` is one result of `Searcher.search`. The arithmetic multiplies
    the factors as shown (two decimals) and ends with the score.
    """
    rows = [{"name": x.name, "value": x.value, "source": x.why, "sub": x.part} for x in explained.factors(result)]
    for row in rows:
        if row["name"] == "recency":
            row["title"] = result["factors"]["date"]
    return {"rows": rows, "arithmetic": explained.arithmetic(result), "formula": explained.formula(result)}


# --------------------------------------------------------------------------- dates and numbers


def num(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def pct(x) -> str:
    """A percentage with at most one decimal ("66.7%", "50%"); "–" for no number."""
    return f"{x:.1f}".rstrip("0").rstrip(".") + "%" if isinstance(x, (int, float)) else "–"


def fraction(part: float, whole: float) -> float:
    """`part` as a percentage of `whole` (0 when `whole` is 0)."""
    return (100.0 * part / whole) if whole else 0.0
