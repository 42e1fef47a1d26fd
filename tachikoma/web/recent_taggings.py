"""Every face's recent taggings, read from git: the command line's `tag`, MCP's `tag` and the dashboard's.

The dashboard keeps an undo record of its own taggings (`undo`); the others leave only their commit,
which carries the ``Tachikoma-Tagging`` trailer (`gitutil.TAGGING_TRAILER`). The tagging page lists
both: its own with their Undo button, the others with the face that made them (from the commit's
``Tachikoma-Changed-By`` trailer and MCP's note), to be undone with git.
"""

from __future__ import annotations

from pathlib import Path

from tachikoma.git import gitutil

def tagging_commits(root: Path, limit: int = 5, scan: int = 200) -> list[dict]:
    """`gitutil.tagging_commits`, each with the face that made it: {"commit", "created", "message",
    "paths", "face"}."""
    return [{**c, "face": face(c["message"])} for c in gitutil.tagging_commits(root, limit, scan)]


def face(message: str) -> str:
    """Who made a tagging commit, in words: the person or agent its trailer names, else the face its
    note names, else the command line (or the dashboard on localhost, which names nobody)."""
    for line in message.splitlines():
        if line.startswith(gitutil.CHANGED_BY_TRAILER + ":"):
            return line.split(":", 1)[1].strip()
    if "through MCP" in message:
        return "an agent (MCP)"
    return "the command line or a local dashboard"


def merged(dashboard: list[dict], commits: list[dict], limit: int = 5) -> list[dict]:
    """The dashboard's undo records and the other faces' tagging commits, newest first, each commit once
    (a dashboard tagging's commit is its record)."""
    own = {r.get("commit") for r in dashboard if r.get("commit")}
    others = [{**c, "key": None} for c in commits if c["commit"] not in own]
    return sorted([*dashboard, *others], key=lambda r: r.get("created") or 0, reverse=True)[:limit]
