"""Tag coverage, counted over the memory files themselves (not the index).

Markdown tags come from front matter (only the head of each note is read,
up to the closing fence); transcript tags come from the tag file (of a
transcript only the first lines are read, to tell a data file from a
transcript; what the indexer found wrong inside transcripts is added by
`report`). A note whose front matter is
malformed counts as untagged and is listed under "problems"; so is a note
that sets a tag twice (``trust`` and ``Trust``), counted with the value
written last.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .reading import dates, tagfile
from . import transcripts
from .config import Config, settings_or_defaults
from .globs import name_or_path_matcher
from .reading.documents import KINDS, MARKDOWN
from .errors import TachikomaError
from .memory import EXCLUDE_SETTING, TAG_FILE, Excluded, Exclusion, open_regular, walk
from .reading import logseq
from .reading.frontmatter import read_front_matter, read_head
from .reading.logseq import COPIES_SAID
from .humanize import other_languages_text, plural, secrets_text, when
from .indexer.status import freshness, index_problems
from .search.ranking import tag_weights
from .store import locate
from .reading.tags import CONFIDENCE_VALUES, STATUSES, TAG_KEYS, TRUST_VALUES, Tags


def _bucket() -> dict:
    return {"files": 0, **{status: 0 for status in STATUSES}}


def _finish(bucket: dict) -> dict:
    files = bucket["files"]
    bucket["percent"] = {
        status: (round(100.0 * bucket[status] / files, 1) if files else 0.0) for status in STATUSES
    }
    return bucket


def coverage(root: Path, on_file: Callable[[str, str, str, Tags], None] | None = None,
             settings: Config | None = None) -> dict:
    """Counts of tagged / partial / untagged / invalid files, overall and by kind and folder.

    Shape::

        {"files", "tagged", "partial", "untagged", "invalid",
         "percent": {"tagged", "partial", "untagged", "invalid"},   # of files, 1 decimal
         "by_kind": {"markdown": {...same counts and percent...}, "transcript": {...}},
         "by_folder": {"<top-level folder, or '.' for files at the root>": {...}},
         "trust": {"owner", "self", "external", "untrusted", "missing"},
         "confidence": {"high", "medium", "low", "speculative", "missing"},
         "invalid_values": [{"path", "key", "value"}],
         "evergreen": {"files", "marked", "by_config"},  # recency 1.0: `evergreen: true`, or a config glob
         "balance": None or {"notes", "untagged_notes", "untagged_weight", "heavier_files",
                             "heavier_weight", "heavier_kinds": {kind: files}, "text"},  # `weight_balance`
         "problems": [{"path", "reason", "kind"}],
         "tag_file": None or {"file", "line", "problem", "message", "not_counted"},
         "excluded": {"patterns", "files", "folders": [{"folder", "pattern", "files", "whole", "at_least"}],
                      "unmatched"},     # what `[index] exclude` leaves out (`excluded_report`)
         "logseq_copies": None or {"files", "folders": [{"folder", "files", "at_least"}]}}
                                        # a Logseq graph's copies of pages, left out (`copies_report`)

    An invalid value counts as missing in "trust" / "confidence". A ``.jsonl`` that is not a
    transcript (a data file: not indexed, not tagged) is a problem and is not counted;
    an empty one (a session about to start) is counted, untagged, and is no problem. A tag file
    that cannot be read (malformed, a FIFO, a symlink) is a problem ("tag-file-unreadable") and
    "tag_file" says what is wrong with it: the notes are counted as ever, the transcripts, whose
    tags it holds, are not ("not_counted"). `on_file(path, kind,
    folder, tags)` is called for every file counted (see `files`). `settings`: the settings searches
    use (`--config`; None: the memory's tachikoma.toml, `config.settings_or_defaults`), whose weights
    "balance" and globs "evergreen" are counted with, and whose ``[index] exclude`` leaves files out: not
    counted, and said in "excluded". A Logseq graph's copies of pages (``logseq/bak/``, `logseq.COPIES`) are not
    counted either, and said in "logseq_copies".
    """
    root = Path(root).resolve()
    problems: list[dict] = []
    unreadable: tagfile.TagFileError | None = None
    try:
        tags_file = tagfile.load(root)
    except tagfile.TagFileError as exc:  # the notes are counted all the same; the transcripts cannot be
        unreadable, tags_file = exc, tagfile.TagFile(root=root)
        problems.append({"path": TAG_FILE, "reason": str(exc), "kind": "tag-file-unreadable"})
    not_counted = 0
    for warning in tags_file.warnings:
        problems.append({"path": TAG_FILE, "reason": warning, "kind": "tag-file"})
    for stale in tags_file.stale():
        other = tags_file.named_otherwise(stale)
        also = f"; {other} does: the names differ in case" if other else ""
        problems.append({"path": TAG_FILE, "reason": f"{TAG_FILE}:{tags_file.lines.get(stale, '?')}: "
                                                    f"entry for {stale}, which does not exist{also} (kept)",
                         "kind": "stale-tag-entry"})

    def walk_warning(message: str) -> None:
        path, _, reason = message.partition(": ")
        problems.append({"path": path, "reason": reason or message, "kind": _walk_kind(reason)})

    if settings is None:
        settings = settings_or_defaults(root)  # a broken settings file is reported by search and index
    total = _bucket()
    by_kind = {kind: _bucket() for kind in KINDS}
    by_folder: dict[str, dict] = {}
    trust = {**{value: 0 for value in TRUST_VALUES}, "missing": 0}
    confidence = {**{value: 0 for value in CONFIDENCE_VALUES}, "missing": 0}
    invalid_values: list[dict] = []
    evergreen = {"files": 0, "marked": 0, "by_config": 0}
    by_settings = name_or_path_matcher(settings.ranking.evergreen)
    tagged: list[tuple[str, str | None, str | None]] = []  # (kind, trust, confidence) of every file

    walked: dict[str, None] = {}
    excluded: list[Excluded] = []
    graphs: dict[str, bool] = {}  # folder -> whether it is a Logseq graph (`logseq.graph_of`)
    for item in walk(root, warn=walk_warning, exclude=settings.exclude, excluded=excluded):
        walked[item.path] = None
        marked = False
        if item.kind == MARKDOWN:
            tags = Tags()
            try:
                fm = read_front_matter(item.abspath)
            except UnicodeDecodeError:
                problems.append({"path": item.path, "reason": "front matter is not UTF-8 text",
                                 "kind": "front-matter"})
            except OSError as exc:
                problems.append({"path": item.path, "reason": f"cannot read ({exc.strerror})", "kind": "read-failed"})
            else:
                if fm.error:
                    problems.append({"path": item.path, "reason": fm.error, "kind": "front-matter"})
                else:
                    tags = Tags.from_mapping(fm.meta)
                    marked = dates.front_matter_evergreen(fm.meta)
                    if (ignored := _tags_as_properties(root, item, tags, graphs)) is not None:
                        problems.append(ignored)
                    repeated = fm.duplicate_problem(TAG_KEYS)
                    if repeated:
                        problems.append({"path": item.path, "reason": f"{repeated}; the last one is counted",
                                         "kind": "repeated-tag"})
        else:
            tags = tags_file.tags_for(item.path)
            # An empty .jsonl is a session about to start (agents create the file before its first
            # line), not a problem: indexing has nothing to say about it either.
            if transcripts.is_data_file(item.abspath, item.size, settings.max_file_bytes):
                problems.append({"path": item.path, "kind": "not-a-transcript",
                                 "reason": f"{transcripts.NOT_A_TRANSCRIPT}; not indexed, and not tagged"})
                continue  # a problem, not memory: counting it untagged would keep coverage below 100%
            if unreadable is not None:  # its tags are in the file that cannot be read
                not_counted += 1
                continue
            marked = dates.front_matter_evergreen(tags_file.entries.get(item.path))
        by_config = by_settings(item.path)
        evergreen["files"] += marked or by_config
        evergreen["marked"] += marked
        evergreen["by_config"] += by_config and not marked
        status = tags.status
        folder = item.path.split("/", 1)[0] if "/" in item.path else "."
        if on_file is not None:
            on_file(item.path, item.kind, folder, tags)
        for bucket in (total, by_kind[item.kind], by_folder.setdefault(folder, _bucket())):
            bucket["files"] += 1
            bucket[status] += 1
        trust[tags.trust or "missing"] += 1
        confidence[tags.confidence or "missing"] += 1
        tagged.append((item.kind, tags.trust, tags.confidence))
        for key, value in sorted(tags.invalid.items()):
            invalid_values.append({"path": item.path, "key": key, "value": value})

    for group in tagfile.case_clashes(walked).values():
        names = [path for path, _ in group]
        problems.append({"path": names[-1], "kind": "case-clash",
                         "reason": f"{' and '.join(names)} differ only in case: on a case-insensitive file system "
                                   "(macOS, Windows) a clone of the memory holds only one of them"})
    result = _finish(total)
    result["by_kind"] = {kind: _finish(bucket) for kind, bucket in by_kind.items()}
    result["by_folder"] = {folder: _finish(by_folder[folder]) for folder in sorted(by_folder)}
    result["trust"] = trust
    result["confidence"] = confidence
    result["invalid_values"] = invalid_values
    result["evergreen"] = evergreen
    result["balance"] = tag_balance(tagged, settings)
    result["problems"] = problems
    result["tag_file"] = None if unreadable is None else {
        "file": TAG_FILE, "line": unreadable.line, "problem": unreadable.problem, "message": str(unreadable),
        "not_counted": not_counted}
    result["excluded"] = excluded_report(settings.exclude, [entry for entry in excluded if not entry.logseq])
    result["logseq_copies"] = copies_report([entry for entry in excluded if entry.logseq])
    return result


def _tags_as_properties(root: Path, item, tags: Tags, graphs: dict[str, bool]) -> dict | None:
    """The problem of a note of a Logseq graph whose first block writes tags as properties (``trust:: owner``,
    `logseq.tags_ignored`: not read, as its index warning says too), kind "logseq-tags"; None for any other note.
    Only a graph's notes are read again, each up to `logseq.FIRST_BLOCK_BYTES` of its body."""
    if logseq.graph_of(root, item.path, graphs) is None:
        return None
    try:
        with open_regular(item.abspath) as handle:
            head = read_head(handle)
            block = logseq.first_block_of(handle)
    except (OSError, ValueError):  # what is wrong with the file is said by the front matter's read
        return None
    if (ignored := logseq.tags_ignored(item.path, block, tags)) is None:
        return None
    line = head.count(b"\n") + 1 + ignored[0]  # the body's first line, then the property's
    return {"path": item.path, "reason": f"line {line}: {ignored[1]}", "kind": "logseq-tags"}


def excluded_report(exclude: Exclusion, excluded: list[Excluded]) -> dict:
    """What ``[index] exclude`` left out of a walk (`memory.walk`'s `excluded`), one entry per folder:
    ``{"patterns", "files", "folders": [{"folder", "pattern", "files", "whole", "at_least"}], "unmatched"}``:
    the memory files left out (at least, where a large folder was counted in part), the folders holding some
    ("." the top; "whole": left out whole, not walked), and the patterns that left out no file or folder
    (a misspelt folder, say)."""
    used = {entry.pattern for entry in excluded}
    folders = [{"folder": entry.folder, "pattern": entry.pattern, "files": entry.files, "whole": entry.whole,
                "at_least": entry.at_least} for entry in sorted(excluded, key=lambda e: (e.folder, e.pattern))
               if entry.files]
    return {"patterns": list(exclude.patterns), "files": sum(entry["files"] for entry in folders),
            "folders": folders, "unmatched": [pattern for pattern in exclude.patterns if pattern not in used]}


def copies_report(copies: list[Excluded]) -> dict | None:
    """What the walk left out as a Logseq graph's copies of pages (`memory.walk`'s `excluded` entries marked
    `logseq`): ``{"files", "folders": [{"folder", "files", "at_least"}]}``, the folders holding some memory files;
    None when none does."""
    folders = [{"folder": entry.folder, "files": entry.files, "at_least": entry.at_least}
               for entry in sorted(copies, key=lambda e: e.folder) if entry.files]
    return {"files": sum(entry["files"] for entry in folders), "folders": folders} if folders else None


def copies_line(copies: dict | None) -> str | None:
    """The one line `format_text` says of `copies_report`: "Logseq's own copies of pages (…), not memory: 2 files
    (logseq/bak/ 2), not indexed, counted, read or tagged"; None when there are none."""
    if not copies:
        return None
    some = any(entry["at_least"] for entry in copies["folders"])
    where = ", ".join(f"{entry['folder']}/ {'at least ' if entry['at_least'] else ''}{entry['files']}"
                      for entry in copies["folders"])
    return (f"{COPIES_SAID}: {'at least ' if some else ''}{plural(copies['files'], 'file')} ({where}), "
            "not indexed, counted, read or tagged")


#: A memory's notes weigh too little beside its other files (`weight_balance`) when at least this share of
#: them is untagged and some other file weighs at least `HEAVIER` times an untagged one: the seed's untagged
#: 0.6 × 0.7 = 0.42 against 0.81 for a transcript `tachikoma tag` tagged self / medium by default.
UNTAGGED_NOTES_SHARE, HEAVIER = 0.5, 1.5
#: What `tachikoma stats` says to do about `weight_balance`'s finding (the dashboard links its tag page).
BALANCE_ADVICE = ("tag your notes (`tachikoma tag --kind markdown --untagged --trust owner --confidence high --dry-run` "
                  "shows which) or set [ranking.trust] missing and [ranking.confidence] missing (docs/ranking.md)")


def tag_balance(files: list[tuple[str, str | None, str | None]], settings) -> dict | None:
    """`weight_balance` of `files`, (kind, trust, confidence) each (valid values, else None), weighed as a
    search with `settings` weighs them (`search.ranking.tag_weights`: not set or invalid → "missing"). The
    coverage counts and `tachikoma index` (from the index's rows, `index_balance`) both ask it."""
    trust_w = tag_weights([t for _, t, _ in files], settings.ranking.trust)
    confidence_w = tag_weights([c for _, _, c in files], settings.ranking.confidence)
    return weight_balance([(kind, t is None and c is None, float(w)) for (kind, t, c), w
                           in zip(files, trust_w * confidence_w)],
                          settings.ranking.trust["missing"] * settings.ranking.confidence["missing"])


def index_balance(root: Path, settings) -> dict | None:
    """`tag_balance` of the files the index holds (their tags as it read them): what `tachikoma index` says
    after a new index. None when there is no readable index."""
    try:
        with locate(root, settings).open(readonly=True) as store:
            rows = store.files().values()
    except TachikomaError:
        return None
    return tag_balance([(row.kind, row.trust, row.confidence) for row in rows], settings)


def weight_balance(weighed: list[tuple[str, bool, float]], untagged: float) -> dict | None:
    """When most notes are untagged while other files carry heavier tags, what that does to ranking: a
    tagged file outranks an untagged note that matches less than `heavier_weight / untagged_weight` times
    as well (on the everyday memories, the commonest reason the note that answers is not first,
    docs/ranking.md). `weighed`: (kind, untagged, weight) of every file, untagged as a search weighs it:
    neither a valid trust nor a valid confidence (a note with only a source, or with misspelt values, weighs
    as one with no tags); `untagged`: such a file's weight. None when the notes are mostly tagged, or
    nothing weighs much more than they do."""
    notes = [bare for kind, bare, _ in weighed if kind == MARKDOWN]
    bare = sum(notes)
    heavier = [(kind, weight) for kind, _, weight in weighed if weight >= HEAVIER * untagged]
    if not notes or bare < UNTAGGED_NOTES_SHARE * len(notes) or not heavier or untagged <= 0:
        return None
    least, most = min(weight for _, weight in heavier), max(weight for _, weight in heavier)
    kinds = {kind: sum(k == kind for k, _ in heavier) for kind in KINDS if any(k == kind for k, _ in heavier)}
    listed = " and ".join(plural(n, "note" if kind == MARKDOWN else kind) for kind, n in kinds.items())
    span = _shown(least) if most == least else f"{_shown(least)} to {_shown(most)}"
    those = "those outrank" if len(heavier) > 1 else f"that {'note' if MARKDOWN in kinds else next(iter(kinds))} outranks"
    text = (f"{bare} of {plural(len(notes), 'note')} {'is' if bare == 1 else 'are'} untagged and "
            f"weigh{'s' if bare == 1 else ''} {_shown(untagged)} (trust × confidence) against {span} for {listed}: "
            f"{those} an untagged note unless it matches {least / untagged:.1f} times as well")
    return {"notes": len(notes), "untagged_notes": bare, "untagged_weight": round(untagged, 4),
            "heavier_files": len(heavier), "heavier_weight": round(least, 4), "heavier_kinds": kinds, "text": text}


def _shown(weight: float) -> str:
    """A weight to 2 decimals, or to 2 significant digits when 2 decimals would show a nonzero one as 0.00."""
    return f"{weight:.2f}" if weight >= 0.005 or weight == 0 else f"{weight:.2g}"


def _walk_kind(reason: str) -> str:
    """The `kind` of a file or folder the walk skipped, from its reason (memory.walk's wording)."""
    if reason.startswith("cannot list"):
        return "unreadable-folder"
    if reason.startswith("cannot read"):
        return "read-failed"
    if "not valid UTF-8" in reason:
        return "bad-name"
    if reason.startswith("not a regular file"):
        return "not-a-file"  # a FIFO, a socket or a device named like a memory file
    if reason.startswith("folder nested more than"):
        return "too-deep"
    if "hidden, not read" in reason:
        return "hidden"  # a memory file in a hidden folder (`memory.hidden`), or a folder holding some
    return "skipped"  # a symlink out of the memory, a folder symlink


def files(root: Path, status: str | None = None, kind: str | None = None, folder: str | None = None,
          settings: Config | None = None) -> list[dict]:
    """The files behind one of `coverage`'s counts: [{"path", "kind", "folder", "status", "tags"}], by path.

    `status`, `kind` and `folder` (as in "by_folder": "." for the top level)
    narrow the list; None keeps every value. `settings`: as `coverage`'s (what ``[index] exclude``
    leaves out is not listed). Raises TagFileError when the tag file cannot be read
    and the list would hold transcripts (only notes can be listed then).
    """
    found: list[dict] = []

    def keep(path: str, file_kind: str, file_folder: str, tags: Tags) -> None:
        if ((status is None or tags.status == status) and (kind is None or file_kind == kind)
                and (folder is None or file_folder == folder)):
            found.append({"path": path, "kind": file_kind, "folder": file_folder, "status": tags.status,
                          "tags": tags})

    counted = coverage(root, on_file=keep, settings=settings)
    broken = counted["tag_file"]
    if broken and broken["not_counted"] and kind != MARKDOWN:  # the list would leave its transcripts out
        raise tagfile.TagFileError(broken["message"], broken["line"], broken["problem"])
    return sorted(found, key=lambda f: f["path"])


def report(root: Path, config_path: str | os.PathLike | None = None) -> dict:
    """`coverage` plus how fresh the index is, and the files it could not index (under
    "problems"): what `tachikoma stats --json` prints. `config_path`: the settings file (`--config`;
    None: the memory's tachikoma.toml), read once for all three (the defaults when it cannot be read: a
    broken settings file is reported by search and index)."""
    settings = settings_or_defaults(Path(root).resolve(), config_path)
    result = coverage(root, settings=settings)
    result["index"] = freshness(root, settings)
    result["problems"] += index_problems(Path(root).resolve(), settings)
    return result


def _excluded_lines(excluded: dict | None) -> list[str]:
    """What `format_text` says of ``[index] exclude`` (`excluded_report`): nothing when it is not set; else how many
    memory files it leaves out, one line per folder holding some, and the patterns that match nothing."""
    if not excluded or not excluded["patterns"]:
        return []
    some = any(entry["at_least"] for entry in excluded["folders"])
    out = [f"excluded by {EXCLUDE_SETTING}: {'at least ' if some else ''}{plural(excluded['files'], 'file')}, "
           "not indexed, counted, read or tagged"]
    names = {id(entry): "(top level)" if entry["folder"] == "." else f"{entry['folder']}/"
             for entry in excluded["folders"]}
    width = max(map(len, names.values()), default=0)
    for entry in excluded["folders"]:
        files = f"{'at least ' if entry['at_least'] else ''}{plural(entry['files'], 'file')}"
        out.append(f"  {names[id(entry)]:<{width}}  {files} ({entry['pattern']})")
    out.extend(f"  {pattern}: matches no file or folder" for pattern in excluded["unmatched"])
    return out


def _line(bucket: dict) -> str:
    p = bucket["percent"]
    return (f"{plural(bucket['files'], 'file')}: {bucket['tagged']} tagged ({p['tagged']}%), "
            f"{bucket['partial']} partial ({p['partial']}%), {bucket['untagged']} untagged ({p['untagged']}%), "
            f"{bucket['invalid']} invalid ({p['invalid']}%)")


def format_text(result: dict) -> str:
    """A plain-text rendering of a `coverage` result, for people."""
    out = [_line(result)]
    if result.get("tag_file"):
        broken = result["tag_file"]
        out.append(f"  not counted: {plural(broken['not_counted'], 'transcript')}, whose tags are in {TAG_FILE}, "
                   f"which cannot be read: {broken['problem']}")
    for kind, bucket in result["by_kind"].items():
        out.append(f"  {kind:<11} {_line(bucket)}")
    if result["by_folder"]:
        out.append("by folder:")
        names = {folder: "(top level)" if folder == "." else f"{folder}/" for folder in result["by_folder"]}
        width = max(len(name) for name in names.values())
        for folder, bucket in result["by_folder"].items():
            out.append(f"  {names[folder]:<{width}}  {_line(bucket)}")
    for key in ("trust", "confidence"):
        out.append(f"{key}: " + ", ".join(f"{value} {n}" for value, n in result[key].items()))
    if result.get("balance"):
        out.append(f"weights: {result['balance']['text']}; {BALANCE_ADVICE}")
    green = result.get("evergreen")
    if green is not None:
        out.append(f"evergreen (age never counts): {plural(green['files'], 'file')} ({green['marked']} marked "
                   f"evergreen: true, {green['by_config']} by [ranking] evergreen)")
    out.extend(_excluded_lines(result.get("excluded")))
    if line := copies_line(result.get("logseq_copies")):
        out.append(line)
    if result["invalid_values"]:
        out.append("invalid values (count as missing; fix or retag with --overwrite):")
        out.extend(f"  {item['path']}: {item['key']} {item['value']!r}" for item in result["invalid_values"])
    index = result.get("index")
    if index is not None:
        if index.get("state") in ("damaged", "unreadable"):
            out.append(f"index: {index['note']}")
        elif index["last_indexed_at"] is None:
            out.append("index: none yet (run `tachikoma index`)")
        else:
            if index.get("note"):
                out.append(f"index: {index['note']}")
            updated = when(index["last_indexed_at"])
            data = index.get("data_files")
            data = f" (and {plural(data, '.jsonl data file')}, not searched)" if data else ""
            out.append(f"index: updated {updated['text']} ({updated['ago']}), {plural(index['files'], 'file')}{data}, "
                       f"{plural(index['chunks'], 'chunk')} ({index['embedder']}); "
                       f"{plural(index['changed_since'], 'file')} changed since")
            if index.get("other_languages"):
                out.append(f"index: {other_languages_text(index['other_languages'])}")
            if secrets := secrets_text(index.get("secrets_redacted")):
                out.append(f"index: {secrets}")
    if result.get("problems"):
        out.append("problems:")
        out.extend(f"  {item['path']}: {item['reason']}" for item in result["problems"])
    return "\n".join(out)
