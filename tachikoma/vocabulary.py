"""What every face allows and says, in a module that imports nothing.

The command line builds its parser from these before it imports anything
heavy: a search that a running tachikoma answers (`resident`) must not pay
for the settings' dataclasses and TOML parser first.
"""

#: The most results one search returns, the same on every face: CLI `--limit`, the search page,
#: the JSON API and MCP. Past it, a narrower query or a filter helps more than a longer list.
MAX_LIMIT = 100
#: How many results a search returns when it is not told (every face; MCP's `search` without a limit answers within
#: a token budget instead: `[mcp] budget_tokens`).
DEFAULT_LIMIT = 10
#: The longest query, in characters, that every face takes (the command line, the dashboard, its JSON API and
#: MCP): a question is a sentence or two; past this it is a document pasted by mistake (or an attempt to keep the
#: server busy).
MAX_QUERY_CHARS = 2000
#: The longest `source` tag any face writes (it goes into the file's front matter or the tag file, and into the
#: commit subject) or searches by: a name or a link, not a paragraph.
MAX_SOURCE_CHARS = 200
#: The most folders or globs one search is kept to (`search --path`, ``path`` on the other faces; `globs.scope_error`).
MAX_SCOPE_PATTERNS = 20
#: The longest folder or glob any face takes, in characters (`tag --path`, `search --path`, ``path`` on the other
#: faces, the dashboard's tag form, ``[index] exclude``, ``[ranking] evergreen``; `globs.pattern_error`): the
#: longest path a file system has (PATH_MAX).
MAX_PATTERN_CHARS = 4096
#: The largest token budget a search takes (`--budget`, ``budget_tokens``), and how many results a
#: search with a budget ranks at least, to choose its passages from (`recall.within_budget`).
MAX_BUDGET = 100_000
BUDGET_RESULTS = 30
#: The token budget of MCP's `search` asked with neither `limit` nor `budget_tokens` (`[mcp] budget_tokens`; 0: whole
#: results). Ten whole results cost an agent about 1,500 tokens on the example memory; on LongMemEval a budget of
#: 1,000 held more of the answer turns (0.608) than the ranking's first chunks filling 2,000 tokens (0.519), using
#: 766 tokens on average (docs/agents.md, docs/evaluation.md).
MCP_BUDGET = 1000
#: The most tokens one MCP `read` answer holds (`[mcp] read_tokens`, 0: no cap; `replies.read_cap`): a larger one is
#: refused, naming the lines that fit. A model's context is a few hundred thousand tokens at most.
MCP_READ_TOKENS = 25_000


def query_too_long(query: str) -> str | None:
    """Why a query is refused for its length (`MAX_QUERY_CHARS`), in the words every face uses, or None."""
    if len(query) <= MAX_QUERY_CHARS:
        return None
    return f"the query is {len(query):,} characters long; the limit is {MAX_QUERY_CHARS:,}: ask in fewer words"


def whole_number(text: str) -> int | None:
    """A count typed as text (the command line's --limit and --budget, the JSON API's limit and budget_tokens): plain
    ASCII digits only, else None. Python's int() also reads "5_0" as 50, a full-width "５" or an Arabic-Indic "٥" as
    5, and " 5" and "+5"; a count typed so is a mistake to say, not to guess."""
    return int(text) if text.isascii() and text.isdigit() else None


#: The recency presets' names, in order (`config.RECENCY_PRESETS` holds their rules).
RECENCY_NAMES = ("off", "default", "strong", "seed")
#: What tagging with no options does (`tagging.planning.default_plan`), in the words every face uses: the CLI's
#: help and the dashboard's "Use the defaults". Plain text, so the command line need not import the
#: readers; a test holds it to their sources.
DEFAULTS_TEXT = ("transcripts without tags get trust: self, confidence: medium and as source the agent that "
                 "wrote them (claude-code, openclaw, codex; tachikoma for a generic transcript)")
