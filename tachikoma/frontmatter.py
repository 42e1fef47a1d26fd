"""YAML front matter: read it, and change single keys without touching the body.

A markdown file may start with a block fenced by ``---`` lines holding YAML.
Reading never raises: malformed YAML yields an error message and an empty
mapping. Writing edits only the lines of the keys it sets, so comments, key
order and every byte of the body stay as they were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

_OPEN = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


@dataclass
class FrontMatter:
    """The result of splitting a markdown text."""

    meta: dict = field(default_factory=dict)
    #: Raw text of the front matter block including both fences ("" if none).
    block: str = ""
    #: Everything after the block, unchanged.
    body: str = ""
    #: 1-based line number of the body's first line in the file.
    body_line: int = 1
    #: A one-line description of what was wrong, or None.
    error: str | None = None


def split(text: str) -> FrontMatter:
    """Split `text` into front matter and body. Never raises."""
    opening = _OPEN.match(text)
    if not opening:
        return FrontMatter(body=text)
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        return FrontMatter(body=text, error="front matter opened with --- but never closed")
    end = closing.end()
    if text.startswith("\r\n", end):
        end += 2
    elif text.startswith("\n", end):
        end += 1
    block, body = text[:end], text[end:]
    body_line = block.count("\n") + 1
    yaml_text = text[opening.end() : closing.start()]
    try:
        meta = yaml.safe_load(yaml_text) if yaml_text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        return FrontMatter(block=block, body=body, body_line=body_line,
                           error=f"malformed front matter{where}: {problem}")
    if not isinstance(meta, dict):
        return FrontMatter(block=block, body=body, body_line=body_line,
                           error="front matter is not a mapping of keys to values")
    return FrontMatter(meta=meta, block=block, body=body, body_line=body_line)


def _yaml_scalar(value: str) -> str:
    """Render a string as a one-line YAML scalar that reads back as the same string."""
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**9)
    return dumped.removesuffix("\n...\n").rstrip("\n")


def set_keys(text: str, values: dict[str, str]) -> str:
    """Return `text` with top-level front matter keys set to `values`.

    Existing lines for those keys are replaced in place (keys matched
    case-insensitively); missing keys are appended at the end of the block;
    a file without front matter gets a new block. The body is copied verbatim.
    Raises ValueError when the existing front matter is malformed, because
    rewriting it could lose what the person wrote.
    """
    fm = split(text)
    if fm.error:
        raise ValueError(fm.error)
    newline = "\r\n" if "\r\n" in (fm.block or text[:200]) else "\n"
    lines = fm.block.splitlines(keepends=True)
    if not lines:
        lines = ["---" + newline, "---" + newline]
    body_lines, closing = lines[1:-1], lines[-1]
    if not closing.endswith(("\n", "\r")):
        closing += newline
    remaining = dict(values)
    for i, line in enumerate(body_lines):
        match = re.match(r"^([A-Za-z_][\w-]*)[ \t]*:", line)
        if not match:
            continue
        key = match.group(1).lower()
        if key in remaining:
            eol = newline if line.endswith(("\n", "\r")) else ""
            body_lines[i] = f"{key}: {_yaml_scalar(remaining.pop(key))}{eol}"
            # A block value continued on indented lines would now be orphaned.
            j = i + 1
            while j < len(body_lines) and body_lines[j][:1] in (" ", "\t"):
                body_lines[j] = ""
                j += 1
    if body_lines and not body_lines[-1].endswith(("\n", "\r")) and remaining:
        body_lines[-1] += newline
    for key, value in remaining.items():
        body_lines.append(f"{key}: {_yaml_scalar(value)}{newline}")
    new_block = lines[0] + "".join(body_lines) + closing
    result = new_block + fm.body
    check = split(result)
    if check.error or check.body != fm.body:
        raise ValueError(f"could not update front matter safely: {check.error or 'body changed'}")
    for key, value in values.items():
        if str(check.meta.get(key)) != value:
            raise ValueError(f"could not update front matter safely: {key} reads back differently")
    return result


def remove_keys(text: str, keys, drop_empty_block: bool = False) -> str:
    """Return `text` without the top-level front matter `keys` (matched case-insensitively).

    Only the lines of those keys (and indented lines continuing their value)
    are removed; the body is copied verbatim. A file without front matter is
    returned unchanged. When `drop_empty_block` is true and nothing is left
    between the fences, the whole block goes, so a block that tachikoma added
    disappears again; otherwise an empty ``---``/``---`` block stays. Raises
    ValueError when the existing front matter is malformed.
    """
    wanted = {str(key).lower() for key in keys}
    fm = split(text)
    if fm.error:
        raise ValueError(fm.error)
    if not fm.block:
        return text
    # Split on "\n" only: str.splitlines would also split at \r, U+2028 and others.
    lines = re.findall(r"[^\n]*\n|[^\n]+", fm.block)
    opening, body_lines, closing = lines[0], lines[1:-1], lines[-1]
    kept: list[str] = []
    dropping = False
    blanks: list[str] = []  # blank lines met while dropping: inside the value only if indented lines follow
    for line in body_lines:
        if dropping:
            if not line.strip():
                blanks.append(line)
                continue
            if line[:1] in (" ", "\t"):
                blanks = []
                continue
            kept.extend(blanks)
            blanks = []
        dropping = False
        match = re.match(r"^([A-Za-z_][\w-]*)[ \t]*:", line)
        if match and match.group(1).lower() in wanted:
            dropping = True
            continue
        kept.append(line)
    kept.extend(blanks)
    expected_body = fm.body
    if drop_empty_block and not kept:
        bom = "\ufeff" if opening.startswith("\ufeff") else ""
        result = expected_body = bom + fm.body
    else:
        result = opening + "".join(kept) + closing + fm.body
    check = split(result)
    if check.error or check.body != expected_body:
        raise ValueError(f"could not update front matter safely: {check.error or 'body changed'}")
    if any(str(k).lower() in wanted for k in check.meta):
        raise ValueError("could not update front matter safely: a key is still present")
    return result
