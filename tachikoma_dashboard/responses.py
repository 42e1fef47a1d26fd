"""How the dashboard answers: a full page, or only the fragment an htmx request
swaps in; JSON for /api/; error pages in either form."""

from __future__ import annotations

from flask import Flask, current_app, make_response, render_template, request

from tachikoma.errors import BadQuery, EmbedderError, StoreUnreachable, TachikomaError
from tachikoma.memory import TAG_FILE
from tachikoma.replies.reply import dumps
from tachikoma.reading.tagfile import TagFileError
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
    app.register_error_handler(TachikomaError, tachikoma_error)


def tachikoma_error(exc: TachikomaError):
    """A TachikomaError no route caught (a store that cannot be reached while a page asks whether there is
    an index): its one line, on the page and in the server's log, never a traceback."""
    status = failure_status(exc)
    current_app.logger.error("%s %s: %s", request.method, request.path, exc)
    title = "The index cannot be reached" if isinstance(exc, StoreUnreachable) else "Something went wrong"
    return error_response(status, title, str(exc))


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
    """`payload` as a JSON body, compact and its floats rounded (`tachikoma.replies.reply.dumps`): a program reads it."""
    body = dumps(payload) + "\n"
    response = make_response(body, status)
    response.mimetype = "application/json"
    return response


def json_error(message: str, status: int, **details):
    return json_response({"error": message, "status": status, **details}, status)


#: A malformed tag file is the memory's problem, not the server's: nothing can be counted until it is fixed.
TAG_FILE_STATUS = 503


def counting_failure(exc: TachikomaError) -> tuple[dict, int]:
    """Why coverage could not be counted, for a page or JSON, and the status: see `tag_file_problem`."""
    if isinstance(exc, TagFileError):
        return tag_file_problem(exc), TAG_FILE_STATUS
    return {"file": None, "line": None, "problem": str(exc), "message": str(exc)}, 500


def tag_file_problem(exc: TagFileError) -> dict:
    """What is wrong with the tag file, for a page or JSON: {"file", "line", "problem", "message"}.

    "message" is one sentence that fits a read-only page (it does not tell
    the reader to retry a tagging they never started).
    """
    where = f"{TAG_FILE}, line {exc.line}" if exc.line else TAG_FILE
    return {"file": TAG_FILE, "line": exc.line, "problem": exc.problem,
            "message": f"{where}: {exc.problem}. Tags are read from this file, so nothing can be counted "
                       "until it is fixed in an editor; the dashboard has not changed it."}


def error_response(status: int, title: str, message: str, hint: str | None = None):
    """JSON under /api/, else the error page (or its fragment)."""
    if request.path.startswith("/api/"):
        return json_error(message, status)
    return page("error.html", "partials/error.html", status=status, code=status, title=title,
                message=message, hint=hint)


def failure_status(exc: TachikomaError) -> int:
    """400 for a query that cannot be searched as asked, 503 when searching needs something that is
    not there yet (index, embedder), else 500."""
    if isinstance(exc, BadQuery):
        return 400
    return 503 if isinstance(exc, (NoIndex, EmbedderError, StoreUnreachable)) else 500
