"""Split a Document into Chunks small enough to embed.

Words are whitespace-separated tokens (``str.split``). Every chunk's own text
holds at most `max_words` words; a chunk may carry one extra *context line*
in front (a markdown heading path or a transcript's dates, see below). Line
numbers are file line numbers.

Markdown
    The body is cut into sections at ATX headings (``#`` to ``######``;
    ``#`` lines inside ``` or ~~~ fenced code blocks are not headings), and at
    a bullet holding one, as outliners write them (Logseq's ``- ## What it
    is``, at any indentation; ``- #tag`` is none). Text before the first
    heading is a section of its own. Lines that say nothing are left out of
    the chunks, their line numbers kept: Logseq's ``id:: <uuid>`` and
    ``collapsed:: true``; and so are its ``((block refs))`` (not resolved:
    their id would only be keyword noise).

    Consecutive sections are merged into one chunk when they fit within
    `max_words` together. Where a group that does not fit is cut depends on
    the headings alone: each heading gets a *rank*, a hash of it and the
    headings above it. The whole note is one chunk if it fits; otherwise it
    is cut before its highest-ranked heading and each side is treated the
    same way, down to single sections. Because sizes only decide *whether* a group is cut,
    never *where*, editing one section can only reshape the group that holds
    it: every chunk outside that group (before or after the edit) keeps its
    exact text, and so its embedding. (Greedy packing from the top would
    shift every later chunk when one early section grows, and every chunk of
    a log that gets new entries on top.) The price is a few more, smaller
    chunks than greedy packing would make.

    A section bigger than `max_words` is split on its own: at paragraph
    (blank line) boundaries, a paragraph that is still too big at line
    boundaries, a line at sentence boundaries (。！？ too), a sentence between
    words, and a run of a script written without spaces (Chinese, Japanese,
    Thai, …) every `RUN_CHARACTERS_PER_WORD` characters.

    Words are counted between spaces, except in such runs: there every
    `RUN_CHARACTERS_PER_WORD` characters count as a word (`word_count`), so a
    Japanese note is cut into chunks of about the length the embedder reads
    (before, a paragraph without spaces was one word, and a Japanese or
    Chinese note one chunk of thousands of characters, most of them past the
    embedder's window).
    Each piece after the first starts with an overlap of about
    `overlap_words` words (default 15% of `max_words`) from the end of the
    previous piece, taken in the largest units that fit.

    Context line: a chunk whose first section is under a heading gets the
    heading path, e.g. ``"Parent › Child"``, as its first line, unless the
    chunk starts with that section's own heading line and the heading has no
    parents (then the heading says it all). Continuation pieces of a split
    section therefore always name where they are. The context line is not
    counted in `max_words`. A note's first chunk opens, before it, with what
    the note's front matter names it (`front_matter_line`: its title, other
    names and description, as Claude Code's memory notes and Obsidian write
    them), or a Logseq page's name and ``alias::`` names (`Document.names`;
    front matter's win where both give one).

Transcripts
    Each turn is rendered ``"speaker: text"``. Consecutive turns are packed
    into windows of at most `max_words` words; each window after the first
    starts again with the previous window's last turn when both fit, so a
    question and its answer are never only seen apart. A turn that alone
    exceeds the budget is split into pieces, each rendered ``"speaker: ..."``
    and all with that turn's lines: between its lines (paragraphs, tool lines)
    where they fit, a line that alone is too long at sentences, then words,
    each piece after the first opening with an overlap of about
    `overlap_words` words.

    Turns are rendered with their tool lines (``"assistant: Done.\\n[Edit
    a.py]"``). The turns of each thread (a subagent's conversation inside
    its parent's file) are windowed on their own, so parallel subagents never
    share a chunk. Since windows are packed from the first turn, appending
    to a session changes only its last window and adds new ones: the chunks
    before keep their text, and so their vectors.

    Tool texts: what a turn's tool calls were given and gave back (an Edit's
    new text, a patch, a command's output: `documents.ToolText`) is never
    part of a chunk's text, so never embedded. It goes with the first chunk
    that holds its turn (`Chunk.tool_texts`), where keyword search finds it
    (`keyword_words`).

    Context lines: a session's context (agent, session id, folder, git
    branch, model, as its reader found them at the window's last turn), then
    the date line. When turns of a chunk carry timestamps, the chunk starts
    with the day (or days) they were said on, as an ISO date and spelled out
    in English, e.g. ``"[2023-05-08, Monday 8 May 2023]"`` or, for a chunk
    spanning days, ``"[2023-05-08 – 2023-05-10, Monday 8 May – Wednesday 10
    May 2023]"``, so that both keyword search and the embedder can match
    "May 2023", "8 May", "Monday" or "2023-05-08". Days are UTC days (the
    transcript reader normalises every timestamp to UTC; naive ones are
    taken as UTC), and names come from fixed tables, never the locale. Turns
    without a timestamp are left out of the range; a chunk none of whose
    turns has one gets no line. Like the heading path, the line is not
    counted in `max_words` and does not change the chunk's line range.

Chunking is deterministic: the same document always gives the same chunks.
An index records the `signature` of the chunking it was built with; when
the rules (`VERSION`, which a change to what a reader keeps bumps too) or the
embedder's window change, the indexer reads and chunks every file again
(chunks whose text did not change keep their vectors).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import cached_property

from .reading.documents import MARKDOWN, TRANSCRIPT, Chunk, Document, Turn
from .fences import FenceTracker
from .language.segment import has_runs, run_characters

#: Bump when a change to the rules gives other chunks for the same document and window.
#: 5: transcript chunks carry their turns' tool texts (keyword only).
#: 6: words of scripts written without spaces counted by characters (`word_count`), cut at 。！？ and inside runs.
#: 7: a transcript's tool output before its first turn kept with that turn (the reader's rule, so a session
#:    indexed before is read again though its file did not change).
#: 8: a note's first chunk opens with what its front matter names it (`front_matter_line`).
#: 9: a Logseq page's first chunk opens with its name and aliases too (`Document.names`).
#: 10: a bullet holding a heading (``- ## What it is``) is a heading (`_BULLET_HEADING`).
#: 11: Logseq's ``id:: <uuid>`` and ``collapsed:: true`` lines and ``((block refs))`` left out (`_NO_CONTENT`).
#: 12: a code block opened after a list item's marker (``- ```bash``) is code, to its fence or its item's end
#:     (`fences`): its ``# comment`` is no heading, its closing fence opens nothing.
VERSION = 12
#: Characters of a run of a script written without spaces (`segment.run_characters`) that count as one word: a
#: Chinese or Japanese word is one to three characters, and MiniLM reads about one token a character there.
RUN_CHARACTERS_PER_WORD = 2
#: Separator between heading titles in a context line.
PATH_SEPARATOR = " › "
DEFAULT_OVERLAP = 0.15

#: An ATX heading; its text (group 2) is tidied by `_heading_title`. Every pattern here that reads a line to its end
#: takes the rest of it greedily: a lazy ``(.*?)[ \t]*$`` costs the square of a run of spaces in the line.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")
#: A heading an outliner writes as a bullet (Logseq's ``- ## What it is``, at any indentation): as CommonMark reads
#: a heading in a list item, ``#`` to ``######`` then a space, so ``- #tag`` and ``- #1 priority`` are no headings.
_BULLET_HEADING = re.compile(r"^[ \t]*[-*+][ \t]+(#{1,6})[ \t]+(\S.*)$")
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
#: A property line that says nothing: Logseq's block id (``id:: 6a1f0c2e-…``, what a ``((block ref))`` points at) and
#: a block's folding (``collapsed:: true``). Left out of a chunk's text, its line numbers kept.
_NO_CONTENT = re.compile(rf"^[ \t]*(?:[-*+][ \t]+)?(?:id::[ \t]*{_UUID}|collapsed::[ \t]*(?:true|false))[ \t]*$",
                         re.IGNORECASE)
#: A Logseq block reference, ``((6a1f0c2e-…))``: not resolved (the block's text is where it is), and left out of a
#: chunk's text with the space before it, so its id is no keyword.
_BLOCK_REF = re.compile(rf"[ \t]?\(\({_UUID}\)\)", re.IGNORECASE)
#: Where a line is cut into sentences; the separator kept (empty after 。！？, which need no space).
_SENTENCE_END = re.compile(r"((?<=[.!?…])\s+|(?<=[。！？])(?=\S))")
#: Between the first and last day of a transcript chunk's date line.
DATE_RANGE_SEPARATOR = " – "
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


#: What a chunking signature says when its index was made with secrets redacted (`signature`, `redacted`).
REDACTED = ", secrets redacted"


def signature(max_words: int, tool_errors: bool = False, tool_text: bool = True, redact: bool = True) -> str:
    """What an index records of how its chunks were cut: the rules' version, the window,
    whether transcripts' failing tool calls carry an excerpt (``[transcripts] tool_errors``),
    whether their tool texts are kept for keyword search (``[transcripts] tool_text``) and whether
    secrets were redacted (``[privacy] redact_secrets``: an index from before redaction has not)."""
    return (f"v{VERSION}, {max_words} words" + (", tool errors" if tool_errors else "")
            + ("" if tool_text else ", no tool text") + (REDACTED if redact else ""))


def redacted(signature: str | None) -> bool:
    """Whether an index whose chunking signature is `signature` was made with its secrets redacted."""
    return REDACTED in (signature or "")


def chunk_document(doc: Document, max_words: int, overlap_words: int | None = None) -> list[Chunk]:
    """The chunks of `doc`, indexed from 0, in file order."""
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    if overlap_words is None:
        overlap_words = int(max_words * DEFAULT_OVERLAP)
    if not 0 <= overlap_words < max_words:
        raise ValueError("overlap_words must be at least 0 and less than max_words")
    if doc.kind == MARKDOWN:
        pieces = _chunk_markdown(doc.text, doc.body_line, max_words, overlap_words)
        if pieces and (named := front_matter_line({**doc.names, **doc.meta}, pieces[0][0])):
            pieces[0] = (_with_context(named, pieces[0][0]), *pieces[0][1:])
    elif doc.kind == TRANSCRIPT:
        pieces = _chunk_turns(doc.turns, max_words, overlap_words)
    else:
        raise ValueError(f"unknown document kind {doc.kind!r}")
    return [Chunk(index=i, text=piece[0], line_start=piece[1], line_end=piece[2],
                  tool_texts=list(piece[3]) if len(piece) > 3 else [])
            for i, piece in enumerate(pieces)]


#: Separators of words that the keyword index's tokenizer (FTS5 unicode61) also splits at: ASCII
#: white space, punctuation and symbols. Other characters are left for the tokenizer to split.
_ASCII_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
#: Longest word kept from tool text: longer runs are encoded data (base64, minified code), not words.
TOOL_WORD_CHARS = 64
#: Most distinct words kept from one tool text (a whole file read or written): its first ones.
TOOL_TEXT_WORDS = 5_000


def keyword_words(text: str, limit: int = TOOL_TEXT_WORDS) -> str:
    """The distinct words of `text` in first-seen order, lower-cased and space-separated: all that
    keyword search needs of a tool text (queries match single words, never phrases), at a
    fraction of its size. Words are split only where the keyword index splits them too."""
    words = dict.fromkeys(w for w in _ASCII_SEPARATORS.split(text.lower()) if 0 < len(w) <= TOOL_WORD_CHARS)
    return " ".join(list(words)[:limit]) if len(words) > limit else " ".join(words)


# ---------------------------------------------------------------- pieces

@dataclass
class _Atom:
    """A run of text with the file lines it came from.

    `joiner` says how it attaches to the atom before it ("\\n\\n" between
    paragraphs, "\\n" between lines, " " within a line, "" within a run);
    `level` is how finely it was cut (0 paragraph, 1 line, 2 sentence, 3
    word, 4 a piece of a run of a script written without spaces).
    """

    text: str
    start: int
    end: int
    joiner: str
    level: int
    words: int = field(init=False)

    def __post_init__(self) -> None:
        self.words = 1 if self.level == 4 else word_count(self.text)


def word_count(text: str) -> int:
    """The words of `text` for the chunk budget: between spaces, and in a run of a script written without
    spaces every `RUN_CHARACTERS_PER_WORD` characters ("歯医者の予約は金曜日" counts 5)."""
    if text.isascii() or not has_runs(text):
        return len(text.split())
    count = 0
    for word in text.split():
        run = run_characters(word)
        count += -(-run // RUN_CHARACTERS_PER_WORD) + (run < len(word)) if run else 1
    return count


def _render(atoms: list[_Atom]) -> str:
    out = []
    for i, atom in enumerate(atoms):
        if i:
            out.append(atom.joiner)
        out.append(atom.text)
    return "".join(out)


def _subdivide(atom: _Atom) -> list[_Atom]:
    """`atom` cut one level finer (a single word cannot be cut: returns [atom])."""
    if atom.level == 0:  # paragraph → lines
        lines = atom.text.split("\n")
        return [_Atom(line.strip(), atom.start + i, atom.start + i, "\n" if i else atom.joiner, 1)
                for i, line in enumerate(lines) if line.strip()]
    if atom.level == 1:  # line → sentences
        cut = _SENTENCE_END.split(atom.text)  # sentence, separator, sentence, …: " " after ". ", "" after "。"
        parts = [(cut[i].strip(), " " if i and cut[i - 1] else "") for i in range(0, len(cut), 2) if cut[i].strip()]
        if len(parts) > 1:
            return [_Atom(text, atom.start, atom.end, joiner if i else atom.joiner, 2)
                    for i, (text, joiner) in enumerate(parts)]
    if atom.level == 3:  # a word: a run of a script written without spaces → pieces of a word each
        size = RUN_CHARACTERS_PER_WORD
        if atom.words <= 1:
            return [atom]
        return [_Atom(atom.text[i:i + size], atom.start, atom.end, "" if i else atom.joiner, 4)
                for i in range(0, len(atom.text), size)]
    words = atom.text.split()
    if len(words) <= 1:
        return [_Atom(atom.text, atom.start, atom.end, atom.joiner, 3)] if atom.words > 1 else [atom]
    return [_Atom(w, atom.start, atom.end, " " if i else atom.joiner, 3) for i, w in enumerate(words)]


def _fit(atoms: list[_Atom], budget: int) -> list[_Atom]:
    """Cut atoms finer until each holds at most `budget` words."""
    out: list[_Atom] = []
    stack = list(reversed(atoms))
    while stack:
        atom = stack.pop()
        finer = [atom] if atom.words <= budget or atom.level == 4 else _subdivide(atom)
        if finer == [atom]:
            out.append(atom)
        else:
            stack.extend(reversed(finer))
    return out


def _overlap(previous: list[_Atom], budget: int) -> list[_Atom]:
    """The tail of `previous` worth at most `budget` words, in the largest units that fit."""
    taken: list[_Atom] = []
    used = 0
    pending = list(previous)
    while pending and used < budget:
        atom = pending.pop()
        if used + atom.words <= budget:
            taken.append(atom)
            used += atom.words
        elif not taken and (finer := _subdivide(atom)) != [atom]:
            pending.extend(finer)
        else:
            break
    taken.reverse()
    return taken


def _pack(atoms: list[_Atom], max_words: int, overlap_words: int) -> list[list[_Atom]]:
    """Greedy pieces of at most `max_words`, each after the first opening with an overlap."""
    pieces: list[list[_Atom]] = []
    current: list[_Atom] = []
    used = 0
    for atom in _fit(atoms, max_words):
        if current and used + atom.words > max_words:
            pieces.append(current)
            current = _overlap(current, min(overlap_words, max_words - atom.words))
            used = sum(a.words for a in current)
        current.append(atom)
        used += atom.words
    if current:
        pieces.append(current)
    return pieces


# ---------------------------------------------------------------- markdown

def _rank(headings: list[tuple[int, str]]) -> int:
    """Where a section's heading cuts a group that does not fit: higher ranks cut first.

    A hash of the heading and the headings above it (so "### Summary" under
    different dates ranks differently). It depends on headings alone, never on
    sizes or on the text of any section.
    """
    key = "\n".join(f"{level} {title}" for level, title in headings)
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


@dataclass
class _Section:
    path: tuple[str, ...]  # heading titles, outermost first; () before the first heading
    heading: bool  # its first line is its heading
    lines: list[tuple[int, str]]  # (file line, text)
    rank: int = 0

    @cached_property
    def words(self) -> int:  # read once its lines are all in (`_sections`)
        return sum(word_count(text) for _, text in self.lines)


def read_line(line: str) -> str | None:
    """A note's line outside a code block as its chunks hold it: None for a line that says nothing (`_NO_CONTENT`:
    Logseq's ``id:: <uuid>`` and ``collapsed:: true``), else the line without its block references (`_BLOCK_REF`).
    A budgeted reply reads a note's paragraphs by this rule too (`replies.recall.note_units`)."""
    if "::" in line and _NO_CONTENT.match(line):
        return None
    return _BLOCK_REF.sub("", line) if "((" in line else line


def heading(line: str) -> tuple[int, str] | None:
    """A heading line's level and title as the chunker reads one: ``## What it is`` (after at most three spaces, as
    CommonMark has it), or a bullet holding one at any depth (``- ## What it is``, as outliners write it), its
    closing hashes left out; None for any other line (``- #tag``, ``#1 priority``). The dashboard's snippets show a
    heading's title alone by this rule (`web.render.plain`)."""
    found = _HEADING.match(line) or _BULLET_HEADING.match(line)
    if found is None:
        return None
    return len(found.group(1)), _heading_title(found.group(2) or "")


def _sections(text: str, first_line: int) -> list[_Section]:
    sections = [_Section(path=(), heading=False, lines=[])]
    stack: list[tuple[int, str]] = []
    fences = FenceTracker()
    for i, line in enumerate(text.split("\n")):
        number = first_line + i
        code = fences.code(line)
        if not code and (line := read_line(line)) is None:
            continue
        if not code and (found := heading(line)) is not None:
            level, title = found
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            sections.append(_Section(tuple(t for _, t in stack), True, [], _rank(stack)))
        sections[-1].lines.append((number, line))
    return [s for s in sections if s.words]


def _heading_title(text: str) -> str:
    """A heading's text without the space around it and its closing #s (``## Title ##`` is "Title"; ``C#`` keeps
    its #, which no space is before), in one pass over it."""
    title = text.rstrip(" \t")
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        title = bare
    return title.strip()


def _context(section: _Section, starts_at_heading: bool) -> str:
    titles = [t for t in section.path if t]
    parents = [t for t in section.path[:-1] if t]
    if not titles or (starts_at_heading and not parents):
        return ""
    return PATH_SEPARATOR.join(titles)


def _with_context(context: str, text: str) -> str:
    return f"{context}\n{text}" if context else text


def _whole(sections: list[_Section]) -> tuple[str, int, int]:
    lines = [(n, t) for s in sections for n, t in s.lines]
    while not lines[0][1].strip():
        lines.pop(0)
    while not lines[-1][1].strip():
        lines.pop()
    text = "\n".join(t.rstrip() for _, t in lines)
    first = sections[0]
    return _with_context(_context(first, first.heading), text), lines[0][0], lines[-1][0]


def _split_section(section: _Section, max_words: int, overlap_words: int) -> list[tuple[str, int, int]]:
    paragraphs: list[_Atom] = []
    block: list[tuple[int, str]] = []
    for number, line in section.lines + [(0, "")]:
        if line.strip():
            block.append((number, line.rstrip()))
        elif block:
            paragraphs.append(_Atom("\n".join(t for _, t in block), block[0][0], block[-1][0], "\n\n", 0))
            block = []
    out = []
    for i, piece in enumerate(_pack(paragraphs, max_words, overlap_words)):
        context = _context(section, section.heading and i == 0)
        out.append((_with_context(context, _render(piece)), piece[0].start, max(a.end for a in piece)))
    return out


def _chunk_markdown(text: str, first_line: int, max_words: int, overlap_words: int) -> list[tuple[str, int, int]]:
    sections = _sections(text, first_line)
    before = [0]  # before[i]: words in sections[:i]
    for section in sections:
        before.append(before[-1] + section.words)
    out: list[tuple[str, int, int]] = []
    todo = [(0, len(sections))] if sections else []
    while todo:  # depth first, left to right: chunks come out in file order
        lo, hi = todo.pop()
        if before[hi] - before[lo] <= max_words:
            out.append(_whole(sections[lo:hi]))
        elif hi - lo == 1:
            out.extend(_split_section(sections[lo], max_words, overlap_words))
        else:
            top = max(sections[i].rank for i in range(lo + 1, hi))
            # Equal ranks come from repeated identical headings: cut at the middle one.
            tied = [i for i in range(lo + 1, hi) if sections[i].rank == top]
            cut = tied[(len(tied) - 1) // 2]
            todo += [(cut, hi), (lo, cut)]
    return out


#: Front matter keys that name a note (Claude Code's memory notes write `name`), give it other names (Obsidian's
#: `aliases`) or say what it holds (Claude Code's `description`), read in this order.
TITLE_KEYS, ALIAS_KEYS, DESCRIPTION_KEYS = ("title", "name"), ("aliases", "alias"), ("description", "summary")
#: The longest front matter line a chunk opens with, in characters (a description pasted whole is cut).
FRONT_MATTER_CHARS = 300


def front_matter_line(meta: dict, text: str) -> str:
    """What a note's front matter says it is, for its first chunk's first line (embedded and found by keyword, as a
    heading path is, and not counted in `max_words`): its title, its other names, its description, each left out
    when `text` (the chunk) already holds it: "Webhook retry policy: the retry policy decided for outgoing
    merchant webhooks", "also Prof. Kessler, HK". "" when it says none of these: only text values count (a list of
    aliases, each text)."""
    lowered = {str(k).strip().lower(): v for k, v in (meta or {}).items()}
    held = " ".join(text.split()).casefold()

    def texts(keys: tuple[str, ...]) -> list[str]:
        """The text values of `keys`, each once, none the chunk holds: as many as the line can show (a page's
        `alias::` may list thousands, each compared once)."""
        values = [lowered[k] for k in keys if k in lowered]
        said: dict[str, None] = {}
        length = 0
        for found in (v for value in values for v in (value if isinstance(value, list) else [value])):
            if not isinstance(found, str) or not found.strip():
                continue
            text = " ".join(found.split())
            if text in said or text.casefold() in held:
                continue
            said[text] = None
            length += len(text) + 2
            if length > FRONT_MATTER_CHARS:
                break
        return list(said)

    title, others, about = texts(TITLE_KEYS)[:1], texts(ALIAS_KEYS), texts(DESCRIPTION_KEYS)[:1]
    names = title[0] if title else ""
    if others:
        names = f"{names} (also {', '.join(others)})" if names else f"also {', '.join(others)}"
    return ": ".join(part for part in (names, *about) if part)[:FRONT_MATTER_CHARS].rstrip()


# ---------------------------------------------------------------- transcripts

def _render_turn(turn: Turn) -> str:
    return f"{turn.speaker}: {turn.body}"


def _day(stamp: datetime) -> date:
    """The UTC day of a timestamp (a naive one is taken as UTC, never as local time)."""
    if stamp.tzinfo is not None and stamp.utcoffset() is not None:
        stamp = stamp.astimezone(timezone.utc)
    return stamp.date()


def _spelled(day: date, year: bool = True) -> str:
    out = f"{_WEEKDAYS[day.weekday()]} {day.day} {MONTH_NAMES[day.month - 1]}"
    return f"{out} {day.year}" if year else out


def date_context(turns: list[Turn]) -> str:
    """The date line of a chunk holding `turns`: ``"[2023-05-08, Monday 8 May 2023]"``; "" without timestamps."""
    days = sorted({_day(t.timestamp) for t in turns if isinstance(t.timestamp, datetime)})
    if not days:
        return ""
    first, last = days[0], days[-1]
    if first == last:
        return f"[{first.isoformat()}, {_spelled(first)}]"
    spelled = _spelled(first, year=first.year != last.year) + DATE_RANGE_SEPARATOR + _spelled(last)
    return f"[{first.isoformat()}{DATE_RANGE_SEPARATOR}{last.isoformat()}, {spelled}]"


def _chunk_turns(turns: list[Turn], max_words: int, overlap_words: int) -> list[tuple]:
    """Windows of turns; the turns of each thread (a subagent inside its parent's file) are
    windowed apart, so parallel subagents never share a chunk."""
    threads: dict[str, list[Turn]] = {}
    for turn in turns:
        threads.setdefault(turn.thread, []).append(turn)
    if len(threads) == 1:
        return _chunk_thread(turns, max_words, overlap_words)
    pieces = [piece for thread in threads.values() for piece in _chunk_thread(thread, max_words, overlap_words)]
    return sorted(pieces, key=lambda piece: (piece[1], piece[2]))


def _window_context(turns: list[Turn]) -> str:
    """The context lines of a window: its session (as of its last turn) and its dates."""
    return "\n".join(line for line in (turns[-1].context, date_context(turns)) if line)


def _chunk_thread(turns: list[Turn], max_words: int, overlap_words: int) -> list[tuple]:
    """Windows of one thread's turns: (text, first line, last line, tool texts). A turn's tool texts
    go with the first window that holds it, so an overlap never finds them twice."""
    out: list[tuple] = []
    window: list[tuple[Turn, str, int]] = []
    used = 0
    placed: set[int] = set()  # turns whose tool texts have a window

    def emit() -> None:
        text = "\n".join(text for _, text, _ in window)
        context = _window_context([turn for turn, _, _ in window])
        tools = [tool for turn, _, _ in window if id(turn) not in placed for tool in turn.tool_texts]
        placed.update(id(turn) for turn, _, _ in window)
        out.append((_with_context(context, text), window[0][0].line, max(t.last_line for t, _, _ in window), tools))

    for turn in turns:
        text = _render_turn(turn)
        words = word_count(text)
        if words > max_words:
            if window:
                emit()
            out.extend(_split_turn(turn, max_words, overlap_words))
            window, used = [], 0
            continue
        if window and used + words > max_words:
            emit()
            last = window[-1]
            window = [last] if last[2] + words <= max_words else []
            used = sum(w for _, _, w in window)
        window.append((turn, text, words))
        used += words
    if window:  # it always holds a turn not emitted yet: overlap only comes with a new turn
        emit()
    return out


def _split_turn(turn: Turn, max_words: int, overlap_words: int) -> list[tuple]:
    """Pieces of a turn too long for one window, each ``"speaker: ..."``: cut between its lines
    (paragraphs, tool lines) where they fit, a line that alone is too long at sentences, then
    words, as a markdown section is; each piece after the first opens with an overlap."""
    label = f"{turn.speaker}:"
    context = _window_context([turn])
    budget = max(1, max_words - word_count(label))
    overlap = min(overlap_words, budget - 1)
    lines = [line.strip() for line in turn.body.split("\n") if line.strip()]
    atoms = [_Atom(line, turn.line, turn.last_line, "\n", 1) for line in lines]
    return [(_with_context(context, f"{label} {_render(piece)}"), turn.line, turn.last_line,
             turn.tool_texts if i == 0 else [])
            for i, piece in enumerate(_pack(atoms, budget, overlap))]
