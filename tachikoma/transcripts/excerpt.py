"""An excerpt of a tool call's text, read back from its transcript for a search result.

The index keeps only a tool text's distinct words (`chunking.keyword_words`),
so the passage a result shows is read from the file itself, at the line the
index recorded: one line of JSON, whose strings are searched for the query's
words. Nothing here trusts the line: a file changed since it was indexed
gives no excerpt rather than a wrong one.
"""

from __future__ import annotations

from pathlib import Path

from ..reading import surrogates
from .common import one_line

#: Characters of tool text an excerpt shows around the first query word.
EXCERPT_CHARS = 200
#: Keys whose strings are not tool text (reasoning, signatures, ids).
_NOT_TOOL_TEXT = frozenset({"thinking", "signature", "thinkingSignature", "encrypted_content", "id", "uuid",
                            "parentUuid", "parentId", "sessionId", "requestId", "tool_use_id", "toolCallId",
                            "call_id", "timestamp"})


#: Bytes read at a time while looking for a line (newlines are counted in C, a block at a time).
_BLOCK = 1 << 20


def read_line(path: Path, number: int) -> str | None:
    """Line `number` (1-based, split on ``\\n`` only, as the readers do) of a file; None if it has fewer."""
    from ..memory import open_regular

    try:
        with open_regular(path) as handle:
            before, data = 0, b""  # lines wholly before `data`; `data` starts at a line's start
            while True:
                block = handle.read(_BLOCK)
                data += block
                newlines = data.count(b"\n")
                if before + newlines >= number or not block:
                    break
                cut = data.rfind(b"\n") + 1
                before, data = before + newlines, data[cut:]
    except OSError:
        return None
    wanted = number - 1 - before
    parts = data.split(b"\n", wanted + 1)  # split in C: the line is part `wanted`, if the file has it
    if len(parts) <= wanted or (len(parts) == wanted + 1 and not parts[wanted]):
        return None  # fewer lines (an empty last part is what follows the final line break)
    return parts[wanted].decode("utf-8", errors="replace")


def _strings(value: object):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed([v for k, v in item.items() if k not in _NOT_TOOL_TEXT]))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def tool_excerpt(path: Path, line: int, terms: list[str], width: int = EXCERPT_CHARS,
                 redact: bool = True) -> str | None:
    """About `width` characters of the record at `line` around the first of `terms` (case-insensitive)
    that one of its strings holds, on one line, "…" where cut; None when no string holds one (the
    file changed, or the word matched only by its stem). With `redact` (``[privacy] redact_secrets``)
    its secrets are markers, as in the index (`redaction`)."""
    raw = read_line(path, line)
    if raw and redact:
        from ..redaction import redact_jsonl_line

        raw = redact_jsonl_line(raw)[0]
    try:
        obj = surrogates.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None
    folded = [t.casefold() for t in terms if t]
    for text in _strings(obj):
        lowered = text.casefold()
        found = [at for at in (lowered.find(t) for t in folded) if at >= 0]
        if not found:
            continue
        start = max(0, min(found) - width // 3)
        piece = one_line(text[start:start + width], width)
        cut = start + width < len(text) and not piece.endswith("…")
        return ("…" if start else "") + piece + ("…" if cut else "")
    return None
