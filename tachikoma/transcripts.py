"""Session transcripts: JSONL files where each line is one message.

Three shapes are understood, and may be mixed within one file:

* Claude Code session lines::

    {"type": "user" | "assistant", "message": {"role": ..., "content": ...}, "timestamp": ...}
    {"type": "summary", "summary": "..."}

  Other ``type`` values (``system``, ``file-history-snapshot``, progress
  records, ...) are bookkeeping and are skipped without a warning.
* Chat-API lines: ``{"role": "user" | "assistant" | "system", "content": ...}``.
  Lines with role ``tool`` or ``function`` carry tool output and are skipped.
* Dialogue lines: ``{"speaker": "Caroline", "text": "...", "timestamp": ...}``.

Content may be a string or a list of blocks. Text blocks are kept; a
``tool_use`` block (or a chat-API ``tool_calls`` entry) becomes a marker such
as ``[tool: Bash]`` (the name only, never the input); ``thinking`` and
``tool_result`` blocks are dropped, because tool output would drown the
conversation in search. A message left with no text yields no turn.

Lines are split on ``\\n`` only (JSON strings may hold U+2028 and other
characters that ``str.splitlines`` would treat as line breaks), so a turn's
``line`` is the line an editor shows.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time, timezone

from .documents import Turn

_TEXT_BLOCKS = ("text", "input_text", "output_text")
_TOOL_ROLES = ("tool", "function")
_CLAUDE_MESSAGE_TYPES = ("user", "assistant")
_TIMESTAMP_KEYS = ("timestamp", "date", "time", "created_at")
_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")


class _Unrecognised(Exception):
    """The line is a JSON object, but not a message we know how to read."""


def parse_transcript(text: str, path: str) -> tuple[list[Turn], list[str]]:
    """Turns of a JSONL transcript, and warnings ``"path:LINE: reason"``.

    Never raises for bad content: a line that is not valid JSON, not a JSON
    object, or an object without recognisable text is reported and skipped,
    and the rest of the file is still read. Blank lines are ignored.
    """
    turns: list[Turn] = []
    warnings: list[str] = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            warnings.append(f"{path}:{number}: not valid JSON ({exc.msg}, column {exc.colno}), line skipped")
            continue
        except (ValueError, RecursionError):
            warnings.append(f"{path}:{number}: not valid JSON (too deeply nested or malformed), line skipped")
            continue
        if not isinstance(obj, dict):
            warnings.append(f"{path}:{number}: a JSON {_json_kind(obj)}, not an object, line skipped")
            continue
        try:
            found = _read_message(obj)
        except _Unrecognised as exc:
            warnings.append(f"{path}:{number}: {exc}, line skipped")
            continue
        if found is None:
            continue
        speaker, body = found
        body = body.strip()
        if body:
            turns.append(Turn(speaker=speaker, text=body, line=number, timestamp=_timestamp(obj)))
    return turns, warnings


def _read_message(obj: dict) -> tuple[str, str] | None:
    """(speaker, text) of one line, None to skip it quietly, or raise _Unrecognised."""
    kind = obj.get("type")
    message = obj.get("message")

    if kind == "summary":
        summary = obj.get("summary")
        if not isinstance(summary, str):
            raise _Unrecognised("summary line without a summary text")
        return "summary", summary

    if "role" in obj and not isinstance(message, dict):
        role = obj["role"]
        if not isinstance(role, str) or not role.strip():
            raise _Unrecognised("role is not a name")
        role = role.strip()
        if role.lower() in _TOOL_ROLES:
            return None
        content = obj.get("content", obj.get("text"))
        if content is None and not obj.get("tool_calls") and "content" not in obj:
            raise _Unrecognised(f"{role} message without content")
        body = _content_text(content)
        if body is None:
            raise _Unrecognised("content is neither text nor a list of blocks")
        return role, _join(body, *_tool_call_markers(obj.get("tool_calls")))

    if "speaker" in obj:
        speaker, body = obj["speaker"], obj.get("text")
        if not isinstance(speaker, str) or not speaker.strip():
            raise _Unrecognised("speaker is not a name")
        if not isinstance(body, str):
            raise _Unrecognised(f"line from {speaker.strip()} has no text")
        return speaker.strip(), body

    if isinstance(message, dict):
        if isinstance(kind, str) and kind not in _CLAUDE_MESSAGE_TYPES:
            return None
        role = message.get("role")
        speaker = role.strip() if isinstance(role, str) and role.strip() else kind if isinstance(kind, str) else None
        if speaker is None:
            raise _Unrecognised("message without a role")
        if speaker.lower() in _TOOL_ROLES:
            return None
        if "content" not in message:
            raise _Unrecognised(f"{speaker} message without content")
        body = _content_text(message["content"])
        if body is None:
            raise _Unrecognised("message content is neither text nor a list of blocks")
        return speaker, body

    if isinstance(kind, str):
        return None  # bookkeeping record of a known agent (system, snapshots, progress)
    raise _Unrecognised("no recognisable text (expected message, role/content, or speaker/text)")


def _content_text(content: object) -> str | None:
    """Text of a message's content; None when it has an unexpected shape."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind in _TEXT_BLOCKS and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "tool_use":
                parts.append(_tool_marker(block.get("name")))
            # thinking, redacted_thinking, tool_result, image, ...: dropped
    return _join(*parts)


def _tool_call_markers(calls: object) -> list[str]:
    """Markers for chat-API ``tool_calls``: [{"function": {"name": ...}}, ...]."""
    if not isinstance(calls, list):
        return []
    markers = []
    for call in calls:
        if isinstance(call, dict):
            function = call.get("function")
            name = function.get("name") if isinstance(function, dict) else call.get("name")
            markers.append(_tool_marker(name))
    return markers


def _tool_marker(name: object) -> str:
    if isinstance(name, str) and name.strip():
        return f"[tool: {' '.join(name.split())}]"
    return "[tool]"


def _join(*parts: str) -> str:
    return "\n".join(p.strip() for p in parts if p and p.strip())


def _timestamp(obj: dict) -> datetime | None:
    """The line's time as an aware UTC datetime, or None.

    Looks at ``timestamp``, then ``date`` + ``time`` together, then each of
    ``date``, ``time``, ``created_at``. ISO 8601 strings (``Z`` allowed) and
    Unix epoch numbers (seconds or milliseconds) are understood; anything
    else, such as "1:56 pm on 8 May, 2023", gives None.
    """
    candidates = [obj.get("timestamp")]
    day, clock = obj.get("date"), obj.get("time")
    if isinstance(day, str) and isinstance(clock, str):
        candidates.append(f"{day.strip()}T{clock.strip()}")
    candidates += [obj.get(key) for key in _TIMESTAMP_KEYS[1:]]
    for value in candidates:
        parsed = parse_timestamp(value)
        if parsed is not None:
            return parsed
    return None


def parse_timestamp(value: object) -> datetime | None:
    """An aware UTC datetime from an ISO 8601 string, a date/datetime, or epoch number; else None.

    Naive values are taken to be UTC.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time())
    elif isinstance(value, (int, float)):
        seconds = value / 1000 if abs(value) > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str):
        text = _LONG_FRACTION.sub(r"\1", value.strip())
        if text[-1:] in ("Z", "z"):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
    else:
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
