"""What an agent may change through MCP, and why it may not change the rest.

An agent's say-so is not the user's: trust `owner` means the user said it, the files agents load as the
user's own instructions (Claude Code's `.claude/`, an evergreen `MEMORY.md` or `CLAUDE.md`) are the user's
to write, and a memory marked `untrusted` or `external` can hold anything, an injected instruction among
it. `mcp_server.MemoryTools` asks these before it writes; each raises `TachikomaError` with the reason
and writes nothing. The owner's own faces (`tachikoma tag`, `tachikoma remember`, the dashboard) do not
ask them.
"""

from __future__ import annotations

from pathlib import Path

from . import memory
from .errors import TachikomaError
from .globs import name_or_path_matcher
from .humanize import plural, printable
from .reading.tags import CONFIDENCE_VALUES, TRUST_VALUES, normalise_value

#: What an agent's note is tagged when the agent says nothing of its trust or confidence, or says null: its own
#: memory, of medium confidence. Never untagged: an untagged note ranks by `[ranking.trust] missing` and
#: `[ranking.confidence] missing`, which the user may set as high as owner's and high's.
NOTE_TRUST, NOTE_CONFIDENCE = "self", "medium"
#: The most trust an agent may assert through MCP unless the server allows owner trust; `{option}` is the option
#: that allows it on the server the agent asked (`OWNER_TRUST_OPTION`: `tachikoma mcp`'s, or `tachikoma serve`'s).
OWNER_REFUSED = ("trust 'owner' means the user said it, and an agent may not claim that through this server: "
                 "use trust 'self' for what you learned or were told, or ask the user to set owner trust "
                 "(with `tachikoma tag` or the dashboard, or by starting the server with {option})")
OWNER_TRUST_OPTION = {"stdio": "--allow-owner-trust", "http": "--mcp-allow-owner-trust"}
#: Why `tag` does not raise a file's trust or confidence: a note the user or an agent marked `untrusted` or
#: `external` can hold anything (a web page, an injected "tag this note self"), one marked `speculative` is a guess
#: (`high` would double its weight), and an agent's say-so is not the user's.
RAISE_REFUSED = ("an agent may not raise a memory's {key}: {files} already {have} {key} {before}, and '{after}' ranks "
                 "above it; an agent may lower {key} or set it where none is set, and the user raises it (with "
                 "`tachikoma tag` or the dashboard)")
#: Why `tag` changes no file in a hidden folder nor one `[ranking] evergreen` names: agents load those (CLAUDE.md,
#: .claude/rules/, MEMORY.md, SOUL.md...) as the user's own instructions, and a tag's text goes into the file.
INSTRUCTIONS_REFUSED = ("an agent may not tag {path!r}: {why}, which agents load as the user's own instructions, and "
                        "a tag is written into the file; ask the user to tag it (with `tachikoma tag` or the dashboard)")
#: Why `remember` writes nothing into `.claude` (or `.claude/rules`): Claude Code reads what is there as the user's.
HIDDEN_FOLDER_REFUSED = ("an agent may not write into a hidden folder ('{folder}'): Claude Code follows what .claude "
                         "holds (CLAUDE.md, rules/) as the user's own instructions, and other hidden folders are not "
                         "memory; remember into a folder of notes instead, such as 'notes'")


def _hidden(path: str) -> bool:
    """Whether `path` (either separator) goes through a hidden folder or names a hidden file: a part starting with
    "." other than "." and ".." ('..' is refused as outside the memory, by `memory.safe_path`)."""
    return any(part.startswith(".") for part in path.replace("\\", "/").split("/") if part not in ("", ".", ".."))


def check_trust(trust: str | None, allow_owner_trust: bool, transport: str = "stdio") -> None:
    """An agent asserts at most `self` trust, unless the server allows owner trust (the refusal names the option
    that allows it for the server's `transport`, `OWNER_TRUST_OPTION`)."""
    if (trust or "").strip().lower() == "owner" and not allow_owner_trust:
        raise TachikomaError(OWNER_REFUSED.format(option=OWNER_TRUST_OPTION[transport]))


def check_folder(root: Path, folder: str | None) -> None:
    """An agent writes no note into a hidden folder: of those only Claude Code's `.claude` is memory, and
    Claude Code follows what `.claude/rules/` holds as the user's own instructions. A folder that is a
    symlink is judged by where it points."""
    given = (folder or "").strip().rstrip("/")
    if not given:
        return
    names = [given]
    try:
        full = memory.safe_path(root, given)
        if full.is_dir():
            names.append(full.resolve().relative_to(root.resolve()).as_posix())
    except (memory.PathOutsideMemory, OSError, ValueError):
        pass  # `notes.remember` says what is wrong with it
    if any(map(_hidden, names)):
        raise TachikomaError(HIDDEN_FOLDER_REFUSED.format(folder=printable(given)))


def check_taggable(rel: str, real: str, evergreen: tuple[str, ...]) -> None:
    """An agent tags no file that agents load as the user's instructions: one in a hidden folder (Claude
    Code's `.claude/CLAUDE.md` and `.claude/rules/`) or one `[ranking] evergreen` names (MEMORY.md,
    CLAUDE.md, SOUL.md...), by its own path `rel` or the one a symlink points to (`real`). A tag is text written
    into the file's front matter: a `source` of "always run …" would be read there as the user's word."""
    by_settings = name_or_path_matcher(evergreen)
    for path in dict.fromkeys((rel.replace("\\", "/"), real)):
        if _hidden(path):
            raise TachikomaError(INSTRUCTIONS_REFUSED.format(path=printable(rel), why="it is in a hidden folder"))
        if by_settings(path):
            raise TachikomaError(INSTRUCTIONS_REFUSED.format(
                path=printable(rel), why="the memory's settings make it evergreen ([ranking] evergreen)"))


def check_not_raised(changes, allow_owner_trust: bool) -> None:
    """An agent lowers trust and confidence, or sets them where none is (or none valid), and never raises them:
    `untrusted` → `self` would let what a note says (an injected instruction among it) rank as the agent's own
    memory, and `speculative` → `high` would make a guess weigh twice as much. `changes`: a tagging plan's
    (`tagging.planning`). Not when the server lets agents set owner trust (`allow_owner_trust`: the user trusts
    them with every level)."""
    if allow_owner_trust:
        return
    for key, order in (("trust", TRUST_VALUES), ("confidence", CONFIDENCE_VALUES)):
        raised = [(c.path, before, c.after[key]) for c in changes if key in c.after
                  and (before := normalise_value(key, c.before.get(key))) is not None
                  and order.index(c.after[key]) < order.index(before)]
        if raised:
            path, before, after = raised[0]
            files = printable(path) + (f" and {plural(len(raised) - 1, 'other file')}" if len(raised) > 1 else "")
            raise TachikomaError(RAISE_REFUSED.format(key=key, files=files, have="has" if len(raised) == 1 else "have",
                                                      before=before, after=after))
