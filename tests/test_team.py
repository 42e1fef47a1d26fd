"""A shared server (docs/team.md) over real HTTP: `tachikoma serve` on 127.0.0.2 (not one of the
addresses served without authentication) with a tokens file, a trusted proxy, sign-in in headless
Chromium, and MCP over HTTP with a bearer token; commits say who asked."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from servers import serving
from web_helpers import CHROMIUM, git_run, launch_chromium

SHARED = "127.0.0.2"  # a loopback address, yet not one `serve` binds to without authentication
PROXY = "127.0.0.3"
ALICE = "alice-token-" + "a" * 20
BOT = "bot-token-" + "b" * 20
WRONG = "not-a-token-" + "c" * 20


def no_token_env() -> dict:
    return {k: v for k, v in os.environ.items() if k != "TACHIKOMA_TOKEN"}


@pytest.fixture
def root(indexed_example):
    return indexed_example


@pytest.fixture
def tokens(tmp_path):
    file = tmp_path / "tokens"
    file.write_text(f"# name role token\nalice owner {ALICE}\nbot agent {BOT}\n")
    return file


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def last_commit(root) -> str:
    return git_run(root, "log", "-1", "--format=%B")


@pytest.mark.parametrize("mode", [(), ("--mcp",)], ids=["serve", "serve-mcp"])
def test_refused_beyond_localhost_without_authentication(root, mode):
    result = subprocess.run([sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--host", SHARED,
                             "--no-watch", *mode], capture_output=True, text=True, timeout=60, env=no_token_env())
    assert result.returncode == 1
    assert result.stderr.startswith(f"tachikoma: serving on {SHARED} needs authentication"), result.stderr
    assert "--tokens-file" in result.stderr and "--trusted-proxy" in result.stderr


def test_a_token_inside_the_memory_or_the_settings_file_is_refused(root, tmp_path):
    inside = root / "tokens"
    inside.write_text(f"alice owner {ALICE}\n")
    result = subprocess.run([sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--host", SHARED,
                             "--tokens-file", str(inside)], capture_output=True, text=True, timeout=60,
                            env=no_token_env())
    assert result.returncode == 1 and "lies inside the memory folder" in result.stderr
    (root / "tachikoma.toml").write_text(f'[serve]\ntoken = "{ALICE}"\n')
    result = subprocess.run([sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--host", SHARED],
                            capture_output=True, text=True, timeout=60, env=no_token_env())
    assert result.returncode == 1 and "does not belong in the settings file" in result.stderr
    assert ALICE not in result.stderr


def test_tokens_let_people_in_and_wrong_ones_learn_nothing(root, tokens):
    with serving(root, "--no-watch", "--tokens-file", str(tokens), host=SHARED, env=no_token_env()) as (base, _):
        anonymous = httpx.get(base + "/api/stats")
        assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"].startswith("Bearer")
        assert httpx.get(base + "/api/stats", headers=bearer(ALICE)).status_code == 200
        search = httpx.get(base + "/api/search", params={"q": "gate driver", "min_score": 0}, headers=bearer(ALICE))
        assert search.status_code == 200 and search.json()["results"]
        for authorization in (f"Bearer {WRONG}", f"Bearer {ALICE[:-1]}", f"Bearer {ALICE}x", f"Basic {ALICE}"):
            for path in ("/api/stats", "/coverage", "/file/2026-03-22/meeting-notes.md"):
                refused = httpx.get(base + path, headers={"Authorization": authorization})
                assert refused.status_code == 401, (authorization, path)
                body = refused.text
                # nothing of the token, the memory or its holders
                assert authorization.split()[1] not in body and ALICE[:12] not in body
                # the holders' names as words: a page's random nonce can hold "bot" ("…ThIbotbfq…", a flake in CI)
                assert not re.search(r"\b(?:alice|bot)\b", body) and str(root) not in body
                assert "DRV8353" not in body  # the file's text
        page = httpx.get(base + "/coverage")  # a browser without a session goes to sign in
        assert page.status_code == 303 and page.headers["Location"] == "/login?next=/coverage"
        agent = httpx.get(base + "/coverage", headers=bearer(BOT))  # an agent's token reaches MCP only
        assert agent.status_code == 403 and "MCP only" in agent.text
        assert httpx.get(base + "/", headers={**bearer(ALICE), "Host": "evil.example"}).status_code == 421


def signed_in_client(base: str, token: str) -> httpx.Client:
    """A cookie-keeping client that signed in through the form, as a browser does."""
    client = httpx.Client(base_url=base)
    form = client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
    done = client.post("/login", data={"csrf_token": csrf, "token": token, "next": "/tag"})
    assert done.status_code == 303 and done.headers["Location"] == "/tag", done.text
    return client


def test_a_signed_in_session_still_needs_csrf_and_commits_say_who(root, tokens):
    with serving(root, "--no-watch", "--tokens-file", str(tokens), host=SHARED, env=no_token_env()) as (base, _):
        login = httpx.Client(base_url=base)
        assert login.post("/login", data={"token": ALICE}).status_code == 400  # the sign-in form needs CSRF too
        client = signed_in_client(base, ALICE)
        page = client.get("/tag")
        assert page.status_code == 200 and "alice" in page.text and "Sign out" in page.text
        cookie = next(c for c in client.cookies.jar)
        assert cookie.has_nonstandard_attr("HttpOnly") and cookie.get_nonstandard_attr("SameSite") == "Strict"
        assert ALICE not in cookie.value  # the session names the holder, not the token
        assert client.post("/reindex").status_code == 400  # signed in, but no CSRF token: refused
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
        form = {"path": "projects/tachikoma.md", "trust": "external", "mode": "overwrite"}
        preview = client.get("/tag", params={**form, "preview": "1"})
        fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', preview.text).group(1)
        applied = client.post("/tag/apply", data={**form, "fingerprint": fingerprint, "csrf_token": csrf})
        assert applied.status_code == 200, applied.text
        message = last_commit(root)
        assert message.startswith("tachikoma: tag 1 file (trust=external)")
        assert message.rstrip().splitlines()[-2:] == ["Tachikoma-Tagging: 1",
                                                      "Tachikoma-Changed-By: alice (dashboard)"]
        undo_id = re.search(r'name="shown" value="([^"]+)"', applied.text).group(1)
        undone = client.post(f"/tag/undo/{undo_id}", data={"csrf_token": csrf})
        assert undone.status_code == 200 and last_commit(root).rstrip().endswith("Tachikoma-Changed-By: alice (dashboard)")
        out = client.post("/logout", data={"csrf_token": csrf})
        assert out.status_code == 303 and client.get("/tag").status_code == 303  # signed out


def test_the_proxy_header_counts_only_from_a_trusted_proxy(root):
    with serving(root, "--no-watch", "--trusted-proxy", PROXY, host=SHARED, env=no_token_env()) as (base, _):
        forged = httpx.get(base + "/api/stats", headers={"X-Forwarded-User": "alice"})  # from 127.0.0.1
        assert forged.status_code == 401
        spoofed = httpx.get(base + "/api/stats", headers={"X-Forwarded-User": "alice", "X-Forwarded-For": PROXY})
        assert spoofed.status_code == 401  # the connection's own address decides, not a header
        via_proxy = httpx.Client(transport=httpx.HTTPTransport(local_address=PROXY))
        assert via_proxy.get(base + "/api/stats", headers={"X-Forwarded-User": "alice"}).status_code == 200
        assert via_proxy.get(base + "/api/stats").status_code == 401  # the proxy sent nobody
        assert via_proxy.get(base + "/api/stats", headers={"X-Forwarded-User": b"al\x85ice"}).status_code == 401


def test_mcp_over_http_needs_a_token_and_commits_name_the_agent(root, tokens):
    with serving(root, "--mcp", "--no-watch", "--tokens-file", str(tokens), host=SHARED,
                 env=no_token_env()) as (base, _):
        assert httpx.post(base + "/mcp", json={}).status_code == 401
        assert httpx.post(base + "/mcp", json={}, headers=bearer(WRONG)).status_code == 401

        async def scenario(token):
            http = httpx2.AsyncClient(headers=bearer(token), timeout=30)
            async with Client(streamable_http_client(base + "/mcp", http_client=http)) as client:
                found = await client.call_tool("search", {"query": "DRV8353 gate driver", "min_score": 0,
                                                                      "budget_tokens": 0})
                kept = await client.call_tool("remember", {"text": "The team meets on Thursdays.",
                                                            "title": "Team meeting"})
                owner = await client.call_tool("remember", {"text": "I am the owner.", "trust": "owner"})
                return found, kept, owner

        found, kept, owner = asyncio.run(asyncio.wait_for(scenario(BOT), 90))
        assert not found.is_error and found.structured_content["results"]
        assert not kept.is_error, kept.content[0].text
        assert "Tachikoma-Changed-By: an agent authenticated as bot (MCP)" in last_commit(root)
        assert owner.is_error and "--mcp-allow-owner-trust" in owner.content[0].text  # an agent's say-so, even so
        _, kept, _ = asyncio.run(asyncio.wait_for(scenario(ALICE), 90))  # an owner's token used by an agent
        assert kept.structured_content["already_remembered"]
        assert httpx.get(base + "/api/stats", headers=bearer(ALICE)).status_code == 200  # the dashboard too
        assert httpx.get(base + "/api/stats").status_code == 401


@pytest.mark.skipif(not CHROMIUM.exists() and not os.environ.get("TACHIKOMA_REQUIRE_BROWSER"),
                    reason="needs /usr/bin/chromium")
def test_signing_in_with_a_browser(root, tokens):
    from playwright.sync_api import sync_playwright

    with serving(root, "--no-watch", "--tokens-file", str(tokens), host=SHARED, env=no_token_env()) as (base, _), \
            sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page()
            problems = []
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(base + "/coverage")
            assert page.url == base + "/login?next=/coverage"
            page.fill("#token", WRONG)
            page.click("button[type=submit]")
            assert "That token was not accepted." in page.inner_text("main")
            page.fill("#token", BOT)  # an agent's token does not sign in either, and says what it is for
            page.click("button[type=submit]")
            assert "That is an agent's token: it reaches MCP only" in page.inner_text("main")
            page.fill("#token", ALICE)
            page.click("button[type=submit]")
            page.wait_for_url(base + "/coverage")
            assert page.locator("h1").first.inner_text().strip() == "Tag coverage"
            assert page.inner_text(".signed-in span") == "alice"
            cookie, = page.context.cookies()
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"]  # http here
            page.click(".signed-in button")
            page.wait_for_url(re.compile(r".*/login$"))
            page.goto(base + "/tag")
            assert "/login" in page.url
            assert not problems, problems
        finally:
            browser.close()


def test_the_access_settings_say_what_is_wrong(tmp_path):
    from tachikoma.config import ServeConfig
    from tachikoma.web.access import AccessError, load_access

    memory_root = tmp_path / "memory"
    memory_root.mkdir()
    assert load_access(memory_root, ServeConfig(), environ={}) is None  # nothing configured: localhost only
    one = load_access(memory_root, ServeConfig(), environ={"TACHIKOMA_TOKEN": ALICE})
    assert one.by_token(ALICE).name == "owner" and one.by_token(ALICE).role == "owner"
    assert one.by_token(ALICE[:-1]) is None
    cases = {"alice owner short": "at least 16 characters",
             f"alice admin {ALICE}": "role must be owner",
             f"alice owner {ALICE} extra": "expected `name role token`",
             f"al/ice owner {ALICE}": "a name is letters",
             f"alice owner {ALICE}\nbob agent {ALICE}": "the same token is given twice"}
    for text, error in cases.items():
        file = tmp_path / "tokens"
        file.write_text(text + "\n")
        with pytest.raises(AccessError, match=error) as caught:
            load_access(memory_root, ServeConfig(), tokens_file=str(file), environ={})
        assert ALICE not in str(caught.value)
    with pytest.raises(AccessError, match="not an address or network"):
        load_access(memory_root, ServeConfig(trusted_proxies=("proxy.local",)), environ={})
    with pytest.raises(AccessError, match="must be an address such as"):
        load_access(memory_root, ServeConfig(trusted_proxies=("10.0.0.5",), public_url="memory.example"), environ={})
    proxied = load_access(memory_root, ServeConfig(trusted_proxies=("10.0.0.0/24",),
                                                   public_url="https://Memory.Example:8443/"), environ={})
    assert proxied.trusts_proxy("10.0.0.9") and not proxied.trusts_proxy("10.0.1.9")
    assert proxied.public_host() == "memory.example" and proxied.secure_cookies
    assert proxied.by_proxy("10.0.0.9", "alice").name == "alice" and proxied.by_proxy("10.0.1.9", "alice") is None
    assert proxied.by_proxy("10.0.0.9", "ali\u202ece") is None  # a right-to-left override hides what a name says
