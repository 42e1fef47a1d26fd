"""Every face's recent taggings, read from git: the command line's `tag`, MCP's `tag` and the dashboard's.

The dashboard keeps an undo record of its own taggings (`undo`); the others leave only their commit,
which carries the ``Tachikoma-Tagging`` trailer (`gitutil.TAGGING_TRAILER`). The tagging page lists
both: its own with their Undo button, the others with the face that made them (from the commit's
``Tachikoma-Changed-By`` trailer and MCP's note), to be undone with git. An undo's commit carries the
trailer too, and is no tagging: it is not listed, and the tagging it undid is listed as partly undone
(its record, still to undo) or undone (its commit, marked so: `merged`).
"""

from __future__ import annotations

from pathlib import Path

from tachikoma.git import gitutil
from tachikoma.tagging.committing import is_undo


def tagging_commits(root: Path, limit: int = 5, scan: int = 200) -> list[dict]:
    """`gitutil.tagging_commits` but undos' (`committing.is_undo`), each with the face that made it:
    {"commit", "created", "message", "paths", "face"}."""
    found = [c for c in gitutil.tagging_commits(root, scan, scan) if not is_undo(c["message"])]
    return [{**c, "face": face(c["message"])} for c in found[:limit]]


def face(message: str, nobody: str = "the command line or a local dashboard") -> str:
    """Who made a tagging commit, in words: the person or agent its trailer names, else the face its
    note names, else `nobody`: the command line (or the dashboard on localhost, which names nobody)."""
    for line in message.splitlines():
        if line.startswith(gitutil.CHANGED_BY_TRAILER + ":"):
            return line.split(":", 1)[1].strip()
    if "through MCP" in message:
        return "an agent (MCP)"
    return nobody


def merged(dashboard: list[dict], commits: list[dict], limit: int = 5, undone: dict | None = None) -> list[dict]:
    """The dashboard's undo records and the other faces' tagging commits, newest first, each commit once
    (a dashboard tagging's commit is its record); a commit the dashboard undid (`undone`: by its commit,
    `UndoStore.undone_taggings`) with "undone": {"at", "commit"} (the undo's), made by a dashboard (only
    a dashboard's own taggings are undone there)."""
    own = {r.get("commit") for r in dashboard if r.get("commit")}
    undone = undone or {}
    others = [{**c, "key": None} for c in commits if c["commit"] not in own]
    for c in others:
        if c["commit"] in undone:
            c.update(undone=undone[c["commit"]], face=face(c["message"], "this dashboard"))
    return sorted([*dashboard, *others], key=lambda r: r.get("created") or 0, reverse=True)[:limit]
