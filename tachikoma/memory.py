"""The memory folder: where it is, which files belong to it, and safe paths inside it.

Nothing outside the root is ever read or written. Hidden files and folders
(``.git``, ``.cache``) are not memory. A symlink that resolves outside the
root is skipped with a warning.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .documents import SUFFIX_KIND
from .errors import TachikomaError

CACHE_DIR = ".cache"
INDEX_NAME = "index.db"
TAG_FILE = "tachikoma-tags.yaml"
CONFIG_FILE = "tachikoma.toml"


class PathOutsideMemory(TachikomaError):
    """A requested path is not inside the memory root."""


def resolve_root(path: str | os.PathLike | None = None) -> Path:
    """The memory root: `path`, else $TACHIKOMA_MEMORY, else ./memory."""
    chosen = path or os.environ.get("TACHIKOMA_MEMORY") or "memory"
    root = Path(chosen).expanduser()
    if not root.is_dir():
        raise TachikomaError(f"memory folder {str(root)!r} does not exist: pass --memory PATH or set TACHIKOMA_MEMORY")
    return root.resolve()


def cache_dir(root: Path) -> Path:
    """`<root>/.cache`, created on demand, ignoring itself for git."""
    cache = root / CACHE_DIR
    cache.mkdir(exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# tachikoma's derived index: rebuildable, never committed\n*\n")
    return cache


def index_path(root: Path) -> Path:
    return root / CACHE_DIR / INDEX_NAME


def kind_of(rel_path: str) -> str | None:
    """"markdown", "transcript" or None for a relative path."""
    return SUFFIX_KIND.get(PurePosixPath(rel_path).suffix.lower())


def safe_path(root: Path, rel_path: str) -> Path:
    """Resolve `rel_path` inside `root`, refusing anything that escapes it.

    Absolute paths, ``..`` components, hidden components and symlinks that
    resolve outside the root raise PathOutsideMemory.
    """
    if not rel_path or "\x00" in rel_path:
        raise PathOutsideMemory("empty or invalid path")
    pure = PurePosixPath(rel_path.replace("\\", "/"))
    if pure.is_absolute() or any(part in ("..", "") or part.startswith(".") for part in pure.parts):
        raise PathOutsideMemory(f"{rel_path!r} is not a path inside the memory folder")
    candidate = root / pure
    resolved = candidate.resolve()
    if resolved != root and root not in resolved.parents:
        raise PathOutsideMemory(f"{rel_path!r} points outside the memory folder")
    return candidate


@dataclass(frozen=True)
class MemoryFile:
    path: str  # relative, POSIX separators
    kind: str
    abspath: Path
    size: int
    mtime_ns: int


def walk(root: Path, warn=None) -> list[MemoryFile]:
    """Every markdown and transcript file under `root`, sorted by path.

    `warn(message)` is called for each skipped symlink that leaves the root.
    """
    root = root.resolve()
    found: list[MemoryFile] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        kept = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            sub = here / name
            if sub.is_symlink():
                target = sub.resolve()
                if target != root and root not in target.parents:
                    _warn(warn, f"{sub.relative_to(root).as_posix()}: symlink points outside the memory folder, skipped")
                    continue
                # Followed by os.walk? No: walk it ourselves would risk loops; skip with note.
                _warn(warn, f"{sub.relative_to(root).as_posix()}: symlinked folder not followed")
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            kind = SUFFIX_KIND.get(Path(name).suffix.lower())
            if kind is None:
                continue
            full = here / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                target = full.resolve()
                if root not in target.parents:
                    _warn(warn, f"{rel}: symlink points outside the memory folder, skipped")
                    continue
            try:
                st = full.stat()
            except OSError as exc:
                _warn(warn, f"{rel}: cannot read ({exc.strerror}), skipped")
                continue
            if not full.is_file():
                continue
            found.append(MemoryFile(rel, kind, full, st.st_size, st.st_mtime_ns))
    found.sort(key=lambda f: f.path)
    return found


def _warn(warn, message: str) -> None:
    if warn is not None:
        warn(message)
