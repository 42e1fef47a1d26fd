"""Write a new memory note: what an agent's `remember` does.

A note is a markdown file with YAML front matter (title, date and the tags)
and the text as its body, byte for byte. It is written atomically and never
over an existing file: the bytes go to a hidden temporary file that is then
hard-linked to its name, which fails if the name exists (``os.link`` is
atomic and refuses to replace). In a git memory the new file alone is
committed. The caller indexes it.
"""

from __future__ import annotations

import os
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import yaml

from . import gitutil
from .atomic import _fsync_dir
from .errors import TachikomaError
from .memory import PathOutsideMemory, safe_path
from .tagging import acquire_writers_lock, check_values
from .tags import InvalidTagValue

#: The longest note `remember` writes (the indexer's own limit is larger).
MAX_NOTE_BYTES = 1_000_000
MAX_TITLE = 200
_SLUG_WORDS = 8


class NoteError(TachikomaError):
    """The note cannot be written as asked (nothing was written)."""


@dataclass
class Written:
    path: str  # relative to the memory root, POSIX
    commit: str | None  # None: not a git memory (or nothing to commit)
    commit_error: str | None = None


def slug(text: str) -> str:
    """A file name stem from a title: lower case ASCII words joined by hyphens ("note" if none)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())[:_SLUG_WORDS]
    return "-".join(words)[:80].strip("-") or "note"


def render(text: str, title: str, values: dict[str, str], when: datetime) -> str:
    """The note's text: front matter (dumped by YAML, so any title is safe) and `text` as the body."""
    meta = {"title": title, "date": when.isoformat(timespec="seconds"), **values}
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{front}---\n\n{text if text.endswith(chr(10)) else text + chr(10)}"


def remember(root: Path, text: str, title: str | None = None, folder: str | None = None,
             values: dict[str, str | None] | None = None, commit: bool = True,
             now: datetime | None = None) -> Written:
    """Write `text` as a new note in `folder` (relative to `root`; created if needed) and commit it.

    The file name comes from the title (or the text's first words); when it
    is taken, ``-2``, ``-3``... are tried, so nothing is ever overwritten.
    Raises NoteError for empty text, a bad title or tag value, or a folder
    outside the memory.
    """
    root = Path(root)
    if not text or not text.strip():
        raise NoteError("the note is empty: give the text to remember")
    if "\x00" in text:
        raise NoteError("the text holds a NUL character")
    if len(text.encode("utf-8")) > MAX_NOTE_BYTES:
        raise NoteError(f"the note is larger than {MAX_NOTE_BYTES:,} bytes; split it")
    title = " ".join((title or "").split())
    if len(title) > MAX_TITLE:
        raise NoteError(f"the title is longer than {MAX_TITLE} characters")
    if not title:
        title = " ".join(text.split()[:_SLUG_WORDS])[:MAX_TITLE]
    given = {k: v for k, v in (values or {}).items() if v is not None}
    try:
        checked = check_values(given) if given else {}
    except (InvalidTagValue, TachikomaError) as exc:
        raise NoteError(str(exc)) from None
    target_folder = _folder(root, folder)
    body = render(text, title, checked, now or datetime.now(timezone.utc)).encode("utf-8")
    path = _create(root, target_folder, slug(title), body)
    written = Written(path=path, commit=None)
    if commit and gitutil.repo_toplevel(root) is not None:
        try:
            # One commit at a time with the tag writers (and other `remember` calls): two commits built on
            # the same HEAD at once, the second fails ("HEAD moved") and leaves its note untracked.
            lock = acquire_writers_lock(root, 120)
            try:
                written.commit = gitutil.commit(root, [path], f"tachikoma: remember {path}\n")
            finally:
                lock.release()
        except TachikomaError as exc:
            written.commit_error = str(exc)
    return written


def _folder(root: Path, folder: str | None) -> str:
    """`folder` checked to lie inside the memory (and made); "" for the top."""
    folder = (folder or "").strip().rstrip("/")
    if not folder:
        return ""
    try:
        full = safe_path(root, folder)
    except PathOutsideMemory as exc:
        raise NoteError(f"folder {exc}") from None
    if full.exists() and not full.is_dir():
        raise NoteError(f"{folder!r} is a file, not a folder")
    try:
        full.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file on the way ("a.md/sub"), a dangling symlink
        raise NoteError(f"cannot make the folder {folder!r} ({exc.strerror})") from None
    safe_path(root, folder)  # made through a symlink that points away: refused after all
    return folder


def _create(root: Path, folder: str, stem: str, data: bytes) -> str:
    """Write `data` to a new file `<folder>/<stem>[-n].md`; its relative path."""
    directory = root / folder if folder else root
    temp = directory / f".{stem}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        for n in range(1, 1000):
            name = f"{stem}.md" if n == 1 else f"{stem}-{n}.md"
            try:
                os.link(temp, directory / name)  # atomic, and never replaces an existing file
            except FileExistsError:
                continue
            _fsync_dir(directory)
            return f"{folder}/{name}" if folder else name
        raise NoteError(f"too many notes named {stem}-N.md in {folder or 'the memory folder'}")
    finally:
        os.unlink(temp)
