"""Session transcripts: JSONL files of an agent's conversations, one reader per format.

The format is detected per file: the first line that a reader claims picks
the reader for the whole file (`FORMATS`, in order). Adding a format means
adding one module with:

* ``NAME`` (as in tag sources and the file page: ``"claude-code"``),
  ``AGENT`` (for people: ``"Claude Code"``) and ``SOURCE`` (the default tag
  ``source`` of its files);
* ``claims(obj) -> bool``: whether one parsed line is of this format;
* ``read(lines, options) -> Transcript``: the turns of the file, from an
  iterator of its parsed lines (read once, in order);
* optionally ``locate(path, session)``: what the file's place tells (a
  subagent's parent session).

Every reader yields the same `Turn` model (documents.py): one turn per
message, with its speaker, text, timestamp (aware UTC), line range and the
tool calls it made as compact lines (``[Edit src/app.py]``). What the calls
were given and gave back (an Edit's new text, a patch, a command's output)
is kept beside the turn as `documents.ToolText`, for keyword search only:
it never becomes text that is embedded; an output before the file's first
turn goes with that turn (`common.add_tool_output`). Thinking, reasoning,
images and file snapshots are left out.

Nothing is silently lost. Each of these is reported once per file, in
`Transcript.warnings`, in words that `problem_kind` recognises (``stats``
lists them under "problems" with that kind):

* ``not-a-transcript``: no line of a ``.jsonl`` file is a message of a known
  format (a data file): the file is not indexed and not tagged (`is_data_file`);
* ``no-turns``: a transcript in which no message has any text;
* ``unknown-lines``: lines of a kind its reader does not know, counted by kind, and lines that hold no turn
  (``{}``; a chat or Claude Code user message with nothing in it: "user message without text"; a tool's output
  in a file with no turn to keep it: "tool output before any turn", `common.place_early_outputs`);
* ``bad-lines``: lines that are not JSON objects;
* ``heartbeats``: OpenClaw heartbeat polls answered ``HEARTBEAT_OK``, left
  out of the index (they are dozens of identical chunks and say nothing);
* ``checkpoint-copy``: an OpenClaw ``*.checkpoint.*.jsonl`` whose every line
  is in its session's file, not indexed twice (`reader.checkpoint_copy_of`).

Lines are split on ``\\n`` only (JSON strings may hold U+2028 and other
characters that ``str.splitlines`` would treat as line breaks), so a turn's
line is the line an editor shows.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from ..reading import surrogates
from . import claude_code, codex, codex_legacy, generic, openclaw
from .common import Line, Options, Transcript, parse_timestamp, place_early_outputs
from .excerpt import tool_excerpt

__all__ = ["FORMATS", "NOT_A_TRANSCRIPT", "Options", "Transcript", "default_source", "is_data_file",
           "parse_timestamp", "parse_transcript", "problem_kind", "reader_named", "sniff_format", "tool_excerpt",
           "without_context"]

#: Readers in the order they are asked to claim a line (the specific before the generic).
FORMATS = (claude_code, openclaw, codex, codex_legacy, generic)
_AGENTS = "|".join(re.escape(agent) for agent in sorted({reader.AGENT for reader in FORMATS}))
_SESSION_CONTEXT = re.compile(rf"(?:{_AGENTS})(?: (?:session|subagent) .*| · .*)?")  # `common.context_line`
_DATE_LINE = re.compile(r"\[\d{4}-\d{2}-\d{2}[^\]\n]*\]")  # `chunking.date_context`


def without_context(text: str, kind: str) -> str:
    """A chunk's text without the lines chunking put before a transcript passage (the session's context line,
    then its date line): what the conversation itself says (a chunk of another `kind` is its text)."""
    if kind != "transcript":
        return text
    lines = text.split("\n")
    if lines and _SESSION_CONTEXT.fullmatch(lines[0]):
        lines.pop(0)
    if lines and _DATE_LINE.fullmatch(lines[0]):
        lines.pop(0)
    return "\n".join(lines) if any(line.strip() for line in lines) else text


#: How many bad lines a "not valid JSON" problem names before "…".
_LINES_NAMED = 5

#: The words of each kind of problem in a warning (see `problem_kind`).
_PROBLEM_WORDS = {
    "not-a-transcript": ": not a transcript:",
    "no-turns": "transcript with no conversation turn",
    "unknown-lines": "of an unknown kind skipped",
    "bad-lines": "not a JSON object, skipped",
    "heartbeats": "heartbeat turns not indexed",
    "checkpoint-copy": "an OpenClaw checkpoint copy of",
}


def problem_kind(warning: str) -> str | None:
    """The kind of a transcript problem ("not-a-transcript", "no-turns", "unknown-lines",
    "bad-lines", and what was left out on purpose: "heartbeats", "checkpoint-copy") a warning
    reports, or None for any other warning."""
    return next((kind for kind, words in _PROBLEM_WORDS.items() if words in warning), None)


def reader_named(name: str):
    """The reader module whose NAME is `name`, or None."""
    return next((reader for reader in FORMATS if reader.NAME == name), None)


def default_source(name: str | None) -> str:
    """The default tag ``source`` for a transcript of format `name`: the agent that wrote it, or
    "tachikoma" for a generic transcript."""
    reader = reader_named(name) if name else None
    return reader.SOURCE if reader else generic.SOURCE


def _detect(obj: dict):
    return next((reader for reader in FORMATS if reader.claims(obj)), None)


def parse_transcript(text, path: str, options: Options | None = None) -> Transcript:
    """Read a JSONL transcript: its format, turns, session context and warnings.

    `text` is the file's text, or its lines as ``text.split("\\n")`` would
    give them, one at a time (`reader` streams a large session from disk so
    that it is never held whole in memory).

    Never raises for bad content. A line that is not a JSON object is skipped
    and counted; the rest of the file is still read. Blank lines are ignored.
    Lines are parsed one at a time and handed to the reader as they come, so
    a long session is never held in memory as parsed JSON all at once.
    """
    options = options or Options()
    raw_lines = text.split("\n") if isinstance(text, str) else text
    bad: list[int] = []
    seen = 0
    last = [0, ""]  # the number and text of the last line read

    def parsed():
        nonlocal seen
        for number, raw in enumerate(raw_lines, 1):
            last[:] = number, raw
            stripped = raw.strip()
            if not stripped:
                continue
            seen += 1
            try:
                obj = surrogates.loads(stripped)
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict):
                yield Line(number, obj)
            else:
                bad.append(number)

    lines = parsed()
    before: list[Line] = []  # lines no reader claimed, before the first one a reader did
    reader = None
    for line in lines:
        before.append(line)
        reader = _detect(line.obj)
        if reader is not None:
            break
    if reader is None:
        result = Transcript()
        if seen:
            result.warnings.append(
                f"{path}: not a transcript: none of its {seen} lines is a message of a known "
                "format (Claude Code, OpenClaw, Codex, chat {role, content} or dialogue {speaker, text}); "
                "not indexed, and not tagged")
        return result  # an empty file (as an empty note): nothing lost, nothing to say

    result = reader.read(itertools.chain(before, lines), options)
    place_early_outputs(result)
    result.format = reader.NAME
    if hasattr(reader, "locate"):
        reader.locate(path, result.session)
    if bad:
        named = ", ".join(str(n) for n in bad[:_LINES_NAMED]) + (", …" if len(bad) > _LINES_NAMED else "")
        for _ in lines:  # a reader that stopped early: count the rest, to know the last line
            pass
        incomplete = bad[-1] == last[0] and last[1].strip() != ""
        note = "; the last line has no line break yet (still being written?)" if incomplete else ""
        result.warnings.append(f"{path}:{bad[0]}: {_count(len(bad))} not a JSON object, skipped "
                               f"(line {named}){note}")
    if result.unknown:
        kinds = ", ".join(f"{kind} ×{n}" for kind, n in result.unknown.most_common())
        result.warnings.append(f"{path}:{result.unknown_first}: {_count(sum(result.unknown.values()))} "
                               f"of an unknown kind skipped ({kinds})")
    if result.heartbeats:
        result.warnings.append(f"{path}: {result.heartbeats} heartbeat turns not indexed (polls answered "
                               "HEARTBEAT_OK: nothing to report)")
    elif not result.turns:
        result.warnings.append(f"{path}: {reader.AGENT} transcript with no conversation turn "
                               f"({_count(seen - len(bad))} read)")
    return result


def _count(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


#: Why a data file is not memory, in the words every face uses (stats, tagging).
NOT_A_TRANSCRIPT = "not a transcript: no line is a message of a known format"


def is_data_file(path: Path, size: int, max_bytes: int = 5_000_000) -> bool:
    """Whether a .jsonl file of `size` bytes is a data file, not a transcript: no line within
    `max_bytes` is a transcript message. An empty one is a session about to start (an agent creates
    the file before its first line), and one that cannot be read is not known to be data: neither is.
    The one test of what a transcript is, for stats, indexing's counts and tagging."""
    return size > 0 and sniff_format(path, max_bytes) == ""


def sniff_format(path: Path, max_bytes: int = 5_000_000) -> str | None:
    """The format NAME of a transcript file from its first recognisable line, read lazily.

    "" when no line within `max_bytes` is a transcript line (not a transcript),
    None when the file cannot be read. Cheap for real sessions: their first
    line or two decide.
    """
    from ..memory import open_regular

    try:
        with open_regular(path) as handle:  # never a FIFO: reading it would block
            read = 0
            for raw in handle:
                read += len(raw)
                if read > max_bytes:
                    return ""
                try:
                    obj = surrogates.loads(raw)
                except (ValueError, RecursionError):
                    continue
                if isinstance(obj, dict) and (reader := _detect(obj)) is not None:
                    return reader.NAME
    except OSError:
        return None
    return ""
