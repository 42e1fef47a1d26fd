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

import re


def pattern_matches(pattern: str, path: str, ignore_case: bool = False) -> bool:
    """Whether relative POSIX `path` matches `pattern` (see the module docstring)."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if any(ch in pattern for ch in "*?["):
        if pattern.endswith("/"):  # a folder glob ("2026-1*/"): everything in the folders it matches
            return _glob_regex(pattern.lstrip("/") + "**", ignore_case).match(path) is not None
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
