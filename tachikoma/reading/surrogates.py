"""Half a character: lone UTF-16 surrogates, made whole (U+FFFD) where text enters tachikoma.

JSON may spell a character as two ``\\uXXXX`` escapes (a surrogate pair); an agent
that cuts its text in the middle of an emoji writes only the first
(``"done \\ud83d"``). Python decodes that to a str holding a lone surrogate, which
no UTF-8 encoder accepts: hashing a chunk, the full-text index, PostgreSQL and
every file write would fail on it. So every string read from JSON (a transcript
line, a tool's arguments) and every text a client hands in (MCP `remember`, the
command line) has its lone surrogates replaced by U+FFFD, the replacement
character, as invalid UTF-8 in a file already is (`reader`). The file itself is
never changed: its bytes stay as they are.
"""

from __future__ import annotations

import json
import re

REPLACEMENT = "\ufffd"
_LONE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (itself when it has none: the usual case)."""
    return _LONE.sub(REPLACEMENT, text) if _LONE.search(text) else text


def has_lone(text: str) -> bool:
    return _LONE.search(text) is not None


def _may_hold(raw) -> bool:
    """Whether a JSON text may decode to a lone surrogate: it spells one as an escape (``\\uD8..``)."""
    if isinstance(raw, (bytes, bytearray)):
        return b"\\ud" in raw or b"\\uD" in raw
    return "\\ud" in raw or "\\uD" in raw or _LONE.search(raw) is not None


def loads(raw):
    """`json.loads`, with every lone surrogate in a string (key or value) replaced by U+FFFD.

    Costs nothing more for a line that spells no surrogate escape; raises what `json.loads` raises."""
    obj = json.loads(raw)
    if not _may_hold(raw):
        return obj
    return clean_object(obj)


def clean_object(obj):
    """A JSON value (dicts, lists, strings, numbers) with its strings `clean`ed; rebuilt without recursion,
    so a deeply nested line (which `json.loads` accepted) cannot overflow the stack."""
    if isinstance(obj, str):
        return clean(obj)
    if not isinstance(obj, (dict, list)):
        return obj
    root = [obj]
    stack = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        value = holder[key]
        if isinstance(value, str):
            holder[key] = clean(value)
        elif isinstance(value, list):
            stack.extend((value, i) for i in range(len(value)))
        elif isinstance(value, dict):
            if any(isinstance(k, str) and has_lone(k) for k in value):
                value = {clean(k): v for k, v in value.items()}
                holder[key] = value
            stack.extend((value, k) for k in value)
    return root[0]
