"""A Logseq graph as Logseq defines it: a folder holding ``logseq/config.edn`` (the memory's root or any folder in
it), with journals in ``journals/`` and pages in ``pages/``.

Logseq keeps copies of pages in its own folder: ``logseq/bak/`` (a page as it was before Logseq overwrote it),
``logseq/version-files/`` (versions from its sync) and ``logseq/.recycle/`` (deleted pages). Logseq itself never reads
them as pages, and they are not memory here either (`COPIES`, `copies_folder`): the walk leaves them out, said in
`stats`, and reading or tagging one is refused.

A page is named by its file name (`page_title`: ``pages/work___harbour.md`` is "work/harbour"), unless its first
block sets ``title::``; ``alias::`` gives it other names (`page_names`, which a note's first chunk opens with, as
with front matter's). Tags written as properties in the first block (``trust:: owner``) are not read, and said
(`tags_ignored`): a note's tags have one place, its YAML front matter, which tagging writes.
"""

from __future__ import annotations

import os
import re
import shlex
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote

from .tags import TAG_KEYS, InvalidTagValue, Tags, check_value, normalise_value

#: Logseq's own folder in a graph, and the file that makes a folder a graph.
LOGSEQ_FOLDER, CONFIG_NAME = "logseq", "config.edn"
#: The folders of ``logseq/`` that hold copies of pages, not memory: backups, sync versions, deleted pages.
COPIES = ("bak", "version-files", ".recycle")
#: What a face says of a file in one of them.
COPIES_SAID = "Logseq's own copies of pages (backups, old versions, deleted pages), not memory"


def holds_graph(folder: Path) -> bool:
    """Whether `folder` is a Logseq graph: it holds ``logseq/config.edn``."""
    return os.path.isfile(os.path.join(folder, LOGSEQ_FOLDER, CONFIG_NAME))


def copies_folder(root: Path, rel: str) -> str | None:
    """The folder of Logseq's copies (``logseq/bak``, ``notes/logseq/version-files``) that the path `rel` (relative
    to the memory `root`, "/" between its names) is or is inside, in a graph the memory holds; None otherwise."""
    parts = [part for part in rel.split("/") if part not in ("", ".")]
    for i in range(len(parts) - 1):
        if parts[i] == LOGSEQ_FOLDER and parts[i + 1] in COPIES and holds_graph(Path(root, *parts[:i])):
            return "/".join(parts[:i + 2])
    return None


def copies_reason(folder: str) -> str:
    """"left out of the memory: Logseq's own copies of pages (…) in logseq/bak/": what every face says."""
    return f"left out of the memory: {COPIES_SAID}, in {folder}/"


# ---------------------------------------------------------------- a page's name

#: The folder of a graph's pages: a file there is named by its file name (`page_title`).
PAGES_FOLDER = "pages"
#: How Logseq spells a namespace in a page's file name (``:file/name-format`` in config.edn): ``work___harbour.md``
#: (`TRIPLE_LOWBAR`), or in a graph made before it, ``work%2Fharbour.md`` and ``work.harbour.md`` (`LEGACY`).
TRIPLE_LOWBAR, LEGACY = "triple-lowbar", "legacy"
_NAME_FORMAT = re.compile(r":file/name-format\s+:triple-lowbar(?![\w-])")
_EDN_COMMENT = re.compile(r";[^\n]*")
#: The most of config.edn read for its name format (Logseq writes a few kilobytes).
CONFIG_BYTES = 1_000_000
_formats: dict[str, tuple[tuple[int, int], str]] = {}


def graph_of(root: Path, rel: str, known: dict[str, bool] | None = None) -> str | None:
    """The graph the file `rel` (relative to the memory `root`) is in: the nearest folder above it, up to the root,
    that holds ``logseq/config.edn``, as a path relative to the root ("" for the root itself); None when no folder
    does. `known`: what was found of folders before, kept there (a walk over many files asks once per folder)."""
    folders = rel.split("/")[:-1]
    for depth in range(len(folders), -1, -1):
        folder = "/".join(folders[:depth])
        if known is None:
            found = holds_graph(Path(root, *folders[:depth]))
        elif (found := known.get(folder)) is None:
            found = known[folder] = holds_graph(Path(root, *folders[:depth]))
        if found:
            return folder
    return None


def first_block_of(handle: BinaryIO) -> list[Property]:
    """`first_block` of the note open as the binary `handle`, positioned at its body (after its front matter,
    `frontmatter.read_head`), read from at most `FIRST_BLOCK_BYTES` of it."""
    return first_block(handle.read(FIRST_BLOCK_BYTES).decode("utf-8", "replace").replace("\r\n", "\n"))


def name_format(graph: Path) -> str:
    """How the graph at `graph` spells namespaces in its pages' file names: `TRIPLE_LOWBAR` when its config.edn sets
    ``:file/name-format :triple-lowbar`` (outside a ``;`` comment), else `LEGACY` (Logseq's default, and what a
    config that cannot be read leaves)."""
    config = os.path.join(graph, LOGSEQ_FOLDER, CONFIG_NAME)
    try:
        info = os.stat(config)
        stamp = (info.st_mtime_ns, info.st_size)
        if (held := _formats.get(config)) is not None and held[0] == stamp:
            return held[1]
        with open(config, "rb") as handle:
            text = handle.read(CONFIG_BYTES).decode("utf-8", "replace")
    except OSError:
        return LEGACY
    found = TRIPLE_LOWBAR if _NAME_FORMAT.search(_EDN_COMMENT.sub("", text)) else LEGACY
    if len(_formats) > 64:  # a process that saw many graphs: keep only the newest
        _formats.clear()
    _formats[config] = (stamp, found)
    return found


def _decoded(text: str) -> str:
    """`text` with its URL-encoded characters decoded (``%2F`` is "/", ``%3F`` "?"), or as it is where they do not
    decode to UTF-8 text (Logseq leaves such a name as written too) or would decode to a control character (``%00``,
    ``%1B``, ``%0A``: a name holds none, and PostgreSQL's text no NUL)."""
    if "%" not in text:
        return text
    try:
        decoded = unquote(text, errors="strict")
    except UnicodeDecodeError:
        return text
    return text if any(unicodedata.category(ch) == "Cc" for ch in decoded) else decoded


def title_from_file_name(stem: str, spelling: str) -> str:
    """A page's name from its file name without the suffix, as Logseq reads it in a graph whose
    ``:file/name-format`` is `spelling`: `TRIPLE_LOWBAR` ``work___harbour`` is "work/harbour" (``___`` a namespace,
    URL-encoded characters decoded, empty namespaces dropped); `LEGACY` ``work.harbour`` and ``work%2Fharbour`` are
    both "work/harbour" (``.`` a namespace, then decoded)."""
    stem = unicodedata.normalize("NFC", stem)  # macOS writes names decomposed
    if spelling == TRIPLE_LOWBAR:
        title = _decoded(stem.replace("___", "/"))
        return "/".join(part for part in title.split("/") if part) or title
    return _decoded(stem.replace(".", "/"))


def page_title(root: Path, rel: str, graph: str) -> str | None:
    """The name the file name gives the page at `rel` (in the graph at `graph`, both relative to the memory
    `root`): a file in the graph's ``pages/`` folder (or a folder in it) is named by its file name; any other file
    (a journal, named by its date) None."""
    inside = rel[len(graph) + 1:] if graph else rel
    if not inside.startswith(PAGES_FOLDER + "/"):
        return None
    name = inside.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return title_from_file_name(stem, name_format(Path(root, graph))) or None


# ---------------------------------------------------------------- the first block's properties

#: A property line, ``key:: value`` (the first of a block may be its bullet, ``- title:: …``).
#: Its value is taken to the line's end and its trailing space cut after (`first_block`): a lazy ``(.*?)[ \t]*$`` costs
#: the square of a run of spaces in it.
_PROPERTY = re.compile(r"^[ \t]*(?P<bullet>[-*+][ \t]+)?(?P<key>[^\W\d][\w.-]*)::(?:[ \t]+(?P<value>.*))?$")
#: One value of a list of them, ``[[a, b]]`` whole: ``alias:: [[Sas]], Saskia``.
_LISTED = re.compile(r"\s*(?:\[\[(.*?)\]\]|([^,]+))")


@dataclass(frozen=True)
class Property:
    key: str  # lower-cased, as Logseq reads it
    value: str
    line: int  # its line in the text it was read from, from 0


def first_block(text: str) -> list[Property]:
    """The properties of the first block of a Logseq page's `text` (its body, after any YAML front matter): the
    ``key:: value`` lines it opens with, written alone (``title:: work/harbour``) or as its first bullet
    (``- alias:: Sas``); a block holding anything else than properties holds none of the page's."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    found: list[Property] = []
    for number in range(start, len(lines)):
        match = _PROPERTY.match(lines[number])
        if match is None or (found and match["bullet"]):  # another block begins
            break
        found.append(Property(match["key"].lower(), (match["value"] or "").rstrip(" \t"), number))
    return found


def listed(value: str) -> list[str]:
    """The values of a list property (``alias:: trasloco, move, [[the move]]``), each without its brackets."""
    values = ((linked or plain).strip() for linked, plain in _LISTED.findall(value))
    return [value.removeprefix("#") for value in values if value.removeprefix("#")]


def page_names(root: Path, rel: str, text: str) -> dict:
    """What a file of a Logseq graph is named, as `chunking.front_matter_line` reads front matter: ``{"title"}``, its
    first block's ``title::`` or else, for a page, its decoded file name; ``{"alias": [...]}``, its ``alias::``
    names. {} for a file in no graph (`graph_of`), or one named neither way (a journal without properties)."""
    return read_page(root, rel, text)[0]


def read_page(root: Path, rel: str, text: str, tags: Tags | None = None) -> tuple[dict, tuple[int, str] | None]:
    """`page_names` of the file `rel` of a Logseq graph whose body is `text`, and `tags_ignored` of its first block
    beside the front matter `tags` it has; ({}, None) for a file in no graph."""
    graph = graph_of(root, rel)
    if graph is None:
        return {}, None
    block = first_block(text)
    properties = {p.key: p.value for p in reversed(block)}  # the first of a key counts
    names: dict = {}
    title = properties.get("title", "").strip() or page_title(root, rel, graph)
    if title:
        names["title"] = title
    if aliases := listed(properties.get("alias", "")):
        names["alias"] = aliases
    return names, tags_ignored(rel, block, tags or Tags())


# ---------------------------------------------------------------- tags written as properties

#: The tags whose property in a page's first block is warned about (`tags_ignored`): tachikoma's own words. A
#: ``source::`` alone is Logseq's common property of a clipping (its URL), named only beside one of these.
WARNED_KEYS = ("trust", "confidence")
#: The most of a page's body read after its front matter for its first block (`stats` reads no more).
FIRST_BLOCK_BYTES = 64 * 1024


def tags_ignored(rel: str, block: list[Property], tags: Tags) -> tuple[int, str] | None:
    """(line in the text the block was read from, why) when the first block of the page `rel` writes tachikoma's
    tags as Logseq properties (``trust:: owner``, ``confidence:: high``, with a ``source::`` beside them) that its
    front matter `tags` do not hold: they are not read, as tachikoma reads a note's tags from YAML front matter
    alone (tagging writes them there, which Logseq keeps, so each tag has one place). The reason says how to tag
    it instead; None when there is nothing to say."""
    written = {p.key: p for p in reversed(block) if p.key in TAG_KEYS}
    if not any(key in written for key in WARNED_KEYS):
        return None
    held = {"trust": tags.trust, "confidence": tags.confidence, "source": tags.source}
    differing = [written[key] for key in TAG_KEYS if key in written
                 and (normalise_value(key, written[key].value) or "not a value") != held[key]]
    if not differing:
        return None
    said = [f"{p.key}:: {_shortened(p.value)}" for p in differing]
    said = f"{', '.join(said[:-1])} and {said[-1]}" if len(said) > 1 else said[0]
    valid = [(p.key, value) for p in differing if (value := _taggable(p.key, p.value)) is not None]
    asked = " ".join(f"--{key} {shlex.quote(value)}" for key, value in valid)
    overwrite = " --overwrite" if any(held[key] for key, _ in valid) else ""
    how = (f"tag it with `tachikoma tag --path {shlex.quote(rel)} {asked}{overwrite}`" if valid
           else "tag it with `tachikoma tag --path … --trust …` (owner, self, external or untrusted) or "
                "`--confidence …` (high, medium, low or speculative)")
    many = len(differing) > 1
    return (min(p.line for p in differing),
            f"{said}: {'Logseq properties, which are not tags' if many else 'a Logseq property, which is no tag'} "
            f"to tachikoma (it reads tags from YAML front matter, which Logseq keeps): not read; {how}")


#: The most of a property's value a warning quotes (a `source::` may hold a pasted page).
SAID_CHARS = 80


def _shortened(value: str) -> str:
    return value if len(value) <= SAID_CHARS else value[:SAID_CHARS] + "…"


def _taggable(key: str, value: str) -> str | None:
    """`value` as `tachikoma tag` takes it for `key` (`tags.check_value`: a source of at most 200 characters, no
    control character), or None when it would refuse it: the command a warning names must run."""
    try:
        return check_value(key, value)
    except InvalidTagValue:
        return None
