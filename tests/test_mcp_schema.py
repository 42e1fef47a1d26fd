"""The tools' input schemas as an agent is sent them every session: compact (no property titles, no null choices),
still true to what the tools take, and what they take unchanged (the official `mcp` client)."""

import asyncio
import json

import jsonschema
from mcp import Client
from mcp.server.mcpserver import MCPServer

from tachikoma import mcp_server
from tachikoma.indexer import runner
from tachikoma.replies import tokens


def _listed(root):
    runner.run(root)
    server, tools = mcp_server.build_server(root, watch=False)

    async def scenario():
        async with Client(server) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            whole = {t.name: t for t in await MCPServer.list_tools(server)}  # as the SDK alone would list them
            called = await client.call_tool("search", {"query": "Martin's meetings", "limit": None, "kind": None,
                                                       "budget_tokens": None})
            return listed, whole, called

    try:
        return asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    finally:
        tools.close()


def _walk(schema):
    """Every schema inside `schema` (a property list's names are names, not keywords: remember has a title)."""
    if isinstance(schema, list):
        for item in schema:
            yield from _walk(item)
    elif isinstance(schema, dict):
        yield schema
        for key, value in schema.items():
            yield from (s for v in value.values() for s in _walk(v)) if key == "properties" else _walk(value)


def test_the_schemas_say_each_argument_once(tmp_path):
    (tmp_path / "martin.md").write_text("# Martin\n\nMartin likes meetings before ten.\n", encoding="utf-8")
    listed, whole, called = _listed(tmp_path)
    for name, tool in listed.items():
        properties = tool.input_schema["properties"]
        assert set(properties) == set(whole[name].input_schema["properties"])
        assert all("title" not in part for part in _walk(tool.input_schema)), name
        for argument, said in whole[name].input_schema["properties"].items():  # null said only where it means more
            if said.get("default", ...) is None:  # than leaving the argument out (remember's trust: self)
                assert {"type": "null"} not in properties[argument].get("anyOf", []), (name, argument)
                assert "default" not in properties[argument], (name, argument)
        assert all(properties[p].get("description") for p in properties), name
    sent = sum(tokens.count(json.dumps(t.model_dump(by_alias=True, exclude_none=True))) for t in listed.values())
    sdk = sum(tokens.count(json.dumps(t.model_dump(by_alias=True, exclude_none=True))) for t in whole.values())
    assert sent < 0.9 * sdk, (sent, sdk)
    # an agent that still sends null for an argument it leaves out is answered as before
    assert not called.is_error and called.structured_content["query"] == "Martin's meetings"


def test_the_compact_schemas_take_and_refuse_what_the_tools_do(tmp_path):
    listed, _, _ = _listed(tmp_path)
    search, tag = listed["search"].input_schema, listed["tag"].input_schema
    jsonschema.validate({"query": "x", "limit": 5, "kind": "transcript", "as_of": "2026-03-01"}, search)
    for wrong in ({"query": "x", "limit": 0}, {"query": "x", "kind": "pdf"}, {"limit": 5}, {"query": ""}):
        try:
            jsonschema.validate(wrong, search)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"the search schema takes {wrong}")
    jsonschema.validate({"paths": ["a.md"], "trust": "self"}, tag)
    try:
        jsonschema.validate({"paths": ["a.md"], "trust": "boss"}, tag)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("the tag schema takes trust 'boss'")
