"""A search kept to some folders or globs (`--path`, ``path``) or to a source tag (`--source`, ``source``), on every
face: a person whose memory holds work and home, or an agent that knows which project it is in, asks within it."""

import asyncio
import json
import re

import pytest
from mcp import Client

from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import Filters
from tachikoma.vocabulary import MAX_SCOPE_PATTERNS
from tachikoma_dashboard.app import create_app

from test_app import make_client
from test_daily_use import run as cli_run
from test_mcp import MINILM, call, server

Q = "DRV8353 heat sink Jonas Martin"


@pytest.fixture
def indexed(git_memory):
    runner.run(git_memory, embedder_name="hash")
    return git_memory


@pytest.fixture
def searcher(indexed):
    s = Searcher(indexed)
    yield s
    s.close()


def paths(answer: dict) -> set[str]:
    return {r["path"] for r in answer["results"]}


def test_a_search_kept_to_folders_and_globs_ranks_only_their_files(searcher):
    everything = paths(searcher.search(Q, 50))
    assert {"martin.md", "2026-03-22/meeting-notes.md", "2026-03-22/session-abc.jsonl"} <= everything
    assert paths(searcher.search(Q, 50, Filters(paths=("2026-03-22/",)))) == \
        {p for p in everything if p.startswith("2026-03-22/")}
    assert paths(searcher.search(Q, 50, Filters(paths=("2026-03-22",)))) == \
        {p for p in everything if p.startswith("2026-03-22/")}  # a folder without its slash is the folder
    assert paths(searcher.search(Q, 50, Filters(paths=("**/*.jsonl",)))) == {p for p in everything if p.endswith(".jsonl")}
    # several: a file in any; a glob without "/" is a file name in any folder
    assert paths(searcher.search(Q, 50, Filters(paths=("martin.md", "2026-03-22/*.md")))) == \
        {"martin.md", "2026-03-22/meeting-notes.md"}
    # a folder is a whole name: "2026-03" is not 2026-03-22
    answer = searcher.search(Q, 50, Filters(paths=("2026-03",)))
    assert answer["results"] == [] and answer["no_good_match"] and answer["match"]["filtered_out"]


def test_a_search_kept_to_a_source_tag(searcher):
    assert paths(searcher.search(Q, 50, Filters(source="martin"))) <= {"martin.md", "identity.md"}
    assert "martin.md" in paths(searcher.search(Q, 50, Filters(source="martin")))
    missing = paths(searcher.search(Q, 50, Filters(source="missing")))
    assert "2026-03-22/session-abc.jsonl" in missing and not missing & {"martin.md", "rumours.md", "identity.md"}
    both = searcher.search(Q, 50, Filters(source="martin", paths=("2026-03-22/",)))
    assert both["results"] == [] and both["match"]["filtered_out"]


def test_the_command_line_keeps_a_search_to_a_folder_and_says_when_no_file_is_in_it(indexed):
    code, out, _ = cli_run("--memory", str(indexed), "search", Q, "--path", "2026-03-22/", "--path", "martin.md",
                           "--json", "--limit", "50", "--in-process")
    assert code == 0
    assert {r["path"] for r in json.loads(out)["results"]} <= {"martin.md", "2026-03-22/meeting-notes.md",
                                                              "2026-03-22/session-abc.jsonl"}
    code, out, _ = cli_run("--memory", str(indexed), "search", Q, "--source", "Martin", "--json", "--in-process")
    assert code == 0 and json.loads(out)["results"][0]["path"] in ("martin.md", "identity.md")
    code, out, _ = cli_run("--memory", str(indexed), "search", Q, "--path", "people/", "--in-process")
    # no file: said so, and no floor of 0 is offered (it would show nothing either)
    assert code == 0 and out.startswith("no good match: no indexed file passes the search's filters")
    assert "--min-score 0" not in out
    code, _, err = cli_run("--memory", str(indexed), "search", Q, "--path", "[z-a]*.md")
    assert code == 2 and "is not a glob tachikoma can read" in err
    many = [a for i in range(MAX_SCOPE_PATTERNS + 1) for a in ("--path", f"f{i}/")]
    code, _, err = cli_run("--memory", str(indexed), "search", Q, *many)
    assert code == 2 and f"--path: at most {MAX_SCOPE_PATTERNS} folders or globs" in err


def test_the_json_api_and_the_search_page_keep_a_search_to_folders_and_a_source(indexed):
    app = create_app(memory=indexed, port=5000)
    client = make_client(app)
    try:
        answer = client.get(f"/api/search?q={Q}&path=2026-03-22/&path=martin.md&limit=50").get_json()
        assert paths(answer) and paths(answer) <= {"martin.md", "2026-03-22/meeting-notes.md",
                                                  "2026-03-22/session-abc.jsonl"}
        assert paths(client.get(f"/api/search?q={Q}&source=forum post&limit=50").get_json()) == {"rumours.md"}
        nothing = client.get(f"/api/search?q={Q}&path=people/").get_json()
        assert nothing["results"] == [] and nothing["match"]["filtered_out"]
        for bad, why in (("path=[z-a]*", "is not a glob tachikoma can read"),
                         ("&".join(f"path=f{i}/" for i in range(MAX_SCOPE_PATTERNS + 1)), "at most 20 folders")):
            response = client.get(f"/api/search?q=x&{bad}")
            assert response.status_code == 400 and why in response.get_json()["error"]
        page = client.get(f"/?q={Q}&path=2026-03-22/&path=martin.md", headers={"HX-Request": "true"})
        html = client.get(f"/?q={Q}&path=2026-03-22/&path=martin.md").get_data(as_text=True)
        assert page.status_code == 200 and 'name="path" value="2026-03-22/"' in html
        assert '<input type="hidden" name="path" value="martin.md">' in html  # the second kept for the next search
        assert "rumours.md" not in page.get_data(as_text=True)
        # a result's link back keeps the filters: the breadcrumb's search is the same search
        links = re.findall(r'<a class="path" href="([^"]+)"', page.get_data(as_text=True))
        assert links and all("path=2026-03-22/&amp;path=martin.md" in link for link in links)
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_an_agent_keeps_its_search_to_a_project_over_mcp(git_memory):
    (git_memory / "tachikoma.toml").write_text(MINILM)
    runner.run(git_memory)

    async def scenario():
        async with Client(server(git_memory, "--no-watch")) as client:
            kept = await call(client, "search", {"query": Q, "path": ["2026-03-22/"], "budget_tokens": 0,
                                                 "limit": 50})
            sourced = await call(client, "search", {"query": Q, "source": "forum post", "budget_tokens": 0})
            bad = await call(client, "search", {"query": Q, "path": ["[z-a]*"]})
            too_many = await call(client, "search", {"query": Q, "path": [f"f{i}/" for i in range(21)]})
        return kept, sourced, bad, too_many

    kept, sourced, bad, too_many = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    assert not kept[0] and kept[2]["results"]
    assert {r["path"] for r in kept[2]["results"]} <= {"2026-03-22/meeting-notes.md", "2026-03-22/session-abc.jsonl"}
    assert not sourced[0] and {r["path"] for r in sourced[2]["results"]} == {"rumours.md"}
    assert bad[0] and "is not a glob tachikoma can read" in bad[1]
    assert too_many[0]
