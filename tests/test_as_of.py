"""Search as of a date, and the time a question asks about, through every face: the Searcher,
the command line, the JSON API, the dashboard (kept in the URL) and MCP."""

import asyncio
import json
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tachikoma.indexer import runner
from tachikoma.config import Config
from tachikoma.errors import TachikomaError
from tachikoma.search.searcher import Searcher
from web_helpers import Client

ROOT = Path(__file__).resolve().parent.parent
AS_OF = "2026-03-25T12:00:00+00:00"
NOTES = {  # the same words, three dates: only the date tells them apart
    "deploy-a.md": ("2026-03-22", "Deploy decision: we move the release deploy to Friday evenings."),
    "deploy-b.md": ("2026-02-10", "Deploy decision: we move the release deploy to Monday mornings."),
    "deploy-c.md": ("2025-10-05", "Deploy decision: we move the release deploy to Tuesday nights."),
}


@pytest.fixture
def dated(tmp_path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    for name, (day, text) in NOTES.items():
        (root / name).write_text(f"---\ndate: {day}\ntrust: owner\nconfidence: high\n---\n{text}\n")
    runner.run(root, embedder_name="hash")
    return root


def top(answer) -> str:
    return answer["results"][0]["path"]


def product(f: dict) -> float:
    return (f["similarity"] * f["trust_weight"] * f["confidence_weight"] * f["recency"] * f["time"]
            * f["duplicate_penalty"])


@pytest.mark.parametrize("query, expected", [
    ("deploy decision on 2026-03-22", "deploy-a.md"),
    ("deploy decision in February", "deploy-b.md"),
    ("deploy decision in October 2025", "deploy-c.md"),
    ("the deploy decision about six weeks ago", "deploy-b.md"),
])
def test_a_memory_from_the_time_asked_ranks_first_and_says_why(dated, query, expected):
    answer, without = with_and_without_time(dated, query, 3)
    assert top(answer) == expected
    assert top(without) == "deploy-a.md"  # the newest, by recency, when time is not read
    first = answer["results"][0]["factors"]
    assert first["time"] == 1.0 and first["time_reason"].startswith(f"time: {NOTES[expected][0]}, asked '")
    assert answer["time"] and answer["as_of"] == AS_OF
    for r in answer["results"]:
        assert r["score"] == pytest.approx(product(r["factors"]), rel=1e-12)
        if r["path"] != expected:
            assert r["factors"]["time"] < 1.0 and "outside" in r["factors"]["time_reason"]


def with_and_without_time(root: Path, query: str, limit: int) -> tuple[dict, dict]:
    """The answers as of AS_OF (no floor) with the time a question asks about read, and without."""
    base = Config()
    no_time = replace(base, search=replace(base.search, time_reading=False))
    s = Searcher(root)
    try:
        return (s.search(query, limit, min_score=0, as_of=AS_OF),
                s.search(query, limit, min_score=0, as_of=AS_OF, config=no_time))
    finally:
        s.close()


@pytest.mark.parametrize("query", ["deploy decision", "release on port 2026", "version 2.1.5 deploy",
                                   "May I see the deploy decision", "Martin meetings DRV8353"])
def test_a_question_without_time_ranks_exactly_as_without_time_reading(dated, query):
    on, off = with_and_without_time(dated, query, 10)
    assert on["time"] == []
    assert [(r["path"], r["score"]) for r in on["results"]] == [(r["path"], r["score"]) for r in off["results"]]
    assert all(r["factors"]["time"] == 1.0 and r["factors"]["time_reason"] == "" for r in on["results"])


def test_as_of_moves_now_for_recency_and_relative_words(dated):
    s = Searcher(dated)
    try:
        early = s.search("deploy decision last month", 3, min_score=0, as_of="2025-11-20T12:00:00+00:00")
        later = s.search("deploy decision last month", 3, min_score=0, as_of="2026-03-01T12:00:00+00:00")
        same = s.search("deploy decision", 3, min_score=0, now=datetime(2026, 3, 25, 12, tzinfo=timezone.utc))
        typed = s.search("deploy decision", 3, min_score=0, as_of=AS_OF)
        with pytest.raises(TachikomaError, match="as_of 'someday' is not a date"):
            s.search("deploy", 3, as_of="someday")
    finally:
        s.close()
    assert top(early) == "deploy-c.md" and top(later) == "deploy-b.md"
    assert early["results"][0]["factors"]["age_days"] == pytest.approx(46.5, abs=1e-6)  # 2025-10-05 00:00 to 11-20 12:00
    assert [r["score"] for r in same["results"]] == [r["score"] for r in typed["results"]]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "tachikoma", *args], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": "/tmp"})


def test_cli_as_of(dated):
    out = cli("--memory", str(dated), "search", "deploy decision in February", "--as-of", "2026-03-25", "--json",
              "--min-score", "0")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert top(answer) == "deploy-b.md" and answer["as_of"].startswith("2026-03-25T23:59:59")
    text = cli("--memory", str(dated), "search", "deploy decision in February", "--as-of", "2026-03-25",
               "--min-score", "0")
    assert "× 1.00 time (2026-02-10, asked 'in February')" in text.stdout
    bad = cli("--memory", str(dated), "search", "deploy", "--as-of", "tomorrowish")
    assert bad.returncode == 2 and "argument --as-of: 'tomorrowish' is not a date" in bad.stderr  # a usage error
    assert bad.stderr.startswith("usage: ")
    for wrong, why in (("28.11.2026", "is not a date: use now, YYYY-MM-DD"), ("0001-01-01", "is out of range: years 2 to 9998")):
        bad = cli("--memory", str(dated), "search", "deploy", "--as-of", wrong)
        assert bad.returncode == 2 and f"argument --as-of: '{wrong}' {why}" in bad.stderr, bad.stderr


def test_api_and_dashboard_as_of(dated):
    from tachikoma_dashboard.app import create_app

    app = create_app(memory=dated, port=5000, watch=False)
    app.test_client_class = Client
    client = app.test_client()
    try:
        answer = client.get("/api/search?q=deploy+decision+in+February&min_score=0&as_of=2026-03-25").get_json()
        assert top(answer) == "deploy-b.md" and answer["as_of"].startswith("2026-03-25T23:59:59")
        bad = client.get("/api/search?q=deploy&as_of=soon")
        assert bad.status_code == 400 and "as_of 'soon' is not a date" in bad.get_json()["error"]
        html = client.get("/?q=deploy+decision+in+February&min_score=0&as_of=2026-03-25").get_data(as_text=True)
        assert 'name="as_of" value="2026-03-25"' in html  # the field keeps it
        assert "as_of=2026-03-25" in html  # and so do the page's links (JSON, "search without the floor")
        assert "asked about 2026-02" in html and ">2026-02-10, asked &#39;in February&#39;</td>" in html
        assert client.get("/?q=deploy&as_of=soon").status_code == 400
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_mcp_search_as_of(dated):
    from mcp import Client as McpClient
    from mcp_helpers import stdio_server

    params = stdio_server(dated, "--no-watch")

    async def scenario():
        async with McpClient(params) as client:
            good = await client.call_tool("search", {"query": "deploy decision in February", "min_score": 0,
                                                     "as_of": "2026-03-25", "budget_tokens": 0})
            bad = await client.call_tool("search", {"query": "deploy", "as_of": "whenever"})
            return good, bad

    good, bad = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    assert not good.is_error and top(good.structured_content) == "deploy-b.md"
    assert "; time: 2026-02-10, asked 'in February'" in good.content[0].text  # the best result's why
    assert bad.is_error and "as_of 'whenever' is not a date" in bad.content[0].text
