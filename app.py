"""tachikoma's web dashboard: search with explanations, memory files, tag
coverage, bulk tagging with undo, and re-indexing.

`create_app(memory=..., config=..., host=..., port=...)` builds the Flask
application; `tachikoma serve` calls it, and so does `flask --app app run`
(the memory folder then comes from $TACHIKOMA_MEMORY). Routes stay thin:
they call the `tachikoma` package and render templates. A normal request
gets a full page; an htmx request (HX-Request header) gets only the fragment
it swaps in, each rendered from its own template in ``templates/partials/``.

The dashboard can rewrite memory files, so it defends itself:

- it binds to 127.0.0.1 by default (the CLI warns otherwise);
- requests whose Host header is not the served address are refused with
  421 (DNS rebinding);
- every POST needs a CSRF token (flask-wtf; htmx sends it in a header);
- a strict Content-Security-Policy (no inline script or style) and the
  usual nosniff / referrer / frame headers are sent with every response;
- memory text is rendered escaped, or sanitised with nh3 after markdown;
- files are only ever opened through `memory.safe_path`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path, PurePosixPath

import markdown
import nh3
from flask import Flask, abort, current_app, make_response, redirect, render_template, request, send_file, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect
from htmx_flask import Htmx
from markupsafe import Markup, escape

from tachikoma import indexer, memory, stats, tagfile, tagging
from tachikoma.config import load_config
from tachikoma.documents import KINDS, MARKDOWN
from tachikoma.errors import EmbedderError, TachikomaError
from tachikoma.memory import resolve_root
from tachikoma.reader import read_document
from tachikoma.search import Filters, Searcher
from tachikoma.tags import CONFIDENCE_VALUES, STATUSES, TAG_KEYS, TRUST_VALUES, InvalidTagValue, Tags

log = logging.getLogger("tachikoma.web")

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
NO_INDEX = "no index yet: run `tachikoma index` or press Re-index"
MAX_LIMIT = 100
KEPT_UNDOS = 50


class NoIndex(TachikomaError):
    """The memory folder has not been indexed yet."""

    def __init__(self) -> None:
        super().__init__(NO_INDEX)


# --------------------------------------------------------------------------- the factory


def create_app(memory: str | os.PathLike | None = None, config: str | os.PathLike | None = None,
               host: str = "127.0.0.1", port: int | None = None, secret_key: str | None = None,
               allowed_hosts: tuple[str, ...] | list[str] = ()) -> Flask:
    """The dashboard for the memory folder `memory` (default $TACHIKOMA_MEMORY or ./memory).

    `host` and `port` are the address it is served on: only requests whose
    Host header names that address (or 127.0.0.1 / localhost / [::1] on that
    port) are answered. With `port` None any port is accepted for those
    names. `allowed_hosts` adds host names (e.g. a machine name when bound
    to 0.0.0.0). The secret key signing sessions and CSRF tokens is new for
    each process unless `secret_key` or $TACHIKOMA_SECRET_KEY is given.
    """
    root = resolve_root(memory)
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or os.environ.get("TACHIKOMA_SECRET_KEY") or secrets.token_hex(32),
        TACHIKOMA_ROOT=root,
        TACHIKOMA_HOST=host,
        TACHIKOMA_PORT=port,
        TACHIKOMA_ALLOWED_HOSTS=[h.lower() for h in allowed_hosts],
        WTF_CSRF_TIME_LIMIT=None,  # tied to the session; a tab left open all day still works
        SESSION_COOKIE_NAME=f"tachikoma_{port}" if port else "tachikoma",
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        MAX_CONTENT_LENGTH=1 << 20,
    )
    load_config(root, config)  # a broken settings file is an error at start, not on first search
    app.extensions["tachikoma"] = Dashboard(root, config)
    Htmx(app)
    _install_guards(app)  # before CSRFProtect: a foreign Host is refused before anything else runs
    CSRFProtect(app)
    _install_filters(app)
    _install_routes(app)
    return app


def dash() -> "Dashboard":
    return current_app.extensions["tachikoma"]


# --------------------------------------------------------------------------- state shared by requests


class Dashboard:
    """What outlives a request: the searcher, the index job and undoable taggings."""

    def __init__(self, root: Path, config_path):
        self.root = root
        self.config_path = config_path
        self.index_job = IndexJob(self)
        self._search_lock = threading.Lock()
        self._searcher: Searcher | None = None
        self._applied: OrderedDict[str, tagging.Applied] = OrderedDict()
        self._applied_lock = threading.Lock()
        self._warmed = False

    def config(self):
        return load_config(self.root, self.config_path)

    def has_index(self) -> bool:
        return memory.index_path(self.root).is_file()

    def search(self, query: str, limit: int, filters: Filters) -> dict:
        """The same answer as `tachikoma search --json`. Raises NoIndex, EmbedderError, TachikomaError."""
        config = self.config()
        with self._search_lock:
            return self._current_searcher(config).search(query, limit, filters, config=config)

    def warm_up(self) -> None:
        """Load the index and the embedder in the background once, so the first query is fast."""
        with self._applied_lock:
            if self._warmed or not self.has_index():
                return
            self._warmed = True

        def work() -> None:
            try:
                config = self.config()
                with self._search_lock:
                    self._current_searcher(config).embedder.embed_query("warm up")
            except Exception as exc:  # noqa: BLE001 - the first real search reports any problem
                log.debug("warm-up failed: %s", exc)

        threading.Thread(target=work, name="tachikoma-warm-up", daemon=True).start()

    def _current_searcher(self, config) -> Searcher:
        if not self.has_index():
            self._drop_searcher()
            raise NoIndex()
        if self._searcher is not None and self._searcher.store.embedder != (
                self._searcher.embedder.name, self._searcher.dim):
            self._drop_searcher()  # rebuilt with another embedder since
        if self._searcher is None:
            try:
                self._searcher = Searcher(self.root, config)
            except TachikomaError as exc:
                if "no index yet" in str(exc):
                    raise NoIndex() from None
                raise
        return self._searcher

    def _drop_searcher(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None

    def remember(self, applied: tagging.Applied) -> str:
        key = secrets.token_urlsafe(12)
        with self._applied_lock:
            self._applied[key] = applied
            while len(self._applied) > KEPT_UNDOS:
                self._applied.popitem(last=False)
        return key

    def keep(self, key: str, applied: tagging.Applied) -> None:
        with self._applied_lock:
            self._applied[key] = applied

    def take(self, key: str) -> tagging.Applied | None:
        with self._applied_lock:
            return self._applied.pop(key, None)

    def refresh_index(self) -> None:
        """Carry new tags into the index (no re-embedding), if there is one."""
        if self.has_index():
            self.index_job.start("refresh")


class IndexJob:
    """One index run at a time, in a background thread, with progress to poll."""

    def __init__(self, owner: Dashboard):
        self.owner = owner
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self.state = {"state": "idle"}

    def start(self, reason: str = "reindex") -> bool:
        """Start a run; False when one is already running (a refresh then runs again after it)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                if reason == "refresh":
                    self._again = True
                return False
            self.state = self._fresh(reason)
            self._thread = threading.Thread(target=self._work, name="tachikoma-index", daemon=True)
            self._thread.start()
            return True

    @staticmethod
    def _fresh(reason: str) -> dict:
        return {"state": "running", "reason": reason, "done": 0, "total": 0, "path": "",
                "started": time.time(), "finished": None, "summary": None, "line": None, "error": None}

    def snapshot(self) -> dict:
        with self._lock:
            return dict(self.state)

    def wait(self, timeout: float | None = None) -> dict:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.snapshot()

    def _progress(self, done: int, total: int, path: str) -> None:
        with self._lock:
            self.state.update(done=done, total=total, path=path)

    def _work(self) -> None:
        while True:
            outcome: dict
            try:
                summary = indexer.run(self.owner.root, self.owner.config(), progress=self._progress)
                outcome = {"state": "done", "summary": summary.as_dict(), "line": summary.line()}
            except TachikomaError as exc:
                outcome = {"state": "failed", "error": str(exc),
                           "embedder_error": isinstance(exc, EmbedderError)}
            except Exception as exc:  # noqa: BLE001 - reported on the page instead of dying silently
                log.exception("index run failed")
                outcome = {"state": "failed", "error": f"unexpected error: {type(exc).__name__}: {exc}"}
            with self._lock:
                if self._again:
                    self._again = False
                    self.state = self._fresh("refresh")
                    continue
                self.state.update(outcome, finished=time.time())
                return


# --------------------------------------------------------------------------- guards and headers


def _split_host(value: str) -> tuple[str, str | None]:
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            return value, None
        name, rest = value[:end + 1], value[end + 1:]
        return name, rest[1:] if rest.startswith(":") else None
    if value.count(":") == 1:
        name, port = value.split(":")
        return name, port
    return value, None


def _host_label(host: str) -> str:
    host = host.strip().lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def host_allowed(app: Flask, header: str) -> bool:
    name, port = _split_host(header)
    names = set(LOOPBACK_NAMES) | set(app.config["TACHIKOMA_ALLOWED_HOSTS"])
    configured = app.config["TACHIKOMA_HOST"] or ""
    if configured not in WILDCARD_HOSTS:
        names.add(_host_label(configured))
    if name not in names:
        return False
    served = app.config["TACHIKOMA_PORT"]
    if served is None:
        return True
    return port == str(served) or (port is None and int(served) == 80)


def _install_guards(app: Flask) -> None:
    @app.before_request
    def refuse_foreign_host():
        header = request.headers.get("Host", "")
        if not host_allowed(app, header):
            return error_response(421, "Misdirected request",
                                  f"this dashboard does not answer to the host {header!r}; "
                                  "open it at the address `tachikoma serve` printed")
        return None

    @app.after_request
    def security_headers(response):
        h = response.headers
        h["Content-Security-Policy"] = CSP
        h["X-Content-Type-Options"] = "nosniff"
        h["Referrer-Policy"] = "no-referrer"
        h["X-Frame-Options"] = "DENY"
        h["Cross-Origin-Opener-Policy"] = "same-origin"
        h["Cross-Origin-Resource-Policy"] = "same-origin"
        if response.mimetype == "text/html":
            response.vary.add("HX-Request")
            h.setdefault("Cache-Control", "no-cache")
        return response

    @app.errorhandler(CSRFError)
    def csrf_refused(exc):
        return error_response(400, "Request refused",
                              f"{exc.description} Nothing was changed: reload the page and try again.")

    @app.errorhandler(404)
    def not_found(exc):
        return error_response(404, "Not found", "there is no such page or memory file here")

    @app.errorhandler(405)
    def not_allowed(exc):
        return error_response(405, "Method not allowed", "this address does not accept that request")

    @app.errorhandler(413)
    def too_large(exc):
        return error_response(413, "Request too large", "the form sent was larger than 1 MB")

    @app.errorhandler(500)
    def failed(exc):
        return error_response(500, "Something went wrong", "the dashboard hit an unexpected error; "
                                                           "the server log has the details")


def wants_json() -> bool:
    return request.path.startswith("/api/")


def error_response(status: int, title: str, message: str, hint: str | None = None):
    if wants_json():
        return json_response({"error": message, "status": status}, status)
    return page("error.html", "partials/error.html", status=status, code=status, title=title,
                message=message, hint=hint)


def json_response(payload, status: int = 200):
    body = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    response = make_response(body, status)
    response.mimetype = "application/json"
    return response


def is_fragment_request() -> bool:
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def page(full: str, fragment: str, status: int = 200, **ctx):
    """The whole page for a normal request, only `fragment` for an htmx request."""
    template = fragment if is_fragment_request() else full
    ctx.setdefault("fragment", fragment)
    response = make_response(render_template(template, **ctx), status)
    response.vary.add("HX-Request")
    return response


# --------------------------------------------------------------------------- text helpers


STOP_WORDS = frozenset("""a an and are as at be by did do does for from has have he her his how i in is it
its me my of on or our she that the their them they this to was we were what when where which who why
will with you your""".split())
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting (no stop words, longest first)."""
    words = {w.lower() for w in _WORD.findall(query or "") if len(w) > 1 and w.lower() not in STOP_WORDS}
    return sorted(words, key=lambda w: (-len(w), w))


def _terms_pattern(terms: list[str]) -> re.Pattern | None:
    if not terms:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + r")\w*", re.IGNORECASE)


def highlight(text: str, query: str) -> Markup:
    """`text` escaped, with words that start like a query word wrapped in <mark>."""
    pattern = _terms_pattern(query_terms(query))
    if pattern is None:
        return Markup(escape(text))
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(str(escape(text[last:match.start()])))
        out.append(f"<mark>{escape(match.group(0))}</mark>")
        last = match.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


def snippet(text: str, query: str, width: int = 360) -> str:
    """At most about `width` characters of `text`, around the first query word, without blank lines."""
    text = re.sub(r"\n\s*\n+", "\n", text.strip())
    if len(text) <= width:
        return text
    pattern = _terms_pattern(query_terms(query))
    match = pattern.search(text) if pattern else None
    start = 0
    if match and match.start() > width // 3:
        start = text.rfind(" ", 0, match.start() - width // 4) + 1
    end = start + width
    cut = text.rfind(" ", start, end)
    end = cut if cut > start + width // 2 else end
    return ("… " if start else "") + text[start:end].rstrip() + " …"


def ago(days: float | None) -> str:
    if days is None:
        return "never"
    if days < 1:
        hours = days * 24
        if hours < 1:
            minutes = int(hours * 60)
            return "just now" if minutes < 1 else f"{minutes} minute{'s' if minutes != 1 else ''} ago"
        return f"{int(hours)} hour{'s' if int(hours) != 1 else ''} ago"
    n = int(days)
    return f"{n} day{'s' if n != 1 else ''} ago"


DATE_SOURCES = {"frontmatter": "front matter", "git": "git", "mtime": "file time"}


def explain(result: dict) -> dict:
    """What the explanation panel shows: a bar per factor, where it came from, the arithmetic."""
    f = result["factors"]
    trust = f"trust: {f['trust']}" if f["trust"] else "trust: none (missing or invalid)"
    confidence = f"confidence: {f['confidence']}" if f["confidence"] else "confidence: none (missing or invalid)"
    penalty = f["duplicate_penalty"]
    rows = [
        {"name": "similarity", "value": f["similarity"], "source": "how close the passage's meaning is to the query"},
        {"name": "trust", "value": f["trust_weight"], "source": trust},
        {"name": "confidence", "value": f["confidence_weight"], "source": confidence},
        {"name": "recency", "value": f["recency"],
         "source": f"updated {ago(f['age_days'])} ({DATE_SOURCES.get(f['date_source'], f['date_source'])})",
         "title": f["date"]},
        {"name": "duplicate penalty", "value": penalty,
         "source": "first passage from this file" if penalty >= 1 else "a better passage from this file ranks above"},
    ]
    if "vector_similarity" in f:  # hybrid search: similarity fuses meaning (vectors) and keywords (BM25)
        rows[0]["source"] = _fusion_text(f)
        rows[1:1] = [
            {"name": "meaning", "value": f["vector_similarity"], "sub": True,
             "source": "cosine similarity of the query's and the passage's embeddings"},
            {"name": "keywords", "value": f["keyword_score"], "sub": True,
             "source": "BM25 keyword match (the query's best match = 1)"},
        ]
    terms = [f["similarity"], f["trust_weight"], f["confidence_weight"], f["recency"]]
    names = ["similarity", "trust", "confidence", "recency"]
    if penalty < 1:
        terms.append(penalty)
        names.append("duplicate penalty")
    arithmetic = " × ".join(f"{t:.2f}" for t in terms) + f" = {result['score']:.2f}"
    return {"rows": rows, "arithmetic": arithmetic, "formula": " × ".join(names) + " = score"}


def _fusion_text(f: dict) -> str:
    fusion = f.get("fusion") or {}
    w = float(fusion.get("keyword_weight", 0.0))
    v, k = f["vector_similarity"], f["keyword_score"]
    if fusion.get("method") == "rrf":
        return (f"reciprocal rank fusion of meaning ({v:.2f}) and keywords ({k:.2f}), "
                f"keyword weight {w:g}, k = {float(fusion.get('rrf_k', 60)):g}")
    return f"{1 - w:.2f} × meaning {v:.2f} + {w:.2f} × keywords {k:.2f}"


# --------------------------------------------------------------------------- rendering memory files


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
MD_EXTENSIONS = ["fenced_code", "tables", "sane_lists"]
URL_SCHEMES = {"http", "https", "mailto"}


@dataclass
class Block:
    start: int
    end: int
    lines: list[str]
    html: Markup = Markup("")
    hit: bool = False
    first: bool = False  # the first block of the highlighted chunk (scrolled to)


def split_blocks(text: str, first_line: int) -> list[Block]:
    """Markdown split at blank lines (outside code fences) into blocks with file line numbers.

    A block that continues a list (indented, or another list item after a
    list) stays with the block before it, so loose lists render as one list.
    """
    blocks: list[Block] = []
    current: list[str] = []
    start = first_line
    fence: str | None = None
    lines = text.split("\n")
    for offset, line in enumerate(lines):
        number = first_line + offset
        marker = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
            continue
        if marker:
            fence = marker.group(1)
        if not line.strip():
            if current:
                blocks.append(Block(start, number - 1, current))
                current = []
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        blocks.append(Block(start, first_line + len(lines) - 1, current))
    merged: list[Block] = []
    for block in blocks:
        first = block.lines[0]
        if merged and (first[:1] in (" ", "\t") or (_LIST_ITEM.match(first) and _LIST_ITEM.match(merged[-1].lines[0]))):
            prev = merged[-1]
            prev.lines += [""] * (block.start - prev.end - 1) + block.lines
            prev.end = block.end
        else:
            merged.append(block)
    return merged


def sanitise(html: str, base: str) -> Markup:
    """HTML from markdown made safe: no script, no event handlers, no javascript: links.

    Relative links are pointed at the dashboard's page for that memory file.
    """
    def rewrite(element: str, attribute: str, value: str) -> str | None:
        if attribute in ("href", "src") and value and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^[/#?]", value):
            target = _join_rel(base, value)
            return url_for("file_page", rel=target) if target else None
        return value

    return Markup(nh3.clean(html, url_schemes=URL_SCHEMES, attribute_filter=rewrite,
                            link_rel="noopener noreferrer nofollow"))


def _join_rel(base: str, link: str) -> str | None:
    link = link.split("#", 1)[0].split("?", 1)[0]
    parts: list[str] = list(PurePosixPath(base).parent.parts)
    for part in link.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or None


def render_markdown(text: str, first_line: int, rel_path: str, lines: tuple[int, int] | None) -> list[Block]:
    """Markdown rendered block by block (so a chunk's lines can be highlighted), sanitised."""
    blocks = split_blocks(text, first_line)
    refs = [line for line in text.split("\n") if _REF_DEF.match(line)]
    converter = markdown.Markdown(extensions=MD_EXTENSIONS, output_format="html")
    for block in blocks:
        source = "\n".join(block.lines + ([""] + refs if refs else []))
        block.html = sanitise(converter.reset().convert(source), rel_path)
        block.hit = bool(lines) and block.start <= lines[1] and block.end >= lines[0]
    return [b for b in blocks if str(b.html).strip()]


def parse_lines(value: str | None) -> tuple[int, int] | None:
    match = re.fullmatch(r"\s*(\d{1,9})\s*(?:[-–:]\s*(\d{1,9}))?\s*", value or "")
    if not match:
        return None
    a = int(match.group(1))
    b = int(match.group(2) or a)
    return (min(a, b), max(a, b))


SPEAKER_CLASSES = {"user", "assistant", "system", "summary", "tool"}


def speaker_class(speaker: str) -> str:
    name = (speaker or "").strip().lower()
    return name if name in SPEAKER_CLASSES else "other"


# --------------------------------------------------------------------------- forms


def _int(value: str | None, default: int) -> int | None:
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError:
        return None


@dataclass
class SearchForm:
    q: str = ""
    kind: str = ""
    trust: str = ""
    untagged: bool = False
    limit: int = 10
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, args) -> "SearchForm":
        form = cls(q=(args.get("q") or "").strip(), kind=(args.get("kind") or "").strip().lower(),
                   trust=(args.get("trust") or "").strip().lower(),
                   untagged=(args.get("untagged") or "") not in ("", "0", "false", "off"))
        if form.kind and form.kind not in KINDS:
            form.errors["kind"] = f"kind must be {' or '.join(KINDS)}"
        if form.trust and form.trust not in (*TRUST_VALUES, "missing"):
            form.errors["trust"] = f"trust must be one of {', '.join(TRUST_VALUES)} or missing"
        limit = _int(args.get("limit"), 10)
        if limit is None or not 1 <= limit <= MAX_LIMIT:
            form.errors["limit"] = f"limit must be a whole number from 1 to {MAX_LIMIT}"
        else:
            form.limit = limit
        return form

    def filters(self) -> Filters:
        return Filters(kind=self.kind or None, trust=self.trust or None, untagged=self.untagged)

    @property
    def filtered(self) -> bool:
        return bool(self.kind or self.trust or self.untagged)

    def args(self, **changes) -> dict:
        values = {"q": self.q, "kind": self.kind, "trust": self.trust,
                  "untagged": "1" if self.untagged else "", "limit": self.limit if self.limit != 10 else ""}
        values.update(changes)
        return {k: v for k, v in values.items() if v not in ("", None)}


@dataclass
class TagForm:
    """The bulk tagging form: which files (selector) and which values."""

    kind: str = ""
    path: str = ""
    untagged: bool = False
    after: str = ""
    before: str = ""
    trust: str = ""
    confidence: str = ""
    source: str = ""
    mode: str = "fill"
    errors: dict[str, str] = field(default_factory=dict)
    FIELDS = ("kind", "path", "untagged", "after", "before", "trust", "confidence", "source", "mode")

    @classmethod
    def read(cls, data) -> "TagForm":
        text = lambda name: (data.get(name) or "").strip()  # noqa: E731
        return cls(kind=text("kind").lower(), path=text("path"),
                   untagged=text("untagged") not in ("", "0", "false", "off"),
                   after=text("after"), before=text("before"), trust=text("trust").lower(),
                   confidence=text("confidence").lower(), source=text("source"),
                   mode="overwrite" if text("mode") == "overwrite" else "fill")

    @property
    def overwrite(self) -> bool:
        return self.mode == "overwrite"

    def parse(self) -> tuple[tagging.Selector, dict[str, str]] | None:
        """The selector and checked values, or None with `errors` filled in."""
        if self.kind and self.kind not in KINDS:
            self.errors["kind"] = f"kind must be {' or '.join(KINDS)}"
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
        for key in TAG_KEYS:
            raw = getattr(self, key)
            if raw:
                try:
                    values.update(tagging.check_values({key: raw}))
                except InvalidTagValue as exc:
                    self.errors[key] = str(exc)
        if not values and not any(k in self.errors for k in TAG_KEYS):
            self.errors["values"] = "choose at least one value to set: trust, confidence or source"
        if self.errors:
            return None
        selector = tagging.Selector(kind=self.kind or None, pattern=self.path or None, untagged_only=self.untagged,
                                    modified_since=dates.get("after"), modified_until=dates.get("before"))
        return selector, values

    def args(self) -> dict:
        values = {name: getattr(self, name) for name in self.FIELDS}
        values["untagged"] = "1" if self.untagged else ""
        return {k: v for k, v in values.items() if v}


def plan_fingerprint(plan: tagging.Plan) -> str:
    """Identifies the exact changes a preview showed, so Apply writes only those."""
    data = [[c.path, c.kind, c.before, c.after] for c in plan.changes]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:24]


# --------------------------------------------------------------------------- template helpers


def _install_filters(app: Flask) -> None:
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.filters.update(
        highlight=highlight, snippet=snippet, ago=ago,
        num=lambda x, digits=2: f"{x:.{digits}f}",
        pct=lambda x: f"{x:.1f}".rstrip("0").rstrip(".") + "%" if isinstance(x, (int, float)) else "–",
        fraction=lambda part, whole: (100.0 * part / whole) if whole else 0.0,
        when=_format_when,
    )
    app.jinja_env.globals.update(
        explain=explain, speaker_class=speaker_class, STATUSES=STATUSES, KINDS=KINDS,
        TRUST_VALUES=TRUST_VALUES, CONFIDENCE_VALUES=CONFIDENCE_VALUES, TAG_KEYS=TAG_KEYS,
        htmx_available=lambda: _htmx_path() is not None,
    )

    @app.context_processor
    def common():
        return {"memory_root": str(app.config["TACHIKOMA_ROOT"]), "nav": request.endpoint or ""}


def _format_when(value) -> dict:
    """{"text": local date and time, "ago": "3 minutes ago", "iso": ...} for seconds or ISO text."""
    if value in (None, ""):
        return {"text": "never", "ago": "never", "iso": ""}
    try:
        if isinstance(value, (int, float)) or re.fullmatch(r"\d+(\.\d+)?", str(value)):
            moment = datetime.fromtimestamp(float(value), timezone.utc)
        else:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError, OSError):
        return {"text": str(value), "ago": "", "iso": str(value)}
    days = (datetime.now(timezone.utc) - moment).total_seconds() / 86400
    return {"text": moment.astimezone().strftime("%Y-%m-%d %H:%M"), "ago": ago(max(days, 0.0)),
            "iso": moment.isoformat(timespec="seconds")}


def _htmx_path() -> Path | None:
    spec = importlib.util.find_spec("js_lib_htmx")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "static" / "htmx" / "htmx.min.js"
        if candidate.is_file():
            return candidate
    return None


# --------------------------------------------------------------------------- routes


def _install_routes(app: Flask) -> None:  # noqa: C901 - one place that lists every route
    @app.get("/vendor/htmx.min.js")
    def htmx_js():
        path = _htmx_path()
        if path is None:
            abort(404)
        return send_file(path, mimetype="text/javascript", max_age=3600)

    # -- search ----------------------------------------------------------------

    @app.get("/")
    def search():
        form = SearchForm.read(request.args)
        ctx = {"form": form, "answer": None, "error": None, "no_index": False}
        status = 400 if form.errors else 200
        if not form.errors and form.q:
            try:
                ctx["answer"] = dash().search(form.q, form.limit, form.filters())
            except NoIndex:
                ctx["no_index"] = True
            except EmbedderError as exc:
                ctx["error"] = {"title": "The embedder is not available", "message": str(exc)}
                status = 503
            except TachikomaError as exc:
                ctx["error"] = {"title": "Search failed", "message": str(exc)}
                status = 500
        elif not form.q:
            ctx["no_index"] = not dash().has_index()
            dash().warm_up()
            job = dash().index_job.snapshot()
            if job["state"] == "done" and job["reason"] == "reindex" and time.time() - job["finished"] < 120:
                ctx["fresh_job"] = job  # just re-indexed from this page: say so with the summary
        if ctx["no_index"]:
            ctx["job"] = dash().index_job.snapshot()
        return page("search.html", "partials/results.html", status=status, **ctx)

    @app.get("/api/search")
    def api_search():
        form = SearchForm.read(request.args)
        if not form.q:
            return json_response({"error": "empty query: pass q=what to look for", "status": 400}, 400)
        if form.errors:
            message = "; ".join(form.errors.values())
            return json_response({"error": message, "status": 400}, 400)
        try:
            return json_response(dash().search(form.q, form.limit, form.filters()))
        except NoIndex as exc:
            return json_response({"error": str(exc), "status": 503}, 503)
        except EmbedderError as exc:
            return json_response({"error": str(exc), "status": 503}, 503)
        except TachikomaError as exc:
            return json_response({"error": str(exc), "status": 500}, 500)

    # -- one memory file ---------------------------------------------------------

    @app.get("/file/<path:rel>")
    def file_page(rel: str):
        root = dash().root
        kind = memory.kind_of(rel)
        try:
            path = memory.safe_path(root, rel)
        except memory.PathOutsideMemory:
            abort(404)
        if kind is None or not path.is_file():
            abort(404)
        try:
            config = dash().config()
        except TachikomaError:
            config = None
        doc = read_document(root, rel, kind, max_bytes=config.max_file_bytes if config else 5_000_000)
        lines = parse_lines(request.args.get("lines"))
        warnings = list(doc.warnings)
        if kind == MARKDOWN:
            tags = doc.tags
            blocks = render_markdown(doc.text, doc.body_line, rel, lines)
            turns = []
            hits = [b for b in blocks if b.hit]
            if hits:
                hits[0].first = True
        else:
            try:
                tags = tagfile.load(root).tags_for(rel)
            except TachikomaError as exc:
                tags = Tags()
                warnings.append(str(exc))
            blocks, hits = [], []
            turns = [{"turn": t, "hit": bool(lines) and lines[0] <= t.line <= lines[1], "first": False}
                     for t in doc.turns]
            hits = [t for t in turns if t["hit"]]
            if hits:
                hits[0]["first"] = True
        meta = {k: v for k, v in doc.meta.items() if str(k).strip().lower() not in TAG_KEYS}
        return page("file.html", "partials/file_body.html", rel=rel, kind=kind, doc=doc, tags=tags,
                    meta=meta, blocks=blocks, turns=turns, lines=lines, warnings=warnings, found=bool(hits))

    # -- coverage ------------------------------------------------------------------

    @app.get("/coverage")
    def coverage():
        try:
            report = stats.report(dash().root)
        except TachikomaError as exc:
            return page("coverage.html", "partials/coverage.html", status=500, report=None,
                        error=str(exc), job=dash().index_job.snapshot())
        return page("coverage.html", "partials/coverage.html", report=report, error=None,
                    job=dash().index_job.snapshot())

    @app.get("/api/stats")
    def api_stats():
        try:
            return json_response(stats.report(dash().root))
        except TachikomaError as exc:
            return json_response({"error": str(exc), "status": 500}, 500)

    # -- bulk tagging -------------------------------------------------------------

    @app.get("/tag")
    def tag():
        form = TagForm.read(request.args)
        ctx = {"form": form, "plan": None, "fingerprint": None, "error": None, "stale": False}
        status = 200
        if "preview" in request.args:
            status = _preview(form, ctx)
        return page("tag.html", "partials/tag_preview.html", status=status, **ctx)

    def _preview(form: TagForm, ctx: dict) -> int:
        parsed = form.parse()
        if parsed is None:
            return 400
        selector, values = parsed
        try:
            plan = tagging.plan(dash().root, values, selector, overwrite=form.overwrite)
        except TachikomaError as exc:
            ctx["error"] = str(exc)
            return 500
        ctx["plan"], ctx["fingerprint"] = plan, plan_fingerprint(plan)
        return 200

    @app.post("/tag/apply")
    def tag_apply():
        form = TagForm.read(request.form)
        ctx = {"form": form, "plan": None, "fingerprint": None, "error": None, "stale": False}
        status = _preview(form, ctx)
        if ctx["plan"] is None:
            return page("tag.html", "partials/tag_preview.html", status=status, **ctx)
        if ctx["fingerprint"] != request.form.get("fingerprint"):
            ctx["stale"] = True  # the files changed since the preview: show the new one, write nothing
            return page("tag.html", "partials/tag_preview.html", status=409, **ctx)
        try:
            applied = tagging.apply(dash().root, ctx["plan"], commit=True)
        except TachikomaError as exc:
            ctx["error"] = str(exc)
            return page("tag.html", "partials/tag_preview.html", status=500, **ctx)
        undo_id = dash().remember(applied) if applied.changes else None
        dash().refresh_index()
        return page("tag.html", "partials/tag_applied.html", form=form, applied=applied, undo_id=undo_id,
                    coverage=_coverage_or_none(), undone=False)

    @app.post("/tag/undo/<undo_id>")
    def tag_undo(undo_id: str):
        applied = dash().take(undo_id)
        form = TagForm.read(request.form)
        if applied is None:
            return error_response(404, "Nothing to undo",
                                  "this change was already undone, or the server restarted since it was made; "
                                  "revert its git commit instead (`git log`, then `git revert <commit>`)")
        try:
            undone = tagging.undo(dash().root, applied, commit=True)
        except TachikomaError as exc:
            dash().keep(undo_id, applied)  # still undoable once the problem is fixed
            return error_response(500, "Undo failed", str(exc))
        dash().refresh_index()
        return page("tag.html", "partials/tag_applied.html", form=form, applied=undone, undo_id=None,
                    coverage=_coverage_or_none(), undone=True)

    def _coverage_or_none():
        try:
            return stats.coverage(dash().root)
        except TachikomaError:
            return None

    # -- re-index -------------------------------------------------------------------

    @app.get("/reindex")
    def reindex_page():
        try:
            fresh = indexer.freshness(dash().root)
        except TachikomaError as exc:
            fresh = {"error": str(exc)}
        return page("reindex.html", "partials/reindex.html", job=dash().index_job.snapshot(),
                    has_index=dash().has_index(), fresh=fresh)

    @app.get("/reindex/status")
    def reindex_status():
        job = dash().index_job.snapshot()
        response = page("reindex.html", "partials/reindex.html", job=job, has_index=dash().has_index())
        if request.args.get("poll") and job["state"] in ("done", "failed"):
            response.headers["HX-Trigger"] = "index-updated"  # pages showing index data refresh themselves
        return response

    @app.post("/reindex")
    def reindex_start():
        started = dash().index_job.start("reindex")
        if not is_fragment_request():
            return redirect(url_for("reindex_page"), code=303)
        return page("reindex.html", "partials/reindex.html", status=202 if started else 409,
                    job=dash().index_job.snapshot(), has_index=dash().has_index(), already=not started)
