"""Path patterns, as the tag selector and the evergreen list use them.

With a ``*``, ``?`` or ``[`` a pattern is a glob: ``*`` matches within one
folder level, ``**/`` any number of folders (``**/*.jsonl`` also matches
``a.jsonl`` at the top), a glob without ``/`` matches the file name in
any folder, and one ending in ``/`` (``2026-1*/``) the files in the folders
it matches. Otherwise it is a folder (``2026-03/`` or ``2026-03``) or one
file's path. `name_or_path_matches` (the evergreen list) also lets a bare
file name (``MEMORY.md``) match that name in any folder.
"""

from __future__ import annotations

import functools
import re

#: The longest pattern a tag selector takes (the longest path a file system has: PATH_MAX).
MAX_PATTERN_CHARS = 4096


def pattern_matches(pattern: str, path: str, ignore_case: bool = False) -> bool:
    """Whether relative POSIX `path` matches `pattern` (see the module docstring).

    A glob is matched by `_Glob` in time linear in the path, whatever the pattern: a pattern comes from
    whoever fills the dashboard's tag form, and as a backtracking regular expression "*?*?*?*?*?*?*?*?Z"
    took seconds a session's name (tens of minutes for a few more stars)."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if any(ch in pattern for ch in "*?["):
        if pattern.endswith("/"):  # a folder glob ("2026-1*/"): everything in the folders it matches
            return _glob(pattern.lstrip("/") + "**", ignore_case).matches(path)
        if "/" not in pattern:
            return _glob(pattern, ignore_case).matches(path.rsplit("/", 1)[-1])
        return _glob(pattern.lstrip("/"), ignore_case).matches(path)
    prefix = pattern.strip("/")
    if not prefix:
        return True
    if ignore_case:
        prefix, path = prefix.casefold(), path.casefold()
    return path == prefix or path.startswith(prefix + "/")


def name_or_path_matches(pattern: str, path: str) -> bool:
    """`pattern_matches`, ignoring case, where a pattern without "/" always matches the file name
    in any folder (``MEMORY.md`` is every MEMORY.md)."""
    if "/" not in pattern.replace("\\", "/"):
        return _glob_regex(pattern, True).match(path.rsplit("/", 1)[-1]) is not None
    return pattern_matches(pattern, path, ignore_case=True)


def name_or_path_matcher(patterns: tuple[str, ...]):
    """A function telling whether a path matches any of `patterns` as `name_or_path_matches` reads
    them: the patterns without "/" become one regular expression over the file name, so testing
    10,000 paths (the evergreen list, on every cold search) costs one match each, not one per pattern."""
    by_name = [p for p in patterns if "/" not in p.replace("\\", "/")]
    by_path = [p for p in patterns if p not in by_name]
    # A plain ASCII name (the default list: MEMORY.md, CLAUDE.md, ...) is a set lookup of the
    # lower-cased name, a tenth of a regular expression's cost; globs and other names stay regexes.
    plain = {p.lower() for p in by_name if p.isascii() and not any(ch in p for ch in "*?[")}
    globbed = [p for p in by_name if not (p.isascii() and p.lower() in plain)]

    def regex(chosen):
        return (re.compile("|".join(f"(?:{_glob_regex(p, True).pattern})" for p in chosen), re.DOTALL | re.IGNORECASE)
                if chosen else None)
    glob_regex, any_name_regex = regex(globbed), regex(by_name)

    def matches(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if name.isascii():  # ASCII against ASCII: ignoring case is comparing lower-cased names
            if name.lower() in plain or (glob_regex is not None and glob_regex.match(name) is not None):
                return True
        elif any_name_regex is not None and any_name_regex.match(name) is not None:
            return True
        return bool(by_path) and any(pattern_matches(p, path, ignore_case=True) for p in by_path)
    return matches


_GLOB_CACHE: dict[tuple[str, bool], re.Pattern] = {}


def _glob_regex(pattern: str, ignore_case: bool = False) -> re.Pattern:
    cached = _GLOB_CACHE.get((pattern, ignore_case))
    if cached is not None:
        return cached
    out, i, n = [], 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            # A "]" right after "[" (or the "!"/"^" of "[!", "[^") is a member, not the end.
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(ch))
                i += 1
                continue
            inner = pattern[i + 1:end]
            negate = inner[:1] in ("!", "^")
            if negate:
                inner = inner[1:]
            inner = inner.replace("\\", "\\\\").replace("[", "\\[")  # "[[]" is a literal "[", not a nested set
            out.append(f"[{'^/' if negate else ''}{inner}]")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    compiled = re.compile("".join(out) + r"\Z", re.DOTALL | (re.IGNORECASE if ignore_case else 0))
    _GLOB_CACHE[(pattern, ignore_case)] = compiled
    return compiled




# One state per step of a glob; `_Glob` keeps the set of states a prefix of the path can be in as the bits of
# an int (no backtracking: each character of the path costs a few operations on that int).
_CHAR, _ONE, _STAR, _ANY_STAR, _ENTRY, _LOOP = range(6)


class _Glob:
    """A glob as `_glob_regex` reads it, matched without backtracking: the states of a nondeterministic
    automaton, each character of the path moving all of them at once (bit-parallel)."""

    def __init__(self, pattern: str, ignore_case: bool):
        flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
        steps: list[tuple[int, object]] = []  # (kind, what the step matches: a regex of one character, or None)
        i, n = 0, len(pattern)
        while i < n:
            ch = pattern[i]
            if pattern.startswith("**/", i):  # (?:.*/)?: nothing, or anything up to a "/"
                if not (steps and steps[-1][0] == _CHAR and steps[-1][1].pattern == "/"
                        and len(steps) > 2 and steps[-3][0] == _ENTRY):  # "**/**/" is "**/"
                    steps += [(_ENTRY, None), (_LOOP, None), (_CHAR, re.compile("/", flags))]
                i += 3
            elif pattern.startswith("**", i) or ch == "*":
                kind = _ANY_STAR if pattern.startswith("**", i) else _STAR
                i += 2 if kind == _ANY_STAR else 1
                if steps and steps[-1][0] in (_STAR, _ANY_STAR):  # "[^/]*.*" is ".*"; "[^/]*[^/]*" is "[^/]*"
                    steps[-1] = (max(kind, steps[-1][0]), None)
                else:
                    steps.append((kind, None))
            elif ch == "?":
                steps.append((_ONE, None))
                i += 1
            elif ch == "[" and (end := pattern.find("]", i + 2)) != -1:
                inner = pattern[i + 1:end]
                negate = inner[:1] in ("!", "^")
                if negate:
                    inner = inner[1:]
                inner = inner.replace("\\", "\\\\").replace("[", "\\[")
                steps.append((_CHAR, re.compile(f"[{'^/' if negate else ''}{inner}]", flags)))
                i = end + 1
            else:
                steps.append((_CHAR, re.compile(re.escape(ch), flags)))
                i += 1
        self.final = 1 << len(steps)
        self.next = sum(1 << k for k, (kind, _) in enumerate(steps) if kind in (_STAR, _ANY_STAR, _ENTRY, _LOOP))
        self.skip = sum(1 << k for k, (kind, _) in enumerate(steps) if kind == _ENTRY)  # past its loop and "/"
        self.ones = sum(1 << k for k, (kind, _) in enumerate(steps) if kind == _ONE)  # over any but "/"
        self.stars = sum(1 << k for k, (kind, _) in enumerate(steps) if kind == _STAR)  # stay on any but "/"
        self.stays = sum(1 << k for k, (kind, _) in enumerate(steps) if kind in (_ANY_STAR, _LOOP))  # on any
        self.chars: dict[re.Pattern, int] = {}
        for k, (kind, regex) in enumerate(steps):
            if kind == _CHAR:
                self.chars[regex] = self.chars.get(regex, 0) | 1 << k
        self._moves: dict[str, tuple[int, int]] = {}
        self.start = self._closure(1)

    def _closure(self, states: int) -> int:
        while True:
            more = states | (states & self.next) << 1 | (states & self.skip) << 3
            if more == states:
                return states
            states = more

    def _move(self, ch: str) -> tuple[int, int]:
        """(states that step over `ch` to the next, states that stay on it) for one character."""
        found = self._moves.get(ch)
        if found is None:
            step = sum(bits for regex, bits in self.chars.items() if regex.match(ch))
            if ch != "/":
                found = (step | self.ones, self.stays | self.stars)
            else:
                found = (step, self.stays)
            self._moves[ch] = found
        return found

    def matches(self, text: str) -> bool:
        states = self.start
        for ch in text:
            step, stay = self._move(ch)
            states = (states & step) << 1 | (states & stay)
            if not states:
                return False
            states = self._closure(states)
        return bool(states & self.final)


@functools.lru_cache(maxsize=128)
def _glob(pattern: str, ignore_case: bool = False) -> _Glob:
    return _Glob(pattern, ignore_case)


def name_or_path_mask(patterns: tuple[str, ...], paths) -> list[bool]:
    """`name_or_path_matcher(patterns)` of every path, in one loop without a call per path when the
    patterns are plain ASCII names (the default evergreen list): a cold search asks this of every file."""
    by_name = [p for p in patterns if "/" not in p.replace("\\", "/")]
    if len(by_name) != len(patterns) or not all(p.isascii() and not any(ch in p for ch in "*?[") for p in patterns):
        matches = name_or_path_matcher(patterns)
        return [matches(p) for p in paths]
    plain = {p.lower() for p in patterns}
    slow = name_or_path_matcher(patterns)
    return [n.lower() in plain if n.isascii() else slow(n)
            for n in (p.rpartition("/")[2] for p in paths)]
