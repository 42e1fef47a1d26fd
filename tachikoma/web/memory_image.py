"""Images inside the memory folder, for the notes that show them (``![](diagram.png)``).

Only a file of an image type (by its name: a fixed list, never guessed from
its bytes) that lies inside the memory folder by the same rules as notes
(`memory.safe_path`: no ``..``, no hidden folder, no symlink out) is
served, with the type its name gives and nosniff (the dashboard sends it
with every response), so a file named ``.png`` is never run as a page.

SVG can hold script. In an ``<img>`` a browser never runs it, which is how
a note shows one; opened on its own, an SVG is a document that could. So an
SVG is served as an attachment (opening its address downloads it) under a
sandboxing Content-Security-Policy that allows no script at all.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tachikoma import memory

#: The image types served, by file name suffix (lower case).
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".avif": "image/avif", ".svg": "image/svg+xml"}
SVG = "image/svg+xml"
#: An SVG's own policy: no script, no requests of its own; inline styles (diagrams use them) only.
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"
#: Larger files are not served (a note's picture, not a video).
MAX_IMAGE_BYTES = 20 << 20


def image_type(rel: str) -> str | None:
    """The content type of a memory path named as an image, else None."""
    return IMAGE_TYPES.get(PurePosixPath(rel).suffix.lower())


def find_image(root: Path, rel: str) -> tuple[Path, str] | None:
    """The file and content type of the image `rel` inside the memory `root`, or None when it is not
    an image, not inside the memory (by `memory.safe_path`'s rules), missing or too large."""
    kind = image_type(rel)
    if kind is None:
        return None
    try:
        path = memory.safe_path(root, rel)
        if not path.is_file() or path.stat().st_size > MAX_IMAGE_BYTES:
            return None
    except (memory.PathOutsideMemory, OSError):
        return None
    return path, kind
