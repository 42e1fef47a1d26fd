"""Byte edits: a note's front matter (only the tag lines change, the body stays byte for byte) and
the tag file's entries, made to the file on disk and to its versions in git alike."""

from __future__ import annotations

import io
from pathlib import Path

from ..reading import tagfile
from ..reading.frontmatter import read_head, remove_keys, set_keys
from ..memory import TAG_FILE
from ..reading.tags import EVERGREEN
from .model import Change

BOM = "\ufeff"

def edit_markdown(data: bytes, change: Change) -> bytes:
    """`data`, a markdown file's bytes, with `change` made to its front matter. Raises ValueError."""
    head = read_head(io.BytesIO(data))
    return edit_head(head, data[len(head):len(head) + SAMPLE], change) + data[len(head):]


#: How much of the body `edit_head` sees: enough to choose the line ending of a new block.
SAMPLE = 200


def edit_head(head: bytes, sample: bytes, change: Change) -> bytes:
    """The new head (see `frontmatter.read_head`) of a note whose head is `head` and whose body
    starts with `sample`, once `change` is made. Raises ValueError when it cannot be done safely."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("front matter is not UTF-8 text") from None
    start = sample.decode("utf-8", "replace")  # only read to pick a line ending; the body is never rewritten
    bom = BOM if text.startswith(BOM) else ""
    text = text[len(bom):] + start
    removed = [k for k in change.keys if k not in change.after]
    if removed:
        text = remove_keys(text, removed, drop_empty_block=change.created_block)
    if change.after:
        text = set_keys(text, {k: _written(k, v) for k, v in change.after.items()})
    if not text.endswith(start):
        raise ValueError("could not update front matter safely: the body would change")
    return (bom + text[:len(text) - len(start)]).encode("utf-8")


def edit_entry(entries: dict, change: Change) -> None:
    """Make `change` to the tag-file entry of its path, replacing every spelling of each key."""
    entry = dict(entries.get(change.path) or {})
    for key in change.keys:
        for existing in [k for k in entry if str(k).strip().lower() == key]:
            del entry[existing]
        if key in change.after:
            entry[key] = _written(key, change.after[key])
    entries[change.path] = entry


def _written(key: str, value: str) -> str | bool:
    """How a value is written: evergreen as a YAML boolean (``evergreen: true``), the rest as text."""
    return value == "true" if key == EVERGREEN else value


def edit_tag_file(root: Path, data: bytes, changes: list[Change], keep: bool) -> bytes | None:
    """`data`, a tag file's bytes, with only `changes` made (None: no entry left and `keep` false)."""
    parsed = tagfile.parse(root, data, name=f"{TAG_FILE} (in git)")
    entries = parsed.all_entries()
    for change in changes:
        if change.path in parsed.extra:
            raise ValueError(f"its entry for {change.path} is not a mapping of tags")
        edit_entry(entries, change)
    if not keep and all(isinstance(v, dict) and not v for v in entries.values()):
        return None  # the work-tree file is gone and nothing is left to keep
    try:
        previous = data.decode("utf-8")
    except UnicodeDecodeError:
        previous = None
    return tagfile.render(entries, previous).encode("utf-8")


def mismatch(now: dict[str, str], change: Change) -> str | None:
    """Why the file's tags no longer match `change.before`, or None."""
    for key in change.keys:
        expected, found = change.before.get(key), now.get(key)
        if expected != found:
            shown = "absent" if found is None else repr(found)
            return f"changed since the plan was made ({key} is now {shown}); not touched"
    return None


