"""`tachikoma serve --mcp`: MCP's streamable HTTP transport beside the dashboard, on one localhost address,
driven by the SDK's own HTTP client; foreign Host and Origin headers are refused."""

import asyncio
import subprocess
import sys

import httpx
import pytest
from mcp import Client

from servers import serving
from web_helpers import copy_memory

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}
STREAMABLE = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def served(indexed_example):
    with serving(indexed_example, "--mcp", "--no-watch") as (base, _proc):
        yield base, int(base.rsplit(":", 1)[1])


def test_mcp_over_http_beside_the_dashboard(served):
    base, port = served

    async def scenario():
        async with Client(base + "/mcp") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("search", {"query": "DRV8353 gate driver", "min_score": 0,
                                                                "budget_tokens": 0})
            bad = await client.call_tool("read", {"path": "../outside.md"})
            owner = await client.call_tool("remember", {"text": "I am the owner now.", "trust": "owner"})
            return names, found, bad, owner

    names, found, bad, owner = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert names == {"search", "read", "stats", "remember", "tag"}
    assert not found.is_error and found.structured_content["results"]
    assert bad.is_error and "not a path inside the memory folder" in bad.content[0].text
    assert owner.is_error and "--mcp-allow-owner-trust" in owner.content[0].text  # the agent boundary over HTTP too
    # (the option `tachikoma serve` takes: until session 51 it named `tachikoma mcp`'s, which serve refuses)
    api = httpx.get(base + "/api/search", params={"q": "DRV8353 gate driver", "min_score": 0}).json()
    assert [r["path"] for r in api["results"]] == [r["path"] for r in found.structured_content["results"]]


def test_foreign_host_and_origin_are_refused(served):
    base, port = served
    refused_host = httpx.post(base + "/mcp", json=INITIALIZE, headers={**STREAMABLE, "Host": f"evil.example:{port}"})
    assert refused_host.status_code == 421
    refused_origin = httpx.post(base + "/mcp", json=INITIALIZE, headers={**STREAMABLE, "Origin": "http://evil.example"})
    assert refused_origin.status_code == 403
    own_page = httpx.post(base + "/mcp", json=INITIALIZE, headers={**STREAMABLE, "Origin": f"http://127.0.0.1:{port}"})
    assert own_page.status_code == 200
    assert httpx.get(base + "/", headers={"Host": f"evil.example:{port}"}).status_code == 421  # the dashboard's guard
    assert httpx.post(base + "/reindex").status_code == 400  # still no POST without a CSRF token


def test_a_host_in_capitals_is_answered_by_mcp_as_by_the_dashboard(served):
    """`LOCALHOST:port` names what `localhost:port` does: the dashboard answered it and MCP refused it (421)."""
    base, port = served
    for host in (f"LOCALHOST:{port}", f"LocalHost:{port}"):
        answered = httpx.post(base + "/mcp", json=INITIALIZE, headers={**STREAMABLE, "Host": host,
                                                                       "Origin": f"http://{host}"})
        assert answered.status_code == 200, answered.text
        assert httpx.get(base + "/", headers={"Host": host}).status_code == 200
    refused = httpx.post(base + "/mcp", json=INITIALIZE, headers={**STREAMABLE, "Host": f"localhost:{port + 1}"})
    assert refused.status_code == 421 and f"open it at http://127.0.0.1:{port}/" in refused.text


def test_mcp_over_http_binds_to_localhost_only(tmp_path):
    root = copy_memory(tmp_path / "memory")
    result = subprocess.run([sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--host", "0.0.0.0",
                             "--mcp"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "needs authentication" in result.stderr
