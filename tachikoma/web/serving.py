"""How `tachikoma serve` serves: production servers, quiet consoles, slow clients kept from the threads.

- The dashboard alone runs on waitress: a WSGI server that reads every
  request in full in its event loop before a worker thread sees it, so a
  client that sends its body a byte at a time holds a socket, not a thread.
- With ``--mcp`` the MCP transport (an ASGI app that streams) and the
  dashboard (WSGI, bridged by a2wsgi into a pool of threads) share uvicorn.
  The bridge would hand a thread a body still arriving, and ten slow
  clients would hold all ten; `WholeBodies` receives the body first, within
  a deadline and a size limit, and only then takes a thread.

The console says where the server is, what went wrong and each index run;
not a line per request.
"""

from __future__ import annotations

import asyncio
import logging
import sys

#: Threads answering dashboard requests (the index runs in its own thread).
THREADS = 8
#: Open connections waitress keeps before it stops accepting: slow clients cost a socket each.
CONNECTION_LIMIT = 1000
#: A dashboard request's body (a form) must arrive within this many seconds.
BODY_SECONDS = 30
#: An idle connection is closed after this many seconds.
IDLE_SECONDS = 60


def url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def quiet_logging() -> None:
    """The server's console (set before the app starts its watcher): warnings and errors from everything
    on stderr, tachikoma's own news (index runs) too, and no line per request."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    ours = logging.getLogger("tachikoma")
    if not ours.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        ours.addHandler(handler)
    ours.setLevel(logging.INFO)
    ours.propagate = False
    for name in ("waitress", "mcp", "uvicorn", "httpx"):  # their "serving on" and per-request lines
        logging.getLogger(name).setLevel(logging.WARNING)


def access_note(app) -> str:
    """What the address line says about who may come in (a shared server asks everyone), and where to open
    it when the bound address is not one (0.0.0.0) or people use a public address."""
    access = app.config.get("TACHIKOMA_ACCESS")
    note = "for signed-in users " if access is not None else ""
    if access is not None and access.public_url:
        note += f"at {access.public_url} "
    elif (app.config.get("TACHIKOMA_HOST") or "") in ("0.0.0.0", "::", ""):
        note += f"(every address; open it here at {url('127.0.0.1', app.config.get('TACHIKOMA_PORT') or 5000)}/) "
    return note


def serve_dashboard(app, host: str, port: int) -> None:
    """Serve the Flask `app` on waitress until interrupted."""
    from waitress import create_server

    server = create_server(app, host=host, port=port, threads=THREADS, connection_limit=CONNECTION_LIMIT,
                           channel_timeout=IDLE_SECONDS, asyncore_use_poll=True, ident="tachikoma",
                           max_request_body_size=app.config["MAX_CONTENT_LENGTH"])
    print(f"dashboard on {url(host, port)}/ {access_note(app)}(Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        server.run()
    finally:
        server.close()


def serve_asgi(app, host: str, port: int) -> None:
    """Serve the ASGI `app` (the dashboard beside MCP) on uvicorn until interrupted or terminated.

    uvicorn's own X-Forwarded-For handling is off: by default it believes that header from 127.0.0.1
    and would make any local program look like a trusted proxy's address (`tachikoma.web.access`
    decides which proxies to believe, from the connection's own address)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, timeout_keep_alive=5,
                timeout_graceful_shutdown=5, proxy_headers=False)


def bridged_dashboard(wsgi_app):
    """The WSGI dashboard as an ASGI app: a2wsgi's thread pool behind `WholeBodies`."""
    from a2wsgi import WSGIMiddleware

    return WholeBodies(WSGIMiddleware(wsgi_app, workers=THREADS), wsgi_app.config["MAX_CONTENT_LENGTH"])


class WholeBodies:
    """ASGI middleware: the request body is received in full before `app` runs, within `seconds`
    (else 408) and at most `max_bytes` long (else 413). A bridged WSGI app then never waits in a
    thread for a slow client."""

    def __init__(self, app, max_bytes: int, seconds: float | None = None):
        self.app = app
        self.max_bytes = max_bytes
        self.seconds = BODY_SECONDS if seconds is None else seconds

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if length.isdigit() and int(length) > self.max_bytes:
            return await _refuse(send, 413, f"the request body is larger than {self.max_bytes:,} bytes")
        chunks, size = [], 0
        try:
            async with asyncio.timeout(self.seconds):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    if size > self.max_bytes:
                        return await _refuse(send, 413, f"the request body is larger than {self.max_bytes:,} bytes")
                    if not message.get("more_body"):
                        break
        except TimeoutError:
            return await _refuse(send, 408, f"the request body did not arrive within {self.seconds:g} s")
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        given = False

        async def replay():
            nonlocal given
            if not given:
                given = True
                return whole
            return await receive()  # a disconnect, for whoever listens for one

        return await self.app(scope, replay, send)


async def _refuse(send, status: int, reason: str) -> None:
    body = f"{reason}; nothing was changed\n".encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
