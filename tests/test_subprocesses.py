"""The processes the tests start run the tree under test, in the test session's environment.

The MCP SDK's stdio client gives a server only a few variables of the test's environment (HOME, PATH, …): a server
started without `mcp_helpers.stdio_server` ran the installed tachikoma (in a worktree beside an editable install of
another tree, that tree's code), built models outside the session's cache and put its socket among the user's."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

from mcp.client.stdio import get_default_environment

from mcp_helpers import CHECKOUT, stdio_server

TESTS = Path(__file__).resolve().parent
PROBE = ("import json, os, tachikoma; print(json.dumps({'module': tachikoma.__file__, 'env': {k: os.environ.get(k) for k "
         "in ('XDG_RUNTIME_DIR', 'TACHIKOMA_MODEL_CACHE', 'TACHIKOMA_HEMISPHERE', 'TACHIKOMA_FAULT')}}))")


def test_an_mcp_server_a_test_starts_runs_the_tree_under_test(tmp_path, monkeypatch):
    """Started as the SDK starts it (its own environment, then the parameters'), a server imports tachikoma from this
    tree and keeps the session's model cache, sockets and seasons (`conftest`), and no fault a test set."""
    monkeypatch.setenv("TACHIKOMA_FAULT", "after-write")
    params = stdio_server(tmp_path, "--no-watch")
    assert params.args[:4] == ["-m", "tachikoma", "mcp", "--memory"]
    env = get_default_environment() | params.env  # what `mcp.client.stdio.stdio_client` hands the process
    seen = json.loads(subprocess.run([params.command, "-c", PROBE], env=env, cwd=tmp_path, capture_output=True,
                                     text=True, check=True, timeout=60).stdout)
    assert Path(seen["module"]).resolve() == CHECKOUT / "tachikoma" / "__init__.py"
    for name in ("XDG_RUNTIME_DIR", "TACHIKOMA_MODEL_CACHE", "TACHIKOMA_HEMISPHERE"):
        assert seen["env"][name] == os.environ[name], name
    assert seen["env"]["TACHIKOMA_FAULT"] is None


def test_every_mcp_server_of_the_tests_is_started_by_the_helper():
    """No test makes the SDK's server parameters but `mcp_helpers.stdio_server`: each one made by hand forgot
    PYTHONPATH (tests/test_web_memories.py passed no environment at all)."""
    by_hand = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name == "mcp_helpers.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == \
                    "StdioServerParameters":
                by_hand.append(f"{path.name}:{node.lineno}")
    assert not by_hand, f"use mcp_helpers.stdio_server: {', '.join(by_hand)}"
