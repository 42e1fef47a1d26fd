"""Which memory folder a name in a shared store belongs to.

Many memories share one PostgreSQL database, each under its name (by
default the folder's name), so two different folders both called
``memory`` would write into one index and overwrite each other's files.
Every index run therefore records the identity of the folder it indexes
with the name, and a run from another folder is refused with a one-line
error that says how to choose another name.

A folder is the same memory when both sit in git repositories with the same
first commit at the same place in the repository (clones of one memory
repository on a team's machines), when it is the same path on the same
machine (a folder that became a git repository since keeps its name), or
when the recorded folder is gone from this machine (the memory was moved or
renamed here: the next run re-records it, and files it finds unchanged keep
their vectors).
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from ..errors import TachikomaError


def folder_identity(root: Path) -> dict[str, str | None]:
    """This machine's name, the folder's path and, in a git repository, its first commit and the
    folder's place in it (``git`` None outside git, or before the first commit)."""
    root = Path(root).resolve()
    return {"host": socket.gethostname(), "path": str(root), "git": _git_identity(root)}


def _git_identity(root: Path) -> str | None:
    try:
        proc = subprocess.run(["git", "rev-parse", "--show-prefix"], cwd=root, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=30)
        if proc.returncode != 0:
            return None
        prefix = proc.stdout.strip()
        first = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=root, capture_output=True,
                               text=True, stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    commits = sorted(first.stdout.split()) if first.returncode == 0 else []
    return f"{','.join(commits)}:{prefix}" if commits else None


def same_memory(recorded: dict, here: dict) -> bool:
    """Whether `here` may go on indexing under the name `recorded` was indexed under."""
    if recorded.get("git") and here.get("git") and recorded["git"] == here["git"]:
        return True
    if recorded.get("host") != here.get("host"):
        return False
    return recorded.get("path") == here.get("path") or not recorded.get("path") or not Path(recorded["path"]).exists()


def name_taken(name: str, where: str, recorded: dict, here: dict) -> TachikomaError:
    """The one-line refusal of a run whose folder is not the one `name` belongs to."""
    other = recorded.get("path") or "another folder"
    host = f" on {recorded['host']}" if recorded.get("host") and recorded.get("host") != here.get("host") else ""
    suggestion = f"{name}-{Path(here['path']).parent.name or '2'}"
    return TachikomaError(
        f"the memory name {name!r} in {where} belongs to another memory folder ({other}{host}); nothing was "
        f"written: give this one its own name with [store] name = \"{suggestion}\" in its tachikoma.toml")
