"""`tachikoma tag` (plan, apply, commit, refresh the index) and `tachikoma remember` (a new note)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import TachikomaError
from ..humanize import plural, printable, secrets_text
from . import common


def _memory_files(root: Path, files: list[str]) -> frozenset[str]:
    """`tag FILE...`: each file as a path in the memory, whether given from the memory's top or from the
    current folder (``memory/notes/a.md``); TachikomaError for one that is no memory file there."""
    from .. import memory

    wanted = set()
    top = root.resolve()
    for given in files:
        here = Path(given).expanduser().absolute()
        try:
            rel = here.resolve().relative_to(top).as_posix() if here.exists() else given
        except ValueError:
            rel = given
        while rel.startswith("./"):
            rel = rel[2:]
        try:
            full = memory.safe_path(root, rel)
        except memory.PathOutsideMemory:
            raise TachikomaError(f"{given!r} is outside the memory folder {root}") from None
        if memory.kind_of(rel) is None or not full.is_file():
            raise TachikomaError(f"{given!r} is not a memory file (a .md note or .jsonl transcript) in {root}")
        wanted.add(memory.resolved(root, rel) or full.resolve().relative_to(top).as_posix())  # as the walk spells it
    return frozenset(wanted)


def cmd_tag(args) -> int:
    from ..tagging import applying, model, planning, recovery
    from ..reading.tags import InvalidTagValue

    root = common.root(args)
    values = {k: getattr(args, k) for k in ("trust", "confidence", "source") if getattr(args, k)}
    if args.evergreen is not None:
        values["evergreen"] = "true" if args.evergreen else "false"
    has_selector = args.files or args.kind or args.path or args.untagged or args.since or args.until or args.all
    if has_selector and not values:
        common.usage_error(args, "say what to set: --trust, --confidence, --source and/or --[no-]evergreen")
    if values and not has_selector:
        common.usage_error(args, "say which files: FILE..., --kind, --path, --untagged, --since/--until, or --all")
    paths = _memory_files(root, args.files) if args.files else None
    recovered = None if args.dry_run else recovery.recover(root, config_path=args.config)
    if recovered is not None and not args.json:
        _report_recovered(recovered)
    try:
        settings = common.config(args, root)
        if not values:
            plan = planning.default_plan(root, max_bytes=settings.max_file_bytes, exclude=settings.exclude)
        else:
            selector = model.Selector(kind=args.kind, pattern=tuple(args.path or ()), untagged_only=args.untagged,
                                      modified_since=args.since, modified_until=args.until, paths=paths)
            plan = planning.plan(root, values, selector, overwrite=args.overwrite,
                                 max_bytes=settings.max_file_bytes, exclude=settings.exclude)
    except InvalidTagValue as exc:
        raise TachikomaError(str(exc)) from None
    applied = None
    if not args.dry_run and plan.changes:
        applied = applying.apply(root, plan, commit=not args.no_commit, config_path=args.config)
        _refresh_index(root, args)
    # A selected note left untagged (binary, malformed front matter, a write failure), a folder or glob naming only
    # files [index] exclude leaves out, or tags left uncommitted, is not success: a script or an agent must not
    # read "tagged" from the exit status.
    status = 1 if (plan.left_untagged or plan.excluded_patterns
                   or (applied and (applied.skipped or applied.commit_error))) else 0
    if recovered is not None and recovered.commit_pending:
        status = 1  # an earlier run's files are still not committed
    if args.json:
        answer = _plan_json(plan, applied, args.dry_run)
        answer["recovered"] = None if recovered is None else {
            "paths": recovered.paths, "remembered": recovered.remembered, "commit": recovered.commit,
            "commit_error": recovered.commit_error, "commit_pending": recovered.commit_pending}
        common.print_json(answer)
        return status
    for change in plan.changes:
        print(printable(f"{change.path}: {change.describe()}"))
    for kept in plan.kept:
        print(printable(f"{kept.path}: {kept.describe()} (--overwrite replaces it)"))
    for message in getattr(plan, "warnings", []):
        common.warn(message)
    for path, reason in plan.excluded_patterns + plan.skipped + (applied.skipped if applied else []):
        print(printable(f"skipped {path}: {reason}"), file=sys.stderr)
    if applied and applied.commit_error:
        common.warn(applied.commit_report())
    if not plan.changes:
        print(_nothing_to_tag(plan))
    elif args.dry_run:
        print(f"dry run: {plural(len(plan.changes), 'file')} would change{_kept_text(plan)}; nothing written")
    else:
        commit = ""
        if applied and applied.commit:
            whole = len(applied.committed) == len(applied.changes)
            commit = (f", committed {applied.commit[:10]}" if whole else
                      f", {len(applied.committed)} of them committed in {applied.commit[:10]}")
        print(f"tagged {plural(len(applied.changes), 'file')}{commit}{_kept_text(plan)}")
    return status


def _kept_text(plan) -> str:
    """", 1 file kept its own value (--overwrite replaces it)", or "" when none did."""
    if not plan.kept:
        return ""
    n = len(plan.kept)
    return (f"; {plural(n, 'file')} kept {'its' if n == 1 else 'their'} own "
            f"{'value' if all(len(k.existing) == 1 for k in plan.kept) else 'values'} (--overwrite replaces it)")


def _nothing_to_tag(plan) -> str:
    """Why a tag run changed nothing: no file matched, or every matched file already had the values, kept
    its own (fill mode) or was skipped."""
    if not plan.matched and plan.excluded_patterns:
        return "nothing to tag: the selection matches only files left out of the memory (above)"
    if not plan.matched:
        return "nothing to tag: no file matched the selection"
    reasons = []
    if plan.already:
        reasons.append(f"{plan.already} already had these values")
    if plan.kept_unchanged:
        n = len(plan.kept_unchanged)
        reasons.append(f"{n} kept {'its' if n == 1 else 'their'} own "
                       f"{'value' if n == 1 and len(plan.kept_unchanged[0].existing) == 1 else 'values'} "
                       "(--overwrite replaces existing values)")
    if plan.skipped:
        reasons.append(f"{len(plan.skipped)} skipped (reasons above)")
    matched = f"{plan.matched} file matched" if plan.matched == 1 else f"{plan.matched} files matched"
    return f"nothing to tag: {matched}; " + ", ".join(reasons)


def _report_recovered(recovered) -> None:
    """One line on stderr about finishing earlier runs that were killed or could not commit."""
    commit = f", committed {recovered.commit[:10]}" if recovered.commit else ""
    if recovered.changes:
        common.warn(f"finished an earlier tagging run (interrupted, or its commit had failed): "
              f"{plural(len(recovered.changes), 'file')} it had written{commit}")
    if recovered.remembered:
        did = "committed" if recovered.commit else "found"
        common.warn(f"{did} {plural(len(recovered.remembered), 'note')} an interrupted remember had written: "
              f"{', '.join(recovered.remembered)}")
    if recovered.commit_error:
        still = " (it is kept, and tried again by the next run)" if recovered.commit_pending else ""
        what = "was committed in part" if recovered.commit else "was not committed"
        common.warn(f"the earlier run {what}{still}: {recovered.commit_error.removeprefix('not committed: ')}")


def _plan_json(plan, applied, dry_run: bool) -> dict:
    changes = applied.changes if applied else plan.changes
    return {"dry_run": dry_run, "matched": plan.matched, "unchanged": plan.unchanged,
            "kept": [{"path": k.path, "kept": k.existing, "asked": k.asked} for k in plan.kept],
            "changes": [{"path": c.path, "kind": c.kind, "before": c.before, "after": c.after} for c in changes],
            "skipped": [{"path": p, "reason": r} for p, r in plan.skipped + (applied.skipped if applied else [])],
            "excluded_patterns": [{"pattern": p, "reason": r} for p, r in plan.excluded_patterns],
            "commit": applied.commit if applied else None,
            "committed": applied.committed if applied else [],
            "commit_error": applied.commit_error if applied else None,
            "warnings": list(getattr(plan, "warnings", []))}


def _refresh_index(root: Path, args) -> None:
    """Carry new tags into an existing index (no re-embedding: chunk texts are unchanged)."""
    from ..indexer import runner
    from ..store import locate

    if not locate(root, common.config(args, root)).exists():
        return
    try:
        runner.run(root, common.config(args, root))
    except TachikomaError as exc:
        common.warn(f"tags written, but the index was not refreshed ({exc}); run `tachikoma index`")


def cmd_remember(args) -> int:
    from .. import notes
    from ..reading.surrogates import clean

    root = common.root(args)
    text = sys.stdin.read() if args.text == "-" else args.text
    settings = common.config(args, root)
    written = notes.remember(root, clean(text), args.title, args.folder,
                             {"trust": args.trust, "confidence": args.confidence, "source": args.source},
                             max_bytes=settings.max_file_bytes, config_path=args.config, exclude=settings.exclude)
    done = {"path": written.path, "commit": written.commit, "commit_error": written.commit_error,
            "already_remembered": written.existing, "indexed": False}
    if not written.existing:
        from ..indexer import runner

        try:
            summary = runner.run(root, common.config(args, root))
            # The note's own secrets (`index` is the index's line, with every file's).
            done.update(index=summary.line(), indexed=True, secrets_redacted=summary.secrets_in(written.path))
        except TachikomaError as exc:  # the note is written (and committed) all the same: say so
            done["index"] = f"not indexed: {exc}; run `tachikoma index`"
    if args.json:
        common.print_json(done)
    else:
        said = "already remembered in" if written.existing else "remembered in"
        print(f"{said} {printable(written.path)}" + (f" (commit {written.commit[:12]})" if written.commit else ""))
        if written.commit_error:
            common.warn(f"not committed: {written.commit_error}")
        if done.get("index") and not done["indexed"]:
            common.warn(done["index"])
        if secrets := secrets_text(done.get("secrets_redacted"), "the note"):  # in `tachikoma index`'s words
            print(secrets)
    return 1 if written.commit_error else 0

