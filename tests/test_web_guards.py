"""The Host allow-list, without Flask: which Host headers name the served address.

The routes' refusals (421, CSRF, security headers) are in test_app.py.
"""

from __future__ import annotations

import pytest

import asyncio

from tachikoma.web.hosts import HostGuard, Served, host_label, split_host
from tachikoma_dashboard.guards import host_allowed


def served(host="127.0.0.1", port=5000, allowed=()) -> dict:
    return {"TACHIKOMA_HOST": host, "TACHIKOMA_PORT": port, "TACHIKOMA_ALLOWED_HOSTS": list(allowed)}


@pytest.mark.parametrize("header,parts", [
    ("127.0.0.1:5000", ("127.0.0.1", "5000")), ("LocalHost", ("localhost", None)),
    ("[::1]:8080", ("[::1]", "8080")), ("[::1]", ("[::1]", None)), ("[::1", ("[::1", None)),
    ("::1", ("::1", None)), (" example.org:80 ", ("example.org", "80")), ("", ("", None)),
])
def test_split_host(header, parts):
    assert split_host(header) == parts


def test_host_label_brackets_ipv6():
    assert host_label("::1") == "[::1]" and host_label("[::1]") == "[::1]" and host_label("Box") == "box"


@pytest.mark.parametrize("header,ok", [
    ("127.0.0.1:5000", True), ("localhost:5000", True), ("[::1]:5000", True), ("LOCALHOST:5000", True),
    ("127.0.0.1:5001", False), ("localhost", False), ("evil.example:5000", False),
    ("127.0.0.1.evil.example:5000", False), ("[::2]:5000", False), ("", False), ("::1:5000", False),
])
def test_loopback_on_the_served_port(header, ok):
    assert host_allowed(served(), header) is ok


def test_any_port_when_the_port_is_not_known():
    assert host_allowed(served(port=None), "localhost:1234") and host_allowed(served(port=None), "localhost")
    assert not host_allowed(served(port=None), "evil.example")


def test_port_80_may_be_left_out():
    assert host_allowed(served(port=80), "localhost") and host_allowed(served(port=80), "localhost:80")


def test_configured_and_allowed_names():
    config = served(host="192.168.1.20", port=8080, allowed=["box.lan"])
    assert host_allowed(config, "192.168.1.20:8080") and host_allowed(config, "box.lan:8080")
    assert not host_allowed(config, "box.lan:8081") and not host_allowed(config, "other.lan:8080")
    assert host_allowed(served(host="fe80::1", port=8080), "[fe80::1]:8080")
    assert not host_allowed(served(host="0.0.0.0", port=8080), "0.0.0.0:8080")  # a wildcard is not a name


def mcp_status(served_at: Served, host: str, origin: str | None = None, path: str = "/mcp") -> int:
    """The status MCP over HTTP's guard (`HostGuard`) answers a request with `host` (and `origin`): 200 when it
    lets the request through to the app behind it."""
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def send(message):
        sent.append(message)

    headers = [(b"host", host.encode("latin-1"))] + ([(b"origin", origin.encode("latin-1"))] if origin else [])
    asyncio.run(HostGuard(app, served_at)({"type": "http", "path": path, "headers": headers}, None, send))
    return sent[0]["status"]


@pytest.mark.parametrize("header", [
    "127.0.0.1:5000", "localhost:5000", "LOCALHOST:5000", "LocalHost:5000", "[::1]:5000", "Box.LAN:5000",
    "localhost:5001", "localhost", "evil.example:5000", "EVIL.example:5000", "127.0.0.1.evil.example:5000", "",
])
def test_the_dashboard_and_mcp_answer_the_same_hosts_in_any_case(header):
    """One rule (`tachikoma.web.hosts.Served`): MCP over HTTP refused `LOCALHOST:5000`, which the dashboard
    answers (the SDK compared the header byte for byte); a host name is the same in any case."""
    dashboard = host_allowed(served(allowed=["box.lan"]), header)
    assert mcp_status(Served("127.0.0.1", 5000, ("box.lan",)), header) == (200 if dashboard else 421)
    assert dashboard is (header.lower() in ("127.0.0.1:5000", "localhost:5000", "[::1]:5000", "box.lan:5000"))


def test_mcp_s_origin_is_a_page_of_the_served_address_in_any_case():
    at = Served("127.0.0.1", 5000, public=("memory.example.org",))
    assert mcp_status(at, "localhost:5000", "http://LOCALHOST:5000") == 200
    assert mcp_status(at, "localhost:5000", "http://127.0.0.1:5000") == 200
    assert mcp_status(at, "localhost:5000", "http://evil.example") == 403
    assert mcp_status(at, "localhost:5000", "http://localhost:5001") == 403
    assert mcp_status(at, "localhost:5000", "http://memory.example.org") == 403  # only its public origin, below
    assert mcp_status(at, "localhost:5000", "null") == 403
    assert at.allows_origin("HTTPS://Memory.Example.org", "https://memory.example.org")
    assert mcp_status(at, "evil.example:5000", path="/search") == 200  # the dashboard checks for itself
