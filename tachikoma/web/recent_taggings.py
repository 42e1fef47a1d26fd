"""Every face's recent taggings, read from git: the command line's `tag`, MCP's `tag` and the dashboard's.

The dashboard keeps an undo record of its own taggings (`undo`); the others leave only their commit,
which carries the ``Tachikoma-Tagging`` trailer (`gitutil.TAGGING_TRAILER`). The tagging page lists
both: its own with their Undo button, the others with the face that made them (from the commit's
``Tachikoma-Changed-By`` trailer and MCP's note), to be undone with git. An undo's commit carries the
trailer too, and is no tagging: it is not listed, and the tagging it undid is listed as partly undone
(its record, still to undo) or undone (its commit, marked so: `merged`).

What a tagging listed from git says is true of it whatever the dashboard still keeps: undone when the dashboard's
note says so (`UndoStore.undone_taggings`, its newest notes) or when git does (`restored_in_git`: later undo commits
reversed its every change, which holds for an undo made before the notes named the tagging, and past the notes
kept); partly undone when they reversed some; and otherwise why it has no Undo here (`no_undo`).
"""

from __future__ import annotations

from pathlib import Path

from tachikoma.git import gitutil
from tachikoma.tagging.committing import is_undo, listed


def tagging_commits(root: Path, limit: int = 5, scan: int = 200) -> list[dict]:
    """`gitutil.tagging_commits` but undos' (`committing.is_undo`), each with the face that made it:
    {"commit", "created", "message", "paths", "face"} ("paths": the files it tagged, as its message lists them,
    `committing.listed`: a transcript's tags change the tag file in git; else those git saw change), and what later
    undo commits did of it (`restored_in_git`):
    "undone" {"at", "commit"} when they restored every file, else "restored" {"files", "at", "commit"} when some."""
    found = gitutil.tagging_commits(root, scan, scan)  # newest first
    taggings = [(i, c) for i, c in enumerate(found) if not is_undo(c["message"])][:limit]
    undos = [(i, c) for i, c in enumerate(found) if is_undo(c["message"])]
    restored = restored_in_git(root, taggings, undos)
    return [{**c, "paths": listed(c["message"]) or c["paths"], "face": face(c["message"]),
             **restored.get(c["commit"], {})} for _, c in taggings]


def restored_in_git(root: Path, taggings: list[tuple[int, dict]], undos: list[tuple[int, dict]]) -> dict[str, dict]:
    """What the undo commits made after each of `taggings` (each with its place in the log, newest first) restored of
    it, by its commit: {"undone": {"at", "commit"}} when they restored every file it changed, {"restored": {"files",
    "at", "commit"}} when some ({} for none). A file is restored by an undo commit whose change to it is the tagging's
    reversed (the lines it removed are those the tagging added, and the other way round), wherever they are in the
    file: a note's body written since does not matter. A tagging's transcripts undone in several goes (its tag file
    changed piece by piece) are not told so."""
    later = {c["commit"]: [u for j, u in undos if j < i] for i, c in taggings}
    wanted = [c for c in later if later[c]]
    changes = gitutil.commit_changes(root, [*wanted, *{u["commit"] for c in wanted for u in later[c]}])
    out: dict[str, dict] = {}
    for commit in wanted:
        own = changes.get(commit) or {}
        first: dict[str, dict] = {}  # each file: the oldest undo after the tagging that reversed its change
        for undo in reversed(later[commit]):
            for path, (removed, added) in (changes.get(undo["commit"]) or {}).items():
                if path not in first and path in own and sorted(removed) == sorted(own[path][1]) \
                        and sorted(added) == sorted(own[path][0]):
                    first[path] = undo
        if not first:
            continue
        last = max(first.values(), key=lambda u: u["created"])
        if len(first) == len(own):
            out[commit] = {"undone": {"at": last["created"], "commit": last["commit"]}}
        else:
            out[commit] = {"restored": {"files": len(first), "at": last["created"], "commit": last["commit"]}}
    return out


def face(message: str, nobody: str = "the command line or a local dashboard") -> str:
    """Who made a tagging commit, in words: the person or agent its trailer names, else the face its
    note names, else `nobody`: the command line (or the dashboard on localhost, which names nobody)."""
    for line in message.splitlines():
        if line.startswith(gitutil.CHANGED_BY_TRAILER + ":"):
            return line.split(":", 1)[1].strip()
    if _by_mcp(message):
        return "an agent (MCP)"
    return nobody


def _by_mcp(message: str) -> bool:
    return "through MCP" in message


def no_undo(message: str, kept: int, by_dashboard: bool = False) -> str:
    """Why a tagging listed from git has no Undo here, by the face that made it (`face`; `by_dashboard`: a dashboard
    did, as an undo of it tells): MCP and the command line keep none, and a dashboard keeps the undo of its newest
    `kept` taggings."""
    if _by_mcp(message) and not by_dashboard:
        return "an agent made it through MCP, which keeps no undo"
    dashboard = f"the dashboard keeps the undo of its newest {kept} taggings, and this one's is not among them"
    if face(message, "") == "" and not by_dashboard:  # the command line, or a dashboard on localhost (no one named)
        return f"the command line keeps no undo, and if a dashboard made it, {dashboard}"
    return dashboard


def merged(dashboard: list[dict], commits: list[dict], limit: int = 5, undone: dict | None = None,
           kept: int = 50) -> list[dict]:
    """The dashboard's undo records and the other faces' tagging commits, newest first, each commit once
    (a dashboard tagging's commit is its record); a commit the dashboard undid (`undone`: by its commit,
    `UndoStore.undone_taggings`; else as git tells it, `tagging_commits`) with "undone": {"at", "commit"} (the
    undo's), made by a dashboard (only a dashboard's own taggings are undone there); one that is not with "no_undo":
    why it cannot be undone here (`no_undo`, `kept`: the taggings a dashboard keeps the undo of)."""
    own = {r.get("commit") for r in dashboard if r.get("commit")}
    undone = undone or {}
    others = [{**c, "key": None} for c in commits if c["commit"] not in own]
    for c in others:
        if c["commit"] in undone:
            c.update(undone=undone[c["commit"]], face=face(c["message"], "this dashboard"))
            c.pop("restored", None)
            continue
        undid = bool(c.get("undone") or c.get("restored"))  # only a dashboard undoes a tagging
        if undid:
            c["face"] = face(c["message"], "a dashboard")
        if not c.get("undone"):
            c["no_undo"] = no_undo(c["message"], kept, by_dashboard=undid)
    return sorted([*dashboard, *others], key=lambda r: r.get("created") or 0, reverse=True)[:limit]
