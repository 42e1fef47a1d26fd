"""Codex CLI rollouts of the first format (spring 2025): ``rollout-<date>-<id>.jsonl``.

The first line is a header ``{"id", "timestamp", "instructions", "git"?}``;
then come ``{"record_type": "state"}`` lines (bookkeeping) and the response
items themselves, unwrapped: ``{"type": "message", "role", "content"}``,
``function_call``, ``function_call_output``, ``reasoning``. Lines carry no
time of their own, so every turn gets the header's timestamp.

Items are read exactly as in the current format (`codex`).
"""

from __future__ import annotations

from collections.abc import Iterable

from . import codex
from .common import Line, Options, Transcript, count_unknown

NAME = "codex-legacy"
AGENT = "Codex"
SOURCE = "codex"

_ITEMS = ("message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
          "local_shell_call", "local_shell_call_output", "web_search_call", "reasoning")


def _is_header(obj: dict) -> bool:
    return "type" not in obj and "id" in obj and "timestamp" in obj and "instructions" in obj


def _is_item(obj: dict) -> bool:
    return obj.get("type") in _ITEMS and "payload" not in obj and not isinstance(obj.get("message"), dict) and \
        ("content" in obj or "call_id" in obj or "summary" in obj or "role" in obj)


def claims(obj: dict) -> bool:
    return _is_header(obj) or obj.get("record_type") == "state" or _is_item(obj)


def read(lines: Iterable[Line], options: Options) -> Transcript:
    reader = codex.Reader(options, from_events=False)
    when = None
    for line in lines:
        obj = line.obj
        if _is_header(obj):
            reader.session["session"] = str(obj["id"])
            when = obj.get("timestamp")
            git = obj.get("git")
            if isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"].strip():
                reader.session["branch"] = git["branch"].strip()
        elif obj.get("record_type") == "state":
            continue
        elif _is_item(obj):
            reader.item(Line(line.number, {"timestamp": when}), obj)
        else:
            count_unknown(reader.result, line, obj.get("type") or obj.get("record_type"))
    return reader.result
