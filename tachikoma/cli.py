"""The `tachikoma` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__
from .errors import TachikomaError
from .humanize import no_match_reason, plural, printable, tool_match_text, vectors_text
from .vocabulary import BUDGET_RESULTS, DEFAULTS_TEXT, MAX_BUDGET, MAX_LIMIT, RECENCY_NAMES

# Everything else is imported where it is used: a search that a running tachikoma answers
# (`resident`) costs this module, argparse and a socket, so keep this list short.

EPILOG = f"""\
The memory folder is --memory PATH, else $TACHIKOMA_MEMORY, else ./memory.
Settings are read from tachikoma.toml in that folder (or --config PATH).
--memory and --config may come before or after the command.
A search returns at most {MAX_LIMIT} results (--limit), as the dashboard, its JSON API and MCP do.
Ollama's address comes from $OLLAMA_HOST (default http://127.0.0.1:11434).
"""


class CommandParser(argparse.ArgumentParser):
    """The parser of one command: a mistyped option is reported with this command's usage (plain
    argparse hands it up to the top-level parser, whose usage lists commands, not options), and
    with the closest option it knows. A command finds its parser's `error` as ``args.usage_error``,
    for mistakes only the command can see (an empty query): exit 2 with the usage, like argparse's."""

    def parse_known_args(self, args=None, namespace=None):
        self._dashed = [a for a in (sys.argv[1:] if args is None else args) if a.startswith("-") and a != "--"]
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            message = f"unrecognized arguments: {' '.join(extras)}"
            if extras[0].startswith("-"):
                import difflib

                close = difflib.get_close_matches(extras[0].split("=")[0], self._option_string_actions, n=1)
                message += f" (did you mean {close[0]}?)" if close else self._dash_hint(extras[0])
            self.error(message)
        if not hasattr(namespace, "usage_error"):  # the innermost command's parser sets it first
            namespace.usage_error = self.error
        return namespace, extras

    def error(self, message):
        if "required: query" in message:
            unknown = [a for a in getattr(self, "_dashed", []) if a.split("=")[0] not in self._option_string_actions]
            message += self._dash_hint(unknown[0]) if unknown else ""
        super().error(message)

    def _dash_hint(self, word: str) -> str:
        """For a command that takes a query: a word starting with '-' is read as an option unless it
        comes after '--'."""
        if not any(action.dest == "query" for action in self._positionals._group_actions):
            return ""
        return f" (a query that starts with '-' goes after '--': {self.prog} -- {word} ...)"


def _port(text: str) -> int:
    """A TCP port for argparse: a whole number from 1 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-65535)") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1-65535)")
    return port


def _date(text: str):
    """A YYYY-MM-DD date for argparse; a wrong one is named, with what is wrong with it."""
    from datetime import date

    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        looks_like_a_date = len(text) == 10 and text[4] == text[7] == "-"
        reason = f" ({exc})" if looks_like_a_date else ""
        raise argparse.ArgumentTypeError(f"{text!r} is not a date{reason}: expected YYYY-MM-DD, "
                                         "e.g. 2026-03-22") from None


def _limit(text: str) -> int:
    """How many results, for argparse: a whole number from 1 to MAX_LIMIT (as on the web)."""
    try:
        limit = int(text)
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to {MAX_LIMIT}")
    return limit


def _fraction(text: str) -> float:
    """A --min-score for argparse: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:  # also NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 0 to 1")
    return value


EVAL_EMBEDDER_HELP = ("minilm-int8 (the default; minilm where onnxruntime is missing), minilm (exact), "
                      "e5-small (multilingual), ollama[:<model>] or hash")


def _whole(least: int, most: int | None = None):
    """An argparse type: a whole number of at least `least` (and at most `most`)."""

    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least or (most is not None and value > most):
            span = f"from {least} to {most}" if most is not None else f"of {least} or more"
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number {span}")
        return value

    return check


def _cases(text: str) -> int:
    """`eval recency --cases` for argparse: from 1 to what the generator can make."""
    from .evaluation.recency import MAX_CASES  # imported only when the option is given

    return _whole(1, MAX_CASES)(text)


def _budgets(text: str) -> tuple[int, ...]:
    """`eval budget --budgets` for argparse: whole numbers of 1 or more, comma separated."""
    return tuple(_whole(1)(part.strip()) for part in text.split(",") if part.strip()) or _whole(1)(text)


def _falloffs(text: str) -> tuple[float, ...]:
    """`eval budget --falloffs` for argparse: shares from 0 to 1, comma separated."""
    out = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            value = -1.0
        if not 0 <= value <= 1:
            raise argparse.ArgumentTypeError(f"{part!r} is not a share from 0 to 1")
        out.append(value)
    return tuple(out)


def _cost(text: str) -> float:
    """`eval abstention --max-cost` for argparse: at least 0 and below 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of at least 0 and below 1")
    return value


def _tag_value(key: str):
    """An argparse type that checks a --trust/--confidence/--source value against the vocabulary,
    so a wrong value is reported before anything else is asked of the command line."""

    def check(text: str) -> str:
        from .tags import InvalidTagValue, check_value

        try:
            return check_value(key, text)
        except InvalidTagValue as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return check


def _search_trust(text: str) -> str:
    """A --trust filter for search, checked like tag's: a trust value or 'missing' (untagged trust)."""
    from .tags import InvalidTagValue, check_value

    value = text.strip().lower()
    if value == "missing":
        return value
    try:
        return check_value("trust", value)
    except InvalidTagValue as exc:
        raise argparse.ArgumentTypeError(f"{exc} or missing") from None


def _names(value: str) -> list[str]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one memory, e.g. --memories notes,ops")
    return list(dict.fromkeys(names))


def build_parser() -> argparse.ArgumentParser:
    # --memory and --config are accepted before and after the command. SUPPRESS: a subcommand's
    # parser leaves the value given before the command alone when the option is not repeated.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--memory", metavar="PATH", default=argparse.SUPPRESS,
                        help="the memory folder (default: $TACHIKOMA_MEMORY or ./memory)")
    common.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS,
                        help="settings file (default: <memory>/tachikoma.toml)")
    common.add_argument("--store", metavar="URL", default=argparse.SUPPRESS,
                        help="where the index lives: sqlite (a file in <memory>/.cache, the default) or "
                             "postgresql://user@host/database (default: $TACHIKOMA_STORE, else [store] url)")
    parser = argparse.ArgumentParser(
        prog="tachikoma",
        description="Index, search and tag an AI agent's file-based memory (markdown notes and JSONL transcripts).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter, parents=[common])
    parser.add_argument("--version", action="version", version=f"tachikoma {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=CommandParser)

    p = sub.add_parser("index", parents=[common], help="bring the index up to date with the memory folder",
                       description="Walk the memory folder and index new and changed files. Unchanged files cost "
                                   "nothing; removed files leave the index. Safe to interrupt: the next run finishes.")
    p.add_argument("--embedder", metavar="NAME", help="minilm, minilm-int8, e5-small (multilingual), ollama, "
                                                      "ollama:<model> or hash (default: the index's own; for a new "
                                                      "index Ollama if it answers, else minilm-int8, or minilm "
                                                      "without onnxruntime)")
    p.add_argument("--reembed", action="store_true", help="drop all vectors and embed everything again "
                                                          "(needed to switch embedder)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no warnings")
    p.add_argument("--watch", action="store_true", help="after indexing, keep watching the folder and re-index "
                                                        "each change until Ctrl-C")
    p.add_argument("--claim-name", metavar="NAME", help="on a shared store: take the memory name NAME over for "
                   "this folder although another folder (another clone) indexed under it; its index becomes "
                   "this folder's (see docs/team.md)")

    p = sub.add_parser("search", parents=[common], help="search the memory, best first, with score explanations",
                       description="score = similarity × trust_weight × confidence_weight × recency "
                                   "× time × duplicate_penalty (at most two chunks per file; the second × 0.8). "
                                   "time is 1.0 unless the query names one (\"last week\", \"in March\", "
                                   "\"on 2026-03-22\"): then memories from that time rank first.")
    p.add_argument("query", nargs="+", help="what to look for")
    p.add_argument("--memories", metavar="A,B", type=_names, default=None,
                   help="on a shared store (PostgreSQL): search these memories (by name) together; every "
                        "result names its memory (default: this memory only)")
    p.add_argument("--limit", "-n", type=_limit, default=10, metavar="N",
                   help=f"how many results, 1-{MAX_LIMIT} (default 10)")
    p.add_argument("--json", action="store_true", help="print results and their explanations as JSON")
    p.add_argument("--budget", type=_whole(1, MAX_BUDGET), metavar="N", default=None,
                   help="the best evidence within N tokens (counted offline) instead of whole results: passages "
                        "trimmed around what matched, none twice, cut where the scores fall off; at least "
                        f"{BUDGET_RESULTS} results are ranked to choose from (at most {MAX_BUDGET:,})")
    p.add_argument("--fresh-only", action="store_true",
                   help="leave out stale memories: those naming files of a git repository that changed in a "
                        "commit since the memory's date")
    p.add_argument("--kind", choices=["markdown", "transcript"], help="only this kind of file")
    p.add_argument("--trust", type=_search_trust, metavar="VALUE",
                   help="only files with this trust: owner, self, external, untrusted or missing")
    p.add_argument("--untagged", action="store_true", help="only files with neither trust nor confidence")
    p.add_argument("--embedder", metavar="NAME", help="must match the index's embedder")
    p.add_argument("--min-score", type=_fraction, metavar="X",
                   help="relevance floor, 0-1, one decision for the whole answer: when no passage reaches it "
                        "in meaning similarity (cosine of the embeddings) and none holds most of the query's "
                        "words, the answer is 'no good match'; otherwise it never removes a single result "
                        "(default: [search] min_score, else 0.41 for minilm; 0 = off)")
    p.add_argument("--recency", choices=RECENCY_NAMES, type=str.lower,
                   help="how much a memory's age counts: off; default (age costs at most 10%%, and a memory "
                        "that a newer one supersedes loses half); strong (down to half at 90 days); seed "
                        "(the original 1 / (1 + days / 30)). Default: [ranking] recency")
    p.add_argument("--as-of", metavar="DATE", default=None,
                   help="search as if it were this date: now (default), YYYY-MM-DD (the end of that day) or "
                        "YYYY-MM-DDTHH:MM[+HH:MM]; recency and time in the query (\"last week\", \"in March\") "
                        "count from it")
    p.add_argument("--in-process", action="store_true",
                   help="search in this process even when a running `tachikoma serve`, `mcp` or `index --watch` "
                        "of this memory could answer (it is asked first: its index is loaded, so it answers in "
                        "milliseconds)")

    p = sub.add_parser("tag", parents=[common],
                       help="tag groups of files (default: untagged transcripts → self/medium, source: the agent)",
                       description=f"With no selector and no values (the dashboard's \"Use the defaults\"), "
                                   f"{DEFAULTS_TEXT}. A .jsonl file that is not a transcript (a data file) is "
                                   "never tagged. Markdown is never tagged by default. Existing values are kept "
                                   "unless --overwrite (each file keeping a different value of its own is "
                                   "listed). Markdown gets front matter; transcripts get entries in "
                                   "tachikoma-tags.yaml. In a git repository the change is committed. Exits 0 "
                                   "when the selected files end up tagged, including when nothing had to change "
                                   "(the last line says whether no file matched, or the matches already had the "
                                   "values or kept their own); 1 on an error; 2 for a mistyped command line.")
    p.add_argument("files", nargs="*", metavar="FILE", help="select these files (paths in the memory, or from "
                   "here into it): `tachikoma tag notes/a.md 2026-03-22/s.jsonl --confidence medium`")
    p.add_argument("--kind", choices=["markdown", "transcript"], help="select files of this kind")
    p.add_argument("--path", metavar="PATTERN", help="select a folder ('2026-03/') or a glob ('**/*meeting*.md', "
                                                     "'2026-1*/': the folders that match)")
    p.add_argument("--untagged", action="store_true", help="select only files with no tags at all")
    p.add_argument("--since", type=_date, metavar="YYYY-MM-DD", help="select files modified on or after")
    p.add_argument("--until", type=_date, metavar="YYYY-MM-DD", help="select files modified on or before")
    p.add_argument("--all", action="store_true", help="select every file (needed to tag without another selector)")
    p.add_argument("--trust", type=_tag_value("trust"), help="owner, self, external or untrusted")
    p.add_argument("--confidence", type=_tag_value("confidence"), help="high, medium, low or speculative")
    p.add_argument("--source", type=_tag_value("source"), help="free text: where the memory came from")
    p.add_argument("--evergreen", action=argparse.BooleanOptionalAction, default=None,
                   help="mark the files evergreen (their age never lowers their rank: standing facts such as "
                        "identity or preferences) or, with --no-evergreen, not; always applied, no --overwrite "
                        "needed")
    p.add_argument("--overwrite", action="store_true", help="replace values that are already set")
    p.add_argument("--dry-run", action="store_true", help="show every change and write nothing")
    p.add_argument("--no-commit", action="store_true", help="do not commit the change to git")
    p.add_argument("--json", action="store_true", help="print the changes as JSON")

    p = sub.add_parser("remember", parents=[common], help="write a new note (as MCP's remember), commit and index it",
                       description="Write TEXT (or standard input, with -) as a new note: the file name comes from "
                                   "the title (or the first words), a taken name gets -2, -3…, so nothing is ever "
                                   "overwritten; written atomically, committed in a git memory, then indexed. The "
                                   "same remembering as MCP's `remember` tool; a retry of the same note finds it.")
    p.add_argument("text", help="the memory, as markdown; - reads it from standard input")
    p.add_argument("--title", help="a short title (names the file; default: the text's first words)")
    p.add_argument("--folder", help="a folder inside the memory, e.g. notes/2026 (made if missing)")
    p.add_argument("--trust", type=_tag_value("trust"), default="self",
                   help="who it came from: owner, self (the default), external, untrusted")
    p.add_argument("--confidence", type=_tag_value("confidence"), help="high, medium, low or speculative")
    p.add_argument("--source", type=_tag_value("source"), help="free text: where the memory came from")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")

    p = sub.add_parser("stats", parents=[common],
                       help="tag coverage: tagged, partly tagged, untagged and invalid files",
                       description="Counts come from the files themselves (the source of truth). Exit status: 0, "
                                   "or 1 when the index is damaged or unreadable (the files are counted all the same).")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("serve", parents=[common], help="start the web dashboard",
                       description="Serve the dashboard. Binds to 127.0.0.1 unless told otherwise; it can "
                                   "rewrite memory files, so think twice before exposing it.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=5000, help="port, 1-65535 (default 5000)")
    p.add_argument("--no-watch", action="store_true", help="do not watch the memory folder (re-index by hand)")
    p.add_argument("--mcp", action="store_true", help="also serve MCP over streamable HTTP at /mcp (localhost only)")
    p.add_argument("--mcp-read-only", action="store_true", help="with --mcp: leave out the tools that write")
    p.add_argument("--mcp-allow-owner-trust", action="store_true",
                   help="with --mcp: let agents set trust 'owner' (by default they may set at most 'self')")
    p.add_argument("--tokens-file", metavar="PATH",
                   help="a shared server: 'name role token' lines (role owner or agent), outside the memory "
                        "(or [serve] tokens_file; $TACHIKOMA_TOKEN gives one owner token); see docs/team.md")
    p.add_argument("--trusted-proxy", action="append", metavar="ADDRESS",
                   help="a reverse proxy (address or network) whose X-Forwarded-User header is believed; "
                        "repeatable (or [serve] trusted_proxies)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address people open, e.g. https://memory.example.org (its host passes the Host "
                        "check; https makes the sign-in cookie Secure)")

    p = sub.add_parser("mcp", parents=[common], help="serve the memory to an agent over MCP (stdio)",
                       description="A Model Context Protocol server on stdin/stdout with the tools search, read, "
                                   "stats, remember and tag. It watches the memory folder and keeps the index "
                                   "fresh. Add it to an agent with e.g. `claude mcp add tachikoma -- tachikoma mcp "
                                   "--memory PATH`.")
    p.add_argument("--read-only", action="store_true", help="leave out the tools that write (remember, tag)")
    p.add_argument("--allow-owner-trust", action="store_true",
                   help="let the agent set trust 'owner' (\"the user said it\") with remember and tag; by "
                        "default it may set at most 'self'")
    p.add_argument("--no-watch", action="store_true", help="do not watch the memory folder (re-index by hand)")

    p = sub.add_parser("eval", parents=[common], help="measure retrieval quality on a benchmark",
                       description="Build a memory per benchmark conversation, index it and ask its questions "
                                   "through the normal search, then report retrieval metrics.")
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    b = bench.add_parser("locomo", parents=[common],
                         help="LoCoMo-10: per-category recall and nDCG at k = 1, 3, 5, 10",
                         description="Each conversation becomes a memory folder with one transcript per session "
                                     "(dated by the session), indexed and searched the normal way. Compares a "
                                     "BM25 baseline, vector similarity alone, + the per-file rule, + recency "
                                     "and + hybrid keyword relevance over the same chunks.")
    b.add_argument("path", type=Path, help="locomo10.json")
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--limit-conversations", type=_whole(1), metavar="N", help="only the first N conversations")
    b.add_argument("--conversations", metavar="RANGE",
                   help="only the conversations at these positions, from 0: 0-4 (where the recency default was "
                        "chosen), 5-9 (held out), 0,3,7")
    b.add_argument("--recency-cases", type=_whole(0), default=240, metavar="N",
                   help="cases in each recency set run beside LoCoMo (default 240; 0: skip them)")
    b.add_argument("--out", type=Path, metavar="DIR", help="write report.md, report.json and per_question.jsonl here")
    b.add_argument("--work", type=Path, metavar="DIR", help="keep the memory folders and indexes here and reuse "
                                                          "them next time (default: a temporary folder)")
    b.add_argument("--sweep", action="store_true", help="also rank with other fusion methods and keyword weights")
    b.add_argument("--max-words", type=_whole(2), metavar="N",
                   help="chunk the transcripts into at most N words instead of the embedder's own window "
                        "(to study chunk sizes; minilm's is 80)")
    b.add_argument("--vectors", choices=("full", "quick"), default="full",
                   help="quick: index with the quick tier's vectors only (static, distilled from MiniLM), as a "
                        "first index is searched before its full vectors are in (default full)")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    b = bench.add_parser("longmemeval", parents=[common],
                         help="LongMemEval: session recall_any, recall_all and nDCG at k = 5, 10 per question type",
                         description="Each question becomes its own memory folder with one transcript per session "
                                     "(dated by the session), indexed and searched the normal way as of the "
                                     "question date. Compares the defaults with ablations (no time reading, no "
                                     "recency, vector only, keywords only) and a BM25 over whole sessions; on "
                                     "abstention questions, how often the answer is 'no good match'.")
    b.add_argument("path", type=Path, help="longmemeval_s.json or .json.gz (the official format)")
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--limit", type=int, metavar="N", help="only N questions, a stratified subset (every type in "
                                                          "its share; a smaller N is a prefix of a larger one)")
    b.add_argument("--vector-cache", type=Path, metavar="FILE",
                   help="document vectors shared across questions and runs (default: "
                        "$XDG_CACHE_HOME/tachikoma/eval-vectors.sqlite)")
    b.add_argument("--work", type=Path, metavar="DIR", help="keep each question's memory folder and index here "
                                                          "(default: a temporary folder)")
    b.add_argument("--out", type=Path, metavar="DIR", help="write report.md, report.json and per_question.jsonl here")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    b = bench.add_parser("everyday", parents=[common],
                         help="everyday questions on small hand-written memories: top-1, top-5, no good match",
                         description="Each set (bench/everyday/<name>: memory/, manifest.json, questions.jsonl) "
                                     "becomes a real git repository with its back-dated history in a temporary "
                                     "folder, indexed and searched the normal way as of the set's as_of date, "
                                     "with the defaults and again without the relevance floor. Reports top-1, "
                                     "top-5 and 'no good match' per memory, kind, language and split.")
    b.add_argument("sets", nargs="*", type=Path, metavar="SET_DIR",
                   help="a set folder, or a folder of sets (default: every set under bench/everyday)")
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--split", choices=("dev", "held", "all"), default="all",
                   help="only the questions of this split (default all)")
    b.add_argument("--out", type=Path, metavar="DIR", help="write report.md, report.json and per_question.jsonl here")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    b = bench.add_parser("budget", parents=[common],
                         help="LongMemEval: answer turns inside the text returned within a token budget",
                         description="Each answerable LongMemEval question is asked of its own memory (as "
                                     "'eval longmemeval' builds it); the answer is cut to each budget by "
                                     "search --budget and, as a baseline, by taking the top chunks until the "
                                     "budget is spent. Reports the share of the labelled answer turns inside "
                                     "the returned text and the tokens used.")
    b.add_argument("path", type=Path, help="longmemeval_s.json or .json.gz (the official format)")
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--limit", type=_whole(1), metavar="N", help="only N questions, a stratified subset")
    b.add_argument("--budgets", type=_budgets, default=(500, 1000, 2000), metavar="N,N",
                   help="token budgets (default 500,1000,2000)")
    b.add_argument("--falloffs", type=_falloffs, default=None, metavar="X,X",
                   help="also cut where scores fall below these shares of the best (default: only the "
                        "search's own, 0.5)")
    b.add_argument("--vector-cache", type=Path, metavar="FILE", help="document vectors shared across runs")
    b.add_argument("--work", type=Path, metavar="DIR", help="keep each question's memory folder and index here")
    b.add_argument("--out", type=Path, metavar="DIR", help="write budget.md and budget.json here")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    b = bench.add_parser("recency", parents=[common],
                         help="knowledge updates and old exact matches: what recency is for, per preset",
                         description="Builds one memory of generated cases (dated by front matter, paths, "
                                     "transcript timestamps and file times; ages 1-400 days) and asks each case's "
                                     "question per recency preset: knowledge updates (the newer of a fact and its "
                                     "replacement must rank above the older) and old exact match (an old only "
                                     "answer must come first among fresh memories sharing words with it).")
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--cases", type=_cases, default=240, metavar="N", help="cases in each set (default 240)")
    b.add_argument("--seed", type=int, default=8, metavar="N",
                   help="draw other cases from the same templates (the default rule was set on seed 8)")
    b.add_argument("--work", type=Path, metavar="DIR", help="keep the memory folder and index here and reuse them")
    b.add_argument("--out", type=Path, metavar="DIR", help="write recency.md and recency.json here")
    b = bench.add_parser("abstention", parents=[common],
                         help="choose the relevance floor (min_score) on LoCoMo-10",
                         description="Ask every answerable question of its own conversation, every adversarial "
                                     "question of the other conversations and made-up nonsense, and report what "
                                     "each relevance floor costs the first (session R@5) and how often it says "
                                     "'no good match' to the rest.")
    b.add_argument("path", type=Path, help="locomo10.json")
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--limit-conversations", type=_whole(1), metavar="N", help="only the first N conversations")
    b.add_argument("--work", type=Path, metavar="DIR", required=True,
                   help="keep the memory folders and indexes here (shared with `eval locomo --work`)")
    b.add_argument("--out", type=Path, metavar="DIR", help="write abstention.md and abstention.json here")
    b.add_argument("--conversations", metavar="RANGE",
                   help="only the conversations at these positions, from 0: 0-4, 5-9, 0,3,7")
    b.add_argument("--max-cost", type=_cost, default=0.005, metavar="X",
                   help="the most session R@5 the floor may cost the answerable questions (default 0.005)")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command. Every failure is one line on stderr, never a traceback: exit 1 for an
    error, 2 for a usage error (argparse's), 130 for Ctrl-C, 141 when the reader of stdout went
    away (`tachikoma search x | head -1`). TACHIKOMA_DEBUG=1 shows the traceback of an
    unexpected error."""
    args = build_parser().parse_args(argv)
    for name in ("memory", "config", "store"):
        if not hasattr(args, name):
            setattr(args, name, None)
    if args.store:  # every command, and what it starts (watcher, dashboard, evaluations), uses this store
        from .store import STORE_ENV

        os.environ[STORE_ENV] = args.store
    try:
        try:
            code = COMMANDS[args.command](args)
            sys.stdout.flush()  # a closed pipe shows here, inside the guard, not at exit
            return code
        except TachikomaError as exc:
            _error(str(exc))
            return 1
        except KeyboardInterrupt:
            if getattr(args, "reembed", False):
                _error("interrupted; the index was left as it was (re-embedding is all or nothing)")
            else:
                _error("interrupted; the index stays usable and the next run finishes the work")
            return 130
        except BrokenPipeError:
            raise
        except Exception as exc:
            sqlite3 = sys.modules.get("sqlite3")  # not imported: not one of its errors
            if sqlite3 is not None and isinstance(exc, sqlite3.DatabaseError):  # a query outside the Store's own
                _error(str(_index_error(args, exc)))
                return 1
            if os.environ.get("TACHIKOMA_DEBUG"):
                raise
            _error(_unexpected(exc))
            return 1
    except BrokenPipeError:
        # The reader closed the pipe: stop quietly. Point stdout at devnull so that
        # flushing it at exit cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


def _error(message: str) -> None:
    print(f"tachikoma: {printable(message)}", file=sys.stderr)


def _index_error(args, exc) -> TachikomaError:
    from .memory import index_path
    from .memory_root import resolve_root
    from .store import index_error

    try:
        path = index_path(resolve_root(args.memory))
    except TachikomaError:
        path = Path("<memory>/.cache/index.db")
    return index_error(path, exc)


def _unexpected(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    reason = " ".join(str(exc).split())
    return (f"unexpected error ({type(exc).__name__}{': ' + reason if reason else ''}); "
            "set TACHIKOMA_DEBUG=1 to see where, and please report it")


def _root(args) -> Path:
    from .memory_root import resolve_root

    return resolve_root(args.memory)


def _config(args, root: Path):
    from .config import load_config

    return load_config(root, args.config)


def _usage_error(args, message: str) -> None:
    """A mistyped command line: the command's usage and `message` on stderr, exit 2 (SystemExit)."""
    report = getattr(args, "usage_error", None)
    if report is None:  # args not made by build_parser
        raise TachikomaError(message)
    report(message)


def _warn(message: str) -> None:
    print(f"warning: {printable(message)}", file=sys.stderr)


def cmd_index(args) -> int:
    from .indexer import reporting, runner

    root = _root(args)
    config = _config(args, root)
    if args.claim_name:
        _claim_name(args, root, config)
    show = not args.quiet and not args.json and sys.stderr.isatty()
    detail, close = reporting.tqdm_progress() if show else (None, lambda: None)
    warn = None if args.quiet or args.json else _warn
    live = _start_watching(root, args) if args.watch else None
    try:
        summary = runner.run(root, config, embedder_name=args.embedder, reembed=args.reembed,
                             warn=warn, detail=detail)
    finally:
        close()
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
    else:
        print(summary.line())
    if live is not None:
        _watch(live, root, args)
    return 0


def _claim_name(args, root: Path, config) -> None:
    """`index --claim-name NAME`: NAME must be this memory's name on a shared store."""
    from .store import locate
    from .store.identity import CLAIM_ENV

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
    first run, so no change is missed; one line per later run."""
    from .live import LiveMemory

    def report(last: dict) -> None:
        if args.json:
            print(json.dumps(last), flush=True)
        elif last["state"] == "done":
            print(last["line"], flush=True)

    live = LiveMemory(root, args.config, warn=None if args.quiet else _warn, report=report)
    live.watch(catch_up=False, ready_within=10)
    return live


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


def cmd_search(args) -> int:
    if not " ".join(args.query).strip():
        _usage_error(args, "the query is empty: say what to look for")
    root = _root(args)
    from .surrogates import clean

    # a byte that is not UTF-8 in the command line comes as half a character: made whole, as in files
    asked = {"query": clean(" ".join(args.query)), "limit": args.limit, "kind": args.kind, "trust": args.trust,
             "untagged": args.untagged, "min_score": args.min_score, "recency": args.recency, "as_of": args.as_of,
             "memories": args.memories}
    if args.budget:
        asked["budget_tokens"] = args.budget
    if args.fresh_only:
        asked["fresh_only"] = True
    answer = None
    if not (args.in_process or args.embedder):  # a running tachikoma of this memory answers in milliseconds
        from .resident import ask

        answer = ask(root, args.config, asked)
    if answer is None:
        answer = _search_here(root, args, asked)
    if args.json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
        return 0
    if "budget" in answer and not answer["no_good_match"]:
        print(printable_block(answer["agent_text"]))
        return 0
    _print_answer(answer, args)
    return 0


def printable_block(text: str) -> str:
    """`printable` line by line: control characters shown, line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _search_here(root: Path, args, asked: dict) -> dict:
    """`asked` searched in this process, with searchers opened for it and closed after."""
    from .search.pool import Searchers, search_as_asked

    searchers = Searchers()
    try:
        return search_as_asked(root, _config(args, root), searchers, asked, embedder_name=args.embedder)
    finally:
        searchers.close()


def _print_answer(answer: dict, args) -> None:
    fresh = answer["freshness"]
    if fresh["changed_since"] or fresh["state"] != "complete":
        _warn(f"the index is not up to date ({plural(fresh['changed_since'], 'file')} changed since "
              f"{fresh['last_indexed_at']}): run `tachikoma index`")
    vectors = vectors_text(fresh.get("embedded"))
    if vectors and fresh["embedded"]["full"] < fresh["embedded"]["chunks"]:
        _warn(f"{vectors}: the rest are searched by quick vectors or keywords until `tachikoma index` finishes")
    if answer["no_good_match"]:
        import shlex

        print(f"no good match: {no_match_reason(answer)}")
        if answer["min_score"] > 0:
            print(f"to see the nearest passages anyway, search without the floor: tachikoma search --min-score 0 "
                  f"{printable(shlex.quote(answer['query']))}")
    from .search.explain import sentence

    for n, r in enumerate(answer["results"], 1):
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


def _memory_files(root: Path, files: list[str]) -> frozenset[str]:
    """`tag FILE...`: each file as a path in the memory, whether given from the memory's top or from the
    current folder (``memory/notes/a.md``); TachikomaError for one that is no memory file there."""
    from . import memory

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
        wanted.add(full.resolve().relative_to(top).as_posix())
    return frozenset(wanted)


def cmd_tag(args) -> int:
    from .tagging import applying, model, planning, recovery
    from .tags import InvalidTagValue

    root = _root(args)
    values = {k: getattr(args, k) for k in ("trust", "confidence", "source") if getattr(args, k)}
    if args.evergreen is not None:
        values["evergreen"] = "true" if args.evergreen else "false"
    has_selector = args.files or args.kind or args.path or args.untagged or args.since or args.until or args.all
    if has_selector and not values:
        _usage_error(args, "say what to set: --trust, --confidence, --source and/or --[no-]evergreen")
    if values and not has_selector:
        _usage_error(args, "say which files: FILE..., --kind, --path, --untagged, --since/--until, or --all")
    paths = _memory_files(root, args.files) if args.files else None
    recovered = None if args.dry_run else recovery.recover(root)
    if recovered is not None and not args.json:
        _report_recovered(recovered)
    try:
        if not values:
            plan = planning.default_plan(root, max_bytes=_config(args, root).max_file_bytes)
        else:
            selector = model.Selector(kind=args.kind, pattern=args.path, untagged_only=args.untagged,
                                      modified_since=args.since, modified_until=args.until, paths=paths)
            plan = planning.plan(root, values, selector, overwrite=args.overwrite,
                                 max_bytes=_config(args, root).max_file_bytes)
    except InvalidTagValue as exc:
        raise TachikomaError(str(exc)) from None
    applied = None
    if not args.dry_run and plan.changes:
        applied = applying.apply(root, plan, commit=not args.no_commit)
        _refresh_index(root, args)
    # A selected note left untagged by a write failure, or tags left uncommitted, is not success:
    # a script or an agent must not read "tagged" from the exit status.
    status = 1 if applied and (applied.skipped or applied.commit_error) else 0
    if recovered is not None and recovered.commit_pending:
        status = 1  # an earlier run's files are still not committed
    if args.json:
        answer = _plan_json(plan, applied, args.dry_run)
        answer["recovered"] = None if recovered is None else {
            "paths": recovered.paths, "remembered": recovered.remembered, "commit": recovered.commit,
            "commit_error": recovered.commit_error, "commit_pending": recovered.commit_pending}
        print(json.dumps(answer, indent=2, ensure_ascii=False))
        return status
    for change in plan.changes:
        print(printable(f"{change.path}: {change.describe()}"))
    for kept in plan.kept:
        print(printable(f"{kept.path}: {kept.describe()} (--overwrite replaces it)"))
    for message in getattr(plan, "warnings", []):
        _warn(message)
    for path, reason in plan.skipped + (applied.skipped if applied else []):
        print(printable(f"skipped {path}: {reason}"), file=sys.stderr)
    if applied and applied.commit_error:
        _warn(f"files were tagged but not committed: {applied.commit_error}")
    if not plan.changes:
        print(_nothing_to_tag(plan))
    elif args.dry_run:
        print(f"dry run: {plural(len(plan.changes), 'file')} would change{_kept_text(plan)}; nothing written")
    else:
        commit = f", committed {applied.commit[:10]}" if applied and applied.commit else ""
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
        _warn(f"finished an earlier tagging run (interrupted, or its commit had failed): "
              f"{plural(len(recovered.changes), 'file')} it had written{commit}")
    if recovered.remembered:
        _warn(f"committed {plural(len(recovered.remembered), 'note')} an interrupted remember had written: "
              f"{', '.join(recovered.remembered)}")
    if recovered.commit_error:
        still = " (it is kept, and tried again by the next run)" if recovered.commit_pending else ""
        _warn(f"the earlier run was not committed{still}: {recovered.commit_error}")


def _plan_json(plan, applied, dry_run: bool) -> dict:
    changes = applied.changes if applied else plan.changes
    return {"dry_run": dry_run, "matched": plan.matched, "unchanged": plan.unchanged,
            "kept": [{"path": k.path, "kept": k.existing, "asked": k.asked} for k in plan.kept],
            "changes": [{"path": c.path, "kind": c.kind, "before": c.before, "after": c.after} for c in changes],
            "skipped": [{"path": p, "reason": r} for p, r in plan.skipped + (applied.skipped if applied else [])],
            "commit": applied.commit if applied else None,
            "commit_error": applied.commit_error if applied else None,
            "warnings": list(getattr(plan, "warnings", []))}


def _refresh_index(root: Path, args) -> None:
    """Carry new tags into an existing index (no re-embedding: chunk texts are unchanged)."""
    from .indexer import runner
    from .store import locate

    if not locate(root, _config(args, root)).exists():
        return
    try:
        runner.run(root, _config(args, root))
    except TachikomaError as exc:
        _warn(f"tags written, but the index was not refreshed ({exc}); run `tachikoma index`")


def cmd_remember(args) -> int:
    from . import notes
    from .surrogates import clean

    root = _root(args)
    text = sys.stdin.read() if args.text == "-" else args.text
    written = notes.remember(root, clean(text), args.title, args.folder,
                             {"trust": args.trust, "confidence": args.confidence, "source": args.source})
    done = {"path": written.path, "commit": written.commit, "commit_error": written.commit_error,
            "already_remembered": written.existing, "indexed": False}
    if not written.existing:
        from .indexer import runner

        try:
            done["index"] = runner.run(root, _config(args, root)).line()
            done["indexed"] = True
        except TachikomaError as exc:  # the note is written (and committed) all the same: say so
            done["index"] = f"not indexed: {exc}; run `tachikoma index`"
    if args.json:
        print(json.dumps(done, indent=2, ensure_ascii=False))
    else:
        said = "already remembered in" if written.existing else "remembered in"
        print(f"{said} {printable(written.path)}" + (f" (commit {written.commit[:12]})" if written.commit else ""))
        if written.commit_error:
            _warn(f"not committed: {written.commit_error}")
        if done.get("index") and not done["indexed"]:
            _warn(done["index"])
    return 1 if written.commit_error else 0


def cmd_stats(args) -> int:
    from . import stats

    root = _root(args)
    report = stats.report(root)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(stats.format_text(_printable_report(report)))
    index = report.get("index") or {}
    if index.get("state") in ("damaged", "unreadable"):  # the files are counted, but the index needs fixing
        print(f"tachikoma: {printable(index['note'])}", file=sys.stderr)
        return 1
    return 0


def _printable_report(report: dict) -> dict:
    """The report with file names and reasons escaped for a terminal (one line each)."""
    out = dict(report)
    if "by_folder" in out:
        out["by_folder"] = {printable(folder): bucket for folder, bucket in out["by_folder"].items()}
    for key in ("invalid_values", "problems"):
        if key in out:
            out[key] = [{k: printable(v) if isinstance(v, str) and k != "value" else v for k, v in item.items()}
                        for item in out[key]]
    return out


def cmd_serve(args) -> int:
    root = _root(args)
    mcp = args.mcp or args.mcp_read_only or args.mcp_allow_owner_trust
    from .web.access import is_loopback

    access = _serve_access(root, args)
    if access is None and not is_loopback(args.host):  # refused before anything else is said
        raise TachikomaError(f"serving on {args.host} needs authentication, since the dashboard"
                             f"{' and MCP read and write' if mcp else ' reads and writes'} your memory: give tokens "
                             "(--tokens-file, [serve] tokens_file or $TACHIKOMA_TOKEN) or a trusted reverse proxy "
                             "(--trusted-proxy), see docs/team.md; or serve on 127.0.0.1")
    if access is not None and args.host in ("0.0.0.0", "::", "") and not access.public_url:
        print(f"warning: serving on {args.host} without --public-url: only requests to 127.0.0.1 or localhost are "
              "answered (the Host check refuses other names with 421); give the address people open, e.g. "
              "--public-url https://memory.example.org", file=sys.stderr)
    try:
        from app import create_app

        from .web import serving
    except ImportError as exc:
        raise TachikomaError(f"the dashboard is not available ({exc})") from None
    serving.quiet_logging()  # before the watcher's first index run, which says so
    app = create_app(memory=root, config=args.config, host=args.host, port=args.port, watch=not args.no_watch,
                     access=access)
    app.extensions["tachikoma"].host_searches()  # `tachikoma search` asks this process first
    try:
        if mcp:
            _serve_with_mcp(app, root, args, serving)
        else:
            serving.serve_dashboard(app, args.host, args.port)
    finally:
        app.extensions["tachikoma"].close()  # its watcher, searchers and store connections
    return 0


def _serve_with_mcp(app, root: Path, args, serving) -> None:
    """The dashboard and MCP's streamable HTTP transport on one address, served by uvicorn."""
    from .mcp_server import dashboard_with_mcp

    both, tools = dashboard_with_mcp(app, root, args.port, args.config, read_only=args.mcp_read_only,
                                     live=app.extensions["tachikoma"].live,
                                     allow_owner_trust=args.mcp_allow_owner_trust,
                                     access=app.config["TACHIKOMA_ACCESS"], host=args.host)
    address = serving.url(args.host, args.port)
    print(f"dashboard on {address}/ and MCP (streamable HTTP) on {address}/mcp {serving.access_note(app)}"
          "(Ctrl-C to stop)",
          file=sys.stderr, flush=True)
    try:
        serving.serve_asgi(both, args.host, args.port)
    finally:
        tools.close()


def _serve_access(root: Path, args):
    """Who may use the server (`tachikoma.web.access`), or None: nobody is asked, localhost only."""
    from .config import load_config
    from .web.access import load_access

    return load_access(root, load_config(root, args.config).serve, tokens_file=args.tokens_file,
                       trusted_proxies=tuple(args.trusted_proxy or ()), public_url=args.public_url)


def cmd_mcp(args) -> int:
    root = _root(args)
    try:
        from .mcp_server import run_stdio
    except ImportError as exc:
        raise TachikomaError(f"the MCP server is not available ({exc}); install the `mcp` package") from None
    run_stdio(root, args.config, read_only=args.read_only, watch=not args.no_watch,
              allow_owner_trust=args.allow_owner_trust)
    return 0


def cmd_eval(args) -> int:
    from .embedders import offline_default

    args.embedder = args.embedder or offline_default()  # named in every report and its command line
    if args.benchmark == "abstention":
        return _eval_abstention(args)
    if args.benchmark == "recency":
        return _eval_recency(args)
    if args.benchmark == "longmemeval":
        return _eval_longmemeval(args)
    if args.benchmark == "everyday":
        return _eval_everyday(args)
    if args.benchmark == "budget":
        return _eval_budget(args)
    from .evaluation import locomo

    config = _config(args, Path(".")) if args.config else None
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
    print(locomo.terminal(report))
    if args.out:
        for written in locomo.write_report(report, args.out):
            print(f"wrote {written}", file=sys.stderr)
    return 0


def _eval_longmemeval(args) -> int:
    from .evaluation import longmemeval

    if args.limit is not None and args.limit < 1:
        raise TachikomaError("--limit must be at least 1")
    config = _config(args, Path(".")) if args.config else None
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "longmemeval", str(args.path),
                                                                   "--embedder", args.embedder]
    argv += [f"--limit {args.limit}"] if args.limit else []
    report = longmemeval.evaluate(args.path, args.embedder, args.limit, config, work=args.work,
                                  cache=args.vector_cache, progress=not args.quiet, argv=argv)
    print(longmemeval.terminal(report))
    if args.out:
        for written in longmemeval.write_report(report, args.out):
            print(f"wrote {written}", file=sys.stderr)
    return 0


def _eval_everyday(args) -> int:
    from .evaluation import everyday

    config = _config(args, Path(".")) if args.config else None
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "everyday", *map(str, args.sets),
                                                                   "--embedder", args.embedder]
    argv += [f"--split {args.split}"] if args.split != "all" else []
    report = everyday.evaluate(args.sets or None, args.embedder, config, split=args.split, argv=argv,
                               progress=not args.quiet)
    print(everyday.terminal(report))
    if args.out:
        for written in everyday.write_report(report, args.out):
            print(f"wrote {written}", file=sys.stderr)
    return 0


def _eval_budget(args) -> int:
    from .budget import FALLOFF
    from .evaluation import recall_budget

    config = _config(args, Path(".")) if args.config else None
    falloffs = (FALLOFF, *[f for f in args.falloffs or () if f != FALLOFF])
    argv = ([f"--config {args.config}"] if args.config else []) + ["eval", "budget", str(args.path),
                                                                   "--embedder", args.embedder]
    argv += [f"--limit {args.limit}"] if args.limit else []
    argv += ["--budgets " + ",".join(map(str, args.budgets))]
    argv += ["--falloffs " + ",".join(f"{f:g}" for f in args.falloffs)] if args.falloffs else []
    report = recall_budget.evaluate(args.path, args.embedder, args.limit, config, work=args.work,
                                    cache=args.vector_cache, budgets=args.budgets, falloffs=falloffs,
                                    progress=not args.quiet, argv=argv)
    print(recall_budget.markdown(report))
    if args.out:
        for written in recall_budget.write_report(report, args.out):
            print(f"wrote {written}", file=sys.stderr)
    return 0


def _eval_recency(args) -> int:
    from .evaluation import recency

    config = _config(args, Path(".")) if args.config else None
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


def _eval_abstention(args) -> int:
    from .evaluation import abstention, locomo

    config = _config(args, Path(".")) if args.config else None
    only = locomo.parse_selection(args.conversations) if args.conversations else None
    result = abstention.measure(args.path, args.embedder, args.limit_conversations, config, work=args.work,
                                progress=not args.quiet, max_cost=args.max_cost, only=only)
    print(abstention.terminal(result))
    if args.out:
        for written in abstention.write_report(result, args.out):
            print(f"wrote {written}", file=sys.stderr)
    return 0


COMMANDS = {"index": cmd_index, "search": cmd_search, "tag": cmd_tag, "stats": cmd_stats, "serve": cmd_serve,
            "mcp": cmd_mcp, "eval": cmd_eval, "remember": cmd_remember}

if __name__ == "__main__":
    sys.exit(main())
