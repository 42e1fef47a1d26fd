"""Which memory folder a name in a shared store belongs to.

Many memories share one PostgreSQL database, each under its name (by
default the folder's name), so two different folders both called
``memory`` would write into one index and overwrite each other's files.
Every index run therefore records the identity of the folder it indexes
with the name, and a run from another folder is refused with a one-line
error that says how to choose another name.

A folder is the same memory when it is the same git clone (an id each clone
keeps in its own ``.git/config``, ``tachikoma.memoryid``, made at its first
index run and never shared by ``git clone``: two clones of one template are
two memories), when it is the same path on the same machine (a folder that
became a git repository since keeps its name), or when the recorded folder
is gone from this machine (the memory was moved or renamed here: the next
run re-records it, and files it finds unchanged keep their vectors).

Another clone that is meant to carry on under the name (the memory moved to
a new server, a fresh checkout) claims it explicitly, once:
``tachikoma index --claim-name NAME`` (`CLAIM_ENV`); the index under the
name then becomes this folder's (files the other folder had and this one
does not leave the index).
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from pathlib import Path

from ..errors import TachikomaError


#: Set to a memory's name (`tachikoma index --claim-name NAME`): this run takes the name over for its folder.
CLAIM_ENV = "TACHIKOMA_CLAIM_NAME"
#: The git config key (in the clone's own .git/config, never cloned) of a clone's id.
CLONE_KEY = "tachikoma.memoryid"


def folder_identity(root: Path) -> dict[str, str | None]:
    """This machine's name, the folder's path and, in a git repository, the clone's own id and the
    folder's place in it (``clone`` None outside git, or when the id cannot be kept)."""
    root = Path(root).resolve()
    return {"host": socket.gethostname(), "path": str(root), "clone": _clone_identity(root)}


def _git(root: Path, *args: str) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None


def _clone_identity(root: Path) -> str | None:
    """``<id>:<folder in the repository>``: the id kept in this clone's .git/config (made now if it has
    none), or None outside git or when .git/config cannot be written."""
    place = _git(root, "rev-parse", "--show-prefix")
    if place is None or place.returncode != 0:
        return None
    found = _git(root, "config", "--local", "--get", CLONE_KEY)
    clone = found.stdout.strip() if found is not None and found.returncode == 0 else ""
    if not clone:
        clone = uuid.uuid4().hex
        made = _git(root, "config", "--local", CLONE_KEY, clone)
        if made is None or made.returncode != 0:
            return None
    return f"{clone}:{place.stdout.strip()}"


def claimed(name: str) -> bool:
    """Whether this run was asked to take `name` over (`CLAIM_ENV`)."""
    return os.environ.get(CLAIM_ENV) == name


def same_memory(recorded: dict, here: dict) -> bool:
    """Whether `here` may go on indexing under the name `recorded` was indexed under: the same clone, the
    same path on the same machine, or a recorded folder that is gone from this machine. Two clones of one
    repository (or template) are not the same memory: the second claims the name (`CLAIM_ENV`)."""
    if recorded.get("clone") and here.get("clone") and recorded["clone"] == here["clone"]:
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
        f"written: give this one its own name with [store] name = \"{suggestion}\" in its tachikoma.toml, or, "
        f"if this folder is to carry on that memory's index (a new clone of it), run `tachikoma index "
        f"--claim-name {name}` once")
