"""The dashboard's routes, through Flask's test client.

Every route is exercised in its full-page and htmx forms, and every way a
request must be refused: missing or wrong CSRF tokens (nothing changes on
disk), a foreign Host header, paths that leave the memory folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import threading
from html import unescape
from pathlib import Path

import pytest

from tachikoma_dashboard.app import create_app
from tachikoma import cli, stats
from tachikoma.config import load_config
from tachikoma.errors import EmbedderError
from tachikoma.web.render import explain
from tachikoma.mcp_answers import answer_text
from web_helpers import Client, build_index, copy_memory, git_run, snapshot

HTMX = {"HX-Request": "true"}


@pytest.fixture
def root(tmp_path) -> Path:
    return copy_memory(tmp_path / "memory")


@pytest.fixture
def indexed(root) -> Path:
    build_index(root)
    return root


def make_client(app):
    app.test_client_class = Client
    return app.test_client()


@pytest.fixture
def app(indexed):
    app = create_app(memory=indexed, port=5000)
    yield app
    app.extensions["tachikoma"].index_job.wait(30)


@pytest.fixture
def client(app):
    return make_client(app)


def csrf_token(client) -> str:
    html = client.get("/tag").get_data(as_text=True)
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)


def run_cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(list(args)) == 0
    return out.getvalue()


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


# --------------------------------------------------------------------------- factory, hosts, headers


def test_factory_reads_memory_from_environment(indexed, monkeypatch):
    monkeypatch.setenv("TACHIKOMA_MEMORY", str(indexed))
    app = create_app()  # what `flask --app tachikoma_dashboard.app run` does
    assert app.config["TACHIKOMA_ROOT"] == indexed
    response = app.test_client().get("/", headers={"Host": "localhost:5000"})
    assert response.status_code == 200


def test_flask_app_app_run_in_a_checkout_finds_the_factory(indexed, monkeypatch):
    """`flask --app app run` at the top of the checkout: Flask imports the checkout's app.py (not
    installed) and calls the factory it finds there; templates and static files come from the checkout."""
    from flask.cli import ScriptInfo

    checkout = Path(__file__).resolve().parent.parent
    monkeypatch.setenv("TACHIKOMA_MEMORY", str(indexed))
    monkeypatch.chdir(checkout)
    monkeypatch.setattr("sys.path", list(sys.path))  # Flask puts the checkout first: undone after the test
    assert "app" not in sys.modules
    try:
        app = ScriptInfo(app_import_path="app").load_app()
        assert sys.modules["app"].__file__ == str(checkout / "app.py")
    finally:
        sys.modules.pop("app", None)
    assert app.template_folder == str(checkout / "templates") and app.static_folder == str(checkout / "static")
    client = app.test_client()
    assert client.get("/", headers={"Host": "localhost:5000"}).status_code == 200
    assert client.get("/static/style.css", headers={"Host": "localhost:5000"}).data == (
        checkout / "static" / "style.css").read_bytes()


def test_secret_key_is_per_process_unless_configured(indexed, monkeypatch):
    monkeypatch.delenv("TACHIKOMA_SECRET_KEY", raising=False)
    first, second = create_app(memory=indexed), create_app(memory=indexed)
    assert len(first.config["SECRET_KEY"]) == 64
    assert first.config["SECRET_KEY"] != second.config["SECRET_KEY"]
    assert create_app(memory=indexed, secret_key="fixed").config["SECRET_KEY"] == "fixed"


@pytest.mark.parametrize("host", ["127.0.0.1:5000", "localhost:5000", "[::1]:5000", "LOCALHOST:5000"])
def test_served_addresses_are_answered(app, host):
    assert app.test_client().get("/", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:5000", "127.0.0.1:5001", "localhost",
                                  "127.0.0.1.evil.example:5000", "[::2]:5000", ""])
def test_foreign_host_header_is_refused(app, host):
    response = app.test_client().get("/", headers={"Host": host})
    assert response.status_code == 421
    assert app.test_client().get("/api/stats", headers={"Host": host}).status_code == 421


def test_every_post_route_needs_a_token_and_the_host(app, client, indexed):
    """Every state-changing route the app has (found in its URL map, so a new one is covered too)
    refuses a request without a CSRF token, and one with a foreign Host, and changes nothing."""
    posts = sorted({rule.rule.replace("<undo_id>", "A" * 24) for rule in app.url_map.iter_rules()
                    if "POST" in rule.methods})
    assert posts == ["/login", "/logout", "/reindex", "/tag/apply", "/tag/undo/" + "A" * 24]
    before = snapshot(indexed)
    token = csrf_token(client)
    for path in posts:
        assert client.post(path, headers=HTMX).status_code == 400, path
        assert client.post(path, headers={**HTMX, "X-CSRFToken": token, "Host": "evil.example:5000"}).status_code == 421
    assert snapshot(indexed) == before and app.extensions["tachikoma"].index_job.snapshot()["state"] != "running"


def test_configured_host_is_answered(indexed):
    app = create_app(memory=indexed, host="192.168.1.20", port=8080)
    assert app.test_client().get("/", headers={"Host": "192.168.1.20:8080"}).status_code == 200
    assert app.test_client().get("/", headers={"Host": "localhost:8080"}).status_code == 200
    assert app.test_client().get("/", headers={"Host": "evil.example:8080"}).status_code == 421


def test_foreign_host_cannot_apply_tags(app, client, indexed):
    token = csrf_token(client)
    before = snapshot(indexed)
    form = preview_form(client)
    response = client.post("/tag/apply", data={**form, "csrf_token": token},
                           headers={"Host": "attacker.example:5000"})
    assert response.status_code == 421
    assert snapshot(indexed) == before


def test_security_headers(client):
    for url in ("/", "/coverage", "/tag", "/reindex", "/file/martin.md", "/api/stats", "/nope"):
        response = client.get(url)
        csp = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert "frame-ancestors 'none'" in csp
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Referrer-Policy"] == "no-referrer"


def test_htmx_is_served_locally_and_no_inline_script(client):
    html = client.get("/").get_data(as_text=True)
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts == ['<script src="/vendor/htmx.min.js" defer>', '<script src="/static/dashboard.js" defer>']
    assert client.get("/static/dashboard.js").status_code == 200
    assert not re.search(r"\son[a-z]+=", html)
    response = client.get("/vendor/htmx.min.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert b"htmx" in response.data[:200]


def test_csrf_token_sent_by_htmx_from_body(client):
    html = client.get("/").get_data(as_text=True)
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)
    headers = json.loads(unescape(re.search(r"<body hx-headers='([^']+)'", html).group(1)))
    assert headers == {"X-CSRFToken": token}


# --------------------------------------------------------------------------- search


def test_search_page_full_and_fragment(client):
    full = client.get("/?q=martin+meetings")
    assert full.status_code == 200
    assert "<html" in full.get_data(as_text=True)
    assert "HX-Request" in full.headers["Vary"]
    fragment = client.get("/?q=martin+meetings", headers=HTMX)
    body = fragment.get_data(as_text=True)
    assert fragment.status_code == 200
    assert "<html" not in body and "<ol class=\"results\">" in body
    # a history restore asks for the whole page again
    restore = client.get("/?q=martin", headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert "<html" in restore.get_data(as_text=True)


def test_search_form_is_live_and_pushes_url(client):
    html = client.get("/").get_data(as_text=True)
    assert 'hx-trigger="input changed delay:300ms, search"' in html
    assert 'hx-push-url="true"' in html
    assert 'action="/" method="get"' in html  # plain GET without JavaScript


def test_search_results_are_explained(client):
    answer = client.get("/api/search?q=martin+meetings&limit=5").get_json()
    html = client.get("/?q=martin+meetings&limit=5", headers=HTMX).get_data(as_text=True)
    for r in answer["results"]:
        assert f"<code>{explain(r)['arithmetic']}</code>" in html  # the arithmetic itself: test_web_render.py
        assert f'href="/file/{r["path"]}?lines={r["lines"][0]}-{r["lines"][1]}&amp;q=martin+meetings&amp;limit=5#hit"' in html
    text = text_of(html)
    assert re.search(r"trust \S+ owner", text) and re.search(r"confidence \S+ high", text)
    assert re.search(r"\d{4}-\d\d-\d\d, (today|\d+ days? ago), from (front matter|the date in its path|"
                     r"its last content commit|the commit that imported it with many other files|"
                     r"the file's modification time)", text)
    for r in answer["results"]:  # each result says when it is from and how that is known
        assert f'title="{r["factors"]["date"]}">{r["factors"]["date"][:10]}, from ' in html
    for name in ("similarity", "trust", "confidence", "recency", "duplicate penalty"):
        assert f"<th scope=\"row\">{name}</th>" in html


def test_search_highlights_query_words_after_escaping(indexed):
    (indexed / "inbox" / "html.md").write_text("# Markup\n\nThe <b>meeting</b> & the <script>alert(1)</script> tag.\n")
    build_index(indexed)
    client = make_client(create_app(memory=indexed, port=5000))
    html = client.get("/?q=meeting+script&kind=markdown", headers=HTMX).get_data(as_text=True)
    assert "<script>alert" not in html
    assert "&lt;b&gt;<mark>meeting</mark>&lt;/b&gt;" in html
    assert "&lt;<mark>script</mark>&gt;alert(1)" in html


def test_search_highlights_the_inflections_keyword_search_matched(indexed):
    (indexed / "inbox" / "flaky.md").write_text("# Flaky upload\n\nThe uploader retries twice, then gives up.\n")
    build_index(indexed)
    client = make_client(create_app(memory=indexed, port=5000))
    answer = client.get("/api/search?q=retry&limit=1").get_json()
    assert answer["results"][0]["path"] == "inbox/flaky.md"
    assert answer["results"][0]["factors"]["keyword_score"] > 0  # the index matched "retries" for "retry"
    html = client.get("/?q=retry&limit=1", headers=HTMX).get_data(as_text=True)
    assert "uploader <mark>retries</mark> twice" in html


def test_second_passage_of_a_file_shows_the_duplicate_penalty_in_its_arithmetic(indexed):
    sections = "\n\n".join(f"## Part {n}\n\n" + " ".join(["gearbox backlash measurement"] * 40) for n in range(4))
    (indexed / "inbox" / "gearbox.md").write_text("# Gearbox\n\n" + sections + "\n")
    build_index(indexed)
    client = make_client(create_app(memory=indexed, port=5000))
    results = client.get("/api/search?q=gearbox+backlash&limit=5").get_json()["results"]
    second = next(r for r in results if r["factors"]["duplicate_penalty"] < 1)
    html = client.get("/?q=gearbox+backlash&limit=5", headers=HTMX).get_data(as_text=True)
    arithmetic = explain(second)["arithmetic"]
    assert arithmetic.split(" = ")[0].endswith(f" × {second['factors']['duplicate_penalty']:.2f}")
    assert f"<code>{arithmetic}</code>" in html
    assert "similarity × trust × confidence × recency × duplicate penalty = score" in html


def test_highlight_marks_only_the_words_keyword_search_used(client):
    """ "martin" is in 9 of the example's 11 chunks: keyword search drops it (it would score zero),
    so the snippets mark "meetings" but not "Martin"."""
    assert client.get("/api/search", query_string={"q": "martin meetings"}).get_json()["keywords"] == ["meetings"]
    html = client.get("/", query_string={"q": "martin meetings"}).get_data(as_text=True)
    snippets = re.findall(r'<p class="text"[^>]*>(.*?)</p>', html, re.S)
    assert any("Martin" in s for s in snippets)
    marked = {m.lower() for s in snippets for m in re.findall(r"<mark>(.*?)</mark>", s)}
    assert marked and marked <= {"meeting", "meetings"}, marked


def test_session_snippets_start_with_what_was_said(client):
    html = client.get("/", query_string={"q": "DRV8353 samples", "kind": "transcript"}).get_data(as_text=True)
    snippets = [text_of(p) for p in re.findall(r'<p class="text"[^>]*>(.*?)</p>', html, re.S)]
    assert snippets and all(not s.startswith(("Claude Code session", "[2026-")) for s in snippets), snippets
    assert any(s.startswith("summary: Planning the board revision") for s in snippets)


def test_search_page_details(client):
    html = client.get("/").get_data(as_text=True)
    placeholder = re.search(r'placeholder="([^"]+)"', html).group(1)
    assert "Martin" not in placeholder and "meetings" not in placeholder  # nothing from the demo memory
    footer = html.split('<footer', 1)[1]
    assert 'href="/api/search' not in footer and "/api/search?q=…" in footer  # no fixed example query (issue 32)
    footer = client.get("/?q=gate+driver").get_data(as_text=True).split('<footer', 1)[1]
    example = unescape(re.search(r'href="(/api/search\?[^"]+)"', footer).group(1))  # this search, as JSON
    response = client.get(example)
    assert response.status_code == 200 and "results" in response.get_json() and "q=gate+driver" in example
    assert unescape(re.search(r'<a href="/api/search\?[^"]+">([^<]+)</a>', footer).group(1)) == example


def test_file_page_breadcrumb_keeps_the_search(client):
    html = client.get("/?q=martin+meetings&kind=markdown", headers=HTMX).get_data(as_text=True)
    link = unescape(re.search(r'<a class="path" href="([^"]+)"', html).group(1))
    assert "q=martin+meetings" in link and "kind=markdown" in link
    page = client.get(link.split("#")[0]).get_data(as_text=True)
    crumbs = page.split('class="crumbs"', 1)[1].split("</nav>", 1)[0]
    assert 'href="/?q=martin+meetings&amp;kind=markdown"' in crumbs and "Search “martin meetings”" in crumbs
    plain = client.get("/file/martin.md").get_data(as_text=True)
    assert '<a href="/">Search</a>' in plain.split('class="crumbs"', 1)[1]


def test_cli_explanation_uses_the_dashboard_words(indexed):
    out = run_cli("--memory", str(indexed), "search", "martin meetings", "--limit", "2")
    assert "× meaning " in out and "× keywords " in out
    assert "vector" not in out and "keyword " not in out


def test_search_filters(client):
    for kind in ("markdown", "transcript"):
        answer = client.get(f"/api/search?q=martin&kind={kind}&limit=50").get_json()
        assert answer["results"] and {r["kind"] for r in answer["results"]} == {kind}
    untagged = client.get("/api/search?q=martin&untagged=1&limit=50").get_json()
    assert {r["path"] for r in untagged["results"]} <= {"2026-03-22/meeting-notes.md",
                                                       "2026-03-22/session-abc.jsonl", "2026-05-10/design-chat.jsonl"}
    owner = client.get("/api/search?q=martin&trust=owner&limit=50").get_json()
    assert {r["tags"].get("trust") for r in owner["results"]} == {"owner"}
    html = client.get("/?q=martin&kind=transcript", headers=HTMX).get_data(as_text=True)
    assert "markdown</span>" not in html


def test_search_bad_parameters(client):
    assert client.get("/?q=x&limit=0").status_code == 400
    assert client.get("/?q=x&kind=pdf").status_code == 400
    for url in ("/api/search", "/api/search?q=", "/api/search?q=x&limit=abc", "/api/search?q=x&limit=1000",
                "/api/search?q=x&trust=boss"):
        response = client.get(url)
        assert response.status_code == 400
        assert response.is_json and set(response.get_json()) == {"error", "status"}


def test_search_without_query_shows_a_hint(client):
    html = client.get("/", headers=HTMX).get_data(as_text=True)
    assert "Type what you are looking for" in html


def test_no_index_yet(root):
    client = make_client(create_app(memory=root, port=5000))
    for url in ("/", "/?q=martin"):
        text = text_of(client.get(url).get_data(as_text=True))
        assert "No index yet" in text and "tachikoma index" in text and "Re-index" in text
    response = client.get("/api/search?q=martin")
    assert response.status_code == 503
    assert "no index yet" in response.get_json()["error"]
    assert not (root / ".cache" / "index.db").exists()  # looking did not create one


def test_embedder_unreachable_is_explained(app, client, monkeypatch):
    def unreachable(*args, **kwargs):
        raise EmbedderError("cannot reach Ollama at http://127.0.0.1:11434: start it with `ollama serve` "
                            "(or set OLLAMA_HOST)")

    monkeypatch.setattr(app.extensions["tachikoma"], "search", unreachable)
    response = client.get("/?q=martin", headers=HTMX)
    assert response.status_code == 503
    text = text_of(response.get_data(as_text=True))
    assert "The embedder is not available" in text and "ollama serve" in text
    api = client.get("/api/search?q=martin")
    assert api.status_code == 503 and "ollama serve" in api.get_json()["error"]


def test_no_results(client):
    html = client.get("/?q=zzzzqqqq+xxyyzz&kind=transcript&trust=owner", headers=HTMX).get_data(as_text=True)
    assert "No results for" in html and "searching without them" in html


# --------------------------------------------------------------------------- JSON API


def test_words_found_nowhere_are_named_on_the_page_and_the_command_line(client, indexed):
    query = "heat sink zyxwvutq"  # "zyxwvutq" is in no note: every keyword match counts it as missing
    answer = client.get("/api/search", query_string={"q": query}).get_json()
    assert answer["keywords_nowhere"] == ["zyxwvutq"] and answer["results"]
    html = client.get("/", query_string={"q": query}).get_data(as_text=True)
    assert "not in this memory: “zyxwvutq” (every keyword match counts it as missing)" in html
    printed = run_cli("--memory", str(indexed), "search", "-n", "3", query)
    assert printed.splitlines()[0].startswith(" 1. ")  # after the results, which come first
    assert printed.splitlines()[-1].startswith("not in this memory: “zyxwvutq”")
    assert "not in this memory" not in run_cli("--memory", str(indexed), "search", "-n", "3", "heat sink")
    page = client.get("/", query_string={"q": "heat sink"}).get_data(as_text=True)
    assert "not in this memory" not in page
    # ... in the block cut to a token budget (counted in it), and in the MCP tool's text, as an agent reads them
    block = run_cli("--memory", str(indexed), "search", "--budget", "300", query)
    assert "not in this memory: “zyxwvutq”" in block.split("\n1.")[0], block
    head = answer_text(answer).split("\n1.\n")[0]  # said before the evidence, as in the block cut to a budget
    assert "\nnot in this memory: “zyxwvutq” (every keyword match counts it as missing)\n" in head
    assert "not in this memory" not in answer_text(client.get("/api/search", query_string={"q": "heat sink"}).get_json())


def test_a_question_that_gathers_names_the_files_it_was_read_with(client, indexed):
    query = "how many heat sink parts in total"
    answer = client.get("/api/search", query_string={"q": query, "min_score": 0}).get_json()
    files = [w["path"] for w in answer["widened_by"]]
    assert len(files) == 3 and len(set(files)) == 3 and answer["results"]
    assert all("meaning_from_question" in r["factors"] for r in answer["results"])
    html = unescape(client.get("/", query_string={"q": query, "min_score": 0}).get_data(as_text=True))
    assert f"a question that gathers from several memories: read together with {files[0]}, {files[1]} and {files[2]}" in html
    assert "from the question alone" in html  # each result's meaning says what the question alone gave
    printed = run_cli("--memory", str(indexed), "search", "--min-score", "0", "-n", "3", query)
    assert printed.splitlines()[-1].startswith("a question that gathers from several memories: read together with")
    head = answer_text(answer).split("\n1.\n")[0]
    assert f"\na question that gathers from several memories: read together with {files[0]}, " in head
    plain = client.get("/api/search", query_string={"q": "heat sink parts", "min_score": 0}).get_json()
    assert plain["widened_by"] == [] and "a question that gathers" not in run_cli(
        "--memory", str(indexed), "search", "--min-score", "0", "-n", "3", "heat sink parts")


def test_api_search_is_the_cli_json(client, indexed):
    api = client.get("/api/search?q=heat+sink&limit=4")
    assert api.status_code == 200 and api.mimetype == "application/json"
    ours = api.get_json()
    theirs = json.loads(run_cli("--memory", str(indexed), "search", "--json", "-n", "4", "heat", "sink"))
    assert set(ours) == set(theirs) == {"query", "keywords", "keywords_nowhere", "widened_by", "results", "min_score",
                                        "no_good_match",
                                        "freshness", "embedder", "recency", "timing_ms", "match", "as_of", "time",
                                        "staleness"}
    assert ours["query"] == theirs["query"] and ours["embedder"] == theirs["embedder"]
    assert len(ours["results"]) == len(theirs["results"]) >= 3
    for a, b in zip(ours["results"], theirs["results"]):
        assert set(a) == set(b) and set(a["factors"]) == set(b["factors"])
        assert (a["path"], a["chunk"], a["lines"], a["text"], a["tags"]) == (b["path"], b["chunk"], b["lines"],
                                                                           b["text"], b["tags"])
        assert a["score"] == pytest.approx(b["score"], rel=1e-6)


def test_api_stats_is_the_cli_json(client, indexed):
    response = client.get("/api/stats")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_data(as_text=True) == run_cli("--memory", str(indexed), "stats", "--json")


def test_api_errors_are_json(client):
    response = client.get("/api/unknown")
    assert response.status_code == 404 and response.get_json()["status"] == 404


# --------------------------------------------------------------------------- a memory file


def h1s(html: str) -> list[str]:
    """The text of each h1 of a page, as an HTML parser reads it."""
    from html.parser import HTMLParser

    found: list[list[str]] = []

    class Headings(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "h1":
                found.append([])

        def handle_endtag(self, tag):
            if tag == "h1":
                found.append(None)

        def handle_data(self, data):
            if found and found[-1] is not None:
                found[-1].append(data)

    Headings().feed(html)
    return [" ".join("".join(parts).split()) for parts in found if parts is not None]


def test_every_page_has_one_h1(client):
    """The file page of a note had two h1s: the file's name and the note's own `# Martin Keller` (a screen reader's
    list of headings gave the page two titles). Its title is the one h1, the note's headings a level down; every
    other page has one too."""
    page = client.get("/file/martin.md").get_data(as_text=True)
    assert h1s(page) == ["martin.md"]
    assert "<h2>Martin Keller</h2>" in page and "<h3>Preferences</h3>" in page
    for path in ("/", "/?q=Martin+meetings", "/coverage", "/coverage/files?status=untagged", "/tag", "/reindex",
                 "/file/2026-03-22/session-abc.jsonl", "/file/nowhere.md"):
        html = client.get(path).get_data(as_text=True)
        assert len(h1s(html)) == 1, (path, h1s(html))


def test_markdown_file_page(client):
    html = client.get("/file/martin.md").get_data(as_text=True)
    assert "<h2>Martin Keller</h2>" in html
    assert "trust: owner" in html and "confidence: high" in html and "source: martin" in html
    assert 'id="hit"' not in html


def test_a_data_file_page_says_data_file_not_transcript(client, indexed):
    """Regression (issue 18 leftover): a .jsonl with no transcript message showed a "transcript" badge and a
    tag editor, though stats, the index and tagging count it as a data file."""
    (indexed / "metrics.jsonl").write_text('{"metric": "latency", "value": 3}\n{"metric": "tokens", "value": 812}\n')
    html = client.get("/file/metrics.jsonl").get_data(as_text=True)
    badges = re.search(r'<div class="badges">(.*?)</div>', html, re.S).group(1)
    assert '<span class="badge kind kind-data">data file</span>' in badges and "transcript" not in badges
    assert "data-data-file" in html and "Edit tags" not in html
    head = client.get("/file/metrics.jsonl?part=head", headers=HTMX).get_data(as_text=True)
    assert "kind-data" in head and "kind-transcript" not in head
    session = client.get("/file/2026-03-22/session-abc.jsonl").get_data(as_text=True)  # a real transcript is one
    assert '<span class="badge kind kind-transcript">transcript</span>' in session and "Edit tags" in session


def test_markdown_chunk_is_highlighted(client):
    html = client.get("/file/martin.md?lines=12-16").get_data(as_text=True)
    hits = re.findall(r'<div class="block hit" id="([^"]+)" data-lines="(\d+)-(\d+)"[^>]*>', html)
    assert hits and hits[0][0] == "hit"
    for _, start, end in hits:
        assert int(start) <= 16 and int(end) >= 12
    assert "Preferences" in html.split('id="hit"', 1)[1][:200]


def test_transcript_page_is_a_conversation(client):
    html = client.get("/file/2026-03-22/session-abc.jsonl?lines=5-5").get_data(as_text=True)
    speakers = re.findall(r'<span class="speaker">([^<]+)</span>', html)
    assert speakers[:3] == ["summary", "user", "assistant"]
    turn = re.search(r'<li class="turn speaker-assistant hit" id="hit">(.*?)</li>', html, re.S).group(1)
    assert "ship on 27 March" in turn
    assert "untagged" in html  # no entry in the tag file
    tagged = client.get("/file/2026-04-02/session-chat.jsonl").get_data(as_text=True)
    assert "trust: self" in tagged and "confidence: high" in tagged


def test_invalid_tag_shown(client):
    html = client.get("/file/inbox/bad-tag.md").get_data(as_text=True)
    assert "trust: maybe (invalid)" in html


XSS = """---
trust: self
source: "<script>alert('source')</script>"
---
# Hostile note <script>alert('title')</script>

<script>alert('body')</script>
<img src="x" onerror="alert('img')">
<a href="javascript:alert('a')">a link</a> and [md link](javascript:alert('md'))
<div onclick="alert('div')" style="color:red">styled</div>
<iframe src="https://example.org"></iframe>
[relative](projects/tachikoma.md) and [escape](../../etc/passwd)
"""


def test_hostile_markdown_renders_inert(indexed):
    """The whole page (title, front matter, body) stays inert; links go through the file route."""
    (indexed / "inbox" / "hostile.md").write_text(XSS)
    client = make_client(create_app(memory=indexed, port=5000))
    html = client.get("/file/inbox/hostile.md").get_data(as_text=True)
    body = html.split('<main id="main"', 1)[1]
    assert "<script" not in body.lower()
    assert not re.search(r"\son[a-z]+\s*=", body)
    assert "javascript:" not in body.lower()
    assert "&lt;script&gt;alert(&#39;source&#39;)&lt;/script&gt;" in body  # the tag value, escaped
    assert '<a href="/file/inbox/projects/tachikoma.md"' in body
    # what each kind of hostile markup becomes, and links out of the folder: test_web_render.py


def test_a_file_name_with_a_right_to_left_override_is_shown_escaped(indexed):
    """A name holding U+202E (right-to-left override) shows its letters backwards from there ("invoice\u202efdp.md"
    reads "invoicedm.pdf"): the command line prints such a name escaped (`humanize.printable`), the dashboard printed
    it raw in results, file lists, the file page, the tag preview and its changes. Every face now shows it as the
    command line does; links still lead to the file."""
    name = "invoice\u202efdp.md"
    (indexed / "inbox" / name).write_text("# Invoice\nThe invoice for the okapi enclosure.\n")
    build_index(indexed)
    client = make_client(create_app(memory=indexed, port=5000))
    pages = {url: client.get(url) for url in (
        "/?q=okapi+enclosure+invoice", "/file/inbox/invoice%E2%80%AEfdp.md", "/coverage/files?status=untagged",
        "/tag?preview=1&path=inbox/&trust=self", "/coverage")}
    for url, response in pages.items():
        assert response.status_code == 200, url
        shown = unescape(re.sub(r"<[^>]*>", "", response.get_data(as_text=True)))  # the text, no attributes
        assert "\u202e" not in shown, url
        if url != "/coverage":
            assert "inbox/invoice\\u202efdp.md" in shown, url
    html = pages["/?q=okapi+enclosure+invoice"].get_data(as_text=True)
    assert 'href="/file/inbox/invoice%E2%80%AEfdp.md?' in html  # the link is the file's


def test_a_symlinked_note_opens_as_the_note_it_stands_for(indexed):
    """`alias.md -> martin.md` is the same note: the command line and MCP tag martin.md when asked to tag alias.md.
    The file page of the alias (a note's link can lead there) offered "Edit tags", whose preview said "No file
    matched" (the alias is not among the memory's files, its note is). It now opens the note's own page."""
    (indexed / "inbox" / "alias.md").symlink_to(indexed / "martin.md")
    client = make_client(create_app(memory=indexed, port=5000))
    response = client.get("/file/inbox/alias.md?lines=7-9&q=meetings")
    assert response.status_code in (301, 302, 303, 307, 308)
    assert response.headers["Location"].endswith("/file/martin.md?lines=7-9&q=meetings")
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'name="path" value="martin.md"' in html
    preview = client.get("/tag", query_string={"preview": "1", "kind": "markdown", "path": "martin.md",
                                               "mode": "overwrite", "confidence": "low"}).get_data(as_text=True)
    assert "1 file would change" in text_of(preview)
    (indexed / "inbox" / "dangling.md").symlink_to(indexed / "inbox" / "nowhere.md")
    assert client.get("/file/inbox/dangling.md").status_code == 404


@pytest.mark.parametrize("url", [
    "/file/../outside.md", "/file/%2e%2e/outside.md", "/file/%2E%2E%2Foutside.md", "/file/inbox/../../outside.md",
    "/file//etc/passwd", "/file/%2Fetc%2Fpasswd", "/file/.git/config", "/file/.cache/index.db",
    "/file/..%5Coutside.md", "/file/tachikoma-tags.yaml", "/file/nope.md", "/file/inbox",
    "/file/link-out.md", "/file/%252e%252e/outside.md",
])
def test_paths_outside_memory_are_404(client, indexed, url):
    (indexed.parent / "outside.md").write_text("# secret outside the memory\n")
    link = indexed / "link-out.md"
    if not link.exists():
        link.symlink_to(indexed.parent / "outside.md")
    response = client.get(url, follow_redirects=True)  # werkzeug merges "//" with a redirect first
    assert response.status_code == 404
    assert b"secret outside" not in response.data


# --------------------------------------------------------------------------- coverage


def test_coverage_page_shows_stats_report(client, indexed):
    report = stats.report(indexed)
    html = client.get("/coverage").get_data(as_text=True)
    for status in ("tagged", "partial", "untagged", "invalid"):
        card = re.search(rf'<a class="card s-{status}" data-status="{status}" href="[^"]*">(.*?)</a>', html, re.S)
        numbers = text_of(card.group(1))
        assert numbers.split()[0] == str(report[status])
        assert f"{report['percent'][status]:g}%" in numbers or f"{report['percent'][status]}%" in numbers
    for kind, bucket in report["by_kind"].items():
        row = re.search(rf'<tr data-name="{kind}">(.*?)</tr>', html, re.S).group(1)
        for status in ("tagged", "partial", "untagged", "invalid"):
            cell = re.search(rf'data-status="{status}"[^>]*>(?:<a [^>]*>)?(\d+)', row).group(1)
            assert int(cell) == bucket[status]
    for folder in report["by_folder"]:
        assert f'<tr data-name="{folder}">' in html
    for value, count in report["trust"].items():
        assert re.search(rf'<td class="num" data-value="{value}">{count}</td>', html)
    for item in report["invalid_values"]:
        assert item["path"] in html and item["value"] in html
    assert f'data-changed-since="{report["index"]["changed_since"]}"' in html


def test_coverage_says_what_untagged_notes_beside_tagged_chats_do_to_ranking(tmp_path, client):
    from test_stats import notes_and_tagged_chats

    assert "What the tags do to ranking" not in client.get("/coverage").get_data(as_text=True)  # the example memory
    root = notes_and_tagged_chats(tmp_path / "notes")
    app = create_app(memory=root, port=5000)
    try:
        html = unescape(make_client(app).get("/coverage").get_data(as_text=True))
    finally:
        app.extensions["tachikoma"].index_job.wait(30)
    assert 'data-balance="3"' in html and f"{stats.coverage(root)['balance']['text']}." in html
    link = re.search(r'<a href="(/tag\?[^"]*)">Tag the untagged notes…</a>', html).group(1)
    assert all(part in link for part in ("kind=markdown", "untagged=1", "trust=owner", "confidence=high"))
    form = make_client(app).get(link).get_data(as_text=True)  # the tag page, filled in, nothing written yet
    assert re.search(r'name="untagged" value="1"\s+checked', form) or 'name="untagged" value="1" checked' in form


def count_links(html: str) -> list[tuple[str, int]]:
    """(href, number shown) of every link from a coverage count to its list of files."""
    return [(unescape(href), int(n)) for href, n in
            re.findall(r'<a (?:class="card[^"]*" data-status="[^"]*" )?href="(/coverage/files[^"]*)"[^>]*>\s*'
                       r'(?:<span class="card-num">)?(\d+)', html)]


def test_every_coverage_count_links_to_its_files(client, indexed):
    report = stats.report(indexed)
    links = count_links(client.get("/coverage").get_data(as_text=True))
    nonzero = (sum(1 for s in stats.STATUSES if report[s])
               + sum(1 for b in [*report["by_kind"].values(), *report["by_folder"].values()]
                     for key in ("files", *stats.STATUSES) if b[key]))
    assert len(links) == nonzero  # every count above zero is a link (cards, and each row's files and statuses)
    for href, shown in links:
        page = client.get(href)
        assert page.status_code == 200, href
        html = page.get_data(as_text=True)
        paths = [unescape(p) for p in re.findall(r'<li data-path="([^"]+)">', html)]
        assert len(paths) == shown, href
        for path in paths:
            assert f'href="/file/{path}"' in html
            assert f'href="/tag?path={path}"' in html  # Tag…, pre-filled with the file


def test_file_list_filters_and_titles(client, indexed):
    html = client.get("/coverage/files", query_string={"status": "untagged", "kind": "transcript"}).get_data(
        as_text=True)
    assert "<h1>Untagged transcript files" in html
    paths = re.findall(r'<li data-path="([^"]+)">', html)
    assert paths == ["2026-03-22/session-abc.jsonl", "2026-05-10/design-chat.jsonl"]
    top = client.get("/coverage/files", query_string={"folder": "."}).get_data(as_text=True)
    assert "<h1>Files at the top level" in top
    assert re.findall(r'<li data-path="([^"]+)">', top) == ["identity.md", "martin.md", "rumours.md"]
    bad = client.get("/coverage/files", query_string={"status": "lost"})
    assert bad.status_code == 400 and "status must be one of" in bad.get_data(as_text=True)
    for query in ({"status": "bogus"}, {"kind": "bogus"}, {"status": "bogus", "kind": "markdown"}):
        bad = client.get("/coverage/files", query_string=query)
        html = bad.get_data(as_text=True)
        assert bad.status_code == 400 and "bogus" not in re.sub(r'hx-get="[^"]*"', "", html).lower(), query
        assert "<title>No such list of files" in html and "<h1>No such list of files</h1>" in html
    assert "status must be one of tagged, partial, untagged, invalid" in client.get(
        "/coverage/files", query_string={"status": "bogus"}).get_data(as_text=True)
    fragment = client.get("/coverage/files", query_string={"status": "invalid"}, headers=HTMX).get_data(as_text=True)
    assert "<html" not in fragment and 'data-path="inbox/bad-tag.md"' in fragment


def test_tag_link_of_a_file_selects_only_that_file(client, indexed):
    (indexed / "odd[1].md").write_text("# odd\n\nA name with glob characters.\n")
    (indexed / "inbox" / "odd1.md").write_text("# odd too\n")
    html = client.get("/coverage/files", query_string={"status": "untagged"}).get_data(as_text=True)
    link = unescape(re.search(r'<li data-path="odd\[1\].md">.*?href="(/tag\?path=[^"]+)"', html, re.S).group(1))
    preview = text_of(client.get(link + "&preview=1&trust=self").get_data(as_text=True))
    assert "1 file would change" in preview and "1 file matched" in preview


def test_top_level_row_has_a_tag_link(client, indexed):
    html = client.get("/coverage").get_data(as_text=True)
    row = re.search(r'<tr data-name="\.">(.*?)</tr>', html, re.S).group(1)
    assert "(top level)" in row
    link = unescape(re.search(r'href="(/tag\?path=[^"]+)"[^>]*>Tag…', row).group(1))
    preview = client.get(link + "&preview=1&trust=owner&mode=overwrite").get_data(as_text=True)
    changed = set(re.findall(r'<tr data-path="([^"]+)">', preview))
    assert changed and changed <= {"identity.md", "martin.md", "rumours.md"}  # only files at the top level
    assert "3 files matched" in text_of(preview)


def test_problems_link_to_their_files(client, indexed):
    (indexed / "inbox" / "broken.md").write_text("---\ntrust: [unclosed\n---\nbody\n")
    html = client.get("/coverage").get_data(as_text=True)
    problems = html.split('class="problems"', 1)[1].split("</ul>", 1)[0]
    assert '<a href="/file/inbox/broken.md"><code>inbox/broken.md</code></a>' in problems


def test_coverage_fragment(client):
    fragment = client.get("/coverage", headers=HTMX).get_data(as_text=True)
    assert "<html" not in fragment and 'class="cards"' in fragment


def test_coverage_of_broken_tag_file(client, indexed):
    """Session 46: the notes are counted as usual and the transcripts, whose tags the file holds, are said not
    to be (it was a 503 page, "Coverage cannot be counted", for the notes too)."""
    (indexed / "tachikoma-tags.yaml").write_text("a.jsonl:\n  trust: self\nb.jsonl: [unclosed\n")
    response = client.get("/coverage")
    html = text_of(response.get_data(as_text=True))
    assert response.status_code == 200
    assert "Transcripts not counted" in html and "3 transcripts are not counted" in html
    assert "tachikoma-tags.yaml, line 3: malformed YAML" in html  # the file and its last line, where it breaks
    assert "fix the file before tagging" not in html and "has not changed it" in html
    assert 'class="cards"' in response.get_data(as_text=True), "the notes are counted"
    api = client.get("/api/stats")
    assert api.status_code == 200 and api.mimetype == "application/json"
    body = api.get_json()
    assert body["tag_file"]["file"] == "tachikoma-tags.yaml" and body["tag_file"]["line"] == 3
    assert body["tag_file"]["not_counted"] == 3 and "malformed YAML" in body["tag_file"]["problem"]
    assert body["by_kind"]["markdown"]["files"] > 0 and body["by_kind"]["transcript"]["files"] == 0
    listed = client.get("/coverage/files", query_string={"kind": "transcript"})
    assert listed.status_code == 503 and "malformed YAML" in text_of(listed.get_data(as_text=True))
    notes = client.get("/coverage/files", query_string={"kind": "markdown"})
    assert notes.status_code == 200 and "martin.md" in notes.get_data(as_text=True)


# --------------------------------------------------------------------------- bulk tagging


PREVIEW = {"preview": "1", "kind": "transcript", "untagged": "1", "trust": "self", "confidence": "medium",
           "source": "tachikoma", "mode": "fill"}


def preview_form(client, args=PREVIEW) -> dict:
    """The hidden fields of the Apply form shown by a preview."""
    html = client.get("/tag", query_string=args).get_data(as_text=True)
    form = html.split('<form class="apply"', 1)[1].split("</form>", 1)[0]
    return {name: unescape(value) for name, value in re.findall(r'name="([^"]+)" value="([^"]*)"', form)
            if name != "csrf_token"}


def test_tag_page_and_preview_write_nothing(client, indexed):
    before = snapshot(indexed)
    assert "Choose files and values" in client.get("/tag").get_data(as_text=True)
    response = client.get("/tag", query_string=PREVIEW, headers=HTMX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in html
    assert "2 files would change" in html
    assert 'data-path="2026-03-22/session-abc.jsonl"' in html and 'data-path="2026-05-10/design-chat.jsonl"' in html
    assert "2026-04-02/session-chat.jsonl" not in html  # already tagged
    assert '<ins title="after">self</ins>' in html
    assert snapshot(indexed) == before


def test_preview_shows_before_values_on_overwrite(client):
    html = client.get("/tag", query_string={"preview": "1", "path": "inbox/", "trust": "external",
                                            "mode": "overwrite"}).get_data(as_text=True)
    assert '<del title="before">maybe</del>' in html and '<del title="before">self</del>' in html


def test_preview_says_why_nothing_would_change(client):
    no_match = text_of(client.get("/tag", query_string={"preview": "1", "path": "no-such-folder/",
                                                          "trust": "owner"}).get_data(as_text=True))
    assert "0 files matched" in no_match and "No file matched" in no_match
    assert "already" not in no_match  # not also "every matching file already has these values"
    tagged = text_of(client.get("/tag", query_string={"preview": "1", "path": "2026-04-02/session-chat.jsonl",
                                                        "trust": "self"}).get_data(as_text=True))
    assert "1 file matched, 1 already had these values" in tagged
    assert "every matching file already has these values." in tagged  # Overwrite would change nothing
    assert "No file matched" not in tagged
    kept = text_of(client.get("/tag", query_string={"preview": "1", "path": "2026-04-02/session-chat.jsonl",
                                                      "confidence": "low"}).get_data(as_text=True))
    assert "already" not in kept.split("Nothing has been written")[0]  # it holds confidence: high, not low
    assert "1 file keeps its own value (listed below): existing values are kept. Choose Overwrite" in kept
    assert "session-chat.jsonl" in kept and "confidence=high kept, not low" in kept


def test_preview_form_errors(client):
    response = client.get("/tag", query_string={"preview": "1", "trust": "boss", "after": "yesterday"})
    assert response.status_code == 400
    text = text_of(response.get_data(as_text=True))
    assert "invalid trust 'boss'" in text and "use a date like" in text
    empty = client.get("/tag", query_string={"preview": "1", "kind": "markdown"})
    assert empty.status_code == 400 and "choose at least one value" in empty.get_data(as_text=True)


@pytest.mark.parametrize("token", [None, "", "not-a-token", "forged.token.value"])
def test_apply_without_valid_csrf_is_refused(client, indexed, token):
    form = preview_form(client)
    before = snapshot(indexed)
    data = dict(form) if token is None else {**form, "csrf_token": token}
    response = client.post("/tag/apply", data=data)
    assert response.status_code == 400
    assert "Nothing was changed" in response.get_data(as_text=True)
    assert snapshot(indexed) == before


def test_token_from_another_session_is_refused(app, client, indexed):
    other = make_client(app)
    token = csrf_token(other)
    before = snapshot(indexed)
    assert client.post("/tag/apply", data={**preview_form(client), "csrf_token": token}).status_code == 400
    assert snapshot(indexed) == before


def test_apply_and_undo(app, client, indexed):
    original = snapshot(indexed)
    commits = git_run(indexed, "rev-list", "--count", "HEAD").strip()
    token = csrf_token(client)
    form = preview_form(client)
    response = client.post("/tag/apply", data=form, headers={**HTMX, "X-CSRFToken": token})
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in html
    assert "Tagged 2 files" in html and "Committed" in html
    tags = (indexed / "tachikoma-tags.yaml").read_text()
    assert "2026-03-22/session-abc.jsonl" in tags and "2026-05-10/design-chat.jsonl" in tags
    assert int(git_run(indexed, "rev-list", "--count", "HEAD")) == int(commits) + 1
    assert stats.report(indexed)["by_kind"]["transcript"]["tagged"] == 3
    assert "data-coverage-tagged>8<" in html

    undo_url = re.search(r'hx-post="(/tag/undo/[^"]+)"', html).group(1)
    refused = client.post(undo_url, headers=HTMX)  # no token
    assert refused.status_code == 400
    assert "2026-03-22/session-abc.jsonl" in (indexed / "tachikoma-tags.yaml").read_text()

    undone = client.post(undo_url, headers={**HTMX, "X-CSRFToken": token})
    assert undone.status_code == 200 and "Undone: 2 files restored" in undone.get_data(as_text=True)
    assert snapshot(indexed) == original  # byte for byte
    assert stats.report(indexed)["by_kind"]["transcript"]["tagged"] == 1
    again = client.post(undo_url, headers={**HTMX, "X-CSRFToken": token})  # e.g. from a second tab
    said = text_of(again.get_data(as_text=True))
    assert again.status_code == 409 and "Already undone" in said and "This tagging was already undone" in said
    assert "Nothing was changed now" in said and snapshot(indexed) == original


def apply_defaults(client) -> str:
    """Apply the default tags through the page; the undo address it offers."""
    html = client.post("/tag/apply", data={**preview_form(client), "csrf_token": csrf_token(client)},
                       headers=HTMX).get_data(as_text=True)
    assert "Tagged 2 files" in html
    return re.search(r'hx-post="(/tag/undo/[^"]+)"', html).group(1)


def test_the_applied_message_reads_as_sentences(client):
    """"Committed 1a2b3c4d5e.Coverage now: ..." ran two sentences together: the template's lines were joined without
    the space between them. As a browser shows it (tags dropped, not turned into spaces):"""
    html = client.post("/tag/apply", data={**preview_form(client), "csrf_token": csrf_token(client)},
                       headers=HTMX).get_data(as_text=True)
    shown = " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())
    assert re.search(r"Committed [0-9a-f]{10}\. Coverage now: \d+ of \d+ files tagged", shown), shown[:400]
    undone = client.post(re.search(r'hx-post="(/tag/undo/[^"]+)"', html).group(1),
                         headers={**HTMX, "X-CSRFToken": csrf_token(client)}).get_data(as_text=True)
    shown = " ".join(unescape(re.sub(r"<[^>]+>", "", undone)).split())
    assert re.search(r"Committed [0-9a-f]{10}\. Coverage now:", shown), shown[:400]


def test_undo_survives_a_restart(app, client, indexed):
    original = snapshot(indexed)
    undo_url = apply_defaults(client)
    assert snapshot(indexed) != original
    restarted = make_client(create_app(memory=indexed, port=5000))  # a new process: new secret, empty memory
    page = restarted.get("/tag").get_data(as_text=True)
    recent = page.split('id="tag-recent"', 1)[1]
    assert f'hx-post="{undo_url}"' in recent and "Tag 2 files (trust=self" in recent
    stale = restarted.post(undo_url, headers={**HTMX, "X-CSRFToken": csrf_token(client)})  # the old page's token
    assert stale.status_code == 400 and snapshot(indexed) != original
    undone = restarted.post(undo_url, headers={**HTMX, "X-CSRFToken": csrf_token(restarted)})
    assert undone.status_code == 200 and "Undone: 2 files restored" in undone.get_data(as_text=True)
    assert undone.headers["HX-Trigger-After-Swap"] == "tags-changed"
    assert snapshot(indexed) == original  # exact, byte for byte
    assert f'hx-post="{undo_url}"' not in restarted.get("/tag/recent", headers=HTMX).get_data(as_text=True)
    again = restarted.post(undo_url, headers={**HTMX, "X-CSRFToken": csrf_token(restarted)})
    assert again.status_code == 409 and "already undone" in again.get_data(as_text=True)


def test_a_tagging_just_applied_is_offered_for_undo_once(client, indexed):
    """The result message has its Undo button; "Recent taggings" leaves that tagging out, on the full
    page and when the list refreshes itself (it sends the key the message shows)."""
    earlier = apply_defaults(client)
    client.post(earlier, headers={**HTMX, "X-CSRFToken": csrf_token(client)})
    form = {"path": "inbox/", "confidence": "low", "mode": "overwrite"}
    plan = client.get("/tag", query_string={"preview": "1", **form}).get_data(as_text=True)
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', plan).group(1)
    html = client.post("/tag/apply", data={**form, "fingerprint": fingerprint,
                                           "csrf_token": csrf_token(client)}).get_data(as_text=True)  # no JS
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html).group(1)
    key = undo_url.rsplit("/", 1)[1]
    assert html.count(f'action="{undo_url}"') == 1
    refreshed = client.get("/tag/recent", query_string={"shown": key}, headers=HTMX).get_data(as_text=True)
    assert undo_url not in refreshed
    assert undo_url in client.get("/tag/recent", headers=HTMX).get_data(as_text=True)  # shown nowhere else: listed


def test_undo_store_lists_from_small_summaries(indexed):
    from tachikoma.tagging import model
    from tachikoma.web.undo import UndoStore

    store = UndoStore(indexed, 3)
    applied = model.Applied(changes=[model.Change("a.jsonl", "transcript", {}, {"trust": "self"})], message="m",
                            restore={"tachikoma-tags.yaml": model.Restore(b"x" * 100_000, "ab" * 32)})
    key = store.remember(applied)
    summary = indexed / ".cache" / "undo" / f"{key}.summary"
    assert summary.stat().st_size < 200  # not the 100 kB of former bytes
    record = indexed / ".cache" / "undo" / f"{key}.json"
    whole = record.read_bytes()
    record.write_bytes(b"not read by the listing")
    assert [(r["key"], r["paths"], r["message"]) for r in store.recent()] == [(key, ["a.jsonl"], "m")]
    record.write_bytes(whole)
    summary.unlink()  # a record from before summaries: read whole
    assert [r["key"] for r in store.recent()] == [key]
    assert store.recent(exclude=key) == []
    assert store.claim(key) is not None and store.recent() == [] and store.undone(key) is None
    store.mark_undone(key, "abc123")
    assert store.undone(key)["commit"] == "abc123"


def test_undo_after_a_restart_leaves_a_file_changed_since_alone(app, client, indexed):
    undo_url = apply_defaults(client)
    tags = indexed / "tachikoma-tags.yaml"
    tags.write_text(tags.read_text().replace("trust: self", "trust: owner", 1))  # someone retags one file by hand
    edited = tags.read_text()
    restarted = make_client(create_app(memory=indexed, port=5000))
    html = restarted.post(undo_url, headers={**HTMX, "X-CSRFToken": csrf_token(restarted)}).get_data(as_text=True)
    assert "Partly undone: 1 of 2 files restored" in html  # not "Undone": a file was left (session 48)
    assert "1 file not restored" in text_of(html) and "its tags changed since the tagging" in html
    now = tags.read_text()
    assert now != edited and "trust: owner" in now  # the other file's tags went, the hand edit stayed
    assert f'action="{undo_url}"' in html  # the file left stays to undo


def test_undo_records_are_bounded_and_keys_never_name_a_path(client, indexed):
    from tachikoma.tagging import model
    from tachikoma.web.undo import UndoStore

    store = UndoStore(indexed, 3)
    applied = model.Applied(changes=[model.Change("a.jsonl", "transcript", {}, {"trust": "self"})], message="m",
                            restore={"tachikoma-tags.yaml": model.Restore(b"\x00old bytes", "ab" * 32)})
    keys = [store.remember(applied, created=1_000_000 + n) for n in range(5)]
    kept = {p.stem for p in (indexed / ".cache" / "undo").glob("*.json")}
    assert kept == set(keys[2:])  # the newest three
    assert [r["key"] for r in store.recent()] == keys[:1:-1]
    assert store.claim(keys[0]) is None
    taken = store.claim(keys[-1]).applied
    assert taken.changes == applied.changes and taken.restore == applied.restore  # bytes round-trip exactly
    assert store.claim(keys[-1]) is None  # taken once
    for key in ("../../tachikoma-tags", "", "a/b", "x" * 100):
        assert store.claim(key) is None
    response = client.post("/tag/undo/..%2F..%2Fetc", headers={**HTMX, "X-CSRFToken": csrf_token(client)})
    assert response.status_code == 404


def editor_fields(html: str) -> dict:
    """The one-file tag editor's fields on a file page: hidden ones and the chosen values."""
    form = html.split('class="file-tag-form"', 1)[1].split("</form>", 1)[0]
    fields = {name: unescape(value) for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)}
    for name in ("trust", "confidence", "evergreen"):
        select = form.split(f'<select name="{name}">', 1)[1].split("</select>", 1)[0]
        chosen = re.search(r'<option value="([^"]*)" selected>', select)
        fields[name] = chosen.group(1) if chosen else ""
    fields["source"] = unescape(re.search(r'name="source" value="([^"]*)"', form).group(1))
    return fields


def test_file_page_tag_editor_previews_applies_and_undoes(client, indexed):
    note = indexed / "inbox" / "quick-thought.md"
    original, before = note.read_bytes(), snapshot(indexed)
    fields = editor_fields(client.get("/file/inbox/quick-thought.md").get_data(as_text=True))
    assert fields == {"preview": "1", "kind": "markdown", "path": "inbox/quick-thought.md", "mode": "overwrite",
                      "trust": "self", "confidence": "", "source": "", "evergreen": ""}  # the file's own values
    unchanged = text_of(client.get("/tag", query_string=fields, headers=HTMX).get_data(as_text=True))
    assert "1 file matched, 1 already had these values" in unchanged
    fields.update(trust="owner", confidence="high")
    preview = client.get("/tag", query_string=fields, headers=HTMX).get_data(as_text=True)
    assert "1 file would change" in text_of(preview) and 'data-path="inbox/quick-thought.md"' in preview
    assert snapshot(indexed) == before  # the preview wrote nothing
    apply = {name: unescape(v) for name, v in re.findall(r'name="([^"]+)" value="([^"]*)"',
                                                         preview.split('<form class="apply"', 1)[1])}
    applied = client.post("/tag/apply", data=apply, headers=HTMX).get_data(as_text=True)
    assert "Tagged 1 file" in applied and "Committed" in applied
    text = note.read_bytes()
    assert text.startswith(b"---\ntrust: owner\nconfidence: high\n---\n") and text.endswith(original.split(b"---\n", 2)[2])
    head = client.get("/file/inbox/quick-thought.md?part=head", headers=HTMX).get_data(as_text=True)
    assert "<html" not in head and head.lstrip().startswith("<header") and "trust: owner" in head  # badges refresh
    undo_url = re.search(r'hx-post="(/tag/undo/[^"]+)"', applied).group(1)
    client.post(undo_url, headers={**HTMX, "X-CSRFToken": csrf_token(client)})
    assert note.read_bytes() == original and snapshot(indexed) == before


def test_tag_editor_shows_and_sets_evergreen(client, indexed):
    note = indexed / "inbox" / "standing.md"
    note.write_text("---\nTrust: OWNER\nevergreen: yes\n---\n# Standing fact\n\nThe lab is on floor 3.\n")
    fields = editor_fields(client.get("/file/inbox/standing.md").get_data(as_text=True))
    assert (fields["trust"], fields["evergreen"]) == ("owner", "true")  # read as the ranking reads them
    fields.update(evergreen="false")
    preview = client.get("/tag", query_string=fields, headers=HTMX).get_data(as_text=True)
    apply = {name: unescape(v) for name, v in re.findall(r'name="([^"]+)" value="([^"]*)"',
                                                         preview.split('<form class="apply"', 1)[1])}
    assert "Tagged 1 file" in client.post("/tag/apply", data=apply, headers=HTMX).get_data(as_text=True)
    assert "evergreen: false" in note.read_text() and note.read_text().endswith("The lab is on floor 3.\n")


def test_transcript_page_tag_editor_writes_the_tag_file(client, indexed):
    fields = editor_fields(client.get("/file/2026-03-22/session-abc.jsonl").get_data(as_text=True))
    assert (fields["kind"], fields["trust"], fields["confidence"]) == ("transcript", "", "")
    fields.update(trust="external", source="imported")
    preview = client.get("/tag", query_string=fields, headers=HTMX).get_data(as_text=True)
    apply = {name: unescape(v) for name, v in re.findall(r'name="([^"]+)" value="([^"]*)"',
                                                         preview.split('<form class="apply"', 1)[1])}
    assert "Tagged 1 file" in client.post("/tag/apply", data=apply, headers=HTMX).get_data(as_text=True)
    tags = (indexed / "tachikoma-tags.yaml").read_text()
    assert "2026-03-22/session-abc.jsonl:\n  trust: external\n  source: imported" in tags


def test_apply_markdown_and_undo_byte_for_byte(client, indexed):
    original = snapshot(indexed)
    token = csrf_token(client)
    args = {"preview": "1", "path": "2026-03-22/*.md", "trust": "owner", "confidence": "high", "mode": "fill"}
    form = preview_form(client, args)
    html = client.post("/tag/apply", data={**form, "csrf_token": token}).get_data(as_text=True)
    assert "<html" in html and "Tagged 1 file" in html  # a plain form post gets the whole page
    text = (indexed / "2026-03-22" / "meeting-notes.md").read_text()
    assert text.startswith("---\ntrust: owner\nconfidence: high\n---\n")
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html).group(1)
    client.post(undo_url, data={"csrf_token": token})
    assert snapshot(indexed) == original


def test_evergreen_from_the_tag_form_preview_apply_commit_undo(app, client, indexed):
    original = snapshot(indexed)
    commits = int(git_run(indexed, "rev-list", "--count", "HEAD"))
    token = csrf_token(client)
    preview = client.get("/tag", query_string={"preview": "1", "path": "martin.md", "evergreen": "true"}).get_data(
        as_text=True)
    assert re.search(r'<span class="k">evergreen</span> .*?<ins title="after">true</ins>', preview)
    assert snapshot(indexed) == original, "a preview writes nothing"
    form = preview_form(client, {"preview": "1", "path": "martin.md", "evergreen": "true"})
    html = client.post("/tag/apply", data={**form, "csrf_token": token}).get_data(as_text=True)
    assert "Tagged 1 file" in html
    text = (indexed / "martin.md").read_text()
    assert "\nevergreen: true\n" in text and text.encode().endswith(original["martin.md"].split(b"---\n", 2)[2])
    assert int(git_run(indexed, "rev-list", "--count", "HEAD")) == commits + 1
    assert "Tachikoma-Tagging: 1" in git_run(indexed, "log", "-1", "--format=%B")
    assert app.extensions["tachikoma"].index_job.wait(30)["state"] == "done"
    answer = client.get("/api/search?q=martin+meetings&limit=20&min_score=0").get_json()
    martin = next(r for r in answer["results"] if r["path"] == "martin.md")
    assert martin["factors"]["recency"] == 1.0 and martin["factors"]["recency_reason"] == "evergreen"
    assert 'data-evergreen="2"' in client.get("/coverage").get_data(as_text=True)  # martin.md and identity.md
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html).group(1)
    client.post(undo_url, data={"csrf_token": token})
    assert snapshot(indexed) == original


def test_recency_control_is_kept_in_the_url(client, indexed):
    html = client.get("/?q=martin+meetings&recency=seed").get_data(as_text=True)
    assert '<option value="seed" selected>seed</option>' in html
    assert "seed rule" in text_of(html)
    assert "recency=seed" in html  # the JSON link keeps it
    off = client.get("/api/search?q=martin+meetings&recency=off").get_json()
    assert off["recency"] == "off" and {r["factors"]["recency"] for r in off["results"]} == {1.0}
    bad = client.get("/api/search?q=martin&recency=fast")
    assert bad.status_code == 400 and "recency must be one of off, default, strong, seed" in bad.get_json()["error"]
    assert '<option value="default" selected>default</option>' in client.get("/?q=martin").get_data(as_text=True)


def test_apply_refuses_a_stale_preview(client, indexed):
    token = csrf_token(client)
    form = preview_form(client)
    (indexed / "tachikoma-tags.yaml").write_text(
        (indexed / "tachikoma-tags.yaml").read_text() + "2026-05-10/design-chat.jsonl:\n  trust: owner\n")
    before = snapshot(indexed)
    response = client.post("/tag/apply", data={**form, "csrf_token": token})
    assert response.status_code == 409
    assert "nothing was written" in response.get_data(as_text=True)
    assert snapshot(indexed) == before


def test_apply_refreshes_the_index(app, client, indexed):
    token = csrf_token(client)
    client.post("/tag/apply", data={**preview_form(client), "csrf_token": token})
    job = app.extensions["tachikoma"].index_job.wait(30)
    assert job["state"] == "done" and job["summary"]["retagged"] == 2
    found = client.get("/api/search?q=heat+sink&trust=self&kind=transcript&limit=20").get_json()
    assert "2026-05-10/design-chat.jsonl" in {r["path"] for r in found["results"]}
    coverage = client.get("/coverage").get_data(as_text=True)
    assert 'data-changed-since="0"' in coverage


# --------------------------------------------------------------------------- re-index


def test_reindex_refused_without_csrf(app, client):
    assert client.post("/reindex", headers=HTMX).status_code == 400
    assert client.post("/reindex", data={"csrf_token": "bad"}).status_code == 400
    assert app.extensions["tachikoma"].index_job.snapshot()["state"] == "idle"


def test_reindex_runs_in_background(app, client, indexed):
    token = csrf_token(client)
    (indexed / "inbox" / "new.md").write_text("# New\n\nA new note about fans.\n")
    response = client.post("/reindex", headers={**HTMX, "X-CSRFToken": token})
    assert response.status_code == 202
    assert 'class="reindex"' in response.get_data(as_text=True)
    job = app.extensions["tachikoma"].index_job.wait(30)
    assert job["state"] == "done" and job["summary"]["added"] == 1
    status = client.get("/reindex/status", headers=HTMX).get_data(as_text=True)
    assert "<html" not in status and "Done." in status and "1 added" in status
    assert "hx-trigger" not in status.split("<form", 1)[0]  # polling stops once done
    assert "HX-Trigger" not in client.get("/reindex/status", headers=HTMX).headers
    last_poll = client.get("/reindex/status?poll=1", headers=HTMX)
    assert last_poll.headers["HX-Trigger"] == "index-updated"  # the coverage and search pages refresh
    page = client.post("/reindex", data={"csrf_token": token})
    assert page.status_code == 303 and page.headers["Location"].endswith("/reindex")
    app.extensions["tachikoma"].index_job.wait(30)
    assert "Last updated" in client.get("/reindex").get_data(as_text=True)


def test_reindex_progress_is_polled(app, client, monkeypatch):
    from tachikoma.indexer import runner

    release, reported = threading.Event(), threading.Event()

    def slow_run(root, config=None, progress=None, **kwargs):
        progress(1, 4, "inbox/bad-tag.md")
        reported.set()
        release.wait(10)
        return runner.Summary(added=4, files=4, chunks=4, embedder="hash:512")

    monkeypatch.setattr(runner, "run", slow_run)
    token = csrf_token(client)
    first = client.post("/reindex", headers={**HTMX, "X-CSRFToken": token})
    assert first.status_code == 202
    assert reported.wait(10), "the background run reports progress"
    status = client.get("/reindex/status", headers=HTMX).get_data(as_text=True)
    assert 'hx-trigger="every 500ms"' in status
    assert '<progress max="4" value="1"' in status and "inbox/bad-tag.md" in status
    second = client.post("/reindex", headers={**HTMX, "X-CSRFToken": token})
    assert second.status_code == 409 and "already going" in second.get_data(as_text=True)
    release.set()
    assert app.extensions["tachikoma"].index_job.wait(10)["state"] == "done"


def test_reindex_failure_is_shown(app, client, monkeypatch):
    from tachikoma.indexer import runner

    def unreachable(*args, **kwargs):
        raise EmbedderError("cannot reach Ollama at http://127.0.0.1:9: start it with `ollama serve`")

    monkeypatch.setattr(runner, "run", unreachable)
    client.post("/reindex", headers={**HTMX, "X-CSRFToken": csrf_token(client)})
    app.extensions["tachikoma"].index_job.wait(10)
    text = text_of(client.get("/reindex/status", headers=HTMX).get_data(as_text=True))
    assert "The embedder is not available" in text and "ollama serve" in text


# --------------------------------------------------------------------------- other pages


@pytest.mark.parametrize("url,fragment_marker", [
    ("/coverage", 'class="cards"'), ("/tag", "Choose files and values"), ("/reindex", 'class="reindex"'),
    ("/file/martin.md", 'class="doc prose"'),
])
def test_every_page_has_full_and_fragment_forms(client, url, fragment_marker):
    full = client.get(url).get_data(as_text=True)
    fragment = client.get(url, headers=HTMX).get_data(as_text=True)
    assert "<html" in full and fragment_marker in full
    assert "<html" not in fragment and fragment_marker in fragment


def test_unknown_page_is_404(client):
    response = client.get("/nope")
    assert response.status_code == 404 and "Not found" in response.get_data(as_text=True)
    assert client.post("/coverage", data={}).status_code in (400, 405)


def test_coverage_names_a_damaged_index(app, client):
    root = app.config["TACHIKOMA_ROOT"]
    index = root / ".cache" / "index.db"
    index.parent.mkdir(exist_ok=True)
    index.write_bytes(b"this is not an SQLite database" * 100)
    page = client.get("/coverage").get_data(as_text=True)
    assert "damaged" in page and "delete" in page


PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c63f8cfc0f01f0005000101ff89993d1d0000000049454e44ae426082")


def test_a_notes_images_inside_the_memory_are_served_and_nothing_else(client, indexed, tmp_path):
    """Issue 18: `![](diagram.png)` answered 404. Images inside the memory are served by the notes'
    path rules, by a fixed list of types; an SVG only as an attachment under a script-free policy."""
    (indexed / "people").mkdir()
    (indexed / "people" / "diagram.png").write_bytes(PIXEL)
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><rect width="9" height="9"/></svg>'
    (indexed / "people" / "flow.svg").write_text(svg)
    (indexed / "people" / "page.html").write_text("<script>alert(1)</script>")
    (indexed / ".secret").mkdir()
    (indexed / ".secret" / "key.png").write_bytes(PIXEL)
    (tmp_path / "outside.png").write_bytes(PIXEL)
    os.symlink(tmp_path / "outside.png", indexed / "people" / "link.png")
    (indexed / "people" / "diag.md").write_text("# D\n\n![pixel](diagram.png)\n\n![flow](./flow.svg)\n\n"
                                                "![out](../../outside.png)\n\n![page](page.html)\n\n"
                                                "[the picture](diagram.png)\n")
    page = client.get("/file/people/diag.md").get_data(as_text=True)
    assert '<img alt="pixel" src="/image/people/diagram.png">' in page
    assert '<img alt="flow" src="/image/people/flow.svg">' in page
    assert '<img alt="out">' in page and '<img alt="page">' in page  # no request that can only fail
    assert '<a href="/image/people/diagram.png"' in page

    png = client.get("/image/people/diagram.png")
    assert png.status_code == 200 and png.mimetype == "image/png" and png.data == PIXEL
    assert png.headers["X-Content-Type-Options"] == "nosniff" and "attachment" not in png.headers.get(
        "Content-Disposition", "")
    drawing = client.get("/image/people/flow.svg")
    assert drawing.status_code == 200 and drawing.mimetype == "image/svg+xml"
    assert drawing.headers["Content-Disposition"].startswith("attachment")
    policy = drawing.headers["Content-Security-Policy"]
    assert "sandbox" in policy and "default-src 'none'" in policy and "script" not in policy
    for refused in ("people/page.html", "people/diag.md", ".secret/key.png", "people/link.png", "../outside.png",
                    "people/../../outside.png", "people/missing.png", "%2e%2e/outside.png"):
        assert client.get(f"/image/{refused}").status_code == 404, refused


def test_the_coverage_after_a_tagging_counts_with_the_dashboards_settings_file(indexed, tmp_path):
    # A .jsonl whose first transcript line comes after 300 bytes of other data: under the memory's own
    # settings it is a transcript (untagged); under a settings file that reads at most 200 bytes it is data,
    # not memory. The coverage line after a tagging counted with the memory's own settings, the coverage
    # page with the dashboard's `--config`.
    late = json.dumps({"type": "user", "timestamp": "2026-11-01T10:00:00Z",
                       "message": {"role": "user", "content": "hello"}})
    (indexed / "late.jsonl").write_text(json.dumps({"blob": "x" * 300}) + "\n" + late + "\n")
    settings = tmp_path / "small.toml"
    settings.write_text("[index]\nmax_file_bytes = 200\n")
    expected = stats.coverage(indexed, settings=load_config(indexed, settings))
    assert expected["files"] == stats.coverage(indexed)["files"] - 1  # the settings file does count otherwise
    app = create_app(memory=indexed, config=settings, port=5000)
    try:
        client = make_client(app)
        html = client.post("/tag/apply", data={**preview_form(client), "csrf_token": csrf_token(client)},
                           headers=HTMX).get_data(as_text=True)
    finally:
        app.extensions["tachikoma"].index_job.wait(30)
    assert "Tagged 2 files" in html
    after = stats.coverage(indexed, settings=load_config(indexed, settings))
    assert f"of {after['files']} files tagged" in text_of(html), text_of(html)


def test_apply_commits_the_tracked_notes_and_says_the_untracked_one_is_not_committed(client, indexed):
    """A note git does not track is tagged, never committed whole; the page said only "Committed …" for a run
    that committed some files, leaving out those it did not."""
    draft = indexed / "2026-03-22" / "draft.md"
    draft.write_text("# Draft\n\nNot added to git yet.\n")
    original = snapshot(indexed)
    token = csrf_token(client)
    form = preview_form(client, {"preview": "1", "path": "2026-03-22/*.md", "trust": "self", "mode": "fill"})
    html = client.post("/tag/apply", data={**form, "csrf_token": token}).get_data(as_text=True)
    head = git_run(indexed, "rev-parse", "HEAD").strip()
    assert "Tagged 2 files" in html
    assert (f"Written; committed 1 of the 2 files tagged in {head[:10]} (2026-03-22/meeting-notes.md); not "
            "committed: 2026-03-22/draft.md is not tracked by git (tachikoma commits no file you "
            "have not added: `git add` it to commit it with its tags).") in unescape(html), text_of(html)
    assert git_run(indexed, "show", "--name-only", "--format=", "HEAD").split() == ["2026-03-22/meeting-notes.md"]
    assert draft.read_text().startswith("---\ntrust: self\n---\n")
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html).group(1)
    client.post(undo_url, data={"csrf_token": token})
    assert snapshot(indexed) == original  # undo gives the draft its bytes back too
    assert "?? 2026-03-22/draft.md" in git_run(indexed, "status", "--porcelain")
