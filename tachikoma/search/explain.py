"""A result's score in words: one explanation, worded once, shown by every face.

`Searcher.search` explains each result with numbers (its ``factors``,
`scoring.rank_snapshot`). Here they become what a person or a model reads:
the factors of the score in order, each with its value and why it is what it
is (`factors`); all of them on one line (`sentence`: what the command line
and the MCP server print); and the multiplication itself (`arithmetic`,
`formula`: what the dashboard shows under its bars, beside the same words);
and a stale memory's changed files (`stale_file`, `stale_text`: the ``stale``
text of a result and what the dashboard's file page lists).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..embedders.names import reader_label
from ..humanize import days_ago, memory_day, meaning_label, shown_day, tool_match_text

#: Where a memory's date came from, in words (`dates.SOURCES`).
DATE_SOURCES = {"transcript": "the last turn's timestamp", "frontmatter": "front matter",
                "path": "the date in its path", "git": "its last content commit",
                "git-import": "the commit that imported it with many other files",
                "mtime": "the file's modification time"}
#: How far a date that is not the memory's own was trusted (`dates.TRUST`).
DATE_TRUST = {"commit": "trusted as its last edit, not as its own date",
              "weak": "a weak date: never fresher than one half-life, and it supersedes nothing"}
#: Why a trust or confidence weight is the default one.
NOT_SET = "not set or invalid"
#: Why a passage's score was cut (`ranking.rank`'s repeat penalty), and why a file's best passage's was not.
REPEAT, FIRST = "a better passage from this file ranks above", "first passage from this file"
#: Why the meaning part is what it is, by which vectors the passage has (`snapshot.TIER_NAMES`).
MEANING = {None: "cosine of the query's and the passage's embeddings",
           "full": "cosine of the query's and the passage's embeddings",
           "quick": "cosine of the quick tier's embeddings, on the full model's scale (the full vectors are "
                    "still being computed)"}
#: What the keyword part is (`ranking.keyword_relevance`).
KEYWORDS = "BM25 keyword match (the query's best match = 1, less when words of an English query are found nowhere)"
NOT_EMBEDDED = "not embedded yet: found by its keywords only for now"
#: Why a passage's score was cut for a question about its asker (`voice`).
AGENTS_WORDS = "the question is about you, and this passage holds only the agent's turns, none of yours"
#: Why a stale memory's score was cut, when the files are not at hand.
STALE = "stale: files it names changed in commits since"


def _scale(factors: dict) -> dict | None:
    """The embedder's scale a full vector's meaning was read on (``meaning_scale``: its cosine and c0,
    `scoring.similarity_scale`); None when there is none, or the meaning came from quick vectors."""
    scale = factors.get("meaning_scale")
    return scale if scale and factors.get("vectors") in (None, "full") else None


#: What a result found for one of the things a question names is similar to (`parts.merged`'s ``found_for``).
FOUND_FOR = "to “{part}”, one of the things the question names, searched on its own"
#: Why a question that gathers from several memories has a widened meaning (`scoring.rank_snapshot`'s `gather`).
WIDENED = ("the question gathers from several memories (“how many”, “in total”), so it was read together with "
           "the best passages of the files it matched best")


def meaning_why(factors: dict) -> str:
    """Why the meaning part is what it is; for an embedder with its own scale (`scoring.similarity_scale`)
    also the cosine it was read from: "cosine 0.84 of the query's and the passage's embeddings, on the
    ranking's scale: (0.84 − 0.75) / (1 − 0.75)"; for a widened question, what the question alone gave."""
    read_by = factors.get("read_by")
    if read_by:  # a passage not in English, read again by the multilingual embedder (`scoring.multilingual_similarity`)
        return read_by_text(read_by)
    why = MEANING.get(factors.get("vectors"), NOT_EMBEDDED)
    scale = _scale(factors)
    if scale is not None:
        c, c0 = scale["cosine"], scale["c0"]
        why = (f"cosine {c:.2f} of the query's and the passage's embeddings, on the ranking's scale: "
               f"({c:.2f} − {c0:.2f}) / (1 − {c0:.2f}), 0 below {c0:.2f}")
    if "meaning_from_question" in factors:  # a passage read again with the widened question
        why += f"; {WIDENED}: {factors['meaning_from_question']:.2f} from the question alone"
    return why


def read_by_text(read_by: dict, short: bool = False) -> str:
    """"the passage is in German: cosine 0.82 of the multilingual reader (muse)'s embeddings (question in
    English), on this index's embedder's scale"; `short` (beside the meaning it made, in the one-line sentence):
    "...'s embeddings, put on this index's scale"."""
    text = (f"the passage is in {read_by['language']}: cosine {read_by['cosine']:.2f} of "
            f"{reader_label(read_by['embedder'])}'s embeddings")
    if short:
        return f"{text}, put on this index's scale"
    return f"{text} (question in {read_by['query_language']}), on this index's embedder's scale"


@dataclass(frozen=True)
class Factor:
    """One number of the explanation: its name, its value and why it is what it is."""

    name: str
    value: float
    why: str
    #: A part the similarity is made of (meaning, keywords), not a factor of the score.
    part: bool = False


def fusion_text(factors: dict) -> str:
    """How the similarity was made from meaning and keywords: "0.60 × meaning 0.41 + 0.40 × keywords 0.77",
    reciprocal rank fusion's inputs, or only what the meaning came from when there is no keyword part."""
    if "vector_similarity" not in factors:
        return meaning_label(factors) if factors.get("vectors") else ""
    fusion = factors.get("fusion") or {}
    meaning, v, k = meaning_label(factors), factors["vector_similarity"], factors["keyword_score"]
    w = float(fusion.get("keyword_weight", 0.0))
    scale = _scale(factors)
    v_text = f"{v:.2f}" + (f" (cosine {scale['cosine']:.2f} on a scale from {scale['c0']:.2f})" if scale else "")
    if factors.get("read_by"):
        v_text += f" ({read_by_text(factors['read_by'], short=True)})"
    if fusion.get("meaning_alone"):  # `scoring.ACROSS_BY_MEANING`
        text = (f"{meaning} {v_text} alone: the passage is not in the question's language, so keywords "
                f"({k:.2f}) do not weigh on it")
    elif fusion.get("method") == "rrf":
        text = (f"reciprocal rank fusion of {meaning} ({v_text}) and keywords ({k:.2f}), "
                f"keyword weight {w:g}, k = {float(fusion.get('rrf_k', 60)):g}")
    else:
        text = f"{1 - w:.2f} × {meaning} {v_text} + {w:.2f} × keywords {k:.2f}"
    base = fusion.get("time_only_base")
    if base is None:
        return text
    return f"{base:.2f} + {1 - base:.2f} × ({text}): a question about a time alone"


def recency_why(factors: dict) -> str:
    """Why the recency factor is what it is: "2026-03-22, 12 days ago, from the date in its path", how far a
    date not the memory's own was trusted, a knowledge update ("superseded by b.md of 2026-05-01, which says
    much the same") and a rule other than the default; "evergreen: its age never counts"; "off for this search"."""
    reason, rule = factors.get("recency_reason", "age"), factors.get("recency_rule") or "default"
    if reason == "off":
        return "off for this search"
    if reason == "evergreen":
        return "evergreen: its age never counts"
    day, days = memory_day(factors)
    source = factors["date_source"]
    text = f"{day}, {days_ago(days)}, from {DATE_SOURCES.get(source, source)}"
    if factors.get("date_trust") in DATE_TRUST:
        text += f"; {DATE_TRUST[factors['date_trust']]}"
    newer = factors.get("superseded_by")
    if reason == "superseded" and newer:
        text += f"; superseded by {newer['path']} of {shown_day(newer['date'])}, which says much the same"
    return text + (f"; {rule} rule" if rule != "default" else "")


def factors(result: dict) -> list[Factor]:
    """What `result`'s score is the product of, in order, each with its reason: similarity (followed by its
    parts, meaning and keywords, in a hybrid search), trust, confidence, recency, time (when the query
    named one), what the question asks for (when it asks a kind), the agent's words (a question about its asker),
    staleness and the duplicate penalty."""
    f = result["factors"]
    why = fusion_text(f)
    if result.get("found_for"):  # a thing the question names, searched on its own (`parts`)
        why = FOUND_FOR.format(part=result["found_for"]) + (f": {why}" if why else "")
    out = [Factor("similarity", f["similarity"], why)]
    if "vector_similarity" in f:
        tools = tool_match_text(result)
        out += [Factor("meaning", f["vector_similarity"], meaning_why(f), part=True),
                Factor("keywords", f["keyword_score"],
                       KEYWORDS + (f"; {tools}" if tools else ""), part=True)]
    out += [Factor("trust", f["trust_weight"], f["trust"] or NOT_SET),
            Factor("confidence", f["confidence_weight"], f["confidence"] or NOT_SET),
            Factor("recency", f["recency"], recency_why(f))]
    if f.get("time_reason"):
        out.append(Factor("time", f["time"], f["time_reason"].removeprefix("time: ")))
    if "asked" in f:  # the question asks for a kind of thing (`answer_kind`): a passage lacking one weighs less
        out.append(Factor("asked for", f["asked"], f["asked_reason"]))
    if "agents_words" in f:  # a question about its asker, a passage of the agent's turns alone (`voice`)
        out.append(Factor("agent's words", f["agents_words"], AGENTS_WORDS))
    if "stale" in f:  # `[staleness] factor` below 1: a stale memory's score × it
        out.append(Factor("staleness", f["stale"], (result.get("stale") or {}).get("text") or STALE))
    penalty = f["duplicate_penalty"]
    out.append(Factor("duplicate penalty", penalty, REPEAT if penalty < 1 else FIRST))
    return out


def multiplied(result: dict) -> list[Factor]:
    """The factors as the score is written out: no parts, and the duplicate penalty only where it cut."""
    return [x for x in factors(result) if not x.part and not (x.name == "duplicate penalty" and x.value >= 1)]


def sentence(result: dict) -> str:
    """The whole explanation on one line: "0.69 similarity (0.60 × meaning 0.49 + 0.40 × keywords 0.98)
    × 1.00 trust (owner) × 1.00 confidence (high) × 1.00 recency (2026-11-20, 13 days ago, from front matter)"."""
    return " × ".join(f"{x.value:.2f} {x.name}" + (f" ({x.why})" if x.why else "") for x in multiplied(result))


def arithmetic(result: dict) -> str:
    """The multiplication with two decimals, ending in the score: "0.69 × 1.00 × 0.80 = 0.55"."""
    return " × ".join(f"{x.value:.2f}" for x in multiplied(result)) + f" = {result['score']:.2f}"


def formula(result: dict) -> str:
    """The names of what `arithmetic` multiplies: "similarity × trust × … = score"."""
    return " × ".join(x.name for x in multiplied(result)) + " = score"


def stale_file(f: dict) -> str:
    """One file of a stale memory (`staleness.check`'s ``files``) in words: "billing/retry.py changed in
    3 commits since, last 2026-11-30", "billing/old.py deleted since (2026-11-02)", "billing/pay.py
    renamed to billing/payment.py since (2026-11-03)"."""
    if f["change"] == "deleted":
        return f"{f['path']} deleted since ({f['last']})"
    if f["change"] == "renamed":
        return f"{f['path']} renamed to {f['renamed_to']} since ({f['last']})"
    commits = f"{f['commits']} commit" + ("s" if f["commits"] != 1 else "")
    return f"{f['path']} changed in {commits} since, last {f['last']}"


def stale_text(files: list[dict]) -> str:
    """A stale memory's files in one line: "stale: billing/retry.py changed in 3 commits since, last …"."""
    return "stale: " + "; ".join(stale_file(f) for f in files)
