"""Browser code the dashboard serves itself, so pages need no CDN (and the CSP can say 'self')."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def htmx_script() -> Path | None:
    """htmx.min.js from the installed js_lib_htmx package, or None when it is not installed."""
    spec = importlib.util.find_spec("js_lib_htmx")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "static" / "htmx" / "htmx.min.js"
        if candidate.is_file():
            return candidate
    return None
