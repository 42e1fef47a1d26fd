"""Generic transcripts: chat-API lines and dialogue lines, as an agent of one's own writes them.

* ``{"role": "user" | "assistant" | "system", "content": ..., "tool_calls": [...]}``;
  lines with role ``tool`` or ``function`` carry tool output: kept for keyword
  search with the turn before them (before any turn: with the first), never as a turn.
* ``{"speaker": "Caroline", "text": "...", "timestamp": ...}``.

Content may be a string or a list of text blocks. A chat-API tool call
becomes a tool line with its key argument. Timestamps are read from
``timestamp``, ``date`` + ``time``, ``date``, ``time`` or ``created_at``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..reading.documents import INPUT, Turn
from .common import (Line, Options, Transcript, add_tool_output, add_tool_text, block_text, count_unknown, input_text,
                     join, parse_timestamp, tool_line)

NAME = "generic"
AGENT = "Chat"
SOURCE = "tachikoma"

_TOOL_ROLES = ("tool", "function")
_TIMESTAMP_KEYS = ("timestamp", "date", "time", "created_at")


def claims(obj: dict) -> bool:
    if isinstance(obj.get("role"), str) and not isinstance(obj.get("message"), dict):
        return "content" in obj or "text" in obj or "tool_calls" in obj
    return isinstance(obj.get("speaker"), str) and isinstance(obj.get("text"), str)


def read(lines: Iterable[Line], options: Options) -> Transcript:
    result = Transcript()
    for line in lines:
        obj = line.obj
        if isinstance(obj.get("role"), str) and not isinstance(obj.get("message"), dict):
            role = obj["role"].strip()
            if not role or role.lower() in _TOOL_ROLES:
                if not role:
                    count_unknown(result, line, "role without a name")
                else:  # with the turn before it; before any turn, with the first (`add_tool_output`)
                    add_tool_output(result, None, obj.get("name") or role, line.number, block_text(obj.get("content")),
                                    options)
                continue
            content = obj.get("content", obj.get("text"))
            if content is not None and not isinstance(content, (str, list, dict)):
                count_unknown(result, line, f"{role} content that is not text")
                continue
            actions = [_call_line(call) for call in obj.get("tool_calls") or [] if isinstance(call, dict)]
            text = block_text(content)
            speaker = role
        elif isinstance(obj.get("speaker"), str) and obj["speaker"].strip():
            role = ""
            speaker, text, actions = obj["speaker"].strip(), obj.get("text"), []
            if not isinstance(text, str):
                count_unknown(result, line, f"line from {speaker} without text")
                continue
        else:
            count_unknown(result, line, obj.get("type") if isinstance(obj.get("type"), str) else "no role or speaker")
            continue
        text = join(text)
        if not text and not actions:  # a message with nothing readable (empty, an image only): said, not dropped
            count_unknown(result, line, f"{role} message without text" if role else f"line from {speaker} without text")
            continue
        turn = Turn(speaker=speaker, text=text, line=line.number, timestamp=_timestamp(obj), actions=actions,
                    role=speaker.lower() if speaker.lower() in ("user", "assistant", "system") else "other")
        result.turns.append(turn)
        for call in obj.get("tool_calls") or [] if actions else []:
            function = call.get("function") if isinstance(call, dict) and isinstance(call.get("function"),
                                                                                     dict) else call
            if isinstance(function, dict):
                add_tool_text(turn, function.get("name"), INPUT, line.number,
                              input_text(function.get("arguments")), options, function.get("arguments"))
    return result


def _call_line(call: dict) -> str:
    """A chat-API ``tool_calls`` entry: ``{"function": {"name": ..., "arguments": "{json}"}}``."""
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    return tool_line(function.get("name"), function.get("arguments"))


def _timestamp(obj: dict):
    """``timestamp``, then ``date`` + ``time`` together, then each of the others; None if none parses."""
    candidates = [obj.get("timestamp")]
    day, clock = obj.get("date"), obj.get("time")
    if isinstance(day, str) and isinstance(clock, str):
        candidates.append(f"{day.strip()}T{clock.strip()}")
    candidates += [obj.get(key) for key in _TIMESTAMP_KEYS[1:]]
    return next((parsed for value in candidates if (parsed := parse_timestamp(value)) is not None), None)
