"""Two times said as one span ("between March 1 and March 10", "from October to December", "between next Monday
and next Friday"): `timeq` reads each time, and `spans` makes each such pair one window, from the first's first
day to the second's last."""

from __future__ import annotations

import calendar
import re
from dataclasses import replace
from datetime import date, datetime, timedelta

from .ahead import nth_day
from .foreign_time import alternatives
from .periods import MOVED_TO, NTH_DAY
from .time_words import QUESTION_WEEKDAYS, SEASON_HINTS, WEEKDAY_LEADS
from .timewindow import Window
from .timewindow import days as _days
from .timewindow import month_end

#: "between <a time> and <a time>", "from <a time> to <a time>": one window, the first's start to the second's end.
_RANGE_OPEN = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$", re.I)
_RANGE_OPEN_WORD = re.compile(r"^(?:between|from)\s", re.I)  # a month's own lead ("from October")
_RANGE_JOIN = re.compile(r"^\s*(?:and|to|until|till|through|-|–|—)\s*(?:the\s+)?$", re.I)  # "and the 5th of December"
_RANGE_JOIN_WORD = re.compile(r"^(?:and|to|until|till|through)\s", re.I)  # a month's own lead ("to December")


_YEAR = re.compile(r"\d{4}")
#: A day of the week said plainly ("Saturday", "on Friday", "the Monday"): next to another time, a day of that one
#: ("Saturday in three weeks", "Friday next week", "next week on Friday", "the Monday before July 24").
#: In the other languages too: "letzte Woche am Mittwoch", "am Samstag in zwei Wochen", "2週間後の土曜日".
_DAY_OF = {name.lower(): n for n, name in enumerate(calendar.day_name)} | {
    name: n for name, (n, _) in QUESTION_WEEKDAYS.items()}
_WEEKDAY_SAID = re.compile(r"^(?:(?:on|the|" + alternatives(w for w, said in WEEKDAY_LEADS.items() if said == "on")
                           + r")\s+)?(" + alternatives(_DAY_OF) + r")$", re.I)
_WEEKDAY_GAP = re.compile(r"^\s*(?:,\s*)?(?:of\s+|on\s+|the\s+|(?:de\s+la|de|da|do|del|della|van|la)\s+|の|的)?$", re.I)
#: How many days a time must span for a day of the week inside it to be one day of it (a shorter one of more
#: than a day, "this weekend", keeps both as said).
_WEEKDAY_WITHIN = 5


def _weekday_of(query: str, first: tuple[int, int, Window], second: tuple[int, int, Window], tz,
                today: date | None = None) -> Window | None:
    """One day when two times side by side are a day of the week and a time it is a day of: the one inside the
    other time nearest its middle ("Saturday in three weeks", "Friday next week", "next week on Friday"), the last
    one before it ("the Monday before July 24"), the first after it ("the Saturday after October 28"), the day
    named ("Saturday, 12 December"), or that day of the week `today` is in when the time is this week so far or
    the rest of it ("Tuesday this week", "diese Woche am Freitag": still to come when after `today`). None
    otherwise."""
    (a_start, a_end, a), (b_start, b_end, b) = first, second
    if not _WEEKDAY_GAP.match(query[a_end:b_start]):
        return None
    for day_side, other in ((a, b), (b, a)):
        said = _WEEKDAY_SAID.match(day_side.phrase)
        if said is None or _WEEKDAY_SAID.match(other.phrase):  # two days of the week side by side are two days
            continue
        target = _DAY_OF[said.group(1).lower()]
        lead = other.phrase.lower().split()[0]
        first_day = datetime.fromtimestamp(other.start, tz).date() if other.start > 0 else None
        last_day = datetime.fromtimestamp(other.end - 1, tz).date()
        monday = today - timedelta(days=today.weekday()) if today is not None else None
        phrase = " ".join(query[a_start:b_end].split())
        if monday is not None and lead not in ("before", "after", "since") \
                and (first_day, last_day) in ((monday, today), (today, monday + timedelta(days=6))):
            day = monday + timedelta(days=target)  # this week, whether read as so far or as the rest of it
            return replace(_days(day, day, tz, phrase), relative=True,
                           ahead=day > today or (day == today and (a.ahead or b.ahead)))
        if day_side is a and lead == "before":  # up to the day before the time named
            day = last_day - timedelta(days=(last_day.weekday() - target) % 7)
        elif day_side is a and lead == "after" and first_day is not None:
            day = first_day + timedelta(days=(target - first_day.weekday()) % 7)
        elif lead not in ("before", "after", "since") and first_day == last_day:
            day = first_day  # "Saturday, 12 December": the date says which Saturday
        elif lead not in ("before", "after", "since") and first_day is not None \
                and (last_day - first_day).days + 1 >= _WEEKDAY_WITHIN:
            middle = first_day + timedelta(days=(last_day - first_day).days // 2)
            day = middle + timedelta(days=(target - middle.weekday() + 3) % 7 - 3)  # the nearest such day
            day = day + timedelta(days=7) if day < first_day else day - timedelta(days=7) if day > last_day else day
        else:
            return None
        return replace(_days(day, day, tz, phrase), relative=a.relative or b.relative, ahead=a.ahead or b.ahead)
    return None


#: A day still to come said as a deadline ("by 15 December", "until", "bis zum 15. Dezember", "hasta el 15 de
#: diciembre", "jusqu'au 15 décembre"): from today up to it, not that day alone ("what's due by 15 December?"
#: asks about the 10th too).
_UP_TO = re.compile(r"\b(?:by|until|till|up\s+to|through|bis|hasta|jusqu['\u2019]|fino|até|tot)\s*"
                    r"(?:the\s+|zum\s+|el\s+|au\s+|al\s+|ao\s+|o\s+)?$", re.I)
_LEAD = re.compile(r"\D*")  # the words of a day's phrase before its number ("bis zum ", "Dec ")


def _up_to(query: str, start: int, end: int, window: Window, tz, reach: int, today: date) -> Window:
    """`window` (a day named without its year, still to come) from `today` on, when said as a deadline (`_UP_TO`), not
    as the day a thing was moved to ("postponed until the 29th", `periods.MOVED_TO`)."""
    before, said = query[max(0, start - reach):start], query[start:end]
    up = _UP_TO.search(before) or _UP_TO.search(before + _LEAD.match(said).group(0))
    if up is None or MOVED_TO.search(before + _LEAD.match(said).group(0)):
        return window
    last = datetime.fromtimestamp(window.end - 1, tz).date()
    return replace(_days(min(today, last), last, tz, " ".join((before[up.start():] + said).split())), ahead=True)


def _years_before(window: Window, before: Window, tz) -> Window:
    """`window` (a month or days named without a year) moved back whole years, to the latest such time
    that starts before `before`; `window` itself when none does."""
    first = datetime.fromtimestamp(window.start, tz).date()
    last = datetime.fromtimestamp(window.end - 1, tz).date()
    for back in range(1, first.year - datetime.fromtimestamp(before.start, tz).year + 2):
        try:
            moved = _days(_year_earlier(first, back), _year_earlier(last, back), tz, window.phrase)
        except ValueError:
            return window
        if moved.start < before.start:
            return replace(moved, relative=window.relative)
    return window


_NTH_DAY = re.compile(f"^{NTH_DAY}$", re.I)  # the whole phrase of `timeq`'s "nth_day"


def _earlier(window: Window, before: Window, tz) -> Window:
    """`window` moved back to the latest such time that starts before `before`: whole years (`_years_before`), or for
    a day of the month without its month, to that day of an earlier month ("between the 3rd and the 10th" asked on
    4 December: 3 to 10 November, not 3 December of last year to 10 November)."""
    nth = _NTH_DAY.match(window.phrase)
    if nth is None:
        return _years_before(window, before, tz)
    day = nth_day(int(nth.group(1)), datetime.fromtimestamp(before.start, tz).date() - timedelta(days=1), False)
    return window if day is None else replace(_days(day, day, tz, window.phrase), relative=window.relative)


def _in_month_of(first: Window, second: Window, tz) -> Window:
    """`first`, a day of the month said without its month before `second`, a day said with its month ("between the
    1st and the 5th of December", "from the 28th to 3 January"): the latest such day up to `second`, not the one
    `first` alone reads (the latest or next from today, whatever `second`'s month); `first` as read otherwise."""
    nth, day = _NTH_DAY.match(first.phrase), datetime.fromtimestamp(second.start, tz).date()
    if nth is None or _NTH_DAY.match(second.phrase) or day != datetime.fromtimestamp(second.end - 1, tz).date():
        return first
    moved = nth_day(int(nth.group(1)), day, False)
    return first if moved is None else replace(_days(moved, moved, tz, first.phrase), relative=first.relative,
                                               ahead=first.ahead)


def _after_first(first: Window, second: Window, tz, today: date | None) -> Window:
    """`second`, a day of the month said without its month after `first`, one day ("between the 1st of November and
    the 5th", "from November 28 to the 5th"): the first such day from `first` on, when that comes before the one
    `second` alone reads (the latest or next from today, whatever `first`'s month: 1 November to 5 December);
    `second` as read otherwise."""
    nth, day = _NTH_DAY.match(second.phrase), datetime.fromtimestamp(first.start, tz).date()
    if nth is None or _NTH_DAY.match(first.phrase) or day != datetime.fromtimestamp(first.end - 1, tz).date():
        return second
    moved = nth_day(int(nth.group(1)), day, True)
    if moved is None or moved >= datetime.fromtimestamp(second.start, tz).date():
        return second
    return replace(_days(moved, moved, tz, second.phrase), relative=second.relative,
                   ahead=second.ahead and (today is None or moved > today))


#: Between a day of the month said without its month and a month: nothing, a comma, "in" before a month said with its
#: year ("on the 21st in March 2024": "in March" is the month's own phrase).
_DAY_OF_MONTH_GAP = re.compile(r"^\s*,?\s*(?:in\s+)?$", re.I)


def _day_of_month(query: str, first: tuple[int, int, Window], second: tuple[int, int, Window], tz) -> Window | None:
    """One day when a day of the month said without its month and a month stand side by side ("on the 21st in July",
    "in July on the 21st": the day `periods.nth_day_window` read as that month's): that day, said as both; with the
    month's year said ("on the 21st in March 2024", "in March 2024 on the 21st"), that year's; when the day is that
    month's of another year ("on the 29th in February": the latest 29 February, 2024, beside this year's February),
    the day. None otherwise."""
    (a_start, a_end, a), (b_start, b_end, b) = first, second
    if not _DAY_OF_MONTH_GAP.match(query[a_end:b_start]):
        return None
    for day_side, other in ((a, b), (b, a)):
        nth = _NTH_DAY.match(day_side.phrase)
        if nth is None or _NTH_DAY.match(other.phrase) or other.start <= 0 \
                or datetime.fromtimestamp(other.start, tz).day != 1 \
                or other.phrase.lower().startswith(("since", "before", "after")):
            continue
        phrase = " ".join(query[a_start:b_end].split())
        if other.start <= day_side.start and day_side.end <= other.end:
            return replace(day_side, phrase=phrase)
        month_first = datetime.fromtimestamp(other.start, tz).date()
        if datetime.fromtimestamp(other.end - 1, tz).date() != month_end(month_first):
            continue  # no one whole month
        if _YEAR.search(other.phrase):
            try:
                day = month_first.replace(day=int(nth.group(1)))
            except ValueError:
                return None  # "the 31st in June 2024": no such day, the month as read
            return replace(_days(day, day, tz, phrase), relative=False, ahead=other.ahead)
        if datetime.fromtimestamp(day_side.start, tz).month == month_first.month:
            return replace(day_side, phrase=phrase)
    return None


def with_its_month(query: str, found: list[tuple[int, int, Window]], start: int, end: int, month: int,
                   tz) -> list[tuple[int, int, Window]]:
    """`found` with the day of the month said without its month beside the month at `start`..`end` ("on the 21st in
    July", "In July, on the 21st"), read as that month's and still to come (`periods.nth_day_window`; the month alone is
    its next one, no window), said as both: one phrase, one stretch of the question, as `_day_of_month` makes it of a
    day and month gone."""
    for i, (a, b, window) in enumerate(found):
        if window.ahead and _NTH_DAY.match(window.phrase) and datetime.fromtimestamp(window.start, tz).month == month \
                and _DAY_OF_MONTH_GAP.match(query[b:start] if b <= start else query[end:a]):
            first, last = min(a, start), max(b, end)
            found[i] = (first, last, replace(window, phrase=" ".join(query[first:last].split())))
    return found


_SEASON_MONTH_GAP = re.compile(r"^\s*,?\s*$")


def _month_of_season(query: str, first: tuple[int, int, Window], second: tuple[int, int, Window], tz) -> Window | None:
    """One month when a season and a month said without its year stand side by side ("last summer in July", "in July
    last summer", "letzten Sommer im Juli"): that month of that season, not the latest July beside last summer. None
    when the month is none of the season's ("last summer in October") or either is said with "since", "before",
    "after"."""
    (a_start, a_end, a), (b_start, b_end, b) = first, second
    if not _SEASON_MONTH_GAP.match(query[a_end:b_start]):
        return None
    for season, other in ((a, b), (b, a)):
        said = season.phrase.lower()
        if not any(word in said for word in SEASON_HINTS) or _YEAR.search(other.phrase) or other.start <= 0 \
                or any(w.phrase.lower().startswith(("since", "before", "after")) for w in (a, b)):
            continue
        month_first = datetime.fromtimestamp(other.start, tz).date()
        if month_first.day != 1 or datetime.fromtimestamp(other.end - 1, tz).date() != month_end(month_first):
            continue  # no one whole month
        begins = datetime.fromtimestamp(season.start, tz).date()
        for year in (begins.year, begins.year + 1):
            day = date(year, month_first.month, 1)
            if season.start <= datetime(year, day.month, 1, tzinfo=tz).timestamp() < season.end:
                return replace(_days(day, month_end(day), tz, " ".join(query[a_start:b_end].split())),
                               relative=other.relative, ahead=season.ahead)  # "July" stays a keyword
    return None


def _year_earlier(day: date, years: int) -> date:
    """`day` `years` years earlier; 29 February becomes the 28th in a year without one."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def spans(query: str, found: list[tuple[int, int, Window]], tz, reach: int,
          today: date | None = None) -> list[tuple[int, int, Window]]:
    """`found` with each two windows said as one span ("between March 1 and March 10", "from October to
    December") made one, from the first's first day to the second's last (from the second's to the first's
    when both name their year and the second comes first: "between 20 Nov 2026 and 2 Nov 2026"; a first
    without its year is its latest occurrence before the second); not when the second, named without its
    year, comes before the first, or either counts from or up to another time. `reach`: how far before the
    first time its "between" or "from" is looked for (a window of the text: linear time). `today`: a day still
    to come said alone as a deadline ("by 15 December") is from it on (`_up_to`)."""
    out: list[tuple[int, int, Window]] = []
    day_made = -1  # the last of `out` made one day of a weekday and a time: not made one again ("on Monday on Monday …")
    for start, end, window in found:
        if out and day_made != len(out) - 1 and (day := _weekday_of(query, out[-1], (start, end, window), tz, today)) is not None:
            out[-1], day_made = (out[-1][0], end, day), len(out) - 1
            continue
        if out and day_made != len(out) - 1 and (day := _day_of_month(query, out[-1], (start, end, window), tz)):
            out[-1], day_made = (out[-1][0], end, day), len(out) - 1
            continue
        if out and (month := _month_of_season(query, out[-1], (start, end, window), tz)):
            out[-1] = (out[-1][0], end, month)
            continue
        if out:
            first_start, first_end, first = out[-1]
            gap, said = query[first_end:start], query[start:end]
            joined = _RANGE_JOIN.match(gap) or (not gap.strip() and _RANGE_JOIN_WORD.match(said))
            opened = _RANGE_OPEN.search(query[max(0, first_start - reach):first_start])
            leads = any(w.phrase.lower().startswith(("since", "before", "after")) for w in (first, window))
            span = joined and (opened or _RANGE_OPEN_WORD.match(query[first_start:first_end])) and not leads
            first = _in_month_of(first, window, tz) if span else first
            window = _after_first(first, window, tz, today) if span else window
            both_ahead = first.ahead and window.ahead  # both still to come: from the first day to the last
            if span and both_ahead:
                if first.start > window.start and not (first.relative or _YEAR.search(first.phrase)):
                    # begun already: "from 1 December to 20 December" asked on the 6th is this December's 1st,
                    # not next year's (each day said without its year is its next one, `timeq._coming_day`)
                    first = _earlier(first, window, tz)
                first, window = replace(first, start=min(first.start, window.start)), replace(
                    window, end=max(first.end, window.end))
            elif span and first.start >= window.start and not _YEAR.search(first.phrase):
                first = _earlier(first, window, tz)  # "between August and November 2023": August 2023
            elif span and window.start < first.start and window.end <= first.end and _YEAR.search(window.phrase):
                first, window = window, first  # both years said, the later first: "from 20 Nov 2026 to 2 Nov 2026"
            if span and (both_ahead or first.start < window.start and first.end <= window.end):
                begin = first_start - len(opened.group(0)) if opened else first_start
                days = (datetime.fromtimestamp(first.start, tz).date(), datetime.fromtimestamp(window.end - 1, tz).date())
                merged = replace(_days(*days, tz, " ".join(query[begin:end].split())),
                                 relative=first.relative or window.relative, ahead=both_ahead)
                out[-1], day_made = (begin, end, merged), -1  # a span now, no day made of a weekday
                continue
        if today is not None and window.ahead and not window.relative:  # a day named without its year
            window = _up_to(query, start, end, window, tz, reach, today)
        out.append((start, end, window))
    return out
