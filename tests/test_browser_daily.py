"""What a new user tripped over in the dashboard in a first hour (issue 18), in headless Chromium:
numbers that agree, the Index panel, the freshness line, tagging defaults, note images.

The fixtures (a served copy of the example memory, a page that collects console errors) are
test_browser's.
"""

from __future__ import annotations

import os
import re

import pytest

from tachikoma_dashboard.app import create_app
from tachikoma import stats
from tachikoma.indexer import runner
from test_browser import browser, memory, page, server  # noqa: F401 (fixtures)
from web_helpers import CHROMIUM, LiveServer, git_run

if not CHROMIUM.exists() and os.environ.get("TACHIKOMA_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"TACHIKOMA_REQUIRE_BROWSER=1 but there is no Chromium at {CHROMIUM}")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason=f"needs Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)")

PHONE = {"width": 390, "height": 844}


def _data_file(memory):
    """A .jsonl that is not a transcript (an agent's metrics), committed like the rest."""
    (memory / "sessions").mkdir()
    (memory / "sessions" / "metrics.jsonl").write_text('{"metric": "latency", "value": 3}\n'
                                                      '{"metric": "tokens", "value": 812}\n')
    git_run(memory, "add", "-A")
    git_run(memory, "commit", "-q", "-m", "metrics")


def test_coverage_index_panel_agrees_looks_enabled_and_says_done_once(server, page, memory, browser):
    """The panel took the search page's small grey `.freshness` style (it looked disabled), held
    one file more than the page's own total (a data file), and its "Done." sentence was repeated by
    a grid of the same numbers, whose last label wrapped onto a row of its own."""
    _data_file(memory)
    runner.run(memory)
    page.goto(server.url + "/coverage")
    total = stats.coverage(memory)["files"]
    assert page.locator("[data-total]").inner_text() == str(total)
    holds = page.locator(".panel [data-holds]").inner_text()
    assert holds.startswith(f"{total} files, ") and "(and 1 .jsonl data file, not searched)" in holds

    def colour(selector: str) -> tuple[str, str]:
        return page.locator(selector).first.evaluate(
            "e => [getComputedStyle(e).color, getComputedStyle(e).fontSize]")

    body = colour("h1")[0]
    panel = page.locator("section.panel", has=page.locator("[data-holds]"))
    assert panel.locator("h2").evaluate("e => getComputedStyle(e).color") == body
    assert panel.locator("dd").first.evaluate("e => getComputedStyle(e).color") == body
    assert panel.locator("dd").first.evaluate("e => getComputedStyle(e).fontSize") != "13.12px"  # 0.82rem

    page.click("#reindex-button")
    summary = page.locator("[data-summary]")
    summary.wait_for()
    text = summary.inner_text()
    assert text.startswith("Done.") and f"index holds {total} files and 1 .jsonl data file" in text
    assert summary.locator("dl, dt, dd").count() == 0  # one sentence, not the sentence and a grid of it
    assert text.count("unchanged") == 1
    page.screenshot(path=str(memory.parent / "coverage-desktop.png"), full_page=True)

    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(server.url + "/coverage")
    phone_panel = phone.locator("section.panel", has=phone.locator("[data-holds]"))
    box = phone_panel.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]  # no sideways scrolling
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.context.close()
    assert page.problems == []


def test_freshness_line_spaces_its_parts(memory, page):
    """The search page said "up to date· watching for changes": the template's line breaks between
    its parts were eaten by trim_blocks."""
    app = create_app(memory=memory, watch=True)
    dashboard = app.extensions["tachikoma"]
    try:
        assert dashboard.watcher.wait_ready(30)
        dashboard.index_job.wait(60)
        with LiveServer(app) as live:
            page.goto(live.url + "/?q=martin+meetings")
            line = page.locator("p.freshness").inner_text()
    finally:
        dashboard.watcher.stop()
        dashboard.index_job.wait(30)
    assert re.fullmatch(r"Index updated .+ · up to date · watching for changes", line), line
    assert page.problems == []


def test_use_the_defaults_is_what_the_cli_tag_does(server, page, memory):
    """The link previewed `source → tachikoma` for a Claude Code session (the CLI gives claude-code)
    and listed a data file as a transcript to tag (the CLI skips it). One definition, both faces."""
    import json
    import subprocess
    import sys

    _data_file(memory)
    cli = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(memory), "tag", "--dry-run", "--json"],
                         capture_output=True, text=True, check=True)
    expected = json.loads(cli.stdout)
    assert "sessions/metrics.jsonl" in [s["path"] for s in expected["skipped"]]
    page.goto(server.url + "/tag")
    page.click("[data-defaults]")
    page.wait_for_selector("table[data-preview]")
    rows = page.locator("table[data-preview] tbody tr")
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.path)") == [c["path"] for c in expected["changes"]]
    for change in expected["changes"]:
        row = page.locator(f"table[data-preview] tr[data-path='{change['path']}']")
        assert f"source none → {change['after']['source']}" in " ".join(row.inner_text().split())
    assert "source none → claude-code" in " ".join(page.locator("table[data-preview]").inner_text().split())
    skipped = page.locator("details.skipped").inner_text()
    assert "sessions/metrics.jsonl: not a transcript" in " ".join(skipped.split())
    assert "as tachikoma tag with no options" in page.locator("[data-defaults-text]").inner_text()

    page.click("button:has-text('Apply to')")
    page.wait_for_selector("[data-result=applied]")
    tags = (memory / "tachikoma-tags.yaml").read_text()
    assert "sessions/metrics.jsonl" not in tags
    for change in expected["changes"]:
        assert f"source: {change['after']['source']}" in tags
    assert page.problems == []


def test_preview_says_a_different_value_was_kept_and_how_to_overwrite(server, page, memory):
    """The preview said "1 already had these values" for a note holding confidence: low when
    medium was asked for."""
    (memory / "people").mkdir()
    (memory / "people" / "anna.md").write_text("---\nconfidence: low\n---\n# Anna\nAnna likes tea.\n")
    page.goto(server.url + "/tag?preview=1&path=people/anna.md&confidence=medium")
    head = page.locator(".preview-head").inner_text()
    assert "already had these values" not in head and "1 kept its own value" in head
    nothing = page.locator("[data-nothing=kept]").inner_text()
    assert "keeps its own value" in nothing and "Overwrite existing values" in nothing
    kept = " ".join(page.locator("[data-kept]").inner_text().split())
    assert "people/anna.md: confidence=low kept, not medium" in kept
    page.check("input[name=mode][value=overwrite]")
    page.click("button:has-text('Preview')")
    page.wait_for_selector("table[data-preview] tr[data-path='people/anna.md']")
    assert "confidence low → medium" in " ".join(page.locator("table[data-preview]").inner_text().split())
    assert page.locator("[data-kept]").count() == 0
    assert page.problems == []


def test_a_notes_relative_images_show_and_an_svg_runs_no_script(server, page, memory):
    """`![](diagram.png)` answered 404 with a console error. Images in the memory show; an SVG shows in
    the page (an <img> never runs its script) and opening its address downloads it."""
    from test_app import PIXEL

    (memory / "people").mkdir()
    (memory / "people" / "diagram.png").write_bytes(PIXEL)
    (memory / "people" / "flow.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><script>top.pwned = 1</script>'
        '<rect width="120" height="40" fill="#3a7"/></svg>')
    (memory / "people" / "diag.md").write_text("# Diagram\n\n![pixel](diagram.png)\n\n![flow](flow.svg)\n\n"
                                               "![gone](../../../etc/passwd.png)\n")
    page.goto(server.url + "/file/people/diag.md")
    page.wait_for_function("[...document.querySelectorAll('.prose img[src]')].every(i => i.complete)")
    sizes = page.locator(".prose img[src]").evaluate_all("imgs => imgs.map(i => [i.alt, i.naturalWidth])")
    assert sizes == [["pixel", 1], ["flow", 120]]
    assert page.locator(".prose img[alt=gone]").get_attribute("src") is None
    assert page.evaluate("typeof window.pwned") == "undefined"
    with page.expect_download() as download:
        page.evaluate("url => { const a = document.createElement('a'); a.href = url; document.body.append(a); "
                      "a.click(); }", server.url + "/image/people/flow.svg")
    assert download.value.suggested_filename == "flow.svg"
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.problems == []
