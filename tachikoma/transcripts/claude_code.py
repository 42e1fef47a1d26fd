"""Claude Code sessions: ``~/.claude/projects/<project>/<session-id>.jsonl``.

Each line is one record: ``{"type": "user" | "assistant", "message": {"role",
"content"}, "uuid", "parentUuid", "sessionId", "cwd", "gitBranch",
"timestamp", "isSidechain", ...}``, ``{"type": "summary", "summary"}`` (the
session's title), and bookkeeping (``system``, ``file-history-snapshot``,
``progress``, ``queue-operation``, and since 2.1 ``permission-mode``,
``last-prompt`` (a copy of a prompt already in the session) and
``attachment`` (skill listings, hook context, plan-mode markers)) that
carries no speech. ``ai-title`` (generated) and ``custom-title`` (the
user's rename, which wins) name the session: the title ends every chunk's
context line.

How they become turns:

* Claude writes one line per content block of a reply; lines with the same
  ``message.id`` are one turn. Text is kept, ``thinking`` is dropped, a
  ``tool_use`` becomes a tool line (``[Edit src/app.py]``), and a
  ``tool_result`` marks its tool line "failed" when ``is_error`` is set.
* A user line with ``isCompactSummary`` is the compaction summary: speaker
  "summary". ``isMeta`` lines (caveats, injected context) are left out.
* Slash commands become a marker ``[/review 12]``, ``!`` shell input ``[! ls]``;
  their output, ``<system-reminder>`` and hook text are left out.
* Subagents: a file under ``<session-id>/subagents/`` is one subagent's
  conversation (its lines have ``isSidechain``): the task prompt is spoken
  by "assistant → subagent", the replies by "subagent". Sidechains inside a
  main file (older versions) are threads of their own, named after the
  ``subagent_type`` of the Task call that started them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..reading import surrogates
from ..reading.documents import INPUT, Turn
from .common import (Line, Options, Transcript, add_tool_output, add_tool_text, block_text, blocks, context_line,
                     count_unknown, input_text, join, mark_failed, one_line, parse_timestamp, short_id, tool_line)

NAME = "claude-code"
AGENT = "Claude Code"
SOURCE = "claude-code"

_MESSAGES = ("user", "assistant")
_BOOKKEEPING = ("system", "file-history-snapshot", "progress", "queue-operation", "permission-mode", "mode",
                "last-prompt", "attachment", "agent-name")
#: Lines naming the session, and the key of the name in each (a user's rename wins over a generated title).
_TITLES = {"custom-title": "customTitle", "ai-title": "aiTitle"}
_SYNTHETIC_MODEL = "<synthetic>"
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_BASH_OUTPUT = re.compile(r"<bash-(?:stdout|stderr)>(.*?)</bash-(?:stdout|stderr)>", re.S)
_NOISE = re.compile(r"<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|"
                    r"command-name|command-message|command-args|command-contents|bash-input|bash-stdout|"
                    r"bash-stderr|user-prompt-submit-hook)>.*?</\1>", re.S)
#: The start of a noise tag whose end is missing (cut by a crash): everything after it is dropped.
_UNCLOSED = re.compile(r"<(system-reminder|local-command-stdout|local-command-caveat|bash-stdout|bash-stderr)>",
                       re.S)


def claims(obj: dict) -> bool:
    kind = obj.get("type")
    if kind in _MESSAGES:
        return isinstance(obj.get("message"), dict)
    if kind == "summary":
        return isinstance(obj.get("summary"), str)
    return kind in _BOOKKEEPING + tuple(_TITLES) and ("sessionId" in obj or "uuid" in obj or "snapshot" in obj)


class _Reader:
    def __init__(self, options: Options):
        self.options = options
        self.result = Transcript()
        self.session = self.result.session
        self.open: dict[str, Turn] = {}  # message.id → its turn (lines of one reply are merged)
        self.tools: dict[str, tuple[Turn, int]] = {}  # tool_use id → (turn, index of its tool line)
        self.tool_names: dict[str, str] = {}  # tool_use id → the tool's name
        self.threads: dict[str, str] = {}  # sidechain uuid → its thread (the root of its chain)
        self.prompts: dict[str, str] = {}  # Task prompt → subagent_type
        self.names: dict[str, str] = {}  # thread → subagent name
        self.subagent_file: bool | None = None
        self.title: str | None = None  # the session's latest title (`_TITLES`)
        self.renamed = False  # the user named it: a generated title no longer replaces that

    def note_session(self, obj: dict) -> None:
        for key, field in (("sessionId", "session"), ("cwd", "cwd"), ("gitBranch", "branch"), ("version", "version")):
            value = obj.get(key)
            if isinstance(value, str) and value.strip():
                self.session[field] = value.strip()

    def add(self, line: Line, speaker: str, role: str, text: str, actions: list[str] | None = None,
            thread: str = "") -> Turn | None:
        text = join(text)
        if not text and not actions:
            return None
        turn = Turn(speaker=speaker, text=text, line=line.number, timestamp=parse_timestamp(line.obj.get("timestamp")),
                    actions=list(actions or []), role=role, thread=thread,
                    context=context_line(AGENT, self.session))
        self.result.turns.append(turn)
        return turn

    def read(self, line: Line) -> None:
        obj = line.obj
        kind = obj.get("type")
        if kind == "summary":
            if isinstance(obj.get("summary"), str):
                self.add(line, "summary", "summary", obj["summary"])
            else:
                count_unknown(self.result, line, "summary without text")
            return
        if kind in _BOOKKEEPING:
            return
        if kind in _TITLES:
            title = obj.get(_TITLES[kind])
            if isinstance(title, str) and one_line(title) and not (kind == "ai-title" and self.renamed):
                self.title = one_line(title)
                self.renamed = self.renamed or kind == "custom-title"
            return
        if kind not in _MESSAGES or not isinstance(obj.get("message"), dict):
            count_unknown(self.result, line, kind)
            return
        self.note_session(obj)
        sidechain = obj.get("isSidechain") is True
        if self.subagent_file is None:
            self.subagent_file = sidechain
            if sidechain:
                self.session["subagent"] = str(obj.get("agentId") or "")
        thread = self.thread(obj) if sidechain and not self.subagent_file else ""
        if kind == "user":
            self.user(line, obj, sidechain, thread)
        else:
            self.assistant(line, obj, sidechain, thread)

    def thread(self, obj: dict) -> str:
        """The sidechain a line belongs to: its agentId, else the first line of its parentUuid chain."""
        uuid, parent = obj.get("uuid"), obj.get("parentUuid")
        thread = str(obj.get("agentId") or self.threads.get(parent) or uuid or "sidechain")
        if isinstance(uuid, str):
            self.threads[uuid] = thread
        return thread

    def user(self, line: Line, obj: dict, sidechain: bool, thread: str) -> None:
        if obj.get("isMeta") is True:
            return
        content = obj["message"].get("content")
        if obj.get("isCompactSummary") is True:
            self.add(line, "summary", "summary", block_text(content))
            return
        texts: list[str] = []
        markers: list[str] = []
        results = 0
        for block in blocks(content):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_result":
                self.tool_result(block, line)
                results += 1
            elif kind in ("image", "document"):
                markers.append(f"[{kind}]")
        raw = "\n".join(texts)
        text, commands = clean_user_text(raw)
        shell_output = join(*(m.group(1) for m in _BASH_OUTPUT.finditer(raw)))
        if not (raw.strip() or markers or results):  # nothing in it at all: "content": "", [], blank text
            count_unknown(self.result, line, "user message without text")
            return
        if shell_output:  # what a `!` command printed: the user's tool output, for keyword search only
            add_tool_output(self.result, None, "! shell", line.number, shell_output, self.options)
        if sidechain:
            if thread and text in self.prompts:
                self.names[thread] = self.prompts[text]
            name = self.names.get(thread) or self.session.get("subagent_name")
            speaker = f"assistant → subagent {name}" if name else "assistant → subagent"
            self.add(line, speaker, "subagent", text, commands + markers, thread)
        else:
            self.add(line, "user", "user", text, commands + markers)

    def tool_result(self, block: dict, line: Line) -> None:
        """A tool's output: marks its call failed if it did, and is kept for keyword search with the
        turn that made the call (the last turn when that call is not in the file, the first when no turn
        came before it: `add_tool_output`)."""
        found = self.tools.get(block.get("tool_use_id"))
        if block.get("is_error") is True and found:
            mark_failed(found[0], found[1], block.get("content"), self.options)
        add_tool_output(self.result, found[0] if found else None, self.tool_names.get(block.get("tool_use_id")),
                        line.number, block_text(block.get("content")), self.options)

    def assistant(self, line: Line, obj: dict, sidechain: bool, thread: str) -> None:
        message = obj["message"]
        model = message.get("model")
        if model == _SYNTHETIC_MODEL:
            return  # Claude Code's own notices ("No response requested."), not the model speaking
        if isinstance(model, str) and model.strip():
            self.session["model"] = model.strip()
        texts: list[str] = []
        calls: list[tuple[str, str]] = []  # (tool_use id, tool line)
        inputs: list[tuple[object, object]] = []  # (tool name, input) of each call
        content = message.get("content")
        for block in blocks(content):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("tool_use", "server_tool_use"):
                calls.append((str(block.get("id") or ""), tool_line(block.get("name"), block.get("input"),
                                                                 self.session.get("cwd"))))
                inputs.append((block.get("name"), block.get("input")))
                if isinstance(block.get("name"), str):
                    self.tool_names[str(block.get("id") or "")] = block["name"]
                self.remember_task(block)
            # thinking, redacted_thinking, *_tool_result: not speech
        key = message.get("id")
        turn = self.open.get(key) if isinstance(key, str) else None
        if turn is None:
            name = self.names.get(thread) if sidechain else None
            speaker = "assistant" if not sidechain else f"subagent {name}" if name else "subagent"
            turn = self.add(line, speaker, "subagent" if sidechain else "assistant", "\n".join(texts),
                            [call for _, call in calls], thread)
            if turn is None:
                return  # thinking only: the reply's turn starts with its first visible block
            if isinstance(key, str):
                self.open = {key: turn}
            first = 0
        else:
            turn.text = join(turn.text, *texts)
            turn.line_end = line.number
            first = len(turn.actions)
            turn.actions.extend(call for _, call in calls)
        for index, (tool_id, _) in enumerate(calls, first):
            self.tools[tool_id] = (turn, index)
        for name, arguments in inputs:
            add_tool_text(turn, name, INPUT, line.number, input_text(arguments), self.options, arguments)

    def remember_task(self, block: dict) -> None:
        """A Task call's prompt, so the sidechain it starts can be named after its subagent_type."""
        args = block.get("input")
        if isinstance(args, dict) and isinstance(args.get("prompt"), str) and isinstance(args.get("subagent_type"),
                                                                                        str):
            self.prompts[join(args["prompt"])] = args["subagent_type"]


def clean_user_text(text: str) -> tuple[str, list[str]]:
    """A user message without slash-command output, system reminders and hook text, and the markers
    of what was run: ``("", ["[/review 12]"])`` for an expanded slash command."""
    markers = []
    name = _COMMAND_NAME.search(text)
    if name:
        command = one_line(name.group(1))
        args = _COMMAND_ARGS.search(text)
        arguments = one_line(args.group(1)) if args else ""
        markers.append(f"[{'/' if not command.startswith('/') else ''}{command}{' ' + arguments if arguments else ''}]")
    markers += [f"[! {one_line(m.group(1))}]" for m in _BASH_INPUT.finditer(text) if m.group(1).strip()]
    text = _NOISE.sub("", text)
    unclosed = _UNCLOSED.search(text)
    if unclosed:
        text = text[:unclosed.start()]
    return join(text), markers


_SUBAGENT_PATH = re.compile(r"^(?P<folder>(?:.*/)?)(?P<session>[^/]+)/subagents/agent-(?P<agent>[^/]+)\.jsonl$")
_PROJECT_AGENT_PATH = re.compile(r"^(?P<folder>(?:.*/)?)agent-(?P<agent>[^/]+)\.jsonl$")


def locate(path: str, session: dict) -> None:
    """A subagent file names its parent session's file: ``<session-id>/subagents/agent-<id>.jsonl``
    (current versions) or ``agent-<id>.jsonl`` beside the session (2.0 versions, whose lines
    carry the parent's sessionId)."""
    match = _SUBAGENT_PATH.match(path)
    if match:
        session["parent"] = f"{match['folder']}{match['session']}.jsonl"
        session.setdefault("session", match["session"])
    elif "subagent" in session and session.get("session") and (match := _PROJECT_AGENT_PATH.match(path)):
        session["parent"] = f"{match['folder']}{session['session']}.jsonl"
    if match and not session.get("subagent"):
        session["subagent"] = match["agent"]


def name_subagent(result: Transcript, parent_text: str) -> None:
    """Name a subagent file's speakers after the ``subagent_type`` of the Task call in its parent
    session whose prompt is the one the subagent was given (``"subagent Explore"``)."""
    prompt = next((t.text for t in result.turns if t.speaker == "assistant → subagent"), None)
    if not prompt or result.session.get("subagent_name"):
        return
    reader = _Reader(Options())
    for raw in parent_text.split("\n"):
        if '"subagent_type"' in raw:
            try:
                obj = surrogates.loads(raw)
            except (ValueError, RecursionError):
                continue
            message = obj.get("message") if isinstance(obj, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            for block in blocks(content if isinstance(content, list) else []):
                if block.get("type") == "tool_use":
                    reader.remember_task(block)
    name = reader.prompts.get(prompt)
    if not name:
        return
    result.session["subagent_name"] = name
    agent = short_id(result.session.get("subagent"))
    for turn in result.turns:
        if turn.role == "subagent":
            turn.speaker = f"{turn.speaker} {name}"
            turn.context = turn.context.replace(f" subagent {agent} of ", f" subagent {name} ({agent}) of ", 1)


def read(lines: Iterable[Line], options: Options) -> Transcript:
    reader = _Reader(options)
    for line in lines:
        reader.read(line)
    if reader.title:  # written once the session is under way: it names every turn, earlier ones too
        reader.session["title"] = reader.title
        for turn in reader.result.turns:
            if turn.context:
                turn.context += f" · “{reader.title}”"
    return reader.result
