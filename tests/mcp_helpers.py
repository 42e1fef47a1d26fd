"""MCP tool calls on an in-process server, for the tests that ask a memory's tools a few things in a row."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client

from tachikoma import mcp_server


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
