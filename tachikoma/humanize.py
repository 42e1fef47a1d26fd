"""Words and dates for people: "1 file" / "2 files", "3 hours ago", a local date and time.

Shared by the text faces (the CLI's `stats`) and the dashboard's templates, so
both say the same thing the same way. JSON keeps ISO dates.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone


def ago(days: float | None) -> str:
    """An age in days as "just now", "5 minutes ago", "3 hours ago", "2 days ago"; None is "never"."""
    if days is None:
        return "never"
    if days >= 1:
        return f"{plural(int(days), 'day')} ago"
    hours = days * 24
    if hours >= 1:
        return f"{plural(int(hours), 'hour')} ago"
    minutes = int(hours * 60)
    return "just now" if minutes < 1 else f"{plural(minutes, 'minute')} ago"


def when(value) -> dict:
    """{"text": local date and time, "ago": "3 minutes ago", "iso": ...} for seconds or ISO text."""
    if value in (None, ""):
        return {"text": "never", "ago": "never", "iso": ""}
    try:
        if isinstance(value, (int, float)) or re.fullmatch(r"\d+(\.\d+)?", str(value)):
            moment = datetime.fromtimestamp(float(value), timezone.utc)
        else:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError, OSError):
        return {"text": str(value), "ago": "", "iso": str(value)}
    days = (datetime.now(timezone.utc) - moment).total_seconds() / 86400
    return {"text": moment.astimezone().strftime("%Y-%m-%d %H:%M"), "ago": ago(max(days, 0.0)),
            "iso": moment.isoformat(timespec="seconds")}


def plural(n: int, word: str) -> str:
    """"1 file", "2 files", "0 files"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


#: How far a result's date was trusted (`dates.TRUST`), in words; a memory's own date goes unsaid.
TRUST_WORDS = {"commit": "last edit, not its own date", "weak": "weak date: never counts as fresh"}


def recency_text(factors: dict) -> str:
    """Why the recency factor is what it is: "evergreen", "off", "2026-03-22, 12 days, path", plus
    how far a date not the memory's own was trusted, and "; superseded by notes/b.md of 2026-05-01"
    for a knowledge update."""
    if factors.get("recency_reason") in ("evergreen", "off"):
        return factors["recency_reason"]
    text = f"{factors['date'][:10]}, {plural(round(factors['age_days']), 'day')}, {factors['date_source']}"
    if factors.get("date_trust") in TRUST_WORDS:
        text += f" ({TRUST_WORDS[factors['date_trust']]})"
    newer = factors.get("superseded_by")
    return text + (f"; superseded by {newer['path']} of {newer['date'][:10]}" if newer else "")


def no_match_reason(answer: dict) -> str:
    """Why a search answer has no good match, from its ``match`` evidence (`ranking.match_evidence`):
    "nothing is close enough in meaning (best 0.32, floor 0.41) and no passage holds most of the
    query's words (best 45%, needs 80%)"."""
    match = answer.get("match") or {}
    if "best_vector_similarity" not in match:
        return f"nothing reaches the relevance floor (min_score {answer['min_score']:g})"
    return (f"nothing is close enough in meaning (best {match['best_vector_similarity']:.2f}, floor "
            f"{match['min_score']:g}) and no passage holds most of the query's words (best "
            f"{match['best_keyword_coverage']:.0%}, needs {match['keyword_floor']:.0%})")
