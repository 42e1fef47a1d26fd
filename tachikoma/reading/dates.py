"""The date of a memory, per chunk where it can be, and where that date came from.

Recency needs to know when what a chunk says was true. In order of trust:

1. ``transcript``: a transcript chunk is dated by its last turn with a
   timestamp (a transcript file by its last timestamped turn), because a
   session committed today may hold a conversation from last year.
2. ``frontmatter``: a note's ``updated``, else its ``date``.
3. ``path``: a ``YYYY-MM-DD`` in the file or folder name
   (``memory/2026-02-10.md``, ``2026-03-22/notes.md``), or the same with
   ``_`` or ``.`` between its parts, as Logseq names its journal pages
   (``journals/2026_02_10.md``) and Dendron its daily notes
   (``daily.journal.2026.02.10.md``); the deepest wins.
4. ``git``: the last commit that changed the file's content other than its
   quality tags (`gitutil.content_changes`): tachikoma's tagging commits and
   hand edits of tag keys alone do not count, so tagging never makes a
   memory younger and a fresh clone gives the same dates.
5. ``git-import``: the same, when that commit added many files at once
   (`gitutil.IMPORT_FILES`): a memory committed or moved in, so the date
   says when it was imported, not when it was written.
6. ``mtime``: the file's modification time (not in git, or changed since
   its last commit).

How far a date is trusted follows its source (`TRUST`): the first three
are the memory's **own** dates; a content **commit** is when the file was
last edited, a weaker sign of when what it says was true; an import or a
file time is **weak**: a copy, a clone or a first commit of an existing
memory sets them to today for every file at once. The ranking uses this
twice: a weak date never makes a memory look fresher than one half-life
(`ranking.recency_rule`), and a memory is superseded only by one whose date
is trusted at least as much as its own (`ranking.supersessions`). Each
result says how far its date was trusted (``date_trust``).

Evergreen memories (front matter ``evergreen: true``, the tag file's
``evergreen: true`` for a transcript, or a path matching the config's
``[ranking] evergreen`` globs) keep their date but get recency 1.0; their
explanation says "evergreen".

Everything here is pure; the indexer stores the dates and search picks one.
"""

from __future__ import annotations

import bisect
import re
from datetime import datetime, timezone

import numpy as np

from .documents import Chunk, Document

TRANSCRIPT_SOURCE, FRONTMATTER, PATH, GIT, GIT_IMPORT, MTIME, EVERGREEN = (
    "transcript", "frontmatter", "path", "git", "git-import", "mtime", "evergreen")
#: Every `date_source` a result can carry, best first ("evergreen" is shown as the recency reason).
SOURCES = (TRANSCRIPT_SOURCE, FRONTMATTER, PATH, GIT, GIT_IMPORT, MTIME)
#: How far a date is trusted, by source: the memory's own date, its last edit, or a weak date.
OWN, COMMIT, WEAK = "own", "commit", "weak"
TRUST = {TRANSCRIPT_SOURCE: OWN, FRONTMATTER: OWN, PATH: OWN, GIT: COMMIT, GIT_IMPORT: WEAK, MTIME: WEAK}
#: Per index into `SOURCES`: 2 own, 1 commit, 0 weak (what `ranking.supersessions` compares).
STRENGTH = tuple({OWN: 2, COMMIT: 1, WEAK: 0}[TRUST[s]] for s in SOURCES)

#: A date in a file or folder name: ``2026-02-10``, ``2026_02_10`` (Logseq's journals) or ``2026.02.10``
#: (Dendron's daily notes), one separator throughout ("2026-02.10" is none); with ``_`` or ``.`` a year from 1900
#: to 2199 (``lib-1000.10.10`` is a version).
_PATH_DATE = re.compile(r"(?<![0-9])([0-9]{4})([-_.])([0-9]{2})\2([0-9]{2})(?![0-9])")


def path_date(path: str) -> datetime | None:
    """The date (``YYYY-MM-DD``, ``YYYY_MM_DD`` or ``YYYY.MM.DD``) of the deepest path part naming a real date
    (its last one), as midnight UTC."""
    for part in reversed(path.split("/")):
        for match in reversed(list(_PATH_DATE.finditer(part))):
            year, separator, month, day = match.groups()
            if separator != "-" and not 1900 <= int(year) < 2200:
                continue  # "lib-1000.10.10", "v2.0001_02_03": a version, not a day
            try:
                return datetime(int(year), int(month), int(day), tzinfo=timezone.utc)
            except ValueError:
                continue  # 2026-02-30 is not a date
    return None


def _stamp(when: datetime | None) -> float | None:
    if not isinstance(when, datetime):
        return None
    if when.tzinfo is None:  # the readers make timestamps aware; a naive one is taken as UTC
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def last_turn_date(doc: Document) -> float | None:
    """A transcript's date: its last turn (in file order) that has a timestamp, as unix seconds."""
    for turn in reversed(doc.turns):
        stamp = _stamp(turn.timestamp)
        if stamp is not None:
            return stamp
    return None


def chunk_dates(doc: Document, chunks: list[Chunk]) -> list[float | None]:
    """Per chunk: the timestamp of the last timestamped turn within its lines (transcripts), else None.

    Works from line ranges alone, so it holds for any chunker that keeps
    them: a chunk covers the turns whose line lies in [line_start, line_end].
    """
    stamped = sorted((t.line, s) for t in doc.turns if (s := _stamp(t.timestamp)) is not None)
    if not stamped:
        return [None] * len(chunks)
    lines = [line for line, _ in stamped]
    out: list[float | None] = []
    for chunk in chunks:
        last = bisect.bisect_right(lines, chunk.line_end) - 1
        out.append(stamped[last][1] if last >= 0 and lines[last] >= chunk.line_start else None)
    return out


def front_matter_evergreen(meta: dict | None) -> bool:
    """Whether a front matter (or tag-file entry) says ``evergreen: true`` (key in any case)."""
    for key, value in (meta or {}).items():
        if str(key).strip().lower() == "evergreen":
            return value is True or (isinstance(value, str) and value.strip().lower() == "true")
    return False


def choose(chunk_date: np.ndarray, turn_date: np.ndarray, fm_date: np.ndarray, path_date: np.ndarray,
           git_date: np.ndarray, mtime: np.ndarray,
           git_import: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the first date present in source order and the index of its source in `SOURCES`.

    Every argument is a float array of unix seconds with NaN for "none";
    `mtime` is always present. A chunk date (transcript chunk) comes before
    its file's last turn. `git_import` (bool) marks git dates made by an import.
    """
    transcript = np.where(np.isnan(chunk_date), turn_date, chunk_date)
    imported = np.zeros(len(git_date), dtype=bool) if git_import is None else np.asarray(git_import, dtype=bool)
    candidates = np.vstack([transcript, fm_date, path_date, np.where(imported, np.nan, git_date),
                            np.where(imported, git_date, np.nan), mtime])
    present = ~np.isnan(candidates)
    present[-1] = True
    source = np.argmax(present, axis=0)
    date = np.take_along_axis(np.nan_to_num(candidates, nan=0.0), source[None, :], axis=0)[0]
    return date, source
