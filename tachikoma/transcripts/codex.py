"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``:

* ``session_meta``: the session's ``id``, ``cwd``, ``git.branch``;
* ``turn_context``: the ``model`` and ``cwd`` of the turns that follow;
* ``response_item``: what the model saw and said. ``message`` (role user or
  assistant; ``input_text`` / ``output_text`` blocks), ``function_call``
  (``name`` and ``arguments`` as a JSON string), ``custom_tool_call``
  (``apply_patch`` with the patch as ``input``), ``local_shell_call``,
  ``web_search_call``, their ``*_output`` and ``reasoning``;
* ``event_msg``: the same conversation as UI events (``user_message``,
  ``agent_message``, ``agent_reasoning``, ``token_count``, ...);
* ``compacted``: the summary that replaced older history.

The conversation is read from ``response_item`` messages; ``event_msg`` repeats
it and is only read when a file has no ``response_item`` message at all.
User messages that Codex writes itself (``<environment_context>``,
``<user_instructions>``, AGENTS.md contents) and developer messages are left
out. An assistant's tool calls and its reply until the next user message
are one turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..reading.documents import INPUT, Turn
from .common import (Line, Options, Transcript, add_tool_output, add_tool_text, block_text, command_text, context_line,
                     count_unknown, input_text, join, mark_failed, one_line, parse_arguments, parse_timestamp,
                     relative_to, tool_line)

NAME = "codex"
AGENT = "Codex"
SOURCE = "codex"

_LINE_TYPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted")
_INJECTED = re.compile(r"^\s*(<environment_context>|<user_instructions>|<permissions instructions>|"
                       r"<user_shell_command>|# AGENTS\.md instructions for )")
_QUIET_ITEMS = ("reasoning", "ghost_snapshot")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.M)


def claims(obj: dict) -> bool:
    return obj.get("type") in _LINE_TYPES and isinstance(obj.get("payload"), dict)


class Reader:
    def __init__(self, options: Options, from_events: bool):
        self.options = options
        self.from_events = from_events
        self.result = Transcript()
        self.session = self.result.session
        self.assistant: Turn | None = None  # the turn gathering tool calls and replies since the last user message
        self.calls: dict[str, tuple[Turn, int]] = {}
        self.call_names: dict[str, str] = {}  # call_id → the tool's name

    def add(self, line: Line, speaker: str, text: str, actions: list[str] | None = None) -> Turn | None:
        text = join(text)
        if not text and not actions:
            return None
        turn = Turn(speaker=speaker, text=text, line=line.number, timestamp=parse_timestamp(line.obj.get("timestamp")),
                    actions=list(actions or []), role=speaker, context=context_line(AGENT, self.session))
        self.result.turns.append(turn)
        return turn

    def call(self, line: Line, action: str, call_id: object, name: object, given: str) -> None:
        """A tool call: its tool line in the assistant's open turn, and what it was given (keyword only)."""
        self.reply(line, action=action, call_id=call_id)
        if isinstance(call_id, str) and isinstance(name, str):
            self.call_names[call_id] = name
        add_tool_text(self.assistant, name, INPUT, line.number, given, self.options)

    def reply(self, line: Line, text: str = "", action: str = "", call_id: object = None) -> None:
        """Add text or a tool line to the assistant's open turn (opening one if needed)."""
        turn = self.assistant
        if turn is None:
            turn = self.assistant = self.add(line, "assistant", text, [action] if action else [])
            if turn is None:
                return
        else:
            turn.text = join(turn.text, text)
            if action:
                turn.actions.append(action)
            turn.line_end = line.number
        if action and isinstance(call_id, str):
            self.calls[call_id] = (turn, len(turn.actions) - 1)

    def read(self, line: Line) -> None:
        kind, payload = line.obj.get("type"), line.obj.get("payload")
        if not isinstance(payload, dict):
            count_unknown(self.result, line, kind)
            return
        if kind == "session_meta":
            if payload.get("id"):
                self.session["session"] = str(payload["id"])
            self.cwd(payload)
            git = payload.get("git")
            if isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"].strip():
                self.session["branch"] = git["branch"].strip()
        elif kind == "turn_context":
            self.cwd(payload)
            if isinstance(payload.get("model"), str) and payload["model"].strip():
                self.session["model"] = payload["model"].strip()
        elif kind == "compacted":
            if isinstance(payload.get("message"), str):
                self.assistant = None
                self.add(line, "summary", payload["message"])
        elif kind == "response_item":
            self.item(line, payload)
        elif kind == "event_msg":
            self.event(line, payload)
        else:
            count_unknown(self.result, line, kind)

    def cwd(self, payload: dict) -> None:
        if isinstance(payload.get("cwd"), str) and payload["cwd"].strip():
            self.session["cwd"] = payload["cwd"].strip()

    def item(self, line: Line, item: dict) -> None:
        kind = item.get("type")
        cwd = self.session.get("cwd")
        if kind == "message":
            if self.from_events:
                return  # read from the events instead
            text = block_text(item.get("content"))
            if item.get("role") == "user":
                if not _INJECTED.match(text):
                    self.assistant = None
                    self.add(line, "user", text)
            elif item.get("role") == "assistant":
                self.reply(line, text)
            # developer and system messages: instructions, not conversation
        elif kind == "function_call":
            args = parse_arguments(item.get("arguments")) or {}
            command = args.get("command")
            name = item.get("name")
            if isinstance(command, list) and len(command) == 2 and command[0] == "apply_patch":
                action, name = _custom_call({"name": "apply_patch", "input": command[1]}, cwd), "apply_patch"
            else:
                action = tool_line(name, args, cwd)
            given = input_text(args) if args else input_text(item.get("arguments"))
            self.call(line, action, item.get("call_id"), name, given)
        elif kind == "custom_tool_call":
            given = item.get("input") if isinstance(item.get("input"), str) else input_text(item.get("input"))
            self.call(line, _custom_call(item, cwd), item.get("call_id"), item.get("name"), given)
        elif kind == "local_shell_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            command = command_text(action.get("command"))
            self.call(line, f"[shell: {one_line(command)}]", item.get("call_id"), "shell", command)
        elif kind == "web_search_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            self.reply(line, action=tool_line("web_search", action, cwd))
        elif kind in _OUTPUTS:
            found = self.calls.get(item.get("call_id"))
            if found and _failed(item.get("output")):
                mark_failed(found[0], found[1], _output_text(item.get("output")), self.options)
            add_tool_output(self.result, found[0] if found else None, self.call_names.get(item.get("call_id")),
                            line.number, _output_text(item.get("output")), self.options)
        elif kind not in _QUIET_ITEMS:
            count_unknown(self.result, line, f"response_item {kind}")

    def event(self, line: Line, event: dict) -> None:
        if not self.from_events:
            return  # the same conversation as the response items (read by the other Reader)
        kind = event.get("type")
        if kind == "user_message" and isinstance(event.get("message"), str):
            self.assistant = None
            self.add(line, "user", event["message"])
        elif kind == "agent_message" and isinstance(event.get("message"), str):
            self.reply(line, event["message"])


def _custom_call(item: dict, cwd: str | None) -> str:
    """``apply_patch`` names the files its patch touches; other custom tools their first argument."""
    name = item.get("name")
    text = item.get("input")
    if name == "apply_patch" and isinstance(text, str):
        files = [relative_to(f.strip(), cwd) for f in _PATCH_FILE.findall(text)]
        if files:
            return f"[apply_patch {one_line(', '.join(files))}]"
    return tool_line(name, parse_arguments(text) or ({"input": text} if isinstance(text, str) else {}), cwd)


def _output_text(output: object) -> str:
    """A tool output's text: Codex wraps shell output as ``{"output": ..., "metadata": {"exit_code"}}``."""
    parsed = parse_arguments(output)
    if parsed is not None and isinstance(parsed.get("output"), str):
        return parsed["output"]
    return block_text(output) if not isinstance(output, dict) else str(output.get("content") or "")


def _failed(output: object) -> bool:
    parsed = parse_arguments(output)
    if parsed is not None:
        metadata = parsed.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        return isinstance(code, int) and code != 0
    if isinstance(output, dict):
        return output.get("success") is False
    match = _EXIT_CODE.search(output) if isinstance(output, str) else None
    return bool(match) and match.group(1) != "0"


def read(lines: Iterable[Line], options: Options) -> Transcript:
    # Read both ways in one pass; keep the events' reading only when no response item was a message.
    items, events = Reader(options, from_events=False), Reader(options, from_events=True)
    has_items = False
    for line in lines:
        items.read(line)
        events.read(line)
        payload = line.obj.get("payload")
        has_items = has_items or (line.obj.get("type") == "response_item" and isinstance(payload, dict)
                                  and payload.get("type") == "message")
    if not has_items:  # the events' turns, and the tool outputs read before the first of them
        items.result.turns, items.result.early_outputs = events.result.turns, events.result.early_outputs
    return items.result
