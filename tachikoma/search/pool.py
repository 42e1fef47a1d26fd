"""The searchers a process keeps open, and one query over several memories of a shared store.

`search_memories` asks several memories of a shared store (PostgreSQL) at once.

A `Searcher` holds a store connection and the loaded snapshot of one
memory's index; building one per query means connecting to the database
and reading the index again each time (on PostgreSQL, a connection per
query and per memory searched). `Searchers` keeps one per memory and hands
it to one thread at a time, with a `Catalog` connection per shared store
for the questions pages ask often (which memories there are, when one was
last indexed).

Nothing of one query reaches the next but the index it read: a searcher
whose query failed is closed (an aborted transaction or a lost server
connection goes with it) and the next query opens a new one (a query
refused before reading, `BadQuery`, leaves it open); a searcher
whose index was rebuilt with another embedder is replaced. `close` closes
everything (the server calls it when it stops).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from ..config import Config, load_config
from ..errors import BadQuery
from ..store import Location, locate
from . import parts
from .searcher import Searcher
from .snapshot import Filters



#: How many searchers a process keeps open at most. Each holds its memory's vectors in RAM (100k chunks at
#: 384 dimensions: ~150 MB), so a dashboard over a shared store of many memories closes the least recently
#: used one beyond this (it is opened again, from the index, when next searched).
MAX_OPEN = 8


class Searchers:
    def __init__(self, max_open: int = MAX_OPEN) -> None:
        self.max_open = max_open
        self._lock = threading.Lock()
        self._entries: dict[tuple, _Entry] = {}  # least recently used first
        self._catalogs: dict[str, object] = {}
        self._closed = False

    @contextmanager
    def use(self, key: tuple, make: Callable[[], Searcher]) -> Iterator[Searcher]:
        """The open searcher for `key` (a memory: its store URL and name, or its folder), made by
        `make` when there is none or it no longer fits its index; yours alone until the block ends."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the searchers are closed")
            entry = self._entries.pop(key, None) or _Entry()
            self._entries[key] = entry  # now the most recently used
        with entry.lock:
            if entry.searcher is not None and not _fits(entry.searcher):
                entry.drop()  # the index was rebuilt with another embedder since
            if entry.searcher is None:
                entry.searcher = make()
                self._close_least_used(entry)
            try:
                yield entry.searcher
            except BadQuery:
                raise  # refused before the index was read: the searcher is as it was
            except BaseException:
                entry.drop()  # a failed query leaves nothing behind for the next one
                raise

    def _close_least_used(self, keep: "_Entry") -> None:
        """Close the least recently used searchers beyond `max_open` (not `keep`, nor one in use)."""
        with self._lock:
            others = [e for e in self._entries.values() if e is not keep and e.searcher is not None]
            excess = len(others) + 1 - self.max_open
            for entry in others:
                if excess <= 0:
                    break
                if entry.lock.acquire(blocking=False):  # one in use is closed another time
                    try:
                        entry.drop()
                        excess -= 1
                    finally:
                        entry.lock.release()

    def warm(self, key: tuple) -> None:
        """After an index run: the open searcher of `key` (if any) reads the new index and counts its
        freshness now, not at its next query (at 100k chunks the first search after a one-file change
        re-read every vector: 5.6 s). A query arriving meanwhile waits for it, as it would have done
        the work itself."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return
        with entry.lock:
            if entry.searcher is None or not _fits(entry.searcher):
                return
            try:
                entry.searcher.snapshot()
                entry.searcher.freshness()
            except Exception:  # noqa: BLE001 - the next query opens a new searcher and reports it
                entry.drop()

    def drop(self, key: tuple) -> None:
        """Close the searcher of `key`, if one is open (its index went away)."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None:
            with entry.lock:
                entry.drop()

    def catalog(self, url: str):
        """The kept-open `Catalog` connection to the shared store at `url`."""
        from ..store.postgres_catalog import Catalog

        with self._lock:
            if self._closed:
                raise RuntimeError("the searchers are closed")
            if url not in self._catalogs:
                self._catalogs[url] = Catalog(url)
            return self._catalogs[url]

    def open_count(self) -> int:
        """How many searchers are open (for tests and the curious)."""
        with self._lock:
            return sum(entry.searcher is not None for entry in self._entries.values())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            entries, catalogs = list(self._entries.values()), list(self._catalogs.values())
            self._entries, self._catalogs = {}, {}
        for entry in entries:
            with entry.lock:
                entry.drop()
        for catalog in catalogs:
            catalog.close()


def kept_searcher(searchers: Searchers, root, config, watched: Callable[[], bool] | None = None,
                  embedder_name: str | None = None):
    """The memory at `root`'s open searcher in `searchers`, for one query (`Searchers.use`)."""
    location = locate(root, config)
    return searchers.use(memory_key(location), lambda: Searcher(root, config, embedder_name, location=location,
                                                                watched=watched))


def search_as_asked(root, config, searchers: Searchers, asked: dict, own=None,
                    embedder_name: str | None = None, preamble: str = "", freshness: dict | None = None) -> dict:
    """A command-line search (`Searcher.search`'s arguments by name, the filters' fields, ``memories``,
    ``fresh_only`` and ``budget_tokens``, and with a budget ``form`` and ``face``: how the reply is sent and by
    whom, `recall.within_budget`), in this process or handed over by `tachikoma.resident`,
    answered with the searchers of `searchers`. `own(config)`: this memory's searcher for one query
    (default `kept_searcher`); `preamble`: the first line of a budget's block, `freshness`: what the answer's
    freshness adds (a watcher's state), both counted in a budget (`finish`)."""
    filters = Filters(kind=asked.get("kind"), trust=asked.get("trust"), untagged=bool(asked.get("untagged")),
                      paths=tuple(asked.get("path") or ()), source=asked.get("source"))
    options = {"min_score": asked.get("min_score"), "recency": asked.get("recency"), "as_of": asked.get("as_of")}
    limit = with_budget_limit(asked["limit"], asked.get("budget_tokens"))

    def ranked(n: int, widen: bool = True) -> dict:
        widen = widen and not asked.get("budget_tokens")  # a budget's passages: the question's own lines
        if asked.get("memories"):
            return search_memories(root, list(asked["memories"]), asked["query"], n, config,
                                   embedder_name, filters=filters, searchers=searchers, widen=widen, **options)
        with (own or (lambda c: kept_searcher(searchers, root, c, embedder_name=embedder_name)))(config) as searcher:
            return searcher.search(asked["query"], n, filters, config=config, widen=widen, **options)

    if asked.get("fresh_only"):
        answer = fresh_answer(ranked, limit, config, source=own_files(root, config))
    else:
        answer = ranked(limit)
    if freshness:  # before the budget, which counts what is sent
        answer["freshness"].update(freshness)
    return finish(answer, root, config, asked.get("budget_tokens"), bool(asked.get("fresh_only")), preamble,
                  form=asked.get("form", "block"), face=asked.get("face", "cli"))


#: With ``fresh_only``, a search that left stale results out ranks this many times as many again, up to
#: `FRESH_ROUNDS` times in all, until it has as many fresh results as asked.
FRESH_GROWTH, FRESH_ROUNDS = 4, 3


def own_files(root, config) -> Callable[[dict], Path | None]:
    """A result's file on disk, when it is of the memory at `root` (another memory's, on a shared store,
    is not read): what `staleness.mark` reads a session's edits from."""
    here, own = Path(root), locate(root, config).name
    return lambda r: here / r["path"] if r.get("memory") in (None, own) and r.get("path") else None


def fresh_answer(ranked: Callable[..., dict], limit: int, config, widen: bool = True,
                 source: Callable[[dict], Path | None] | None = None) -> dict:
    """`limit` fresh results, stale ones left out (`staleness.mark`): `ranked(n, widen)` ranks the first `n`
    results, and is asked for more (×`FRESH_GROWTH`, at most `FRESH_ROUNDS` searches) while stale
    ones left it short and it may hold more. ``staleness`` says how many results were ranked
    (``ranked``) and how many of them were left out. A question widened by a file found stale is ranked
    again as asked: a stale memory steers nothing. A file that widened it but was not ranked among the
    results checked (below them, or cut by the limit) is not known stale and keeps its part, as when
    nothing is stale. `source`: a result's file on disk (`own_files`)."""
    from ..staleness import mark

    settings, n = config.staleness, limit
    for round_ in range(1, FRESH_ROUNDS + 1):
        answer = ranked(n, widen)
        checked = list(answer.get("results") or [])
        answer = mark(answer, settings.code_roots, settings.factor, fresh_only=True, source=source)
        if len(answer["results"]) >= limit or len(checked) < n or round_ == FRESH_ROUNDS:
            break
        n *= FRESH_GROWTH
    stale = {(r.get("memory"), r["path"]) for r in checked if "stale" in r}  # `mark` marks them in place
    if widen and any((w.get("memory"), w["path"]) in stale for w in answer.get("widened_by") or ()):
        return fresh_answer(ranked, limit, config, widen=False, source=source)
    answer["results"] = answer["results"][:limit]
    answer["staleness"]["ranked"] = n
    return answer


def with_budget_limit(limit: int, budget_tokens: int | None) -> int:
    """How many results a search ranks: with a token budget, at least `recall.RESULTS` to choose from."""
    from ..vocabulary import BUDGET_RESULTS

    return max(limit, BUDGET_RESULTS) if budget_tokens else limit


def finish(answer: dict, root, config, budget_tokens: int | None = None, fresh_only: bool = False,
           preamble: str = "", form: str = "block", face: str = "cli") -> dict:
    """What every face does to a search's answer: stale results marked (`staleness.mark`, per the
    settings' ``[staleness]``; left out with `fresh_only`), then, with a token budget, the answer cut
    to it (`recall.within_budget`: passages of this memory's results are read from `root`, another
    memory's, on a shared store, and those of a file changed since the index read it (`changed_files`), are their
    chunks; held to it in `form`, as `face` sends it)."""
    settings = config.staleness
    if (settings.check or fresh_only) and "staleness" not in answer:  # (`fresh_answer` marked it)
        from ..staleness import mark

        answer = mark(answer, settings.code_roots, settings.factor, fresh_only, source=own_files(root, config))
    parts.recounted(answer)  # the things a question names: each one's results as the answer holds them now
    if not budget_tokens:
        return answer
    from ..replies.recall import within_budget

    here, own = Path(root), locate(root, config).name
    edited = set((answer.get("freshness") or {}).get("changed_files") or ())  # its lines moved: not read
    return within_budget(answer, int(budget_tokens),
                         lambda r: here if r.get("memory") in (None, own) and r["path"] not in edited else None,
                         preamble=preamble, form=form, face=face,
                         redact=config.redact_secrets)


def warm_after_run(searchers: Searchers, root, settings: Callable) -> None:
    """`Searchers.warm` for the memory at `root` (`settings()`: its settings, read now), for a face to
    call after an index run. Never raises: the next query reports what went wrong."""
    try:
        searchers.warm(memory_key(locate(root, settings())))
    except Exception:  # noqa: BLE001 - broken settings, an unreachable store: said by the next query
        pass


def indexed_passages(root, searchers: Searchers, name: str, rel: str, config=None) -> list[tuple[int, int, str]] | None:
    """What the shared store's index holds of the file `rel` of the memory `name` (first line, last line
    and text of each chunk): how a face shows a result of another memory, whose folder it does not serve.
    None: not on a shared store, no memory of that name, or no such file in its index. `config`: the settings
    (`locate`'s; None: the memory's own)."""
    found = indexed_file(root, searchers, name, rel, tags=False, config=config)
    return found[0] if found else None


def indexed_file(root, searchers: Searchers, name: str, rel: str,
                 tags: bool = True, config=None) -> tuple[list[tuple[int, int, str]], dict[str, str]] | None:
    """`indexed_passages` and the file's tags as that index holds them ({"trust", "confidence", "source",
    "evergreen"}: those set), or None."""
    here = locate(root, config)
    if here.url is None:
        return None
    known = searchers.catalog(here.url).memory_names()
    if name not in known:
        return None
    with Location(Path(known[name] or root), here.url, name).open(readonly=True) as store:
        passages = store.file_passages(rel)
        if not passages:
            return None
        row = store.files().get(rel) if tags else None
    values = {}
    if row is not None:
        values = {k: v for k, v in (("trust", row.trust), ("confidence", row.confidence), ("source", row.source))
                  if v}
        if row.evergreen:
            values["evergreen"] = "true"
    return passages, values


def memory_key(location) -> tuple:
    """Which searcher serves a memory (`store.Location`): the same name in the same shared store, or
    the same folder's SQLite index."""
    if location.url is not None:
        return (location.url, location.name)
    return ("sqlite", str(location.root.resolve()))


class _Entry:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.searcher: Searcher | None = None

    def drop(self) -> None:
        if self.searcher is not None:
            try:
                self.searcher.close()
            finally:
                self.searcher = None


def _fits(searcher: Searcher) -> bool:
    """Whether the index is still built with the searcher's embedder (`tachikoma index --reembed`
    with another one changes it)."""
    try:
        return searcher.store.embedder == (searcher.embedder.name, searcher.dim)
    except Exception:  # noqa: BLE001 - an unreadable index or a lost connection: open a new searcher
        return False


def search_memories(root: Path, names: list[str], query: str, limit: int = 10, config: Config | None = None,
                    embedder_name: str | None = None, searchers=None, **options) -> dict:
    """One query over several memories of a shared store (PostgreSQL): each memory is ranked as
    it would be alone (its own embedder, keyword statistics and settings), then the results are
    merged by score; every result names its ``memory``. The memories answer as one: there is a good
    match when any memory has one (then the best results of all of them, a memory without one of its
    own included), ``match`` is the best evidence of any, ``keywords`` every memory's, ``keywords_nowhere``
    those no memory holds, ``widened_by`` each memory's own (with its name); freshness and the like are the
    first memory's, but for ``changed_files``, this memory's; ``memories`` lists the names searched. `searchers`
    (`Searchers`): a long-lived process's open searchers and connections, reused; None: opened for this query and
    closed after it."""
    config = config or load_config(root)
    here = locate(root, config)
    if here.url is None:
        raise BadQuery("searching several memories needs a shared store: set [store] url, --store or "
                             "$TACHIKOMA_STORE to a postgresql:// URL")
    pool = searchers if searchers is not None else Searchers()
    try:
        known = pool.catalog(here.url).memory_names()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise BadQuery(f"no memory named {', '.join(map(repr, unknown))} in "
                                 f"{here.label.split(' in ', 1)[1]} (it holds: {', '.join(sorted(known)) or 'none'})")
        answers = []
        for name in names:
            folder = Path(root) if name == here.name else Path(known[name] or root / ".." / name)
            own = config if name == here.name else load_config(folder)  # read per query, as the folder's own
            location = Location(folder, here.url, name)
            make = lambda: Searcher(folder, own, embedder_name, location=location)  # noqa: E731 (a one-line closure handed on)
            with pool.use(memory_key(location), make) as searcher:
                answers.append(searcher.search(query, limit, config=own, decide=False, **options))
    finally:
        if searchers is None:
            pool.close()
    merged = merge_answers(answers, limit, names)
    # Its freshness is the first memory's; the files changed since the index read them are this one's, whose
    # results alone a budget reads from their files (`finish`), and which `read` reads without `memory`.
    merged["freshness"] = {key: value for key, value in merged["freshness"].items() if key != "changed_files"}
    if changed := next((a["freshness"].get("changed_files") for n, a in zip(names, answers) if n == here.name), None):
        merged["freshness"]["changed_files"] = changed
    return merged


def merge_answers(answers: list[dict], limit: int, names: list[str]) -> dict:
    """One answer from each memory's answer to the same query (each asked with ``decide=False``)."""
    answered = [a for a in answers if not a["no_good_match"]]
    every = [r for a in answers for r in a["results"]]
    merged = sorted(every, key=parts.ranking(every))[:limit] if answered else []  # by score, or as `parts.merged`
    best = max(answered or answers, key=lambda a: a["match"]["best_vector_similarity"])
    match = dict(best["match"], best_vector_similarity=max(a["match"]["best_vector_similarity"] for a in answers))
    coverages = [a["match"]["best_keyword_coverage"] for a in answers if a["match"]["best_keyword_coverage"] is not None]
    match["best_keyword_coverage"] = max(coverages) if coverages else None
    pairs = [a["match"]["best_pair_coverage"] for a in answers if a["match"].get("best_pair_coverage") is not None]
    if pairs:
        match["best_pair_coverage"] = max(pairs)
    keywords = list(dict.fromkeys(word for a in answers for word in a["keywords"]))
    nowhere = [word for word in answers[0]["keywords_nowhere"] if all(word in a["keywords_nowhere"] for a in answers)]
    widened = [dict(w, memory=name) for name, a in zip(names, answers) for w in a.get("widened_by", [])]
    out = dict(answers[0], results=merged, no_good_match=not merged, match=match, keywords=keywords,
               keywords_nowhere=nowhere, widened_by=widened, memories=list(names))
    named: dict[str, bool] = {}  # the things the question names, each with a good match in any memory
    for a in answers:
        for p in a.get("named_parts") or []:
            named[p["part"]] = named.get(p["part"], True) and p["no_good_match"]
    if named:
        out["named_parts"] = [{"part": part, "results": 0, "no_good_match": nothing} for part, nothing in named.items()]
    return parts.recounted(out)
