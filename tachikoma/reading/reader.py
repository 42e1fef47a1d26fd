"""Read one memory file into a Document, whatever state the file is in.

Bad content never raises: every problem becomes a warning
``"path[:line]: reason"`` in ``Document.warnings``. A file that cannot be
indexed at all (too big, binary, unreadable) comes back as an empty Document
with a warning, which the indexer reports as skipped. `Document.sha256` is
the hash of the bytes actually read (None when nothing could be read), so the
index fingerprints exactly the content it chunked, never a version seen before. Everything else is
indexed as well as it can be: invalid UTF-8 is decoded with replacement
characters, and a markdown file with malformed front matter is indexed whole,
so nothing in it is lost from search.

Text is normalised in two ways that keep line numbers intact: a leading
UTF-8 byte order mark is dropped and CRLF line endings become LF.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .documents import KINDS, MARKDOWN, Document
from .frontmatter import split
from .yaml_rules import describe_duplicates
from . import logseq
from ..memory import PathOutsideMemory, checkpoint_session, file_type, open_regular, safe_path
from ..redaction import redact_document
from .tags import Tags
from ..transcripts import Options, claude_code, parse_timestamp, parse_transcript

#: A NUL byte within this many leading bytes marks a file as binary.
BINARY_SNIFF_BYTES = 8192
_DATE_KEYS = ("updated", "date")
_AT_LINE = re.compile(r" at line (\d+)")
#: A Unix time in a date key: milliseconds (Dendron's `updated: 1796247600000`) or seconds, 2001 to 2286.
_UNIX_TIME = re.compile(r"[1-9]\d{12}|[1-9]\d{9}")
#: YAML 1.1 timestamp forms that datetime.fromisoformat does not take (one-digit
#: month or day, spaces before the zone, "+1" zones).
_YAML_TIMESTAMP = re.compile(
    r"""(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})
        (?:(?:[Tt]|[ \t]+)(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})
           (?:\.(?P<fraction>[0-9]*))?
           (?:[ \t]*(?P<tz>Z|z|(?P<sign>[-+])(?P<tz_hour>[0-9]{1,2})(?::?(?P<tz_minute>[0-9]{2}))?))?)?""",
    re.VERBOSE)


def read_document(root: Path, rel_path: str, kind: str, max_bytes: int = 5_000_000,
                  transcript_options: Options | None = None, redact: bool = True) -> Document:
    """Read `rel_path` (relative to the memory `root`) as a `kind` document, its secrets replaced by
    markers (`redaction`; `redact` false: as written, ``[privacy] redact_secrets = false``), counted in
    ``Document.secrets``.

    The file is opened only through `memory.safe_path`, so a path that leaves
    the root raises `memory.PathOutsideMemory` (a caller error, not bad
    content). Never raises for what the file contains. A note in a Logseq graph
    gets the names Logseq gives it (`Document.names`, `logseq.page_names`), and a
    warning for tags written as its properties (`logseq.tags_ignored`).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown document kind {kind!r}")
    doc = _read(root, rel_path, kind, max_bytes, transcript_options)
    if redact:
        doc.secrets = redact_document(doc)
    if kind == MARKDOWN and doc.sha256 is not None:  # a Logseq page: its title:: and alias:: as redacted
        doc.names, ignored = logseq.read_page(root, rel_path, doc.text, doc.tags)
        if ignored is not None:  # tags written as its properties: not read, and said
            doc.warnings.append(f"{rel_path}:{doc.body_line + ignored[0]}: {ignored[1]}")
    return doc


def _read(root: Path, rel_path: str, kind: str, max_bytes: int, transcript_options: Options | None) -> Document:
    doc = Document(path=rel_path, kind=kind)
    path = safe_path(root, rel_path)
    if kind != MARKDOWN and checkpoint_session(rel_path) is None:
        # Streamed. An OpenClaw checkpoint is read whole: its lines are compared with its session's
        # (`checkpoint_copy_of`), and it is no bigger than that session.
        return _read_transcript(root, path, doc, max_bytes, transcript_options)
    data = _read_bytes(path, rel_path, max_bytes, doc.warnings)
    if data is None:
        return doc
    doc.sha256 = hashlib.sha256(data).hexdigest()
    if (unreadable := unreadable_reason(data[:BINARY_SNIFF_BYTES])) is not None:
        doc.warnings.append(f"{rel_path}: {unreadable}, skipped")
        return doc
    text = _decode(data, rel_path, doc.warnings)
    if kind == MARKDOWN:
        _fill_markdown(doc, text)
    elif (session := checkpoint_copy_of(root, rel_path, text, max_bytes)) is not None:
        doc.warnings.append(f"{rel_path}: {CHECKPOINT_COPY} {session} (every line of it is there), not indexed twice")
    else:
        _take_transcript(doc, parse_transcript(text, rel_path, transcript_options), root, max_bytes)
    return doc


#: The words of a checkpoint's warning (`transcripts.problem_kind` reads them as "checkpoint-copy").
CHECKPOINT_COPY = "an OpenClaw checkpoint copy of"


def checkpoint_copy_of(root: Path, rel_path: str, text: str, max_bytes: int) -> str | None:
    """The session file (`<id>.jsonl`, or its reset archive) holding every line of the OpenClaw checkpoint
    `rel_path` whose text is `text`, or None: not a checkpoint, its session is gone, or the checkpoint
    holds a line the session does not (then it is indexed: nothing is lost)."""
    named = checkpoint_session(rel_path)
    if named is None:
        return None
    folder, session = named
    try:
        listed = sorted(p.name for p in safe_path(root, folder or ".").iterdir()
                        if p.name == session or p.name.startswith(session + ".reset."))
    except (OSError, PathOutsideMemory):
        return None
    wanted = {line.strip() for line in text.split("\n") if line.strip()}
    for name in listed:
        held = _sibling_text(root, folder + name, max_bytes)
        if held and wanted <= {line.strip() for line in held.split("\n")}:
            return folder + name
    return None


class _Skip(Exception):
    """The file turned out unreadable while streaming (binary, grown over the limit): say why."""


def _read_transcript(root: Path, path: Path, doc: Document, max_bytes: int,
                     options: Options | None) -> Document:
    """A transcript read line by line from disk, never whole: a session of gigabytes costs the memory
    of its turns' text, not of its bytes. The same result as reading it whole (`_stream_lines`)."""
    rel_path = doc.path
    try:
        info = os.stat(path)
        what = file_type(info.st_mode)
        if what is not None:
            doc.warnings.append(f"{rel_path}: not a regular file ({what}), skipped")
            return doc
        if info.st_size > max_bytes:
            doc.warnings.append(f"{rel_path}: {info.st_size} bytes, over the {max_bytes}-byte limit "
                                "([index] max_file_bytes), skipped")
            return doc
        with open_regular(path) as handle:  # replaced by a FIFO since: refused, not waited on
            digest = hashlib.sha256()
            head = handle.read(BINARY_SNIFF_BYTES)
            if (unreadable := unreadable_reason(head)) is not None:
                digest.update(head + handle.read())  # the hash of what was read, as for a note
                doc.sha256 = digest.hexdigest()
                doc.warnings.append(f"{rel_path}: {unreadable}, skipped")
                return doc
            handle.seek(0)
            decoding: list[int] = []  # the first line with bytes that are not UTF-8
            too_long: list[tuple[int, int]] = []  # (line, bytes) of lines over MAX_LINE_BYTES, skipped
            lines = _stream_lines(handle, digest, max_bytes, decoding, too_long)
            try:
                transcript = parse_transcript(lines, rel_path, options)
                for _ in lines:  # the reader stops at the end; make sure every byte was hashed
                    pass
            except _Skip as exc:
                doc.warnings.append(f"{rel_path}: {exc}, skipped")
                return doc
    except OSError as exc:
        doc.warnings.append(f"{rel_path}: cannot read ({exc.strerror or exc}), skipped")
        return doc
    doc.sha256 = digest.hexdigest()
    if decoding:
        doc.warnings.append(f"{rel_path}:{decoding[0]}: invalid UTF-8, undecodable bytes replaced")
    if too_long:
        (first, size), more = too_long[0], len(too_long) - 1
        doc.warnings.append(f"{rel_path}:{first}: line {first} is {size:,} bytes, over the {MAX_LINE_BYTES:,}-byte "
                            "limit of one transcript line: skipped, the rest of the file indexed"
                            + (f" ({more} more such line{'s' if more > 1 else ''})" if more else ""))
    _take_transcript(doc, transcript, root, max_bytes)
    return doc


def _take_transcript(doc: Document, transcript, root: Path, max_bytes: int) -> None:
    """Give `doc` a parsed transcript's turns, session (a Claude Code subagent named after its parent's
    task) and warnings: the same for a transcript read whole or streamed."""
    if transcript.format == claude_code.NAME and isinstance(transcript.session.get("parent"), str):
        parent = _sibling_text(root, transcript.session["parent"], max_bytes)
        if parent:
            claude_code.name_subagent(transcript, parent)
    doc.turns, doc.session = transcript.turns, transcript.session
    if transcript.format:
        doc.session["format"] = transcript.format
    doc.warnings.extend(transcript.warnings)


#: The longest transcript line read, in bytes: one record past it (a 45 MB tool output on one line) is
#: skipped with a warning naming its line, so that it never holds gigabytes of memory nor the run for
#: minutes; the rest of its file is indexed. Read in pieces, so the skipped line is never held whole.
MAX_LINE_BYTES = 4_000_000
_PIECE = 1 << 20


def _stream_lines(handle, digest, max_bytes: int, decoding: list[int], too_long: list[tuple[int, int]] | None = None,
                  max_line: int | None = None):
    """The file's lines as ``text.split("\\n")`` gives them after `_decode` (a leading byte-order mark
    dropped, CRLF read as LF, bad UTF-8 replaced, its first line noted in `decoding`), hashing every byte
    into `digest`; raises `_Skip` when the file grows past `max_bytes` while it is read. A line longer than
    `max_line` (default `MAX_LINE_BYTES`) comes as "" and is noted in `too_long` as (line, bytes)."""
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    total = 0
    number = 0
    ended = True  # an empty file is one empty line, as "".split("\\n") is
    while raw := handle.readline(max_line + 1):
        total += len(raw)
        if total > max_bytes:
            raise _Skip(f"over the {max_bytes}-byte limit ([index] max_file_bytes)")
        digest.update(raw)
        number += 1
        if len(raw) > max_line and not raw.endswith(b"\n"):  # too long: hashed and passed over in pieces
            size = len(raw)
            while (piece := handle.readline(_PIECE)) and size < max_bytes + 1:
                total += len(piece)
                if total > max_bytes:
                    raise _Skip(f"over the {max_bytes}-byte limit ([index] max_file_bytes)")
                digest.update(piece)
                size += len(piece)
                raw = piece
                if piece.endswith(b"\n"):
                    break
            if too_long is not None:
                too_long.append((number, size))
            ended = raw.endswith(b"\n")
            yield ""
            continue
        if number == 1:
            raw = _strip_bom(raw)
        ended = raw.endswith(b"\n")
        if ended:
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            if not decoding:
                decoding.append(number)
            yield raw.decode("utf-8", "replace")
    if ended:
        yield ""


def _sibling_text(root: Path, rel_path: str, max_bytes: int) -> str:
    """Another memory file's text (a subagent's parent session), or "" when it cannot be read."""
    try:
        data = _read_bytes(safe_path(root, rel_path), rel_path, max_bytes, [])
    except PathOutsideMemory:
        return ""
    return "" if data is None else data.decode("utf-8", "replace")


def _read_bytes(path: Path, rel_path: str, max_bytes: int, warnings: list[str]) -> bytes | None:
    """The file's bytes, or None (with a warning) when it must be skipped."""
    try:
        info = os.stat(path)
        what = file_type(info.st_mode)
        if what is not None:
            warnings.append(f"{rel_path}: not a regular file ({what}), skipped")
            return None
        if info.st_size > max_bytes:
            warnings.append(f"{rel_path}: {info.st_size} bytes, over the {max_bytes}-byte limit "
                            "([index] max_file_bytes), skipped")
            return None
        with open_regular(path) as handle:  # replaced by a FIFO since: refused, not waited on
            data = _read_at_most(handle, max_bytes + 1)
    except OSError as exc:
        warnings.append(f"{rel_path}: cannot read ({exc.strerror or exc}), skipped")
        return None
    if len(data) > max_bytes:  # grew since it was measured
        warnings.append(f"{rel_path}: over the {max_bytes}-byte limit ([index] max_file_bytes), skipped")
        return None
    return data


def _read_at_most(handle, limit: int, block: int = 1 << 20) -> bytes:
    """Up to `limit` bytes, read in blocks: ``read(limit)`` would allocate the whole limit up
    front, a gigabyte for every file when ``max_file_bytes`` is raised for long sessions."""
    parts, total = [], 0
    while total < limit:
        part = handle.read(min(block, limit - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def is_binary(head: bytes) -> bool:
    """Whether a file starting with `head` is binary (a NUL in its first `BINARY_SNIFF_BYTES`)."""
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def unreadable_reason(head: bytes) -> str | None:
    """Why a file starting with `head` is not read as text, or None. UTF-16/32 text (a byte-order
    mark, then NULs) is named as such, so the user knows to save it as UTF-8; it is not read, as
    tagging could not then keep its body byte for byte."""
    if not is_binary(head):
        return None
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "UTF-32 text: save it as UTF-8"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "UTF-16 text: save it as UTF-8"
    return "binary file (contains NUL bytes)"


def _strip_bom(data: bytes) -> bytes:
    return data.removeprefix(codecs.BOM_UTF8)


def _decode(data: bytes, rel_path: str, warnings: list[str]) -> str:
    """UTF-8 text with LF line endings; bad bytes become U+FFFD with a warning."""
    data = _strip_bom(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(f"{rel_path}:{line}: invalid UTF-8, undecodable bytes replaced")
        text = data.decode("utf-8", "replace")
    return text.replace("\r\n", "\n")


def _fill_markdown(doc: Document, text: str) -> None:
    fm = split(text)
    if fm.error:
        match = _AT_LINE.search(fm.error)
        line = match.group(1) if match else "1"
        reason = _AT_LINE.sub("", fm.error, count=1)
        doc.warnings.append(f"{doc.path}:{line}: {reason}; the whole file is indexed as text")
        doc.text, doc.body_line = text, 1
        return
    doc.meta = fm.meta
    doc.text, doc.body_line = fm.body, fm.body_line
    for name, places in fm.duplicate_keys().items():
        doc.warnings.append(f"{doc.path}:{places[-1][1]}: {describe_duplicates(name, places)}; the last one is used")
    doc.tags = Tags.from_mapping(fm.meta)
    doc.date = _front_matter_date(doc, fm.key_lines)


def _front_matter_date(doc: Document, key_lines: list[tuple[object, int]]) -> datetime | None:
    """`updated`, else `date`, as an aware UTC datetime; unparseable values are reported.

    Front matter dates arrive as text (YAML loading never builds dates), so an
    impossible one such as 2026-02-30 is a warning with its line, not a crash.
    """
    lowered = {str(k).strip().lower(): v for k, v in doc.meta.items()}
    for key in _DATE_KEYS:
        value = lowered.get(key)
        if value is None:
            continue
        parsed = parse_date(value)
        if parsed is not None:
            return parsed
        where = _key_line(key_lines, key)
        doc.warnings.append(f"{doc.path}{where}: front matter {key} {str(value)!r} is not a date, ignored")
    return None


def parse_date(value: object) -> datetime | None:
    """A front matter date or timestamp as an aware UTC datetime, or None when it is not one.

    Takes ISO 8601 text (``2026-03-22``, ``2026-03-22T10:00:00+02:00``, a
    trailing ``Z``), YAML's looser forms (``2026-3-2``, ``2026-03-22 10:00:00
    +2``) and date/datetime objects; and a whole number that is a Unix time in milliseconds (13 digits, as Dendron
    writes `updated` and `created`) or seconds (10 digits). Other numbers are not dates here. Impossible dates
    (month 13, February 30, hour 25) are None. Naive values are UTC.
    """
    if type(value) is int and _UNIX_TIME.fullmatch(str(value)):
        return datetime.fromtimestamp(value / (1000 if value >= 10**12 else 1), tz=timezone.utc)
    if isinstance(value, (bool, int, float)):
        return None
    if not isinstance(value, str):
        return parse_timestamp(value)
    text = value.strip()
    if not text:
        return None
    parsed = parse_timestamp(text)
    if parsed is not None:
        return parsed
    match = _YAML_TIMESTAMP.fullmatch(text)
    if not match:
        return None
    g = match.groupdict()
    try:
        fraction = (g["fraction"] or "")[:6].ljust(6, "0")
        result = datetime(int(g["year"]), int(g["month"]), int(g["day"]), int(g["hour"] or 0),
                          int(g["minute"] or 0), int(g["second"] or 0), int(fraction))
        if g["sign"]:
            offset = timedelta(hours=int(g["tz_hour"]), minutes=int(g["tz_minute"] or 0))
            result = result.replace(tzinfo=timezone(-offset if g["sign"] == "-" else offset))
    except ValueError:  # month 13, day 30 of February, hour 25, zone over 24 hours
        return None
    if result.tzinfo is None:
        return result.replace(tzinfo=timezone.utc)
    return result.astimezone(timezone.utc)


def _key_line(key_lines: list[tuple[object, int]], key: str) -> str:
    """":N" for the top-level front matter line whose `key` value counts (the last one written), or ""."""
    lines = [line for name, line in key_lines if str(name).strip().lower() == key]
    return f":{lines[-1]}" if lines else ""
