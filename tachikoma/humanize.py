"""Words and dates for people: "1 file" / "2 files", "3 hours ago", a local date and time.

Shared by the text faces (the CLI, MCP's text answers) and the dashboard's
templates, so all say the same thing the same way. JSON keeps ISO dates.

Days are counted one way everywhere: calendar days in the user's time zone
(the machine's local zone), so a memory of 2026-11-25 is "9 days" old on
2026-12-04 all day long, on every face, whatever the hour it was written
(`calendar_days`). A date without a time (front matter ``date: 2026-11-25``,
a path's date: stored as midnight UTC) is that day as written; a moment (a
transcript turn, a commit) is the day it was in the user's time zone.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone


def ago(days: float | None) -> str:
    """A duration in days as "just now", "5 minutes ago", "3 hours ago", "2 days ago" (whole 24 hours);
    None is "never". Ages of a day or more that a person reads are counted in calendar days
    (`days_ago`, `when`)."""
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
    now = datetime.now(timezone.utc)
    days = (now - moment).total_seconds() / 86400
    shown = ago(max(days, 0.0)) if days < 1 else days_ago(calendar_days(day_of(moment), now))
    return {"text": moment.astimezone().strftime("%Y-%m-%d %H:%M"), "ago": shown,
            "iso": moment.isoformat(timespec="seconds")}


def day_of(moment: datetime, may_be_a_date: bool = True) -> date:
    """The calendar day of a moment in the user's time zone. A date without a time (midnight UTC, as
    dates from front matter and paths are stored) is that day as written, unless `may_be_a_date` is
    false (a commit or a turn at 00:00 UTC is a moment)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    if may_be_a_date and moment.utcoffset() == timedelta(0) and moment.time() == time(0):
        return moment.date()
    return moment.astimezone().date()


def calendar_days(day: date, now: datetime) -> int:
    """Whole calendar days from `day` to `now`'s day in the user's time zone (0 on the same day or later)."""
    return max((now.astimezone().date() - day).days, 0)


def days_ago(n: int) -> str:
    """"today", "1 day ago", "9 days ago"."""
    return "today" if n == 0 else f"{plural(n, 'day')} ago"


#: Where a result's date may be a day without a time (`dates.FRONTMATTER`, `dates.PATH`).
DATE_ONLY_SOURCES = ("frontmatter", "path")


def memory_day(factors: dict) -> tuple[str, int]:
    """A search result's day (YYYY-MM-DD) and its age in calendar days when the search ran (the moment
    its `age_days` was measured from), both as `day_of` and `calendar_days` count them."""
    moment = datetime.fromisoformat(str(factors["date"]).replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    day = day_of(moment, may_be_a_date=factors.get("date_source") in DATE_ONLY_SOURCES)
    searched = moment + timedelta(days=max(float(factors.get("age_days") or 0.0), 0.0))
    return day.isoformat(), calendar_days(day, searched)


def shown_day(iso: str) -> str:
    """The calendar day (`day_of`) of an ISO 8601 time, e.g. a newer memory's date."""
    moment = datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    return day_of(moment).isoformat()


def plural(n: int, word: str) -> str:
    """"1 file", "2 files", "0 files"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


#: The question as a block's first line quotes it, at most this many characters.
QUOTED_QUERY = 100


def short_query(query: str) -> str:
    """The question as a recall block's first line (`budget.header`) and MCP's "no good match" line quote
    it: its first `QUOTED_QUERY` characters, cut at a word, "…" after."""
    query = " ".join(query.split())
    if len(query) <= QUOTED_QUERY:
        return query
    cut = query[:QUOTED_QUERY]
    return (cut.rsplit(" ", 1)[0] if " " in cut[QUOTED_QUERY // 2:] else cut) + "…"


def no_match_reason(answer: dict, brief: bool = False) -> str:
    """Why a search answer has no good match, from its ``match`` evidence (`ranking.match_evidence`):
    "nothing is close enough in meaning (best 0.32, floor 0.44) and no passage holds most of the
    query's words (best 40%, needs 45%) nor 33% in a passage of meaning 0.30 or more (best 20%)".
    `brief` (what an agent is told: `budget.no_match_text`): the two best figures and their floors alone,
    "nothing is close enough in meaning (best 0.32, floor 0.44) or in words (best 40%, needs 45%)"."""
    match = answer.get("match") or {}
    if match.get("filtered_out"):
        return "no indexed file passes the search's filters (its path, kind, trust, source or untagged)"
    if match.get("passages_holding_it") == 0:  # found, but not what is asked for (`answer_kind`)
        read = match["passages_read"]  # a memory with one passage found has no "1 best passages"
        return f"the question asks for {match['asked_for']} and " + (
            "the one passage found holds none" if read == 1 else f"none of the {read} best passages holds one")
    if "best_vector_similarity" not in match:
        return f"nothing reaches the relevance floor (min_score {answer['min_score']:g})"
    above = f" above {match['meaning_from']}" if match.get("meaning_from") else ""  # e5: `scoring.SCRIPT_BACKGROUND`
    words = (f"best {short_of(match.get('best_keyword_coverage') or 0.0, match['keyword_floor'], True)}, "
             f"needs {match['keyword_floor']:.0%}")
    # "?", "…", or function words alone ("the"): no word, no coverage to tell (the searcher says so, ``no_words``; an
    # answer without its query, the evidence alone, is told of its words). A word in every passage ("Martin" in a
    # memory about him) or in none is no keyword either, but the query holds it.
    wordless = match.get("no_words") or "query" in answer and not any(c.isalnum() for c in answer["query"] or "")
    return (f"nothing is close enough in meaning (best {short_of(match['best_vector_similarity'], match['min_score'])}"
            f"{above}, floor {match['min_score']:g}) " + ("and the query holds no word to look for" if wordless else
                                                          f"or in words ({words})" if brief else
                                                          f"and no passage holds most of the query's words ({words})")
            + (f" nor {match['pair_floors'][1]:.0%} in a passage of meaning {match['pair_floors'][0]:.2f} or more "
               f"(best {short_of(match.get('best_pair_coverage') or 0.0, match['pair_floors'][1], True)})"
               if match.get("pair_floors") and not brief and not wordless else "")
            + (f", and the best passage, in another language, stands {short_of(match['across_gap'], match['across_floors'][1])} "
               f"above the fifth best (needs {match['across_floors'][1]:.2f})" if "across_gap" in match and not brief else "")
            + (" and no memory is from the time asked about" if "from_the_time_asked" in match else "")
            + (" and no passage names a day in the time asked about" if "naming_the_time_asked" in match else "")
            + ("; only chunks with full vectors count for meaning, and the index is still embedding"
               if match.get("meaning_from_full_vectors_only") else "")
            + (f"; {hint}" if (hint := language_hint(answer)) else ""))


def short_of(value: float, floor: float, share: bool = False) -> str:
    """`value` as `no_match_reason` writes a best figure beside its floor: 2 decimals (a `share`, a whole percent),
    or up to 2 more as it takes not to look as high as a floor it is under ("best 0.4399, floor 0.44", not
    "best 0.44, floor 0.44"; "best 44.6%, needs 45%")."""
    for extra in range(3):
        text = f"{value:.{extra}%}" if share else f"{value:.{2 + extra}f}"
        if value >= floor or float(text.rstrip("%")) / (100 if share else 1) < floor:
            break
    return text


#: Why a question found nothing while the index is behind its files: they may hold the answer.
NOT_UP_TO_DATE = "the index is not up to date: search again once it is"
#: ... while no file changed but an index run has not finished (the server's first one, or one interrupted).
RUN_NOT_FINISHED = "an index run has not finished (under way, or interrupted): search again once it has"


def index_behind(fresh: dict) -> bool:
    """Whether the index may not hold an answer's files: files changed since its last run, or a run not finished
    (a memory searched where its folder is not, ``"elsewhere"``, is neither)."""
    return bool(fresh.get("changed_since")) or fresh.get("state") == "incomplete"


def behind_text(fresh: dict) -> str:
    """Why the index may not hold the answer: files changed since it was updated, or a run not finished."""
    return NOT_UP_TO_DATE if fresh.get("changed_since") or fresh.get("state") == "complete" else RUN_NOT_FINISHED


def index_line(fresh: dict) -> str:
    """The index's freshness in one line, as an agent's answer gives it when the index is behind its files."""
    return (f"index updated {fresh.get('last_indexed_at') or 'never'}; "
            f"{plural(fresh.get('changed_since') or 0, 'file')} changed since")


#: How each face spells a floor of 0, for the hint a "no good match" ends with (`nearest_hint`): the command line's
#: option, the JSON API's parameter, MCP's argument.
NO_FLOOR = {"cli": "--min-score 0", "api": "min_score=0", "mcp": "min_score: 0"}


def nearest_hint(answer: dict, face: str = "mcp") -> str:
    """What to try when nothing reached the floor: a floor of 0, as `face` (`NO_FLOOR`) spells it ("--min-score 0
    shows the nearest passages anyway." on the command line); "" while the index may not hold the answer
    (`index_behind`: search again once it does) or with no floor."""
    behind = index_behind(answer.get("freshness") or {})
    return f"{NO_FLOOR[face]} shows the nearest passages anyway." if floor_hides(answer) and not behind else ""


def floor_hides(answer: dict) -> bool:
    """Whether a floor of 0 would show passages "no good match" left out: a floor decided, and some file passes the
    search's filters (``match.filtered_out``: none does)."""
    return bool(answer.get("min_score")) and not (answer.get("match") or {}).get("filtered_out")


def no_match_why(answer: dict) -> str:
    """Why a search found nothing good, in the few words an agent is told (`budget.no_match_text`): that the index
    is behind its files while it is (they may hold the answer), else the floor's evidence (`no_match_reason`)."""
    fresh = answer.get("freshness") or {}
    return behind_text(fresh) if index_behind(fresh) else no_match_reason(answer, brief=True)


def nowhere_text(answer: dict) -> str | None:
    """The words of an English question that the memory holds nowhere (``keywords_nowhere``), which every
    keyword match counts as missing (`search.ranking.keyword_relevance`): "not in this memory: “mattress”";
    None when there are none."""
    words = answer.get("keywords_nowhere") or []
    if not words:
        return None
    listed = ", ".join(f"“{w}”" for w in words)
    return f"not in this memory: {listed} (every keyword match counts {'it' if len(words) == 1 else 'them'} as missing)"


def widened_text(answer: dict) -> str | None:
    """The files whose best passages widened a question that gathers from several memories (``widened_by``,
    `search.scoring.rank_snapshot`): "a question that gathers: read together with a.md, b.md and c.jsonl,
    the files it matched best"; None when it was not widened."""
    files = [f"[{w['memory']}] {w['path']}" if w.get("memory") else w["path"] for w in answer.get("widened_by") or []]
    if not files:
        return None
    listed = files[0] if len(files) == 1 else ", ".join(files[:-1]) + f" and {files[-1]}"
    return f"a question that gathers from several memories: read together with {listed}, the files it matched best"


def named_text(answer: dict, counted: bool = True) -> str | None:
    """The things a question names, each searched on its own too (``named_parts``, `search.parts`): "a question
    that names several things: each searched on its own too, its best ranked beside the question's own: “the Porto
    trip” (2 results), “Kosmos” (no good match)"; None when it names none. Not `counted`: without the results'
    counts (a reply cut to a budget gives passages, each saying what it was found for, not the results; its note is
    written before they are chosen, and its ``named_parts`` count them: `replies.recall.held_for`)."""
    named = answer.get("named_parts") or []
    if not named:
        return None
    listed = ", ".join(f"“{p['part']}”" + (" (no good match)" if p["no_good_match"]
                                           else f" ({plural(p['results'], 'result')})" if counted else "")
                       for p in named)
    return ("a question that names several things: each searched on its own too, its best ranked beside the "
            f"question's own: {listed}")


def answer_notes(answer: dict, counted: bool = True) -> list[str]:
    """What every face says of an answer with results besides its results: the words found nowhere
    (`nowhere_text`), the files that widened it (`widened_text`) and the things it names (`named_text`; not
    `counted`: without how many results each gave, for a reply cut to a budget)."""
    notes = (nowhere_text(answer), widened_text(answer), named_text(answer, counted)) if answer.get("results") else ()
    return [note for note in notes if note]


def language_hint(answer: dict) -> str | None:
    """Why a question in another language than the memory's embedder reads found nothing, and what to do
    (``match.question_language``, set by the searcher for an English-only embedder); None otherwise."""
    match = answer.get("match") or {}
    language = match.get("question_language")
    if not language:
        return None
    said = (f"the question is in {language} and this memory's embedder ({answer.get('embedder')}) reads English "
            f"only: an English note is found by the question's words, never by its meaning across languages; ")
    if match.get("multilingual_unavailable"):  # the index holds its vectors, this machine cannot read them
        return said + ("the multilingual embedder that read this memory's passages cannot be loaded here: "
                       f"{match['multilingual_unavailable']}")
    return said + ("[embedder] multilingual = \"all\" reads every passage with a multilingual embedder too (then "
                   "'tachikoma index'), 'tachikoma index --reembed --embedder e5-small' reads 100 languages "
                   "(docs/embedders.md)")


def tool_match_text(result: dict) -> str | None:
    """Where a result's keywords were found in its tool calls (`search.keywords.ToolMatch`): "keywords 100% from
    tool calls: the input of Edit (line 12), the output of Bash (line 14)"; None when its own text
    matched alone, or all but alone (a share that rounds to 0% is not said)."""
    share = (result.get("factors") or {}).get("keyword_in_tools")
    matches = result.get("tool_matches") or []
    if not share or not matches or f"{share:.0%}" in ("0%", "-0%"):
        return None
    where = ", ".join(f"the {m['side']} of {m['tool']} (line {m['line']})" for m in matches)
    return f"keywords {share:.0%} from tool calls: {where}"


def vectors_text(embedded: dict | None) -> str | None:
    """How much of the index is embedded, e.g. "12,340 of 80,112 chunks have full vectors (60,000 quick
    vectors only, 7,772 keyword search only)"; None when there is nothing to say (`freshness.embedded_counts`)."""
    if not embedded or not embedded.get("chunks"):
        return None
    rest = [f"{embedded[key]:,} {label}" for key, label in (("quick", "quick vectors only"),
                                                              ("none", "keyword search only")) if embedded.get(key)]
    return (f"{embedded['full']:,} of {plural(embedded['chunks'], 'chunk')} "
            f"{'has' if embedded['chunks'] == 1 else 'have'} full vectors" + (f" ({', '.join(rest)})" if rest else ""))


def secrets_text(redacted: dict | None, where: str = "") -> str:
    """"10 secrets redacted in 2 files (shown as [secret: …]; [privacy] redact_secrets, docs/privacy.md)": the
    count the index holds (``{"secrets", "files"}``: `indexer.status.freshness`'s ``secrets_redacted``, an index
    run's `Summary.secrets_redacted`), never a value; "" when there are none. What every face that indexes or
    reports on the index says (`tachikoma index`, `stats`, `index --watch`, the dashboard's Index panel);
    `remember` on the command line and MCP says those of the note it wrote (`Summary.secrets_in`), `where` "the
    note" naming it in place of the count of files."""
    if not redacted or not redacted.get("secrets"):
        return ""
    where = where or plural(redacted.get("files") or 0, "file")
    return (f"{plural(redacted['secrets'], 'secret')} redacted in {where} "
            "(shown as [secret: …]; [privacy] redact_secrets, docs/privacy.md)")


def other_languages_text(other: dict | None) -> str:
    """"12 passages not in English (German 7, Japanese 5), read by the multilingual reader (muse) too"
    (`indexer.status.other_languages`);
    "" when there are none."""
    if not other:
        return ""
    from .embedders.names import reader_label  # not at the top: the package imports numpy
    chunks = other["chunks"]
    parts = ", ".join(f"{language} {n}" for language, n in chunks.items())
    return (f"{plural(sum(chunks.values()), 'passage')} not in English ({parts}), "
            f"read by {reader_label(other['embedder'])} too")


def meaning_label(factors: dict) -> str:
    """What the meaning part of a result's similarity came from: "meaning" (the full model's vectors),
    "meaning from quick vectors", or "meaning (not embedded yet: keywords only)" (`search.snapshot.TIER_NAMES`)."""
    return {None: "meaning", "full": "meaning", "quick": "meaning from quick vectors"}.get(
        factors.get("vectors"), "meaning (not embedded yet: keywords only)")


def duration(seconds: float) -> str:
    """A time left, rounded as a person says it: "40 s", "3 min", "1 h 20 min"."""
    seconds = max(0.0, float(seconds))
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60} min"


#: Unicode categories that hide or fake what a name says: control (newline, ESC), format (a right-to-left
#: override, a zero-width space), surrogates, line and paragraph separators.
HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")


def hidden_characters(text: str) -> list[str]:
    """The control and invisible characters in `text` (each once, in code point order)."""
    import unicodedata

    return sorted({ch for ch in text if unicodedata.category(ch) in HIDDEN_CATEGORIES})


#: What a line of memory text shown to an agent may not hold as it is (`unsafe_escaped`): control characters but the
#: tab (ESC starts a terminal's escape sequences, BEL rings it, a carriage return overwrites the line), the line
#: and paragraph separators (a line break to `str.splitlines`) and the bidirectional overrides and isolates, which
#: make text read in another order than it is written.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def unsafe_escaped(line: str) -> str:
    """One line of memory text as an agent is shown it: its `_UNSAFE` characters as backslash escapes (``\\x1b``),
    the rest as written (a zero-width joiner inside an emoji, an Arabic or Hebrew mark, a tab)."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), line)


def printable(text: str) -> str:
    """`text` safe to show on one terminal line: control and invisible format characters
    as backslash escapes (``\\n``, ``\\x1b``, ``\\u202e``), and bytes of a file name that
    are not UTF-8 (kept by Python as lone surrogates) as ``\\xNN``."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)
