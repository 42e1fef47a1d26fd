"""What every transcript reader shares: lines, timestamps, tool lines, the result.

A reader receives the file's lines already parsed (`Line`: number and JSON
object) and fills a `Transcript`. It never raises for content: what it
cannot read is counted and reported once per file, never once per line.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import PurePosixPath

from ..reading import surrogates
from ..reading.documents import OUTPUT, ToolText, Turn

_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")
#: Longest argument kept in a tool line (a command, a pattern): past it, "…".
TOOL_ARGUMENT_CHARS = 120
#: Longest excerpt of a failing tool result (`Options.tool_errors`).
ERROR_EXCERPT_CHARS = 160
_ERROR_WORDS = re.compile(r"error|exception|traceback|failed|failure|fatal|denied|not found|no such|cannot|"
                          r"refused|timed? ?out|panic", re.IGNORECASE)


@dataclass(frozen=True)
class Options:
    """How transcripts are read (``[transcripts]`` in tachikoma.toml)."""

    #: Add the first error line of a failing tool result to its tool line. Off by default:
    #: tool output never reaches the embedder unless asked for.
    tool_errors: bool = False
    #: Keep what tool calls were given and gave back (`ToolText`), for keyword search only.
    tool_text: bool = True


@dataclass
class Line:
    number: int  # 1-based line of the file
    obj: dict


@dataclass
class Transcript:
    """What a reader made of one file."""

    format: str = ""  # a reader's NAME, "" when no line was recognised
    turns: list[Turn] = field(default_factory=list)
    session: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    unknown: Counter = field(default_factory=Counter)  # line kind → lines skipped for it
    unknown_first: int = 0  # first line of an unknown kind
    heartbeats: int = 0  # turns left out as heartbeat noise (OpenClaw polls answered HEARTBEAT_OK)
    #: What tools gave back before the file's first turn (a session resumed or cut mid-call): no turn made
    #: the call, so each is kept with the first turn once the file is read (`place_early_outputs`).
    early_outputs: list[ToolText] = field(default_factory=list)


def parse_timestamp(value: object) -> datetime | None:
    """An aware UTC datetime from an ISO 8601 string, a date/datetime, or epoch number; else None.

    Naive values are taken to be UTC. Epoch numbers over 1e11 are milliseconds.
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
    try:
        return parsed.astimezone(timezone.utc)
    except OverflowError:  # "9999-12-31T23:59-05:00", "0001-01-01T00:00+01:00": no year Python holds in UTC
        return None


def join(*parts: str | None) -> str:
    return "\n".join(p.strip() for p in parts if p and p.strip())


def one_line(text: str, limit: int = TOOL_ARGUMENT_CHARS) -> str:
    """`text` on one line with runs of white space collapsed, cut at `limit` characters with "…"."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


def short_id(value: object) -> str:
    """The first 8 characters of an id (enough to find a session; a whole UUID is noise to an embedder)."""
    text = str(value or "").strip()
    return text[:8]


def home_relative(path: str) -> str:
    """/home/alice/x and /Users/alice/x as ~/x: shorter, and the same for every user."""
    match = re.match(r"^(?:/home|/Users)/[^/]+(?=/|$)", path)
    return "~" + path[match.end():] if match else path


def context_line(agent: str, session: dict) -> str:
    """The line a chunk of a session starts with: who, which session, where, which branch and model.

    ``"Claude Code session 3f2a9c1d · ~/code/shop · branch main · claude-sonnet-4-5"``; a subagent's
    ``"Claude Code subagent Explore (a1b2c3d) of session 3f2a9c1d · …"``; "" when nothing is known.
    """
    if not any(session.get(key) for key in ("session", "subagent", "cwd", "branch", "model")):
        return ""
    who = agent
    if session.get("subagent") is not None:
        name = session.get("subagent_name")
        agent_id = short_id(session.get("subagent"))
        label = f"{name} ({agent_id})" if name and agent_id else name or agent_id
        who += f" subagent {label}".rstrip()
        if session.get("session"):
            who += f" of session {short_id(session['session'])}"
    elif session.get("session"):
        who += f" session {short_id(session['session'])}"
    parts = [who]
    if session.get("cwd"):
        parts.append(home_relative(session["cwd"]))
    if session.get("branch"):
        parts.append(f"branch {session['branch']}")
    if session.get("model"):
        parts.append(session["model"])
    return " · ".join(parts)


# ---------------------------------------------------------------- tool lines

_PATH_KEYS = ("file_path", "filePath", "notebook_path", "path", "file", "filename", "target_file")
_COMMAND_KEYS = ("command", "cmd", "script")
_SHELL_WRAPPERS = ({"bash", "sh", "zsh"}, {"-lc", "-c"})


def relative_to(path: str, cwd: str | None) -> str:
    """`path` relative to the session's folder when it is inside it, so "tachikoma/search.py"
    reads the same in every session of a project."""
    if cwd and path.startswith("/"):
        try:
            return PurePosixPath(path).relative_to(PurePosixPath(cwd)).as_posix() or "."
        except ValueError:
            pass
    return home_relative(path)


def command_text(command: object) -> str:
    """A shell command as typed: a list is joined, and a ``bash -lc "…"`` wrapper is unwrapped."""
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if len(command) == 3 and command[0].rsplit("/", 1)[-1] in _SHELL_WRAPPERS[0] \
                and command[1] in _SHELL_WRAPPERS[1]:
            return command[2]
        return shlex.join(command)
    return command if isinstance(command, str) else ""


def tool_line(name: object, arguments: object, cwd: str | None = None) -> str:
    """A tool call as one searchable line with its key argument.

    ``[Edit tachikoma/search.py]``, ``[Bash: git rebase -i main]``, ``[Grep "TODO" in src]``,
    ``[Task Explore: find the flaky test]``, ``[WebFetch https://…]``; a tool whose arguments
    hold none of the usual keys gives its first short text argument, or just its name.
    """
    label = " ".join(str(name).split()) if isinstance(name, str) and name.strip() else "tool"
    args = arguments if isinstance(arguments, dict) else parse_arguments(arguments)
    if not isinstance(args, dict):
        return f"[{label}]"
    for key in _COMMAND_KEYS:
        command = command_text(args.get(key))
        if command.strip():
            return f"[{label}: {one_line(command)}]"
    pattern = args.get("pattern")
    if isinstance(pattern, str) and pattern.strip():
        where = next((args[k] for k in ("path", "glob", "include") if isinstance(args.get(k), str)), "")
        shown = f'"{one_line(pattern, 80)}"' if label.lower() == "grep" or where else one_line(pattern, 80)
        return f"[{label} {shown}" + (f" in {relative_to(where, cwd)}]" if where else "]")
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return f"[{label} {one_line(relative_to(value.strip(), cwd))}]"
    if isinstance(args.get("subagent_type"), str):
        what = args.get("description") or args.get("prompt") or ""
        return f"[{label} {args['subagent_type']}: {one_line(what, 80)}]" if what else \
            f"[{label} {args['subagent_type']}]"
    for key in ("url", "query", "description", "prompt", "name", "title"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            separator = " " if key == "url" else ": "
            return f"[{label}{separator}{one_line(value)}]"
    return f"[{label}]"


def parse_arguments(arguments: object) -> dict | None:
    """Tool arguments given as a JSON string (OpenAI function calls) as a dict; None if they are not."""
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str) and arguments.strip().startswith("{"):
        try:
            value = surrogates.loads(arguments)
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None
    return None


def error_excerpt(output: object) -> str:
    """The first line of a failing tool's output that looks like an error (else its first line), short."""
    text = block_text(output)
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if not lines:
        return ""
    chosen = next((line for line in lines if _ERROR_WORDS.search(line)), lines[0])
    return one_line(chosen, ERROR_EXCERPT_CHARS)


def mark_failed(turn: Turn, index: int, output: object, options: Options) -> None:
    """Mark the tool line `index` of `turn` as failed, with an excerpt of `output` if asked for."""
    if not 0 <= index < len(turn.actions) or turn.actions[index].endswith("failed") or " failed: " in \
            turn.actions[index]:
        return
    excerpt = error_excerpt(output) if options.tool_errors else ""
    turn.actions[index] += f" failed: {excerpt}" if excerpt else " failed"


def blocks(content: object):
    """A message's content as blocks: a string is one text block, a list gives its dict blocks."""
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, str):
            yield {"type": "text", "text": block}
        elif isinstance(block, dict):
            yield block


def block_text(content: object) -> str:
    """The text of a string or of a list of text blocks (``{"type": "text", "text": ...}``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        return join(*(b if isinstance(b, str) else b.get("text") if isinstance(b, dict)
                      and isinstance(b.get("text"), str) else "" for b in content))
    return ""


# ---------------------------------------------------------------- tool texts

#: Keys of tool arguments that hold no text worth finding (ids, flags, numbers are skipped anyway).
_QUIET_KEYS = frozenset({"id", "call_id", "tool_use_id", "timeout", "signature"})


def input_text(arguments: object) -> str:
    """Every text a tool call was given, one per line: an Edit's old and new text, a Write's content,
    a command with its heredoc, a patch. Arguments given as a JSON string are read as JSON; keys,
    numbers and flags are left out."""
    return "\n".join(text for _, text in input_parts(arguments))


def input_parts(arguments: object) -> list[tuple[str, str]]:
    """`input_text`'s texts apart, each with the key it was given under ("old_string", "new_string",
    "edits.old_string"; "" for a bare text): what the file page shows one by one, so an Edit's old and
    new text never run together."""
    parsed = parse_arguments(arguments) if isinstance(arguments, str) else None
    if isinstance(arguments, str) and parsed is None:
        return [("", arguments)] if arguments else []
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, object]] = [("", parsed if parsed is not None else arguments)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, str):
            if value.strip():
                out.append((key, value))
        elif isinstance(value, dict):
            stack.extend(reversed([(f"{key}.{k}" if key else str(k), v) for k, v in value.items()
                                   if k not in _QUIET_KEYS]))
        elif isinstance(value, list):
            stack.extend(reversed([(key, v) for v in value]))
    return out


def add_tool_text(turn: Turn | None, tool: object, side: str, line: int, text: str, options: Options,
                  arguments: object = None) -> None:
    """Keep `text` as what `tool` was given ("input") or gave back ("output") in `turn`'s calls; with
    `arguments` (the call's own, whose `input_text` `text` is), also its texts apart, by key, for the page."""
    if turn is None or not options.tool_text or not text or not text.strip():
        return
    parts = input_parts(arguments) if arguments is not None else []
    turn.tool_texts.append(ToolText(tool=_tool_name(tool), side=side, line=line, text=text,
                                    parts=parts if len(parts) > 1 else []))


def _tool_name(tool: object) -> str:
    return " ".join(tool.split()) if isinstance(tool, str) and tool.strip() else "tool"


def add_tool_output(result: Transcript, turn: Turn | None, tool: object, line: int, text: str,
                    options: Options) -> None:
    """Keep what `tool` gave back with `turn`, the turn that made the call; when the call is not in the file,
    with the last turn; before any turn, with the file's first (held in `Transcript.early_outputs` until the
    file is read: a session resumed from another file may open on a tool's output, and that output may hold
    the answer a search is for)."""
    turn = turn or (result.turns[-1] if result.turns else None)
    if turn is not None:
        add_tool_text(turn, tool, OUTPUT, line, text, options)
    elif options.tool_text and text and text.strip():
        result.early_outputs.append(ToolText(tool=_tool_name(tool), side=OUTPUT, line=line, text=text))


def place_early_outputs(result: Transcript) -> None:
    """Give the tool outputs read before any turn (`add_tool_output`) to the first turn, ahead of its own tool
    texts; in a file with no turn at all, count each under the unknown lines ("tool output before any turn"),
    so that what is not kept is said."""
    early, result.early_outputs = result.early_outputs, []
    if result.turns:
        result.turns[0].tool_texts[:0] = early
        return
    for tool_text in early:
        count_unknown(result, Line(tool_text.line, {}), "tool output before any turn")


# ---------------------------------------------------------------- unknown lines

def count_unknown(result: Transcript, line: Line, kind: object) -> None:
    """Count a line this reader does not know (reported once for the file)."""
    label = kind if isinstance(kind, str) and kind else "no type"
    result.unknown[one_line(label, 40)] += 1
    if not result.unknown_first or line.number < result.unknown_first:
        result.unknown_first = line.number
