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
"""

from __future__ import annotations

from collections.abc import Iterable

from ..documents import Turn
from .common import (Line, Options, Transcript, block_text, blocks, context_line, count_unknown, join, mark_failed,
                     one_line, parse_timestamp, tool_line)

NAME = "openclaw"
AGENT = "OpenClaw"
SOURCE = "openclaw"

_BOOKKEEPING = ("thinking_level_change", "custom", "custom_message", "label", "session_info")
_SUMMARIES = ("compaction", "branch_summary")


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
                texts, calls = [], []
                content = message.get("content")
                for block in blocks(content):
                    if block.get("type") == "text" and isinstance(block.get("text"), str):
                        texts.append(block["text"])
                    elif block.get("type") == "toolCall":
                        calls.append((str(block.get("id") or ""),
                                      tool_line(block.get("name"), block.get("arguments"), session.get("cwd"))))
                turn = add(line, "assistant", "\n".join(texts), [c for _, c in calls], when)
                if turn is not None:
                    for index, (call_id, _) in enumerate(calls):
                        tools[call_id] = (turn, index)
            elif role == "toolResult":
                found = tools.get(message.get("toolCallId"))
                if message.get("isError") is True and found:
                    mark_failed(found[0], found[1], message.get("content"), options)
            elif role == "bashExecution":
                command = message.get("command")
                if isinstance(command, str) and command.strip():
                    action = f"[! {one_line(command)}]"
                    exit_code = message.get("exitCode")
                    turn = add(line, "user", "", [action], when)
                    if turn is not None and isinstance(exit_code, int) and exit_code != 0:
                        mark_failed(turn, 0, message.get("output"), options)
            elif role == "custom":
                continue  # an extension's message to the model, not the user speaking
            else:
                count_unknown(result, line, f"message with role {role}" if isinstance(role, str) else "message")
        else:
            count_unknown(result, line, kind)
    return result
