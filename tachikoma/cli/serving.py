"""`tachikoma serve` (the dashboard, and MCP over HTTP beside it) and `tachikoma mcp` (MCP on stdio)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import TachikomaError
from . import common


def cmd_serve(args) -> int:
    root = common.root(args)
    mcp = args.mcp or args.mcp_read_only or args.mcp_allow_owner_trust
    from ..web.access import is_loopback

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
        from tachikoma_dashboard.app import create_app

        from ..web import serving
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
    from ..mcp_server import dashboard_with_mcp

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
    from ..config import load_config
    from ..web.access import load_access

    return load_access(root, load_config(root, args.config).serve, tokens_file=args.tokens_file,
                       trusted_proxies=tuple(args.trusted_proxy or ()), public_url=args.public_url)


def cmd_mcp(args) -> int:
    root = common.root(args)
    try:
        from ..mcp_server import run_stdio
    except ImportError as exc:
        raise TachikomaError(f"the MCP server is not available ({exc}); install the `mcp` package") from None
    run_stdio(root, args.config, read_only=args.read_only, watch=not args.no_watch,
              allow_owner_trust=args.allow_owner_trust)
    return 0

