"""Issue 32, break 1: half an emoji (a lone surrogate escape in a JSON line) never stops a run.

An agent that cuts its text in the middle of an emoji writes ``"done \\ud83d"``:
valid JSON whose string no UTF-8 encoder takes. Index, tag, MCP `remember`, the
dashboard and the watcher used to end on it ("surrogates not allowed"); now the
half character reads as U+FFFD, the rest of the line and every other file are
indexed, and the file's bytes stay as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path

import pytest
from mcp import Client
from gitrepo import git
from mcp_helpers import stdio_server
from tachikoma import cli
from tachikoma.reading import surrogates
from tachikoma.indexer import runner
from tachikoma.tagging import applying, planning

HALF = '{"role":"assistant","content":"deployment done \\ud83d"}\n'
SESSION = '{"role":"user","content":"is the walrus deployment finished"}\n' + HALF


def make_memory(root: Path) -> Path:
    (root / "2026-01-05").mkdir(parents=True)
    (root / "good.md").write_text("# Zebra\nThe zebra crossing note is searchable.\n")
    (root / "2026-01-05" / "session.jsonl").write_text(SESSION)
    (root / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    return root


def search(root: Path, query: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--memory", str(root), "search", query, "--json", "--min-score", "0", "--in-process"]) == 0
    return json.loads(out.getvalue())


@pytest.fixture
def half(tmp_path) -> Path:
    return make_memory(tmp_path / "memory")


def test_loads_makes_half_characters_whole_and_leaves_pairs_alone():
    loaded = surrogates.loads('{"a":"x \\ud83d","\\udc00k":["\\ude00", 1]}')
    assert loaded == {"a": "x \ufffd", "\ufffdk": ["\ufffd", 1]}
    assert surrogates.loads('{"a":"\\ud83d\\ude00"}') == {"a": "\U0001f600"}  # a whole pair is one emoji
    assert surrogates.loads(b'["\\ud83d"]') == ["\ufffd"]
    deep = "[" * 500 + '"\\ud83d"' + "]" * 500
    value = surrogates.loads(deep)
    for _ in range(500):
        value = value[0]
    assert value == "\ufffd"


def test_index_reads_a_half_emoji_and_indexes_every_file(half):
    before = (half / "2026-01-05" / "session.jsonl").read_bytes()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(["--memory", str(half), "index"])
    assert code == 0, out.getvalue()
    assert "2 added" in out.getvalue()
    zebra = search(half, "zebra crossing")
    assert zebra["results"][0]["path"] == "good.md"
    walrus = search(half, "walrus deployment done")
    assert walrus["results"][0]["path"] == "2026-01-05/session.jsonl"
    assert "\ufffd" in walrus["results"][0]["text"]
    assert (half / "2026-01-05" / "session.jsonl").read_bytes() == before  # the file is never rewritten


def test_tag_tags_a_transcript_with_a_half_emoji(half):
    runner.run(half)
    applied = applying.apply(half, planning.default_plan(half))
    assert applied.commit and applied.paths == ["2026-01-05/session.jsonl"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(["--memory", str(half), "stats"])
    assert code == 0, out.getvalue()


def test_mcp_remember_in_a_memory_with_a_half_emoji_answers_and_finds_the_note(half):
    params = stdio_server(half, "--no-watch")

    async def scenario():
        async with Client(params) as client:
            written = await client.call_tool("remember", {"text": "The okapi lives in the Ituri forest.",
                                                          "title": "Okapi"})
            found = await client.call_tool("search", {"query": "where does the okapi live", "min_score": 0,
                                                      "budget_tokens": 0})
            return written, found

    written, found = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    assert not written.is_error, written.content[0].text
    path = written.structured_content["path"]
    assert not found.is_error, found.content[0].text
    assert found.structured_content["results"][0]["path"] == path


def test_remember_makes_a_half_character_whole_instead_of_failing(half):
    from tachikoma import notes

    written = notes.remember(half, "The tapir sleeps by day \ud83d", title="Tapir \udc00")
    assert (half / written.path).read_text(encoding="utf-8").rstrip().endswith("The tapir sleeps by day \ufffd")
    assert written.commit and git(half, "status", "--porcelain") == ""


def test_dashboard_shows_the_transcript_and_its_watcher_run_succeeds(half):
    from tachikoma_dashboard.app import create_app
    from web_helpers import build_index

    build_index(half)
    app = create_app(memory=half, port=5000)
    client = app.test_client()
    page = client.get("/file/2026-01-05/session.jsonl", base_url="http://127.0.0.1:5000")
    assert page.status_code == 200
    assert "deployment done \ufffd" in page.get_data(as_text=True)
    job = app.extensions["tachikoma"].index_job
    job.wait(30)
    report = runner.run(half)  # what the watcher's run does
    assert report.unchanged == 2
    assert json.dumps(report.as_dict())


def test_a_query_with_a_byte_that_is_not_utf8_is_searched(half):
    runner.run(half)
    found = search(half, "zebra crossing \udcff")  # what Python makes of b"\xff" in sys.argv
    assert found["results"][0]["path"] == "good.md"
