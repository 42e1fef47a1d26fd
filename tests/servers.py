"""`tachikoma serve` as a real server for tests: a subprocess on a free port, waited for, stopped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _default_sigint() -> None:
    """Ctrl-C's default in the server: a test run started in the background (`cmd &`, as CI may) ignores
    SIGINT, and a child inheriting that would never see the Ctrl-C a test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def serving(root, *extra: str, host: str = "127.0.0.1", env: dict | None = None):
    """`tachikoma serve --memory root *extra` on `host` and a free port; yields (base URL, process) once it
    answers (any HTTP status: a shared server answers 401); stops it with SIGTERM."""
    port = free_port(host)
    args = [sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--port", str(port), *extra]
    if host != "127.0.0.1":
        args += ["--host", host]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint, env={**os.environ, **(env or {})})
    base = f"http://{host}:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                urllib.request.urlopen(base + "/api/stats", timeout=2).read()
                break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(proc.stderr.read()) from None
                time.sleep(0.2)
        yield base, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
