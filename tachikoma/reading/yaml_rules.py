"""YAML as tachikoma reads it: front matter and the tag file both go through `load_yaml`.

`load_yaml` differs from PyYAML's ``safe_load`` in three ways:

- Booleans follow YAML 1.2: only ``true`` / ``false`` (any of the three
  usual capitalisations) are booleans. ``yes``, ``no``, ``on`` and ``off``
  stay text, so ``source: no`` is the source "no".
- Timestamps are never constructed: ``date: 2026-03-22`` is the text
  "2026-03-22". Whoever needs a date parses it (see `reader`), so an
  impossible date such as 2026-02-30 is a warning there, not a crash here.
- A ``source`` value that YAML would read as a number or boolean
  (``source: 1.0``, ``source: 0x1F``) keeps the text as written.

A value that YAML cannot build (``!!int abc``, ``!!timestamp 2026-13-45``)
makes the document malformed, like a syntax error, and so do aliases that
would expand it far beyond what is written (`MAX_ALIAS_VALUES`). A key given
twice, exactly or differing only in case, is not an error: the value written
last counts, and `duplicate_keys` finds the repetitions so callers can warn
(the reader, stats) or refuse to rewrite them (tagging).
"""

from __future__ import annotations

import collections.abc
import re
from dataclasses import dataclass, field

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, ScalarNode

#: A mapping where YAML wants a key: text in double braces, as a template writes `created: {{date}}`, is a flow
#: mapping inside a flow mapping to YAML (PyYAML says "found unhashable key").
UNHASHABLE_KEY = ("a key that is itself a mapping, as {{date}} is to YAML (braces inside braces), such as a "
                  "template's placeholder: quote it (\"{{date}}\")")
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: Whether PyYAML reads with libyaml (its C loader), which skips a byte order mark starting the text without counting
#: it in its marks' offsets (PyYAML's own scanner counts it).
LIBYAML = _BaseLoader is not yaml.SafeLoader
_BOOL = "tag:yaml.org,2002:bool"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_STR = "tag:yaml.org,2002:str"
_NOT_TEXT = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", _BOOL)
#: Keys whose scalar values are always text, as written.
TEXT_KEYS = ("source",)
#: Everything `load_yaml` may raise on bad input, besides YamlError itself.
_CONSTRUCT_ERRORS = (ValueError, TypeError, OverflowError)


class YamlLoader(_BaseLoader):
    """PyYAML's safe loader with YAML 1.2 booleans, no timestamps, and text ``source`` values."""

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except _CONSTRUCT_ERRORS as exc:
            # e.g. "!!int abc" or "!!timestamp 2026-02-30": malformed, with the place it is at.
            raise ConstructorError(None, None, f"cannot read this value ({exc})", node.start_mark) from exc

    def construct_mapping(self, node, deep=False):
        if isinstance(node, MappingNode):
            self.flatten_mapping(node)
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, f"expected a mapping node, but found {node.id}", node.start_mark)
        mapping: dict = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, collections.abc.Hashable):
                raise ConstructorError("while constructing a mapping", node.start_mark, UNHASHABLE_KEY,
                                       key_node.start_mark)
            if (isinstance(key, str) and key.strip().lower() in TEXT_KEYS
                    and isinstance(value_node, ScalarNode) and value_node.tag in _NOT_TEXT):
                value = value_node.value
            else:
                value = self.construct_object(value_node, deep=deep)
            # A repeated key counts where it was written last (PyYAML keeps its first place).
            mapping.pop(key, None)
            mapping[key] = value
        return mapping


YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_BOOL, _TIMESTAMP)]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}
YamlLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


class YamlError(ValueError):
    """YAML that cannot be read: `problem` says what, `line` (1-based) where, when known."""

    def __init__(self, problem: str, line: int | None = None):
        super().__init__(problem if line is None else f"line {line}: {problem}")
        self.problem = problem
        self.line = line


@dataclass
class YamlDocument:
    """One loaded YAML document."""

    data: object = None
    #: For a top-level mapping, each key in the order written: (key, 1-based line, sub-keys),
    #: where sub-keys lists (key, line) of the value when that is a mapping, else None.
    keys: list[tuple[object, int, list[tuple[object, int]] | None]] = field(default_factory=list)
    #: The composed top-level node (PyYAML's; marks count lines from 0 at the text's first line), or None.
    node: object = None


def load_yaml(text: str, first_line: int = 1) -> YamlDocument:
    """Load one YAML document with tachikoma's rules (see the module docstring).

    `first_line` is the line of the file that `text` starts on, for messages.
    Raises YamlError for anything that is not well-formed YAML it can build.
    """
    loader = YamlLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument()
        _check_aliases(node, first_line)
        data = loader.construct_document(node)
        keys: list = []
        if isinstance(node, MappingNode) and isinstance(data, dict):
            for key_node, value_node in node.value:
                sub = None
                if isinstance(value_node, MappingNode):
                    sub = [(loader.construct_object(k, deep=True), k.start_mark.line + first_line)
                           for k, _ in value_node.value]
                keys.append((loader.construct_object(key_node, deep=True), key_node.start_mark.line + first_line, sub))
        return YamlDocument(data=data, keys=keys, node=node)
    except YamlError:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["invalid YAML"])[0]
        if mark is None:
            raise YamlError(problem) from exc
        # At the end of the text PyYAML's mark sits on the empty line after the last one, a line the
        # file does not have: name the last line instead.
        last = max(len(text.splitlines()) - 1, 0)
        if mark.line > last and "end of stream" not in problem:
            problem += " at the end of the file"
        raise YamlError(problem, min(mark.line, last) + first_line) from exc
    except _CONSTRUCT_ERRORS + (RecursionError,) as exc:
        raise YamlError(f"cannot read it ({type(exc).__name__}: {exc})") from exc
    finally:
        loader.dispose()


#: How many values aliases (``*name``) may add to a document, over those written in it. A few
#: ``<<: *defaults`` merges add dozens; ten lines of nested aliases (an "alias bomb") add billions,
#: which no caller could compare, store or show.
MAX_ALIAS_VALUES = 10_000


def _check_aliases(root, first_line: int = 1) -> None:
    """Raise YamlError when aliases make the document at `root` (a composed node) much larger than
    written, or make a value contain itself. The nodes are counted, without recursion and each once;
    nothing is built."""
    expanded: dict[int, int] = {}  # id(node) -> values in it, once every alias is expanded
    open_nodes: set[int] = set()  # nodes whose children are still being counted
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        children = _children(node)
        if children_done:
            expanded[key] = 1 + sum(expanded[id(child)] for child in children)
            open_nodes.discard(key)
            continue
        if key in expanded:
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in open_nodes:
                raise YamlError("an alias refers to a value that contains it; not read",
                                child.start_mark.line + first_line if child.start_mark else None)
            if id(child) not in expanded:
                stack.append((child, False))
    if expanded[id(root)] - len(expanded) > MAX_ALIAS_VALUES:
        raise YamlError(f"aliases (*name) would expand it to {expanded[id(root)]:,} values, more than "
                        f"{MAX_ALIAS_VALUES:,} beyond those written; not read")


def _children(node) -> list:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, ScalarNode):
        return []
    return list(node.value)  # a sequence


def duplicate_keys(keys) -> dict[str, list[tuple[str, int]]]:
    """Keys written more than once, exactly or differing only in case / surrounding spaces.

    `keys` is a sequence of (key, line, ...) as in `YamlDocument.keys`. Returns
    the lower-cased key -> [(key as written, line), ...] for each repeated one.
    """
    seen: dict[str, list[tuple[str, int]]] = {}
    for key, line, *_ in keys:
        seen.setdefault(str(key).strip().lower(), []).append((str(key), line))
    return {name: places for name, places in seen.items() if len(places) > 1}


def describe_duplicates(name: str, places: list[tuple[str, int]]) -> str:
    """"trust is set more than once (trust at line 2, Trust at line 3)"."""
    where = ", ".join(f"{key} at line {line}" for key, line in places)
    return f"{name} is set more than once ({where})"
