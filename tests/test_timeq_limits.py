"""Issue 32, breaks 2, 10 and 11: dates that do not exist, dates at the ends of time, and long queries.

"February 29, 2027", "March 32" and "Dec 31st, 9999" used to be read as another
month of this year; "since January 1, 0001" east of UTC ended the search
("year 0 is out of range"); a query of 8,000 date phrases took 6.5 s (the time
reading was quadratic)."""

from datetime import datetime, timedelta, timezone

import pytest
from linear import assert_linear

from tachikoma.when import timeq

EAST = timezone(timedelta(hours=14))  # Pacific/Kiritimati
WEST = timezone(timedelta(hours=-12))
AS_OF = datetime(2026, 3, 25, 12, 0, tzinfo=EAST)


def labels(query, as_of=AS_OF):
    return [w.label for w in timeq.read(query, as_of)]


@pytest.mark.parametrize("query", ["what did we decide on February 29, 2027", "notes from March 32",
                                   "what happened by Dec 31st, 9999", "on 2026-02-30", "April 31 meeting",
                                   "31 June 2025 plans", "February 30"])
def test_a_day_that_does_not_exist_asks_about_no_time(query):
    assert labels(query) == []


@pytest.mark.parametrize("zone", [EAST, WEST, timezone.utc])
@pytest.mark.parametrize("query", ["what happened since January 1, 0001", "since 0001-01-01", "on 0001-01-01",
                                   "1 January 0001", "since December 31, 9999", "9999-12-31"])
def test_the_ends_of_time_never_end_a_search(query, zone):
    assert labels(query, AS_OF.astimezone(zone)) == []


def test_real_dates_next_to_impossible_ones_are_still_read():
    assert labels("February 29, 2027 or February 29") == ["2024-02-29"]
    assert labels("since the   March 3, 2026") == ["2026-03-03..2026-03-25"]
    assert labels("in February and on March 32") == ["2026-02"]


@pytest.mark.parametrize("text", ["0001-01-01", "0001-01-01T00:00+05:00", "9999-12-31"])
def test_as_of_at_the_ends_of_time_is_refused_with_the_range(text):
    with pytest.raises(ValueError, match="out of range: years 2 to 9998"):
        timeq.parse_as_of(text)


def test_reading_time_is_linear_in_the_query():
    def check(found, n):
        assert len(found) == 2 * n

    # 8× the phrases: ~8× the time (quadratic was ~64×)
    assert_linear(lambda query: timeq.read(query, AS_OF), lambda n: "in 2026 and since March 3 " * n, 1000, check=check)
