"""`tachikoma eval BENCHMARK`: the command line of the evaluations in `tachikoma.evaluation`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..errors import TachikomaError
from . import common


def cmd_eval(args) -> int:
    from ..embedders import offline_default
    from ..when.periods import HEMISPHERE_ENV

    # Every set's people live north of the equator: its seasons are read so wherever it is run (`periods.south`).
    os.environ[HEMISPHERE_ENV] = "north"
    if args.benchmark == "everyday":  # each memory's own choice, as a new index makes it (`embedders.auto`)
        return _eval_everyday(args)
    args.embedder = args.embedder or offline_default()  # named in every report and its command line
    if args.benchmark == "abstention":
        return _eval_abstention(args)
    if args.benchmark == "recency":
        return _eval_recency(args)
    if args.benchmark == "longmemeval":
        return _eval_longmemeval(args)
    if args.benchmark == "budget":
        return _eval_budget(args)
    from ..evaluation import locomo

    config = common.config(args, Path(".")) if args.config else None
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "locomo", str(args.path), "--embedder",
                                                                   args.embedder]
    argv += [f"--limit-conversations {args.limit_conversations}"] if args.limit_conversations else []
    argv += [f"--conversations {args.conversations}"] if args.conversations else []
    argv += ["--sweep"] if args.sweep else []
    argv += [f"--max-words {args.max_words}"] if args.max_words else []
    argv += ["--vectors quick"] if args.vectors == "quick" else []
    only = locomo.parse_selection(args.conversations) if args.conversations else None
    report = locomo.evaluate(args.path, args.embedder, args.limit_conversations, config, sweep=args.sweep,
                             work=args.work, progress=not args.quiet, argv=argv, max_words=args.max_words,
                             only=only, recency_cases=args.recency_cases, vectors=args.vectors)
    return _shown(locomo.terminal(report), locomo.write_report, report, args.out)


def _eval_longmemeval(args) -> int:
    from ..evaluation import longmemeval

    if args.limit is not None and args.limit < 1:
        raise TachikomaError("--limit must be at least 1")
    config = common.config(args, Path(".")) if args.config else None
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "longmemeval", str(args.path),
                                                                   "--embedder", args.embedder]
    argv += [f"--limit {args.limit}"] if args.limit else []
    report = longmemeval.evaluate(args.path, args.embedder, args.limit, config, work=args.work,
                                  cache=args.vector_cache, progress=not args.quiet, argv=argv)
    return _shown(longmemeval.terminal(report), longmemeval.write_report, report, args.out)


def _eval_everyday(args) -> int:
    from ..evaluation import everyday

    config = common.config(args, Path(".")) if args.config else None
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "everyday", *map(str, args.sets),
                                                                   "--embedder", args.embedder or "auto"]
    argv += [f"--split {args.split}"] if args.split != "all" else []
    argv += [f"--vector-cache {args.vector_cache}"] if args.vector_cache else []
    report = everyday.evaluate(args.sets or None, args.embedder, config, split=args.split, argv=argv,
                               progress=not args.quiet, cache=args.vector_cache)
    return _shown(everyday.terminal(report), everyday.write_report, report, args.out)


def _eval_budget(args) -> int:
    from ..replies.budget import FALLOFF
    from ..evaluation import recall_budget

    config = common.config(args, Path(".")) if args.config else None
    falloffs = (FALLOFF, *[f for f in args.falloffs or () if f != FALLOFF])
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "budget", str(args.path),
                                                                   "--embedder", args.embedder]
    argv += [f"--limit {args.limit}"] if args.limit else []
    argv += ["--budgets " + ",".join(map(str, args.budgets))]
    argv += ["--falloffs " + ",".join(f"{f:g}" for f in args.falloffs)] if args.falloffs else []
    report = recall_budget.evaluate(args.path, args.embedder, args.limit, config, work=args.work,
                                    cache=args.vector_cache, budgets=args.budgets, falloffs=falloffs,
                                    progress=not args.quiet, argv=argv)
    return _shown(recall_budget.markdown(report), recall_budget.write_report, report, args.out)


def _eval_recency(args) -> int:
    from ..evaluation import recency

    config = common.config(args, Path(".")) if args.config else None
    result = recency.measure(args.embedder, config, work=args.work, n=args.cases, seed=args.seed)
    print(recency.table(result))
    print(f"{result['memories']} memories, {result['embedder']}, target {result['target']:.0%}, "
          f"{result['seconds']} s")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "recency.md").write_text(recency.table(result) + "\n", encoding="utf-8")
        (args.out / "recency.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out / 'recency.md'} and recency.json", file=sys.stderr)
    return 0


def _shown(text: str, write_report, report: dict, out: Path | None) -> int:
    """Print an evaluation's report, write its files to `out` when asked (naming each on stderr); exit 0."""
    print(text)
    if out:
        for written in write_report(report, out):
            print(f"wrote {written}", file=sys.stderr)
    return 0


def _eval_abstention(args) -> int:
    from ..evaluation import abstention, locomo

    config = common.config(args, Path(".")) if args.config else None
    only = locomo.parse_selection(args.conversations) if args.conversations else None
    result = abstention.measure(args.path, args.embedder, args.limit_conversations, config, work=args.work,
                                progress=not args.quiet, max_cost=args.max_cost, only=only)
    return _shown(abstention.terminal(result), abstention.write_report, result, args.out)

