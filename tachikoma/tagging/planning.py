"""The preview: what tagging the chosen files would change (`plan`, `default_plan`). Writes nothing."""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from ..git import gitutil
from .. import transcripts
from ..atomic import read_only
from ..reading import tagfile
from ..config import load_config
from ..reading.documents import MARKDOWN, TRANSCRIPT
from ..reading.frontmatter import FrontMatter, read_head, split
from ..globs import is_glob, pattern_matches
from ..humanize import printable
from ..memory import EXCLUDE_SETTING, NO_EXCLUSION, TAG_FILE, Exclusion, kind_of, open_regular, walk
from ..reading.reader import BINARY_SNIFF_BYTES, unreadable_reason
from ..reading.tags import EVERGREEN, UNTAGGED, WRITABLE_KEYS, Tags, normalise_value
from .edit import BOM, SAMPLE, edit_head
from .model import DEFAULTS, Change, Kept, Plan, Selector, Skip, check_values, current_values

BOM_BYTES = BOM.encode("utf-8")


def _in_memory(root: Path, pattern: str) -> str | None:
    """An absolute path inside the memory (as a shell completes it, or pasted) relative to the memory
    folder, as patterns are. Any other pattern is kept, so "/*" still means the top level."""
    absolute = os.path.abspath(pattern)
    if absolute == str(root) or absolute.startswith(str(root) + os.sep):
        return absolute[len(str(root)) + 1:] or None
    return pattern



def plan(root: Path, values: dict[str, str], selector: Selector | None = None, overwrite: bool = False,
         max_bytes: int | None = None, exclude: Exclusion | None = None) -> Plan:
    """What tagging the files chosen by `selector` with `values` would change. Writes nothing.

    Existing valid values are kept unless `overwrite`; an invalid existing
    value counts as missing and is replaced. Files whose front matter is
    malformed, or that the run would refuse to edit (a YAML flow mapping,
    indented keys, CR-only line endings: the very edit is tried on the bytes
    read), are listed in `skipped` and never rewritten, and so are notes
    indexing would not read: binary, or over `max_bytes` (default: the
    memory's ``[index] max_file_bytes``). A file `exclude` leaves out (default:
    the memory's ``[index] exclude``) is not memory: never matched by a glob or
    a folder, and one the selection names by its path is skipped, saying so; a
    folder or glob that matches such files and no other is in `excluded_patterns`
    with the pattern that leaves them out. Raises
    InvalidTagValue for a value outside the vocabulary, and TagFileError when
    the tag file cannot be read and the selection holds a transcript (a
    selection of notes only needs no tag file).
    """
    root = Path(root).resolve()
    selector = selector or Selector()
    if any(os.path.isabs(pattern) for pattern in selector.patterns):
        selector = replace(selector, pattern=tuple(_in_memory(root, p) or "" for p in selector.patterns))
    values = check_values(values)
    if max_bytes is None or exclude is None:
        settings = load_config(root)
        max_bytes = settings.max_file_bytes if max_bytes is None else max_bytes
        exclude = settings.exclude if exclude is None else exclude
    result = Plan(root=root, values=values, overwrite=overwrite, max_bytes=max_bytes)
    _named_but_excluded(result, selector, exclude)
    # The selection's folders and globs not yet seen matching a file the walk lists (`_only_excluded`).
    refused = {skip.path for skip in result.excluded_patterns + result.skipped}
    unseen = [p for p in selector.patterns if exclude and p and p not in refused]
    try:
        tags_file = tagfile.load(root)
    except tagfile.TagFileError as exc:  # notes can be tagged all the same; a transcript cannot (below)
        unreadable, tags_file = exc, tagfile.TagFile(root=root)
    else:
        unreadable = None
    result.warnings.extend(tags_file.warnings)
    tags_locked = tag_file_refusal(root)
    times = gitutil.content_times(root) if selector.uses_dates else {}
    dirty = gitutil.dirty_paths(root) if times else set()
    for item in walk(root, warn=functools.partial(_walk_warning, result, selector), exclude=exclude):
        if unseen:
            unseen = [p for p in unseen if not pattern_matches(p, item.path)]
        if not selector.matches_path(item.path, item.kind):
            continue
        if selector.uses_dates:
            committed = None if item.path in dirty else times.get(item.path)
            modified = committed or datetime.fromtimestamp(item.mtime_ns / 1e9).astimezone()
            if not selector.matches_date(modified):
                continue
        created_block = False
        if item.kind == MARKDOWN:
            if item.abspath.is_symlink():  # writing through it would change a file git knows by another name
                target = item.abspath.resolve().relative_to(root).as_posix()
                result.matched += 1
                result.skipped.append(Skip(item.path, f"a symlink to {target}: tag {target} itself"))
                continue
            try:
                with open_regular(item.abspath) as handle:
                    refused = refusal(handle, max_bytes)
                    if not refused:
                        head = read_head(handle)
                        sample = handle.read(SAMPLE)
                if refused:
                    result.matched += 1
                    result.skipped.append(Skip(item.path, refused))
                    continue
                fm = split(head.decode("utf-8")) if head not in (b"", BOM_BYTES) else FrontMatter()
            except UnicodeDecodeError:
                result.matched += 1
                result.skipped.append(Skip(item.path, "front matter is not UTF-8 text; not rewritten"))
                continue
            except ValueError as exc:  # a head too long, CR-only line endings
                fm = FrontMatter(error=str(exc))
            except OSError as exc:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"cannot read ({exc.strerror})"))
                continue
            if fm.error:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"{fm.error}; fix it by hand, tachikoma will not rewrite it"))
                continue
            repeated = fm.duplicate_problem(WRITABLE_KEYS)
            if repeated:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"{repeated}; fix it by hand, tachikoma will not guess "
                                                      "which one to change"))
                continue
            mapping = fm.meta
            created_block = not fm.block
        else:
            if unreadable is not None:
                raise tagfile.TagFileError(
                    f"{unreadable} (the selection holds transcripts, such as {item.path}, whose tags live in that "
                    "file: it must be read to tag them; notes alone can be tagged meanwhile, by choosing kind "
                    "markdown)", unreadable.line, unreadable.problem)
            entry = tags_file.entries.get(item.path)
            if item.path in tags_file.extra:
                result.matched += 1
                result.skipped.append(Skip(item.path, f"its {TAG_FILE} entry is not a mapping of tags; fix it by hand"))
                continue
            mapping = entry
        tags = Tags.from_mapping(mapping)
        if selector.untagged_only and tags.status != UNTAGGED:
            continue
        result.matched += 1
        if item.kind == TRANSCRIPT and transcripts.is_data_file(item.abspath, item.size, max_bytes):
            result.skipped.append(Skip(item.path, f"{transcripts.NOT_A_TRANSCRIPT}; not tagged"))
            result.not_memory.add(item.path)
            continue
        change, kept = _change_for(item.path, item.kind, mapping, tags, values, overwrite)
        if kept is not None:
            result.kept.append(kept)
        if change is not None and item.kind == TRANSCRIPT and tags_locked:
            result.skipped.append(Skip(item.path, tags_locked))
            continue
        if change is not None and item.kind == MARKDOWN:
            try:  # the edit the run would make, made now on the bytes read: a preview never promises one it refuses
                edit_head(head, sample, change)
            except ValueError as exc:
                result.skipped.append(Skip(item.path, f"{exc}; not tagged"))
                continue
        if change is not None:
            change.created_block = created_block
            result.changes.append(change)
        else:
            result.unchanged_paths.append(item.path)
    if unseen:
        _only_excluded(result, unseen, exclude)
    return result


def _named_but_excluded(result: Plan, selector: Selector, exclude: Exclusion) -> None:
    """The files and folders the selection names by path (`tag FILE`, a pattern without a wildcard) that `exclude`
    leaves out, or that are a Logseq graph's copies of pages (`Exclusion.refusal`): a file is matched and skipped
    with the reason, a folder is an excluded pattern (`Plan.excluded_patterns`); the walk lists none of their
    files, so the selection would otherwise read as matching nothing."""
    named = sorted(selector.paths or ()) + [p for p in selector.patterns if p and not is_glob(p)]
    for path in dict.fromkeys(named):
        reason = exclude.refusal(result.root, path)
        if reason is None:
            continue
        if kind_of(path.rstrip("/")) is not None:
            result.matched += 1
            result.skipped.append(Skip(path, f"{reason}; not tagged"))
            result.excluded[path] = reason
        else:
            result.excluded_patterns.append(Skip(path, f"{reason}; none of its files is tagged"))


def _only_excluded(result: Plan, patterns: list[str], exclude: Exclusion) -> None:
    """Of `patterns` (the selection's, none matching a file the walk listed), those that match files `exclude`
    leaves out, each an excluded pattern naming the setting's patterns that leave them out
    (`Plan.excluded_patterns`). Walks the folder again, the parts left out too: only when a pattern matched
    nothing of the memory."""
    leaving: dict[str, list[str]] = {p: [] for p in patterns}
    for item in walk(result.root, exclude=NO_EXCLUSION):
        for pattern in patterns:
            why = exclude.file(item.path) if pattern_matches(pattern, item.path) else None
            if why is not None and why not in leaving[pattern]:
                leaving[pattern].append(why)
    for pattern, whys in leaving.items():
        if whys:
            said = ", ".join(printable(repr(why)) for why in whys)
            result.excluded_patterns.append(Skip(pattern, f"matches only files left out of the memory by "
                                                          f"{EXCLUDE_SETTING} ({said}); none is tagged"))


def _walk_warning(result: Plan, selector: Selector, message: str) -> None:
    """A file the walk skipped (a FIFO, a symlink out of the memory) that the selection names is
    matched and skipped with the walk's reason, not "no file matched"; anything else is a warning."""
    path, _, reason = message.partition(": ")
    kind = kind_of(path)
    if reason and kind is not None and selector.matches_path(path, kind):
        result.matched += 1
        result.skipped.append(Skip(path, reason.removesuffix(", skipped")))
    else:
        result.warnings.append(message)


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def default_plan(root: Path, max_bytes: int | None = None, exclude: Exclusion | None = None) -> Plan:
    """The default tags (`DEFAULTS`, `DEFAULTS_TEXT`) for every transcript that has no tags at all:
    what `tachikoma tag` with no options and the dashboard's "Use the defaults" do.

    The source tells who wrote it: a session of another agent gets that agent
    (``claude-code``, ``codex``, ``openclaw``), a generic transcript keeps
    ``tachikoma``; trust and confidence are the same for all. A data file is
    skipped with a reason (as by `plan`), and so is an empty ``.jsonl`` (an
    agent creates it before its first line: its agent is not known yet).
    """
    result = plan(root, DEFAULTS, Selector(kind=TRANSCRIPT, untagged_only=True), max_bytes=max_bytes,
                  exclude=exclude)
    kept = []
    for change in result.changes:
        found = transcripts.sniff_format(result.root / change.path)
        if found == "" and _is_empty(result.root / change.path):
            result.skipped.append(Skip(change.path, "empty (a session about to start); not tagged by default "
                                                    "until it holds a message"))
            result.not_memory.add(change.path)
            continue
        if "source" in change.after:
            change.after["source"] = transcripts.default_source(found)
        kept.append(change)
    result.changes = kept
    sources = sorted({c.after["source"] for c in kept if "source" in c.after})
    if len(sources) > 1:  # for the commit message: which sources the run set
        result.values = {**result.values, "source": " / ".join(sources)}
    elif sources:
        result.values = {**result.values, "source": sources[0]}
    return result


def _change_for(path, kind, mapping, tags: Tags, values, overwrite) -> tuple[Change | None, Kept | None]:
    """The change `values` make to one file, and the different valid values it keeps (not `overwrite`)."""
    present = current_values(mapping)
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    kept: dict[str, str] = {}
    for key, value in values.items():
        if key == EVERGREEN:  # a switch: always set as asked
            if normalise_value(key, present.get(key)) == value:
                continue
        else:
            valid = getattr(tags, key)
            if valid is not None and valid != value and not overwrite:
                kept[key] = valid
                continue
            if valid is not None and valid == value:
                continue
        if key in present:
            before[key] = present[key]
        after[key] = value
    change = Change(path, kind, before, after, current=present) if after else None
    return change, (Kept(path, kept, {k: values[k] for k in kept}) if kept else None)



def refusal(handle: BinaryIO, max_bytes: int | None) -> str | None:
    """Why the open note must not be tagged: as indexing would not read it (over `max_bytes`, ``[index]
    max_file_bytes``, or binary), or as its permissions keep it from being written (`atomic.read_only`). Costs
    one stat and one small read."""
    info = os.fstat(handle.fileno())
    size = info.st_size
    if max_bytes is not None and size > max_bytes:
        return f"{size} bytes, over the {max_bytes}-byte limit ([index] max_file_bytes); not tagged"
    position = handle.tell()
    unreadable = unreadable_reason(handle.read(BINARY_SNIFF_BYTES))
    handle.seek(position)
    if unreadable:
        return f"{unreadable}; not tagged"
    locked = read_only(info)
    return f"{locked}; not tagged" if locked else None


def tag_file_refusal(root: Path) -> str | None:
    """Why no transcript may be tagged now: the tag file is read-only (`atomic.read_only`); None when it may be
    written, does not exist yet, or is a symlink (refused with its own reason by `tagfile.tag_file_path`)."""
    try:
        info = os.lstat(Path(root) / TAG_FILE)
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return None
    locked = read_only(info)
    return f"{TAG_FILE} is {locked}; not tagged" if locked else None


