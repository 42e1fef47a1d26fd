"""The time a question asks about, read offline from its words, and the ranking factor it gives.

"What did we decide in March", "what happened on 2026-03-22", "what did I do
two weeks ago": `read` finds such phrases and resolves each to a window of
time [start, end) against ``as_of`` (the "now" of the search, with its time
zone: "yesterday" is the asker's yesterday). Understood (English; other
languages at the end):

* dates: ``2026-03-22``, ``2026/03/22``, ``March 22``, ``22 March 2026``,
  ``Mar 22nd, 2026`` (a day without a year: its latest occurrence up to as_of);
* months and years: ``in March``, ``October 2025``, ``in 2025`` (a bare year
  only after in/during/since/from/until/of, so "port 2026" is no date);
* days: ``today``, ``yesterday``, ``the day before yesterday``, weekdays
  (``on Saturday``, ``last Saturday``: the latest one before today; ``every Saturday`` is a habit, no day);
* relative: ``this/last/past week|weekend|month|year``, ``N days|weeks|months|
  years ago`` (N a number or a word: a, one .. twelve, a couple of, a few),
  ``in the past|last N days|weeks|months``, ``since <any of these>`` (up to as_of),
  ``recently`` / ``lately`` (the last `RECENT_DAYS`);
* seasons: ``last summer``, ``this autumn``, ``since the summer``, ``summer 2024``, ``summer '24`` (English; `periods.season`);
* a day of the month alone: ``on the 21st``, "29日に", "二十九号", "29일은", "29日〜30日" (the next; past tense: the latest);
* spans: ``between March 1 and March 10``, ``from October to December`` (one window; a first time named
  without a year is its latest occurrence before the second: "between August and November 2023");
* other languages (issue 29): German, French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish, Japanese,
  Chinese and Korean "last/this week|weekend|month|year" ("letzte Woche", "la semana pasada", "w zeszłym tygodniu", "先週",
  "上个月", "지난주"), days ("gestern", "ayer", "ontem", "昨日", "어제"), months after a preposition ("im
  Oktober", "en octubre", "em outubro", "seit März"), "N units ago" ("vor 3 Tagen", "hace un mes", "há 3
  dias", "3 giorni fa", "drie dagen geleden", "3日前", "三天前", "3일 전"), days of the week ("letzten Dienstag",
  "mardi prochain", "先週の金曜日", "下周五") and CJK and Korean dates ("2025年10月", "10月3日", "10월 3일"): the tables
  of `time_words`, the patterns of `foreign_time`.

A month or day without a year in a question about what is coming ("what's planned for January", "which
deliveries are we waiting for in December", "Wer kommt im Dezember?", "12月の予定は？") is its next
occurrence, which no memory is from yet: no time asked about, as "next March" is not (`tense.ahead`, with each
told language's own words); the word is still a keyword.

A window still to come ("next week", "this coming week", "the week after next", "in the next six months", "next
Tuesday"; "this week" or "on Monday" in a question about what is coming, "this weekend" asked on a weekday; "nächste
Woche", "la semaine prochaine", "la próxima semana", "volgende week", "来週", "下周", "다음 주", "in den nächsten drei
Tagen", "今後3ヶ月") is a `Window` with ``ahead`` (its days: `ahead`). No memory is from it, so it weighs no memory's
own date: it makes the question one about what is coming, `mentions` prefers the passages naming a day inside it,
and its words leave the keywords. Not in the past tense ("what did I write in next week's retro notes"), nor a
name ("the Next Week Records showcase").

Numbers with dots ("version 2.1.5"), bare numbers ("port 2026", "bug 1041")
and "May I" are not dates. dateparser's ``search_dates`` was measured for this
and not used: it read "we", "May I", "port 2026", "30 seconds" and "1041 in
the" as dates, returns a point where a question means a span ("in March" →
March 25th), knows no "recently", and took ~0.1 s a query (docs/evaluation.md).

`factor` turns the windows into one weight per chunk from its own date: 1.0
inside a window, falling with the distance to the nearest window towards
`OUTSIDE`. Pure and vectorised, like the rest of ranking.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import replace
from datetime import date, datetime, timedelta

import numpy as np

from . import ahead as _coming
from .periods import NTH_DAY, ORDINAL_IN, ORDINAL_OF, month_beside
from .periods import cjk_nth_day_window as _cjk_nth_day_window
from .periods import nth_day_window as _nth_day_window
from .periods import season_window as _season_window
from .periods import this_last
from ..language.function_words import question_language
from .tense import ahead as _ahead
from .tense import ahead_in as _tense_ahead_in
from .tense import duration as _duration
from .tense import past_in as _past_in
from .tense import plans_in as _plans_in
from .foreign_time import CHINESE_DAY_NUMBERS, FOREIGN_PATTERNS, OF_A_WEEK, cjk_number
from .time_words import (ACQUIRED_AFTER, AHEAD_HINTS, BARE_MONTH_WORDS, DAYS_ALSO_NAMES, EVERY_AFTER, EVERY_BEFORE,
                         FOREIGN_DAYS, FOREIGN_MONTH_LEADS, FOREIGN_NEXT, FOREIGN_NUMBERS, FOREIGN_THIS_LAST,
                         FOREIGN_TOMORROW, FOREIGN_UNIT_OF, HABIT_BEFORE, IN_WORD_LANGUAGE, LEAD_MONTHS, MONTH_NAMES,
                         MONTH_NAMES_ALSO_WORDS, MORNING_BEFORE, NAME_AFTER_ASU, NAME_BEFORE_DAY, NEXT_WORD_LANGUAGE,
                         NOT_A_DAY_ALONE, PHRASE_LANGUAGE, QUESTION_MONTHS, QUESTION_WEEKDAYS, SEASON_HINTS,
                         SHORT_DAY_FOLLOWERS, WEEK_OF_LEAD, WEEKDAY_LEADS, WEEKDAY_SHORT, WEEKDAY_TRAILS)
from .timespan import spans, with_its_month
from .timewindow import (DAY, MAX_YEAR, MIN_YEAR, OUTSIDE, OUTSIDE_TIME_ONLY, Window, end_of_day,  # noqa: F401
                         explain, factor, month_end, parse_as_of)  # (each its own: `timeq` gives their names too)
from .timewindow import days as _days
from .timewindow import month as _month

#: "recently", "lately": this many days up to as_of.
RECENT_DAYS = 30
#: The English months by name and abbreviation (`time_words.MONTH_NAMES`).
MONTHS = {**MONTH_NAMES, **{name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}, "sept": 9}
#: Month names that are also ordinary words: they count only capitalised and next to a date word.
AMBIGUOUS_MONTHS = MONTH_NAMES_ALSO_WORDS | {"jan", "mar", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "feb", "apr",
                                             "sept"}
WEEKDAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
           "a few": 3, "few": 3, "several": 3}
UNITS = {"day": 1, "week": 7, "month": 30.4375, "year": 365.25}
_PREPOSITIONS = r"(?:in|during|since|from|until|till|of|for|throughout|before|after|by)"

_MONTH_WORD = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUMBER_WORD = r"(?:\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)).replace(" ", r"\s+") + ")"
_UNIT = r"(day|week|month|year)s?"
_NOT_NUMBER_BEFORE = r"(?<![\w.\-/:])"
_NOT_NUMBER_AFTER = r"(?![\w\-/:]|\.\d)"
_SEASON = r"spring|summer|autumn|fall|winter"
#: What may follow a season's name or a day's number for it to be a time: the question's end, a mark, or a word that
#: is no noun ("winter tyres", "summer holiday", "the 21st century", "the 3rd time" are things).
_ALONE = (r"(?=\s*$|\s*[?.!,;:)\]\"'\u2019]|\s+(?:in|at|on|and|or|with|when|while|before|after|we|i|you|they|he|"
                 r"she|it|was|were|did|do|does|is|are|has|have|had|so|to|for|by|then|than|as|until|till|but|since|"
                 r"this|that|there)\b)")

PATTERNS = [
    # A day of the week in another language ("letzten Dienstag", "mardi prochain", "先週の金曜日"): first, as its
    # week ("先週", "下周") is no window of its own then.
    ("foreign_weekday", None),
    # A window still to come ("next week", "the week after next", "in the next six months"): `ahead`.
    ("ahead", re.compile(r"\b(?:the\s+)?(week|weekend|month|year)\s+after\s+next\b|\b(this\s+coming|the\s+coming|"
                         r"the\s+upcoming|coming|upcoming|(?<!\bthe\s)next)\s+(week|weekend|month|year)\b", re.I)),
    ("next_n", re.compile(r"\b(?:(in|over|during|for|within)\s+)?the\s+(?:next|coming|upcoming)\s+(?:(" + _NUMBER_WORD
                          + r")\s+)?(day|week|month|year)(s)?\b", re.I)),
    ("foreign_ahead", None),
    ("foreign_next_n", None),
    # "a week from today", "two weeks from tomorrow": that day.
    ("from_now", re.compile(r"\b(" + _NUMBER_WORD + r")\s+" + _UNIT + r"\s+from\s+(today|tomorrow|now)\b", re.I)),
    ("tomorrow", re.compile(r"\b(the\s+day\s+after\s+tomorrow|tomorrow)\b", re.I)),
    # "in two weeks" (around then), "within two weeks" (up to then); not "twice in two weeks", "first in a year".
    ("in_n", re.compile(r"\b(in|within)\s+(?:about\s+|around\s+|under\s+|roughly\s+|just\s+)?(" + _NUMBER_WORD
                        + r")\s+" + _UNIT + r"(?:['\u2019]s?)?(?:\s+time)?\b", re.I)),
    ("foreign_tomorrow", None),
    ("foreign_in_n", None),
    ("iso", re.compile(r"(?:\bon\s+)?" + _NOT_NUMBER_BEFORE + r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})" + _NOT_NUMBER_AFTER)),
    ("month_day", re.compile(r"\b(" + _MONTH_WORD + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?"
                             + r"(?![\-/:.]\d)", re.I)),
    ("day_month", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th|\.)?\s+(?:of\s+)?(" + _MONTH_WORD + r")\b\.?(?:,?\s+(\d{4})\b)?",
                             re.I)),
    # A day of the month without its month ("on the 21st"): after "21st of December", "December 21st" are read.
    ("nth_day", re.compile(r"\b" + NTH_DAY + r"\b" + _ALONE, re.I)),
    ("month_year", re.compile(r"\b(" + _MONTH_WORD + r")\.?,?\s+(\d{4})\b", re.I)),
    ("month", re.compile(r"\b(?:(" + _PREPOSITIONS + r"|between|early|mid|late|last|this|next|and|or|to)\s+)?(" + _MONTH_WORD
                         + r")\b", re.I)),
    # A season (`periods.season`): "last summer", "this autumn", "since the summer", "the winter of 2024", "summer '24",
    # "the summer before last"; not one that names a thing ("winter tyres", "over the summer break", "the fall of Rome").
    ("season", re.compile(r"\b(?:(?P<which>this|last|next|past)\s+(?P<named>" + _SEASON + ")" + _ALONE
                          + r"|(?:(?:in|during|over|through)\s+)?(?:the\s+)?(?P<before>" + _SEASON + r")\s+before\s+last" + _ALONE
                          + r"|(?:(?:in|during|over)\s+)?(?:the\s+)?(?P<dated>" + _SEASON + r"),?\s+(?:of\s+)?"
                          + r"(?:(?P<year>\d{4})\b|['\u2019](?P<short>\d{2})(?![\w'\u2019]))"
                          + r"|(?P<lead>since|after|during|over|through|throughout)\s+(?:the\s+)?(?P<led>" + _SEASON + ")"
                          + _ALONE + ")", re.I)),
    ("foreign_season", None),
    ("year", re.compile(r"\b(" + _PREPOSITIONS + r"|the\s+year)\s+(\d{4})" + _NOT_NUMBER_AFTER, re.I)),
    ("weekday_ago", re.compile(r"\b(?:the\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+("
                               + _NUMBER_WORD + r")\s+" + _UNIT + r"\s+ago\b", re.I)),
    ("ago", re.compile(r"\b(" + _NUMBER_WORD + r")\s+" + _UNIT + r"\s+ago\b", re.I)),
    ("past_n", re.compile(r"\b(?:in|over|during|for|within)?\s*the\s+(?:past|last|previous)\s+(" + _NUMBER_WORD
                          + r")\s+" + _UNIT + r"\b", re.I)),
    ("this_last", re.compile(r"\b(this|last|past|previous|the\s+past|the\s+last|the\s+previous)\s+"
                             r"(week|weekend|month|year)\b", re.I)),
    ("day_word", re.compile(r"\b(today|yesterday|the\s+day\s+before\s+yesterday|tonight|this\s+morning|"
                            r"this\s+afternoon|this\s+evening|last\s+night)\b", re.I)),
    ("weekday", re.compile(r"\b(?:(last|this|past|previous|on|next)\s+)?(monday|tuesday|wednesday|thursday|friday|"
                           r"saturday|sunday)\b", re.I)),
    ("recent", re.compile(r"\b(recently|lately|of\s+late|these\s+days)\b", re.I)),
    # Other languages (issue 29): German, French, Spanish, Portuguese, Italian, Dutch, Japanese, Chinese and
    # Korean, read as their English counterparts (the tables of `time_words`).
    ("foreign_ago", None),
    ("foreign_this_last", None),
    ("foreign_day", None),
    ("foreign_day_month", None),
    ("foreign_month", None),
    ("cjk_ymd", None),  # "2025年10月3日", "2025年十二月二十九日"
    ("cjk_md", None),  # "10月3日", "十二月二十九号", "10월 3일"
    ("cjk_nth_day", None),  # "29日に", "29号", "29일에": after "12月29日" is read (`periods.cjk_nth_day_window`)
]
#: The kinds of phrase that may name a day or month without its year (`names_day_ahead`).
_YEARLESS_KINDS = frozenset({"month_day", "day_month", "foreign_day_month", "month", "foreign_month", "cjk_md"})
#: The kinds of phrase that say a time relative to now (`Window.relative`).
RELATIVE_KINDS = frozenset({"foreign_weekday", "weekday_ago", "ago", "past_n", "this_last", "day_word", "weekday", "recent",
                            "foreign_ago", "foreign_this_last", "foreign_day", "ahead", "next_n", "foreign_ahead",
                            "foreign_next_n", "tomorrow", "in_n", "from_now", "foreign_tomorrow", "foreign_in_n"})
#: The kinds of phrase that name a window still to come, in any question not in the past tense (`Window.ahead`).
_AHEAD_KINDS = frozenset({"ahead", "next_n", "foreign_ahead", "foreign_next_n", "tomorrow", "in_n", "from_now",
                          "foreign_tomorrow", "foreign_in_n"})
#: Of those, the ones read without a word of `AHEAD_HINTS` ("in two weeks": its words are too common to hint).
_UNHINTED = frozenset({"in_n", "from_now", "foreign_in_n"})
#: The kinds of phrase that name a season, read only in a question holding a season's word (`SEASON_HINTS`).
_SEASON_KINDS = frozenset({"season", "foreign_season"})
#: The words before "in two weeks" that make it no time still to come: "twice in two weeks", "the first time in
#: a year", "more than in a month", "40 km in a day".
_IN_N_AFTER = re.compile(r"\b(?:times?|once|twice|first|only|ever|all|than|most|least|hours?|minutes?|miles?|km|"
                         r"kilos?|pounds?|kg|pages?|words?|\d+)\s+$", re.I)
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?$", re.I)
#: "before March", "after the 2nd of May": the time up to the start of what is named, or from its end.
_BEFORE_AFTER = re.compile(r"\b(before|after)\s+(?:the\s+)?$", re.I)
_LEAD = re.compile(r"^(before|after)\b", re.I)
#: How far before a phrase "since" is looked for: "since the " and some spaces (a window, never the
#: whole text before it: a query of many phrases is read in linear time).
_SINCE_REACH = 48
_DIGIT_NEXT = re.compile(r"\s*,?\s*\d")
#: What `_resolve` gives for a date that does not exist ("February 29, 2027", "March 32"): its words
#: are taken (they are not read again as a month: "February" alone) and ask about no time.
IMPOSSIBLE = object()
#: What `_resolve` gives for a month or day of the future (`_ahead`): no window, and no other reading of it
#: either (an English "in December" is not then read as Dutch).
AHEAD = object()
_DATE_KINDS = ("iso", "month_day", "day_month", "foreign_day_month", "month_year", "cjk_ymd")

PATTERNS = [(kind, pattern or FOREIGN_PATTERNS[kind]) for kind, pattern in PATTERNS]


def _latest_month(month: int, today: date) -> int:
    """The year of the latest `month` that has begun by `today`."""
    return today.year if month <= today.month else today.year - 1


def _number(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBERS[text]


def _ambiguous_month(word: str, lead: str | None, text: str, start: int, end: int) -> bool:
    """True when a month word that is also an ordinary word ("may", "march") is not used as a month: in lower case
    unless "in" leads it right after "the 21st" ("on the 21st in may", `periods.ORDINAL_IN`)."""
    if word.lower() not in AMBIGUOUS_MONTHS:
        return False
    if not word[:1].isupper():
        return not (lead and ORDINAL_IN.search(text, max(0, start - 16), end - len(word)))
    return lead is None and not _DIGIT_NEXT.match(text, end)


def read(query: str, as_of: datetime) -> list[Window]:
    """The windows of time `query` asks about, resolved against `as_of` (aware; its zone is the asker's).

    Phrases do not overlap: the longest, earliest reading of each stretch of text wins."""
    return [window for _, _, window in read_spans(query, as_of)]


def without_time(query: str, spans: list[tuple[int, int, "Window"]], every: bool = False) -> str:
    """`query` with the phrases that named a time relative to now (`read_spans`, `Window.relative`)
    blanked out: the words a keyword search should look for ("what did we decide last week" → "what
    did we decide"; "in July" stays, as notes and transcripts write months and dates). `every`: every
    time phrase blanked out, "in July" too (what the question asks about besides the time)."""
    out, at = [], 0
    for start, end, window in spans:
        if not (window.relative or every):
            continue
        out.append(query[at:start])
        out.append(" ")
        at = end
    out.append(query[at:])
    return "".join(out)


#: A day or month named without its year that comes within this many days, and nearer than it went, is the
#: coming one (`names_day_ahead`); one further ahead is last year's ("meeting notes March 3" in December).
NEAR_AHEAD_DAYS = 62


def names_day_ahead(query: str, as_of: datetime, language: str | None = None) -> bool:
    """Whether `query`, not in the past tense (`tense.past_in`; `language` as told), names a day or month
    without its year that comes within `NEAR_AHEAD_DAYS` and nearer than it went: "What is on 10 December?" (or "on
    the 10th in December")
    asked on 5 December asks about the coming one, not last year's; "What did we do on 10 December?" the one
    gone.
    Phrases are read as `read_spans` reads them ("January 2025" is no January without its year)."""
    if _past_in(query, language):
        return False
    tz, today, now = as_of.tzinfo, as_of.date(), as_of.timestamp()
    taken = np.zeros(len(query) + 1, dtype=bool)
    for kind, pattern in PATTERNS:
        if kind in _AHEAD_KINDS:  # a window still to come names no month or day, and overlaps none
            continue
        for m in pattern.finditer(query):
            if taken[m.start():m.end()].any():
                continue
            last = _resolve(kind, m, query, today, now, tz)
            if last is None:
                continue
            taken[m.start():m.end()] = True
            if not isinstance(last, Window):
                continue  # no day that exists
            # "on the 21st in July" is a day without its year too (`periods.month_beside`), read as its latest (one
            # still to come has its year: "on the 21st in March 2027")
            dated = kind == "nth_day" and last.start <= now and month_beside(m, query) is not None
            if not dated and (kind not in _YEARLESS_KINDS
                              or _resolve(kind, m, query, today, now, tz, lambda: True) is not AHEAD):
                continue  # a year named, or a time relative to now
            said = m.group(0).lower()
            if said.startswith(("last", "since")) or _SINCE.search(query[max(0, m.start() - _SINCE_REACH):m.start()]):
                continue  # "last January", "since 2 January": one gone, whatever comes next
            begun = datetime.fromtimestamp(last.start, tz)
            coming = None
            for years in range(1, 9):  # 29 February: its next one is up to 8 years on
                try:
                    coming = begun.replace(year=begun.year + years).timestamp()
                    break
                except (ValueError, OverflowError):
                    continue
            if coming is None:
                continue
            if coming - now < min(now - last.end, NEAR_AHEAD_DAYS * 86400):
                return True
    return False


def read_spans(query: str, as_of: datetime, ahead: bool | None = None) -> list[tuple[int, int, "Window"]]:
    """`read`, with where each phrase stands in `query`: (start, end, window), in order. `ahead`: whether the
    question asks about what is coming (`tense.ahead`), when the caller knows it already; a window still to
    come it names ("next week", `Window.ahead`) makes it one too."""
    if as_of.tzinfo is None:
        raise ValueError("as_of needs a time zone")
    tz = as_of.tzinfo
    now = as_of.timestamp()
    today = as_of.date()
    found: list[tuple[int, int, Window]] = []
    taken = np.zeros(len(query) + 1, dtype=bool)
    told = ahead  # else read only for a month or day without a year
    words_ahead = functools.cache(lambda: _ahead(query)) if told is None else (lambda: told)
    # The windows still to come are read first (`_AHEAD_KINDS` lead `PATTERNS`): "what's on next week and on
    # 3 January" asks about the coming 3 January.
    windows_ahead: list[Window] = []
    ahead = lambda: words_ahead() or bool(windows_ahead)  # noqa: E731 (read as it grows)
    # The past tense rules a window still to come out, told by the question's language, else the window's own.
    language = functools.cache(lambda: question_language(query))
    past = functools.cache(lambda said_in=None: _past_in(query, language() or said_in))
    lowered = query.lower()
    hinted = any(word in lowered for word in AHEAD_HINTS)
    seasonal = any(word in lowered for word in SEASON_HINTS)
    for kind, pattern in PATTERNS:
        if kind in _AHEAD_KINDS and not hinted and kind not in _UNHINTED or kind in _SEASON_KINDS and not seasonal:
            continue
        for m in pattern.finditer(query):
            if taken[m.start():m.end()].any():
                continue
            window = _resolve(kind, m, query, today, now, tz, ahead, past)
            if window is AHEAD and kind in _DAY_KINDS:  # a day without its year, still to come: its next one
                window = _coming_day(kind, m, today, tz) or AHEAD
            if window is IMPOSSIBLE or window is AHEAD:
                taken[m.start():m.end()] = True
                if window is AHEAD and kind == "month":  # "on the 21st in July" still to come: said as both
                    found = with_its_month(query, found, m.start(), m.end(), MONTHS[m.group(2).lower()], tz)
                continue
            if window is not None and kind in RELATIVE_KINDS:
                window = replace(window, relative=True)
            if window is not None and not window.ahead and (
                    _SINCE.search(query[max(0, m.start() - _SINCE_REACH):m.start()])
                    or m.group(0).lower().startswith("since")):
                first = datetime.fromtimestamp(window.start, tz).date()
                phrase = window.phrase if window.phrase.lower().startswith("since") else f"since {window.phrase}"
                window = replace(_days(first, max(first, today), tz, phrase), relative=window.relative)
            start = m.start()
            if window is not None and not window.phrase.lower().startswith("since"):
                reach = max(0, m.start() - _SINCE_REACH)  # a window before the phrase: linear time
                lead = _LEAD.match(m.group(0)) or _BEFORE_AFTER.search(query[reach:m.start()])
                if lead is not None:
                    window = _before_after(lead.group(1).lower(), window, now, tz)
                    start = min(start, reach + lead.start()) if lead.re is _BEFORE_AFTER else start
            if window is not None:
                taken[start:m.end()] = True
                found.append((start, m.end(), window))
                if window.ahead:
                    windows_ahead.append(window)
    return spans(query, sorted(found, key=lambda f: f[0]), tz, _SINCE_REACH, today)


#: The kinds of phrase that name a day of a month without its year: asked about what is coming, the next one
#: is a window still to come (`_coming_day`).
_DAY_KINDS = frozenset({"month_day", "day_month", "foreign_day_month", "cjk_md"})


def _month_day(kind: str, m: re.Match) -> tuple[int, int | None, str | None]:
    """The month, day (None: a month alone, "12月") and year (None: not said) that `m`, of `_DAY_KINDS`, names."""
    if kind == "cjk_md":
        return cjk_number(m.group(1)), cjk_number(m.group(2)) if m.group(2) else None, None
    if kind == "foreign_day_month":
        return QUESTION_MONTHS[m.group(5).lower()], int(m.group(2)), m.group(6)
    month_word, day_text = (m.group(1), m.group(2)) if kind == "month_day" else (m.group(2), m.group(1))
    return MONTHS[month_word.lower()], int(day_text), m.group(3)


def _named_day(kind: str, m: re.Match, today: date, tz, phrase: str, ahead) -> Window | object:
    """The day `m` names: of its year, else AHEAD in a question about what is coming, else its latest occurrence
    (IMPOSSIBLE: March 32, February 30)."""
    month, day_number, year = _month_day(kind, m)
    if year:
        day = date(int(year), month, day_number)
    elif ahead():
        return AHEAD  # its next occurrence: nothing in memory is from then yet (`_coming_day`)
    elif (day := _coming.latest_day(month, day_number, today)) is None:
        return IMPOSSIBLE
    return _days(day, day, tz, phrase)


def _coming_day(kind: str, m: re.Match, today: date, tz) -> Window | None:
    """The next `m` (a day without its year) from `today` on as a window still to come; None for "12月", 30 February."""
    month, day_number, _ = _month_day(kind, m)
    day = None if day_number is None else _coming.next_day(month, day_number, today)
    return None if day is None else replace(_days(day, day, tz, " ".join(m.group(0).split())), ahead=True)


#: "before <a time>": from this far back (the start of the window) up to it.
BEFORE_SPAN_DAYS = 3650


def _before_after(which: str, window: Window, now: float, tz) -> Window | None:
    """The time before a window (up to `BEFORE_SPAN_DAYS` earlier) or after it (up to now); before a window
    still to come, from today up to it, and after it, the year that follows it."""
    if window.ahead:
        today = datetime.fromtimestamp(now, tz).date()
        first, last = datetime.fromtimestamp(window.start, tz).date(), datetime.fromtimestamp(window.end - 1, tz).date()
        if which == "before":
            return None if first <= today else replace(
                _days(today, first - timedelta(days=1), tz, f"before {window.phrase}"), relative=True, ahead=True)
        if last >= date(MAX_YEAR, 12, 31):
            return None  # nothing after the last day a search reads
        # up to the last day a search reads: "after tomorrow" asked late in 9998 (`timewindow.MAX_YEAR`)
        until = min(last + timedelta(days=_coming.COMING_DAYS["year"]), date(MAX_YEAR, 12, 31))
        return replace(_days(last + timedelta(days=1), until, tz, f"after {window.phrase}"), relative=True, ahead=True)
    if which == "before":
        start = window.start - BEFORE_SPAN_DAYS * DAY
        last = datetime.fromtimestamp(window.start, tz).date() - timedelta(days=1)
        return Window(start, window.start, f"before {window.phrase}" if not window.phrase.lower().startswith(
            "before") else window.phrase, f"..{last.isoformat()}", window.relative)
    if window.end >= now:
        return None  # after a time that has not ended: nothing is known yet
    first = datetime.fromtimestamp(window.end, tz).date()
    return Window(window.end, now, f"after {window.phrase}" if not window.phrase.lower().startswith("after")
                  else window.phrase, f"{first.isoformat()}..", window.relative)


def _resolve(kind: str, m: re.Match, text: str, today: date, now: float, tz, ahead=lambda: False,
             past=lambda language=None: False):
    """The window `m` of pattern `kind` asks about; None when it is no date after all ("may I"),
    IMPOSSIBLE when it names a day that does not exist or is out of range, AHEAD when it is still to come
    (`ahead()`: the question asks about what is coming, `tense.ahead`). A window still to come ("next week",
    `_AHEAD_KINDS`) only in a question not in the past tense (`past()`: "what did we write in next week's
    notes" names no time)."""
    phrase = " ".join(m.group(0).split())
    try:
        if kind in _AHEAD_KINDS or kind == "weekday" and (m.group(1) or "").lower() == "next":
            return None if past(_phrase_language(kind, m)) else _resolve_ahead(kind, m, text, today, tz, phrase)
        if kind == "iso":
            day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            return _days(day, day, tz, phrase)
        if kind in ("month_day", "day_month"):
            month_word, day_text = (m.group(1), m.group(2)) if kind == "month_day" else (m.group(2), m.group(1))
            if month_word.lower() in AMBIGUOUS_MONTHS and (not month_word[:1].isupper() and not (
                    kind == "day_month" and ORDINAL_OF.match(m.group(0))) or kind == "day_month" and not
                                                           m.group(3) and m.group(0)[len(day_text)] == "."):
                return None  # "we may", "step 3. May I": a sentence's end before the verb ("3. November", "the 21st
                # of may" are days)
            return _named_day(kind, m, today, tz, phrase, ahead)
        if kind == "month_year":
            return _month(int(m.group(2)), MONTHS[m.group(1).lower()], tz, phrase)
        if kind == "month":
            lead, word = m.group(1), m.group(2)
            if _ambiguous_month(word, lead, text, m.start(), m.end()):
                return None
            month = MONTHS[word.lower()]
            if lead and lead.lower() == "next" or ahead():
                return AHEAD  # the future: nothing in memory yet
            year = _latest_month(month, today)
            if lead and lead.lower() == "last" and month == today.month:
                year -= 1
            return _month(year, month, tz, phrase)
        if kind == "year":
            year = int(m.group(2))
            if not 1970 <= year <= today.year + 1:
                return None
            return _days(date(year, 1, 1), date(year, 12, 31), tz, phrase)
        if kind == "nth_day":  # the next one, or in the past tense the latest (`periods.nth_day_window`)
            return _nth_day_window(m, text, today, tz, phrase, past, ahead)
        if kind == "cjk_nth_day":  # the same in Japanese, Chinese and Korean
            return _cjk_nth_day_window(m, text, today, tz, phrase, _told(text), past)
        if kind in ("season", "foreign_season"):
            return _season_window(kind, m, today, tz, phrase, ahead, past)
        if kind == "weekday_ago":
            around = _ago(_number(m.group(2)), m.group(3).lower(), today, tz, phrase)
            centre = datetime.fromtimestamp((around.start + around.end) / 2, tz).date()
            shift = (WEEKDAYS[m.group(1).lower()] - centre.weekday()) % 7
            day = centre + timedelta(days=shift - 7 if shift > 3 else shift)
            return _days(day, day, tz, phrase)
        if kind == "ago":
            n, unit = _number(m.group(1)), m.group(2).lower()
            return _ago(n, unit, today, tz, phrase)
        if kind == "past_n":
            n, unit = _number(m.group(1)), m.group(2).lower()
            first = today - timedelta(days=round(n * UNITS[unit]))
            return _days(first, today, tz, phrase)
        if kind == "this_last":
            which, unit = m.group(1).lower().split()[-1], m.group(2).lower()
            return this_last(which, unit, today, tz, phrase, _this_ahead(which, unit, today, ahead, past))
        if kind == "day_word":
            word = " ".join(m.group(1).lower().split())
            back = {"yesterday": 1, "last night": 1, "the day before yesterday": 2}.get(word, 0)
            day = today - timedelta(days=back)
            return _days(day, day, tz, phrase)
        if kind == "weekday":
            lead, name = (m.group(1) or "").lower(), m.group(2)
            if not lead and (not name[:1].isupper() or _HABIT.search(text, max(0, m.start() - 16), m.start())):
                return None  # "monday" in lower case; "every Monday", "each Friday": a habit, no one day
            target = WEEKDAYS[name.lower()]
            # "anything on Monday?", "what am I doing on Monday": the coming one, unless it is today
            plans = lead in ("", "on") and target != today.weekday() and _plans_in(text)
            if lead in ("", "on", "this") and ahead() or plans:  # the coming one: "what will we do on Monday"
                return replace(_days(*_coming.weekday(target, today, False), tz, phrase), ahead=True)
            day = _coming.this_or_latest(target, today, lead == "this", past)  # "this Saturday": this week's
            return replace(_days(day, day, tz, phrase), ahead=day > today)
        if kind == "recent":
            return _days(today - timedelta(days=RECENT_DAYS), today, tz, phrase)
        if kind == "foreign_weekday":
            return _foreign_weekday(m, text, today, tz, phrase, ahead, past)
        return _resolve_foreign(kind, m, today, tz, phrase, ahead, past)
    except (ValueError, KeyError, OverflowError):
        return IMPOSSIBLE if kind in _DATE_KINDS else None
    return None


def _this_ahead(which: str, unit: str, today: date, ahead, past=lambda: False) -> bool:
    """Whether "this week|weekend|month|year" is the rest of it: asked about what is coming (`ahead()`), and "this
    weekend" on a weekday in any question not in the past tense (on a Friday, the one that has not begun)."""
    return which == "this" and (ahead() or unit == "weekend" and today.weekday() < 5 and not past())


def _resolve_foreign(kind: str, m: re.Match, today: date, tz, phrase: str, ahead=lambda: False,
                     past=lambda language=None: False) -> Window | None:
    """The windows of the other languages' patterns, through the English ones' helpers."""
    if kind == "foreign_ago":
        number, unit = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5, 7) if m.group(i + 1))
        n = int(number) if number.isdigit() else FOREIGN_NUMBERS[number.lower()] if number else 1  # "tydzień temu"
        return _ago(n, FOREIGN_UNIT_OF[unit.lower()], today, tz, phrase)
    if kind == "foreign_this_last":
        which, unit = FOREIGN_THIS_LAST[" ".join(m.group(1).lower().split())]
        return this_last(which, unit, today, tz, phrase,
                          _this_ahead(which, unit, today, ahead, lambda: past(_phrase_language(kind, m))))
    if kind == "foreign_day":
        day = today - timedelta(days=FOREIGN_DAYS[" ".join(m.group(1).lower().split())])
        return _days(day, day, tz, phrase)
    if kind == "foreign_day_month":
        month_word = m.group(5).lower()
        if month_word in BARE_MONTH_WORDS and not (m.group(1) or m.group(3) or m.group(4)):
            return None  # "3 mars bars", "2 mai tais": a day needs a lead, a mark or "de" before these
        return _named_day(kind, m, today, tz, phrase, ahead)
    if kind == "foreign_month":
        lead = " ".join((m.group(1) or "").lower().split())  # none: Turkish ("mart ayında")
        if lead in LEAD_MONTHS and m.group(2).lower() not in LEAD_MONTHS[lead]:
            return None  # "a Mayo Clinic", "in Julio's team": each lead takes its own language's months
        month = QUESTION_MONTHS[m.group(2).lower()]
        if not m.group(3) and FOREIGN_MONTH_LEADS[lead] != "since" and ahead():
            return AHEAD  # the future: nothing in memory yet
        window = _month(int(m.group(3)) if m.group(3) else _latest_month(month, today), month, tz, phrase)
        if FOREIGN_MONTH_LEADS[lead] == "since":
            first = datetime.fromtimestamp(window.start, tz).date()
            return _days(first, today, tz, phrase)
        return window
    if kind == "cjk_ymd":
        year = int(m.group(1))
        if not 1970 <= year <= today.year + 1:
            return IMPOSSIBLE  # its month and day are that year's, not read again as this year's (`cjk_md`)
        if m.group(3):
            day = date(year, cjk_number(m.group(2)), cjk_number(m.group(3)))
            return _days(day, day, tz, phrase)
        if m.group(2):
            return _month(year, cjk_number(m.group(2)), tz, phrase)
        return _days(date(year, 1, 1), date(year, 12, 31), tz, phrase)
    if kind == "cjk_md":
        month = cjk_number(m.group(1))
        if ahead():
            return AHEAD  # its next occurrence: nothing in memory is from then yet
        if m.group(2):
            day = _coming.latest_day(month, cjk_number(m.group(2)), today)
            return None if day is None else _days(day, day, tz, phrase)
        return _month(_latest_month(month, today), month, tz, phrase)
    return None


_EVERY_CJK = tuple(w for w in EVERY_BEFORE if not w.isascii())
_HABIT = re.compile(r"\b(?:every|each)\s+$", re.I)
_told = functools.lru_cache(maxsize=16)(question_language)  # once a question, not once a day it names
_ahead_in = functools.lru_cache(maxsize=16)(_tense_ahead_in)  # once a question and language: linear time
_WORD_AFTER = re.compile(r"\s+([^\W\d_]+)")


def _foreign_weekday(m: re.Match, text: str, today: date, tz, phrase: str, ahead, past) -> Window | None:
    """A day of the week in another language (`foreign_time`'s "foreign_weekday"), read as the English one: the
    latest one gone, the coming one in a question about what is coming ("next" said: `ahead.weekday`), or the day
    of the week before, after or this one ("先週の金曜日", "下周五", "다음 주 수요일"). A day without a word before
    or after it is one only in a question told as its language, not after a word saying a habit ("jeden Montag",
    "le mardi", "los martes") or a name ("Herr Freitag", "Plácido Domingo")."""
    if m.group(7):
        said, target, language = WEEKDAY_LEADS[m.group(6)], CHINESE_DAY_NUMBERS[m.group(7)], "Chinese"
    else:
        lead = " ".join((m.group(1) or m.group(4) or "").lower().split())
        target, language = QUESTION_WEEKDAYS[(m.group(2) or m.group(5)).lower()]
        trail = WEEKDAY_TRAILS.get(" ".join((m.group(3) or "").lower().split()), "")  # "on" ("günü"): a lead says more
        said = trail if trail not in ("", "on") else WEEKDAY_LEADS.get(lead) or trail
        after = _WORD_AFTER.match(text, m.end())
        if m.group(2) and m.group(2).lower() in WEEKDAY_SHORT and not m.group(3) and after \
                and after.group(1).lower() not in SHORT_DAY_FOLLOWERS:
            return None  # "na segunda hora" is the second hour; "na segunda de manhã", "na sexta?" are days
        if m.group(2) and not said:  # a bare day: "Was war am Montag?" has "am"; "mardi" alone needs French
            before = text[max(0, m.start() - 12):m.start()].lower().split()
            if m.group(2).lower() in NOT_A_DAY_ALONE or _told(text) != language or before and (
                    before[-1] in HABIT_BEFORE and not OF_A_WEEK.match(text, m.end())  # "le mardi de la semaine …"
                    or " ".join(before[-2:]) in HABIT_BEFORE or before[-1] in NAME_BEFORE_DAY
                    or m.group(2).lower() in DAYS_ALSO_NAMES and m.group(2)[:1].isupper() and before[-1][-1:].isalnum()):
                return None
        if m.group(5) and not said and (text[max(0, m.start() - 3):m.start()].rstrip().endswith(_EVERY_CJK)
                                        or text.startswith(EVERY_AFTER, m.end())):
            return None  # a habit: "毎週月曜日", "每周一", "매주 월요일", "월요일마다"
    if said in ("next", "next week", "week after next") and past(language):
        return None  # "what did we write in next Tuesday's notes"
    if said in WEEK_OF_LEAD:
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7 * WEEK_OF_LEAD[said])
        day = monday + timedelta(days=target)
        return replace(_days(day, day, tz, phrase), ahead=True) if day > today else _days(day, day, tz, phrase)
    # a question too short to tell its language is read by the day's ("Cuma günü ne yapacağız?"), as `past` is
    if said == "next" or said in ("", "on", "this") and (ahead() or _told(text) is None and _ahead_in(text, language)):
        return replace(_days(*_coming.weekday(target, today, said == "next"), tz, phrase), ahead=True)
    day = _coming.this_or_latest(target, today, said == "this", lambda: past(language))
    return replace(_days(day, day, tz, phrase), ahead=day > today)


def _ago(n: int, unit: str, today: date, tz, phrase: str) -> Window:
    """N units back, give or take half a unit (a day for days)."""
    span = UNITS[unit]
    centre = today - timedelta(days=round(n * span))
    slack = timedelta(days=1 if unit == "day" else round(span / 2))
    return _days(centre - slack, min(centre + slack, today), tz, phrase)


def _phrase_language(kind: str, m: re.Match) -> str | None:
    """The language of "next week" or "this week" said in another language ("nächste Woche": German), or None."""
    if kind in ("foreign_ahead", "foreign_this_last", "foreign_tomorrow"):
        return PHRASE_LANGUAGE.get(" ".join(m.group(1).lower().split()))
    if kind == "foreign_next_n":
        return NEXT_WORD_LANGUAGE.get((m.group(2) or m.group(5)).lower())
    if kind == "foreign_in_n" and m.group(1):
        return IN_WORD_LANGUAGE.get(" ".join(m.group(1).lower().split()))
    return None


def _resolve_ahead(kind: str, m: re.Match, text: str, today: date, tz, phrase: str) -> Window | None:
    """A window still to come (`_AHEAD_KINDS`, "next Tuesday"; its days: `ahead`), or None: "the Next Week
    Records showcase" (a name), "the next week off" (no number, no "in": the next one of them)."""
    if kind == "ahead":
        unit = m.group(1) or m.group(3)
        if unit[:1].isupper() and not text.isupper():
            return None
        which = "after next" if m.group(1) else m.group(2).lower().split()[-1]
        first, last = _coming.span("coming" if which == "upcoming" else which, unit.lower(), today)
    elif kind == "next_n":
        lead, number, unit, plural = m.groups()
        if not (number or plural or lead):
            return None
        first, last = _coming.next_units(_number(number) if number else 3 if plural else 1, unit.lower(), today)
    elif kind == "foreign_ahead":
        first, last = _coming.span(*FOREIGN_NEXT[" ".join(m.group(1).lower().split())], today)
    elif kind == "foreign_next_n":
        number = m.group(1) or m.group(3) or m.group(6)
        n = (int(number) if number.isdigit() else FOREIGN_NUMBERS[number.lower()]) if number else 3  # none: a few
        first, last = _coming.next_units(n, FOREIGN_UNIT_OF[(m.group(4) or m.group(7)).lower()], today)
    elif kind in ("tomorrow", "foreign_tomorrow"):
        said = " ".join(m.group(1).lower().split())
        # the word before it, read within a reach (not the whole text before: a query of many is read in linear time)
        before = text[max(0, m.start() - _SINCE_REACH):m.start()].split()
        if said in ("morgen", "mañana") and (before or [""])[-1].lower() in MORNING_BEFORE:
            return None  # "heute Morgen", "esta mañana": a morning
        if said == "明日" and text[m.end():m.end() + 1] in NAME_AFTER_ASU:
            return None  # Asuka, Asuna, Asumi (names), ashitaba (a plant)
        if said in ("后天", "後天") and ("先天" in text[max(0, m.start() - 4):m.start()]
                                        or text.startswith(ACQUIRED_AFTER, m.end())):
            return None  # "先天和后天", "后天性": acquired (as against innate), no day
        first = last = today + timedelta(days=FOREIGN_TOMORROW.get(said) or (2 if "after" in said else 1))
    elif kind in ("in_n", "foreign_in_n"):
        if kind == "in_n" and (_IN_N_AFTER.search(text[max(0, m.start() - _SINCE_REACH):m.start()])
                               or m.group(2).lower() in ("a", "an", "one") and _duration(text)[0]
                               or _duration(text)[1]):
            return None
        lead, number, unit = m.group(1, 2, 3) if kind == "in_n" else (
            m.group(1), m.group(2) or m.group(4) or m.group(6) or "1", m.group(3) or m.group(5) or m.group(7))  # "za tydzień"
        n = _number(number) if kind == "in_n" else int(number) if number.isdigit() else FOREIGN_NUMBERS.get(number.lower(), 1)
        unit = unit.lower() if kind == "in_n" else FOREIGN_UNIT_OF[unit.lower()]
        first, last = (_coming.next_units if lead and lead.lower() == "within" else _coming.in_units)(n, unit, today)
    elif kind == "from_now":
        number, unit, start = m.groups()
        first = today + timedelta(days=round(_number(number) * _coming.UNIT_DAYS[unit.lower()])
                                  + (start.lower() == "tomorrow"))
        last = first
    else:  # "next Tuesday"
        first, last = _coming.weekday(WEEKDAYS[m.group(2).lower()], today, True)
    return replace(_days(first, last, tz, phrase), ahead=True)

