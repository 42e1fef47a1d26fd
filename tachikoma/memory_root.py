"""Which memory folder a command means, in a module that imports nothing heavy: the command
line resolves it before it knows whether a running tachikoma answers its search (`resident`)."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import TachikomaError


def resolve_root(path: str | os.PathLike | None = None) -> Path:
    """The memory root: `path`, else $TACHIKOMA_MEMORY, else ./memory."""
    chosen = path or os.environ.get("TACHIKOMA_MEMORY") or "memory"
    root = Path(chosen).expanduser()
    if root.exists() and not root.is_dir():
        raise TachikomaError(f"memory folder {str(root)!r} is a file, not a folder: pass the folder that holds "
                             f"the memory files, e.g. --memory {str(root.parent)!r}")
    if not root.is_dir():
        raise TachikomaError(f"memory folder {str(root)!r} does not exist: pass --memory PATH or set TACHIKOMA_MEMORY")
    return root.resolve()
