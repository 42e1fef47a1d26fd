"""The dashboard keeps itself current: the index beacon, the Index panel after runs from anywhere,
progress that covers embedding, the watcher behind `tachikoma serve`, and the relevance floor on the page."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tachikoma_dashboard.app import create_app
from tachikoma.indexer import runner
from tachikoma.embedders.hashing import HashingEmbedder
from test_app import HTMX
from test_app import make_client as client_for
from web_helpers import build_index, copy_memory


@pytest.fixture
def root(tmp_path) -> Path:
    root = copy_memory(tmp_path / "memory")
    build_index(root)
    return root


@pytest.fixture
def app(root):
    app = create_app(memory=root, port=5000)
    yield app
    app.extensions["tachikoma"].index_job.wait(30)


def beacon_url(html: str) -> str:
    start = html.index('id="index-beacon"')
    href = html[html.index('hx-get="', start) + 8:]
    return href[:href.index('"')].replace("&amp;", "&")


def test_beacon_is_silent_until_a_run_from_elsewhere_changes_the_index(app, root):
    client = client_for(app)
    page = client.get("/coverage").get_data(as_text=True)
    url = beacon_url(page)
    assert client.get(url).status_code == 204  # nothing changed: no swap, no event
    (root / "new-note.md").write_text("# New\nA note written while the page was open.\n")
    runner.run(root)  # what `tachikoma index` in a terminal does
    changed = client.get(url)
    assert changed.status_code == 200 and changed.headers["HX-Trigger"] == "index-updated"
    again = beacon_url(changed.get_data(as_text=True))
    assert again != url and client.get(again).status_code == 204


def test_beacon_says_when_this_servers_job_starts_and_ends(app):
    client = client_for(app)
    url = beacon_url(client.get("/reindex").get_data(as_text=True))
    client.post("/reindex", headers={**HTMX, "X-CSRFToken": _token(client)})
    app.extensions["tachikoma"].index_job.wait(30)
    response = client.get(url)
    assert response.status_code == 200 and "index-job" in response.headers["HX-Trigger"]


def _token(client) -> str:
    html = client.get("/reindex").get_data(as_text=True)
    marker = 'name="csrf-token" content="'
    start = html.index(marker) + len(marker)
    return html[start:html.index('"', start)]


def test_index_panel_shows_current_counts_after_a_cli_run(app, root):
    client = client_for(app)
    before = client.get("/reindex").get_data(as_text=True)
    assert "Holds</dt><dd data-holds>11 files, " in before
    for n in range(3):
        (root / f"extra-{n}.md").write_text(f"# Extra {n}\nSomething new number {n}.\n")
    assert "Files changed since</dt><dd data-changed>3" in client.get("/reindex/panel").get_data(as_text=True)
    runner.run(root)
    panel = client.get("/reindex/panel", headers=HTMX).get_data(as_text=True)
    assert 'id="index-panel"' in panel
    assert "Holds</dt><dd data-holds>14 files, " in panel
    assert "Files changed since</dt><dd data-changed>0" in panel
    assert 'hx-trigger="index-updated from:body, index-job from:body"' in panel


def test_progress_counts_files_stored_before_embedding_and_ends_once_everything_is_embedded(tmp_path):
    root = copy_memory(tmp_path / "memory")
    embedded = []

    class Counting(HashingEmbedder):
        def embed_documents(self, texts, progress=None):
            vectors = super().embed_documents(texts, progress)
            embedded.extend(texts)
            return vectors

    calls = []
    summary = runner.run(root, embedder=Counting(), progress=lambda done, total, path: calls.append(
        (done, total, len(embedded))))
    total_chunks = summary.chunks_embedded
    assert calls and all(total == 11 for _, total, _ in calls)
    assert calls[-1][0] == 11
    # Files are stored (searchable by keyword) before any is embedded; the last call comes after the embedding.
    first_all_stored = next(seen for done, total, seen in calls if done == total)
    assert first_all_stored == 0 and calls[-1] == (11, 11, total_chunks)
    dones = [done for done, _, _ in calls]
    assert dones == sorted(dones)


def test_progress_text_says_files_are_embedded_and_stored(app):
    job = app.extensions["tachikoma"].index_job
    job.state = {**job._fresh("watch"), "done": 3, "total": 10, "path": "a.md"}
    html = client_for(app).get("/reindex/status", headers=HTMX).get_data(as_text=True)
    job.state = {"state": "idle"}
    assert "Indexing changes: 3 of 10 files read and stored (searchable by keyword; embedding follows)" in html


def test_serve_with_watch_indexes_changes_by_itself(root):
    app = create_app(memory=root, port=5000, watch=True)
    dashboard = app.extensions["tachikoma"]
    client = client_for(app)
    try:
        assert dashboard.watcher.wait_ready(30)
        dashboard.index_job.wait(60)  # the first, catch-up run
        (root / "inbox" / "sailing.md").write_text("# Sailing\nThe dinghy is moored at pier 7 in Kiel harbour.\n")
        answer = wait_for(lambda: _found(client, "dinghy moored pier Kiel", "inbox/sailing.md"))
        assert answer["freshness"]["watching"] is True and answer["freshness"]["changed_since"] == 0
        (root / "inbox" / "sailing.md").unlink()
        gone = client.get("/api/search?q=dinghy+moored+pier+Kiel").get_json()
        assert "inbox/sailing.md" not in [r["path"] for r in gone["results"]]  # at once, before re-indexing
        assert wait_for(lambda: dashboard.index_job.snapshot()["reason"] == "watch"
                        and dashboard.index_job.snapshot()["state"] == "done")
        panel = client.get("/reindex/panel").get_data(as_text=True)
        assert "yes: every change is indexed in the background" in panel
    finally:
        dashboard.watcher.stop()
        dashboard.index_job.wait(30)


def _found(client, query, path):
    answer = client.get(f"/api/search?q={query}").get_json()
    return answer if path in [r["path"] for r in answer["results"]] else None


def wait_for(check, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    return check()


def test_relevance_floor_on_the_page_and_the_api(app):
    client = client_for(app)
    # "Zanzibar" and "Timbuktu" are nowhere, so no chunk holds most of the words: the floor decides.
    html = client.get("/?q=DRV8353+gate+driver+Zanzibar+Timbuktu&min_score=1", headers=HTMX).get_data(as_text=True)
    assert "No good match for" in html and "search without the floor" in html and "min_score=0" in html
    assert 'data-no-good-match="true"' in html
    api = client.get("/api/search?q=DRV8353+gate+driver+Zanzibar+Timbuktu&min_score=1").get_json()
    assert api["no_good_match"] is True and api["results"] == [] and api["min_score"] == 1.0
    api = client.get("/api/search?q=DRV8353+gate+driver+Zanzibar+Timbuktu&min_score=0").get_json()
    assert api["no_good_match"] is False and api["results"]
    assert api["freshness"]["watching"] is False and api["freshness"]["changed_since"] == 0
    for bad in ("2", "-1", "lots"):
        response = client.get(f"/api/search?q=x&min_score={bad}")
        assert response.status_code == 400 and "min_score" in response.get_json()["error"]
    page = client.get("/?q=DRV8353+gate+driver+Zanzibar", headers=HTMX).get_data(as_text=True)
    assert 'class="freshness"' in page and "up to date" in page


def test_a_run_under_way_refreshes_the_panel_but_not_the_results(app, root):
    from tachikoma.memory import index_path
    from tachikoma.store import Store

    client = client_for(app)
    url = beacon_url(client.get("/").get_data(as_text=True))
    with Store(index_path(root)) as store:  # what a run in another process does first
        store.set_meta("run_complete", "0")
        store.db.commit()
    started = client.get(url)
    assert started.status_code == 200 and started.headers["HX-Trigger"] == "index-job"
    runner.run(root)
    finished = client.get(beacon_url(started.get_data(as_text=True)))
    assert set(finished.headers["HX-Trigger"].split(", ")) == {"index-updated", "index-job"}
