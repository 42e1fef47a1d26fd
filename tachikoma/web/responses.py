"""How the dashboard answers: a full page, or only the fragment an htmx request
swaps in; JSON for /api/; error pages in either form."""

from __future__ import annotations

import json

from flask import Flask, make_response, render_template, request

from tachikoma.errors import EmbedderError, TachikomaError
from tachikoma.web.state import NoIndex

ERROR_PAGES = {
    404: ("Not found", "there is no such page or memory file here"),
    405: ("Method not allowed", "this address does not accept that request"),
    413: ("Request too large", "the form sent was larger than 1 MB"),
    500: ("Something went wrong", "the dashboard hit an unexpected error; the server log has the details"),
}


def install_error_pages(app: Flask) -> None:
    """The error page (or JSON under /api/) for each status in ERROR_PAGES."""
    for status, (title, message) in ERROR_PAGES.items():
        app.register_error_handler(status, lambda exc, s=status, t=title, m=message: error_response(s, t, m))


def is_fragment_request() -> bool:
    """An htmx request that swaps in part of a page (a history restore wants the whole page)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def page(full: str, fragment: str, status: int = 200, **ctx):
    """The whole page for a normal request, only `fragment` for an htmx request."""
    template = fragment if is_fragment_request() else full
    ctx.setdefault("fragment", fragment)
    response = make_response(render_template(template, **ctx), status)
    response.vary.add("HX-Request")
    return response


def json_response(payload, status: int = 200):
    body = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    response = make_response(body, status)
    response.mimetype = "application/json"
    return response


def json_error(message: str, status: int):
    return json_response({"error": message, "status": status}, status)


def error_response(status: int, title: str, message: str, hint: str | None = None):
    """JSON under /api/, else the error page (or its fragment)."""
    if request.path.startswith("/api/"):
        return json_error(message, status)
    return page("error.html", "partials/error.html", status=status, code=status, title=title,
                message=message, hint=hint)


def failure_status(exc: TachikomaError) -> int:
    """503 when searching needs something that is not there yet (index, embedder), else 500."""
    return 503 if isinstance(exc, (NoIndex, EmbedderError)) else 500
