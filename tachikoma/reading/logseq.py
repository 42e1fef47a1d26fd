"""A Logseq graph as Logseq defines it: a folder holding ``logseq/config.edn`` (the memory's root or any folder in
it), with journals in ``journals/`` and pages in ``pages/``.

Logseq keeps copies of pages in its own folder: ``logseq/bak/`` (a page as it was before Logseq overwrote it),
``logseq/version-files/`` (versions from its sync) and ``logseq/.recycle/`` (deleted pages). Logseq itself never reads
them as pages, and they are not memory here either (`COPIES`, `copies_folder`): the walk leaves them out, said in
`stats`, and reading or tagging one is refused.

A page is named by its file name (`page_title`: ``pages/work___harbour.md`` is "work/harbour"), unless its first
block sets ``title::``; ``alias::`` gives it other names (`page_names`, which a note's first chunk opens with, as
with front matter's). Nothing here imports the rest of tachikoma.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

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


def graph_of(root: Path, rel: str) -> str | None:
    """The graph the file `rel` (relative to the memory `root`) is in: the nearest folder above it, up to the root,
    that holds ``logseq/config.edn``, as a path relative to the root ("" for the root itself); None when no folder
    does."""
    folders = rel.split("/")[:-1]
    for depth in range(len(folders), -1, -1):
        if holds_graph(Path(root, *folders[:depth])):
            return "/".join(folders[:depth])
    return None


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
    decode to UTF-8 text (Logseq leaves such a name as written too)."""
    if "%" not in text:
        return text
    try:
        return unquote(text, errors="strict")
    except UnicodeDecodeError:
        return text


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
_PROPERTY = re.compile(r"^[ \t]*(?P<bullet>[-*+][ \t]+)?(?P<key>[^\W\d][\w.-]*)::(?:[ \t]+(?P<value>.*?))?[ \t]*$")
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
        found.append(Property(match["key"].lower(), match["value"] or "", number))
    return found


def listed(value: str) -> list[str]:
    """The values of a list property (``alias:: trasloco, move, [[the move]]``), each without its brackets."""
    values = ((linked or plain).strip() for linked, plain in _LISTED.findall(value))
    return [value.removeprefix("#") for value in values if value.removeprefix("#")]


def page_names(root: Path, rel: str, text: str) -> dict:
    """What a file of a Logseq graph is named, as `chunking.front_matter_line` reads front matter: ``{"title"}``, its
    first block's ``title::`` or else, for a page, its decoded file name; ``{"alias": [...]}``, its ``alias::``
    names. {} for a file in no graph (`graph_of`), or one named neither way (a journal without properties)."""
    graph = graph_of(root, rel)
    if graph is None:
        return {}
    properties = {p.key: p.value for p in reversed(first_block(text))}  # the first of a key counts
    names: dict = {}
    title = properties.get("title", "").strip() or page_title(root, rel, graph)
    if title:
        names["title"] = title
    if aliases := listed(properties.get("alias", "")):
        names["alias"] = aliases
    return names
