"""What a memory file becomes once read: a Document with its chunks.

Contract shared by the reader (files → Document), the chunker
(Document → Chunks) and the indexer. Line numbers are 1-based and refer to
lines of the file on disk, so a chunk can always be traced back.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from .tags import Tags

MARKDOWN, TRANSCRIPT = "markdown", "transcript"
KINDS = (MARKDOWN, TRANSCRIPT)
SUFFIX_KIND = {".md": MARKDOWN, ".markdown": MARKDOWN, ".jsonl": TRANSCRIPT}


@dataclass
class ToolText:
    """What a tool call was given or gave back (an Edit's new text, a patch, a command's output).

    Searched by keyword only, never embedded: it is most of a session's bytes,
    and an identifier in it means nothing to an embedder but everything to a
    keyword search. It belongs to the turn that made the call, so it is found
    with that turn's chunk.
    """

    tool: str  # the tool's name ("Edit", "apply_patch", "exec"); "tool" when unknown
    side: str  # "input" (what the agent gave the tool) or "output" (what it gave back)
    line: int  # 1-based file line of the record that holds the text
    text: str
    #: The texts of `text` apart, by the key they were given under (an Edit's "old_string" and
    #: "new_string"), when there are several: for the file page; [] otherwise. Never indexed.
    parts: list = field(default_factory=list)


INPUT, OUTPUT = "input", "output"


@dataclass
class Turn:
    """One message of a transcript, whatever agent wrote it.

    `speaker` is the label that is embedded and shown: "user", "assistant",
    "summary" (a compaction or session summary), "subagent" or "subagent
    Explore" (a subagent's reply), "assistant → subagent" (the task prompt
    given to one), or a person's name in a dialogue. `role` is the same
    without names: user, assistant, subagent, summary or other.
    """

    speaker: str
    text: str  # what was said; may be "" when the message only acted
    line: int  # 1-based first line of the JSONL file it came from
    timestamp: datetime | None = None  # aware UTC
    line_end: int = 0  # last line it came from (0: same as `line`)
    actions: list[str] = field(default_factory=list)  # tool calls as "[Edit a.py]", "[Bash: make test]"
    role: str = ""  # "" = the speaker
    thread: str = ""  # a subagent's id inside its parent's file: threads never share a chunk
    context: str = ""  # the session context line in effect (session, folder, branch, model)
    #: what its tool calls were given and gave back, for keyword search only (never in `body`)
    tool_texts: list[ToolText] = field(default_factory=list)

    @property
    def last_line(self) -> int:
        return max(self.line, self.line_end)

    @property
    def body(self) -> str:
        """The text and the tool lines, as embedded."""
        return "\n".join(part for part in (self.text, *self.actions) if part)


@dataclass
class Document:
    path: str  # relative to the memory root, POSIX separators
    kind: str  # MARKDOWN or TRANSCRIPT
    text: str = ""  # markdown: the body without front matter; transcript: ""
    body_line: int = 1  # markdown: file line of the body's first line
    meta: dict = field(default_factory=dict)  # front matter (markdown only)
    tags: Tags = field(default_factory=Tags)  # front matter tags (markdown only)
    #: markdown only: what it is named outside its front matter, read as front matter's names are: a Logseq
    #: page's {"title": name, "alias": [other names]} (`logseq.page_names`); {} for any other note
    names: dict = field(default_factory=dict)
    date: datetime | None = None  # front matter `updated`, else `date` (aware, UTC)
    turns: list[Turn] = field(default_factory=list)  # transcript only
    #: transcript only: what the reader learnt of the session ("format", "agent", "session",
    #: "cwd", "branch", "model", "parent", "subagent"...), for the file page; {} if nothing
    session: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # "path:line: what happened"
    #: sha256 of the bytes that were read, or None when the file could not be read (vanished,
    #: an I/O error, over the size limit): the index records a file as done only with this.
    sha256: str | None = None
    #: How many secrets were replaced by markers as it was read (`redaction`).
    secrets: int = 0


@dataclass
class Chunk:
    index: int  # position within its file, from 0
    text: str  # what gets embedded (transcripts: "speaker: text" lines)
    line_start: int  # first file line the chunk covers (1-based, inclusive)
    line_end: int  # last file line (inclusive)
    #: transcripts: the tool call texts of the turns this chunk is the first to hold (keyword only)
    tool_texts: list[ToolText] = field(default_factory=list)

    @property
    def hash(self) -> str:
        """Content hash: equal text ⇒ equal vector, so it is embedded once."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()
