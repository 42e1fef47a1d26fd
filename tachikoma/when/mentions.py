"""The days a passage names, and what that says to a question about what is coming.

A memory's own date says when it was written; the days it names say what it is about. A question about what
is coming ("When's my next on-call week?", "What flights do we have coming up?", "Wann kommt der
Schornsteinfeger?"; `tense.ahead`) is answered by a passage that names a day still to come: a list of
appointments, a letter announcing works, a plan. Nothing in memory is dated in the future, so the time
factor (`timeq.factor`) cannot tell those passages from the rest; their text can.

`days` reads the days a text names: ISO dates (2026-12-18), day and month in English and the other languages
`time_words` knows ("18 Dec", "December 18th", "20. Februar", "11 de fevereiro de 2027", "le 3 mars"),
day.month.year (14.03.2027), Chinese, Japanese and Korean dates (12月5日, 十二月五日, 12월 5일), and a month of a year
("January 2027", "novembro de 2027": its last day). A day named without a year is the first one from three
months before the passage's own date on (a note of 20 November naming "18 Dec" means this December, "8 Nov"
the 8th just gone; one of 15 September naming "since 3 August" this August, "14 February" the coming one).
`mark` gives a question about what is coming its time factor from them: 1.0 for a passage naming a day from
today on (within `HORIZON` days) and after its own date (a transcript's date line is no plan), `timeq.OUTSIDE`
for one that names none: the factor a memory outside the time a question names gets. When the question names a
window still to come ("next week", "in the next six months", "来週": `timeq.Window.ahead`), a passage naming a
day inside it gets 1.0, one naming only days outside it what a memory dated that far outside a named time gets
(`timeq.factor`, by its day nearest the window), and one naming none `timeq.OUTSIDE`, as before; for a question
about that window and nothing else ("what's on next week?"), `timeq.OUTSIDE_TIME_ONLY` outside it however near,
as a question about a time gone alone weighs a memory outside it. A month named alone ("due
January") is not read: measured, it lifted as many passages that name a month in passing as it found answers.
Pure: it reads only the results."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone

import numpy as np

from .time_words import (DAYS_ALSO_NAMES, EVERY_BEFORE, FOREIGN_MONTHS, LAST_BEFORE, NAME_AFTER_DAY, NAME_BEFORE_DAY,
                         WEEKDAY_ADVERBS, WEEKDAY_NAMES)
from .foreign_time import CHINESE_MONTH, CJK_DAY_NUMBER, alternatives, cjk_number
from ..reorder import reorder
from .periods import ORDINAL_OF
from .timeq import AMBIGUOUS_MONTHS, MONTHS, OUTSIDE, OUTSIDE_TIME_ONLY, Window, factor, month_end

#: How many results a question about what is coming ranks before its passages' days reorder them.
CANDIDATES = 30
#: As many, when it names a window still to come ("next week", "on 15 December"): a passage naming a day inside
#: it may rank far down by its words alone (an appointments table asked "what's planned for the week after
#: next?" ranked below the 30th: docs/evaluation.md, session 39).
WINDOW_CANDIDATES = 100
#: A named day further ahead than this is no plan of this year's (a 10-year guarantee, a passport's expiry).
HORIZON = 400
#: A day named without a year is the first one from this many days before the passage's own date on: a past
#: day a note names in passing is recent ("on leave since 3 August" in September), a plan may be far ahead
#: ("our wedding is on 14 February", written in July). No set here decides it (docs/evaluation.md).
BEFORE_WRITTEN = 91

_MONTH_OF = {**{word.lower(): n for word, n in FOREIGN_MONTHS.items()}, **MONTHS}
_MONTH = "|".join(re.escape(word) for word in sorted(_MONTH_OF, key=len, reverse=True))
_YEAR = r"(?:,?\s+(?:de\s+)?(\d{4})\b)?"
_PATTERNS = (
    ("ymd", re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")),
    ("dmy", re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})?(?![\d.])")),
    ("dm", re.compile(r"(?<![\d.])(\d{1,2})(?:st|nd|rd|th|er)?\.?\s+(?:of\s+|de\s+|di\s+)?(" + _MONTH + r")\b\.?"
                      + _YEAR, re.I)),
    # A month word first: any word, looked up after (`_MONTH_OF`), since an alternation of every month's name
    # tried at each word of a long passage made reading its days 1.6 ms a passage.
    ("md", re.compile(r"\b([^\W\d_]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?![:.,]?\d)" + _YEAR)),
    # in digits or in Chinese numerals ("十二月三日", "2025年十二月二十九号"; groups 4 and 5)
    ("cjk", re.compile(r"(?:(\d{4})\s*[年년]\s*)?(?:(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日号號일]|(" + CHINESE_MONTH
                       + r")\s*月\s*(" + CJK_DAY_NUMBER + r")\s*[日号號])")),
    ("my", re.compile(r"\b([^\W\d_]+)\.?,?\s+(?:de\s+)?(\d{4})\b")),
)


def _count_not_year(match: re.Match, year: str | None) -> bool:
    """Whether the number after a day and month is a count, not its year: after a comma and no year a plan
    names ("5 Dec, 1500 people"). "3 March 1890" and "December 5, 1850" are years, long past."""
    return bool(year) and not 1900 < int(year) < 2200 and "," in match[0]


def days(text: str, written: date | None, today: date) -> list[date]:
    """The days `text` names, in the order of the patterns (a month of a year as its last day). `written`:
    the passage's own date, from which a day without a year is read (`today` when it has none)."""
    out: list[date] = []
    base = written or today
    start = max(base, date.min + timedelta(days=BEFORE_WRITTEN)) - timedelta(days=BEFORE_WRITTEN)

    def add(year: str | None, month: int | str, day: int | str) -> None:
        for each in [int(year)] if year else range(start.year, start.year + 9):  # 29 February: a leap year's
            try:
                named = date(each, int(month), int(day))
            except (ValueError, OverflowError):  # 31 February, a year 0: no day
                continue
            if year or named >= start:
                out.append(named)
                return

    # A day read once: "11 de fevereiro de 2027" is no month of a year too. The characters read, not a list of
    # spans each match is checked against: a data dump of 40,000 days on one line took 24 s that way.
    if not _DIGIT.search(text) and "月" not in text:  # every day named has a digit, but in Chinese numerals
        return out
    # The patterns a text can match at all, by what each needs (a month's name, 月, "-", "."): a passage of
    # a thousand characters took a millisecond to read with every pattern.
    named_month = not _MONTH_OF.keys().isdisjoint(_LETTERS.findall(text.lower()))
    needs = {"ymd": "-" in text, "dmy": "." in text, "dm": named_month, "md": named_month, "my": named_month,
             "cjk": "月" in text or "월" in text}
    taken = bytearray(len(text))
    for kind, pattern in _PATTERNS:
        if not needs[kind]:
            continue
        for m in pattern.finditer(text):
            word = m[2] if kind == "dm" else m[1]
            # a month's name, looked up: "dm" too, whose ignored case takes "APRİL" and "ſept", lower-cased no month
            if kind in ("dm", "md", "my") and word.lower() not in _MONTH_OF or any(taken[m.start():m.end()]):
                continue
            taken[m.start():m.end()] = b"\x01" * (m.end() - m.start())
            if kind in ("dm", "md", "my") and word.lower() in AMBIGUOUS_MONTHS and not word[:1].isupper() \
                    and not (kind == "dm" and ORDINAL_OF.match(m[0])):
                continue  # "we 2 may go", "march 3 miles": no month ("the 21st of may" is one)
            if kind == "ymd":
                add(m[1], m[2], m[3])
            elif kind == "dmy":
                if m[3] or not _AT_BEFORE.search(text, max(0, m.start() - 4), m.start()):  # "at 10.10.": a time
                    add(m[3], m[2], m[1])
            elif kind == "dm":
                add(None if _count_not_year(m, m[3]) else m[3], _MONTH_OF[m[2].lower()], m[1])
            elif kind == "md":
                add(m[3], _MONTH_OF[m[1].lower()], m[2])
            elif kind == "cjk":
                add(m[1], cjk_number(m[2] or m[4]), cjk_number(m[3] or m[5]))
            elif 1900 < int(m[2]) < 2200:  # "my": the month's last day
                out.append(month_end(date(int(m[2]), _MONTH_OF[m[1].lower()], 1)))
    return out


_DIGIT = re.compile(r"\d")
_AT_BEFORE = re.compile(r"\bat\s+$", re.I)  # "We meet at 10.10.": a time of day (English), not 10 October
_LETTERS = re.compile(r"[^\W\d_]+")
_DAY_OF = {w.lower(): n for w, n in WEEKDAY_NAMES.items()}
#: What a text naming a day of the week holds (`weekdays` reads no other): each day's name, each adverb.
_DAY_WORDS = tuple(dict.fromkeys([*_DAY_OF, *(w.lower() for w in WEEKDAY_ADVERBS)]))
_LATIN = lambda words: [w for w in words if ord(w[0]) < 0x3000]  # noqa: E731
_CJK = lambda words: [w for w in words if ord(w[0]) >= 0x3000]  # noqa: E731
#: Groups: a lead in Latin script or in CJK ("every", "毎週"), a day in Latin script and its plural "s", a CJK day.
_WEEKDAY = re.compile(r"(?:(?<!\w)(" + alternatives(_LATIN([*EVERY_BEFORE, *LAST_BEFORE])) + r")\s+|("
                      + alternatives(_CJK([*EVERY_BEFORE, *LAST_BEFORE])) + r")\s*)?(?:(?<!\w)("
                      + alternatives(_LATIN(_DAY_OF)) + r")(s)?(?!\w)|(" + alternatives(_CJK(_DAY_OF))
                      + r")(?![次个個天遍]))", re.I)  # "每周一次": once a week
_ADVERB = re.compile(r"(?<!\w)(" + alternatives(WEEKDAY_ADVERBS) + r")(?!\w)", re.I)
#: A Chinese number before 周 counts weeks: "四周一起" (four weeks, together) names no Monday; not the end of
#: another day ("周一周二": Monday, Tuesday).
_COUNT_BEFORE = frozenset("一二两兩三四五六七八九十几幾0123456789")
_WORD_AFTER = re.compile(r"[\s\-]+(\w+)")


def _in_name(text: str, start: int, end: int, name: str) -> bool:
    """Whether the day of the week `name`, at `start`..`end` in `text`, is part of a name, no day to come: "Black
    Friday", "Mardi gras", "Herr Freitag", "the Sunday Times", "Plácido Domingo" (`time_words.NAME_BEFORE_DAY`,
    `NAME_AFTER_DAY`, `DAYS_ALSO_NAMES`), "四周一起" (four weeks)."""
    if name[:1] == "周":
        return start > 0 and text[start - 1] in _COUNT_BEFORE and text[max(0, start - 2):start - 1] not in ("周", "期")
    before = text[max(0, start - 24):start].split()
    word = before[-1].rstrip(".").lower() if before else ""
    after = _WORD_AFTER.match(text, end, min(len(text), end + 24))
    if word in NAME_BEFORE_DAY or after is not None and after[1].lower() in NAME_AFTER_DAY:
        return True
    return name[:1].isupper() and name.lower() in DAYS_ALSO_NAMES and bool(before) and before[-1][-1:].isalnum()


#: How many weeks of a habit ("every Sunday") are read ahead: enough for "in three weeks" and a month's window.
HABIT_WEEKS = 8


def weekdays(text: str, written: date | None, today: date) -> list[date]:
    """The days of the week `text` names (`time_words.WEEKDAY_NAMES`, in nine languages): one said as a habit
    ("every Sunday", "Sundays", "sonntags", "los domingos", "毎週日曜", "매주 일요일") is each such day for
    `HABIT_WEEKS` weeks from `today`; one said alone ("Saturday", "am Samstag", "土曜日") is the first such day
    after the passage's own date (`written`; none without one), and one gone ("last Saturday") none."""
    out: list[date] = []

    def habit(n: int) -> None:
        first = today + timedelta(days=(n - today.weekday()) % 7)
        out.extend(first + timedelta(days=7 * k) for k in range(HABIT_WEEKS))

    lowered = text.lower()
    if not any(word in lowered for word in _DAY_WORDS):  # a substring test: far cheaper than the patterns
        return out
    for m in _WEEKDAY.finditer(text):
        lead = " ".join((m[1] or m[2] or "").lower().split())
        day = 3 if m[3] else 5
        if lead in LAST_BEFORE or _in_name(text, m.start(day), m.end(day), m[day]):
            continue
        n = _DAY_OF.get(m[day].lower())
        if n is None:  # "FRİDAY", "ſunday": the ignored case takes them, lower-cased they are no day's name
            continue
        if lead or m[4]:  # "every Sunday", "Sundays"
            habit(n)
        elif written is not None and written < date.max - timedelta(days=7):
            out.append(written + timedelta(days=(n - written.weekday()) % 7 or 7))
    for m in _ADVERB.finditer(text):
        if m[1].lower() in WEEKDAY_ADVERBS:  # not "ſonntags", as above
            habit(WEEKDAY_ADVERBS[m[1].lower()])
    return list(dict.fromkeys(out))


def days_ahead(text: str, written: date | None, today: date, until: date | None = None,
               week: bool = False) -> list[date]:
    """The days from `today` on (within `HORIZON` days, or up to `until` when that is later) and after the
    passage's own date (`written`) that `text` names, earliest first: a passage naming its own day (a
    transcript's date line) names no plan. `week`: the days of the week it names too (`weekdays`)."""
    if written == date.max:  # nothing is after it
        return []
    after = max(today, written + timedelta(days=1)) if written else today
    # at most the last day a date holds: 400 days after a search as of 9998 (the last year `as_of` takes) is not
    last = today + timedelta(days=HORIZON) if today < date.max - timedelta(days=HORIZON) else date.max
    last = max(last, until) if until else last
    named = days(text, written, today) + (weekdays(text, written, today) if week and last < date.max else [])
    return sorted({d for d in named if after <= d <= last})


def _within(named: list[list[date]], windows: list[Window], tz, alone: bool) -> tuple[np.ndarray, list[date | None]]:
    """Per passage, from the days it names (`named`): the time factor of the one nearest the windows still to
    come (`timeq.factor` of its noon; `alone`: sharp, `OUTSIDE_TIME_ONLY` outside) and that day; a passage naming
    none gets `OUTSIDE` (`alone`: `OUTSIDE_TIME_ONLY`)."""
    flat = [(i, day) for i, each in enumerate(named) for day in each]
    weight, best = np.full(len(named), OUTSIDE_TIME_ONLY if alone else OUTSIDE), [None] * len(named)
    if not flat:
        return weight, best
    noon = np.array([datetime.combine(day, time(12), tzinfo=tz).timestamp() for _, day in flat])
    of = np.array([i for i, _ in flat])
    each, _ = factor(noon, windows, OUTSIDE_TIME_ONLY if alone else None, sharp=alone)
    order = np.lexsort((-each, of))  # per passage, its best day first (the earliest among equals: sorted days)
    first = order[np.r_[True, of[order][1:] != of[order][:-1]]]
    weight[of[first]] = each[first]
    for k in first:
        best[of[k]] = flat[k][1]
    return weight, best


def mark(results: list[dict], today: date, windows: list[Window] = (), tz=timezone.utc, alone: bool = False) -> list[dict]:
    """`results` (a search's, best first) for a question about what is coming: each one's time factor from
    the days its text names (1.0 for a day still to come, `timeq.OUTSIDE` for none; with `windows` still to
    come, in zone `tz`, 1.0 for a day inside one and less the farther outside, `_within`; `alone`: the question
    asks about them and nothing else; its ``time_reason`` says which), scores × it, ranked again; the
    duplicate penalty then falls on each file's later passages."""
    until = max((datetime.fromtimestamp(w.end - 1, tz).date() for w in windows), default=None)
    # The days of the week a passage names ("Saturday", "every Sunday") tell a window still to come shorter than
    # a week ("tomorrow", "in three days"): a week holds every one of them, and a day of the week said in a
    # note is as often the one gone as the one to come (measured: docs/evaluation.md).
    week = bool(windows) and max(w.end - w.start for w in windows) < 7 * 86400
    named = []
    for result in results:
        written = result.setdefault("factors", {}).get("date")
        named.append(days_ahead(result.get("text") or "", datetime.fromisoformat(written).date() if written else None,
                                today, until, week))
    if windows:
        weights, chosen = _within(named, list(windows), tz, alone)
    else:
        chosen = [each[0] if each else None for each in named]
        weights = np.where([day is not None for day in chosen], 1.0, OUTSIDE)
    for result, weight, day in zip(results, weights.tolist(), chosen):
        f = result["factors"]
        result["score"] *= weight
        f["time"] = f.get("time", 1.0) * weight
        f["time_reason"] = "; ".join(filter(None, [f.get("time_reason"),
                                                   f"asked what is coming: {_said(day, weight, windows, today)}"]))
    return reorder(results)


def _said(day: date | None, weight: float, windows: list[Window], today: date) -> str:
    """What a passage names, for its explanation: the day still to come, and where it falls against the
    windows the question names."""
    if day is None:
        return f"names no day still to come (from {today.isoformat()}, within {HORIZON} days)"
    if not windows:
        return f"names {day.isoformat()}, still to come"
    asked = ", ".join(f"'{w.phrase}' ({w.label})" for w in windows)
    return f"names {day.isoformat()}, {'inside' if weight >= 1.0 else 'still to come, outside'} {asked}"
