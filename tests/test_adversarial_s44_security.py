"""Session 44's security review of the dashboard and MCP (a helper, attacking in its own worktree). Each test of a
break failed before its fix.

1. A tag selector's glob was a backtracking regular expression: "*?*?*?*?*?*?*?*?*?*?Z" (21 characters) took 17 s
   against one session's name (a UUID), a few more stars tens of minutes, and GET /tag?preview=1 needs no token,
   so any web page the owner opened could tie up the dashboard with an <img>. Globs are now matched in time
   linear in the path (`globs._Glob`), and a pattern is at most 4,096 characters (`globs.MAX_PATTERN_CHARS`).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from flask.testing import FlaskClient

from servers import serving
from tachikoma.globs import _glob_regex, pattern_matches
from tachikoma_dashboard.app import create_app
from web_helpers import build_index, copy_memory

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HOST = "127.0.0.1:5000"
MAX_PATTERN_CHARS = 4096  # `globs.MAX_PATTERN_CHARS`: PATH_MAX
SESSION = "0b5c9f0e-7d1a-4c55-9d3e-2f6a1b7c8d90.jsonl"  # a Claude Code session's name
#: 34 characters that took a backtracking regular expression hours against SESSION.
HOSTILE = "*?" * 16 + "Z"
TURN = '{"type": "user", "message": {"role": "user", "content": "hello"}, "timestamp": "2026-05-01T10:00:00Z"}\n'


@pytest.fixture
def indexed(tmp_path) -> Path:
    root = copy_memory(tmp_path / "memory")
    (root / "2026-05-10" / SESSION).write_text(TURN)
    build_index(root)
    return root


class Client(FlaskClient):
    """A test client that talks to the served address unless told otherwise."""

    def open(self, *args, **kwargs):
        kwargs.setdefault("base_url", f"http://{HOST}")
        return super().open(*args, **kwargs)


def client_of(app, remote: str = "127.0.0.1"):
    """A client on the machine `remote` (its peer address)."""
    app.test_client_class = Client
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = remote
    return client


def csrf_token(client) -> str:
    html = client.get("/tag").get_data(as_text=True)
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)


# --------------------------------------------------------------------------- 1. a glob costs time linear in the path


def test_a_hostile_glob_is_matched_at_once():
    code = ("from tachikoma.globs import pattern_matches as m\n"
            f"assert not m({HOSTILE!r}, {SESSION!r})\n"
            f"assert not m('**/' + '**?' * 16 + 'Z', 'a/b/' + {SESSION!r})\n"
            f"assert m('**/' + '*?' * 16 + '*l', 'a/b/' + {SESSION!r})\n")
    started = time.monotonic()
    try:
        subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("matching one glob against one session's name took more than 30 s")
    assert time.monotonic() - started < 30


def test_the_tag_preview_answers_a_hostile_pattern_at_once(indexed):
    """What a web page's <img src="http://127.0.0.1:PORT/tag?preview=1&path=..."> asks: no cookie, no token."""
    with serving(indexed, "--no-watch") as (base, _proc):
        try:
            response = httpx.get(base + "/tag", params={"preview": "1", "path": HOSTILE, "trust": "self"}, timeout=20)
        except httpx.ReadTimeout:
            pytest.fail("the preview of one glob held a dashboard thread for more than 20 s")
        assert response.status_code == 200 and 'data-nothing="no-match"' in response.text
        found = httpx.get(base + "/tag", params={"preview": "1", "path": "*" + SESSION[:8] + "*", "trust": "self"},
                          timeout=20)
        assert SESSION in found.text  # the same matcher still finds what a pattern names


def regex_reading(pattern: str, path: str, ignore_case: bool) -> bool:
    """`globs.pattern_matches` as it was: the glob as a backtracking regular expression (`globs._glob_regex`)."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if pattern.endswith("/"):
        return _glob_regex(pattern.lstrip("/") + "**", ignore_case).match(path) is not None
    if "/" not in pattern:
        return _glob_regex(pattern, ignore_case).match(path.rsplit("/", 1)[-1]) is not None
    return _glob_regex(pattern.lstrip("/"), ignore_case).match(path) is not None


def test_globs_read_as_before():
    """The linear matcher reads every glob as the regular expression did: `*` within a folder, `**` across, `**/`
    any folders, `?`, classes with `!`/`^` and `]` first, an unclosed `[`, case folding, a folder glob."""
    pieces = ["a", "b", "/", ".", "*", "?", "**", "**/", "[ab]", "[!a]", "[]]", "[", "]", "A", "é", "[a-c]", "\n", "\\"]
    letters = ["a", "b", "/", ".", "A", "c", "é", "É", "]", "[", "\n"]
    rng = random.Random(44)
    compared = 0
    for _ in range(4000):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
        if not any(ch in pattern for ch in "*?["):
            continue  # a folder or a file's path: no glob
        ignore_case = rng.random() < 0.3
        for _ in range(6):
            path = "".join(rng.choice(letters) for _ in range(rng.randint(0, 9)))
            assert pattern_matches(pattern, path, ignore_case) == regex_reading(pattern, path, ignore_case), \
                (pattern, path, ignore_case)
            compared += 1
    assert compared > 10_000


def test_a_pattern_longer_than_a_path_can_be_is_refused(indexed):
    client = client_of(create_app(memory=indexed, port=5000))
    response = client.get("/tag", query_string={"preview": "1", "path": "a" * (MAX_PATTERN_CHARS + 1),
                                                "trust": "self"})
    assert response.status_code == 400
    assert f"the limit is {MAX_PATTERN_CHARS:,}" in response.get_data(as_text=True)
    at_limit = client.get("/tag", query_string={"preview": "1", "path": "a" * MAX_PATTERN_CHARS, "trust": "self"})
    assert at_limit.status_code == 200
