"""Issue 32, breaks 12 and 13: a PostgreSQL server that goes away mid-index, or is down while the
dashboard asks about the index, is said in one line ("lost the …", "cannot reach …"), never as an
unexpected error or a traceback."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from html import unescape

import pytest

from tachikoma_dashboard.app import create_app
from example_memory import copy_example
from tachikoma import cli
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.store import STORE_ENV
from web_helpers import copy_memory

BASE = "http://127.0.0.1:5000"
DOWN = "postgresql://tk@127.0.0.1:1/memories"


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_a_server_shut_down_mid_index_is_lost_in_one_line(tmp_path, pg, monkeypatch):
    database = pg.new_database()
    root = copy_example(tmp_path / "memory")
    monkeypatch.setenv(STORE_ENV, pg.url(database))
    embed = HashingEmbedder.embed_documents

    def shut_down_first(self, texts, *args, **kwargs):  # the server ends every tachikoma connection (AdminShutdown)
        pg.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                 f"WHERE datname = '{database}' AND application_name = 'tachikoma'")
        return embed(self, texts, *args, **kwargs)

    monkeypatch.setattr(HashingEmbedder, "embed_documents", shut_down_first)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["--memory", str(root), "index", "--embedder", "hash", "--quiet"])
    assert code == 1
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tachikoma: lost the PostgreSQL server at "), lines
    assert "terminating connection due to administrator command" in lines[0] and "unexpected" not in lines[0]
    monkeypatch.setattr(HashingEmbedder, "embed_documents", embed)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert cli.main(["--memory", str(root), "index", "--embedder", "hash", "--quiet"]) == 0  # it carries on


@pytest.fixture
def down(tmp_path, caplog):
    root = copy_memory(tmp_path / "memory")
    (root / "tachikoma.toml").write_text(f'[store]\nurl = "{DOWN}"\n')
    app = create_app(memory=root, port=5000)
    yield app.test_client()
    app.extensions["tachikoma"].index_job.wait(30)


@pytest.mark.parametrize("path", ["/", "/?q=meetings", "/reindex", "/reindex/panel", "/reindex/status"])
def test_the_dashboard_says_it_cannot_reach_a_server_that_is_down(down, path, caplog):
    caplog.set_level(logging.ERROR)
    page = down.get(path, base_url=BASE)
    said = text_of(page.get_data(as_text=True))
    assert page.status_code in (200, 503), (page.status_code, said[:300])
    assert "cannot reach the PostgreSQL server at postgresql://tk@127.0.0.1:1/memories" in said
    assert "Traceback" not in caplog.text
    htmx = down.get(path, base_url=BASE, headers={"HX-Request": "true"})
    assert htmx.status_code in (200, 503)
    if not path.startswith("/reindex"):  # /reindex's fragment is the job's button; the panel says it
        assert "cannot reach the PostgreSQL server" in text_of(htmx.get_data(as_text=True))


def test_a_refused_reindex_post_and_the_api_say_it_in_one_line_too(down, caplog):
    caplog.set_level(logging.ERROR)
    answer = down.get("/api/search", query_string={"q": "meetings"}, base_url=BASE)
    assert answer.status_code == 503 and answer.get_json()["error"].startswith("cannot reach the PostgreSQL")
    assert "Traceback" not in caplog.text
