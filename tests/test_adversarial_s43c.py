"""Adversarial review (session 43) of the southern seasons (`periods.south`) and of a day of the month said alone in
Japanese, Chinese and Korean (`periods.cjk_nth_day_window`). Each case says whether it failed before its fix."""

from datetime import datetime

import pytest

from tachikoma.when import periods
from time_reading import windows_at

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")


windows = windows_at(TENTH)


# ------------------------------------------------------------------ the hemisphere of a time zone as TZ names it

@pytest.fixture
def zones(tmp_path, monkeypatch):
    """A zoneinfo folder of its own: Pacific/Auckland and Europe/Berlin in zone1970.tab, NZ a symbolic link to
    Auckland, Australia/NSW a copy (as where links are hard links) that only tzdata.zi's "L" line names."""
    folder = tmp_path / "zoneinfo"
    (folder / "Pacific").mkdir(parents=True)
    (folder / "Europe").mkdir()
    (folder / "Australia").mkdir()
    (folder / "Pacific" / "Auckland").write_bytes(b"TZif")
    (folder / "Europe" / "Berlin").write_bytes(b"TZif")
    (folder / "Australia" / "Sydney").write_bytes(b"TZif")
    (folder / "Australia" / "NSW").write_bytes(b"TZif")
    (folder / "NZ").symlink_to("Pacific/Auckland")
    (folder / "zone1970.tab").write_text("# comment\nNZ\t-3652+17446\tPacific/Auckland\tNew Zealand\n"
                                         "DE\t+5230+01322\tEurope/Berlin\n"
                                         "AU\t-3352+15113\tAustralia/Sydney\tNew South Wales\n", encoding="utf-8")
    (folder / "tzdata.zi").write_text("# version\nL Australia/Sydney Australia/NSW\n", encoding="utf-8")
    monkeypatch.setattr(periods.zoneinfo, "TZPATH", (str(folder),))
    monkeypatch.delenv("TACHIKOMA_HEMISPHERE")
    periods._south.cache_clear()
    yield folder
    periods._south.cache_clear()


@pytest.mark.parametrize("tz, is_south", [
    ("Pacific/Auckland", True),  # pins: as before
    (":Pacific/Auckland", True),  # pins
    ("Europe/Berlin", False),  # pins
    ("NZ", True),  # failed before: a link name no table lists
    ("Australia/NSW", True),  # failed before: a link as a copy, named by tzdata.zi
    ("posix/Pacific/Auckland", True),  # failed before
    ("right/Pacific/Auckland", True),  # failed before
    ("Pacific/Auckland ", True),  # failed before: a stray space
    ("Nowhere/Else", False),  # pins
    ("AEST-10", False),  # pins: a POSIX rule tells no place
])
def test_the_zone_a_tz_value_names_is_found(zones, monkeypatch, tz, is_south):
    monkeypatch.setenv("TZ", tz)
    assert periods.south() is is_south


def test_a_tz_value_that_is_a_path_to_a_zone_file(zones, monkeypatch):  # failed before
    monkeypatch.setenv("TZ", f":{zones}/NZ")
    assert periods.south() is True
    monkeypatch.setenv("TZ", f"{zones}/Europe/Berlin")
    assert periods.south() is False


# ------------------------------------------------------------------ a day of the month said alone

@pytest.mark.parametrize("query, expected", [
    # failed before: a second day joined by "and" was read alone (the 30th only)
    ("29日と30日に何があった？", [("29日", "2026-11-29", False), ("30日", "2026-11-30", False)]),
    ("29号和30号有什么安排？", [("29号", "2026-12-29", True), ("30号", "2026-12-30", True)]),
    ("29일과 30일에 뭐 있어?", [("29일", "2026-12-29", True), ("30일", "2026-12-30", True)]),
    # failed before: a clock time right after the day (read nothing)
    ("29日15時の会議は？", [("29日", "2026-12-29", True)]),
    ("29号3点开会吗？", [("29号", "2026-12-29", True)]),
    ("29일 3시에 뭐 있어?", [("29일", "2026-12-29", True)]),
    # pins
    ("２９日の会議は何時から？", [("２９日", "2026-12-29", True)]),
    ("29日にかけて何がある？", [("29日", "2026-12-29", True)]),
    ("12月29日と30日に何があった？", [("12月29日", "2025-12-29", False)]),
])
def test_a_day_alone_is_read(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query", [
    "3日にわたって何をした？",  # failed before: over three days, read as the 3rd
    "3日に渡って何があった？",  # failed before
    "3일에 걸쳐 뭐 했어?",  # failed before
    "3日12時間の作業は？",  # pins: three days and twelve hours
    "3일 12시간 뭐 했어?",  # pins
    "3日と半日かかった作業は？",  # pins: three and a half days
    "29号楼在哪里？",  # pins: a building
    "What did I note about 29日の会議?",  # pins: not told as Japanese
])
def test_a_count_of_days_or_a_thing_is_no_day(query):
    assert windows(query) == []
