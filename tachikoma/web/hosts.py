"""Which Host header names the address a server is served on: one rule for the dashboard
(`tachikoma_dashboard.guards`) and MCP over HTTP (`HostGuard`, ASGI), against DNS rebinding.

A page of another site that a name of its own leads to this machine (DNS rebinding) sends its own name as Host;
the server answers only the names it is served under. Host names are case-insensitive (RFC 9110, RFC 3986):
``LOCALHOST:5000`` names what ``localhost:5000`` does. Nothing here imports Flask.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

#: The names of this machine, answered on the served port whatever address the server is bound to.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: Bound to every address: no name of its own (only the loopback names, and the public address's, are answered).
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def split_host(value: str) -> tuple[str, str | None]:
    """A Host header as (lower-case name, port or None); IPv6 names keep their brackets."""
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


def host_label(host: str) -> str:
    """A host name as a Host header spells it, lower case: IPv6 addresses in brackets."""
    host = host.strip().lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass(frozen=True)
class Served:
    """The address a server answers to: the `host` it is bound to (a wildcard names nothing), its `port` (None: any
    port), more `names` (a machine's name when bound to 0.0.0.0), and the public address's host names (`public`,
    a shared server behind a proxy: on any port)."""

    host: str = "127.0.0.1"
    port: int | None = None
    names: tuple[str, ...] = ()
    public: tuple[str, ...] = ()

    def allows(self, header: str | None) -> bool:
        """Whether the Host `header` names this address, in any case: a loopback name, the bound host or one of
        `names` on the served port (port 80 may be left out; any port when `port` is None), or a public name."""
        name, port = split_host(header or "")
        if not name:
            return False
        if name in {host_label(h) for h in self.public}:
            return True
        names = set(LOOPBACK_NAMES) | {host_label(h) for h in self.names}
        if (self.host or "") not in WILDCARD_HOSTS:
            names.add(host_label(self.host))
        if name not in names:
            return False
        if self.port is None:
            return True
        return port == str(self.port) or (port is None and int(self.port) == 80)

    def allows_origin(self, origin: str | None, public_origin: str | None = None) -> bool:
        """Whether a request's Origin header is a page of this server: none (not a browser's cross-site request),
        the public address's origin (`public_origin`), or http:// and a name `allows` on the served port; in any
        case."""
        if not origin:
            return True
        origin = origin.strip().lower()
        if public_origin and origin == public_origin.lower():
            return True
        parts = urlsplit(origin)
        local = Served(self.host, self.port, self.names)  # a public name is its public origin's, not http on any port
        return parts.scheme == "http" and not parts.path and local.allows(parts.netloc)

    def address(self, public_url: str | None = None) -> str:
        """An address the Host check lets through, in words: the public address, else the served host and port
        (127.0.0.1 for a wildcard bind, which answers only loopback names without a public address)."""
        if public_url:
            return f"{public_url} (its public address, --public-url)"
        host, more = self.host or "127.0.0.1", ""
        if host in WILDCARD_HOSTS:
            host, more = "127.0.0.1", " (or give the address people open with --public-url)"
        return f"http://{host_label(host)}" + (f":{self.port}" if self.port else "") + "/" + more


class HostGuard:
    """ASGI middleware for MCP over HTTP: a request under `prefix` whose Host header `served` does not allow is
    refused with 421, and one whose Origin header is another site's page with 403, before anything else runs.
    Other paths (the dashboard, which checks for itself by the same rule) pass through untouched."""

    def __init__(self, app, served: Served, public_url: str | None = None, public_origin: str | None = None,
                 prefix: str = "/mcp"):
        self.app, self.served, self.prefix = app, served, prefix
        self.public_url, self.public_origin = public_url, public_origin

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not (scope["path"] == self.prefix or scope["path"].startswith(self.prefix + "/")):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        host = headers.get("host", "")
        if not self.served.allows(host):
            return await _refuse(send, 421, f"this server does not answer to the host {host!r}; open it at "
                                            f"{self.served.address(self.public_url)}")
        if not self.served.allows_origin(headers.get("origin"), self.public_origin):
            return await _refuse(send, 403, f"a page of {headers['origin']!r} may not use this server's MCP")
        return await self.app(scope, receive, send)


async def _refuse(send, status: int, message: str) -> None:
    body = (message + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
