"""Issue 32, break 4 and the team guide's sign-in: sign-out ends a session on the server, tokens are
revoked (and added) by editing the tokens file, without a restart, and an agent's token pasted into
the sign-in form is told what it is for."""

from __future__ import annotations

import os
import re
import time
from html import unescape

import httpx
import pytest

from servers import serving

SHARED = "127.0.0.2"
ALICE = "alice-token-" + "a" * 20
BOB = "bob-token-" + "d" * 20
BOT = "bot-token-" + "b" * 20


def no_token_env() -> dict:
    return {k: v for k, v in os.environ.items() if k != "TACHIKOMA_TOKEN"}


@pytest.fixture
def tokens(tmp_path):
    file = tmp_path / "tokens"
    file.write_text(f"# name role token\nalice owner {ALICE}\nbot agent {BOT}\n")
    return file


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def sign_in(base: str, token: str) -> tuple[httpx.Client, httpx.Response]:
    client = httpx.Client(base_url=base)
    form = client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
    return client, client.post("/login", data={"csrf_token": csrf, "token": token, "next": "/tag"})


def rewrite(file, text: str) -> None:
    """Replace the tokens file as an editor does (a new file renamed over it)."""
    fresh = file.with_suffix(".new")
    fresh.write_text(text)
    os.replace(fresh, file)


def test_a_cookie_copied_before_sign_out_is_refused_after_it(indexed_example, tokens):
    root = indexed_example
    with serving(root, "--no-watch", "--tokens-file", str(tokens), host=SHARED, env=no_token_env()) as (base, _):
        client, done = sign_in(base, ALICE)
        assert done.status_code == 303
        page = client.get("/tag")
        assert page.status_code == 200 and "alice" in page.text
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
        stolen = httpx.Client(base_url=base, cookies=dict(client.cookies))  # the cookie, copied
        form = {"path": "projects/tachikoma.md", "trust": "external", "mode": "overwrite"}
        assert stolen.get("/tag", params={**form, "preview": "1"}).status_code == 200  # it works while signed in
        assert client.post("/logout", data={"csrf_token": csrf}).status_code == 303
        assert stolen.get("/tag").status_code == 303  # to sign in: the session is over on the server
        preview = stolen.get("/tag", params={**form, "preview": "1"}, headers={"HX-Request": "true"})
        assert preview.status_code == 401
        applied = stolen.post("/tag/apply", data={**form, "fingerprint": "x", "csrf_token": csrf})
        assert applied.status_code in (400, 401) and "external" not in (root / form["path"]).read_text()
        again, done = sign_in(base, ALICE)  # signing in again is a new session
        assert done.status_code == 303 and again.get("/tag").status_code == 200


def test_tokens_are_revoked_and_added_without_a_restart(indexed_example, tokens):
    root = indexed_example
    with serving(root, "--no-watch", "--mcp", "--tokens-file", str(tokens), host=SHARED,
                 env=no_token_env()) as (base, _):
        client, done = sign_in(base, ALICE)
        assert done.status_code == 303 and client.get("/tag").status_code == 200
        assert httpx.get(base + "/api/stats", headers=bearer(ALICE)).status_code == 200
        assert httpx.get(base + "/api/stats", headers=bearer(BOB)).status_code == 401
        rewrite(tokens, f"bob owner {BOB}\nbot agent {BOT}\n")  # alice revoked, bob added
        assert httpx.get(base + "/api/stats", headers=bearer(ALICE)).status_code == 401
        assert client.get("/tag").status_code == 303  # her browser's session ended too
        assert httpx.get(base + "/api/stats", headers=bearer(BOB)).status_code == 200
        mcp = httpx.post(base + "/mcp", headers=bearer(BOT), json={})
        assert mcp.status_code != 401
        rewrite(tokens, f"bob owner {BOB}\n")
        assert httpx.post(base + "/mcp", headers=bearer(BOT), json={}).status_code == 401  # MCP too
        rewrite(tokens, f"bob owner {BOB}\nbroken line\n")  # a file that cannot be read lets nobody in
        assert httpx.get(base + "/api/stats", headers=bearer(BOB)).status_code == 401
        time.sleep(0.01)
        rewrite(tokens, f"bob owner {BOB}\n")
        assert httpx.get(base + "/api/stats", headers=bearer(BOB)).status_code == 200


def test_an_agent_token_in_the_sign_in_form_says_what_it_is_for(indexed_example, tokens):
    with serving(indexed_example, "--no-watch", "--tokens-file", str(tokens), host=SHARED,
                 env=no_token_env()) as (base, _):
        client, done = sign_in(base, BOT)
        assert done.status_code == 403
        assert "token: it reaches MCP only" in unescape(done.text)
        assert client.get("/tag").status_code == 303  # and it opened nothing
        _, wrong = sign_in(base, "not-a-token-" + "c" * 20)
        assert wrong.status_code == 401 and "not accepted" in wrong.text and "MCP" not in wrong.text


def test_an_https_public_address_before_its_proxy_says_why_sign_in_fails(indexed_example, tokens):
    root = indexed_example
    with serving(root, "--no-watch", "--tokens-file", str(tokens), "--public-url", "https://ops.memory.example",
                 host=SHARED, env=no_token_env()) as (base, _):
        client, done = sign_in(base, ALICE)  # over plain http: the Secure cookie never comes back
        said = unescape(done.text)
        assert done.status_code == 400 and "Sign-in needs https" in said
        assert "https://ops.memory.example" in said and "without --public-url" in said and "reload" not in said
        misdirected = httpx.get(base + "/", headers={"Host": "evil.example"})
        assert misdirected.status_code == 421
        assert "open it at https://ops.memory.example" in unescape(misdirected.text)
        assert str(root) not in misdirected.text and "Memory folder" not in misdirected.text


def test_a_misdirected_request_names_an_address_that_answers(indexed_example, tokens):
    with serving(indexed_example, "--no-watch", "--tokens-file", str(tokens), host="127.0.0.1",
                 env=no_token_env()) as (base, _):
        misdirected = httpx.get(base + "/", headers={"Host": "evil.example"})
        assert misdirected.status_code == 421 and f"open it at {base}/" in unescape(misdirected.text)
        assert "Memory folder" not in misdirected.text  # nothing of the memory before signing in
