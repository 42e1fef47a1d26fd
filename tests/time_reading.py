"""What the tests of time reading compare: each time `timeq.read_spans` reads in a question."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from tachikoma.when import timeq

Read = list[tuple[str, str, bool]]


def windows_at(asked: datetime | None = None) -> Callable[..., Read]:
    """`windows(query, now=asked, ahead=None)`: (phrase, label, ahead) of each time read in `query` asked at `now`
    (`ahead`: whether the question asks about what is coming, None to let `timeq` tell)."""
    def windows(query: str, now: datetime | None = asked, ahead: bool | None = None) -> Read:
        return [(w.phrase, w.label, w.ahead) for _, _, w in timeq.read_spans(query, now, ahead=ahead)]
    return windows
