"""A test helper: whether lines are kept in order (the tag-file and front matter fuzzing's property)."""

from __future__ import annotations


def missing_in_order(needles: list[str], haystack: list[str]) -> str | None:
    """None when `needles` appear in `haystack` in order, else the first missing one."""
    position = 0
    for needle in needles:
        try:
            position = haystack.index(needle, position) + 1
        except ValueError:
            return needle
    return None
