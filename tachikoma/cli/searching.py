"""`tachikoma search`: asked of a running tachikoma of this memory first, else searched here; printed
with each result's explanation, or as JSON (`reply.as_json`)."""

from __future__ import annotations

from pathlib import Path

from ..humanize import NO_FLOOR, answer_notes, floor_hides, no_match_reason, plural, printable, tool_match_text, vectors_text
from ..vocabulary import query_too_long
from . import common


def cmd_search(args) -> int:
    if not " ".join(args.query).strip():
        common.usage_error(args, "the query is empty: say what to look for")
    if too_long := query_too_long(" ".join(args.query)):
        common.usage_error(args, too_long)
    if args.agent_text and not (args.json and args.budget):
        common.usage_error(args, "--agent-text goes with --budget and --json: it adds the block a budget makes "
                                 "to the JSON (without --json, --budget prints the block alone)")
    if args.path:  # each was checked as it was parsed (`parser._search_path`); here how many
        from ..globs import scope_error

        if error := scope_error(args.path):
            common.usage_error(args, f"--{error}")
    root = common.root(args)
    from ..reading.surrogates import clean

    # a byte that is not UTF-8 in the command line comes as half a character: made whole, as in files
    asked = {"query": clean(" ".join(args.query)), "limit": args.limit, "kind": args.kind, "trust": args.trust,
             "untagged": args.untagged, "min_score": args.min_score, "recency": args.recency, "as_of": args.as_of,
             "memories": args.memories, "path": args.path, "source": args.source}
    if args.budget:  # held to the budget as it is printed: the block, or the JSON (with the block, asked so)
        asked.update(budget_tokens=args.budget, face="cli",
                     form="json+text" if args.agent_text else "json" if args.json else "block")
    if args.fresh_only:
        asked["fresh_only"] = True
    answer = None
    if not (args.in_process or args.embedder):  # a running tachikoma of this memory answers in milliseconds
        from ..resident import ask

        answer = ask(root, args.config, asked)
    if answer is None:
        answer = _search_here(root, args, asked)
    if args.json:
        from ..replies.reply import as_json

        common.print_json(as_json(answer, agent_text=args.agent_text))
        return 0
    if "budget" in answer:  # the block made for agents, held to its budget ("no good match" too)
        print(printable_block(answer["agent_text"]))
        return 0
    _print_answer(answer, args)
    return 0


def printable_block(text: str) -> str:
    """`printable` line by line: control characters shown, line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _search_here(root: Path, args, asked: dict) -> dict:
    """`asked` searched in this process, with searchers opened for it and closed after."""
    from ..search.pool import Searchers, search_as_asked

    searchers = Searchers()
    try:
        return search_as_asked(root, common.config(args, root), searchers, asked, embedder_name=args.embedder)
    finally:
        searchers.close()


def _print_answer(answer: dict, args) -> None:
    fresh = answer["freshness"]
    if fresh["changed_since"] or fresh["state"] != "complete":
        common.warn(f"the index is not up to date ({plural(fresh['changed_since'], 'file')} changed since "
              f"{fresh['last_indexed_at']}): run `tachikoma index`")
    vectors = vectors_text(fresh.get("embedded"))
    if vectors and fresh["embedded"]["full"] < fresh["embedded"]["chunks"]:
        common.warn(f"{vectors}: the rest are searched by quick vectors or keywords until `tachikoma index` finishes")
    if answer["no_good_match"]:
        import shlex

        print(f"no good match: {no_match_reason(answer)}")
        if floor_hides(answer):
            print(f"to see the nearest passages anyway, search without the floor: tachikoma search {NO_FLOOR['cli']} "
                  f"{printable(shlex.quote(answer['query']))}")
    from ..search.explain import sentence

    for n, r in enumerate(answer.get("results") or (), 1):  # (a budget's answer has passages, not results)
        where = f"[{r['memory']}] " if args.memories else ""
        print(f"{n:2}. {r['score']:.3f}  {printable(where + r['path'])}:{r['lines'][0]}-{r['lines'][1]}")
        print(f"    = {printable(sentence(r))}")
        if r.get("stale"):
            print(f"    ! {printable(r['stale']['text'])}")
        snippet = printable(" ".join(r["text"].split()))
        print(f"    {snippet[:160]}{'…' if len(snippet) > 160 else ''}")
        if (in_tools := tool_match_text(r)) is not None:
            excerpt = r["tool_matches"][0].get("excerpt")
            print(f"    {printable(in_tools)}" + (f": {printable(excerpt)}" if excerpt else ""))
    for note in answer_notes(answer):
        print(printable(note))

