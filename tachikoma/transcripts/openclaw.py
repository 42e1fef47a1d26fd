"""OpenClaw (pi agent) sessions: ``agents/<agent>/sessions/<session-id>.jsonl``.

Lines are entries of a session tree, each with a ``type``:

* ``session``: the header (``version``, ``id``, ``cwd``, ``timestamp``);
* ``message``: ``{"id", "parentId", "timestamp", "message": {"role", "content", ...}}`` with
  role ``user``, ``assistant`` (content blocks ``text``, ``thinking``, ``toolCall``
  ``{"name", "arguments"}``; ``model`` and ``provider``), ``toolResult`` (``toolCallId``,
  ``isError``) or ``bashExecution`` (``command``, ``exitCode``: a ``!`` command the user ran);
* ``compaction`` and ``branch_summary``: a ``summary`` of older or abandoned messages;
* ``model_change``, ``thinking_level_change``, ``custom``, ``custom_message``, ``label``,
  ``session_info``: bookkeeping, no speech (the model is kept for the context line).

Heartbeats: OpenClaw polls its agent every half hour or so ("Read HEARTBEAT.md
... If nothing needs attention, reply HEARTBEAT_OK"). A poll answered with
``HEARTBEAT_OK`` alone says nothing and, repeated all day, would fill the
index with identical chunks: the answer, its poll (a user turn naming
HEARTBEAT) and the tool-only turns between them are left out and counted
(`Transcript.heartbeats`). A heartbeat that reports something is kept whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..reading.documents import INPUT, OUTPUT, Turn
from .common import (Line, Options, Transcript, add_tool_output, add_tool_text, block_text, blocks, context_line,
                     count_unknown, input_text, join, mark_failed, one_line, parse_timestamp, tool_line)

NAME = "openclaw"
AGENT = "OpenClaw"
SOURCE = "openclaw"

_BOOKKEEPING = ("thinking_level_change", "custom", "custom_message", "label", "session_info")
_SUMMARIES = ("compaction", "branch_summary")
#: The token a heartbeat poll is answered with when nothing needs attention.
HEARTBEAT_OK = "HEARTBEAT_OK"
_NOTHING_ELSE = re.compile(r"[\W_]*")  # what an acknowledgement may hold besides the token (no word)


def claims(obj: dict) -> bool:
    kind = obj.get("type")
    if kind == "session":
        return isinstance(obj.get("id"), str) and ("version" in obj or "cwd" in obj)
    if kind == "message":
        message = obj.get("message")
        return isinstance(message, dict) and "role" in message and ("parentId" in obj or "id" in obj)
    return kind == "model_change" and "modelId" in obj


def read(lines: Iterable[Line], options: Options) -> Transcript:
    result = Transcript()
    session = result.session
    tools: dict[str, tuple[Turn, int]] = {}

    def add(line: Line, speaker: str, text: str, actions: list[str] | None = None, when=None) -> Turn | None:
        text = join(text)
        if not text and not actions:
            return None
        stamp = parse_timestamp(line.obj.get("timestamp")) or parse_timestamp(when)
        turn = Turn(speaker=speaker, text=text, line=line.number, timestamp=stamp, actions=list(actions or []),
                    role=speaker, context=context_line(AGENT, session))
        result.turns.append(turn)
        return turn

    for line in lines:
        obj = line.obj
        kind = obj.get("type")
        if kind == "session":
            if obj.get("id"):
                session["session"] = str(obj["id"])
            if isinstance(obj.get("cwd"), str) and obj["cwd"].strip():
                session["cwd"] = obj["cwd"].strip()
        elif kind == "model_change":
            if isinstance(obj.get("modelId"), str):
                session["model"] = obj["modelId"]
        elif kind in _SUMMARIES:
            if isinstance(obj.get("summary"), str):
                add(line, "summary", obj["summary"])
            else:
                count_unknown(result, line, f"{kind} without a summary")
        elif kind in _BOOKKEEPING:
            continue
        elif kind == "message" and isinstance(obj.get("message"), dict):
            message = obj["message"]
            role = message.get("role")
            when = message.get("timestamp")
            if role == "user":
                content = message.get("content")
                images = [f"[{b['type']}]" for b in blocks(content) if b.get("type") == "image"]
                add(line, "user", block_text(content), images, when)
            elif role == "assistant":
                if isinstance(message.get("model"), str) and message["model"].strip():
                    session["model"] = message["model"].strip()
                texts, calls, given = [], [], []
                content = message.get("content")
                for block in blocks(content):
                    if block.get("type") == "text" and isinstance(block.get("text"), str):
                        texts.append(block["text"])
                    elif block.get("type") == "toolCall":
                        calls.append((str(block.get("id") or ""),
                                      tool_line(block.get("name"), block.get("arguments"), session.get("cwd"))))
                        given.append((block.get("name"), input_text(block.get("arguments"))))
                turn = add(line, "assistant", "\n".join(texts), [c for _, c in calls], when)
                if turn is not None:
                    for index, (call_id, _) in enumerate(calls):
                        tools[call_id] = (turn, index)
                    for name, text in given:
                        add_tool_text(turn, name, INPUT, line.number, text, options)
            elif role == "toolResult":
                found = tools.get(message.get("toolCallId"))
                if message.get("isError") is True and found:
                    mark_failed(found[0], found[1], message.get("content"), options)
                add_tool_output(result, found[0] if found else None, message.get("toolName"), line.number,
                                block_text(message.get("content")), options)
            elif role == "bashExecution":
                command = message.get("command")
                if isinstance(command, str) and command.strip():
                    action = f"[! {one_line(command)}]"
                    exit_code = message.get("exitCode")
                    turn = add(line, "user", "", [action], when)
                    if turn is not None and isinstance(exit_code, int) and exit_code != 0:
                        mark_failed(turn, 0, message.get("output"), options)
                    add_tool_text(turn, "! shell", INPUT, line.number, command, options)
                    if isinstance(message.get("output"), str):
                        add_tool_text(turn, "! shell", OUTPUT, line.number, message["output"], options)
            elif role == "custom":
                continue  # an extension's message to the model, not the user speaking
            else:
                count_unknown(result, line, f"message with role {role}" if isinstance(role, str) else "message")
        else:
            count_unknown(result, line, kind)
    _drop_heartbeats(result)
    return result


def _is_ack(turn: Turn) -> bool:
    """An assistant turn saying HEARTBEAT_OK and nothing else (no other word, no tool call)."""
    return (turn.role == "assistant" and not turn.actions and HEARTBEAT_OK in turn.text
            and _NOTHING_ELSE.fullmatch(turn.text.replace(HEARTBEAT_OK, "")) is not None)


def _drop_heartbeats(result: Transcript) -> None:
    """Leave out each poll answered HEARTBEAT_OK: the answer, the tool-only assistant turns before it,
    and the user turn that polled (when it names HEARTBEAT); count them in `result.heartbeats`."""
    dropped: set[int] = set()
    for end, turn in enumerate(result.turns):
        if not _is_ack(turn):
            continue
        dropped.add(end)
        start = end - 1
        while start >= 0 and result.turns[start].role == "assistant" and not result.turns[start].text:
            start -= 1
        poll = result.turns[start] if start >= 0 else None
        if poll is not None and poll.role == "user" and "HEARTBEAT" in poll.text:
            dropped.update(range(start, end))
    if dropped:
        result.heartbeats = len(dropped)
        result.turns = [t for i, t in enumerate(result.turns) if i not in dropped]
