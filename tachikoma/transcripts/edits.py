"""The edits a Claude Code session made to files, read from its transcript: each Edit, Write, MultiEdit
or NotebookEdit call (a call its result says failed left out), with what it wrote. `staleness` reads them
to tell a session's own commits from later changes. Only the lines that name an editing tool or a failure
are parsed as JSON."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .common import parse_timestamp

_WRITE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_WRITE_CALL = re.compile(rb'"name"\s*:\s*"(?:Edit|Write|MultiEdit|NotebookEdit)"')
_FAILED_CALL = re.compile(rb'"is_error"\s*:\s*true')


@dataclass(frozen=True)
class Write:
    """One edit a session made to a file: when, with which tool, and what it wrote (a Write's
    ``content``; an Edit's or MultiEdit's ``(old, new, replace_all)`` edits; None for another tool)."""
    when: float
    tool: str
    content: str | None = None
    edits: tuple[tuple[str, str, bool], ...] = ()


def _write_of(tool: str, args: dict, when: float) -> Write:
    if tool == "Write":
        content = args.get("content")
        return Write(when, tool, content if isinstance(content, str) else None)
    if tool in ("Edit", "MultiEdit"):
        raw = args.get("edits") if tool == "MultiEdit" else [args]
        raw = raw if isinstance(raw, list) else []  # a malformed call: no edit to replay
        edits = tuple((e["old_string"], e["new_string"], e.get("replace_all") is True) for e in raw or ()
                      if isinstance(e, dict) and isinstance(e.get("old_string"), str)
                      and isinstance(e.get("new_string"), str))
        return Write(when, tool, None, edits if edits and len(edits) == len(raw or ()) else ())
    return Write(when, tool)


def session_edits(path: Path) -> dict[str, list[Write]]:
    """The files a Claude Code session edited (their real paths) and its edits of each, oldest first;
    a call its result says failed left out. Only the lines that name an editing tool or a failure are
    parsed as JSON."""
    calls: list[tuple[object, str, Write]] = []
    failed: set = set()
    try:
        handle = path.open("rb")
    except OSError:
        return {}
    with handle:
        for raw in handle:
            if _WRITE_CALL.search(raw) is None and _FAILED_CALL.search(raw) is None:
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError):  # a line nested deeper than json can read is no edit
                continue
            message = obj.get("message") if isinstance(obj, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list):
                continue
            stamp = parse_timestamp(obj.get("timestamp"))
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result" and block.get("is_error") is True:
                    if isinstance(block.get("tool_use_id"), str):
                        failed.add(block["tool_use_id"])
                elif (block.get("type") == "tool_use" and block.get("name") in _WRITE_TOOLS and stamp is not None
                      and isinstance(block.get("input"), dict)):
                    args = block["input"]
                    target = args.get("file_path") or args.get("notebook_path")
                    if not isinstance(target, str) or not target:
                        continue
                    target = os.path.expanduser(target)
                    if not os.path.isabs(target) and isinstance(obj.get("cwd"), str):
                        target = os.path.join(os.path.expanduser(obj["cwd"]), target)
                    if os.path.isabs(target):
                        call_id = block.get("id") if isinstance(block.get("id"), str) else None
                        calls.append((call_id, target, _write_of(block["name"], args, stamp.timestamp())))
    out: dict[str, list[Write]] = {}
    real: dict[str, str | None] = {}
    for call_id, target, write in calls:
        if call_id is not None and call_id in failed:
            continue
        if target not in real:
            try:
                real[target] = os.path.realpath(target)
            except (ValueError, UnicodeError):  # a NUL or a lone surrogate in it: no file
                real[target] = None
        if real[target] is not None:
            out.setdefault(real[target], []).append(write)
    for writes in out.values():
        writes.sort(key=lambda w: w.when)
    return out
