"""Issue 32, breaks 5 and 6: a running tachikoma declines what it would answer differently, and a
stopped one (SIGSTOP, Ctrl-Z on `index --watch`) costs a client at most a second and gives way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_resident import QUERY, hosting, wait_for
from tachikoma import resident
from web_helpers import build_index, copy_memory


@pytest.fixture
def root(tmp_path) -> Path:
    root = copy_memory(tmp_path / "memory")
    build_index(root)
    return root


@pytest.fixture(autouse=True)
def private_runtime(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    for name in ("TACHIKOMA_CONFIG", "OLLAMA_HOST", "TZ"):
        monkeypatch.delenv(name, raising=False)
    return folder


def search(root: Path, env: dict | None = None, *extra: str) -> tuple[dict, float]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(root), "search", "--json", QUERY,
                           "--min-score", "0", *extra], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), time.monotonic() - start


def served(root: Path, env: dict | None = None) -> bool:
    return "served_by" in search(root, env)[0]


def test_a_client_with_other_settings_environment_or_time_zone_is_declined(root, tmp_path):
    quick = tmp_path / "quick.toml"
    quick.write_text("[search]\nkeyword_weight = 0.0\n")
    with hosting("--memory", str(root), "index", "--watch", "--quiet"):
        wait_for(lambda: served(root))
        assert not served(root, {"TACHIKOMA_CONFIG": str(quick)})  # another settings file, by the environment
        assert not served(root, {"TZ": "Pacific/Kiritimati"})  # another "yesterday"
        assert not served(root, {"OLLAMA_HOST": "http://127.0.0.1:9"})  # another embedder server
        assert not served(root, {"TACHIKOMA_MODEL_CACHE": str(tmp_path / "models")})
        assert not served(root, {"PGHOST": "/nonexistent"})
        assert served(root)  # the same environment is still answered


def test_the_host_sees_a_client_in_its_own_zone_as_the_same(root):
    with hosting("--memory", str(root), "index", "--watch", "--quiet"):
        wait_for(lambda: served(root))
    env = {"TZ": "Pacific/Kiritimati"}
    proc = subprocess.Popen([sys.executable, "-m", "tachikoma", "--memory", str(root), "index", "--watch", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **env})
    try:
        wait_for(lambda: served(root, env))  # a host in Kiritimati answers a client in Kiritimati
        assert not served(root)  # and declines one in UTC
    finally:
        proc.kill()
        proc.wait(10)


def test_a_stopped_host_costs_a_client_at_most_a_second_and_another_host_takes_over(root):
    with hosting("--memory", str(root), "index", "--watch", "--quiet") as stopped:
        wait_for(lambda: served(root))
        _, here = search(root, None, "--in-process")
        stopped.send_signal(signal.SIGSTOP)
        try:
            answer, took = search(root)
            assert "served_by" not in answer and answer["results"]
            assert took < here + 1.0 + 2.0, (took, here)  # the ack's second, plus a cold start's noise
            asked = {"query": QUERY, "limit": 3}
            start = time.monotonic()
            assert resident.ask(root, None, asked) is None
            assert time.monotonic() - start < resident.ACK_SECONDS + 0.5
            with hosting("--memory", str(root), "index", "--watch", "--quiet") as second:
                wait_for(lambda: search(root)[0].get("served_by", {}).get("pid") == second.pid, 30)
        finally:
            stopped.send_signal(signal.SIGCONT)
