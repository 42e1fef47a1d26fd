"""Path patterns, as the tag selector, the evergreen list and ``[index] exclude`` use them.

With a ``*``, ``?`` or ``[`` a pattern is a glob: ``*`` matches within one
folder level, ``**/`` any number of folders (``**/*.jsonl`` also matches
``a.jsonl`` at the top), a glob without ``/`` matches the file name in
any folder, and one ending in ``/`` (``2026-1*/``) the files in the folders
it matches. Otherwise it is a folder (``2026-03/`` or ``2026-03``) or one
file's path. `name_or_path_matches` (the evergreen list) also lets a bare
file name (``MEMORY.md``) match that name in any folder; `path_matcher` reads
several patterns as `pattern_matches` does, at once (``[index] exclude``).
A pattern and a path are compared in one Unicode normalisation (`nfc`): ``café/``
typed composed matches a folder macOS named decomposed, and the other way round.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import re2

from .vocabulary import MAX_PATTERN_CHARS, MAX_SCOPE_PATTERNS


def nfc(text: str) -> str:
    """`text` in Unicode's composed form (NFC), the one spelling two names are compared in: ``café.md`` as a keyboard
    types it (composed) and as macOS writes it (decomposed, NFD) are one name. ASCII as it is, at no cost."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def is_glob(pattern: str) -> bool:
    """Whether `pattern` is a glob (it holds ``*``, ``?`` or ``[``) rather than a folder or a file's path."""
    return any(ch in pattern for ch in "*?[")


def _by_name(pattern: str) -> bool:
    """Whether `pattern` names a file in any folder (it has no "/", either separator)."""
    return "/" not in pattern.replace("\\", "/")


def pattern_matches(pattern: str, path: str, ignore_case: bool = False) -> bool:
    """Whether relative POSIX `path` matches `pattern` (see the module docstring).

    A glob is matched by RE2 (`_glob_regex`) in time linear in the path, whatever the pattern: a pattern comes
    from whoever fills the dashboard's tag form or commits the settings file, and as a backtracking regular
    expression "*?*?*?*?*?*?*?*?Z" took seconds against a session's name (hours for a few more stars). Both are
    compared in one Unicode normalisation (`nfc`)."""
    how, text = _reading(nfc(pattern))
    path = nfc(path)
    if how == "name":
        return _glob_regex(text, ignore_case).match(path.rsplit("/", 1)[-1]) is not None
    if how == "path":
        return _glob_regex(text, ignore_case).match(path) is not None
    if not text:
        return True
    if ignore_case:
        text, path = text.casefold(), path.casefold()
    return path == text or path.startswith(text + "/")


def _reading(pattern: str) -> tuple[str, str]:
    """How `pattern_matches` reads `pattern`: ("name", glob) matched against the file name, ("path", glob) against
    the whole path (a folder glob, "2026-1*/", as everything in the folders it matches), or ("prefix", folder or
    file path) for one without a wildcard ("" for the whole memory)."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if is_glob(pattern):
        if pattern.endswith("/"):
            return "path", pattern.lstrip("/") + "**"
        if "/" not in pattern:
            return "name", pattern
        return "path", pattern.lstrip("/")
    return "prefix", pattern.strip("/")


@functools.lru_cache(maxsize=16)
def path_matcher(patterns: tuple[str, ...]):
    """A function telling whether a relative POSIX path matches any of `patterns` as `pattern_matches` reads them
    (keeping case), with one regular expression for all their globs (none for folders and paths without a
    wildcard): a walk tests every file of a large memory against them (``[index] exclude``). A glob over the file
    name is read over the path after any folder, its ``**`` as ``*`` (a name holds no "/"). Made once per list."""
    read = [_reading(nfc(pattern)) for pattern in patterns]
    if any(how == "prefix" and not text for how, text in read):
        return lambda path: True
    globs = [(how, text) for how, text in read if how != "prefix"]
    sources = ["(?:.*/)?" + glob_source(text.replace("**", "*")) if how == "name" else glob_source(text)
               for how, text in globs]
    globbed = _compiled("|".join(f"(?:{source})" for source in sources), False) if sources else None
    # A call into RE2 costs a microsecond or two: a path holding none of the globs' required words is not asked.
    needed = [max(re.split(r"\*\*/|[*?\[]", re.sub(r"\[!?\]?[^]]*]", "[", text)), key=len) for _, text in globs]
    needed = () if not all(needed) else tuple(needed)
    prefixes = tuple(text for how, text in read if how == "prefix")
    below = tuple(prefix + "/" for prefix in prefixes)

    def matches(path: str) -> bool:
        path = nfc(path)
        if path in prefixes or path.startswith(below):
            return True
        if globbed is None or (needed and not any(word in path for word in needed)):
            return False
        return globbed.match(path) is not None
    return matches


def name_or_path_matches(pattern: str, path: str) -> bool:
    """`pattern_matches`, ignoring case, where a pattern without "/" always matches the file name
    in any folder (``MEMORY.md`` is every MEMORY.md)."""
    if _by_name(pattern):
        return _glob_regex(nfc(pattern), True).match(nfc(path.rsplit("/", 1)[-1])) is not None
    return pattern_matches(pattern, path, ignore_case=True)


@functools.lru_cache(maxsize=16)
def name_or_path_matcher(patterns: tuple[str, ...]):
    """A function telling whether a path matches any of `patterns` as `name_or_path_matches` reads
    them: the patterns without "/" become one regular expression over the file name, so testing
    10,000 paths (the evergreen list, on every cold search) costs one match each, not one per pattern.
    Made once per list of patterns (a settings file's list is the same on every search)."""
    by_name = [p for p in patterns if _by_name(p)]
    by_path = [p for p in patterns if p not in by_name]
    # A plain ASCII name (the default list: MEMORY.md, CLAUDE.md, ...) is a set lookup of the
    # lower-cased name, a tenth of a regular expression's cost; globs and other names stay regexes.
    plain = {p.lower() for p in by_name if p.isascii() and not is_glob(p)}
    globbed = [p for p in by_name if not (p.isascii() and p.lower() in plain)]

    def regex(chosen):
        return _compiled("|".join(f"(?:{glob_source(nfc(p))})" for p in chosen), True) if chosen else None
    glob_regex, any_name_regex = regex(globbed), regex(by_name)

    def matches(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if name.isascii():  # ASCII against ASCII: ignoring case is comparing lower-cased names
            if name.lower() in plain or (glob_regex is not None and glob_regex.match(name) is not None):
                return True
        elif any_name_regex is not None and any_name_regex.match(nfc(name)) is not None:
            return True
        return bool(by_path) and any(pattern_matches(p, path, ignore_case=True) for p in by_path)
    return matches


def glob_source(pattern: str) -> str:
    """The regular expression `pattern` (a glob) reads as, anchored at the end: `*` is ``[^/]*``, `**` is ``.*``,
    `**/` is ``(?:.*/)?``, `?` is ``[^/]``, a class is a class (``[!a]`` is ``[^/a]``; an unclosed ``[`` is itself)."""
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
    return "".join(out) + "$"


class InvalidPattern(ValueError):
    """A glob no regular expression reads ("[z-a]*": a class whose range runs backwards)."""


def _compiled(source: str, ignore_case: bool):
    """`source` compiled by RE2 (google-re2), which matches in time linear in the text whatever the expression: no
    backtracking. ``$`` is the end of the text, ``.`` takes a newline too. RE2 logs nothing of its own."""
    options = re2.Options()
    options.dot_nl, options.case_sensitive, options.log_errors = True, not ignore_case, False
    try:
        return re2.compile(source, options)
    except re2.error as exc:
        reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise InvalidPattern(reason) from None


def pattern_error(pattern: str, whole_memory: bool = True) -> str | None:
    """Why `pattern` is no folder or glob tachikoma takes, in a sentence naming it; None when it is one.

    The one check of a path pattern wherever one is given: `tag --path` (and the tag selector every face builds),
    `search --path` and ``path`` on the other faces (`scope_error`), the dashboard's tag form, ``[ranking]
    evergreen`` and ``[index] exclude``; a caller puts only its own prefix before it ("path: ", "index.exclude: ").
    A pattern is at most `vocabulary.MAX_PATTERN_CHARS` characters, has no ".." part (it would match nothing:
    every path it is matched against is inside the memory), and is a glob RE2 reads; with `whole_memory` false
    (``[index] exclude``) it names less than the whole memory folder ("./" is refused)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"{pattern[:40]!r}… is {len(pattern):,} characters long; the limit is {MAX_PATTERN_CHARS:,}"
    pattern = pattern.replace("\\", "/")
    parts = pattern.split("/")
    if ".." in parts:
        return f"{pattern!r} points outside the memory folder: a folder or glob is read from the memory's root"
    if not whole_memory and all(part in ("", ".") for part in parts):
        return f"{pattern!r} is the whole memory folder, not a folder or file in it"
    if not is_glob(pattern):
        return None
    try:
        _glob_regex(pattern.lstrip("/"))
    except InvalidPattern as exc:
        return f"{pattern!r} is not a glob tachikoma can read: {exc}"
    if not whole_memory and all(pattern_matches(pattern, path) for path in _EVERY_KIND_OF_PATH):
        return f"{pattern!r} matches every file, the whole memory folder, not a folder or file in it"
    return None


#: Paths of every shape a memory holds (a top-level note, a session two folders down, odd names): a glob matching
#: them all (`*`, `**`, `**/*`) names the whole memory, which ``[index] exclude`` may not leave out.
_EVERY_KIND_OF_PATH = ("a.md", "MEMORY.md", "notes/b.md", "2026-03/22/s-1.jsonl", "x y/z_9.MD", ".hidden/c.md")


def scope_error(patterns: list[str] | tuple[str, ...]) -> str | None:
    """Why `patterns` cannot keep a search to the files under them (a folder or a glob each, as `pattern_matches`
    reads them), in the words every face uses; None when they can."""
    if len(patterns) > MAX_SCOPE_PATTERNS:
        return f"path: at most {MAX_SCOPE_PATTERNS} folders or globs, not {len(patterns)}"
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern.strip():
            return "path: each is a folder ('projects/') or a glob ('**/*meeting*.md'), not empty"
        if error := pattern_error(pattern):
            return f"path: {error}"
    return None


@functools.lru_cache(maxsize=256)
def _glob_regex(pattern: str, ignore_case: bool = False):
    return _compiled(glob_source(pattern), ignore_case)


def name_or_path_mask(patterns: tuple[str, ...], paths) -> list[bool]:
    """`name_or_path_matcher(patterns)` of every path, in one loop without a call per path when the
    patterns are plain ASCII names (the default evergreen list): a cold search asks this of every file."""
    if not all(_by_name(p) and p.isascii() and not is_glob(p) for p in patterns):
        matches = name_or_path_matcher(patterns)
        return [matches(p) for p in paths]
    plain = {p.lower() for p in patterns}
    slow = name_or_path_matcher(patterns)
    return [n.lower() in plain if n.isascii() else slow(n)
            for n in (p.rpartition("/")[2] for p in paths)]
