"""Settings read at query time from ``tachikoma.toml`` in the memory root.

Every ranking weight lives here, so tuning never needs a re-index. A missing
file means the defaults below; a malformed file or an unknown value is a
clear error naming the file.

Example ``tachikoma.toml``::

    [ranking]
    recency = "default"          # off, default, strong or seed (see "Recency" below)
    # half_life_days = 365       # overrides the preset's half-life
    # recency_floor = 0.9        # overrides the preset's floor
    evergreen = ["identity.md", "MEMORY.md", "USER.md", "SOUL.md", "AGENTS.md", "CLAUDE.md"]
    per_file = 2                 # at most this many chunks of one file
    repeat_penalty = 0.8         # the 2nd chunk of a file scores × 0.8
    agents_words = 0.85          # a question about yourself ("what did I …"): a transcript passage with only
                                 # the agent's turns, none of yours, scores × 0.85; 1 = off

    [ranking.trust]
    owner = 1.0
    self = 0.9
    external = 0.7
    untrusted = 0.5
    missing = 0.6

    [ranking.confidence]
    high = 1.0
    medium = 0.9
    low = 0.7
    speculative = 0.5
    missing = 0.7

    [search]
    keyword_weight = 0.4         # share of keyword (BM25) relevance in similarity; 0 = vector only
    counting_keyword_weight = 0.2  # the same for a question that counts or totals ("how many", "in total")
    feedback_files = 3           # a question that gathers ("how many", "in total") is read again with the best
                                 # passages of the files it matched best; 0 = off
    fusion = "convex"            # "convex" or "rrf" (reciprocal rank fusion)
    keyword_candidates = 200     # how many best keyword matches are scored
    rrf_k = 60                   # RRF's rank offset (fusion = "rrf" only)
    min_score = 0.44             # relevance floor on vector similarity (default: measured per embedder)
    time_reading = true          # read the time a query asks about ("last week", "in March") and favour it
    named_parts = true           # "which came first: A, B or C?": A, B and C are searched on their own too

    [embedder]
    name = "auto"                # auto, minilm-int8, minilm, ollama, ollama:<model>, hash
    multilingual = "auto"        # an English-only embedder's index reads its passages not in English with muse
                                 # (multilingual USE) too, and every passage when a tenth are not English;
                                 # "all", "passages", "off"

    [mcp]
    budget_tokens = 1000         # MCP search with neither limit nor budget_tokens: the best evidence within this
                                 # many tokens; 0 = whole results (limit 10)
    read_tokens = 25000          # the most tokens one MCP read answer holds (larger: refused, naming the lines that
                                 # fit); 0 = no cap

    [index]
    max_file_bytes = 5000000     # larger files are skipped with a warning
    exclude = []                 # folders and files left out of the memory, relative to it: ["Templates/",
                                 # "Archive/**", "**/drafts/*.md"] (`memory.Exclusion`)

    [transcripts]
    tool_errors = false          # true: a failed tool call's line ends with its first error line
    tool_text = true             # what tool calls were given and gave back is searched by keyword (never embedded)

    [privacy]
    redact_secrets = true        # keys, tokens and passwords in memory are indexed and shown as "[secret: AWS key]"
                                 # (docs/privacy.md); false: as written. Changing it re-reads every file

    [git]
    hook_timeout = 300           # seconds a commit hook may take before it is stopped (the commit is then refused)

Recency (``[ranking] recency``)
    recency = floor + (1 − floor) / (1 + age_days / half_life_days), from each
    chunk's own date (`tachikoma.reading.dates`), × `superseded` when a newer chunk
    supersedes it (a knowledge update: another file, more than a day newer,
    embeddings at least 0.6 alike, 0.9 between two transcript chunks, and at
    least 0.75 of its similarity to the query). Evergreen memories (front
    matter ``evergreen: true``, or a path matching a glob of ``evergreen``; a
    glob without "/" matches the file name in any folder, ignoring case)
    always get 1.0.

    ========  ==========  =====  ==========
    preset    half-life   floor  superseded
    ========  ==========  =====  ==========
    off       (1.0 for every memory)
    default   365 days    0.9    × 0.5
    strong    90 days     0.5    × 0.5
    seed      30 days     0      never: exactly 1 / (1 + days / 30)
    ========  ==========  =====  ==========

    The seed's days are days since the file's modification (its last content
    commit, else its file time: `Recency.modified`); the others count from the
    memory's own date (a transcript's turns, front matter, a dated path, ...).

    Why this default (docs/evaluation.md): on LoCoMo conversations 0-4 (where
    the answer is as often a year old as a week) any age curve below a floor
    of about 0.7 costs recall (the seed's curve: session R@5 0.524 against
    0.915 without recency), while a floor of 0.9 costs nothing (0.917 /
    nDCG@5 0.852, BM25 0.904 / 0.829). Age alone then cannot make a newer
    fact win over its older version when the older is worded closer to the
    question (knowledge updates: 0.49 at floor 0.9), and no age curve can do
    both: the seed's curve puts the newer fact first in 0.92 of cases but the
    one old answer first in 0.02. Supersession decides updates by what the
    memories say, not by age alone: knowledge updates 0.93, old exact match
    0.94 with the default (targets 0.95).

Hybrid relevance (``[search]``)
    The ``similarity`` factor of a score is a fusion of two relevances of the
    chunk to the query: the embedding's cosine similarity (clipped to 0..1)
    and a keyword score, SQLite FTS5's BM25 over the same chunks, divided by
    the best BM25 of the query so that the best keyword match scores 1 (less when
    an English query has words found nowhere in the memory: `ranking.keyword_relevance`).

    convex (default)
        similarity = (1 − w) × vector + w × keyword, with w = keyword_weight.
    rrf
        similarity = (c + 1) × ((1 − w) / (c + rank_vector) + w / (c + rank_keyword)),
        ranks counted from 1 among the top `keyword_candidates` of each list
        (a chunk outside a list gets nothing from it), c = rrf_k; the factor
        c + 1 makes a chunk first in both lists score 1.

    The rest of the formula is unchanged on top of it:
    score = similarity × trust_weight × confidence_weight × recency × time × duplicate_penalty,
    where time is 1.0 unless the query names a time (``time_reading``, `timeq`).

    The relevance floor ``min_score`` decides for the whole answer
    (`ranking.match_evidence`), never per chunk: the answer has a match when
    some chunk's vector cosine (how close its meaning is to the query, not
    the weighted score) reaches it, or when a chunk holds most of the query's
    words weighted by rarity (`search.scoring.KEYWORD_FLOOR`), since an identifier
    ("88-1234") means little to an embedder. The relative keyword score (the
    best keyword match of any query scores 1) is left out. Otherwise the
    answer says ``no_good_match`` (one passage reaching both weaker floors,
    `search.scoring.PAIR_MARGIN`, is a match too). Unset, the floor is the one
    measured for the embedder (0.44 for MiniLM, `tachikoma eval abstention`,
    docs/evaluation.md; none for the others); 0 turns it off.

    Why convex with w = 0.4: measured on LoCoMo-10 with the offline MiniLM
    embedder (`tachikoma eval locomo ... --sweep`, docs/evaluation.md), without
    recency, session-level R@5 / nDCG@5 were 0.736 / 0.617 for the vector
    alone, 0.888 / 0.821 for BM25 alone, and for convex fusion 0.846 / 0.754
    at w = 0.1, 0.903 / 0.838 at 0.3, 0.905 / 0.842 at 0.4, 0.906 / 0.840 at
    0.5 and 0.894 / 0.825 at 0.9; RRF (k = 60) reached 0.892 / 0.803 at its
    best (w = 0.7). The curve is flat between 0.3 and 0.6, and 0.4 was picked
    before the chunks shrank to 80 words, when it was also within 0.003 of
    the best R@5 on each half of the conversations taken alone. Convex fusion
    keeps the cosine's absolute level (a weak vector match stays weak),
    where RRF keeps ranks only. The weight was chosen on the same data it is
    reported on.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from .errors import EmbedderError, TachikomaError
from .globs import InvalidPattern, path_matcher, pattern_error
from .memory import CONFIG_FILE, NO_EXCLUSION, Exclusion
from .reading.tags import CONFIDENCE_VALUES, TRUST_VALUES
from .vocabulary import MAX_BUDGET, MCP_BUDGET, MCP_READ_TOKENS



def _trust_defaults() -> dict[str, float]:
    return {"owner": 1.0, "self": 0.9, "external": 0.7, "untrusted": 0.5, "missing": 0.6}


def _confidence_defaults() -> dict[str, float]:
    return {"high": 1.0, "medium": 0.9, "low": 0.7, "speculative": 0.5, "missing": 0.7}


@dataclass(frozen=True)
class Recency:
    """A recency rule: recency = floor + (1 − floor) / (1 + age_days / half_life_days), × `superseded`
    for a chunk a newer one supersedes (a knowledge update, `ranking.supersessions`).

    `half_life_days` None is no recency at all (every memory 1.0).
    """

    half_life_days: float | None
    floor: float = 0.0
    superseded: float = 1.0  # 1.0: nothing is ever superseded
    #: Age from the file's last modification (its last content commit, else its file time) instead of
    #: the memory's own date: the seed's rule is 1 / (1 + days_since_modification / 30).
    modified: bool = False


#: The named recency rules (`[ranking] recency`, CLI/API `recency=`). "seed" is the original rule,
#: exactly 1 / (1 + days / 30). "default" was chosen by measurement (docs/evaluation.md): age alone
#: costs at most 10% (a tie-breaker that never buries a strong match), and a memory that a newer one
#: supersedes loses half. "strong" is for "what is the state now" work: down to half with age.
RECENCY_PRESETS = {
    "off": Recency(None),
    "default": Recency(365.0, floor=0.9, superseded=0.5),
    "strong": Recency(90.0, floor=0.5, superseded=0.5),
    "seed": Recency(30.0, modified=True),
}
#: Files whose recency is always 1.0: standing facts about the agent and its user. A glob without
#: "/" matches the file name in any folder; matching ignores case.
DEFAULT_EVERGREEN = ("identity.md", "MEMORY.md", "USER.md", "SOUL.md", "AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class RankingConfig:
    trust: dict[str, float] = field(default_factory=_trust_defaults)
    confidence: dict[str, float] = field(default_factory=_confidence_defaults)
    recency: str = "default"  # a name in RECENCY_PRESETS
    half_life_days: float | None = None  # overrides the preset's half-life (every kind)
    recency_floor: float | None = None  # overrides the preset's floor
    evergreen: tuple[str, ...] = DEFAULT_EVERGREEN
    per_file: int = 2
    repeat_penalty: float = 0.8
    agents_words: float = 0.85  # `search.voice`: the agent's turns alone, for a question about the asker

    @property
    def rule(self) -> Recency:
        """The recency rule in force: the preset with this config's overrides."""
        preset = RECENCY_PRESETS[self.recency]
        if preset.half_life_days is None:
            return preset
        if self.half_life_days is not None:
            preset = replace(preset, half_life_days=self.half_life_days)
        if self.recency_floor is not None:
            preset = replace(preset, floor=self.recency_floor)
        return preset

    def with_recency(self, name: str) -> "RankingConfig":
        """The same config with another recency preset (its overrides dropped); ValueError for an unknown name."""
        return replace(self, recency=check_recency(name), half_life_days=None, recency_floor=None)


def check_recency(name) -> str:
    if not isinstance(name, str) or name.strip().lower() not in RECENCY_PRESETS:
        raise ValueError(f"unknown recency {name!r}: use one of {', '.join(RECENCY_PRESETS)}")
    return name.strip().lower()


FUSION_METHODS = ("convex", "rrf")


@dataclass(frozen=True)
class SearchConfig:
    keyword_weight: float = 0.4
    #: The keyword weight of a question that counts or totals ("how many", "in total", `keywords.counts_in`):
    #: its evidence is spread over memories that say the same thing in other words (docs/evaluation.md).
    counting_keyword_weight: float = 0.2
    #: A question that gathers from several memories ("how many", "in total", `keywords.gathers_in`) is read
    #: again, its query vector widened by the best passage of this many of its best files
    #: (`scoring.FEEDBACK_WEIGHT`; docs/evaluation.md, "A question that gathers"); 0: not.
    feedback_files: int = 3
    fusion: str = "convex"
    keyword_candidates: int = 200
    rrf_k: float = 60.0
    min_score: float | None = None  # None: the embedder's measured floor (search.relevance_floor)
    time_reading: bool = True  # read the time a query asks about (`timeq`) and favour memories from then
    #: A question that names several things ("which came first: A, B or C") has each searched on its own too
    #: (`search.parts`; docs/evaluation.md, "A question that names several things").
    named_parts: bool = True


@dataclass(frozen=True)
class ServeConfig:
    """``[serve]``: who may use a shared dashboard or MCP over HTTP (`tachikoma.web.access`)."""

    tokens_file: str | None = None  # "name role token" lines; never inside the memory
    trusted_proxies: tuple[str, ...] = ()  # addresses or networks whose `user_header` is believed
    user_header: str = "X-Forwarded-User"
    public_url: str | None = None  # the address people open (its host passes the Host check)


@dataclass(frozen=True)
class StalenessConfig:
    """``[staleness]``: memories that name files of a git repository whose files changed in a commit since."""

    check: bool = True  # mark stale results (the explanation and ``stale`` in JSON and MCP)
    factor: float = 1.0  # a stale result's score × this (1.0: marked only, the ranking unchanged)
    code_roots: tuple[str, ...] = ()  # repositories a note's relative paths (src/x.py) may name


#: What ``[embedder] multilingual`` may say (`Config.multilingual`).
MULTILINGUAL_MODES = ("auto", "passages", "all", "off")


@dataclass(frozen=True)
class McpConfig:
    budget_tokens: int = MCP_BUDGET  # MCP `search` asked with neither limit nor budget_tokens; 0: whole results
    read_tokens: int = MCP_READ_TOKENS  # the most tokens one MCP `read` answer holds; 0: no cap


@dataclass(frozen=True)
class Config:
    ranking: RankingConfig = field(default_factory=RankingConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    embedder: str = "auto"
    #: ``[embedder] multilingual``: an index made with an embedder that reads English only (MiniLM) reads its
    #: passages not in English with a multilingual embedder too (`muse`, `indexer.pipeline.embed_multilingual`):
    #: "auto" (TOML true, the default: and every passage once a tenth are not in English), "passages", "all"
    #: (every passage: a question in another language reaches the English ones too) or "off" (false)
    multilingual: str = "auto"
    max_file_bytes: int = 5_000_000
    #: ``[index] exclude``: the files and folders left out of the memory (`memory.Exclusion`): not indexed,
    #: counted, read or tagged
    exclude: Exclusion = NO_EXCLUSION
    #: ``[transcripts] tool_errors``: a failing tool call's line gets the first error line of its output
    tool_errors: bool = False
    #: ``[store] url``: where the index lives; None: the SQLite file in ``.cache`` (`tachikoma.store`)
    store_url: str | None = None
    #: ``[store] name``: this memory's name in a shared store; None: the memory folder's name
    store_name: str | None = None
    serve: ServeConfig = field(default_factory=ServeConfig)
    #: ``[transcripts] tool_text``: keep tool calls' inputs and outputs for keyword search (`documents.ToolText`)
    tool_text: bool = True
    staleness: StalenessConfig = field(default_factory=StalenessConfig)
    #: ``[git] hook_timeout``: seconds a commit hook (or a signing ``git commit-tree``) of a tagging or
    #: remember commit may take before it is stopped and the commit counts as refused; None:
    #: `gitrun.HOOK_TIMEOUT` (300 s)
    hook_timeout: float | None = None
    mcp: McpConfig = field(default_factory=McpConfig)
    #: ``[privacy] redact_secrets``: secrets in memory text replaced by markers in the index and on every face
    #: (`tachikoma.redaction`); the files are never changed
    redact_secrets: bool = True
    path: Path | None = None  # the file it was read from, if any

    def embedder_request(self, explicit: str | None) -> tuple[str | None, str]:
        """The embedder asked for (None: the index's own, or the automatic choice) and where that
        came from, so a mismatch can name what to change: the option or the settings file."""
        if explicit:
            return explicit, "--embedder"
        if self.embedder == "auto":
            return None, ""
        return self.embedder, f"[embedder] name in {self.path or 'tachikoma.toml'}"


def settings_or_defaults(root: Path, path: str | os.PathLike | None = None) -> Config:
    """`load_config(root, path)`, or the defaults when the settings file cannot be read: for reports
    (freshness, stats) that must not fail on a bad file an index run would name."""
    try:
        return load_config(root, path)
    except TachikomaError:
        return Config()


def load_config(root: Path, path: str | os.PathLike | None = None) -> Config:
    """Read `path`, else $TACHIKOMA_CONFIG, else `<root>/tachikoma.toml` if present."""
    chosen = path or os.environ.get("TACHIKOMA_CONFIG")
    file = Path(chosen) if chosen else root / CONFIG_FILE
    if not file.exists():
        if chosen:
            raise TachikomaError(f"config file {str(file)!r} does not exist")
        return Config()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TachikomaError(f"{file}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise TachikomaError(f"{file}: cannot read ({exc.strerror})") from None
    try:
        return _from_dict(data, file)
    except (TypeError, ValueError) as exc:
        raise TachikomaError(f"{file}: {exc}") from exc


def _from_dict(data: dict, file: Path) -> Config:
    """Every key is checked for its type and range; the first problem is a ValueError naming the key."""
    known = {"ranking", "search", "embedder", "index", "transcripts", "store", "serve", "staleness", "git", "mcp",
             "privacy"}
    unknown = set(data) - known
    if unknown:
        word = "section" if len(unknown) == 1 else "sections"
        raise ValueError(f"unknown {word} {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
    ranking = RankingConfig()
    r = _table(data, "ranking")
    trust = {**ranking.trust, **_weights(_table(r, "trust", "ranking."), TRUST_VALUES, "ranking.trust")}
    confidence = {**ranking.confidence,
                  **_weights(_table(r, "confidence", "ranking."), CONFIDENCE_VALUES, "ranking.confidence")}
    r.pop("trust", None)
    r.pop("confidence", None)
    _known_keys(r, {f.name for f in fields(RankingConfig)} - {"trust", "confidence"}, "ranking")
    recency = check_recency(r["recency"]) if "recency" in r else ranking.recency
    half_life = r.get("half_life_days")
    if half_life is not None:
        half_life = _number(half_life, "ranking.half_life_days")
        if not half_life > 0:
            raise ValueError("ranking.half_life_days must be a number > 0")
    floor = r.get("recency_floor")
    if floor is not None:
        floor = _number(floor, "ranking.recency_floor")
        if not 0 <= floor <= 1:
            raise ValueError("ranking.recency_floor must be a number between 0 and 1")
    evergreen = r.get("evergreen", list(ranking.evergreen))
    if not isinstance(evergreen, list) or not all(isinstance(g, str) and g.strip() for g in evergreen):
        raise ValueError(f"ranking.evergreen must be an array of non-empty glob strings, not {_toml_type(evergreen)}")
    if error := next(filter(None, map(pattern_error, evergreen)), None):
        raise ValueError(f"ranking.evergreen: {error}")
    per_file = _whole(r.get("per_file", ranking.per_file), "ranking.per_file", minimum=1)
    penalty = _number(r.get("repeat_penalty", ranking.repeat_penalty), "ranking.repeat_penalty")
    if not 0 <= penalty <= 1:
        raise ValueError("ranking.repeat_penalty must be a number between 0 and 1")
    agents_words = _number(r.get("agents_words", ranking.agents_words), "ranking.agents_words")
    if not 0 <= agents_words <= 1:
        raise ValueError("ranking.agents_words must be a number between 0 and 1")
    ranking = replace(ranking, trust=trust, confidence=confidence, recency=recency, half_life_days=half_life,
                      recency_floor=floor, evergreen=tuple(g.strip() for g in evergreen), per_file=per_file,
                      repeat_penalty=penalty, agents_words=agents_words)
    search = _search(_table(data, "search"))
    e = _table(data, "embedder")
    _known_keys(e, {"name", "multilingual"}, "embedder")
    embedder = e.get("name", "auto")
    multilingual = e.get("multilingual", True)
    if isinstance(multilingual, bool):
        multilingual = "auto" if multilingual else "off"
    elif multilingual not in MULTILINGUAL_MODES:
        raise ValueError(f"embedder.multilingual must be true, false, \"auto\", \"passages\" or \"all\", "
                         f"not {_toml_type(multilingual)}")
    if not isinstance(embedder, str):
        raise ValueError(f"embedder.name must be a string (auto, minilm, e5-small, ollama, ollama:<model> or hash), "
                         f"not {_toml_type(embedder)}")
    if embedder.strip() != "auto":
        from .embedders import canonical_name  # numpy: only when a name needs checking

        try:
            canonical_name(embedder)
        except EmbedderError as exc:
            raise ValueError(f"embedder.name: {exc}") from None
    i = _table(data, "index")
    _known_keys(i, {"max_file_bytes", "exclude"}, "index")
    max_bytes = _whole(i.get("max_file_bytes", Config.max_file_bytes), "index.max_file_bytes", minimum=1)
    exclude = _exclude(i.get("exclude", []))
    t = _table(data, "transcripts")
    _known_keys(t, {"tool_errors", "tool_text"}, "transcripts")
    switches = {key: t.get(key, getattr(Config, key)) for key in ("tool_errors", "tool_text")}
    for key, value in switches.items():
        _switch(value, f"transcripts.{key}")
    st = _table(data, "store")
    _known_keys(st, {"url", "name"}, "store")
    for key in ("url", "name"):
        if key in st and not isinstance(st[key], str):
            raise ValueError(f"store.{key} must be a string, not {_toml_type(st[key])}")
        if key in st and not st[key].strip():
            raise ValueError(f"store.{key} must not be empty")
    return Config(ranking=ranking, search=search, embedder=embedder.strip(), multilingual=multilingual,
                  max_file_bytes=max_bytes, exclude=exclude,
                  store_url=st["url"].strip() if "url" in st else None,
                  store_name=st["name"].strip() if "name" in st else None, serve=_serve(_table(data, "serve")),
                  staleness=_staleness(_table(data, "staleness")), hook_timeout=_hook_timeout(_table(data, "git")),
                  mcp=_mcp(_table(data, "mcp")), redact_secrets=_redact_secrets(_table(data, "privacy")), path=file,
                  **switches)


def _exclude(value) -> Exclusion:
    """``[index] exclude``: an array of path patterns relative to the memory folder (`memory.Exclusion`), each one
    `globs.pattern_error` takes for a pattern leaving out less than the whole memory, and all of them readable
    together (`globs.path_matcher`)."""
    example = 'such as ["Templates/", "Archive/**"]'
    if not isinstance(value, list):
        raise ValueError(f"index.exclude must be an array of path patterns {example}, not {_toml_type(value)}")
    patterns = []
    for n, pattern in enumerate(value):
        if not isinstance(pattern, str) or not pattern.strip():
            what = "an empty string" if isinstance(pattern, str) else _toml_type(pattern)
            raise ValueError(f"index.exclude[{n}] must be a path pattern such as \"Templates/\", not {what}")
        pattern = pattern.strip()
        if error := pattern_error(pattern, whole_memory=False):
            raise ValueError(f"index.exclude: {error}")
        patterns.append(pattern)
    patterns = tuple(dict.fromkeys(patterns))
    try:
        path_matcher(patterns)  # read together, as the walk reads them (kept: made once)
    except InvalidPattern as exc:
        raise ValueError(f"index.exclude: its {len(patterns):,} patterns are too many to read together ({exc}): "
                         "leave some out, or name their folders (\"Archive/\" for everything in it)") from None
    return Exclusion(patterns)


def _redact_secrets(table: dict) -> bool:
    """``[privacy] redact_secrets``: true (the default) or false."""
    _known_keys(table, {"redact_secrets"}, "privacy")
    return _switch(table.get("redact_secrets", True), "privacy.redact_secrets")


def _hook_timeout(table: dict) -> float | None:
    """``[git] hook_timeout``: a number of seconds > 0 (None when not set)."""
    _known_keys(table, {"hook_timeout"}, "git")
    if "hook_timeout" not in table:
        return None
    seconds = _number(table["hook_timeout"], "git.hook_timeout")
    if not seconds > 0:
        raise ValueError(f"git.hook_timeout must be a number of seconds > 0, not {_toml_type(table['hook_timeout'])}")
    return seconds


def _mcp(table: dict) -> McpConfig:
    _known_keys(table, {f.name for f in fields(McpConfig)}, "mcp")
    budget = table.get("budget_tokens", MCP_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 0 <= budget <= MAX_BUDGET:
        raise ValueError(f"mcp.budget_tokens must be a whole number from 0 (whole results) to {MAX_BUDGET:,}, "
                         f"not {_toml_type(budget)}")
    read = table.get("read_tokens", MCP_READ_TOKENS)
    if isinstance(read, bool) or not isinstance(read, int) or read < 0:
        raise ValueError(f"mcp.read_tokens must be a whole number from 0 (no cap) up, not {_toml_type(read)}")
    return McpConfig(budget_tokens=budget, read_tokens=read)


def _staleness(table: dict) -> StalenessConfig:
    _known_keys(table, {f.name for f in fields(StalenessConfig)}, "staleness")
    check = _switch(table.get("check", True), "staleness.check")
    factor = _number(table.get("factor", 1.0), "staleness.factor")
    if not 0 <= factor <= 1:
        raise ValueError("staleness.factor must be a number between 0 and 1")
    roots = table.get("code_roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) and r.strip() for r in roots):
        raise ValueError(f"staleness.code_roots must be an array of folder paths, not {_toml_type(roots)}")
    return StalenessConfig(check=check, factor=float(factor), code_roots=tuple(r.strip() for r in roots))


def _toml_type(value) -> str:
    """What a TOML value is, in TOML's words, for error messages."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return "a date or time"


def _table(data: dict, key: str, prefix: str = "") -> dict:
    """`data[key]` (a copy; {} when absent), which must be a TOML table."""
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{prefix}{key} must be a table ([{prefix}{key}] section), not {_toml_type(value)}")
    return dict(value)


def _known_keys(table: dict, names: set[str], section: str) -> None:
    for key in table:
        if key not in names:
            raise ValueError(f"unknown key {section}.{key}; known: {', '.join(sorted(names))}")


def _number(value, name: str) -> float:
    """A finite int or float (not a boolean), as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {_toml_type(value)}")
    return float(value)


def _switch(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, not {_toml_type(value)}")
    return value


def _whole(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number ≥ {minimum}, not {_toml_type(value)}")
    return value


def _search(table: dict) -> SearchConfig:
    _known_keys(table, {f.name for f in fields(SearchConfig)}, "search")
    search = replace(SearchConfig(), **table)
    for name in ("keyword_weight", "counting_keyword_weight"):
        weight = getattr(search, name)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
            raise ValueError(f"search.{name} must be a number between 0 and 1")
    weight = search.keyword_weight
    if search.fusion not in FUSION_METHODS:
        raise ValueError(f"search.fusion must be one of {', '.join(FUSION_METHODS)}")
    candidates = search.keyword_candidates
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
        raise ValueError("search.keyword_candidates must be a whole number ≥ 1")
    _whole(search.feedback_files, "search.feedback_files", 0)
    rrf_k = search.rrf_k
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, (int, float)) or not 0 <= rrf_k < math.inf:
        raise ValueError("search.rrf_k must be a number ≥ 0")
    floor = search.min_score
    if floor is not None and (isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0 <= floor <= 1):
        raise ValueError("search.min_score must be a number between 0 and 1")
    for name in ("time_reading", "named_parts"):
        _switch(getattr(search, name), f"search.{name}")
    return replace(search, keyword_weight=float(weight), counting_keyword_weight=float(search.counting_keyword_weight),
                   rrf_k=float(search.rrf_k),
                   min_score=None if floor is None else float(floor))


def _serve(table: dict) -> ServeConfig:
    if "token" in table:  # the settings file sits in the memory, which git shares and agents read
        raise ValueError("serve.token: a token does not belong in the settings file (it sits in the memory, "
                         "which git shares and agents read); put it in a tokens_file outside the memory, or "
                         "in $TACHIKOMA_TOKEN")
    _known_keys(table, {f.name for f in fields(ServeConfig)}, "serve")
    for key in ("tokens_file", "user_header", "public_url"):
        if key in table and (not isinstance(table[key], str) or not table[key].strip()):
            raise ValueError(f"serve.{key} must be a non-empty string, not {_toml_type(table[key])}")
    proxies = table.get("trusted_proxies", [])
    if not isinstance(proxies, list) or not all(isinstance(p, str) and p.strip() for p in proxies):
        raise ValueError(f"serve.trusted_proxies must be an array of addresses or networks such as "
                         f"\"10.0.0.0/24\", not {_toml_type(proxies)}")
    return ServeConfig(tokens_file=table.get("tokens_file"), trusted_proxies=tuple(p.strip() for p in proxies),
                       user_header=table.get("user_header", ServeConfig.user_header).strip(),
                       public_url=table.get("public_url"))


def _weights(table: dict, allowed: tuple[str, ...], name: str) -> dict[str, float]:
    out = {}
    for key, value in table.items():
        if key not in (*allowed, "missing"):
            raise ValueError(f"unknown key {name}.{key}; known: {', '.join((*allowed, 'missing'))}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{name}.{key} must be a number between 0 and 1")
        out[key] = float(value)
    return out
