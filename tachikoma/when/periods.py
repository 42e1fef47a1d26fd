"""The named periods of the calendar a question asks about, relative to the day it is asked: this, last or the
past week, weekend, month and year (`this_last`), and the seasons (`season`).

**Seasons** ("last summer", "this autumn", "since the summer", "during the winter", "the summer of 2024", "next
spring") are the meteorological seasons: north of the equator spring March to May, summer June to August,
autumn (fall) September to November, winter December to February; south of it (`south`) six months later, summer
December to February. A season is counted from the year it begins in ("winter 2024" is December 2024 to February
2025 in the north, June to August 2024 in the south). The dates of a season are no words a note holds, so its name
stays a keyword there only when `timeq` did not read it.

- **last summer**, **the past summer**: the latest summer that has ended (asked in July 2026, June to August 2025);
- **this summer**: the one under way, up to today (the rest of it, in a question about what is coming); when
  none is, the latest that has ended, or in a question about what is coming the next;
- **the summer before last**: the one before that;
- **next summer**: the next to begin, a window still to come;
- **since / after the summer**: the one under way or the latest that has ended ("since" up to today and "after"
  from its end, as `timeq` reads every "since" and "after"); not one under way still in its first month, as below:
  "What changed since the winter?" asked on 5 December is since last December ("since this winter", "seit diesem
  Winter": the one under way);
- **during / over / through / throughout the summer**: the one under way, so far (the rest of it, in a question about
  what is coming), or the latest that has ended; but not one under way still in its first month, unless the question
  asks about what is coming: "What did we do over the winter?" asked on 4 December means the winter that ended in
  February, not 1 to 4 December ("this winter" still means the one under way);
- **summer 2024**, **the summer of 2024**, **summer '24**: that one (a year of two digits is this century's, unless
  that is more than ten years ahead: "winter '98" is 1998); in a question in the past tense, a season across the
  year's end named by a year it has not yet begun in is the one that ended in that year ("What did we do in the
  winter of 2026?" asked in July 2026: December 2025 to February 2026, not a winter still to come).

Pure date arithmetic: `timeq` reads the words and makes the window.
"""

from __future__ import annotations

import itertools
import os
import re
import zoneinfo
from dataclasses import replace
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

from . import ahead as _coming
from ..errors import TachikomaError
from .foreign_time import (CHINESE_MOVED_BEFORE, CJK_BETWEEN, CJK_BETWEEN_BEFORE, CJK_BRACKET_WEEKDAYS, CJK_COUNT_MAX,
                           CJK_DAY_AFTER, CJK_DAY_COUNTED, CJK_DAY_LIST_MARKS, CJK_DAY_RANGE_MARKS, CJK_DAY_RANGE_WORDS,
                           CJK_DAY_SUFFIXES, CJK_MOVED_TO, CJK_ROUND_COUNTS,
                           KOREAN_COPULA, KOREAN_DAY_AFTER, KOREAN_LASTS_BEFORE, KOREAN_ONE_DAY, KOREAN_PER_DAY,
                           KOREAN_SPENDING, KOREAN_WORD_AFTER, chinese_number)
from .time_words import FOREIGN_SEASONS, MONTH_NAMES, MONTH_NAMES_ALSO_WORDS, SEASON_WORD_GOES_ON
from .timewindow import Window, days, month, month_end

#: The month each season begins in, north of the equator (six months later south of it: `south`).
SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
#: Says which hemisphere's seasons a question means ("north" or "south"), where the time zone does not or should not.
HEMISPHERE_ENV = "TACHIKOMA_HEMISPHERE"


def south() -> bool:
    """Whether a question's seasons are the southern hemisphere's: as `HEMISPHERE_ENV` says, else as the latitude
    of the local time zone says (``TZ``, else the zone /etc/localtime is, found in the system's zone1970.tab:
    Australia/Sydney is south, Europe/Berlin north; a link name such as "NZ" as its zone, `_zone_sign`; where
    /etc/localtime is a copy, the name in /etc/timezone); north when neither tells (UTC, a zone written as an
    offset, no zone named anywhere)."""
    return _south(os.environ.get(HEMISPHERE_ENV, ""), os.environ.get("TZ", ""))


@lru_cache(maxsize=8)
def _south(said: str, tz: str) -> bool:
    said = said.strip().lower()
    if said:
        if said not in ("north", "south"):
            shown = repr(said[:40]) + (" …" if len(said) > 40 else "")  # one short line, whatever was set
            raise TachikomaError(f"{HEMISPHERE_ENV} is {shown}: it says whose seasons a question means, "
                                 "'north' or 'south'")
        return said == "south"
    zone = tz.strip().lstrip(":") or _local_zone()
    return zone is not None and _zone_sign(zone) < 0


#: Where the system says its time zone: the link /etc/localtime, else (a container whose /etc/localtime is a copy)
#: the name Debian and its kin write to /etc/timezone.
LOCALTIME, TIMEZONE_NAME = "/etc/localtime", "/etc/timezone"


def _local_zone() -> str | None:
    """The name of the zone /etc/localtime is a link to ("Australia/Sydney"), else the one /etc/timezone names, or
    None."""
    if zone := _zone_of_file(LOCALTIME):
        return zone
    named = _small_text(TIMEZONE_NAME, 200).partition("\n")[0].strip()
    return named or None


#: The most of a zone file read (`_small_text`): zone1970.tab, zone.tab and tzdata.zi are some 20, 20 and 110 kB.
ZONE_FILE_BYTES = 1 << 20


def _small_text(path, most: int = ZONE_FILE_BYTES) -> str:
    """The text of the regular file at `path`, at most its first `most` bytes, any byte that is no UTF-8 replaced;
    "" for none, a folder, a device or a pipe ("/dev/zero" never ends, a pipe waits for a writer), or one unreadable:
    a search reads the hemisphere from these, and no file of theirs may stop it or make it wait."""
    try:
        if not os.path.isfile(path):
            return ""
        with open(path, "rb") as handle:
            return handle.read(most).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def _zone_of_file(path: str) -> str | None:
    """The zone name of a zone file's path, its links followed ("/usr/share/zoneinfo/Australia/Sydney"), or None."""
    target = os.path.realpath(path)
    return target.split("/zoneinfo/", 1)[1] if "/zoneinfo/" in target else None


def _zone_sign(zone: str) -> int:
    """`_latitude_sign` of a zone as TZ may name it: by its name in the zone tables, a path to its file
    (":/usr/share/zoneinfo/Australia/Sydney"), under "posix/" or "right/", or a link name the tables do not list
    ("Australia/NSW", "NZ", "Brazil/East"), found as the zone its file links to or tzdata.zi's "L" lines name."""
    if zone.startswith("/"):
        zone = _zone_of_file(zone) or ""
    zone = zone.removeprefix("posix/").removeprefix("right/")
    if not zone:
        return 0
    if sign := _latitude_sign(zone):
        return sign
    for folder in zoneinfo.TZPATH:
        linked = _zone_of_file(str(Path(folder) / zone)) if os.path.isfile(Path(folder) / zone) else None
        if linked and linked != zone and (sign := _latitude_sign(linked.removeprefix("posix/").removeprefix("right/"))):
            return sign
        for line in _small_text(Path(folder) / "tzdata.zi").splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[0] == "L" and fields[2] == zone:
                return _latitude_sign(fields[1])
    return 0


def _latitude_sign(zone: str) -> int:
    """-1 for a zone south of the equator, 1 north of it, 0 when the system's zone tables do not list it."""
    for folder in zoneinfo.TZPATH:
        for table in ("zone1970.tab", "zone.tab"):
            for line in _small_text(Path(folder) / table).splitlines():
                fields = line.split("\t")
                if len(fields) >= 3 and fields[2] == zone and fields[1][:1] in "+-":
                    return -1 if fields[1][0] == "-" else 1
    return 0


def _start(name: str) -> int:
    start = SEASON_START[name.lower()]
    return (start + 5) % 12 + 1 if south() else start


def _season_of(start: int, year: int) -> tuple[date, date]:
    """The first and last day of the season beginning in month `start` of `year`."""
    last_month = start + 2
    last_year, last_month = (year + 1, last_month - 12) if last_month > 12 else (year, last_month)
    return date(year, start, 1), month_end(date(last_year, last_month, 1))


def _latest_begun(start: int, today: date) -> tuple[date, date]:
    return _season_of(start, today.year if today.month >= start else today.year - 1)


#: The words before a season that name the one under way only once it is more than a month old (`season`).
_DURING = ("during", "over", "through", "throughout")
_NOT_BEGUN_YET = (*_DURING, "since", "after")


def season(which: str, name: str, year: int | None, today: date, coming: bool) -> tuple[date, date, bool]:
    """The first and last day of season `name` that `which` ("this", "last", "past", "before last", "next", "since",
    "since this", "since last", "after", one of `_DURING`, or "" for one named with its year) names, asked on `today`
    (`coming`: the question asks about what is coming), and whether it is still to come; `year` when one is named
    ("summer 2024")."""
    start = _start(name)
    if year is not None:
        first, last = _season_of(start, year)
        return first, last, first > today
    first, last = _latest_begun(start, today)
    if which == "before last":  # the one before the latest that has ended
        return (*_season_of(start, first.year - (2 if last >= today else 1)), False)
    if which in _NOT_BEGUN_YET and last >= today and not coming and (today.year, today.month) == (first.year, first.month):
        first, last = _season_of(start, first.year - 1)  # under way in its first month: the one before is meant
        return first, today if which == "since" else last, False
    if which == "next" or which in ("this", *_DURING) and coming and last < today:
        first, last = _season_of(start, first.year + 1)
        return first, last, True
    if which in ("since", "since this"):  # the one under way or the latest, up to today
        return first, today, False
    if which == "since last":  # from the latest that has ended ("seit letztem Sommer"), up to today
        return (_season_of(start, first.year - 1)[0] if last >= today else first), today, False
    if which in ("last", "past"):  # the latest that has ended
        first, last = _season_of(start, first.year - 1) if last >= today else (first, last)
        return first, last, False
    if last >= today:  # under way: so far, or the rest of it
        return (today, last, True) if coming and which in ("this", *_DURING) else (first, today, False)
    return first, last, False


_HANGUL = re.compile("[\uac00-\ud7a3]")
#: A kanji, katakana or Hangul syllable: after "去年の秋" or "지난 여름", a longer word (`time_words.SEASON_WORD_GOES_ON`).
_WORD_GOES_ON = re.compile("[\u4e00-\u9fff\u30a0-\u30ff\uac00-\ud7a3]")


#: After "in the summer, 2000": a word that makes the number one of things counted ("2000 people"), not a year.
_COUNTED = re.compile(r"\s+(?!(?:we|i|you|they|he|she|it|and|or|when|in|at|on|was|were|did)\b)[a-z]")


def _titled(m: re.Match) -> bool:
    """Whether "Last Summer" (`timeq`'s "season", its `which` form) is said as a title: both words capitalised, not
    at a sentence's start, in a question not all in capitals."""
    said, before = m.group(0), m.string[:m.start()].rstrip()
    return bool(m.group("which")) and said[:1].isupper() and m.group("named")[:1].isupper() \
        and not said.isupper() and bool(before) and not before.endswith((".", "!", "?", ":"))


#: Before "last fall", "next fall": a possessive or "the" makes it a fall, an accident, no autumn ("Grandma's last fall",
#: "after her last fall", "the last fall"); "this past fall", "Did she fall last fall?" stay autumn.
_FALL_HAD = re.compile(r"(?:\b(?:the|that|my|your|his|her|its|our|their)|\w['\u2019]s)\s+$", re.I)
#: Before "this fall", "this spring": an auxiliary makes "this" a subject and the season's word its verb ("Why did this
#: fall?", "Will this fall on a Monday?"); not before "'s" ("Did this fall's launch go well?").
_VERB_AFTER = re.compile(r"\b(?:(?:did|does|will|would|could|can|should|might|may|must|shall)(?:n['\u2019]t)?|won['\u2019]t|"
                         r"cannot)\s+$", re.I)


#: Before "the last fall": a question whose "what" or "which" is its verb's object, so that "the last fall" says when
#: ("What did we plant the last fall?", "Which bulbs did you plant the last fall?"; not "What caused the last fall?").
_WHEN_THE = re.compile(r"\b(?:what|which)\s+(?:\w+\s+)?(?:did|do|does|have|had)\s+(?:we|i|you|they|he|she)\s+\w+\s+the\s+$",
                       re.I)
#: After "this Summer", "last Winter" in lower case and then a capital: an English possessive makes the season's word a
#: name ("Is this Summer's laptop?"); "this summer's plan" is the season's.
_NAMES = ("summer", "autumn", "winter")


def _a_fall_or_a_verb(m: re.Match) -> bool:
    """Whether "last fall", "this fall", "this spring" (`timeq`'s "season", its `which` form) names a fall or says a
    verb, no season (`_FALL_HAD`, `_VERB_AFTER`; "the last fall" after a "what" its verb's object says when:
    `_WHEN_THE`), or "this Summer's" a name (`_NAMES`)."""
    which, named = (m.group("which") or "").lower(), (m.group("named") or "").lower()
    before = m.string[max(0, m.start() - 12):m.start()]
    if named in _NAMES and m.group("named")[:1].isupper() and m.group("which")[:1].islower() \
            and m.string.startswith(("'s", "\u2019s"), m.end()):
        return True  # "Is this Summer's laptop?": Summer's
    if named == "fall" and which in ("last", "next") and _FALL_HAD.search(before) \
            and not _WHEN_THE.search(m.string, max(0, m.start() - 60), m.start()):
        return True
    return named in ("fall", "spring") and which == "this" and bool(_VERB_AFTER.search(before)) \
        and not m.string.startswith(("'s", "\u2019s"), m.end())


def _two_digit_year(short: int, today: date) -> int:
    """The year "'24" names: this century's, the last's when that would be more than ten years ahead ("'98")."""
    year = today.year // 100 * 100 + short
    return year - 100 if year > today.year + 10 else year


def season_window(kind: str, m: re.Match, today: date, tz, phrase: str, ahead, past) -> Window | None:
    """The window of the season `m` of `timeq`'s pattern `kind` names ("season": English, its groups; "foreign_season":
    a phrase of `time_words.FOREIGN_SEASONS`); one still to come, not in a question in the past tense (`past()`)."""
    if kind == "season":
        if _titled(m):
            return None  # "I Know What You Did Last Summer", "the film \"Last Summer\"": a title, no time
        if _a_fall_or_a_verb(m):
            return None  # "When was Grandma's last fall?", "Why did this fall?"
        if m.group("year") and "," in m.group(0) and _COUNTED.match(m.string, m.end()):
            return None  # "in the summer, 2000 people came": a number of things, no year
        which = "before last" if m.group("before") else (m.group("which") or m.group("lead") or "").lower()
        name = m.group("named") or m.group("dated") or m.group("led") or m.group("before")
        year = int(m.group("year")) if m.group("year") else _two_digit_year(int(m.group("short")), today) \
            if m.group("short") else None
        # `timeq` reads "since" and "after" for every time: here they say which season (`season`)
    else:
        if m.group(0)[-1:] in "春夏秋冬" or _HANGUL.match(m.group(0)[-1:]):  # Japanese and Korean: not in a longer word
            if _WORD_GOES_ON.match(m.string, m.end()) and not m.string.startswith(SEASON_WORD_GOES_ON, m.end()):
                return None
        which, name, offset = FOREIGN_SEASONS[" ".join(m.group(0).lower().split())]
        year = None if offset is None else today.year + offset
    first, last, coming = season(which, name, year, today, ahead())
    if coming and past() and year is not None and first.year < last.year:
        # "What did we do in the winter of 2026?" asked in July 2026: the winter that ended in 2026, not the one to come
        first, last, coming = season(which, name, year - 1, today, ahead())
    if coming and past():
        return None  # "what did we write in next summer's plan"
    # relative to today, unless a year is written in digits ("summer 2024": notes write it, so it stays keywords)
    return replace(days(first, last, tz, phrase), ahead=coming, relative=kind == "foreign_season" or year is None)


#: A day of the month said without its month: "on the 21st", "the 3rd" (`timeq`'s "nth_day", read as a whole phrase
#: by `timespan`); group 1 its number.
NTH_DAY = r"(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)"
#: The words before "the 21st" that make it a day of the month: "on the 21st" (its own "on"), "by the 15th", "from the
#: 1st to the 5th", "what's planned for the 3rd"; "Who was the 1st to arrive?", "the 5th in the list" are no days.
_DAY_LEAD = re.compile(r"(?:^|\W)(?:by|since|until|till|before|after|from|between|to|and|through|for|of|due)\s+$", re.I)


#: A month said right beside "on the 21st" ("on the 21st in July", "in July on the 21st", "July, on the 21st"): the
#: day is that month's. Its full name; "May", "March", "August" capitalised (`time_words.MONTH_NAMES_ALSO_WORDS`),
#: or in lower case right after "in" ("on the 21st in may": `ORDINAL_IN`).
_MONTH_AFTER = re.compile(r"(?:\s+(in)\s+|\s*,\s*(?:(in)\s+)?)(" + "|".join(MONTH_NAMES) + r")\b", re.I)
_MONTH_BEFORE = re.compile(r"\b(" + "|".join(MONTH_NAMES) + r")\s*,?\s*$", re.I)
#: An ordinal day and "of" ("the 21st of may", "1st of march"), or "the 21st" and "in" ("on the 21st in may"): the month
#: word after it is a month in lower case too, where alone it is as often a word ("I may go", "we march on",
#: `timeq.AMBIGUOUS_MONTHS`; "the 21st may be late").
ORDINAL_OF = re.compile(r"\d{1,2}(?:st|nd|rd|th)\s+of\s", re.I)
ORDINAL_IN = re.compile(r"\bthe\s+\d{1,2}(?:st|nd|rd|th)\s+in\s+$", re.I)


def month_beside(m: re.Match, text: str) -> int | None:
    """The month said right after or before the day `m` ("on the 21st in July"), or None."""
    if said := _MONTH_AFTER.match(text, m.end()):
        word, after_in = said.group(3), bool(said.group(1) or said.group(2))
    elif said := _MONTH_BEFORE.search(text[max(0, m.start() - 14):m.start()]):
        word, after_in = said.group(1), False
    else:
        return None
    if word.lower() in MONTH_NAMES_ALSO_WORDS and not word[:1].isupper() and not after_in:
        return None
    return MONTH_NAMES[word.lower()]


#: Before "the 29th": a verb of moving a thing there ("Was the meeting moved to the 29th?", "Did they postpone the call
#: until the 29th?", "pushed it back to"): the day is the coming one, whatever the tense.
MOVED_TO = re.compile(r"\b(?:mov|postpon|push|reschedul|delay|shift|bump|brought\s+forward|put\s+off)\w*(?:\s+(?!to\b|"
                       r"until\b|till\b)\w+){0,3}\s+(?:to|until|till)\s+(?:the\s+)?$", re.I)


def nth_day_window(m: re.Match, text: str, today: date, tz, phrase: str, past, ahead) -> Window | None:
    """The day `m` of `timeq`'s "nth_day" names ("on the 21st"): the next one, or in the past tense (`past()`) the
    latest (`ahead.nth_day`); None for an ordinal said without "on" or another word before it that makes it a day.
    With a month beside it ("on the 21st in July", `month_beside`), that month's, as "21 July" is read: the next
    one in a question about what is coming (`ahead()`), else the latest (None for a day it has not: "the 31st in
    June"); `timespan` makes it and the month's own window one day. A day a thing was moved to ("moved to the 29th",
    `MOVED_TO`) is the next one in the past tense too."""
    if not m.group(0).lower().startswith("on") and not _DAY_LEAD.search(text[max(0, m.start() - 12):m.start()]):
        return None
    number, month_said = int(m.group(1)), month_beside(m, text)
    if month_said is None:
        return _nth_day(number, today, tz, phrase, not past() or bool(MOVED_TO.search(text, max(0, m.start() - 48),
                                                                                       m.start())))
    day = _coming.next_day(month_said, number, today) if ahead() else _coming.latest_day(month_said, number, today)
    return None if day is None else replace(days(day, day, tz, phrase), ahead=day > today)


def _nth_day(number: int, today: date, tz, phrase: str, coming: bool) -> Window | None:
    """The day `number` of a month without its month: the next one (`coming`, a window still to come after today),
    else the latest (`ahead.nth_day`); None for no such day."""
    day = _coming.nth_day(number, today, coming)
    return None if day is None else replace(days(day, day, tz, phrase), ahead=coming and day > today)


#: Just before "29日", "3号", "3일", what makes it no day alone: a month ("13月29日", which `timeq`'s "cjk_md" did not
#: read), a year, a week or a night it counts in ("週3日", "月に3日", "2泊3日", "한 달에 3일", "주 3일", "주4일 근무제",
#: "매주 3일", "일주일에 3일", "3박 4일"; not "다음 주 3일", "이번 주 3일": the week's day), a habit ("毎29日"), an issue
#: ("第3号", "제3일"), a range's other end ("1日〜3日"), a word saying the days are counted ("ここ3日", "この3日",
#: "过去三日", "这三日", "连续三日", "최근 3일", "앞으로 3일", "연속 3일", "最低3日", "少なくとも3日", "최소 3일"; not Korean
#: "지난 3일", as often the 3rd just gone).
_CJK_NOT_ALONE = re.compile(r"(?:[月월年년週周泊第毎每매〜~～\-–—]|[月週年]に|한\s*달에|この|ここ|過去|直近|最近|あと|残り|丸|"
                            r"最低|最大|最長|最短|少なくとも|たった|わずか|僅か|連続|合計|"
                            r"这|這|过去|過去|连续|連續|整整|头|頭|至少|总共|總共|최근|앞으로|남은|"
                            r"\d\s*박|(?<![가-힣])(?<!다음 )(?<!이번 )(?<!지난 )(?<!저번 )주|매주|격주|주당|주에|주일에|"
                            r"연속|최소|최대|적어도|무려|꼬박|고작|겨우|(?<![가-힣])총|(?<![가-힣])제)\s*$")
#: A month said a little before "29日": the day is that month's ("来月3日", "上个月3号", "毎月29日", "다음 달 3일", "매월
#: 29일"; "12月29日と30日": December's 30th, not November's), left to the month's own reading.
_CJK_MONTH_BEFORE = re.compile(r"\d\s*[月월]|(?:先|来|今|再来|本|上|下|这|這|每|毎)(?:个|個)?月|(?:지난|다음|이번|저번|매)\s*달")
#: How far from the day a number alone names a day of the week in brackets may move it ("29日(月)": the next 29th
#: that is a Monday, within about four months; `_cjk_days`).
CJK_WEEKDAY_REACH_DAYS = 124


#: A kanji right before a Japanese day in kanji numerals makes the number part of a word ("同一日", "統一日").
_KANJI_BEFORE = re.compile(r"[\u4e00-\u9fff々]$")


def _cjk_number(said: str, told: str, before: str = "") -> int | None:
    """The number of "29" or "二十九" (`foreign_time.chinese_number`), in Chinese numerals only in a Chinese question or
    a Japanese one with no kanji right `before` it ("二十九日に", not "同一日"); a day of a month (1-31)."""
    number = int(said) if said.isdigit() else chinese_number(said) if told == "Chinese" or (
        told == "Japanese" and not _KANJI_BEFORE.search(before)) else None
    return number if number is not None and 1 <= number <= 31 else None


def _range_end(first: date, until: int | None) -> date | None:
    """The last day of a range from `first` to the day `until` of a month ("29日〜30日", "29日から3日"): of the first's
    month when it is not before the first, else of the next month; None where that month has no such day (the 30th
    of November to the 31st: no range that month). `until` None: one day, `first`."""
    if until is None:
        return first
    year, month = first.year, first.month
    if until < first.day:
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    try:
        return date(year, month, until)
    except ValueError:  # the 31st of a month of 30 days, the year 10000
        return None


def _cjk_ranges(number: int, until: int | None, day: date | None, later: bool):
    """The days `number` from `day` on (`later`) or back, each with its range's last day (`_range_end`), skipping
    those whose month has no such range."""
    for _ in range(24):
        if day is None:
            return
        if (last := _range_end(day, until)) is not None:
            yield day, last
        try:
            day = _coming.nth_day(number, day + timedelta(days=1 if later else -1), later)
        except OverflowError:  # the first or last day a date holds
            return


@lru_cache(maxsize=64)
def _cjk_days(number: int, until: int | None, weekday: int | None, until_weekday: int | None, today: date,
              coming: bool) -> tuple[date, date] | None:
    """The first and last day of "29日" (`until` None) or of a range "29日〜30日" (to the day `until`, in the first's
    month or the next: `_range_end`): the one under way or to come (`coming`), else the one begun last.

    A day of the week in brackets after either day (`weekday`, `until_weekday`: "29日(月)", "29日〜30日(火)") picks
    the nearest such that agrees, the next (in the past tense the latest) within `CJK_WEEKDAY_REACH_DAYS` of the one
    the numbers alone name; in a question not in the past tense where no coming one agrees, the latest gone within
    as far ("29日(月)の会議は？" asked the day after Monday the 29th); else the numbers alone (a weekday no near month
    agrees with is taken for a slip)."""
    latest = start = _coming.nth_day(number, today, False)
    if coming and ((last := latest and _range_end(latest, until)) is None or last < today):
        start = _coming.nth_day(number, today, True)  # none under way: the next
    ahead = _cjk_ranges(number, until, start, coming)
    plain = next(ahead, None)
    if plain is None or weekday is None and until_weekday is None:
        return plain

    def agrees(found: tuple[date, date]) -> bool:
        return (weekday is None or found[0].weekday() == weekday) and (
            until_weekday is None or found[1].weekday() == until_weekday)

    def near(found: tuple[date, date]) -> bool:
        return abs((found[0] - plain[0]).days) <= CJK_WEEKDAY_REACH_DAYS

    for found in itertools.chain([plain], ahead):
        if not near(found):
            break
        if agrees(found):
            return found
    if coming:
        for found in _cjk_ranges(number, until, latest, False):
            if not near(found):
                break
            if found[0] < plain[0] and agrees(found):
                return found
    return plain


def _a_count(number: int) -> bool:
    """Whether `number` days may be a count of days spent: up to `CJK_COUNT_MAX`, or a round one (`CJK_ROUND_COUNTS`)."""
    return number <= CJK_COUNT_MAX or number in CJK_ROUND_COUNTS


def _counted(number: int, text: str, end: int, told: str) -> bool:
    """Whether `number` days are counted by what follows them at `end`: a thing that lasts ("3日の旅行", "3일 휴가",
    "15日の旅行": `_a_count`, `foreign_time.CJK_DAY_COUNTED`)."""
    return _a_count(number) and told in CJK_DAY_COUNTED and bool(CJK_DAY_COUNTED[told].match(text, end))


def _day_follows(text: str, end: int, told: str, first: bool = False) -> bool:
    """Whether what follows a day's number and word at `end` makes it a day of the month: a particle, a time, a word of
    what is done then (`foreign_time.CJK_DAY_AFTER`), or in Korean another word after it (`KOREAN_DAY_AFTER`; after
    "1일", `first`, a word only, and not one saying "per day": `KOREAN_PER_DAY`; "1일은 24시간" is a day's)."""
    if CJK_DAY_AFTER[told].match(text, end) or told == "Korean" and not first and KOREAN_DAY_AFTER.match(text, end):
        return True
    return told == "Korean" and first and bool(KOREAN_WORD_AFTER.match(text, end)) and not KOREAN_PER_DAY.match(text, end)


def _cjk_day_alone(m: re.Match, text: str, number: int, told: str) -> bool:
    """Whether the first day of `m` (`timeq`'s "cjk_nth_day") is said as a day of the month by what follows it."""
    if m.group("word") is None or m.group("word") not in CJK_DAY_SUFFIXES[told]:
        return False
    if m.group("bracket"):
        return True  # "29日(月)", "3日(月)の出張": its day of the week says it is a date, not a count
    end = m.end("word")
    if _counted(number, text, end, told):
        return False  # "3日の旅行", "3일 휴가": a trip of three days
    if number == 1 and told == "Japanese" and not text.startswith(("に", "まで", "から"), end):
        return False  # "1日の流れ", "1日は24時間": a day's
    if told == "Chinese" and m.group("day") == "一" and m.group("word") == "日":
        return False  # "一日游", "一日三餐", "一日要多少钱": a day's ("一号", "1日": the 1st)
    if number == 1 and told == "Korean" and KOREAN_ONE_DAY.match(text, end):
        return False  # "1일에 다 했어": in one day
    if told == "Chinese" and CHINESE_MOVED_BEFORE.search(text, max(0, m.start() - 8), m.start()):
        return True  # "推迟到29号了吗？": moved to the 29th (`_moved_to`)
    if told == "Chinese" and CJK_BETWEEN.match(text, end):  # "29号和30号之间", not "一日之间" (within a day)
        return bool(CJK_BETWEEN_BEFORE.search(text, max(0, m.start() - 8), m.start()))
    if told == "Korean" and not _a_count(number) and KOREAN_SPENDING.match(text, end):
        return True  # "29일 쉬어?": off on the 29th (no 29 days spent)
    if told == "Korean" and _a_count(number) and KOREAN_COPULA.match(text, end) \
            and KOREAN_LASTS_BEFORE.search(text, max(0, m.start() - 12), m.start()):
        return False  # "휴가가 3일이야?": the holiday lasts three days
    return _day_follows(text, end, told, first=number == 1)


def _moved_to(m: re.Match, text: str, told: str) -> bool:
    """Whether the day `m` names is one a thing was moved to ("29일로 미뤘어?", "29日に延期した？", "推迟到29号了吗？":
    `foreign_time.CJK_MOVED_TO`, `CHINESE_MOVED_BEFORE`): the coming one, in the past tense too."""
    if told == "Chinese":
        return bool(CHINESE_MOVED_BEFORE.search(text, max(0, m.start() - 8), m.start()))
    return told in CJK_MOVED_TO and bool(CJK_MOVED_TO[told].match(text, m.end()))


def _cjk_range(m: re.Match, text: str, first: int, told: str) -> int | None:
    """The second day of a range `m` names ("29日から30日まで", "29号到30号", "29일부터 30일까지", "29〜30日", and two days
    listed, "29、30日", from the first to the second), or None for none: a join or a word of another language, nothing
    after it that makes it a day, a count ("2〜3日", "2、3日", "1~2일": a day or two said without the first's word, but
    never with 号; "2〜3日の休み"). A day of the week in brackets after either day ("3日(月)〜5日(水)の出張") says it is
    one."""
    join, until = m.group("join").strip(), _cjk_number(m.group("until") or "", told)
    if until is None or m.group("until_word") not in CJK_DAY_SUFFIXES[told] or not (
            join in CJK_DAY_RANGE_MARKS or join in CJK_DAY_RANGE_WORDS[told] or join in CJK_DAY_LIST_MARKS):
        return None
    if m.group("bracket") or m.group("until_bracket"):
        return until
    if m.group("word") is None and until == first + 1 and until <= 7 and m.group("until_word") not in "号號":
        return None  # "2〜3日で", "2、3日は", "1~2일 걸려": two or three days
    if _counted(until, text, m.end(), told):
        return None  # "2〜3日の休み"
    if not (_day_follows(text, m.end(), told) or told == "Chinese" and CJK_BETWEEN.match(text, m.end())):
        return None  # ("二十九号到三十号之间" is a range)
    return until


def cjk_nth_day_window(m: re.Match, text: str, today: date, tz, phrase: str, told: str | None, past) -> Window | None:
    """"29日", "29号", "二十九号", "29일" (`timeq`'s "cjk_nth_day"), read as "on the 29th" is: the next one, in the past
    tense (`past(told)`: "3日に何を決めた？") the latest. Only in a question told (`told`) as a language that says a day
    so (`foreign_time.CJK_DAY_SUFFIXES`; Chinese numerals in Chinese), when what follows makes it a day
    (`foreign_time.CJK_DAY_AFTER`, `KOREAN_DAY_AFTER` for a Korean day but the 1st, `KOREAN_PER_DAY` for it: not
    "29日間", "3号线", "1日に3回", "3일 동안", "1일 한도", nor a thing that lasts, "3日の旅行", "15日の旅行",
    `CJK_DAY_COUNTED`, "휴가가 3일이야?", `KOREAN_LASTS_BEFORE`; a Korean verb of spending days says a day above a count,
    "29일 쉬어?", `KOREAN_SPENDING`) and nothing before it says its month, a count or
    a habit (`_CJK_NOT_ALONE`, `_CJK_MONTH_BEFORE`); a Japanese "1日" only before "に", "まで", "から" ("1日の流れ",
    "1日は24時間": a day's), a Chinese "一日" never alone ("一日游"), a Korean "1일에" not before "다", "끝" ("1일에 다
    했어": in one day).

    A range ("29日〜30日", "29日から30日まで", "29号到30号", "29일부터 30일까지") is one window from the first day to
    the second, in its month or the next (`_cjk_range`, `_cjk_days`): the one under way or to come, in the past tense
    the one begun last; where it is none, the first day alone as above. A day of the week in brackets after either
    day ("29日(月)", "29日〜30日(火)") picks the month whose day it is (`_cjk_days`)."""
    before = text[max(0, m.start() - 12):m.start()]
    if told not in CJK_DAY_SUFFIXES or (number := _cjk_number(m.group("day"), told, before)) is None:
        return None
    if _CJK_NOT_ALONE.search(before) or _CJK_MONTH_BEFORE.search(before):
        return None
    coming = not past(told) or _moved_to(m, text, told)
    weekday = CJK_BRACKET_WEEKDAYS[m.group("weekday")] if m.group("weekday") else None
    until_weekday = CJK_BRACKET_WEEKDAYS[m.group("until_weekday")] if m.group("until_weekday") else None
    until = _cjk_range(m, text, number, told) if m.group("join") else None
    if until is None:
        if not _cjk_day_alone(m, text, number, told):
            return None
        until_weekday = None
        if m.group("join"):  # "29일부터 30일 동안": no range, the first day alone
            phrase = " ".join(text[m.start():m.end("bracket") if m.group("bracket") else m.end("word")].split())
    found = _cjk_days(number, until, weekday, until_weekday, today, coming)
    if found is None:
        return None
    first, last = found
    return replace(days(first, last, tz, phrase), ahead=coming and last > today)


def this_last(which: str, unit: str, today: date, tz, phrase: str, ahead: bool = False) -> Window:
    """The window of "this", "last", "past" or "previous" `unit` (week, weekend, month, year); `ahead`: "this week"
    in a question about what is coming, the rest of it."""
    if ahead:
        return replace(days(*_coming.span("this", unit, today), tz, phrase), ahead=True)
    past = which in ("past", "previous", "last") and phrase.lower().startswith(("the", "past"))
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        if which == "this":
            return days(monday, today, tz, phrase)
        if past:  # "the past week": the last seven days
            return days(today - timedelta(days=7), today, tz, phrase)
        return days(monday - timedelta(days=7), monday - timedelta(days=1), tz, phrase)
    if unit == "weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        if which == "this" and today.weekday() >= 5:
            return days(saturday, today, tz, phrase)
        saturday -= timedelta(days=7 if today.weekday() >= 5 else 0)  # on a weekend, the last one is the one before
        return days(saturday, saturday + timedelta(days=1), tz, phrase)
    if unit == "month":
        if which == "this":
            return days(today.replace(day=1), today, tz, phrase)
        if past:
            return days(today - timedelta(days=31), today, tz, phrase)
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
        return month(first.year, first.month, tz, phrase)
    if which == "this":
        return days(date(today.year, 1, 1), today, tz, phrase)
    if past:
        return days(today - timedelta(days=365), today, tz, phrase)
    return days(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31), tz, phrase)
