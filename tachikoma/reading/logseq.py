"""A Logseq graph as Logseq defines it: a folder holding ``logseq/config.edn`` (the memory's root or any folder in
it), with journals in ``journals/`` and pages in ``pages/``.

Logseq keeps copies of pages in its own folder: ``logseq/bak/`` (a page as it was before Logseq overwrote it),
``logseq/version-files/`` (versions from its sync) and ``logseq/.recycle/`` (deleted pages). Logseq itself never reads
them as pages, and they are not memory here either (`COPIES`, `copies_folder`): the walk leaves them out, said in
`stats`, and reading or tagging one is refused. Nothing here imports the rest of tachikoma.
"""

from __future__ import annotations

import os
from pathlib import Path

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
