"""The command line's parser: every command, its options, and the argparse types that check them
before a command runs. Kept apart from the commands, so that parsing imports none of them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import __version__
from ..vocabulary import (BUDGET_RESULTS, DEFAULT_LIMIT, DEFAULTS_TEXT, MAX_BUDGET, MAX_LIMIT, MAX_PATTERN_CHARS,
                          RECENCY_NAMES, whole_number)


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
    return _whole(1, MAX_LIMIT)(text)


def _fraction(text: str) -> float:
    """A --min-score for argparse: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:  # also NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 0 to 1")
    return value


def _as_of(text: str) -> str:
    """An --as-of for argparse: checked as the search reads it (`timeq.parse_as_of`), kept as typed ("now" is
    the moment of the search)."""
    from ..when.timeq import parse_as_of

    try:
        parse_as_of(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("as_of ")) from None
    return text


EVAL_EMBEDDER_HELP = ("minilm-int8 (the default; minilm where onnxruntime is missing), minilm (exact), "
                      "e5-small (multilingual), ollama[:<model>] or hash")
#: The `--out` of the evaluations that write a report of each question, and their LongMemEval file.
REPORT_HELP = "write report.md, report.json and per_question.jsonl here"
LONGMEMEVAL_HELP = "longmemeval_s.json or .json.gz (the official format)"


def _whole(least: int, most: int | None = None):
    """An argparse type: a whole number of at least `least` (and at most `most`)."""

    def check(text: str) -> int:
        value = whole_number(text)  # plain digits: not "5_0", a full-width "５", " 5" or "+5"
        if value is None or value < least or (most is not None and value > most):
            span = f"from {least:,} to {most:,}" if most is not None else f"of {least:,} or more"
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number {span}")
        return value

    return check


def _cases(text: str) -> int:
    """`eval recency --cases` for argparse: from 1 to what the generator can make."""
    from ..evaluation.recency import MAX_CASES  # imported only when the option is given

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
        from ..reading.tags import InvalidTagValue, check_value

        try:
            return check_value(key, text)
        except InvalidTagValue as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return check


def _search_trust(text: str) -> str:
    """A --trust filter for search, checked like tag's: a trust value or 'missing' (untagged trust)."""
    from ..reading.tags import InvalidTagValue, check_value

    value = text.strip().lower()
    if value == "missing":
        return value
    try:
        return check_value("trust", value)
    except InvalidTagValue as exc:
        raise argparse.ArgumentTypeError(f"{exc} or missing") from None


def _search_path(text: str) -> str:
    """A --path of search: a folder or a glob (`globs.scope_error`)."""
    from ..globs import scope_error

    if error := scope_error([text]):
        raise argparse.ArgumentTypeError(error.removeprefix("path: "))
    return text


def _tag_path(text: str) -> str:
    """A --path of tag: a folder or a glob (`globs.pattern_error`, as the selector on every face checks it), neither
    empty nor the whole memory folder, which only --all tags."""
    from ..globs import pattern_error

    if not text.strip():
        raise argparse.ArgumentTypeError("an empty --path names no folder or glob (every file is --all)")
    if error := pattern_error(text, whole_memory=False):
        raise argparse.ArgumentTypeError(error + ("" if pattern_error(text) else " (every file is --all)"))
    return text


def _search_source(text: str) -> str:
    """A --source filter for search (`tags.source_filter`): a source as tag writes it, or 'missing' (no source)."""
    from ..reading.tags import InvalidTagValue, source_filter

    try:
        return source_filter(text)
    except InvalidTagValue as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
                                   "nothing; removed files leave the index, and so do the files [index] exclude in "
                                   "tachikoma.toml leaves out and a Logseq graph's copies of pages in logseq/bak/ "
                                   "(\"N excluded\"). Safe to interrupt: the next run finishes.")
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
                                   "× time × asked × agents_words × duplicate_penalty (at most two chunks per "
                                   "file; the second × 0.8). time is 1.0 unless the query names one (\"last "
                                   "week\", \"in March\", \"on 2026-03-22\"): then memories from that time rank "
                                   "first; or asks what is coming (\"when is my next …\"): then passages naming a "
                                   "day still to come rank first. asked is 1.0 unless the question asks for a "
                                   "kind of thing (a phone number, a time of day): then a passage without one "
                                   "× 0.7. agents_words is 1.0 unless an English question is about its asker "
                                   "(\"what did I …\"): then a transcript passage of the agent's turns alone "
                                   "× 0.85. docs/ranking.md has the rest.")
    p.add_argument("query", nargs="+", help="what to look for")
    p.add_argument("--memories", metavar="A,B", type=_names, default=None,
                   help="on a shared store (PostgreSQL): search these memories (by name) together; every "
                        "result names its memory (default: this memory only)")
    p.add_argument("--limit", "-n", type=_limit, default=DEFAULT_LIMIT, metavar="N",
                   help=f"how many results, 1-{MAX_LIMIT} (default {DEFAULT_LIMIT})")
    p.add_argument("--json", action="store_true", help="print results and their explanations as JSON (compact "
                   "unless printed on a terminal); with --budget, the passages as an agent is given them")
    p.add_argument("--agent-text", action="store_true", help="with --budget and --json: add the block --budget "
                   "prints alone (agent_text), which holds the passages a second time (the whole held to the "
                   "budget)")
    p.add_argument("--budget", type=_whole(1, MAX_BUDGET), metavar="N", default=None,
                   help="the best evidence within N tokens (counted offline) instead of whole results: passages "
                        "trimmed around what matched, none twice, cut where the scores fall off; at least "
                        f"{BUDGET_RESULTS} results are ranked to choose from (at most {MAX_BUDGET:,}); held to "
                        "as printed: the block, or with --json the JSON, its fields counted")
    p.add_argument("--fresh-only", action="store_true",
                   help="leave out stale memories: those naming files of a git repository that changed in a "
                        "commit since the memory's date")
    p.add_argument("--kind", choices=["markdown", "transcript"], help="only this kind of file")
    p.add_argument("--trust", type=_search_trust, metavar="VALUE",
                   help="only files with this trust: owner, self, external, untrusted or missing")
    p.add_argument("--untagged", action="store_true", help="only files with neither trust nor confidence")
    p.add_argument("--path", metavar="PATTERN", action="append", type=_search_path,
                   help="only files in a folder ('projects/lintel/') or matching a glob ('**/*meeting*.md', "
                        "'2026-1*/': the folders that match), as tag --path reads them; repeat it for several (a "
                        "file matching any)")
    p.add_argument("--source", type=_search_source, metavar="NAME",
                   help="only files with this source tag (claude-code, openclaw, …), or missing (none)")
    p.add_argument("--embedder", metavar="NAME", help="must match the index's embedder")
    p.add_argument("--min-score", type=_fraction, metavar="X",
                   help="relevance floor, 0-1, one decision for the whole answer: when no passage reaches it "
                        "in meaning similarity (cosine of the embeddings) and none holds most of the query's "
                        "words, the answer is 'no good match'; otherwise it never removes a single result "
                        "(default: [search] min_score, else 0.44 for minilm; 0 = off)")
    p.add_argument("--recency", choices=RECENCY_NAMES, type=str.lower,
                   help="how much a memory's age counts: off; default (age costs at most 10%%, and a memory "
                        "that a newer one supersedes loses half); strong (down to half at 90 days); seed "
                        "(the original 1 / (1 + days / 30)). Default: [ranking] recency")
    p.add_argument("--as-of", type=_as_of, metavar="DATE", default=None,
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
                                   "never tagged, nor a file [index] exclude leaves out (one named by its path "
                                   "is skipped, and so is a --path folder or glob matching no other). Markdown is "
                                   "never tagged by default. Existing values are kept "
                                   "unless --overwrite (each file keeping a different value of its own is "
                                   "listed). Markdown gets front matter; transcripts get entries in "
                                   "tachikoma-tags.yaml. In a git repository the change is committed. Exits 0 "
                                   "when the selected files end up tagged, including when nothing had to change "
                                   "(the last line says whether no file matched, or the matches already had the "
                                   "values or kept their own); 1 on an error, and when a selected file is "
                                   "skipped, not tagged (binary, too large, malformed front matter, not "
                                   "writable, excluded; a .jsonl data file does not count) or a --path matches only excluded "
                                   "files, also with --dry-run; 2 for a "
                                   "mistyped command line.")
    p.add_argument("files", nargs="*", metavar="FILE", help="select these files (paths in the memory, or from "
                   "here into it): `tachikoma tag notes/a.md 2026-03-22/s.jsonl --confidence medium`")
    p.add_argument("--kind", choices=["markdown", "transcript"], help="select files of this kind")
    p.add_argument("--path", metavar="PATTERN", action="append", type=_tag_path,
                   help="select a folder ('2026-03/') or a glob ('**/*meeting*.md', '2026-1*/': the folders that "
                        f"match), at most {MAX_PATTERN_CHARS:,} characters; repeat it for several (a file matching "
                        "any)")
    p.add_argument("--untagged", action="store_true", help="select only files with no trust, confidence or source "
                   "tag at all (a note's own topic tags do not count)")
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
    p.add_argument("--confidence", type=_tag_value("confidence"), default="medium",
                   help="how sure it is: high, medium (the default), low or speculative")
    p.add_argument("--source", type=_tag_value("source"), help="free text: where the memory came from")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")

    p = sub.add_parser("stats", parents=[common],
                       help="tag coverage: tagged, partly tagged, untagged and invalid files",
                       description="Counts come from the files themselves (the source of truth), less those "
                                   "[index] exclude leaves out (said, one line per folder). Exit status: 0, "
                                   "or 1 when the index is damaged or unreadable (the files are counted all the same).")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("serve", parents=[common], help="start the web dashboard",
                       description="Serve the dashboard. Binds to 127.0.0.1 unless told otherwise; it can "
                                   "rewrite memory files, so think twice before exposing it.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=5000, help="port, 1-65535 (default 5000)")
    p.add_argument("--no-watch", action="store_true", help="do not watch the memory folder (re-index by hand)")
    p.add_argument("--mcp", action="store_true",
                   help="also serve MCP over streamable HTTP at /mcp, beside the dashboard (a --host other than "
                        "this machine's loopback needs --tokens-file or --trusted-proxy, as the dashboard does)")
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
    b.add_argument("--out", type=Path, metavar="DIR", help=REPORT_HELP)
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
    b.add_argument("path", type=Path, help=LONGMEMEVAL_HELP)
    b.add_argument("--embedder", metavar="NAME", help=EVAL_EMBEDDER_HELP)
    b.add_argument("--limit", type=int, metavar="N", help="only N questions, a stratified subset (every type in "
                                                          "its share; a smaller N is a prefix of a larger one)")
    b.add_argument("--vector-cache", type=Path, metavar="FILE",
                   help="document vectors shared across questions and runs (default: "
                        "$XDG_CACHE_HOME/tachikoma/eval-vectors.sqlite)")
    b.add_argument("--work", type=Path, metavar="DIR", help="keep each question's memory folder and index here "
                                                          "(default: a temporary folder)")
    b.add_argument("--out", type=Path, metavar="DIR", help=REPORT_HELP)
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
    b.add_argument("--embedder", metavar="NAME",
                   help="auto (the default: each memory's own choice, as its first index makes it: minilm-int8, "
                        "or e5-small for a memory mostly not English where muse is not installed), " + EVAL_EMBEDDER_HELP.replace(
                            "minilm-int8 (the default; minilm where onnxruntime is missing)", "minilm-int8"))
    b.add_argument("--split", choices=("dev", "held", "all"), default="all",
                   help="only the questions of this split (default all)")
    b.add_argument("--vector-cache", type=Path, metavar="FILE",
                   help="keep document vectors in this SQLite file and take them from it on the next run "
                        "(default: none, every run embeds)")
    b.add_argument("--out", type=Path, metavar="DIR", help=REPORT_HELP)
    b.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    b = bench.add_parser("budget", parents=[common],
                         help="LongMemEval: answer turns inside the text returned within a token budget",
                         description="Each answerable LongMemEval question is asked of its own memory (as "
                                     "'eval longmemeval' builds it); the answer is cut to each budget by "
                                     "search --budget and, as a baseline, by taking the top chunks until the "
                                     "budget is spent. Reports the share of the labelled answer turns inside "
                                     "the returned text and the tokens used.")
    b.add_argument("path", type=Path, help=LONGMEMEVAL_HELP)
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

