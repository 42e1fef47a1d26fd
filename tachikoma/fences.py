"""Fenced code blocks in markdown, followed line by line (CommonMark's rules, simplified).

The chunker and the dashboard's file page both need to know which lines are
code, so that a ``#`` line in a code block is no heading and a blank line in
one does not end a block; they share this one tracker so that a page splits
a note exactly where its chunks do.

A fence opens with a line of three or more backticks or tildes, indented by
at most three spaces; a backtick fence whose info string holds a backtick is
not a fence. It closes with a line holding only the same character, at
least as many times, and spaces.
"""

from __future__ import annotations

import re

_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class FenceTracker:
    """Feed it a note's lines in order; `code(line)` says whether each belongs to a fenced block."""

    def __init__(self) -> None:
        self.fence: str | None = None  # the open fence's marker, e.g. "```"

    def code(self, line: str) -> bool:
        """True for an opening or closing fence line and every line between them."""
        if self.fence is not None:
            closing = line.strip()
            if closing.startswith(self.fence) and set(closing) == {self.fence[0]}:
                self.fence = None
            return True
        opening = _OPENING.match(line)
        if opening is None or (opening.group(1)[0] == "`" and "`" in line[opening.end():]):
            return False
        self.fence = opening.group(1)
        return True
