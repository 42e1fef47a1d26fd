"""`tachikoma serve` (waitress) and `serve --mcp` (uvicorn) on real loopback sockets: slow clients do not
hang the dashboard, a body that does not arrive in time is refused, the console says only what a user needs,
and a refused address is refused before anything else is said."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager

import pytest

from servers import free_port, serving

SLOW_CLIENTS = 12  # more than the bridged server's 10 worker threads had


@contextmanager
def slow_posts(port: int, count: int, interval: float = 0.3):
    """`count` connections that each announce a 100,000-byte body to /tag/apply and send it a byte at a time;
    closed on exit (and by a 60 s safety limit)."""
    stop = threading.Event()
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(f"POST /tag/apply HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n".encode())
        sockets.append(s)

    def dribble():
        deadline = time.monotonic() + 60
        while not stop.is_set() and time.monotonic() < deadline:
            for s in sockets:
                try:
                    s.sendall(b"a")
                except OSError:
                    pass
            stop.wait(interval)

    thread = threading.Thread(target=dribble, daemon=True)
    thread.start()
    try:
        time.sleep(1.0)  # every connection has started its body
        yield sockets
    finally:
        stop.set()
        thread.join(5)
        for s in sockets:
            s.close()


def timed_get(url: str, timeout: float = 10.0) -> tuple[int, float]:
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=timeout) as response:
        response.read()
        return response.status, time.monotonic() - start


@pytest.fixture
def root(indexed_example):
    return indexed_example


@pytest.mark.parametrize("mode", [(), ("--mcp",)], ids=["serve", "serve-mcp"])
def test_slow_bodies_do_not_hang_the_dashboard(root, mode):
    with serving(root, "--no-watch", *mode) as (base, _proc):
        port = int(base.rsplit(":", 1)[1])
        with slow_posts(port, SLOW_CLIENTS):
            status, seconds = timed_get(base + "/api/stats")  # was a timeout: every worker thread waited
            page, _ = timed_get(base + "/coverage")
        assert status == 200 and page == 200
        assert seconds < 5, f"the dashboard took {seconds:.1f} s to answer beside {SLOW_CLIENTS} slow clients"


@contextmanager
def bridged_in_process(root):
    """`serve --mcp`'s application on uvicorn in a thread of this process (so a test can shorten its limits)."""
    import uvicorn

    from tachikoma_dashboard.app import create_app
    from tachikoma.mcp_server import dashboard_with_mcp

    port = free_port()
    app = create_app(memory=root, port=port)
    both, tools = dashboard_with_mcp(app, root, port, live=app.extensions["tachikoma"].live)
    server = uvicorn.Server(uvicorn.Config(both, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(15)
        tools.close()


def raw_exchange(port: int, head: str, body: bytes = b"", seconds: float = 10.0) -> tuple[bytes, float]:
    """Send `head` and `body` on a new connection, then read until the server closes it; (answer, seconds)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as s:
        s.sendall(head.encode() + body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer, time.monotonic() - start


def test_a_body_that_does_not_arrive_in_time_is_refused_and_an_oversized_one_at_once(root, monkeypatch):
    from tachikoma.web import serving

    monkeypatch.setattr(serving, "BODY_SECONDS", 1.0)
    with bridged_in_process(root) as port:
        head = (f"POST /tag/apply HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {n}\r\n\r\n")
        answer, seconds = raw_exchange(port, head.format(n=100), b"kind=")  # 5 of 100 bytes, then silence
        assert answer.startswith(b"HTTP/1.1 408 ") and b"did not arrive within 1 s" in answer
        assert 0.9 < seconds < 5  # refused at the deadline and the connection closed
        answer, seconds = raw_exchange(port, head.format(n=50_000_000))
        assert answer.startswith(b"HTTP/1.1 413 ") and seconds < 3
        status, _ = timed_get(f"http://127.0.0.1:{port}/api/stats")
        assert status == 200


@pytest.mark.parametrize("mode", [(), ("--mcp",)], ids=["serve", "serve-mcp"])
def test_the_console_says_the_address_errors_and_index_runs_not_every_request(root, mode):
    (root / "inbox" / "new.md").write_text("# New\nWritten before the server started.\n")
    with serving(root, *mode) as (base, proc):
        for _ in range(5):
            timed_get(base + "/index/beacon?seen=x")
            timed_get(base + "/")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the watcher's first run indexes the new note
            if b"inbox/new.md" in urllib.request.urlopen(base + "/api/search?q=Written+before+the+server").read():
                break
            time.sleep(0.3)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        errors = proc.communicate(timeout=20)[1]
    assert proc.returncode == 0, errors
    lines = errors.strip().splitlines()
    port = base.rsplit(":", 1)[1]
    address = [line for line in lines if line.startswith("dashboard on")]
    assert len(address) == 1 and re.fullmatch(rf"dashboard on http://127\.0\.0\.1:{port}/ .*\(Ctrl-C to stop\)",
                                               address[0]), errors
    # the watcher's first run catches up with the note written before the server started: "at start"
    assert any(re.fullmatch(r"index run \(at start\): 1 added, .* embedded .*", line) for line in lines), errors
    others = [line for line in lines if line not in address]
    assert all(line.startswith("index run") for line in others), errors  # no request log, no banner
    assert "development server" not in errors and "beacon" not in errors


@pytest.mark.parametrize("option", ["--mcp", "--mcp-read-only", "--mcp-allow-owner-trust"])
def test_mcp_on_a_public_address_is_refused_first_with_the_reason(root, option):
    result = subprocess.run([sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--host", "0.0.0.0",
                             option], capture_output=True, text=True, timeout=60, env=without_token())
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "tachikoma: serving on 0.0.0.0 needs authentication, since the dashboard and MCP read and write your "
        "memory: give tokens (--tokens-file, [serve] tokens_file or $TACHIKOMA_TOKEN) or a trusted reverse proxy "
        "(--trusted-proxy), see docs/team.md; or serve on 127.0.0.1"]


def without_token() -> dict:
    return {k: v for k, v in os.environ.items() if k != "TACHIKOMA_TOKEN"}
