"""Path patterns, as the tag selector and the evergreen list use them.

With a ``*``, ``?`` or ``[`` a pattern is a glob: ``*`` matches within one
folder level, ``**/`` any number of folders (``**/*.jsonl`` also matches
``a.jsonl`` at the top), and a glob without ``/`` matches the file name in
any folder. Otherwise it is a folder (``2026-03/`` or ``2026-03``) or one
file's path. `name_or_path_matches` (the evergreen list) also lets a bare
file name (``MEMORY.md``) match that name in any folder.
"""

from __future__ import annotations

import re


def pattern_matches(pattern: str, path: str, ignore_case: bool = False) -> bool:
    """Whether relative POSIX `path` matches `pattern` (see the module docstring)."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if any(ch in pattern for ch in "*?["):
        if "/" not in pattern:
            return _glob_regex(pattern, ignore_case).match(path.rsplit("/", 1)[-1]) is not None
        return _glob_regex(pattern.lstrip("/"), ignore_case).match(path) is not None
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
    name_regex = (re.compile("|".join(f"(?:{_glob_regex(p, True).pattern})" for p in by_name),
                             re.DOTALL | re.IGNORECASE) if by_name else None)

    def matches(path: str) -> bool:
        if name_regex is not None and name_regex.match(path.rsplit("/", 1)[-1]) is not None:
            return True
        return any(pattern_matches(p, path, ignore_case=True) for p in by_path)
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


