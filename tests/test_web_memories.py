"""The dashboard over a shared store (issue 20): choosing which memories a search reads, and the
searchers and connections it (and the MCP server) keeps open between requests. Against a real
PostgreSQL + pgvector (`pg_server`), through the Flask test client and in headless Chromium."""

from __future__ import annotations

import os
import re
import threading
import time
from html import unescape

import pytest

from tachikoma_dashboard.app import create_app
from example_memory import copy_example, example_and_runbook
from tachikoma.indexer import runner
from tachikoma.store import STORE_ENV
from web_helpers import CHROMIUM, LiveServer, launch_chromium

QUERY = "restart the quokka service"


@pytest.fixture
def shared(tmp_path, url, monkeypatch):
    """Two memories in one database: the example memory ("notes") and a runbook folder ("operations")."""
    monkeypatch.setenv(STORE_ENV, url)
    return example_and_runbook(tmp_path)[0]


@pytest.fixture
def dashboard(shared):
    app = create_app(memory=shared)
    app.config["WTF_CSRF_ENABLED"] = True
    yield app
    app.extensions["tachikoma"].close()


def _sessions(pg, url) -> int:
    """Connections ever made to the test's database (PostgreSQL counts them in pg_stat_database)."""
    import psycopg

    database = url.split("@/", 1)[1].split("?", 1)[0]
    with psycopg.connect(pg.url("postgres"), autocommit=True) as db:
        db.execute("SELECT pg_stat_clear_snapshot()")
        return db.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (database,)).fetchone()[0]


def _open_connections(pg, url) -> int:
    import psycopg

    database = url.split("@/", 1)[1].split("?", 1)[0]
    with psycopg.connect(pg.url("postgres"), autocommit=True) as db:
        return db.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = "
                          "'tachikoma'", (database,)).fetchone()[0]


def _results(html: str) -> list[tuple[str, str, str]]:
    """(memory, path, what it links to: "file" this memory's file page, "indexed" another memory's file
    as the index holds it) of each result on a search page or fragment."""
    found = []
    for item in html.split('<li class="result">')[1:]:
        memory = re.search(r'class="badge memory"[^>]*>([^<]*)<', item)
        link = re.search(r'<a class="path" href="/(file|memories/[^/"]+/file)/[^"]*">([^<]*)</a>', item)
        kind = "file" if link.group(1) == "file" else "indexed"
        found.append((unescape(memory.group(1)) if memory else "", unescape(link.group(2)), kind))
    return found


def test_the_search_page_offers_the_store_s_memories_and_names_each_result_s(dashboard):
    client = dashboard.test_client()
    page = client.get("/").get_data(as_text=True)
    boxes = re.findall(r'<input type="checkbox" name="memories" value="([^"]+)"( checked)?', page)
    assert boxes == [("notes", " checked"), ("operations", "")]  # this memory is the default

    # Both chosen, as the form without JavaScript sends them: one `memories` per ticked box.
    response = client.get("/", query_string=[("q", QUERY), ("memories", "notes"), ("memories", "operations")])
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    results = _results(html)
    assert results[0] == ("operations", "runbook.md", "indexed")  # another memory's file: from the index
    assert {m for m, _, _ in results} == {"notes", "operations"}
    assert all(link == "file" for m, _, link in results if m == "notes")
    assert html.count('<details class="why">') == len(results)  # every result still explains its score
    assert re.findall(r'name="memories" value="([^"]+)" checked', html) == ["notes", "operations"]
    # The choice stays in the links the page makes (JSON, more results) and in the fragment htmx asks for.
    assert "memories=notes,operations" in unescape(html).replace("%2C", ",")
    fragment = client.get("/", query_string={"q": QUERY, "memories": "notes,operations"},
                          headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and _results(fragment) == results

    alone = _results(client.get("/", query_string={"q": QUERY}).get_data(as_text=True))
    assert {m for m, _, _ in alone} <= {""} and "runbook.md" not in [p for _, p, _ in alone]  # one memory: its own

    refused = client.get("/", query_string={"q": QUERY, "memories": "notes,nope"})
    assert refused.status_code == 400
    assert "no memory named &#39;nope&#39; in this store (it holds: notes, operations)" in refused.get_data(as_text=True)


def test_another_memory_s_file_opens_as_its_index_holds_it_escaped(dashboard, shared):
    """This dashboard serves its own folder only; a result of another memory links to what the shared
    index holds of that file, passage by passage, with the hit marked. Memory text is untrusted: escaped."""
    ops = shared.parent / "ops"
    filler = "The night shift checks the dashboards, the queues and the backups before handing over. " * 60
    (ops / "hostile.md").write_text(f"---\ntrust: external\n---\n# Hostile\n\nquokka <script>alert(1)</script> restart\n\n"
                                    f"{filler}\n\n## Later\n\nThe quokka service restarts itself at dawn.\n\n"
                                    "- [ ] feed the quokka\n", encoding="utf-8")
    runner.run(ops, embedder_name="hash")
    client = dashboard.test_client()
    html = client.get("/", query_string={"q": "quokka restarts at dawn", "memories": "notes,operations"}).get_data(
        as_text=True)
    link = re.search(r'<a class="path" href="(/memories/operations/file/hostile.md[^"]*)">', html)
    page = client.get(unescape(link.group(1)))
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "data-indexed-file" in body and "<strong>operations</strong>" in body
    assert "<script>alert(1)</script>" not in body and "alert(1)</script>" not in body  # sanitised (issue 32: as
    # markdown, as the file page renders its own notes)
    assert body.count("<h1") == 1 and "<h2>Hostile</h2>" in body  # one h1 a page: the file's name
    assert "<h3>Later</h3>" in body and '<input type="checkbox" disabled aria-label="to do"> feed the quokka' in body
    tags = re.search(r"<dl class=\"file-tags\" data-indexed-tags>(.*?)</dl>", body, re.S).group(1)
    assert " ".join(re.sub(r"<[^>]+>", " ", tags).split()) == \
        "trust external confidence not set source not set evergreen not set"
    hit = re.search(r'<div class="block passage hit" id="hit" data-lines="(\d+)-(\d+)">(.*?)</div>', body, re.S)
    assert hit and "restarts itself at dawn" in hit.group(3)
    assert body.count('class="block passage') >= 2  # the whole file, passage by passage
    assert 'Search “quokka restarts at dawn”' in body  # the way back to the search
    assert client.get("/memories/nope/file/hostile.md").status_code == 404
    assert client.get("/memories/operations/file/missing.md").status_code == 404
    assert client.get("/memories/operations/file/../notes/martin.md").status_code == 404


def test_pages_and_searches_reuse_their_connections(dashboard, pg, url):
    """After the first requests, page renders, index polls and searches over both memories open no new
    connection; a lost connection is replaced on the next request; closing the dashboard closes them."""
    client = dashboard.test_client()

    def requests() -> None:
        assert client.get("/").status_code == 200
        assert client.get("/index/beacon").status_code == 200
        assert client.get("/", query_string={"q": QUERY, "memories": "notes,operations"}).status_code == 200
        assert client.get("/", query_string={"q": "Martin meetings"}).status_code == 200

    requests()
    before = _sessions(pg, url)
    for _ in range(5):
        requests()
    assert _sessions(pg, url) - before == 0
    assert dashboard.extensions["tachikoma"].searchers.open_count() == 2

    import psycopg

    with psycopg.connect(pg.url("postgres"), autocommit=True) as db:  # the server drops them all
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tachikoma' "
                   "AND datname = %s", (url.split("@/", 1)[1].split("?", 1)[0],))
    answer = client.get("/api/search", query_string={"q": QUERY, "memories": "notes,operations"})
    assert answer.status_code == 200 and answer.json["results"][0]["memory"] == "operations"
    requests()
    unknown = client.get("/api/search", query_string={"q": QUERY, "memories": "notes,nope"})
    assert unknown.status_code == 400 and "no memory named 'nope'" in unknown.json["error"]

    dashboard.extensions["tachikoma"].close()
    deadline = time.monotonic() + 5
    while _open_connections(pg, url) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _open_connections(pg, url) == 0


def test_the_mcp_tools_reuse_their_connections_too(shared, pg, url):
    from tachikoma.mcp_server import MemoryTools

    tools = MemoryTools(shared, watch=False)
    try:
        first = tools.search(QUERY, 5, memories=["notes", "operations"])
        before = _sessions(pg, url)
        for _ in range(4):
            again = tools.search(QUERY, 5, memories=["notes", "operations"])
            tools.search("Martin meetings", 5)
        assert _sessions(pg, url) - before == 0
        assert [(r["memory"], r["path"]) for r in again["results"]] == [(r["memory"], r["path"])
                                                                          for r in first["results"]]
    finally:
        tools.close()
    deadline = time.monotonic() + 5
    while _open_connections(pg, url) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _open_connections(pg, url) == 0


def test_an_agent_reads_another_memory_s_result_through_mcp(shared, url):
    """Over the SDK's own stdio client: a search over two memories names each result's memory, and `read`
    with that memory gives the file as the shared index holds it, quoted as data; a path the memory's index
    does not hold is a tool error."""
    import asyncio

    from mcp import Client
    from mcp_helpers import stdio_server

    params = stdio_server(shared, "--store", url, "--no-watch")

    async def scenario():
        async with Client(params) as client:
            found = await client.call_tool("search", {"query": QUERY, "memories": ["notes", "operations"],
                                                      "budget_tokens": 0})
            first = found.structured_content["results"][0]
            read = await client.call_tool("read", {"path": first["path"], "memory": first["memory"],
                                                   "lines": f"{first['lines'][0]}-{first['lines'][1]}"})
            own = await client.call_tool("read", {"path": "martin.md", "memory": "notes"})
            missing = await client.call_tool("read", {"path": "martin.md", "memory": "operations"})
            return first, read, own, missing

    first, read, own, missing = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    assert (first["memory"], first["path"]) == ("operations", "runbook.md")
    assert not read.is_error and read.structured_content["view"] == "indexed"
    assert read.structured_content["passages"][0]["text"].startswith("# Runbook")
    text = read.content[0].text
    assert text.startswith("runbook.md of memory operations, as its shared index holds it")
    assert "> Restart the quokka service with systemctl." in text and "data to weigh" in text
    assert not own.is_error and own.structured_content["view"] == "text"  # this memory: its own note, as always
    assert "Martin" in own.structured_content["text"]
    assert missing.is_error and "no file 'martin.md' in the index of a memory named 'operations'" in \
        missing.content[0].text


def test_concurrent_searches_share_the_searchers_safely(dashboard):
    client = dashboard.test_client()
    queries = [QUERY, "Martin meetings", "coffee order", "motor controllers"]
    expected = {q: client.get("/api/search", query_string={"q": q, "memories": "notes,operations"}).json["results"]
                for q in queries}
    failures: list[str] = []

    def worker(offset: int) -> None:
        local = dashboard.test_client()
        for i in range(6):
            q = queries[(i + offset) % len(queries)]
            got = local.get("/api/search", query_string={"q": q, "memories": "notes,operations"})
            if got.status_code != 200 or [(r["memory"], r["path"], r["chunk"]) for r in got.json["results"]] != [
                    (r["memory"], r["path"], r["chunk"]) for r in expected[q]]:
                failures.append(f"{q}: {got.status_code}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures
    assert dashboard.extensions["tachikoma"].searchers.open_count() == 2


def test_on_sqlite_there_is_no_choice_and_asking_for_memories_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv(STORE_ENV, raising=False)
    root = copy_example(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    app = create_app(memory=root)
    try:
        client = app.test_client()
        assert 'name="memories"' not in client.get("/").get_data(as_text=True)
        refused = client.get("/", query_string={"q": "coffee", "memories": "memory,other"})
        assert refused.status_code == 400 and "needs a shared store" in refused.get_data(as_text=True)
        api = client.get("/api/search", query_string={"q": "coffee", "memories": "memory,other"})
        assert api.status_code == 400 and "needs a shared store" in api.json["error"]
        found = client.get("/", query_string={"q": "Martin meetings"}).get_data(as_text=True)
        assert _results(found) and all(link == "file" and not memory for memory, _, link in _results(found))
    finally:
        app.extensions["tachikoma"].close()


@pytest.mark.skipif(not CHROMIUM.exists() and os.environ.get("TACHIKOMA_REQUIRE_BROWSER") != "1",
                    reason=f"needs Debian's Chromium at {CHROMIUM}")
def test_choosing_memories_in_a_browser(dashboard):
    from playwright.sync_api import expect, sync_playwright

    with LiveServer(dashboard) as live, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            problems: list[str] = []
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(f"{live.url}/?q={QUERY.replace(' ', '+')}")
            expect(page.locator("li.result").first).to_be_visible()
            assert page.locator(".badge.memory").count() == 0
            page.get_by_label("operations").check()  # htmx searches again on change, and keeps it in the URL
            expect(page.locator("li.result .badge.memory").first).to_have_text("operations")
            assert "memories=notes" in page.url and "memories=operations" in page.url
            first = page.locator("li.result").first
            first.locator("summary").click()  # the explanation opens as before
            expect(first.locator("table.factors")).to_be_visible()
            first.locator("a.path").click()  # another memory's file: as the shared index holds it
            expect(page.locator(".passage.hit")).to_contain_text("Restart the quokka service")
            assert "/memories/operations/file/runbook.md" in page.url
            page.go_back()
            page.reload()  # the URL alone brings the same choice back
            expect(page.get_by_label("operations")).to_be_checked()
            expect(page.locator("li.result .badge.memory").first).to_have_text("operations")

            plain = browser.new_context(java_script_enabled=False).new_page()  # the form works without JS
            plain.goto(f"{live.url}/?q={QUERY.replace(' ', '+')}")
            plain.get_by_label("operations").check()
            plain.locator("fieldset.memories button[type=submit]").click()
            plain.wait_for_load_state()
            assert plain.locator("li.result .badge.memory").first.inner_text() == "operations"
            assert not problems, problems
        finally:
            browser.close()
