"""Write a new memory note: what an agent's `remember` does.

A note is a markdown file with YAML front matter (title, date and the tags)
and a body of the title as a ``# heading`` (as a person's note starts, and
what a markdown viewer shows first), then the text, byte for byte. A text
that already starts with a heading gets no second one. It is written atomically and never
over an existing file: the bytes go to a hidden temporary file that is then
hard-linked to its name, which fails if the name exists (``os.link`` is
atomic and refuses to replace). In a git memory the new file alone is
committed. The caller indexes it.

Nothing is left half done. In git, the note is written and committed under
the writers' lock, after its run was added to the journal (`journal`); a
`remember` killed before its commit, or whose commit failed (a refusing
hook, a detached HEAD), is committed by the next writing run (`tagging.remembered.finish`).
Remembering the same text again (a client's retry) with the same title,
folder and tags gives back the note already written, committed if it was
not, rather than a ``-2`` copy. A folder given through a symlink inside the
memory is written to where the link points, the path the index uses.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

from . import faults
from .git import gitutil
from .reading import surrogates
from .atomic import fsync_dir
from .errors import TachikomaError
from .humanize import hidden_characters, printable
from .memory import MAX_DEPTH, NO_EXCLUSION, Exclusion, PathOutsideMemory, safe_path
from .tagging import journal, remembered
from .tagging.model import check_values
from .tagging.recovery import finish_pending
from .tagging.remembered import MAX_NOTE_BYTES, find_note
from .tagging.writers import acquire_writers_lock
from .reading.tags import InvalidTagValue

MAX_TITLE = 200
_SLUG_WORDS = 8


class NoteError(TachikomaError):
    """The note cannot be written as asked (nothing was written)."""


@dataclass
class Written:
    path: str  # relative to the memory root, POSIX
    commit: str | None  # None: not a git memory (or nothing to commit)
    commit_error: str | None = None
    #: The same note was remembered before (a retry): this is that note, nothing new was written.
    existing: bool = False


#: Names Windows keeps for devices, with any extension ("con.md"): git there refuses such a path, and a clone of the
#: memory fails (`core.protectNTFS`).
_DEVICE = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?", re.IGNORECASE)
#: Characters a Windows file name cannot hold (a backslash is told apart: it is a Windows path's separator).
_NOT_ON_WINDOWS = '<>:"|?*'


def slug(text: str) -> str:
    """A file name stem from a title: lower case ASCII words joined by hyphens ("note" if none); a name Windows keeps
    for a device ("con", "nul") ends in ``-note``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())[:_SLUG_WORDS]
    stem = "-".join(words)[:80].strip("-") or "note"
    return f"{stem}-note" if _DEVICE.fullmatch(stem) else stem


def _refuse_unportable(folder: str) -> None:
    """Refuse a folder git cannot check out on Windows, where a memory's clone may live: a Windows path ("notes\\2026",
    told the folder meant), a character Windows file names cannot hold, a name ending in a dot or a space, or a
    name Windows keeps for a device ("aux", "com3")."""
    if "\\" in folder:
        # A Windows path ("notes\\2026") is one folder of that name here, which git cannot check out on Windows.
        meant = folder.replace("\\", "/")
        raise NoteError(f"the folder {printable(repr(folder))} holds a backslash: separate folders with '/' "
                        f"({printable(repr(meant))}); a backslash in a name cannot be checked out on Windows")
    for part in folder.split("/"):
        if part in ("", ".", ".."):  # the path's own steps: `safe_path` judges them
            continue
        held = sorted({ch for ch in part if ch in _NOT_ON_WINDOWS})
        why = (f"holds {' '.join(repr(ch) for ch in held)}, which a name cannot hold on Windows" if held else
               "ends in a dot or a space, which Windows drops from a name" if part.endswith((".", " ")) else
               "is a name Windows keeps for a device" if _DEVICE.fullmatch(part) else None)
        if why:
            raise NoteError(f"the folder {printable(repr(folder))}: {printable(repr(part))} {why}, so git cannot "
                            "check the note out there; name the folder otherwise")


#: A heading line, its text to the line's end (`opening_heading` cuts the closing #s and spaces): a lazy ``(.*?)``
#: before ``[ \t#]*$`` costs the square of a run of spaces in the line.
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]+(.*))?[ \t#]*")


def opening_heading(text: str) -> str | None:
    """The title of the heading `text` opens with (blank lines before it ignored; "" for a bare ``#``), without its
    closing #s and spaces; None when it opens with none."""
    line, ended, _ = text.lstrip("\r\n").partition("\n")
    match = _HEADING.fullmatch(line.removesuffix("\r") if ended else line)  # a CRLF's CR, not a CR alone
    return None if match is None else (match.group(1) or "").rstrip(" \t#")


def render(text: str, title: str, values: dict[str, str], when: datetime) -> str:
    """The note's text: front matter (dumped by YAML, so any title is safe), the title as a
    ``# heading`` unless `text` starts with one, then `text`."""
    meta = {"title": title, "date": when.isoformat(timespec="seconds"), **values}
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    heading = "" if opening_heading(text) is not None else f"# {title}\n\n"
    return f"---\n{front}---\n\n{heading}{text if text.endswith(chr(10)) else text + chr(10)}"


def remember(root: Path, text: str, title: str | None = None, folder: str | None = None,
             values: dict[str, str | None] | None = None, commit: bool = True,
             now: datetime | None = None, by: str = "", avoid: Callable[[str], bool] | None = None,
             max_bytes: int | None = None, config_path: str | os.PathLike | None = None,
             exclude: Exclusion = NO_EXCLUSION) -> Written:
    """Write `text` as a new note in `folder` (relative to `root`; created if needed) and commit it.

    The file name comes from the title (or the text's first words); when it
    is taken, ``-2``, ``-3``... are tried, so nothing is ever overwritten.
    Raises NoteError for empty text, a bad title or tag value, or a folder
    outside the memory. `by`: who asked, for the commit's trailer (a shared server).
    `avoid(path)`: whether the note may not take that path (an agent's note: no name the owner's
    settings make evergreen, such as MEMORY.md or CLAUDE.md, which agents load as who they are); the
    name then ends in ``-note``, and when that is refused too, nothing is written (NoteError).
    `max_bytes`: the largest file the memory indexes (``[index] max_file_bytes``); a note the index would not
    read (larger, or in a folder nested deeper than the walk goes) is refused before anything is written, and so
    is one that `exclude` (``[index] exclude``) would leave out of the memory.
    `config_path`: the settings file given with ``--config`` (its ``[git] hook_timeout`` counts), else the
    memory's own.
    """
    root = Path(root)
    text, title = surrogates.clean(text or ""), surrogates.clean(title) if title else title  # half a character
    if not text or not text.strip():
        raise NoteError("the note is empty: give the text to remember")
    if "\x00" in text:
        raise NoteError("the text holds a NUL character")
    if len(text.encode("utf-8")) > MAX_NOTE_BYTES:
        raise NoteError(f"the note is larger than {MAX_NOTE_BYTES:,} bytes; split it")
    title = " ".join((title or "").split())
    _refuse_hidden("title", title)
    if len(title) > MAX_TITLE:
        raise NoteError(f"the title is longer than {MAX_TITLE} characters")
    if not title:
        first = opening_heading(text)
        words = first if first is not None else text
        title = " ".join(words.split()[:_SLUG_WORDS])[:MAX_TITLE] or " ".join(text.split()[:_SLUG_WORDS])[:MAX_TITLE]
    given = {k: v for k, v in (values or {}).items() if v is not None}
    try:
        checked = check_values(given) if given else {}
    except (InvalidTagValue, TachikomaError) as exc:
        raise NoteError(str(exc)) from None
    if folder and (reason := exclude.refusal(root, folder.strip())):  # before the folder is made
        raise NoteError(f"the folder {printable(repr(folder.strip()))} is {reason}, so a note there would never be "
                        "found: remember it in another folder")
    target_folder = _folder(root, folder)
    body = render(text, title, checked, now or datetime.now(UTC)).encode("utf-8")
    if max_bytes is not None and len(body) > max_bytes:
        raise NoteError(f"the note would be {len(body):,} bytes, more than the memory indexes ([index] "
                        f"max_file_bytes = {max_bytes:,}): split it")
    stem = slug(title)
    if avoid is not None and avoid(_joined(target_folder, f"{stem}.md")):
        stem += "-note"
        if avoid(_joined(target_folder, f"{stem}.md")):
            raise NoteError(f"a note in {target_folder or 'the top folder'} would be evergreen by the memory's "
                            "settings ([ranking] evergreen), which only the owner chooses: remember it in "
                            "another folder")
    if reason := exclude.refusal(root, _joined(target_folder, f"{stem}.md")):
        raise NoteError(f"the note {_joined(target_folder, f'{stem}.md')!r} would be {reason}, so never found: "
                        "give it another title or folder")
    if not (commit and gitutil.repo_toplevel(root) is not None):
        found = _same_note(root, target_folder, stem, body)
        return Written(path=found, commit=None, existing=True) if found else \
            Written(path=_create(root, target_folder, stem, body), commit=None)
    # One writer at a time with the tag writers (and other `remember` calls): two commits built on the
    # same HEAD at once, the second fails ("HEAD moved"); and a retry must see the first call's note.
    lock = acquire_writers_lock(root, 120)
    try:
        _finish_pending(root, config_path)
        found = _same_note(root, target_folder, stem, body)
        if found:
            written = Written(path=found, commit=None, existing=True)
            run_id = None
        else:
            run_id = journal.add(root, {"action": ["remember", ""], "folder": target_folder, "stem": stem,
                                        "sha256": hashlib.sha256(body).hexdigest()})
            written = Written(path=_create(root, target_folder, stem, body), commit=None)
            faults.point("remember-before-commit")
        try:
            written.commit = gitutil.commit(root, [written.path], remembered.message(written.path, by),
                                            config_path=config_path)
        except gitutil.NotCommitted as exc:  # ignored by git, say: no later run would commit it either
            written.commit_error = f"{exc} (the note is written)"
        except TachikomaError as exc:
            written.commit_error = (f"{exc} (the note is written; the next tachikoma run that writes commits it)"
                                    if run_id else str(exc))
            run_id = None  # stays in the journal
        if run_id:
            journal.drop(root, run_id)
    finally:
        lock.release()
    return written


def _joined(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _finish_pending(root: Path, config_path: str | os.PathLike | None = None) -> None:
    """Commit what earlier runs left uncommitted (see `tagging.recovery.recover`), before this one."""
    finish_pending(Path(root).resolve(), config_path)


def _same_note(root: Path, folder: str, stem: str, body: bytes) -> str | None:
    """The note `remember` wrote before with these bytes but its date (a retry), or None."""
    wanted = _without_date(body)
    return find_note(root, folder, stem, lambda data: _without_date(data) == wanted)


def _without_date(data: bytes) -> bytes:
    """A note `render` wrote, less its date line (the first line starting with "date: ")."""
    at = data.find(b"\ndate: ")
    if at < 0:
        return data
    end = data.find(b"\n", at + 1)
    return data[:at] + (data[end:] if end >= 0 else b"")


def _refuse_hidden(what: str, text: str) -> None:
    """Refuse control and invisible format characters (a newline, ESC, a right-to-left override, a
    zero-width space): in a path or a commit subject they fake lines or hide what a name says."""
    if hidden := hidden_characters(text):
        raise NoteError(f"the {what} '{printable(text)}' holds a control or invisible character "
                        f"({', '.join(printable(ch) for ch in hidden)}): leave it out")


def _folder(root: Path, folder: str | None) -> str:
    """`folder` checked to lie inside the memory (and made); "" for the top."""
    folder = (folder or "").strip().rstrip("/")
    if not folder:
        return ""
    _refuse_hidden("folder", folder)
    _refuse_unportable(folder)
    try:
        full = safe_path(root, folder)
    except PathOutsideMemory as exc:
        raise NoteError(f"folder {exc}") from None
    _refuse_deep(folder)
    if full.exists() and not full.is_dir():
        raise NoteError(f"{folder!r} is a file, not a folder")
    try:
        full.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file on the way ("a.md/sub"), a dangling symlink
        raise NoteError(f"cannot make the folder {folder!r} ({exc.strerror})") from None
    try:
        safe_path(root, folder)  # made through a symlink that points away: refused after all
    except PathOutsideMemory as exc:
        raise NoteError(f"folder {exc}") from None
    # Through a symlinked folder: write where it points, the path the memory walk (and so the index and
    # git) knows the note by; the walk never follows a symlinked folder.
    real = full.resolve().relative_to(Path(root).resolve()).as_posix()
    _refuse_deep(real)
    return "" if real == "." else real


def _refuse_deep(folder: str) -> None:
    """Refuse a folder nested deeper than the memory walk reads (`memory.MAX_DEPTH`): a note there is never indexed."""
    depth = len([part for part in folder.split("/") if part not in ("", ".")])
    if depth > MAX_DEPTH:
        raise NoteError(f"the folder is nested {depth} levels deep; the memory reads no folder deeper than {MAX_DEPTH}, "
                        "so a note there would never be found: remember it higher up")


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
            fsync_dir(directory)
            return f"{folder}/{name}" if folder else name
        raise NoteError(f"too many notes named {stem}-N.md in {folder or 'the memory folder'}")
    finally:
        os.unlink(temp)
