"""The dashboard's defences around every request.

The dashboard can rewrite memory files, so:

- requests whose Host header is not the served address are refused with
  421 (DNS rebinding);
- without authentication ([serve] access), a request from another machine
  is refused with 403, however the dashboard is served;
- a strict Content-Security-Policy (no inline script or style) and the
  usual nosniff / referrer / frame headers go with every response;
- a POST without a valid CSRF token (flask-wtf) is refused and changes
  nothing.
"""

from __future__ import annotations

import ipaddress

from flask import Flask, current_app, g, request
from flask_wtf.csrf import CSRFError

from tachikoma.web.hosts import Served
from tachikoma_dashboard.responses import error_response

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def install_guards(app: Flask) -> None:
    """Install before CSRFProtect, so a foreign Host is refused before anything else runs."""
    app.before_request(refuse_foreign_host)
    app.after_request(add_security_headers)
    app.register_error_handler(CSRFError, csrf_refused)


def refuse_foreign_host():
    header = request.headers.get("Host", "")
    if not host_allowed(current_app.config, header):
        g.stranger = True  # its page shows nothing of the memory, not even its folder (`templating.layout`)
        return error_response(421, "Misdirected request",
                              f"this dashboard does not answer to the host {header!r}; open it at "
                              f"{answered_address(current_app.config)}")
    if current_app.config.get("TACHIKOMA_ACCESS") is None and not loopback_peer(request.remote_addr):
        # Nobody is asked who they are, so only this machine is answered: a Host header is the client's to
        # say, and one from another machine that names 127.0.0.1 (`flask run --host 0.0.0.0`) is no local user.
        g.stranger = True
        return error_response(403, "Forbidden",
                              "this dashboard asks nobody who they are, so it answers only this machine; to share "
                              "it, start `tachikoma serve` with tokens or a trusted proxy (docs/team.md)")
    return None


def loopback_peer(address: str | None) -> bool:
    """Whether a request's peer address is this machine (none at all: a Unix socket, or a test client)."""
    if not address:
        return True
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def answered_address(config) -> str:
    """An address the Host check lets through, in words (`Served.address`)."""
    access = config.get("TACHIKOMA_ACCESS")
    return served(config).address(access.public_url if access is not None else None)


def add_security_headers(response):
    own = response.headers.get("Content-Security-Policy")  # a stricter one of its own (an SVG image)
    response.headers.update(SECURITY_HEADERS)
    if own:
        response.headers["Content-Security-Policy"] = own
    if response.mimetype == "text/html":
        response.vary.add("HX-Request")
        response.headers.setdefault("Cache-Control", "no-cache")
    return response


def csrf_refused(exc: CSRFError):
    access = current_app.config.get("TACHIKOMA_ACCESS")
    if access is not None and access.secure_cookies and request.scheme != "https" \
            and request.headers.get("X-Forwarded-Proto", "").lower() != "https":
        # The session cookie is Secure (the public address is https): a browser on plain http never sends
        # it back, so no reload helps. Say so, and what to do.
        return error_response(400, "Sign-in needs https",
                              f"the public address is {access.public_url}, so the session cookie is sent over "
                              "https only, and this page came over plain http: open the dashboard at that "
                              "address, through the TLS proxy in front of it; until that proxy is in place, "
                              "start `tachikoma serve` without --public-url (or with an http:// one). "
                              "Nothing was changed.")
    return error_response(400, "Request refused",
                          f"{exc.description} Nothing was changed: reload the page and try again.")


def served(config) -> Served:
    """The address the app's `config` says it is served on (TACHIKOMA_HOST, _PORT, _ALLOWED_HOSTS, _PUBLIC_HOSTS),
    for the one Host rule the dashboard and MCP over HTTP share (`tachikoma.web.hosts`)."""
    return Served(config["TACHIKOMA_HOST"] or "", config["TACHIKOMA_PORT"], tuple(config["TACHIKOMA_ALLOWED_HOSTS"]),
                  tuple(config.get("TACHIKOMA_PUBLIC_HOSTS", ())))


def host_allowed(config, header: str) -> bool:
    """Whether the Host `header` names the served address (`Served.allows`: in any case; loopback names always,
    any port when TACHIKOMA_PORT is None, the public address's host on any port)."""
    return served(config).allows(header)
