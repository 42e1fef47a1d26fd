"""Fenced code blocks in markdown, followed line by line (CommonMark's rules, simplified).

The chunker and the dashboard's file page both need to know which lines are
code, so that a ``#`` line in a code block is no heading and a blank line in
one does not end a block; they share this one tracker so that a page splits
a note exactly where its chunks do.

A fence opens with a line of three or more backticks or tildes, indented by
at most three spaces, or after a list item's marker (``- ```bash``, ``1. ~~~``,
at any depth: Logseq writes every block so, and markdown lists often do); a
backtick fence whose info string holds a backtick is not a fence. It closes
with a line holding only the same character, at least as many times, and
spaces. A list item's fence also ends, as CommonMark ends it, with its item:
at the first line that is not blank and is indented less than the item's
text (``  ```` `` under ``- ```bash``; a tab counts to the next multiple of
four columns), which is then read as any line; a closing fence indented less
still closes it (a note written so means it).
"""

from __future__ import annotations

import re

_OPENING = re.compile(r"^(?:(?P<item>[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+)| {0,3})(?P<fence>`{3,}|~{3,})")


def _width(text: str) -> int:
    """The columns `text` (spaces, tabs, a list marker) spans from the start of a line, a tab to the next multiple
    of four (CommonMark's tab stop)."""
    column = 0
    for ch in text:
        column = column + 4 - column % 4 if ch == "\t" else column + 1
    return column


class FenceTracker:
    """Feed it a note's lines in order; `code(line)` says whether each belongs to a fenced block."""

    def __init__(self) -> None:
        self.fence: str | None = None  # the open fence's marker, e.g. "```"
        self.column: int | None = None  # a list item's fence: the column its item's text starts at

    def code(self, line: str) -> bool:
        """True for an opening or closing fence line and every line between them."""
        if self.fence is not None:
            closing = line.strip()
            closes = closing.startswith(self.fence) and set(closing) == {self.fence[0]}
            if (not closes and closing and self.column is not None
                    and _width(line[:len(line) - len(line.lstrip(" \t"))]) < self.column):
                self.fence = self.column = None  # its list item ended, and the code block with it
                return self.code(line)
            if closes:
                self.fence = self.column = None
            return True
        opening = _OPENING.match(line)
        if opening is None or (opening["fence"][0] == "`" and "`" in line[opening.end():]):
            return False
        self.fence = opening["fence"]
        self.column = _width(opening["item"]) if opening["item"] else None
        return True
