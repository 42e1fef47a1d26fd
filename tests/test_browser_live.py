"""In headless Chromium: the Index panel, the coverage page and the search results update by themselves
when an index run from elsewhere (a terminal, the watcher) changes the index, without a reload."""

from __future__ import annotations

import os

import pytest

from tachikoma_dashboard.app import create_app
from tachikoma.indexer import runner
from web_helpers import CHROMIUM, LiveServer, browser_page, build_index, copy_memory

if not CHROMIUM.exists() and os.environ.get("TACHIKOMA_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"TACHIKOMA_REQUIRE_BROWSER=1 but there is no Chromium at {CHROMIUM}")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason=f"needs Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)")


def test_open_pages_follow_a_run_made_in_a_terminal(tmp_path):
    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app = create_app(memory=root)
    with LiveServer(app) as live, browser_page() as page:
        page.goto(live.url + "/reindex")
        assert page.locator("[data-holds]").inner_text().startswith("11 files")
        coverage = page.context.new_page()
        coverage.goto(live.url + "/coverage")
        total_before = coverage.locator("[data-total]").inner_text()
        for n in range(5):
            (root / f"extra-{n}.md").write_text(f"---\ntrust: owner\n---\n# Extra {n}\nNew fact number {n}.\n")
        runner.run(root)  # `tachikoma index` in a terminal: this server's job knows nothing of it
        page.wait_for_selector("[data-holds]:has-text('16 files')", timeout=15_000)
        assert page.locator("[data-changed]").inner_text().startswith("0")
        coverage.wait_for_selector(f"[data-total]:text-is('{int(total_before) + 5}')", timeout=15_000)
        assert page.problems == []
