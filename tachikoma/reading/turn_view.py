"""A transcript as an agent should read it: its turns (speaker, time, text, tool lines), not its JSONL.

Raw session lines carry base64 images, whole tool outputs and thinking; handed to a model they
flood its context. The turns are what the readers (`transcripts`) make of those lines, as the
index embeds them and the dashboard's transcript view shows them. A line range is honoured: only
those lines are read and parsed, so a session larger than ``max_file_bytes`` can be read in parts.
"""

from __future__ import annotations

from pathlib import Path

from .. import memory
from ..errors import TachikomaError
from ..humanize import printable
from .documents import TRANSCRIPT
from .reader import BINARY_SNIFF_BYTES, unreadable_reason
from ..transcripts import Options, parse_transcript

VIEWS = ("turns", "raw")


def read_for_agent(root: Path, rel_path: str, lines: str | None = None, view: str = "turns",
                   max_bytes: int = 5_000_000, redact: bool = True,
                   exclude: memory.Exclusion = memory.NO_EXCLUSION) -> dict:
    """`memory.read_text`, and for a transcript in the "turns" view its turns instead of its lines:
    ``{"path", "lines", "total_lines", "view", "context", "turns": [{"line", "last_line", "speaker",
    "time", "text", "actions"}]}``: "context" is the session line (agent, session, folder, branch, model).
    Each turn's text is there once: MCP's structured content is this, and its text content writes the turns
    out quoted (`mcp_answers.read_text`; a turn's text written out unquoted could pass for a turn heading).
    `redact`: secrets as markers; `exclude`: what ``[index] exclude`` leaves out is refused (`memory.read_text`), and so
    is a file the index does not read as text (UTF-16, binary: `reader.unreadable_reason`).

    ``view`` says what the answer holds, not what was asked: "turns", a transcript's JSONL lines ("raw"), or a
    note's lines ("text", whichever view was asked: a note has neither turns nor JSONL)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}: use {' or '.join(VIEWS)}")
    read = memory.read_text(root, rel_path, lines, max_bytes, redact=redact, exclude=exclude)
    with memory.open_regular(memory.safe_path(root, rel_path)) as handle:
        unreadable = unreadable_reason(handle.read(BINARY_SNIFF_BYTES))
    if unreadable is not None:  # as the index and the dashboard say it, not its bytes as text (NULs and all)
        raise TachikomaError(f"{printable(rel_path)} is not read as text ({unreadable}); the index leaves it out too")
    if memory.kind_of(rel_path) != TRANSCRIPT:
        return {**read, "view": "text"}
    if view == "raw":
        return {**read, "view": "raw"}
    first = read["lines"][0]
    # Blank lines are skipped by the readers: padding keeps the file's own line numbers.
    # Tool texts are not shown here (whole outputs would flood a model's context; the raw view has them).
    transcript = parse_transcript("\n" * (first - 1) + read["text"], rel_path, Options(tool_text=False))
    turns = [{"line": t.line, "last_line": t.last_line, "speaker": t.speaker,
              "time": t.timestamp.strftime("%Y-%m-%d %H:%M UTC") if t.timestamp else None,
              "text": t.text, "actions": list(t.actions)} for t in transcript.turns]
    context = next((t.context for t in transcript.turns if t.context), "")  # as the session begins here
    return {"path": read["path"], "lines": read["lines"], "total_lines": read["total_lines"], "view": "turns",
            "context": context, "turns": turns}


def turn_head(turn: dict) -> str:
    """A turn's heading: "[line 9-11 · assistant · 2026-02-10 09:01 UTC]"."""
    where = f"line {turn['line']}" + (f"-{turn['last_line']}" if turn["last_line"] > turn["line"] else "")
    speaker = printable(turn["speaker"])  # a speaker's name is the file's: never a line break or a fake heading
    return "[" + " · ".join(part for part in (where, speaker, turn["time"]) if part) + "]"


def turn_body(turn: dict) -> str:
    """What a turn says: its text and its tool lines (from the session file: the memory's words)."""
    return "\n".join(part for part in (turn["text"], *turn["actions"]) if part)

