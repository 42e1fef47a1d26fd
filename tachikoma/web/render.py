"""Presentation of search results and numbers: query-word highlighting,
snippets, the score explanation, dates and percentages.

Pure functions of their arguments (no Flask request state), so they are
tested directly.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup, escape

from tachikoma.humanize import ago, plural, when  # noqa: F401 (template helpers, see templating.py)
from tachikoma.search import STOPWORDS
from tachikoma.search import query_terms as search_terms

DATE_SOURCES = {"frontmatter": "front matter", "git": "git", "mtime": "file time"}


# --------------------------------------------------------------------------- query words in text


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting: those keyword search uses, but no single letters, longest first."""
    words = {w.lower() for w in search_terms(query or "", skip=STOPWORDS) if len(w) > 1}
    return sorted(words, key=lambda w: (-len(w), w))


@lru_cache(maxsize=32)  # snippet and highlight ask for the same query once per result
def _terms_pattern(query: str) -> re.Pattern | None:
    terms = query_terms(query)
    if not terms:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + r")\w*", re.IGNORECASE)


def highlight(text: str, query: str) -> Markup:
    """`text` escaped, with words that start like a query word wrapped in <mark>."""
    pattern = _terms_pattern(query)
    if pattern is None:
        return Markup(escape(text))
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(str(escape(text[last:match.start()])))
        out.append(f"<mark>{escape(match.group(0))}</mark>")
        last = match.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


def snippet(text: str, query: str, width: int = 360) -> str:
    """At most about `width` characters of `text`, around the first query word, without blank lines."""
    text = re.sub(r"\n\s*\n+", "\n", text.strip())
    if len(text) <= width:
        return text
    pattern = _terms_pattern(query)
    match = pattern.search(text) if pattern else None
    start = 0
    if match and match.start() > width // 3:
        start = text.rfind(" ", 0, match.start() - width // 4) + 1
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
        {"name": "recency", "value": f["recency"],
         "source": f"updated {ago(f['age_days'])} ({DATE_SOURCES.get(f['date_source'], f['date_source'])})",
         "title": f["date"]},
        {"name": "duplicate penalty", "value": penalty,
         "source": "first passage from this file" if penalty >= 1 else "a better passage from this file ranks above"},
    ]
    if "vector_similarity" in f:  # hybrid search: similarity fuses meaning (vectors) and keywords (BM25)
        rows[0]["source"] = fusion_text(f)
        rows[1:1] = [
            {"name": "meaning", "value": f["vector_similarity"], "sub": True,
             "source": "cosine similarity of the query's and the passage's embeddings"},
            {"name": "keywords", "value": f["keyword_score"], "sub": True,
             "source": "BM25 keyword match (the query's best match = 1)"},
        ]
    terms = [f["similarity"], f["trust_weight"], f["confidence_weight"], f["recency"]]
    names = ["similarity", "trust", "confidence", "recency"]
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
