"""The dashboard in a real browser: headless Debian Chromium driven by Playwright.

Each test serves a fresh copy of the example memory (a git repository, so
tagging commits) with werkzeug on 127.0.0.1 and a free port. Every page is
also checked for console errors, which is where Content-Security-Policy
violations appear.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request

import pytest

from tachikoma_dashboard.app import create_app
from tachikoma import stats
from web_helpers import CHROMIUM, LiveServer, build_index, copy_memory, launch_chromium, snapshot

# CI sets TACHIKOMA_REQUIRE_BROWSER=1: there a missing Chromium is a failure, never a quiet skip.
if not CHROMIUM.exists() and os.environ.get("TACHIKOMA_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"TACHIKOMA_REQUIRE_BROWSER=1 but there is no Chromium at {CHROMIUM}")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason=f"needs Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)")


# htmx logs these when a newer request replaces an older one (hx-sync="replace"): typing then Enter.
EXPECTED = {"htmx:sendAbort", "htmx:afterRequest"}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        yield browser
        browser.close()


@pytest.fixture
def memory(tmp_path):
    root = copy_memory(tmp_path / "memory")
    build_index(root)
    return root


@pytest.fixture
def server(memory):
    app = create_app(memory=memory)
    with LiveServer(app) as live:
        yield live
        app.extensions["tachikoma"].index_job.wait(60)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.problems = []
    page.dialogs = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" and m.text not in EXPECTED else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield page
    context.close()


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server.url + path) as response:
        return json.loads(response.read())


def test_search_as_you_type_with_explanations(server, page):
    page.goto(server.url + "/")
    assert page.evaluate("document.activeElement.id") == "q"  # ready to type
    page.locator("#q").press_sequentially("martin meetings", delay=40)
    page.wait_for_selector("li.result")
    page.wait_for_url(re.compile(r"\?q=martin(\+|%20)meetings"))  # the URL follows the query
    expected = api(server, "/api/search?q=martin+meetings")
    paths = page.locator("li.result a.path").all_inner_texts()
    assert paths == [r["path"] for r in expected["results"]]
    scores = [float(s.split()[-1]) for s in page.locator("li.result .score").all_inner_texts()]
    assert scores == sorted(scores, reverse=True)

    first = page.locator("li.result").first
    assert not first.locator("table.factors").is_visible()
    first.locator("details.why summary").click()
    assert first.locator("table.factors").is_visible()
    r = expected["results"][0]
    f = r["factors"]
    terms = [f["similarity"], f["trust_weight"], f["confidence_weight"], f["recency"]]
    terms += [f["duplicate_penalty"]] if f["duplicate_penalty"] < 1 else []
    arithmetic = " × ".join(f"{t:.2f}" for t in terms) + f" = {r['score']:.2f}"
    assert first.locator(".arithmetic").inner_text() == arithmetic
    rows = first.locator("table.factors tbody tr:not(.sub) th").all_inner_texts()
    assert rows == ["similarity", "trust", "confidence", "recency", "duplicate penalty"]
    assert first.locator("table.factors tr.factor-trust td.from").inner_text() == f["trust"]
    assert first.locator("mark").count() >= 1

    # filters narrow the results in place
    page.select_option("select[name=kind]", "transcript")
    page.wait_for_url(re.compile(r"kind=transcript"))
    page.wait_for_function("[...document.querySelectorAll('li.result .kind')].every(e => e.textContent === 'transcript')")
    # opening a result shows the file with the matching chunk highlighted and scrolled to
    page.locator("li.result a.path").first.click()
    page.wait_for_selector("#hit")
    assert page.locator("#hit").is_visible()
    assert page.locator(".hit").count() >= 1
    assert page.evaluate("document.getElementById('hit').getBoundingClientRect().top < window.innerHeight")
    assert page.problems == []


def test_search_works_without_javascript(server, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url + "/")
    page.fill("#q", "heat sink")
    page.press("#q", "Enter")
    page.wait_for_url(re.compile(r"\?q=heat\+sink"))
    assert page.locator("li.result").count() >= 1
    page.locator("li.result details.why summary").first.click()
    assert "×" in page.locator("li.result .arithmetic").first.inner_text()
    context.close()


def coverage_numbers(page) -> dict:
    cards = {s: page.locator(f".card[data-status={s}] .card-num").inner_text() for s in stats.STATUSES}
    pcts = {s: page.locator(f".card[data-status={s}] .card-pct").inner_text() for s in stats.STATUSES}
    kinds = {}
    for kind in ("markdown", "transcript"):
        row = page.locator(f"table[data-buckets=kind] tr[data-name={kind}]")
        kinds[kind] = {s: int(row.locator(f"td[data-status={s}]").inner_text().split()[0]) for s in stats.STATUSES}
    return {"cards": {s: int(v) for s, v in cards.items()}, "percent": pcts, "by_kind": kinds,
            "total": int(page.locator("[data-total]").inner_text())}


def expect_coverage(page, report: dict) -> None:
    seen = coverage_numbers(page)
    assert seen["total"] == report["files"]
    assert seen["cards"] == {s: report[s] for s in stats.STATUSES}
    for s in stats.STATUSES:
        assert float(seen["percent"][s].rstrip("%")) == report["percent"][s]
    for kind, bucket in report["by_kind"].items():
        assert seen["by_kind"][kind] == {s: bucket[s] for s in stats.STATUSES}


def test_coverage_matches_stats(server, page, memory):
    page.goto(server.url + "/coverage")
    report = stats.report(memory)
    assert api(server, "/api/stats") == json.loads(json.dumps(report))
    expect_coverage(page, report)
    for folder, bucket in report["by_folder"].items():
        row = page.locator(f"table[data-buckets=folder] tr[data-name='{folder}']")
        assert int(row.locator("td.num").first.inner_text()) == bucket["files"]
    for value, count in report["trust"].items():
        assert page.locator(f"table[data-distribution=trust] td[data-value='{value}']").inner_text() == str(count)
    for value, count in report["confidence"].items():
        assert page.locator(f"table[data-distribution=confidence] td[data-value='{value}']").inner_text() == str(count)
    assert page.locator("table.invalid").inner_text().count("maybe") == 1
    assert page.locator("[data-changed-since]").get_attribute("data-changed-since") == "0"

    # a new note makes the index stale; Re-index brings it up to date and the page refreshes itself
    (memory / "inbox" / "new.md").write_text("---\ntrust: self\n---\n# New\n\nA new note.\n")
    page.reload()
    assert page.locator("[data-changed-since]").get_attribute("data-changed-since") == "1"
    assert page.locator("[data-total]").inner_text() == str(report["files"] + 1)
    page.click("button:has-text('Re-index')")
    page.wait_for_selector("[data-changed-since='0']")
    assert page.locator("[data-summary]").is_visible()
    assert "1 added" in page.locator("[data-summary]").inner_text()
    assert page.problems == []


def test_bulk_tag_preview_apply_undo(server, page, memory, browser):
    original = snapshot(memory)
    page.goto(server.url + "/tag")
    page.select_option("select[name=kind]", "transcript")
    page.check("input[name=untagged]")
    page.select_option("select[name=trust]", "self")
    page.select_option("select[name=confidence]", "medium")
    page.fill("input[name=source]", "tachikoma")
    page.click("button:has-text('Preview')")
    page.wait_for_selector("table[data-preview]")
    page.wait_for_url(re.compile(r"/tag\?preview=1"))
    rows = page.locator("table[data-preview] tbody tr")
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.path)")) == [
        "2026-03-22/session-abc.jsonl", "2026-05-10/design-chat.jsonl"]
    assert "trust none → self" in " ".join(rows.first.inner_text().split())
    assert snapshot(memory) == original  # a preview writes nothing

    page.click("button:has-text('Apply to 2 files')")
    page.wait_for_selector("[data-result=applied]")
    assert "Tagged 2 files" in page.locator("[data-result=applied] h2").inner_text()
    tag_file = (memory / "tachikoma-tags.yaml").read_text()
    for path in ("2026-03-22/session-abc.jsonl", "2026-05-10/design-chat.jsonl"):
        assert path in tag_file
    after_apply = stats.report(memory)
    assert after_apply["by_kind"]["transcript"]["tagged"] == 3

    coverage = page.context.new_page()  # same session, so the first tab keeps its Undo button
    coverage.goto(server.url + "/coverage")
    expect_coverage(coverage, after_apply)

    page.click("button:has-text('Undo')")
    page.wait_for_selector("[data-result=undone]")
    assert snapshot(memory) == original  # exactly the previous bytes
    coverage.reload()
    expect_coverage(coverage, stats.report(memory))
    assert coverage_numbers(coverage)["by_kind"]["transcript"]["tagged"] == 1
    assert page.problems == []


def test_stale_preview_and_missing_token_are_refused_in_place(server, page, memory):
    page.goto(server.url + "/tag")
    page.click("text=Use the defaults")
    page.wait_for_selector("table[data-preview]")
    tags = memory / "tachikoma-tags.yaml"
    tags.write_text(tags.read_text() + "2026-05-10/design-chat.jsonl:\n  trust: owner\n")  # someone else tags
    before = snapshot(memory)
    page.click("button:has-text('Apply to 2 files')")
    page.wait_for_selector("text=nothing was written")  # a 409, swapped in place
    assert snapshot(memory) == before
    # the new preview: design-chat has a tag now, so only the other untagged transcript is left
    paths = page.locator("table[data-preview] tbody tr").evaluate_all("rows => rows.map(r => r.dataset.path)")
    assert paths == ["2026-03-22/session-abc.jsonl"]

    # an Apply whose CSRF header and field are both wrong is refused, and says so where the result would be
    page.evaluate("""() => {
        document.body.setAttribute('hx-headers', JSON.stringify({'X-CSRFToken': 'forged'}));
        document.querySelector('form.apply input[name=csrf_token]').value = 'forged';
    }""")
    page.click("button:has-text('Apply to 1 file')")
    page.wait_for_selector("#tag-result >> text=Request refused")
    assert snapshot(memory) == before
    page.problems = [p for p in page.problems if "400" not in p and "409" not in p and "htmx:responseError" not in p]
    assert page.problems == []


HOSTILE = """---
trust: external
source: "<img src=x onerror=alert('source')>"
---
# Hostile note <script>alert('title')</script>

<script>alert('body')</script>
<img src="x" onerror="alert('img')">
<svg onload="alert('svg')"><circle r="4"/></svg>
<a id="js-link" href="javascript:alert('a')">click me</a> and [md link](javascript:alert('md'))
<div onmouseover="alert('div')">hover me</div>
<iframe src="javascript:alert('iframe')"></iframe>
<form action="javascript:alert('form')"><button>go</button></form>
"""


def test_hostile_memory_renders_inert(server, page, memory):
    (memory / "inbox" / "hostile.md").write_text(HOSTILE)
    build_index(memory)
    page.goto(server.url + "/file/inbox/hostile.md")
    page.wait_for_selector("article.doc")
    page.hover("text=hover me")
    page.click("text=click me")
    page.wait_for_timeout(300)
    assert page.dialogs == []
    found = page.evaluate("""() => {
        const bad = [];
        for (const el of document.querySelectorAll('*')) {
            for (const a of el.attributes) {
                if (a.name.startsWith('on')) bad.push(el.tagName + ' ' + a.name);
                if (/^\\s*javascript:/i.test(a.value)) bad.push(el.tagName + ' ' + a.name + '=' + a.value);
            }
        }
        const scripts = [...document.scripts].map(s => s.src);
        return {bad, scripts, iframes: document.querySelectorAll('iframe').length};
    }""")
    assert found["bad"] == []
    assert found["scripts"] == [server.url + "/vendor/htmx.min.js", server.url + "/static/dashboard.js"]
    assert found["iframes"] == 0
    assert "onerror=alert('source')" in page.locator(".badge.source").inner_text()  # shown as text

    # the same payloads as search results
    page.goto(server.url + "/?q=hostile+note+alert")
    page.wait_for_selector("li.result")
    page.locator("li.result details.why summary").first.click()
    page.wait_for_timeout(300)
    assert page.dialogs == []
    assert page.evaluate("[...document.querySelectorAll('#results *')]"
                         ".some(e => e.tagName === 'SCRIPT' || e.tagName === 'IMG')") is False


def test_reindex_progress_reaches_summary(tmp_path, page):
    root = copy_memory(tmp_path / "memory")
    (root / "tachikoma.toml").write_text('[embedder]\nname = "minilm"\n')  # the real offline model
    app = create_app(memory=root)
    polls = []
    page.on("request", lambda r: polls.append(r.url) if "/reindex/status" in r.url else None)
    with LiveServer(app) as live:
        page.goto(live.url + "/")
        assert "No index yet" in page.locator("#results").inner_text()
        page.click("button:has-text('Re-index')")
        # A fast machine may finish the 11 files before the running state is drawn: accept either.
        page.wait_for_selector(".reindex[data-state=running] progress, [data-summary]")
        page.wait_for_selector("[data-summary]", timeout=180_000)
        summary = page.locator("[data-summary]").inner_text()
        assert "Done." in summary and "11 added" in summary
        assert polls, "the status partial was polled"
        assert page.locator(".reindex[hx-trigger]").count() == 0  # polling stopped
        page.fill("#q", "when does Martin like meetings")
        page.press("#q", "Enter")
        page.wait_for_selector("li.result")
        assert page.locator("li.result a.path").first.inner_text() == "martin.md"
        assert page.problems == []
        app.extensions["tachikoma"].index_job.wait(60)


def test_reindex_button_keeps_the_focus_while_it_runs(server, page):
    page.goto(server.url + "/reindex")
    page.locator("#reindex-button").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-summary]", timeout=120_000)
    # the button kept the keyboard focus through every swap (disabled while running, it lost it to <body>)
    assert page.evaluate("document.activeElement.id") == "reindex-button"
    assert page.problems == []


PHONE = {"width": 390, "height": 844}
WIDTHS = """() => ({page: document.documentElement.scrollWidth,
                  scrollers: [...document.querySelectorAll('.table-scroll')].map(e => e.scrollWidth - e.clientWidth)})"""


def test_phone_pages_fit_the_screen(server, browser, memory):
    """At 390 px no page is wider than the screen and no table hides columns in a sideways scroll."""
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    for path in ("/coverage", "/coverage/files?status=untagged", "/?q=motor+driver+samples",
                 "/tag?preview=1&kind=transcript&untagged=1&trust=self", "/file/martin.md", "/reindex"):
        page.goto(server.url + path)
        widths = page.evaluate(WIDTHS)
        assert widths["page"] <= PHONE["width"], (path, widths)
        assert all(extra <= 1 for extra in widths["scrollers"]), (path, widths)
    page.goto(server.url + "/coverage")
    row = page.locator("table[data-buckets=folder] tr[data-name='inbox']")
    assert row.locator("td[data-status=invalid]").is_visible()  # all four counts are on screen, labelled
    box, screen = row.locator("td[data-status=invalid]").bounding_box(), PHONE["width"]
    assert box["x"] + box["width"] <= screen
    context.close()


def test_a_long_source_fits_a_phone(server, browser, memory):
    """A note copied from a web page says where from, a long address or sentence in `source`: its badge is cut with
    an ellipsis, inside the screen. Before, the badge (one line that does not wrap) made a search result and a
    coverage list 460-480 px wide at 390."""
    note = memory / "inbox" / "pricing.md"
    note.write_text("---\ntrust: external\nconfidence: medium\nsource: cloud.google.com pricing page, copied "
                    "2026-11-17 by hand from the on-demand section\n---\n# Motor driver pricing\n\n"
                    "The motor driver samples cost 4.10 EUR each in tens.\n")
    build_index(memory)
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    for path in ("/?q=motor+driver+pricing", "/coverage/files?status=tagged", "/file/inbox/pricing.md"):
        page.goto(server.url + path)
        assert page.locator(".badge.source").first.is_visible(), path
        widths = page.evaluate(WIDTHS)
        assert widths["page"] <= PHONE["width"], (path, widths)
    context.close()


def test_hit_is_not_under_the_sticky_header_on_a_phone(server, browser, memory):
    long_note = "# Long note\n\n" + "\n\n".join(f"Paragraph {n} of filler text." for n in range(1, 80)) + "\n"
    (memory / "inbox" / "long.md").write_text(long_note)
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    page.goto(server.url + "/file/inbox/long.md?lines=81-81#hit")  # paragraph 40: the page scrolls to it
    page.wait_for_timeout(200)
    header = page.locator("header.top").bounding_box()
    hit = page.locator("#hit").bounding_box()
    assert page.evaluate("window.scrollY") > 0
    # below the header with room to spare (the old 5rem margin left 0.1 px: any larger font hid it)
    assert hit["y"] >= header["y"] + header["height"] + 8, (hit, header)
    context.close()


def test_keyboard_slash_search_and_few_tabs_to_why(server, page):
    page.goto(server.url + "/coverage")
    page.keyboard.press("/")  # from another page: opens search, ready to type
    page.wait_for_url(server.url + "/")
    page.wait_for_function("() => document.activeElement.id === 'q'")
    page.keyboard.type("martin meetings")
    page.wait_for_selector("li.result")
    page.locator(".results-meta").click()  # focus leaves the box
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    assert page.evaluate("document.getElementById('q').value") == "martin meetings"  # not typed into the box

    # from the box, Tab goes through the filters, then the first result, then its "Why?"
    filters = page.locator("fieldset.filters").locator("select, input:not([type=hidden]), a, button").count()
    tabs = 0
    while page.evaluate("!(document.activeElement.tagName === 'SUMMARY')") and tabs < 20:
        page.keyboard.press("Tab")
        tabs += 1
    assert page.evaluate("document.activeElement.closest('li.result') === document.querySelector('li.result')")
    assert tabs == filters + 2, tabs  # was 7 with three filters: the Search button and JSON link came first

    # typing "/" into a field types it
    page.goto(server.url + "/tag")
    page.fill("input[name=path]", "")
    page.locator("input[name=path]").press_sequentially("2026-03-22/")
    assert page.input_value("input[name=path]") == "2026-03-22/"
    assert page.url == server.url + "/tag"

    # "/" outside the fields of a half-filled form does not leave the page (it would lose the input)
    page.select_option("select[name=trust]", "owner")
    page.locator("h1").click()
    page.keyboard.press("/")
    page.wait_for_function("() => document.activeElement.matches('.nav a')")  # points at search instead
    assert page.url == server.url + "/tag"
    assert page.input_value("input[name=path]") == "2026-03-22/" and page.input_value("select[name=trust]") == "owner"
    page.keyboard.press("Enter")  # the person's choice
    page.wait_for_url(server.url + "/")
    assert page.problems == []


def test_focus_moves_to_the_result_after_apply_and_undo(server, page, memory):
    page.goto(server.url + "/tag")
    page.click("text=Use the defaults")
    page.wait_for_selector("table[data-preview]")
    page.locator("form.apply button").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-result=applied]")
    page.wait_for_function("() => document.activeElement.dataset.result === 'applied'")
    for _ in range(2):  # from the message: the "Coverage now" link, then Undo
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Undo"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-result=undone]")
    page.wait_for_function("() => document.activeElement.dataset.result === 'undone'")
    assert page.problems == []


def test_apply_offers_one_undo_and_a_second_undo_says_already_undone(server, page, memory):
    page.goto(server.url + "/tag")
    page.click("text=Use the defaults")
    page.wait_for_selector("table[data-preview]")
    page.evaluate("""() => { window.listRefreshed = 0;
        document.body.addEventListener('htmx:afterSettle', e => {
          if (e.detail.target.id === 'tag-recent') window.listRefreshed += 1; }); }""")
    page.click("form.apply button")
    page.wait_for_selector("[data-result=applied]")
    page.wait_for_function("() => window.listRefreshed >= 1")  # "Recent taggings" has refreshed itself
    undo_url = page.get_attribute("[data-result=applied] form", "action")
    assert page.locator(f'form[action="{undo_url}"]').count() == 1  # was 2: the message and the list
    page.click("[data-result=applied] button:has-text('Undo')")
    page.wait_for_selector("[data-result=undone]")
    page.wait_for_function("() => window.listRefreshed >= 2")
    assert page.locator(f'form[action="{undo_url}"]').count() == 0
    again = page.evaluate("""async url => { const token = document.querySelector('meta[name=csrf-token]').content;
        const r = await fetch(url, {method: 'POST', headers: {'X-CSRFToken': token, 'HX-Request': 'true'}});
        return [r.status, await r.text()]; }""", undo_url)  # an old tab's Undo button
    assert again[0] == 409 and "already undone" in again[1]
    assert page.problems == ["Failed to load resource: the server responded with a status of 409 (CONFLICT)"]


def test_file_page_tag_editor(server, page, memory):
    note = memory / "inbox" / "quick-thought.md"
    original = note.read_bytes()
    page.goto(server.url + "/file/inbox/quick-thought.md")
    assert not page.locator("#tags select[name=trust]").is_visible()  # folded away: the note comes first
    page.click("#tags summary:has-text('Edit tags')")
    assert page.input_value("#tags select[name=trust]") == "self"  # the file's value, chosen
    page.select_option("#tags select[name=confidence]", "low")
    page.click("#tags button:has-text('Preview')")
    page.wait_for_selector("#tags table[data-preview]")
    assert page.url == server.url + "/file/inbox/quick-thought.md"  # the preview came in place
    assert "confidence none → low" in " ".join(page.locator("#tags table[data-preview]").inner_text().split())
    assert note.read_bytes() == original
    page.click("#tags button:has-text('Apply to 1 file')")
    page.wait_for_selector("#tags [data-result=applied]")
    page.wait_for_function("() => document.activeElement.dataset.result === 'applied'")
    assert b"confidence: low" in note.read_bytes()
    page.wait_for_selector(".file-head .badge:has-text('confidence: low')")  # the page's badges follow
    page.click("#tags button:has-text('Undo')")
    page.wait_for_selector("#tags [data-result=undone]")
    assert note.read_bytes() == original
    page.wait_for_selector(".file-head .badge:has-text('confidence: low')", state="detached")
    assert page.problems == []


def test_the_file_page_of_a_stale_memory_lists_its_changed_files(tmp_path, page):
    from test_staleness import HOSTILE_REPO, make_shop, memory_with

    repo = make_shop(tmp_path, HOSTILE_REPO)  # a repository folder named with markup: shown as text
    app = create_app(memory=memory_with(tmp_path, repo))
    with LiveServer(app) as live:
        page.goto(live.url + "/file/2026-10-15/session.jsonl")
        listed = page.locator("section.stale-list")
        assert "billing/retry.py changed in 3 commits since, last 2026-11-30" in listed.inner_text()
        assert f"in {repo} · memory of 2026-10-15" in " ".join(listed.inner_text().split())
        assert listed.locator("b, i, img, script").count() == 0
        assert page.locator(".file-head .badge.stale").inner_text() == "stale"
        listed.locator("a").first.click()  # named at these lines: the page highlights them
        page.wait_for_selector("li.turn.hit")
        assert "lines=" in page.url
        assert page.problems == [] and page.dialogs == []
        app.extensions["tachikoma"].index_job.wait(60)


def test_the_folder_field_keeps_the_search_to_a_folder(server, page):
    """Typing a folder in *Folder* narrows the results in place to its files, and the URL keeps it."""
    page.goto(server.url + "/?q=DRV8353+heat+sink+Jonas+Martin")
    page.wait_for_selector("li.result")
    assert len(set(page.locator("li.result a.path").all_inner_texts())) > 2
    page.locator("input[name=path]").fill("2026-03-22/")
    page.locator("input[name=path]").press("Tab")  # a change searches again, as the other filters do
    page.wait_for_url(re.compile(r"path=2026-03-22"))
    page.wait_for_function("[...document.querySelectorAll('li.result a.path')].every(a => "
                           "a.textContent.trim().startsWith('2026-03-22/'))")
    expected = api(server, "/api/search?q=DRV8353+heat+sink+Jonas+Martin&path=2026-03-22/")
    assert page.locator("li.result a.path").all_inner_texts() == [r["path"] for r in expected["results"]]
    assert page.problems == []
