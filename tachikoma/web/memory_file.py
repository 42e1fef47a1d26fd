"""A memory file as its page shows it: markdown rendered block by block and
sanitised (so a search hit's lines can be highlighted), or a transcript as
a list of turns.

Everything but `read_memory_file` and `page_path` (which look at the file
system) is a pure function. Links between memory files are made by a
`link_for(rel_path)` callable the caller passes (and links to images in the
memory by `image_for`), so nothing here needs a Flask request.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import markdown
import nh3
from markupsafe import Markup

from tachikoma import memory
from tachikoma.reading import tagfile
from tachikoma.reading.documents import MARKDOWN, Turn
from tachikoma.errors import TachikomaError
from tachikoma.fences import FenceTracker
from tachikoma.reading.reader import read_document
from tachikoma.tagging.model import current_values
from tachikoma.reading.tags import TAG_KEYS, Tags
from tachikoma.transcripts import is_data_file
from tachikoma.web.memory_image import image_type

LinkFor = Callable[[str], str]

_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_SCHEME_OR_ABSOLUTE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^[/#?]")
MD_EXTENSIONS = ["fenced_code", "tables", "sane_lists"]
URL_SCHEMES = {"http", "https", "mailto"}
SPEAKER_CLASSES = {"user", "assistant", "system", "summary", "tool", "subagent"}
#: What a session's context shows on its page, in this order: (key in Document.session, label).
SESSION_FIELDS = (("agent", "Agent"), ("session", "Session"), ("subagent", "Subagent"), ("cwd", "Folder"),
                  ("branch", "Branch"), ("model", "Model"))


def _page_file(root: Path, rel: str, exclude: memory.Exclusion) -> Path | None:
    """The memory file at `rel` that the file page may show, or None when it is not a memory file inside `root`;
    `memory.PathExcluded` when `exclude` leaves it out. Reads nothing of it."""
    try:
        path = memory.safe_path(root, rel)
    except memory.PathOutsideMemory:
        return None
    if memory.kind_of(rel) is None or not path.is_file():
        return None
    exclude.refuse(root, rel, "not shown")
    return path


def page_path(root: Path, rel: str, exclude: memory.Exclusion = memory.NO_EXCLUSION) -> str | None:
    """Whose page shows `rel`: `rel` itself, or the memory file a symlink at `rel` stands for (`memory.stands_for`:
    a symlinked note is that note, indexed, ranked and tagged under its own name), found without reading either
    file; None when `rel` is no memory file inside `root`. Raises `memory.PathExcluded` as `read_memory_file` does."""
    if _page_file(root, rel, exclude) is None:
        return None
    return memory.stands_for(root, rel) or rel


def read_memory_file(root: Path, rel: str, lines: tuple[int, int] | None, link_for: LinkFor,
                     max_bytes: int | None = None, image_for: LinkFor | None = None,
                     redact: bool = True, exclude: memory.Exclusion = memory.NO_EXCLUSION) -> dict | None:
    """What the file page shows for `rel`, or None when it is not a memory file inside `root`; its
    secrets as markers, as the index holds them, unless `redact` is false (``[privacy] redact_secrets``).
    A memory file `exclude` leaves out (``[index] exclude``) raises `memory.PathExcluded`, which says why.

    `lines` is the passage to highlight (a search hit); the result's
    "found" says whether it is still in the file.
    """
    kind, path = memory.kind_of(rel), _page_file(root, rel, exclude)
    if path is None:
        return None
    limits = {"max_bytes": max_bytes} if max_bytes is not None else {}
    doc = read_document(root, rel, kind, **limits, redact=redact)
    # A .jsonl with no transcript message is data, as stats, the index and tagging count it: not a transcript.
    data_file = kind != MARKDOWN and is_data_file(path, path.stat().st_size, **limits)
    warnings = list(doc.warnings)
    blocks, turns, session = [], [], []
    if kind == MARKDOWN:
        tags, tag_values = doc.tags, current_values(doc.meta)
        blocks = render_markdown(doc.text, doc.body_line, rel, lines, link_for, image_for)
        found = mark_first([b for b in blocks if b.hit])
    else:
        try:
            tags_file = tagfile.load(root)
            tags, tag_values = tags_file.tags_for(rel), current_values(tags_file.entries.get(rel))
        except TachikomaError as exc:
            tags, tag_values = Tags(), {}
            warnings.append(str(exc))
        turns = transcript_turns(doc.turns, lines)
        found = mark_first([t for t in turns if t.hit])
        session = session_details(doc.session, root, link_for, rel)
    meta = {shown_value(k): shown_value(v) for k, v in doc.meta.items() if str(k).strip().lower() not in TAG_KEYS}
    if doc.names:  # a Logseq page: the name Logseq shows (its file name decoded, or title::) and its aliases
        meta = {**({"Logseq page": shown_value(doc.names["title"])} if doc.names.get("title") else {}),
                **({"alias": shown_value(", ".join(doc.names["alias"]))} if doc.names.get("alias") else {}),
                **meta}
    return {"rel": rel, "kind": kind, "data_file": data_file, "doc": doc, "tags": tags, "tag_values": tag_values,
            "meta": meta,
            "blocks": blocks, "turns": turns, "session": session, "lines": lines, "warnings": warnings,
            "found": found}


#: Bounds of a front matter value as the page shows it: a few levels, items and characters.
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxset, _SHOWN.maxtuple = 2, 12, 12, 12, 12
_SHOWN.maxstring = _SHOWN.maxother = _SHOWN.maxlong = MAX_SHOWN_CHARS = 300


def shown_value(value: object) -> str:
    """A front matter key or value as text of bounded size, however large or nested it is: text as
    written, shortened with "…"; lists and mappings abbreviated with "..." (never expanded whole)."""
    if isinstance(value, str):
        return value if len(value) <= MAX_SHOWN_CHARS else value[:MAX_SHOWN_CHARS] + "…"
    return _SHOWN.repr(value)


def parse_lines(value: str | None) -> tuple[int, int] | None:
    """A line range from "12-16", "12–16", "12:16" or "12" (in order), or None."""
    match = re.fullmatch(r"\s*(\d{1,9})\s*(?:[-–:]\s*(\d{1,9}))?\s*", value or "")
    if not match:
        return None
    a = int(match.group(1))
    b = int(match.group(2) or a)
    return (min(a, b), max(a, b))


def overlaps(start: int, end: int, lines: tuple[int, int] | None) -> bool:
    return bool(lines) and start <= lines[1] and end >= lines[0]


def mark_first(hits: list) -> bool:
    """Mark the first of `hits` (the page scrolls to it); whether there is one."""
    if hits:
        hits[0].first = True
    return bool(hits)


# --------------------------------------------------------------------------- another memory's file


@dataclass
class Passage:
    """One chunk of a file as a shared index holds it (the file page of another memory)."""

    start: int
    end: int
    text: str
    hit: bool = False
    first: bool = False  # the first passage of the highlighted chunk (scrolled to)
    html: Markup | None = None  # a note's passage rendered as markdown (sanitised); None: shown as text


def indexed_file_view(passages: list[tuple[int, int, str]], lines: tuple[int, int] | None, rel: str = "",
                      link_for: LinkFor | None = None) -> dict:
    """What the page of another memory's file shows: its indexed passages (`search.pool.indexed_passages`),
    those over `lines` marked, and whether any is. A note's passages (`rel` a .md file, `link_for` given)
    are rendered as markdown, sanitised as on the file page (images of the other memory are not served)."""
    shown = [Passage(a, b, text, overlaps(a, b, lines)) for a, b, text in passages]
    if link_for is not None and memory.kind_of(rel) == MARKDOWN:
        converter = markdown.Markdown(extensions=MD_EXTENSIONS, output_format="html")
        for passage in shown:
            passage.html = rendered(converter, passage.text, rel, link_for)
    return {"passages": shown, "found": mark_first([p for p in shown if p.hit])}


# --------------------------------------------------------------------------- markdown


@dataclass
class Block:
    start: int
    end: int
    lines: list[str]
    html: Markup = Markup("")
    hit: bool = False
    first: bool = False  # the first block of the highlighted chunk (scrolled to)


def render_markdown(text: str, first_line: int, rel_path: str, lines: tuple[int, int] | None,
                    link_for: LinkFor, image_for: LinkFor | None = None) -> list[Block]:
    """Markdown rendered block by block (so a chunk's lines can be highlighted), sanitised.

    `first_line` is the file line `text` starts on; blocks overlapping
    `lines` are hits. Reference-style link definitions apply in every block.
    """
    blocks = split_blocks(text, first_line)
    refs = [line for line in text.split("\n") if _REF_DEF.match(line)]
    converter = markdown.Markdown(extensions=MD_EXTENSIONS, output_format="html")
    for block in blocks:
        source = "\n".join(block.lines + ([""] + refs if refs else []))
        block.html = rendered(converter, source, rel_path, link_for, image_for)
        block.hit = overlaps(block.start, block.end, lines)
    return [b for b in blocks if str(b.html).strip()]


def rendered(converter: markdown.Markdown, source: str, rel_path: str, link_for: LinkFor,
             image_for: LinkFor | None = None) -> Markup:
    """Markdown `source` of the memory file `rel_path` as a file page shows it: sanitised (`sanitise`), its headings a
    level down (`demoted`: the page's own title is its one h1), its task boxes drawn (`task_boxes`)."""
    return task_boxes(demoted(sanitise(converter.reset().convert(source), rel_path, link_for, image_for)))


_HEADING_TAG = re.compile(r"<(/?)h([1-5])(?=[\s>])")


def demoted(html: Markup) -> Markup:
    """Sanitised HTML with each heading a level down (h1 → h2 … h5 → h6; an h6 stays), so a note's own `# Title`
    is no second h1 beside its page's (one h1 a page: what a screen reader lists as the page's title)."""
    return Markup(_HEADING_TAG.sub(lambda m: f"<{m.group(1)}h{int(m.group(2)) + 1}", str(html)))


_TASK = re.compile(r"(<li>(?:\s*<p>)?)\[([ xX])\][ \t]")


def task_boxes(html: Markup) -> Markup:
    """A task list item ("- [ ] call Sam", "- [x] done") as a disabled checkbox, ticked or not. Put in
    after `sanitise`: only these fixed boxes are added; an <input> written in the file is still removed."""
    return Markup(_TASK.sub(lambda m: f'{m.group(1)}<input type="checkbox" disabled'
                                      f'{" checked" if m.group(2) in "xX" else ""} aria-label="'
                                      f'{"done" if m.group(2) in "xX" else "to do"}"> ', str(html)))


def split_blocks(text: str, first_line: int) -> list[Block]:
    """Markdown split at blank lines (outside code fences) into blocks with file line numbers.

    A block that continues a list (indented, or another list item after a
    list) stays with the block before it, so loose lists render as one list.
    """
    blocks: list[Block] = []
    current: list[str] = []
    start = first_line
    fences = FenceTracker()
    lines = text.split("\n")
    for offset, line in enumerate(lines):
        number = first_line + offset
        if not fences.code(line) and not line.strip():
            if current:
                blocks.append(Block(start, number - 1, current))
                current = []
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        blocks.append(Block(start, first_line + len(lines) - 1, current))
    merged: list[Block] = []
    for block in blocks:
        first = block.lines[0]
        if merged and (first[:1] in (" ", "\t") or (_LIST_ITEM.match(first) and _LIST_ITEM.match(merged[-1].lines[0]))):
            prev = merged[-1]
            prev.lines += [""] * (block.start - prev.end - 1) + block.lines
            prev.end = block.end
        else:
            merged.append(block)
    return merged


def sanitise(html: str, base: str, link_for: LinkFor, image_for: LinkFor | None = None) -> Markup:
    """HTML from markdown made safe: no script, no event handlers, no javascript: or data: links.

    Relative links (from the memory file `base`) point at `link_for(path)`,
    the page of the file they name, or at `image_for(path)` for an image
    (`memory_image.IMAGE_TYPES`), which an ``<img>`` may only show; one that
    climbs out of the memory folder is dropped.
    """
    def rewrite(element: str, attribute: str, value: str) -> str | None:
        if attribute in ("href", "src") and value and not _SCHEME_OR_ABSOLUTE.match(value):
            target = join_rel(base, value)
            if target and image_for is not None and image_type(target):
                return image_for(target)
            if element == "img":
                return None  # not an image in the memory: no request that can only fail
            return link_for(target) if target else None
        return value

    return Markup(nh3.clean(html, url_schemes=URL_SCHEMES, attribute_filter=rewrite,
                            link_rel="noopener noreferrer nofollow"))


def join_rel(base: str, link: str) -> str | None:
    """The memory path `link` names, relative to the file `base`; None when it leaves the memory folder."""
    link = link.split("#", 1)[0].split("?", 1)[0]
    parts: list[str] = list(PurePosixPath(base).parent.parts)
    for part in link.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or None


# --------------------------------------------------------------------------- transcripts


@dataclass
class TurnView:
    turn: Turn
    hit: bool = False
    first: bool = False


def transcript_turns(turns: list[Turn], lines: tuple[int, int] | None) -> list[TurnView]:
    """The turns of a transcript, those whose line is in `lines` marked as hits."""
    return [TurnView(t, hit=overlaps(t.line, t.last_line, lines)) for t in turns]


@dataclass
class Detail:
    label: str
    value: str
    href: str | None = None


def session_details(session: dict, root: Path, link_for: LinkFor, rel: str = "") -> list[Detail]:
    """What a transcript's reader learnt of its session, for the page: agent, session id, folder,
    branch, model, a link to the parent session of a subagent when that file is in the memory,
    and links to a Claude Code session's subagent files (``<session>/subagents/agent-*.jsonl``)."""
    from tachikoma.transcripts import reader_named

    reader = reader_named(session.get("format", ""))
    values = {**session, "agent": reader.AGENT if reader and reader.NAME != "generic" else None}
    if session.get("subagent_name"):
        values["subagent"] = f"{session['subagent_name']} ({session.get('subagent')})"
    out = [Detail(label, str(values[key])) for key, label in SESSION_FIELDS if values.get(key)]
    parent = session.get("parent")
    if isinstance(parent, str):
        try:
            exists = memory.safe_path(root, parent).is_file()
        except memory.PathOutsideMemory:
            exists = False
        out.append(Detail("Parent session", parent, link_for(parent) if exists else None))
    elif rel.endswith(".jsonl") and session.get("format") == "claude-code":
        folder = PurePosixPath(rel).with_suffix("") / "subagents"
        try:
            found = sorted(p.name for p in memory.safe_path(root, folder.as_posix()).glob("agent-*.jsonl"))
        except (memory.PathOutsideMemory, OSError):
            found = []
        out += [Detail("Subagent file", name, link_for((folder / name).as_posix())) for name in found]
    return out


def speaker_class(speaker: str) -> str:
    """The CSS class for a speaker: a known role, else "other"."""
    name = (speaker or "").strip().lower()
    return name if name in SPEAKER_CLASSES else "other"
