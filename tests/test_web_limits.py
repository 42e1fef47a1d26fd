"""Issue 32 on the dashboard: a bounded query (break 2)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from tachikoma_dashboard.app import create_app
from tachikoma.vocabulary import MAX_QUERY_CHARS
from web_helpers import build_index, copy_memory

BASE = "http://127.0.0.1:5000"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = copy_memory(tmp_path_factory.mktemp("limits") / "memory")
    build_index(root)
    app = create_app(memory=root, port=5000)
    yield app.test_client()
    app.extensions["tachikoma"].index_job.wait(30)


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_the_json_api_refuses_a_query_past_the_limit_and_says_the_limit(client):
    long = "in 2026 " * 16000
    answer = client.get("/api/search", query_string={"q": long}, base_url=BASE)
    assert answer.status_code == 400
    error = json.loads(answer.get_data())["error"]
    assert f"the limit is {MAX_QUERY_CHARS:,}" in error and f"{len(long.strip()):,} characters" in error
    at_limit = client.get("/api/search", query_string={"q": ("meetings " * 300)[:MAX_QUERY_CHARS]}, base_url=BASE)
    assert at_limit.status_code == 200, at_limit.get_data(as_text=True)


def test_the_search_page_refuses_a_query_past_the_limit_and_says_the_limit(client):
    page = client.get("/", query_string={"q": "x" * (MAX_QUERY_CHARS + 1)}, base_url=BASE)
    assert page.status_code == 400
    said = text_of(page.get_data(as_text=True))
    assert f"the query is 2,001 characters long; the limit is {MAX_QUERY_CHARS:,}" in said
