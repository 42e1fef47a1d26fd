"""The tag file's text as tachikoma writes it: whole (`whole`), or with only the entries that change edited in place
(`edited`), every other line byte for byte, comments included.

Lines are YAML's (a carriage return alone, U+0085, U+2028 and U+2029 end one too). A changed tag keeps the
comments around its value (after it, or after its key when the value is on the next line); a flow-style entry
(``{trust: self}``) is edited item by item; a new entry goes where the sorted order puts it, with the comment lines
above the entry it goes before staying with that entry; an entry left without any key is removed. Anchors and
aliases, a flow-style top level or a value that is no text are not edited in place (None: `tagfile.render` writes
the file whole).
"""

from __future__ import annotations

import re

from .tags import WRITABLE_KEYS


def whole(entries: dict) -> str:
    """The entries of `entries` (path -> mapping of tags; an empty mapping dropped) written anew, below the header:
    the paths sorted, tag keys trust, confidence, source first; values that are not mappings as they are."""
    data = {key: _ordered(entries[key]) for key in sorted(entries, key=_path_order) if entries[key] != {}}
    return _dump(data) if data else ""


def _path_order(key) -> tuple[bool, str]:
    return not isinstance(key, str), str(key)


def _ordered(value):
    """A mapping of tags with trust, confidence and source first; anything else as it is."""
    if not isinstance(value, dict):
        return value
    lowered = {str(k).strip().lower(): k for k in value}
    ordered = {lowered[tag]: value[lowered[tag]] for tag in WRITABLE_KEYS if tag in lowered}
    ordered.update((k, v) for k, v in value.items() if k not in ordered)
    return ordered


def _dump(data: dict, flow: bool = False) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=flow,
                     width=10**9)


def edited(text: str, entries: dict) -> str | None:
    """`text`, a tag file's, with only the entries that differ from `entries` edited (see the module docstring), or
    None when that cannot be done safely. The caller reads the result back (`tagfile.render`): an edit is only kept
    when the file it makes holds `entries`."""
    import bisect

    import yaml

    from .frontmatter import yaml_scalar
    from .yaml_rules import YamlLoader

    bom = "\ufeff" if text.startswith("\ufeff") else ""
    written = text[len(bom):]  # libyaml's marks count characters from after it
    if not written.strip():
        return None  # an empty file is written anew, with the header
    # The lines as YAML counts them: a carriage return alone, U+0085, U+2028 and U+2029 break lines too. `text` has
    # each of them as "\n", the same length, so every index is the same in both and the line arithmetic below
    # (`_line_start`, `_after_line`, ...) sees YAML's lines; the edits are made to the file's own text.
    text = _LONE_BREAK.sub("\n", written)
    try:
        if ("&" in text or "*" in text) and any(isinstance(event, (yaml.AliasEvent, yaml.NodeEvent)) and event.anchor
                                                for event in yaml.parse(written, Loader=YamlLoader)):
            return None  # an edit of one entry could change another
        loader = YamlLoader(written)
        try:
            node = loader.get_single_node()
            if isinstance(node, yaml.ScalarNode) and node.value == "" and node.tag == _NULL:
                node = None  # "---" and comments: no entry yet (the comments stay)
            if node is not None and (not isinstance(node, yaml.MappingNode) or node.flow_style
                                     or node.start_mark.column != 0):
                return None
            old = {} if node is None else loader.construct_document(node)
            nodes = {} if node is None else {loader.construct_object(k, deep=True): (k, v) for k, v in node.value}
        finally:
            loader.dispose()
    except (yaml.YAMLError, TypeError, ValueError, RecursionError):
        return None
    if not isinstance(old, dict):
        return None
    wanted = {key: value for key, value in entries.items() if value != {}}
    newline = "\r\n" if "\r\n" in written else "\r" if "\r" in written and "\n" not in written else "\n"
    edits: list[tuple[int, int, str]] = []  # (start, end, new text) in `text`
    try:
        for key in old:
            key_node, value_node = nodes[key]
            if key not in wanted:  # before comparing: an entry with no value (`a.jsonl:`) equals no entry
                edits.append((_line_start(text, key_node.start_mark.index), _end_of(text, value_node), ""))
            elif old[key] == wanted[key]:
                continue
            elif isinstance(value_node, yaml.MappingNode) and isinstance(wanted[key], dict):
                # block or flow ({trust: self}), only the tags that change: comments in and after it stay
                edits += _entry_edits(text, value_node, old[key], wanted[key], yaml_scalar, newline)
            else:
                return None
    except (KeyError, _NotText):
        return None
    new = [key for key in wanted if key not in old]
    if not all(isinstance(key, str) and isinstance(wanted[key], dict) for key in new):
        return None
    # Each new entry goes before the first entry written in the file that sorts after it (and its comments):
    # the entries in sorted order, with the least index in the file among those from each one on.
    placed = sorted((_path_order(k), n[0].start_mark.index) for k, n in nodes.items())
    orders = [order for order, _ in placed]
    # The last entry goes at the end of the document: before its end marker ("..."), if it has one.
    marker = _DOCUMENT_END.search(text, 0 if node is None else _end_of(text, node))
    end = len(text) if marker is None else marker.start()
    if marker is not None and not wanted:  # "..." ends a document; with no entry left, there is none to end
        line_end = text.find("\n", end)
        edits.append((end, len(text) if line_end < 0 else line_end + 1, ""))
    first_from = [end] * (len(placed) + 1)
    for i in range(len(placed) - 1, -1, -1):
        first_from[i] = min(placed[i][1], first_from[i + 1])
    # Where each entry starts and its content ends, in the file's order: the comment lines above an entry
    # start below the entry before it (a line of its block scalar may start with "#").
    spans = sorted((k.start_mark.index, _end_of(text, v)) for k, v in nodes.values())
    starts = [start for start, _ in spans]
    above: dict[int, int] = {}
    inserted: dict[int, str] = {}
    # A block scalar ending the file without a line break ("note: |" / "  text"): a line break after it would join
    # its value ("text\n"), so an entry that goes at the end goes above the last entry instead (out of order).
    if end == len(text) and not text.endswith("\n") and node is not None and _open_block(text, node):
        end = _comments_above(text, spans[-1][0], spans[-2][1] if len(spans) > 1 else 0)
    for key in sorted(new, key=_path_order):
        index = min(first_from[bisect.bisect_right(orders, _path_order(key))], end)
        if index < end and index not in above:
            before = bisect.bisect_left(starts, index) - 1
            above[index] = _comments_above(text, index, spans[before][1] if before >= 0 else 0)
        at = above[index] if index < end else end
        block = _dump({key: _ordered(wanted[key])}).replace("\n", newline)
        if at == len(text) and not text.endswith("\n") and at not in inserted:
            block = newline + block
        inserted[at] = inserted.get(at, "") + block
    edits += [(at, at, block) for at, block in inserted.items()]
    pieces, done = [bom], 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < done:
            return None  # two edits of the same lines: not one this knows how to make
        pieces += [written[done:start], replacement]
        done = end
    pieces.append(written[done:])
    return "".join(pieces)


_NULL = "tag:yaml.org,2002:null"
#: The line breaks YAML counts that are neither LF nor CRLF's CR (see `edited`).
_LONE_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
#: The header of a block scalar (after its tag, if any): group 1 holds its indicators ("+": keep its blank lines).
_BLOCK_HEADER = re.compile(r"(?:![^ \t]*[ \t]+)?[|>]([^ \t\r\n#]*)")
#: A document end marker at the start of a line.
_DOCUMENT_END = re.compile(r"^\.\.\.(?=[ \t\r\n#]|\Z)", re.MULTILINE)


class _NotText(Exception):
    """A value the in-place edit does not write (not text nor a boolean)."""


def _entry_edits(text: str, mapping, before: dict, after: dict, scalar, newline: str) -> list[tuple[int, int, str]]:
    """The edits that turn one entry's mapping node (`mapping`, block or flow, read as `before`) into `after`:
    only the tags that change; a changed value is replaced alone, without the comments around it."""
    import yaml

    flow = mapping.flow_style
    children: dict[str, list] = {}
    for key_node, value_node in mapping.value:
        children.setdefault(str(key_node.value).strip().lower(), []).append((key_node, value_node))
    names_before = {str(k).strip().lower() for k in before}
    names_after = {str(k).strip().lower(): k for k in after}
    edits = []
    dropped: set[int] = set()  # the key nodes of a flow mapping's items to remove
    added: list[tuple[str, str]] = []  # the tags a flow mapping gains: (name, "key: value")
    rank = {tag: i for i, tag in enumerate(WRITABLE_KEYS)}
    for name in sorted(names_before | set(names_after), key=lambda n: rank.get(n, len(rank))):
        old_items = [(k, v) for k, v in before.items() if str(k).strip().lower() == name]
        new_items = [(k, v) for k, v in after.items() if str(k).strip().lower() == name]
        if old_items == new_items:
            continue
        if len(new_items) > 1:
            raise _NotText()
        spelled = children.get(name, [])
        for key_node, value_node in spelled[:-1] if new_items else spelled:
            if flow:
                dropped.add(id(key_node))
            else:
                edits.append((_line_start(text, key_node.start_mark.index), _end_of(text, value_node), ""))
        if not new_items:
            continue
        key, value = new_items[0]
        key_text, value_text = _text_of(key, scalar), _text_of(value, scalar)
        line = f"{key_text}: {value_text}"
        if spelled:
            key_node, value_node = spelled[-1]
            if (isinstance(value_node, yaml.ScalarNode) and value_node.style not in ("|", ">")
                    and value_node.end_mark.index > value_node.start_mark.index):
                # The value alone (and the key, spelled otherwise): comments between and after them stay, on
                # whatever lines the value spanned.
                if text[key_node.start_mark.index:key_node.end_mark.index] != key_text:
                    edits.append((key_node.start_mark.index, key_node.end_mark.index, key_text))
                edits.append((value_node.start_mark.index, value_node.end_mark.index, value_text))
                continue
            one_line = (isinstance(value_node, yaml.ScalarNode)
                        and value_node.start_mark.line == value_node.end_mark.line == key_node.start_mark.line)
            end = value_node.end_mark.index if one_line or flow else \
                _line_end(text, _end_of(text, value_node))
            edits.append((key_node.start_mark.index, end, line))
            continue
        if flow:
            added.append((name, line))
            continue
        later = [k for k, _ in mapping.value if rank.get(str(k.value).strip().lower(), len(rank)) > rank.get(name, 0)]
        indent = " " * mapping.value[0][0].start_mark.column
        at = _line_start(text, later[0].start_mark.index) if later else _end_of(text, mapping)
        if at == len(text) and _open_block(text, mapping):  # not after it: its value would gain a line break
            at = _line_start(text, mapping.value[-1][0].start_mark.index)
        if at == len(text) and not text.endswith("\n"):
            line = newline + indent + line
            edits.append((at, at, line))
        else:
            edits.append((at, at, indent + line + newline))
    if not flow:
        return edits
    # A flow mapping's new tags go before the first item kept that they precede, or after the last item kept
    # (after its `{` when none is).
    kept = [(k, v) for k, v in mapping.value if id(k) not in dropped]
    if added and not kept:
        at = mapping.start_mark.index + 1
        edits.append((at, at, ", ".join(line for _, line in added)))
    for name, line in added if kept else []:
        later = [k for k, _ in kept if rank.get(str(k.value).strip().lower(), len(rank)) > rank.get(name, 0)]
        if later:
            edits.append((later[0].start_mark.index, later[0].start_mark.index, line + ", "))
        else:
            edits.append((kept[-1][1].end_mark.index, kept[-1][1].end_mark.index, ", " + line))
    return edits + _flow_removals(text, mapping.value, dropped)


def _flow_removals(text: str, items: list, dropped: set[int]) -> list[tuple[int, int, str]]:
    """The edits that remove the items of a flow mapping whose key nodes are `dropped`: each run of them with
    the comma after it, what follows that comma (a comment) staying; a run at the end with the comma before
    it when that is on the same line, else leaving it (``{a: 1,}`` is allowed)."""
    edits = []
    i = 0
    while i < len(items):
        if id(items[i][0]) not in dropped:
            i += 1
            continue
        j = i
        while j + 1 < len(items) and id(items[j + 1][0]) in dropped:
            j += 1
        start, end = items[i][0].start_mark.index, items[j][1].end_mark.index
        if j + 1 < len(items):
            while text[end:end + 1] in (" ", "\t"):
                end += 1
            end += text[end:end + 1] == ","
            spaces = end
            while text[spaces:spaces + 1] in (" ", "\t"):
                spaces += 1
            edits.append((start, spaces if text[spaces:spaces + 1] not in ("#", "\r", "\n") else end, ""))
        else:
            before = start
            while before > 0 and text[before - 1] in " \t":
                before -= 1
            edits.append((before - 1 if i > 0 and text[before - 1:before] == "," else start, end, ""))
        i = j + 1
    return edits


def _text_of(value, scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str):
        raise _NotText()
    return scalar(value)


def _end_of(text: str, node) -> int:
    """The index just after the line break of the last line of `node`'s content: not the comments after it, nor
    the blank lines a block scalar (``|``) ends with unless they are part of its value (``|+``)."""
    import yaml

    mark = _last(node)
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        header = _BLOCK_HEADER.match(text, node.start_mark.index)
        if header and "+" not in header.group(1):
            content = mark.index
            while content > header.end() and text[content - 1] in " \t\r\n":
                content -= 1
            end = text.find("\n", content)
            return len(text) if end < 0 else end + 1
    return _after_line(text, mark)


def _open_block(text: str, node) -> bool:
    """Whether `node`'s content ends in a block scalar (``|``, ``>``; not ``|-``, which strips its final line
    break) that runs to the end of `text`, which has no final line break: anything written after it would add one
    to its value."""
    import yaml

    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    if not (isinstance(node, yaml.ScalarNode) and node.style in ("|", ">") and not text.endswith("\n")):
        return False
    header = _BLOCK_HEADER.match(text, node.start_mark.index)
    return header is not None and "-" not in header.group(1) and _end_of(text, node) == len(text)


def _last(node):
    """The mark just after the last character of `node`'s content (not the comments or blank lines after it)."""
    import yaml

    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    return node.end_mark


def _line_end(text: str, after: int) -> int:
    """`after`, the index after a line's break, moved back before that break ("\\n" or "\\r\\n")."""
    end = after - 1 if text[after - 1:after] == "\n" else after
    return end - 1 if text[end - 1:end] == "\r" else end


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _after_line(text: str, mark) -> int:
    """The index just after the line break of the line `mark` ends on (a mark at a line's start ends the line
    before)."""
    index = mark.index
    if mark.column == 0 and index > 0:
        return index
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


def _comments_above(text: str, index: int, floor: int = 0) -> int:
    """The start of the comment lines right above the line at `index` (they are about it), or of that line
    when they run up to the top of the file (the file's own header). None of them starts before `floor`, the
    end of the entry above."""
    line = start = _line_start(text, index)
    while start > floor:
        above = _line_start(text, start - 1)
        if not text[above:start].lstrip().startswith("#"):
            return start
        start = above
    return start if floor else line
