"""MCP for the tests: tool calls on an in-process server (`run_tools`), and a server in a process of its own as the
SDK's stdio client starts it (`stdio_server`)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tachikoma import mcp_server

#: The tree under test: a process a test starts imports tachikoma from here (a worktree beside an editable install of
#: another tree ran that other tree's code).
CHECKOUT = Path(__file__).resolve().parents[1]


def tree_env(**extra: str) -> dict[str, str]:
    """The environment of a process a test starts: the test's own (the session's model cache, resident sockets and
    seasons, `conftest`), tachikoma imported from `CHECKOUT`, no fault injected, and `extra`."""
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), **extra}
    env.pop("TACHIKOMA_FAULT", None)
    return env


def stdio_server(root: Path, *extra: str, **env: str) -> StdioServerParameters:
    """`tachikoma mcp --memory root *extra` for the SDK's stdio client, run from the tree under test (`tree_env`, with
    `env`). The SDK gives a server only HOME, LOGNAME, PATH, SHELL, TERM and USER of the test's environment and the
    `env` it is handed: without this, a server had no PYTHONPATH (it ran the installed tachikoma), and no
    TACHIKOMA_MODEL_CACHE nor XDG_RUNTIME_DIR (it built models in ~/.cache and put its socket among the user's)."""
    return StdioServerParameters(command=sys.executable, args=["-m", "tachikoma", "mcp", "--memory", str(root), *extra],
                                 env=tree_env(TACHIKOMA_DEBUG="", **env))


def run_tools(root: Path, *calls: tuple[str, dict], **options) -> list[tuple[bool, str, dict | None]]:
    """Each MCP tool call on an in-process server of the memory at `root` (`options`: `build_server`'s), in order:
    (is_error, text, structured content)."""
    server, tools = mcp_server.build_server(root, watch=False, **options)

    async def scenario():
        async with Client(server) as client:
            answers = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                answers.append((result.is_error, result.content[0].text, result.structured_content))
            return answers

    try:
        return asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    finally:
        tools.close()
