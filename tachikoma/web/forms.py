"""The dashboard's forms, read from request arguments and checked: search and bulk tagging."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date

from tachikoma.when import timeq
from tachikoma.globs import is_glob, pattern_error, scope_error
from tachikoma.tagging import model
from tachikoma.config import RECENCY_PRESETS
from tachikoma.vocabulary import DEFAULT_LIMIT, MAX_BUDGET, MAX_LIMIT, query_too_long, whole_number
from tachikoma.reading.documents import KINDS
from tachikoma.search.snapshot import Filters
from tachikoma.reading.tags import (STATUSES, TRUST_VALUES, WRITABLE_KEYS, InvalidTagValue, normalise_value,
                                    source_filter)


def _text(data, name: str) -> str:
    return (data.get(name) or "").strip()


#: How a yes-or-no argument is spelled, in any case: a checkbox sends "1", a script "true", "True" (Python's
#: str(True)), "yes" or "on"; left out, empty, "0", "false", "no" or "off" is no.
YES, NO = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


def _checked(data, name: str) -> bool:
    """Whether a yes-or-no argument is set: anything but a word for no (`NO`), as a checkbox's value may be."""
    return _text(data, name).lower() not in NO


def _yes_or_no_error(data, name: str) -> str | None:
    """Why a yes-or-no argument of the search (the JSON API's `fresh_only`, `untagged`) is neither, or None."""
    value = _text(data, name).lower()
    return None if value in YES or value in NO else \
        f"{name} must be true or false (1, true, yes, on; 0, false, no, off), not {_text(data, name)[:20]!r}"


def _int(value: str | None, default: int | None) -> int | None:
    """A count as the API takes it (`vocabulary.whole_number`: plain ASCII digits); `default` when it is not given,
    None when it is not a whole number."""
    return default if value in (None, "") else whole_number(value)


def _kind_error(kind: str) -> str | None:
    return f"kind must be {' or '.join(KINDS)}" if kind and kind not in KINDS else None


@dataclass
class SearchForm:
    q: str = ""
    kind: str = ""
    trust: str = ""
    untagged: bool = False
    path: tuple[str, ...] = ()  # only files in these folders or matching these globs (`Filters.paths`)
    source: str = ""  # only files with this source tag, or "missing"
    limit: int = DEFAULT_LIMIT
    min_score: float | None = None  # None: the memory's setting
    recency: str = ""  # a recency preset; "": the memory's setting
    as_of: str = ""  # the search's "now" as typed (timeq.parse_as_of); "": now
    memories: tuple[str, ...] = ()  # on a shared store: search these memories together; (): this one
    budget_tokens: int | None = None  # the JSON API: the best evidence within this many tokens (`recall`)
    fresh_only: bool = False  # leave out stale memories (`staleness`)
    agent_text: bool = False  # the JSON API, with a budget: the block too (`reply.as_json`)
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, args) -> SearchForm:
        form = cls(q=_text(args, "q"), kind=_text(args, "kind").lower(), trust=_text(args, "trust").lower(),
                   untagged=_checked(args, "untagged"), fresh_only=_checked(args, "fresh_only"),
                   agent_text=_checked(args, "agent_text"))
        if too_long := query_too_long(form.q):
            form.errors["q"] = too_long
        if error := _kind_error(form.kind):
            form.errors["kind"] = error
        for name in ("untagged", "fresh_only", "agent_text"):
            if error := _yes_or_no_error(args, name):
                form.errors[name] = error
        if form.trust and form.trust not in (*TRUST_VALUES, "missing"):
            form.errors["trust"] = f"trust must be one of {', '.join(TRUST_VALUES)} or missing"
        # path=a&path=b (the API, links) or one from the search page's field; an empty field is no filter
        form.path = tuple(dict.fromkeys(p.strip() for p in _given(args, "path") if p.strip()))
        if error := scope_error(form.path):
            form.errors["path"] = error
        if source := _text(args, "source"):
            try:
                form.source = source_filter(source)
            except InvalidTagValue as exc:
                form.errors["source"] = str(exc)
        limit = _int(args.get("limit"), DEFAULT_LIMIT)
        if limit is None or not 1 <= limit <= MAX_LIMIT:
            form.errors["limit"] = f"limit must be a whole number from 1 to {MAX_LIMIT}"
        else:
            form.limit = limit
        floor = _text(args, "min_score")
        if floor:
            try:
                form.min_score = float(floor)
            except ValueError:
                form.min_score = -1.0
            if not 0 <= form.min_score <= 1:
                form.errors["min_score"] = "min_score must be a number from 0 to 1"
                form.min_score = None
        recency = _text(args, "recency").lower()
        if recency and recency not in RECENCY_PRESETS:
            form.errors["recency"] = f"recency must be one of {', '.join(RECENCY_PRESETS)}"
        elif recency:
            form.recency = recency
        as_of = _text(args, "as_of")
        if as_of:
            try:
                timeq.parse_as_of(as_of)
                form.as_of = as_of
            except ValueError as exc:
                form.errors["as_of"] = str(exc)
        if _text(args, "budget_tokens"):
            tokens = _int(args.get("budget_tokens"), None)
            if tokens is None or not 1 <= tokens <= MAX_BUDGET:
                form.errors["budget_tokens"] = f"budget_tokens must be a whole number from 1 to {MAX_BUDGET:,}"
            else:
                form.budget_tokens = tokens
        if form.agent_text and form.budget_tokens is None and "budget_tokens" not in form.errors:
            form.errors["agent_text"] = ("agent_text goes with budget_tokens: it adds the block a budget makes to the "
                                         "answer")
        # memories=a,b (the API, links) or memories=a&memories=b (the search page's checkboxes)
        form.memories = tuple(dict.fromkeys(n.strip() for value in _given(args, "memories")
                                            for n in value.split(",") if n.strip()))
        return form

    def check_memories(self, known: list[str]) -> None:
        """An error for memories the shared store does not hold (`known`: its memories; none on SQLite)."""
        if not self.memories:
            return
        if not known:
            self.errors["memories"] = ("searching several memories needs a shared store: set [store] url, "
                                       "--store or $TACHIKOMA_STORE to a postgresql:// URL")
        elif unknown := [n for n in self.memories if n not in known]:
            self.errors["memories"] = (f"no memory named {', '.join(map(repr, unknown))} in this store "
                                       f"(it holds: {', '.join(known)})")

    def api_refusal(self) -> str | None:
        """Why /api/search cannot answer this form (it needs a query), or None."""
        if not self.q:
            return "empty query: pass q=what to look for"
        return "; ".join(self.errors.values()) or None

    def filters(self) -> Filters:
        return Filters(kind=self.kind or None, trust=self.trust or None, untagged=self.untagged, paths=self.path,
                       source=self.source or None)

    @property
    def filtered(self) -> bool:
        return bool(self.kind or self.trust or self.untagged or self.path or self.source)

    def args(self, **changes) -> dict:
        """The query string for this search (defaults left out), with `changes`."""
        values = {"q": self.q, "kind": self.kind, "trust": self.trust, "untagged": "1" if self.untagged else "",
                  "path": list(self.path), "source": self.source,
                  "limit": self.limit if self.limit != DEFAULT_LIMIT else "",
                  "min_score": "" if self.min_score is None else f"{self.min_score:g}", "recency": self.recency,
                  "as_of": self.as_of, "memories": ",".join(self.memories)}
        values.update(changes)
        return {k: v for k, v in values.items() if v not in ("", None, [])}


def _given(args, name: str) -> list[str]:
    """Every value of a query argument given once or more (``path=a&path=b``), each a string."""
    values = args.getlist(name) if hasattr(args, "getlist") else [args.get(name)]
    return [value for value in values if isinstance(value, str)]


@dataclass
class TagForm:
    """The bulk tagging form: which files (selector) and which values, or `defaults`: what
    `tachikoma tag` does with no options (`tagging.planning.default_plan`), whatever the other fields say."""

    kind: str = ""
    path: str = ""
    untagged: bool = False
    after: str = ""
    before: str = ""
    trust: str = ""
    confidence: str = ""
    source: str = ""
    evergreen: str = ""  # "true", "false" or "" (leave as is)
    mode: str = "fill"
    defaults: bool = False
    errors: dict[str, str] = field(default_factory=dict)
    FIELDS = ("kind", "path", "untagged", "after", "before", "trust", "confidence", "source", "evergreen", "mode",
              "defaults")

    @classmethod
    def read(cls, data) -> TagForm:
        return cls(kind=_text(data, "kind").lower(), path=_text(data, "path"), untagged=_checked(data, "untagged"),
                   after=_text(data, "after"), before=_text(data, "before"), trust=_text(data, "trust").lower(),
                   confidence=_text(data, "confidence").lower(), source=_text(data, "source"),
                   evergreen=_text(data, "evergreen").lower(),
                   mode="overwrite" if _text(data, "mode") == "overwrite" else "fill",
                   defaults=_checked(data, "defaults"))

    @property
    def overwrite(self) -> bool:
        return self.mode == "overwrite"

    @classmethod
    def for_file(cls, rel: str, kind: str, values: dict[str, str]) -> TagForm:
        """The form of one file's tag editor: that file only, its current `values` (raw, as
        `tagging.model.current_values` reads them) chosen, replacing them. An invalid value is left unchosen."""
        current = {key: normalise_value(key, values.get(key)) or "" for key in WRITABLE_KEYS}
        return cls(kind=kind, path=file_pattern(rel), mode="overwrite", **current)

    def parse(self) -> tuple[model.Selector, dict[str, str]] | None:
        """The selector and checked values, or None with `errors` filled in."""
        if error := _kind_error(self.kind):
            self.errors["kind"] = error
        if error := pattern_error(self.path):
            self.errors["path"] = error
        dates = {}
        for name in ("after", "before"):
            raw = getattr(self, name)
            try:
                dates[name] = date.fromisoformat(raw) if raw else None
            except ValueError:
                self.errors[name] = "use a date like 2026-03-31"
        if dates.get("after") and dates.get("before") and dates["after"] >= dates["before"]:
            self.errors["before"] = "must be later than “modified after”"
        values = {}
        for key in WRITABLE_KEYS:
            raw = getattr(self, key)
            if raw:
                try:
                    values.update(model.check_values({key: raw}))
                except InvalidTagValue as exc:
                    self.errors[key] = str(exc)
        if not values and not any(k in self.errors for k in WRITABLE_KEYS):
            self.errors["values"] = "choose at least one value to set: trust, confidence, source or evergreen"
        if self.errors:
            return None
        selector = model.Selector(kind=self.kind or None, pattern=self.path or None, untagged_only=self.untagged,
                                  modified_since=dates.get("after"), modified_until=dates.get("before"))
        return selector, values

    def args(self) -> dict:
        """The form's fields as the Apply form sends them back (empty ones left out)."""
        values = {name: getattr(self, name) for name in self.FIELDS}
        values["untagged"] = "1" if self.untagged else ""
        values["defaults"] = "1" if self.defaults else ""
        return {k: v for k, v in values.items() if v}


def plan_fingerprint(plan: model.Plan) -> str:
    """Identifies the exact changes a preview showed, so Apply writes only those."""
    data = [[c.path, c.kind, c.before, c.after] for c in plan.changes]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:24]


@dataclass
class FileListForm:
    """Which files a coverage count stands for: a tag status, a kind, a top-level folder ("." the top level)."""

    status: str = ""
    kind: str = ""
    folder: str = ""
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, args) -> FileListForm:
        form = cls(status=_text(args, "status").lower(), kind=_text(args, "kind").lower(),
                   folder=_text(args, "folder").strip("/") or ("." if _text(args, "folder") else ""))
        if form.status and form.status not in STATUSES:
            form.errors["status"] = f"status must be one of {', '.join(STATUSES)}"
        if error := _kind_error(form.kind):
            form.errors["kind"] = error
        return form

    def title(self) -> str:
        """What the list holds, e.g. "Untagged markdown files in 2026-03/"; with a wrong status or kind (a value
        of the address, never echoed), "No such list of files"."""
        if self.errors:
            return "No such list of files"
        status = {"partial": "partly tagged"}.get(self.status, self.status)
        text = " ".join(w for w in (status, self.kind, "files") if w)
        text = text[0].upper() + text[1:]
        if self.folder == ".":
            text += " at the top level"
        elif self.folder:
            text += f" in {self.folder}/"
        return text


def file_pattern(path: str) -> str:
    """A tagging selector pattern that matches exactly the one file `path`.

    A plain path already does; glob characters in a name are put in brackets,
    and a leading "/" keeps a top-level name from matching in every folder.
    """
    if not is_glob(path):
        return path
    return "/" + re.sub(r"([*?\[])", r"[\1]", path)
