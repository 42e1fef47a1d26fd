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
class Turn:
    """One utterance in a transcript."""

    speaker: str  # "user", "assistant", "summary", or a person's name
    text: str
    line: int  # 1-based line of the JSONL file it came from
    timestamp: datetime | None = None


@dataclass
class Document:
    path: str  # relative to the memory root, POSIX separators
    kind: str  # MARKDOWN or TRANSCRIPT
    text: str = ""  # markdown: the body without front matter; transcript: ""
    body_line: int = 1  # markdown: file line of the body's first line
    meta: dict = field(default_factory=dict)  # front matter (markdown only)
    tags: Tags = field(default_factory=Tags)  # front matter tags (markdown only)
    date: datetime | None = None  # front matter `updated`, else `date` (aware, UTC)
    turns: list[Turn] = field(default_factory=list)  # transcript only
    warnings: list[str] = field(default_factory=list)  # "path:line: what happened"
    #: sha256 of the bytes that were read, or None when the file could not be read (vanished,
    #: an I/O error, over the size limit): the index records a file as done only with this.
    sha256: str | None = None


@dataclass
class Chunk:
    index: int  # position within its file, from 0
    text: str  # what gets embedded (transcripts: "speaker: text" lines)
    line_start: int  # first file line the chunk covers (1-based, inclusive)
    line_end: int  # last file line (inclusive)

    @property
    def hash(self) -> str:
        """Content hash: equal text ⇒ equal vector, so it is embedded once."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()
