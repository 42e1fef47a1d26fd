"""A span of whole days a question asks about (`Window`), the calendar helpers that make one, the "now" of a
search (`parse_as_of`), and the time factor of a memory's date against the windows asked (`factor`): the ground
`timeq` (the times a question names) and `ahead` (the windows still to come) stand on. `timeq` gives each of
these names too."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import numpy as np

DAY = 86400.0
#: The years a date may name: a window of whole days must have a day before and after it that
#: Python's dates hold, in any time zone.
MIN_YEAR, MAX_YEAR = 2, 9998


@dataclass(frozen=True)
class Window:
    """A span of time a query asks about: [start, end) in unix seconds, the words that said it, and a
    short label of the span (a day, a month, or first..last day)."""

    start: float
    end: float
    phrase: str
    label: str
    #: Said relative to now ("last week", "two days ago", "recently"): words no memory holds for
    #: that time, so no keyword search looks for them (a month, a year or a date is kept: notes write them).
    relative: bool = False
    #: Still to come ("next week", "in the next six months", `ahead`): no memory is from it, so it is no time
    #: factor on the memories' own dates; the days a passage names are read against it (`mentions`).
    ahead: bool = False

    def as_dict(self) -> dict:
        said = {"phrase": self.phrase, "label": self.label, "start": self.start, "end": self.end}
        return {**said, "ahead": True} if self.ahead else said


def midnight(day: date, tz) -> float:
    """The unix time at which `day` starts in zone `tz`."""
    return datetime.combine(day, time(0), tzinfo=tz).timestamp()


def days(first: date, last: date, tz, phrase: str) -> Window:
    """The whole days first..last (inclusive) in zone `tz`; ValueError past MIN_YEAR..MAX_YEAR."""
    if first.year < MIN_YEAR or last.year > MAX_YEAR:
        raise ValueError(f"{first}..{last} is out of range")
    label = first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
    if first.day == 1 and last == month_end(first):
        label = f"{first.year}-{first.month:02d}"
    if first == date(first.year, 1, 1) and last == date(first.year, 12, 31):
        label = str(first.year)
    return Window(midnight(first, tz), midnight(last + timedelta(days=1), tz), phrase, label)


def end_of_day(when: datetime) -> float:
    """The unix time at which the day of `when` (aware; in its own zone) ends."""
    return midnight(when.date() + timedelta(days=1), when.tzinfo)


def month_end(day: date) -> date:
    """The last day of `day`'s month."""
    return date(day.year, day.month, calendar.monthrange(day.year, day.month)[1])


def month(year: int, month: int, tz, phrase: str) -> Window:
    """The whole month `month` of `year` in zone `tz`."""
    first = date(year, month, 1)
    return days(first, month_end(first), tz, phrase)


_AS_OF_DATE = re.compile(r"^\d{4}[-/]\d{1,2}[-/]\d{1,2}$")


def parse_as_of(text: str | None) -> datetime:
    """The "now" of a search from what a user typed: "now" or empty, a date (``2026-03-22``: the end of
    that day), or an ISO date-time (``2026-03-22T18:00``, ``…+09:00``). Without a zone, the machine's own.

    ValueError with a message that says what is accepted."""
    value = (text or "").strip()
    if not value or value.lower() == "now":
        return datetime.now().astimezone()
    try:
        if _AS_OF_DATE.match(value):
            year, month, day = (int(p) for p in re.split(r"[-/]", value))
            when = datetime.combine(date(year, month, day), time(23, 59, 59))
        else:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"as_of {value!r} is not a date: use now, YYYY-MM-DD or YYYY-MM-DDTHH:MM[+HH:MM]") from None
    if not MIN_YEAR <= when.year <= MAX_YEAR:
        raise ValueError(f"as_of {value!r} is out of range: years {MIN_YEAR} to {MAX_YEAR}")
    return when if when.tzinfo is not None else when.astimezone()


#: The factor of a memory far from every window asked about.
OUTSIDE = 0.6
#: ... when the question asks about that time and nothing else ("what happened last week"): its other
#: words say nothing of what is wanted, so the memories of that time come first.
OUTSIDE_TIME_ONLY = 0.2


def factor(dates: np.ndarray, windows: list[Window], outside: float | None = None,
           sharp: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk: the time factor for its date (unix seconds) and which window it is nearest to.

    1.0 inside any window; outside, outside + (1 − outside) / (1 + d / w), d the days to the nearest
    window and w that window's length in days (at least one): a memory a day off a one-day window
    is halfway down, one a week off a month is barely lowered. `sharp`: `outside` anywhere outside
    (a question about a time alone: the day after last week is not last week). With no window, all 1.0.
    """
    dates = np.asarray(dates, dtype=np.float64)
    outside = OUTSIDE if outside is None else outside
    if not windows:
        return np.ones(dates.shape[0]), np.full(dates.shape[0], -1, dtype=np.int64)
    best = np.zeros(dates.shape[0])
    nearest = np.zeros(dates.shape[0], dtype=np.int64)
    for i, window in enumerate(windows):  # one pass of a few array operations per window (usually one)
        width = max((window.end - window.start) / DAY, 1.0)
        # A window ends where the next day starts: a memory dated that midnight is the next day's.
        distance = np.where(dates >= window.end, dates - window.end + 1.0, np.maximum(window.start - dates, 0.0))
        weight = np.where(distance > 0, outside, 1.0) if sharp else outside + (1.0 - outside) / (1.0 + distance / (DAY * width))
        if i:
            better = weight > best
            nearest[better] = i
            np.maximum(best, weight, out=best)
        else:
            best = weight
    return best, nearest


def explain(value: float, when: float, window: Window | None, tz, weak: bool = False) -> str:
    """"time: 2026-03-22, asked 'on 2026-03-22'" (or "… outside it"; a `weak` date, an import's or a file time, is
    no time a memory is from: "… a weak date (an import or a file time), not when it is from")."""
    if window is None:
        return ""
    day = datetime.fromtimestamp(when, tz).date().isoformat()
    where = ("; a weak date (an import or a file time), not when it is from" if weak else
             "" if value >= 1.0 else f", outside {window.label}")
    return f"time: {day}, asked '{window.phrase}'{where}"
