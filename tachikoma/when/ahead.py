"""The days a window still to come spans: "next week", "this coming week", "in the next six months", "the week
after next", "next Tuesday", "tomorrow", "in two weeks", and "this week" in a question about what is coming (the
rest of it). `timeq` reads the words (in every language `time_words` knows: "nächste Woche", "la semaine
prochaine", "来週", "다음 주", "morgen") and makes each such span a window ahead (`timeq.Window.ahead`); this
module only counts the days, from the day the question is asked.

Weeks run Monday to Sunday, as "last week" does (`timeq`):

* **next week**: Monday to Sunday of the week after this one, whatever the day it is asked (on a Sunday, the
  week that starts tomorrow; on a Monday, the one that starts in seven days); **the week after next**: the one
  after that;
* **this week**, asked about what is coming: today to Sunday; on a Sunday, today and the whole week that follows
  (a week planned on a Sunday is the coming one, and its own Sunday is all that is left of this one);
* **the coming week**, "this coming week", "the upcoming week": today and the seven days after it, as "the
  past week" is the seven days before;
* **this weekend** (or the coming one): the next Saturday and Sunday (on a Saturday, today and tomorrow; on a
  Sunday, today); **next weekend**: the weekend of next week;
* **next month** / **next year**: the calendar month or year after this one (the one after that: "the month
  after next"); **this month** / **this year** asked ahead: today to its last day; **the coming month** / **year**:
  today and the 31 / 365 days after it;
* **tomorrow**, **the day after tomorrow** ("morgen", "après-demain", "明日", "모레"): that day;
* **in N days, weeks, months or years** ("in two weeks", "dans deux semaines", "2週間後"): that day give or take
  half a unit (a day for days), as "N weeks ago" is back; **within N weeks**: today up to then;
* **in the next N days, weeks, months or years** ("over the next few weeks", "in the coming months": a few, 3;
  "in the next week": one): today and N units after it;
* **next Tuesday**: the coming Tuesday and the Tuesday a week after it, when the coming one is in this week (people
  mean either); the coming one alone when it is in next week already (asked on a Friday); **on Tuesday** asked
  about what is coming: the coming one, today on a Tuesday.

Pure date arithmetic: no time zone, no words.
"""

from __future__ import annotations

from datetime import date, timedelta

from .timewindow import MAX_YEAR, month_end

#: Days in a unit said ahead ("the next six months": 6 × 30.4375 days), as `timeq.UNITS` counts them back.
UNIT_DAYS = {"day": 1, "week": 7, "month": 30.4375, "year": 365.25}
#: "the coming month", "the coming year": this many days after today, as "the past month" counts 31 back.
COMING_DAYS = {"week": 7, "month": 31, "year": 365}


def _month_after(day: date, months: int = 1) -> tuple[date, date]:
    """The first and last day of the month `months` after `day`'s."""
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(year, month + 1, 1), month_end(date(year, month + 1, 1))


def span(which: str, unit: str, today: date) -> tuple[date, date]:
    """The first and last day of `which` ("this", "coming", "next", "after next") `unit` ("week", "weekend",
    "month", "year"), asked on `today` about what is coming (the module's docstring says each)."""
    monday = today - timedelta(days=today.weekday())
    if unit == "weekend":
        saturday = monday + timedelta(days=5)
        if which in ("this", "coming"):
            return max(today, saturday), saturday + timedelta(days=1)
        saturday += timedelta(days=7 if which == "next" else 14)
        return saturday, saturday + timedelta(days=1)
    if which == "coming":
        return today, today + timedelta(days=COMING_DAYS[unit])
    later = 1 if which == "next" else 2
    if unit == "week":
        if which == "this":
            return today, monday + timedelta(days=13 if today.weekday() == 6 else 6)
        first = monday + timedelta(days=7 * later)
        return first, first + timedelta(days=6)
    if unit == "month":
        return (today, _month_after(today, 0)[1]) if which == "this" else _month_after(today, later)
    if which == "this":
        return today, date(today.year, 12, 31)
    return date(today.year + later, 1, 1), date(today.year + later, 12, 31)


def next_units(n: int, unit: str, today: date) -> tuple[date, date]:
    """"In the next `n` `unit`s": today and `n` units after it."""
    return today, today + timedelta(days=round(n * UNIT_DAYS[unit]))


def in_units(n: int, unit: str, today: date) -> tuple[date, date]:
    """"In `n` `unit`s": that day give or take half a unit (a day for days), from today on, as "`n` `unit`s ago"
    is back (`timeq`)."""
    centre = today + timedelta(days=round(n * UNIT_DAYS[unit]))
    slack = timedelta(days=1 if unit == "day" else round(UNIT_DAYS[unit] / 2))
    return max(today, centre - slack), centre + slack


def weekday(target: int, today: date, next_said: bool) -> tuple[date, date]:
    """The coming day of the week `target` (0 Monday), today on that day; said "next" (`next_said`), the
    first such day after today, to the one a week later when the first is still in this week."""
    if not next_said:
        day = today + timedelta(days=(target - today.weekday()) % 7)
        return day, day
    day = today + timedelta(days=(target - today.weekday()) % 7 or 7)
    in_this_week = day - timedelta(days=day.weekday()) == today - timedelta(days=today.weekday())
    return day, day + timedelta(days=7 if in_this_week else 0)


def this_or_latest(target: int, today: date, this: bool, past) -> date:
    """The day of the week `target` a question not asking what is coming means: said "this" ("this Saturday",
    "diesen Sonntag", "bu pazar"), the one of today's week (Monday to Sunday), as "Saturday this week" is
    (`timespan`), unless it is still to come and the question is in the past tense (`past()`: "What did I do this
    Saturday?" asked on a Wednesday); else the latest one before today. Was always the latest: "What's on this
    Saturday?" asked on a Wednesday read the Saturday gone by."""
    if this:
        day = today + timedelta(days=target - today.weekday())
        if day <= today or not past():
            return day
    return today - timedelta(days=(today.weekday() - target) % 7 or 7)


def nth_day(day: int, today: date, later: bool) -> date | None:
    """The `day` of a month a question names without its month ("on the 21st"): the first from `today` on (`later`),
    else the latest up to it, in a month that has it (the 31st skips a month of 30 days); None for no such day."""
    year, month = today.year, today.month
    for _ in range(13):
        try:
            named = date(year, month, day)
        except ValueError:
            named = None
        if named is not None and (named >= today if later else named <= today):
            return named
        year, month = (year + (month == 12), month % 12 + 1) if later else (year - (month == 1), (month - 2) % 12 + 1)
        if not 1 <= year <= MAX_YEAR:
            return None
    return None


def latest_day(month: int, day: int, today: date) -> date | None:
    """The latest `day` of `month` up to `today` (29 February: up to eight years back); None for a day that never
    comes (30 February)."""
    for year in range(today.year, max(today.year - 9, 0), -1):
        try:
            named = date(year, month, day)
        except ValueError:
            continue
        if named <= today:
            return named
    return None


def next_day(month: int, day: int, today: date) -> date | None:
    """The first `day` of `month` from `today` on ("15 December" asked on the 4th: this one; asked on the 16th: next
    year's); None for a day that never comes (30 February), nor after the last year a search reads ("2 January"
    asked late in 9998: `timewindow.MAX_YEAR`). 29 February: up to eight years on."""
    for year in range(today.year, min(today.year + 9, MAX_YEAR + 1)):
        try:
            named = date(year, month, day)
        except ValueError:
            continue
        if named >= today:
            return named
    return None
