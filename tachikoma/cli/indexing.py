"""`tachikoma index` (and `--watch`, which keeps re-indexing and answers searches meanwhile) and
`tachikoma stats`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import TachikomaError
from ..humanize import printable
from . import common


def cmd_index(args) -> int:
    from .. import stats
    from ..indexer import reporting, runner

    root = common.root(args)
    config = common.config(args, root)
    if args.claim_name:
        _claim_name(args, root, config)
    show = not args.quiet and not args.json and sys.stderr.isatty()
    detail, close = reporting.tqdm_progress() if show else (None, lambda: None)
    warn = None if args.quiet or args.json else common.warn
    live = _start_watching(root, args) if args.watch else None
    try:
        summary = runner.run(root, config, embedder_name=args.embedder, reembed=args.reembed,
                             warn=warn, detail=detail)
    finally:
        close()
    # A new index says when its untagged notes weigh too little beside tagged files (`stats.tag_balance`):
    # the commonest reason the note that answers is not first, worth knowing before the first search.
    balance = stats.index_balance(root, config) if summary.embedder_reason else None
    if args.json:
        common.print_json({**summary.as_dict(), "balance": balance})
    else:
        if summary.embedder_reason:  # a new index: which embedder it took, and why
            print(f"embedder {summary.embedder}: {summary.embedder_reason}")
        print(summary.line())
        if balance:
            print(f"weights: {balance['text']}; {stats.BALANCE_ADVICE}")
    if live is not None:
        _watch(live, root, args)
    return 0


def _claim_name(args, root: Path, config) -> None:
    """`index --claim-name NAME`: NAME must be this memory's name on a shared store."""
    from ..store import locate
    from ..store.identity import CLAIM_ENV

    here = locate(root, config)
    if here.url is None:
        raise TachikomaError("--claim-name is for a shared (PostgreSQL) store; this memory's index is its own "
                             "file in .cache/")
    if here.name != args.claim_name:
        raise TachikomaError(f"this memory's name in the store is {here.name!r}, not {args.claim_name!r} "
                             "(set [store] name to choose another)")
    os.environ[CLAIM_ENV] = args.claim_name


def _start_watching(root: Path, args):
    """For `index --watch`: the memory kept open (`tachikoma.live.LiveMemory`), watched from before the
    first run, so no change is missed; one line per later run that did something."""
    from ..live import LiveMemory

    live = LiveMemory(root, args.config, warn=None if args.quiet else common.warn, report=watch_report(args.json))
    live.watch(catch_up=False, ready_within=10)
    return live


def watch_report(as_json: bool):
    """What `index --watch` prints after each watched run: with `as_json` every run as a JSON line (``news``
    false for a run that found nothing to do), else the summary line of a run that did something
    (`indexer.runner.Summary.news`). The JSON is `reply.dumps`' (compact: a line per run; floats rounded as every
    JSON reply's)."""
    from ..replies.reply import dumps

    def report(last: dict) -> None:
        if as_json:
            print(dumps(last), flush=True)
        elif last["state"] == "done" and last.get("news", True):
            print(last["line"], flush=True)

    return report


def _watch(live, root: Path, args) -> None:
    """Re-index on every change until Ctrl-C, printing one line per run, and answer searches meanwhile."""
    import time

    live.host_searches("index --watch")
    if not args.quiet:
        print(f"watching {printable(str(root))} for changes (Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        while live.watcher.running:
            time.sleep(0.5)
        raise TachikomaError(live.watcher.error or "the watcher stopped")
    finally:
        live.close()


def cmd_stats(args) -> int:
    from .. import stats

    root = common.root(args)
    report = stats.report(root, args.config)
    if args.json:
        common.print_json(report)
    else:
        print(stats.format_text(_printable_report(report)))
    status = 0
    if report.get("tag_file"):  # the notes are counted, but the transcripts' tags cannot be read
        print(f"tachikoma: {printable(report['tag_file']['message'])}", file=sys.stderr)
        status = 1
    index = report.get("index") or {}
    if index.get("state") in ("damaged", "unreadable"):  # the files are counted, but the index needs fixing
        print(f"tachikoma: {printable(index['note'])}", file=sys.stderr)
        status = 1
    return status


def _printable_report(report: dict) -> dict:
    """The report with file names and reasons escaped for a terminal (one line each)."""
    out = dict(report)
    if "by_folder" in out:
        out["by_folder"] = {printable(folder): bucket for folder, bucket in out["by_folder"].items()}
    for key in ("invalid_values", "problems"):
        if key in out:
            out[key] = [{k: printable(v) if isinstance(v, str) and k != "value" else v for k, v in item.items()}
                        for item in out[key]]
    if out.get("excluded"):  # the folders and patterns `[index] exclude` left out, as written in the settings
        excluded = out["excluded"]
        out["excluded"] = {**excluded, "unmatched": [printable(p) for p in excluded["unmatched"]],
                           "folders": [{**entry, "folder": printable(entry["folder"]),
                                        "pattern": printable(entry["pattern"])} for entry in excluded["folders"]]}
    if out.get("logseq_copies"):  # a Logseq graph's copies of pages: the graph's folder is named as it is on disk
        copies = out["logseq_copies"]
        out["logseq_copies"] = {**copies, "folders": [{**entry, "folder": printable(entry["folder"])}
                                                      for entry in copies["folders"]]}
    return out

