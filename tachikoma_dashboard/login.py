"""The dashboard's sign-in when it is shared (`tachikoma.web.access`): every request but the sign-in
page and the static files needs a bearer token, a trusted proxy's user header, or a signed-in session.

A browser signs in once with its token through a form (CSRF-protected like every POST); the session
cookie then carries the holder's name, an id of the token (never the token) and a random session id
that the server keeps (`Sessions`), is HttpOnly, SameSite=Strict and, when the public address is
https, Secure. Signing out ends the session on the server: a copy of the cookie is refused after it.
The tokens file is read again when it changes: after a token is removed from it, its sessions end at
their next request (the session's token id is no longer known), without a restart. Only owners
(people) use the dashboard: an agent's token reaches MCP only, so an agent cannot take the owner's
say-so through the dashboard's forms.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, current_app, g, make_response, redirect, render_template, request, session, url_for

from tachikoma_dashboard.responses import is_fragment_request, json_error
from tachikoma.web.access import UNAUTHORIZED, Access, Identity, Sessions, WrongToken

bp = Blueprint("login", __name__)
#: Reachable without signing in: the sign-in page and what it shows.
OPEN_ENDPOINTS = {"login.login_page", "login.login_submit", "static", "dashboard.htmx_js"}
WRONG_TOKEN = "That token was not accepted."
AGENT_TOKEN = ("That is an agent's token: it reaches MCP only (send it as `Authorization: Bearer <token>` to "
               "/mcp). The dashboard is for people: sign in with an owner's token.")


def install_login(app: Flask, access: Access | None) -> None:
    """Require an identity on every request when `access` is configured (before CSRFProtect runs, after
    the Host check); without it nothing changes and `g.identity` is None."""
    app.config["TACHIKOMA_ACCESS"] = access
    app.extensions["tachikoma_sessions"] = Sessions()
    if access is not None:
        app.config["SESSION_COOKIE_SECURE"] = access.secure_cookies
    app.register_blueprint(bp)
    app.before_request(require_identity)
    app.context_processor(lambda: {"identity": g.get("identity")})


def access() -> Access | None:
    return current_app.config.get("TACHIKOMA_ACCESS")


def sessions() -> Sessions:
    return current_app.extensions["tachikoma_sessions"]


def identity() -> Identity | None:
    """Who the current request comes from (None when the dashboard is not shared)."""
    return g.get("identity")


def require_identity():
    g.identity = None
    rules = access()
    if rules is None or request.endpoint in OPEN_ENDPOINTS:
        return None
    try:
        who = rules.identify(request.remote_addr, request.headers.get("Authorization"),
                             request.headers.get(rules.user_header))
    except WrongToken:
        return unauthorized()
    if who is None and "user" in session:
        live = sessions().holder(session.get("sid"))
        if live == (session["user"], session.get("token")):
            who = rules.by_token_id(session.get("token", ""), session["user"])
        if who is None:
            sessions().end(session.get("sid"))
            session.clear()  # signed out, or its token was removed
    if who is None:
        return unauthorized()
    if who.role != "owner":
        return refusal(403, f"{who.name} holds an agent's token, which reaches MCP only; the dashboard is "
                            "for people (owners)")
    g.identity = who
    return None


def unauthorized():
    """401 for the API, a fragment, a form post or a bearer client; a browser's page goes to sign in."""
    bearer_tried = bool(request.headers.get("Authorization"))
    if request.method == "GET" and not bearer_tried and not request.path.startswith("/api/"):
        target = url_for("login.login_page", next=request.full_path.rstrip("?"))
        if is_fragment_request():
            response = refusal(401, "Signed out: sign in again.")
            response.headers["HX-Redirect"] = target
            return response
        return redirect(target, code=303)
    response = refusal(401, UNAUTHORIZED)
    response.headers["WWW-Authenticate"] = 'Bearer realm="tachikoma"'
    return response


def refusal(status: int, message: str):
    """JSON under /api/, else the sign-in page with `message`: nothing of the memory (not even its
    folder, which the layout's footer shows) before signing in."""
    if request.path.startswith("/api/"):
        return json_error(message, status)
    back = safe_next(request.full_path.rstrip("?") if request.method == "GET" else "/")
    return make_response(render_template("login.html", error=message, next=back), status)


@bp.get("/login")
def login_page():
    return render_template("login.html", error=None, next=safe_next(request.args.get("next")))


@bp.post("/login")
def login_submit():
    rules = access()
    target = safe_next(request.form.get("next"))
    if rules is None:
        return redirect(target, code=303)
    token = request.form.get("token", "").strip()
    who = rules.by_token(token)
    if who is None:
        return render_template("login.html", error=WRONG_TOKEN, next=target), 401
    if who.role != "owner":  # what it is for, as a Bearer header is told; it opens nothing here
        return render_template("login.html", error=AGENT_TOKEN, next=target), 403
    sessions().end(session.get("sid"))
    session.clear()  # a fresh session (and CSRF token) for the holder
    session["user"] = who.name
    session["token"] = rules.token_id(token)
    session["sid"] = sessions().start(who.name, session["token"])
    return redirect(target, code=303)


@bp.post("/logout")
def logout():
    sessions().end(session.get("sid"))  # a copy of the cookie is worth nothing from now on
    session.clear()
    response = redirect(url_for("login.login_page"), code=303)
    # And nothing of the memory stays in this browser: pages it cached, what scripts stored.
    response.headers["Clear-Site-Data"] = '"cache", "storage"'
    return response


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a path on this dashboard only (no other site, no scheme)."""
    value = (value or "").strip()
    parts = urlsplit(value)
    if not value.startswith("/") or value.startswith("//") or "\\" in value or parts.scheme or parts.netloc:
        return "/"
    return value
