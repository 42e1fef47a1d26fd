"""The dashboard's Flask application: `create_app`, which `tachikoma serve` calls, and so does
`flask --app app run` in a checkout (the top-level app.py; the memory folder then comes from
$TACHIKOMA_MEMORY) or `flask --app tachikoma_dashboard.app run` anywhere. Its routes are in
`tachikoma_dashboard.routes`: thin, they read the request, call the `tachikoma` package and render a
template.

The dashboard can rewrite memory files, so it defends itself:

- it binds to 127.0.0.1 by default (the CLI warns otherwise);
- requests whose Host header is not the served address are refused with
  421 (DNS rebinding), see `tachikoma_dashboard.guards`;
- every POST needs a CSRF token (flask-wtf; htmx sends it in a header);
- a strict Content-Security-Policy (no inline script or style) and the
  usual nosniff / referrer / frame headers are sent with every response;
- memory text is rendered escaped, or sanitised with nh3 after markdown
  (`tachikoma.web.memory_file`);
- files are only ever opened through `memory.safe_path`.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask
from flask_wtf.csrf import CSRFProtect
from htmx_flask import Htmx

from tachikoma.config import load_config
from tachikoma.memory_root import resolve_root
from tachikoma.web.access import Access
from tachikoma.web.state import Dashboard
from tachikoma_dashboard.guards import install_guards
from tachikoma_dashboard.login import install_login
from tachikoma_dashboard.responses import install_error_pages
from tachikoma_dashboard.routes import bp
from tachikoma_dashboard.templating import install_template_helpers


def _folder(name: str) -> str:
    """templates/ or static/: the copy a built wheel ships inside this package (see setup.py), else the
    folder at the top of the checkout (an editable install, or `flask --app app run` there)."""
    here = Path(__file__).resolve().parent
    shipped = here / name
    return str(shipped if shipped.is_dir() else here.parent / name)


def create_app(memory: str | os.PathLike | None = None, config: str | os.PathLike | None = None,
               host: str = "127.0.0.1", port: int | None = None, secret_key: str | None = None,
               allowed_hosts: tuple[str, ...] | list[str] = (), watch: bool = False,
               access: Access | None = None) -> Flask:
    """The dashboard for the memory folder `memory` (default $TACHIKOMA_MEMORY or ./memory).

    `host` and `port` are the address it is served on: only requests whose
    Host header names that address (or 127.0.0.1 / localhost / [::1] on that
    port) are answered. With `port` None any port is accepted for those
    names. `allowed_hosts` adds host names (e.g. a machine name when bound
    to 0.0.0.0). The secret key signing sessions and CSRF tokens is new for
    each process unless `secret_key` or $TACHIKOMA_SECRET_KEY is given.
    With `watch` the memory folder is watched and re-indexed on every change
    (`tachikoma serve` does so unless --no-watch). With `access` (a shared
    dashboard, `tachikoma.web.access`) every request needs a token, a
    trusted proxy's user header or a signed-in session, and the public
    address's host name passes the Host check.
    """
    root = resolve_root(memory)
    app = Flask(__name__, template_folder=_folder("templates"), static_folder=_folder("static"))
    app.config.update(
        SECRET_KEY=secret_key or os.environ.get("TACHIKOMA_SECRET_KEY") or secrets.token_hex(32),
        TACHIKOMA_ROOT=root,
        TACHIKOMA_HOST=host,
        TACHIKOMA_PORT=port,
        TACHIKOMA_ALLOWED_HOSTS=[h.lower() for h in allowed_hosts],
        TACHIKOMA_PUBLIC_HOSTS=[access.public_host()] if access is not None and access.public_url else [],
        WTF_CSRF_TIME_LIMIT=None,  # tied to the session; a tab left open all day still works
        SESSION_COOKIE_NAME=f"tachikoma_{port}" if port else "tachikoma",
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        MAX_CONTENT_LENGTH=1 << 20,
    )
    load_config(root, config)  # a broken settings file is an error at start, not on first search
    app.extensions["tachikoma"] = Dashboard(root, config)
    if watch:
        app.extensions["tachikoma"].start_watching()
    Htmx(app)
    install_guards(app)  # before CSRFProtect: a foreign Host is refused before anything else runs
    install_login(app, access)  # then who it is from; then CSRF (a POST from a signed-in browser needs it)
    CSRFProtect(app)
    install_error_pages(app)
    install_template_helpers(app)
    app.register_blueprint(bp)
    return app
