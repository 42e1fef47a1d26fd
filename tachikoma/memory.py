"""The memory folder: where it is, which files belong to it, and safe paths inside it.

Nothing outside the root is ever read or written. Hidden files and folders
(``.git``, ``.cache``, ``.obsidian``, ``.draft.md``) are not memory, but for
Claude Code's own: ``.claude/CLAUDE.md`` and ``.claude/rules/`` (`hidden`); a
hidden file or folder holding memory files is skipped with a warning (``.git``
and ``.cache`` are never looked into). A symlink that resolves outside the
root, into a hidden folder, or nowhere (a loop), is skipped with a warning,
and so is a file whose name is not valid UTF-8 (the index stores names as
text). The person leaves out more with ``[index] exclude`` (`Exclusion`: a
template folder, an archive); the walk never enters a folder it leaves out,
and reading or tagging such a file is refused. A Logseq graph's copies of its
pages (``logseq/bak/``, `logseq.copies_folder`) are left out the same way. `humanize.printable` shows a
name safely in a terminal.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .reading.documents import MARKDOWN, SUFFIX_KIND, TRANSCRIPT
from .reading import logseq
from .errors import TachikomaError
from .globs import nfc, path_matcher, pattern_matches
from .humanize import plural, printable
from .redaction import Redactor, redact_jsonl_line

CACHE_DIR = ".cache"
INDEX_NAME = "index.db"
TAG_FILE = "tachikoma-tags.yaml"
CONFIG_FILE = "tachikoma.toml"


#: Claude Code keeps a project's memory in `.claude/CLAUDE.md` and its rules in `.claude/rules/` (in any folder of
#: the project, its root or deeper): the only hidden paths that are memory (`hidden`).
CLAUDE_FOLDER, CLAUDE_FILE, CLAUDE_RULES = ".claude", "CLAUDE.md", "rules"
#: What a warning about a hidden file or folder says is read instead.
HIDDEN_READ = "of hidden files and folders only .claude/CLAUDE.md and .claude/rules/ are read"
#: Hidden folders never looked into, not even to say what they hold: git's, and caches (tachikoma's index).
NOT_LOOKED_INTO = frozenset({".git", CACHE_DIR})
#: Hidden names that are never memory, so never warned about: an editor's lock file (Emacs: ``.#note.md``) and
#: macOS's AppleDouble companion of a file on a foreign disk (``._note.md``).
NEVER_NOTES = (".#", "._")
#: A hidden folder's memory files are counted (to say what is not read) over at most this many entries.
HIDDEN_COUNT_ENTRIES = 10_000


def hidden(rel: str, folder: bool | None = None) -> bool:
    """Whether `rel` (relative to the memory folder, "/" between its names) is hidden, so not memory: a name in
    it starts with "." (`.git/config`, `.obsidian`, `notes/.draft.md`), unless it is Claude Code's memory:
    `.claude/CLAUDE.md` and what `.claude/rules/` holds, in any folder. `folder`: `rel` is a folder (`.claude`
    and `.claude/rules` are walked into), a file (False), or either (None: hidden only when it is both ways)."""
    parts = rel.split("/")
    for i, part in enumerate(parts):
        if not part.startswith("."):
            continue
        if part != CLAUDE_FOLDER:
            return True
        rest = parts[i + 1:]
        if not rest or rest == [CLAUDE_RULES]:  # `.claude`, `.claude/rules`: folders
            if folder is False:
                return True
        elif rest == [CLAUDE_FILE]:
            if folder is True:
                return True
        elif rest[0] != CLAUDE_RULES:
            return True
    return False


class PathOutsideMemory(TachikomaError):
    """A requested path is not inside the memory root."""


#: The setting that leaves files and folders out of the memory (`Exclusion`), as messages name it.
EXCLUDE_SETTING = "[index] exclude"


@dataclass(frozen=True)
class Exclusion:
    """The files and folders the person leaves out of the memory (``[index] exclude``): glob patterns relative to
    the memory folder, read as `globs.pattern_matches` reads a tag selector's (``Templates/`` or ``Archive/**``: a
    folder and everything in it; ``**/drafts/*.md``; ``*.excalidraw.md``: that name in any folder). A file is left
    out when a pattern matches it or a folder it is in; a folder is left out whole (never walked) when a pattern
    matches it, or matches every name in it. Matching keeps case, as the file system does. The one rule the walk
    (so indexing, freshness, `stats` and tagging), the watcher, `read` and tagging by path follow."""

    patterns: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matching(self, rel: str) -> str | None:
        """The first pattern that matches the path `rel` itself ("/" between its names), or None. One match or two
        for them all (`globs.path_matcher`): the walk asks it of every file."""
        if not self.patterns:
            return None
        if not rel.isascii() and not _is_utf8(rel):  # a name that is not UTF-8 (the watcher sees them): the rest counts
            rel = rel.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        if not path_matcher(self.patterns)(rel):
            return None
        return next(pattern for pattern in self.patterns if pattern_matches(pattern, rel))

    def folder(self, rel: str) -> str | None:
        """The pattern that leaves out the folder `rel` and everything in it, or None. A glob that matches the
        folder's path with an empty name after it ("Archive/" for ``Archive/**``) matches every name in it."""
        return self.matching(rel) or self.matching(rel + "/")

    def file(self, rel: str) -> str | None:
        """The pattern that leaves out the file (or folder) at `rel`: it, or a folder it is in; None when none does.
        `rel` may be spelt as a person types it ("./a.md", "a//b.md")."""
        if not self.patterns:
            return None
        spelt = rel.replace("\\", "/") if os.sep == "\\" else rel  # on POSIX a backslash is part of a name
        parts = [part for part in spelt.split("/") if part not in ("", ".")]
        for depth in range(1, len(parts)):
            if pattern := self.folder("/".join(parts[:depth])):
                return pattern
        return self.folder("/".join(parts)) if parts else None

    def refusal(self, root: Path, rel: str) -> str | None:
        """Why the file at `rel` is not memory by this setting ("left out of the memory by [index] exclude
        ('Templates/')"), or as a Logseq graph's copies of pages (`logseq.copies_folder`), by its path or, through a
        symlink, by the file it is; None when it is memory."""
        spelt = rel.replace("\\", "/") if os.sep == "\\" else rel
        pattern, copies = self.file(rel), logseq.copies_folder(root, spelt)
        if pattern is None and copies is None and (real := resolved(root, rel)):
            pattern, copies = self.file(real) if self.patterns else None, logseq.copies_folder(root, real)
        if pattern is not None:
            return excluded_reason(pattern)
        return None if copies is None else logseq.copies_reason(copies)

    def refuse(self, root: Path, rel: str, what: str) -> None:
        """Raise PathExcluded when the file at `rel` is left out (`refusal`); `what` ends the message ("not read")."""
        if (reason := self.refusal(root, rel)) is not None:
            raise PathExcluded.of(rel, reason, what)


#: No file left out: the setting's default.
NO_EXCLUSION = Exclusion()


def excluded_reason(pattern: str) -> str:
    """"left out of the memory by [index] exclude ('Templates/')": what every face says of an excluded path."""
    return f"left out of the memory by {EXCLUDE_SETTING} ({printable(repr(pattern))})"


class PathExcluded(TachikomaError):
    """A requested file is left out of the memory by ``[index] exclude`` (`Exclusion.refuse`)."""

    @classmethod
    def of(cls, rel: str, reason: str, what: str) -> PathExcluded:
        """"'Templates/daily.md' is left out of the memory by [index] exclude ('Templates/'): not read": the refusal
        of the file at `rel`, `reason` as `Exclusion.refusal` says it, `what` not done."""
        return cls(f"{printable(repr(rel))} is {reason}: {what}")


@dataclass(frozen=True)
class Excluded:
    """Memory files the walk left out by ``[index] exclude``, one folder's worth: a folder left out whole (`whole`:
    not walked, its memory files counted by name, over `HIDDEN_COUNT_ENTRIES` entries at most: `at_least`), or the
    files of one folder that a pattern left out one by one. `logseq`: a Logseq graph's copies of pages
    (``logseq/bak/``, `logseq.COPIES`), left out whole by no pattern (`pattern` is "")."""

    folder: str  # "." for the top
    pattern: str
    files: int
    whole: bool
    at_least: bool = False
    logseq: bool = False


def cache_dir(root: Path) -> Path:
    """`<root>/.cache`, created on demand, ignoring itself for git."""
    cache = root / CACHE_DIR
    if cache.exists() and not cache.is_dir():
        raise TachikomaError(f"{printable(str(cache))} is a file, not a folder: tachikoma keeps its index there; "
                             "move or delete that file")
    try:
        cache.mkdir(exist_ok=True)
        ignore = cache / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# tachikoma's derived index: rebuildable, never committed\n*\n")
    except OSError as exc:
        raise TachikomaError(f"cannot create {printable(str(cache))} ({exc.strerror})") from None
    return cache


def index_path(root: Path) -> Path:
    return root / CACHE_DIR / INDEX_NAME


#: OpenClaw archives a session it resets as ``<session-id>.jsonl.reset.<timestamp>``: still a session.
_RESET_ARCHIVE = re.compile(r"\.jsonl\.reset\.[^/]+$", re.IGNORECASE)


def kind_of(rel_path: str) -> str | None:
    """"markdown", "transcript" or None for a relative path (a reset session's archive is a transcript)."""
    name = rel_path.rsplit("/", 1)[-1]
    if name in ("", ".", ".."):  # "a.md/", "a.md/.": what pathlib makes of them
        name = PurePosixPath(rel_path).name
    dot = name.rfind(".")  # the suffix as PurePosixPath(rel_path).suffix reads it, without building a path
    kind = SUFFIX_KIND.get(name[dot:].lower()) if 0 < dot < len(name) - 1 else None
    if kind is None and _RESET_ARCHIVE.search(rel_path):
        return TRANSCRIPT
    return kind


#: OpenClaw (before it stopped making them) copied a session before compacting it, as
#: ``<session-id>.checkpoint.<checkpoint-id>.jsonl`` beside it: the same lines again.
_CHECKPOINT = re.compile(r"^(?P<folder>(?:.*/)?)(?P<session>[^/]+)\.checkpoint\.[^/.]+\.jsonl$")


def checkpoint_session(rel_path: str) -> tuple[str, str] | None:
    """(folder, session file name) of the session an OpenClaw checkpoint file copies, or None when
    `rel_path` is not named as one: ``a/s1.checkpoint.c9.jsonl`` → ``("a/", "s1.jsonl")``."""
    match = _CHECKPOINT.match(rel_path)
    return (match["folder"], f"{match['session']}.jsonl") if match else None


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _refusal(root: Path, path: Path) -> str | None:
    """Why the file or folder at `path` (under `root`, maybe through symlinks) may not be
    read, or None. `root` must be resolved."""
    try:
        target = path.resolve()
    except (RuntimeError, OSError):  # RuntimeError: Python < 3.13 on a symlink loop
        return "symlink loop (or too many levels of symlinks)"
    if target == root:
        return None
    try:
        inside = target.relative_to(root)
    except ValueError:
        return "symlink points outside the memory folder"
    if hidden("/".join(inside.parts)):
        return "symlink points into a hidden folder or file"
    return None


def safe_path(root: Path, rel_path: str) -> Path:
    """Resolve `rel_path` inside `root`, refusing anything that escapes it.

    Absolute paths, ``..`` components, hidden components (`hidden`), NUL characters and
    symlinks that resolve outside the root, into a hidden folder (or loop)
    raise PathOutsideMemory. On POSIX a backslash is an ordinary character
    of a file name; on Windows it separates folders. A path the folder does not hold as written, whose
    names it holds in Unicode's other normalisation, is the path as the folder spells it (`spelled`).
    """
    if not rel_path or "\x00" in rel_path:
        raise PathOutsideMemory("empty or invalid path")
    pure = _inside(PurePosixPath(rel_path.replace("\\", "/") if os.sep == "\\" else rel_path), rel_path)
    if not pure.as_posix().isascii() and not os.path.lexists(Path(root) / pure):
        pure = _inside(PurePosixPath(spelled(root, pure.as_posix())), rel_path)  # judged again as the folder spells it
    if _too_long(Path(root), pure):
        # No file can have this name: asking the file system would fail with ENAMETOOLONG.
        raise PathOutsideMemory(f"{printable(repr(rel_path[:60]))}…: name too long to be a file in the memory folder")
    base = Path(root).resolve()
    reason = _refusal(base, base / pure)
    if reason is not None:
        raise PathOutsideMemory(f"{printable(repr(rel_path))}: {reason}")
    return root / pure


def _inside(pure: PurePosixPath, rel_path: str) -> PurePosixPath:
    """`pure` (`rel_path` as a path), refused (PathOutsideMemory) when it is absolute, climbs out or is hidden."""
    if pure.is_absolute() or any(part in ("..", "") for part in pure.parts) or hidden("/".join(pure.parts)):
        raise PathOutsideMemory(f"{printable(repr(rel_path))} is not a path inside the memory folder")
    return pure


def stands_for(root: Path, rel_path: str) -> str | None:
    """The memory file that `rel_path` (a path `safe_path` let through) reaches through a symlink, as the walk lists
    it (`alias.md -> real.md`: "real.md"; a file in a symlinked folder: its own path), when that is a memory file of
    the same kind; None when `rel_path` is that file itself, or what it reaches is no such file (`note.md ->
    note.txt` stands for itself)."""
    real = resolved(root, rel_path)
    itself = spelled(root, (Path(root) / rel_path).relative_to(root).as_posix())
    if real is None or kind_of(real) != kind_of(rel_path) or real == itself:
        return None
    return real if (Path(root) / real).is_file() else None


def resolved(root: Path, rel_path: str) -> str | None:
    """What `rel_path` reaches inside the memory folder `root` once every symlink on its way is followed, relative
    to `root` ("/" between names; its own path, tidied, when it passes no symlink), its names as the folder spells
    them (`spelled`); None when that is outside the memory or cannot be resolved (a loop). The one way a path is
    followed through a symlink to the file it is (`stands_for`, `Exclusion.refusal`, MCP `tag`, `tag FILE`)."""
    try:
        base = Path(root).resolve()
        return (base / spelled(root, rel_path)).resolve().relative_to(base).as_posix()
    except (OSError, RuntimeError, ValueError):
        return None


def spelled(root: Path, rel_path: str) -> str:
    """`rel_path` (relative to `root`, "/" between names) as the memory folder spells it: each name not in ASCII that
    its folder does not hold as written taken as the entry of that folder that is the same name in Unicode's other
    normalisation (`globs.nfc`: ``café.md`` typed composed, NFC, for the ``café.md`` macOS wrote decomposed, NFD, and
    the other way round). A folder that holds both spellings (two files on Linux) gives each its own; on a file
    system that holds one whatever it is asked (macOS), the name it lists. As written when no entry or several
    match. Only entries of folders the path has reached are looked at: `safe_path` judges the result as any path."""
    if rel_path.isascii():
        return rel_path
    folder, names = Path(root), []
    for name in rel_path.split("/"):
        if name not in ("", ".", "..") and not name.isascii():
            name = _entry(folder, name)
        names.append(name)
        folder = folder / name
    return "/".join(names)


def _entry(folder: Path, name: str) -> str:
    """The name of `folder`'s entry that `name` (not ASCII) stands for (`spelled`)."""
    others = {unicodedata.normalize(form, name) for form in ("NFC", "NFD")} - {name}
    if os.path.lexists(folder / name) and not any(os.path.lexists(folder / other) for other in others):
        return name  # held as written, and no other spelling answers: the common case costs no listing
    try:
        listed = os.listdir(folder)
    except OSError:
        return name
    if name in listed:
        return name
    same = [entry for entry in listed if nfc(entry) == nfc(name)]
    return same[0] if len(same) == 1 else name


def read_text(root: Path, rel_path: str, lines: str | None = None, max_bytes: int = 5_000_000,
              redact: bool = True, exclude: Exclusion = NO_EXCLUSION) -> dict:
    """A memory file's text, whole or the line range `lines` ("12-40" or "12"), for an agent to read,
    its secrets replaced by markers as the index holds them (`redaction`; `redact` false: as written).

    Only memory files (notes and transcripts) inside `root`, none that `exclude` leaves out (PathExcluded,
    saying which pattern). Returns
    {"path", "lines": [first, last], "total_lines", "text"}; raises
    TachikomaError for anything else, a range outside the file, or more than
    `max_bytes` to return. The file is read line by line, so a line range of
    a file larger than `max_bytes` (a long session) can still be read. Lines
    end at LF, as the index numbers them; undecodable bytes are shown as U+FFFD.
    """
    full = safe_path(root, rel_path)
    if kind_of(rel_path) is None or not full.is_file():
        raise TachikomaError(f"{printable(repr(rel_path))} is not a memory file (a .md note or .jsonl "
                             "transcript) in the memory folder")
    exclude.refuse(root, rel_path, "not read")
    first, last = 1, None
    if lines:
        parts = [int(p) for p in lines.replace(" ", "").split("-")]
        first, last = parts[0], parts[-1]
    size = full.stat().st_size
    if last is None and size > max_bytes:
        raise TachikomaError(f"{printable(rel_path)} is {size:,} bytes, more than the {max_bytes:,} read at "
                             "most: ask for a line range such as '1-200'")
    kept: list[bytes] = []
    held = total = 0
    redactor = Redactor() if redact and kind_of(rel_path) == MARKDOWN else None
    with open(full, "rb") as handle:
        for total, raw in enumerate(handle, 1):
            if redactor is not None and total < first and (redactor.in_key or b"PRIVATE KEY" in raw):
                redactor.line(raw.decode("utf-8", "replace"))  # a private key that the range starts inside
            if first <= total and (last is None or total <= last):
                held += len(raw)
                if held > max_bytes:
                    raise TachikomaError(f"lines {lines} of {printable(rel_path)} hold more than the {max_bytes:,} "
                                         "bytes read at most: ask for fewer lines")
                kept.append(raw)
    if lines and (not 1 <= first <= last or first > total):
        raise TachikomaError(f"lines {lines} are not within {printable(rel_path)}, which has {plural(total, 'line')}")
    text = b"".join(kept).decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")
    if redactor is not None:
        text = redactor.sweep(redactor.text(text))
    elif redact:  # a transcript: each JSON line's strings
        text = "\n".join(redact_jsonl_line(line)[0] for line in text.split("\n"))
    return {"path": rel_path, "lines": [first, min(last or total, total)], "total_lines": total,
            "text": text.removesuffix("\n")}


def _too_long(root: Path, pure: PurePosixPath) -> bool:
    """Whether a name in `pure`, or the whole path below `root`, is longer than the file system allows."""
    try:
        name_max, path_max = os.pathconf(root, "PC_NAME_MAX"), os.pathconf(root, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # not POSIX, or unknown here
        name_max, path_max = 255, 4096
    return (any(len(os.fsencode(part)) > name_max for part in pure.parts)
            or len(os.fsencode(str(root / pure))) >= path_max)


@dataclass(frozen=True, init=False)
class MemoryFile:
    path: str  # relative, POSIX separators
    kind: str
    location: str  # absolute
    size: int
    mtime_ns: int

    def __init__(self, path: str, kind: str, location: str, size: int, mtime_ns: int):
        # One dict update instead of a frozen dataclass's five object.__setattr__ calls: a search's
        # freshness check makes one of these per file of the memory.
        self.__dict__.update(path=path, kind=kind, location=location, size=size, mtime_ns=mtime_ns)

    @functools.cached_property
    def abspath(self) -> Path:
        """The file's absolute path (built on demand: a search's freshness check walks 10,000s of files
        and needs none of them)."""
        return Path(self.location)


#: Folders nested deeper than this are not read (reported as a problem): no memory is organised so,
#: and a path that deep only comes from a mistake or an attack (1,000 levels stopped every walk).
MAX_DEPTH = 100


def file_type(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO", "a socket", "a device"), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a file"


class NotRegularFile(OSError):
    """A memory file's name that holds a FIFO, socket or device: never opened for reading (a FIFO
    would block the reader until something writes to it)."""


def open_regular(path: Path):
    """`path` opened for binary reading, refusing anything but a regular file without blocking.

    The file is opened non-blocking (opening a FIFO for reading would wait for a
    writer), then checked with fstat, so a file replaced by a FIFO after it was
    listed is refused too. Raises OSError (NotRegularFile for a FIFO, socket or device).
    """
    handle = open(path, "rb", opener=_without_blocking)
    try:
        what = file_type(os.fstat(handle.fileno()).st_mode)
        if what is not None:
            raise NotRegularFile(0, f"not a regular file: {what}", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(handle.fileno(), True)
        return handle
    except BaseException:
        handle.close()
        raise


def _without_blocking(path, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def walk(root: Path, warn=None, unlisted: list[str] | None = None, folders: list[Path] | None = None,
         exclude: Exclusion = NO_EXCLUSION, excluded: list[Excluded] | None = None) -> list[MemoryFile]:
    """Every markdown and transcript file under `root`, sorted by path, but those `exclude` leaves out.

    `warn(message)` is called for each file or folder skipped for a reason
    the person may want to fix: a symlink that leaves the root, points into
    a hidden folder or loops, a symlinked folder (never followed), a name
    that is not UTF-8, a file that cannot be read, a memory file's name on
    something that is not a regular file (a FIFO, a socket: never opened), a
    folder that cannot be listed ("cannot list (Permission denied)": its
    files are unknown, and its relative path is added to `unlisted` when
    given), a folder nested deeper than `MAX_DEPTH` ("nested more than ...":
    not read, and added to `unlisted`). Names in messages go through
    `printable`. A hidden memory file ("hidden, not read") or a hidden folder
    holding memory files ("3 memory files, hidden, not read": counted, not
    read; `.git` and `.cache` are never looked into) is warned about, once per
    folder; `.claude/CLAUDE.md` and `.claude/rules/` are read (`hidden`).
    A symlink to a file inside the memory is listed only when
    that file is not (`alias.md -> real.md` gives real.md alone), and only
    once for several symlinks to the same file. The walk keeps its own
    stack, so no nesting depth can exhaust Python's recursion limit.
    `folders`, when given, gets each folder the walk listed (the root first): the folders whose changes can
    change what it finds, and the only ones the watcher watches.

    A folder `exclude` leaves out (``[index] exclude``) is never entered, nor is a file it leaves out listed
    (a symlink is left out when the file it points to is); none is warned about: the person chose it. When
    `excluded` is given, what was left out is added to it (`Excluded`: a folder's memory files counted by name,
    as a hidden folder's are), one entry per folder left out whole and per folder and pattern of files left out
    one by one. A Logseq graph's folders of copies (`logseq.COPIES` in a ``logseq/`` folder holding
    ``config.edn``) are left out the same way, unwarned, each an entry marked `logseq`.
    """
    root = root.resolve()
    found: list[MemoryFile] = []
    aliases: dict[str, str] = {}  # an in-memory symlink's path -> its target's

    def skip_folder(rel: str, reason: str) -> None:
        if unlisted is not None:
            unlisted.append(rel)
        _warn(warn, f"{printable(rel)}: {reason}")

    stack: list[tuple[Path, int]] = [(root, 0)]  # top-down, each folder's subfolders in name order
    while stack:
        here, depth = stack.pop()
        rel_here = here.relative_to(root).as_posix() if here != root else "."
        try:
            with os.scandir(here) as entries:
                listed = sorted((entry.name, _is_dir(entry)) for entry in entries)
        except OSError as exc:
            skip_folder(rel_here, f"cannot list ({exc.strerror or exc}), skipped")
            continue
        if folders is not None:
            folders.append(here)
        subfolders = []
        rel_base = "" if here == root else rel_here + "/"
        dotted = "/." in "/" + rel_base  # inside a hidden folder (`.claude`): every name is looked at
        # A Logseq graph's own folder (its `config.edn` beside them): its copies of pages are not memory. Asked as
        # every face that refuses a copy asks it (`logseq.copies_folder`): a config.edn that is no file makes none.
        graph = here != root and here.name == logseq.LOGSEQ_FOLDER and logseq.holds_graph(here.parent)
        for name, is_dir in listed:
            if not is_dir:
                continue
            if graph and name in logseq.COPIES:
                if excluded is not None:
                    sub = here / name
                    held, capped = (0, False) if sub.is_symlink() else _count_memory_files(sub)
                    excluded.append(Excluded(rel_base + name, "", held, whole=True, at_least=capped, logseq=True))
                continue
            if (dotted or name.startswith(".")) and hidden(rel_base + name, folder=True):
                if warn is not None and name not in NOT_LOOKED_INTO:
                    _hidden_folder(here / name, rel_base + name, warn)
                continue
            sub = here / name
            shown = printable(sub.relative_to(root).as_posix())
            if not _is_utf8(name):
                _warn(warn, f"{shown}: folder name is not valid UTF-8, skipped (rename it to index it)")
                continue
            if exclude and (pattern := exclude.folder(rel_base + name)):
                if excluded is not None:  # a symlinked folder is not looked into: it may point out of the memory
                    held, capped = (0, False) if sub.is_symlink() else _count_memory_files(sub, rel_base + name)
                    excluded.append(Excluded(rel_base + name, pattern, held, whole=True, at_least=capped))
                continue
            if sub.is_symlink():
                reason = _refusal(root, sub)
                # Never followed: walking it would risk loops and reading a file twice.
                _warn(warn, f"{shown}: {reason}, skipped" if reason else f"{shown}: symlinked folder not followed")
                continue
            if depth + 1 > MAX_DEPTH:
                skip_folder(sub.relative_to(root).as_posix(),
                            f"folder nested more than {MAX_DEPTH} levels deep, not read (move its files "
                            "higher up to index them)")
                continue
            subfolders.append((sub, depth + 1))
        stack.extend(reversed(subfolders))
        # Strings, not Paths, for the files: the walk runs on every search (freshness).
        base = str(here) + os.sep
        left_out: dict[str, int] = {}  # pattern -> files of this folder it left out
        copies = 0  # symlinks of this folder to a Logseq graph's copies of pages, left out as those are
        for name, is_dir in listed:
            if is_dir:
                continue
            kind = kind_of(name)
            if kind is None:
                continue
            full = base + name
            rel = rel_base + name
            if (dotted or name.startswith(".")) and hidden(rel, folder=False):
                if not name.startswith(NEVER_NOTES):
                    _warn(warn, f"{printable(rel)}: hidden, not read ({HIDDEN_READ})")
                continue
            if not _is_utf8(name):
                _warn(warn, f"{printable(rel)}: file name is not valid UTF-8, skipped (rename it to index it)")
                continue
            if exclude and (pattern := exclude.matching(rel)):
                left_out[pattern] = left_out.get(pattern, 0) + 1
                continue
            try:
                st = os.lstat(full)  # one system call for a plain file; a symlink is followed below
                if stat.S_ISLNK(st.st_mode):
                    reason = _refusal(root, here / name)
                    if reason is not None:
                        _warn(warn, f"{printable(rel)}: {reason}, skipped")
                        continue
                    target = Path(full).resolve().relative_to(root).as_posix()
                    if exclude and (pattern := exclude.file(target)):  # an alias of a file left out
                        left_out[pattern] = left_out.get(pattern, 0) + 1
                        continue
                    if logseq.copies_folder(root, target) is not None:  # an alias of a graph's copy of a page
                        copies += 1
                        continue
                    aliases[rel] = target
                    st = os.stat(full)
            except OSError as exc:
                _warn(warn, f"{printable(rel)}: cannot read ({exc.strerror}), skipped")
                continue
            what = file_type(st.st_mode)
            if what is not None:  # a FIFO would block whoever opens it: never read
                _warn(warn, f"{printable(rel)}: not a regular file ({what}), skipped")
                continue
            found.append(MemoryFile(rel, kind, full, st.st_size, st.st_mtime_ns))
        if excluded is not None:
            excluded.extend(Excluded(rel_here, pattern, n, whole=False) for pattern, n in left_out.items())
            if copies:
                excluded.append(Excluded(rel_here, "", copies, whole=False, logseq=True))
    found.sort(key=lambda f: f.path)
    return _without_aliases(found, aliases)


def _hidden_folder(folder: Path, rel: str, warn) -> None:
    """Warn about a hidden folder the walk does not read when it holds memory files (`_count_memory_files`).
    A symlinked one is not looked into: it may point out of the memory."""
    if folder.is_symlink():
        return
    held, capped = _count_memory_files(folder)
    if held:
        counted = f"at least {held} memory files" if capped else plural(held, "memory file")
        _warn(warn, f"{printable(rel)}: {counted}, hidden, not read ({HIDDEN_READ})")


def _count_memory_files(folder: Path, rel: str | None = None) -> tuple[int, bool]:
    """How many memory files a folder the walk does not enter holds, by name, at any depth (without following
    symlinks or looking into `NOT_LOOKED_INTO`), and whether more than `HIDDEN_COUNT_ENTRIES` entries were
    there to list (the count is then a lower bound). Nothing is opened. `rel`: the folder's path in the memory,
    when what is hidden in it (`hidden`) is not memory and not counted (a folder left out by the settings)."""
    held, listed, stack = 0, 0, [(str(folder), rel)]
    while stack and listed <= HIDDEN_COUNT_ENTRIES:
        here, rel_here = stack.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    listed += 1
                    if listed > HIDDEN_COUNT_ENTRIES:
                        break
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    inside = None if rel_here is None else f"{rel_here}/{entry.name}"
                    if inside is not None and entry.name.startswith(".") and hidden(inside, folder=is_dir):
                        continue
                    if is_dir:
                        if entry.name not in NOT_LOOKED_INTO:
                            stack.append((entry.path, inside))
                    elif kind_of(entry.name) is not None and not entry.name.startswith(NEVER_NOTES):
                        held += 1
        except OSError:
            continue
    return held, listed > HIDDEN_COUNT_ENTRIES


def _is_dir(entry: os.DirEntry) -> bool:
    """Whether a listed entry is a folder (through a symlink too); False when that cannot be told
    (a symlink loop), as os.walk decides: the file checks then say what is wrong with it."""
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _without_aliases(found: list[MemoryFile], aliases: dict[str, str]) -> list[MemoryFile]:
    """`found` less the symlinks whose file is listed already: the file itself when it is walked
    (`alias.md -> real.md`), else the first symlink to it by path (`a.md -> x.txt`, `b.md -> x.txt`),
    so a note is indexed, ranked and tagged once, under its own name when it has one."""
    if not aliases:
        return found
    listed = {f.path for f in found if f.path not in aliases}
    kept = []
    for f in found:
        target = aliases.get(f.path)
        if target is not None:
            if target in listed:
                continue
            listed.add(target)
        kept.append(f)
    return kept


def _warn(warn, message: str) -> None:
    if warn is not None:
        warn(message)
