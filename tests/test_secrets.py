"""Secrets in memory are redacted on every face (`tachikoma.redaction`, docs/privacy.md): a real git memory with a
note and a Claude Code session holding fake keys, indexed into a real SQLite file; the values appear nowhere in the
index's bytes, the command line's output, `/api/search`, the dashboard's file page, nor MCP `search` and `read`,
while the git SHA, UUID and sha256 beside them stay; ``[privacy] redact_secrets = false`` shows them."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from mcp import Client

from gitrepo import CHECKOUT, git, run_python
from mcp_helpers import stdio_server
from secret_memory import KEPT, NOTE, NOTE_PATH, SECRETS, SESSION_PATH, index_bytes, leaked, secret_memory
from tachikoma.redaction import redact_jsonl_line, redact_text
from web_helpers import Client as WebClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def tachikoma(root, *args: str) -> str:
    done = run_python("-m", "tachikoma", *args, "--memory", str(root))
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.fixture
def mem(tmp_path):
    root = secret_memory(tmp_path / "memory")
    out = tachikoma(root, "index")
    assert "10 secrets redacted in 2 files" in out and not leaked(out), out
    return root


def test_every_kind_of_key_is_replaced_by_what_it_was_and_the_lines_stay():
    text, count = redact_text(NOTE)
    assert not leaked(text) and len(text.split("\n")) == len(NOTE.split("\n"))
    assert all(value in text for value in KEPT.values())
    assert "STRIPE_SECRET_KEY=[secret: Stripe key]" in text and "password: [secret: password]" in text
    assert "postgres://billing:[secret: password in URL]@db.internal" in text
    assert "[secret: private key]" in text and "The billing webhook retries three times." in text
    assert count == 4
    from secret_memory import ENV_OUTPUT

    env, count = redact_text(ENV_OUTPUT)
    assert not leaked(env) and count == 6 and KEPT["sha"] in env
    assert env.split("\n")[:3] == ["AWS_ACCESS_KEY_ID=[secret: AWS key]",
                                   "AWS_SECRET_ACCESS_KEY=[secret: AWS secret key]",
                                   "GITHUB_TOKEN=[secret: GitHub token]"]
    line = json.dumps({"message": {"content": [{"type": "tool_result", "content": ENV_OUTPUT}]}})
    raw, count = redact_jsonl_line(line)
    assert count == 6 and not leaked(raw) and json.loads(raw)["message"]["content"][0]["type"] == "tool_result"
    plain = json.dumps({"message": {"content": f"commit {KEPT['sha']}"}})
    assert redact_jsonl_line(plain) == (plain, 0)  # a line without a secret stays byte for byte


def test_what_is_not_a_secret_is_left_alone():
    for text in ("the secret: patience", "Passwords: 1Password, the Home vault", "password: ********",
                 "api_key: ${API_KEY}", "PWD=/home/mira/code", "Secret: STRIPE_WEBHOOK_SECRET (staging has its own)",
                 f"commit {KEPT['sha']} {KEPT['uuid']} {KEPT['sha256']}", "postgres://billing:…@db:5432/billing",
                 "sk-learn is not a key", "token = get_token()"):
        assert redact_text(text) == (text, 0), text


def test_the_index_file_and_the_command_line_never_hold_the_values(mem):
    stored = index_bytes(mem)
    assert not leaked(stored) and "STRIPE_SECRET_KEY=[secret: Stripe key]" in stored
    assert all(value in stored for value in KEPT.values())  # the SHA, the UUID and the hash are still searchable
    found = json.loads(tachikoma(mem, "search", "AWS secret access key", "--json"))
    assert found["results"][0]["path"] == SESSION_PATH  # the key's name is still text: it ranks
    assert not leaked(json.dumps(found))
    excerpt = json.loads(tachikoma(mem, "search", "GITHUB_TOKEN SLACK_BOT_TOKEN", "--json"))["results"][0]
    assert "GITHUB_TOKEN=[secret: GitHub token] SLACK_BOT_TOKEN=[secret: Slack token]" in \
        excerpt["tool_matches"][0]["excerpt"]  # a tool call's output, read back from the file
    for args in (("search", "AWS secret access key"), ("search", "staging credentials stripe password"),
                 ("search", "AWS secret access key", "--budget", "600"), ("search", "GITHUB_TOKEN", "--json")):
        assert not leaked(tachikoma(mem, *args)), args
    assert KEPT["sha"] in tachikoma(mem, "search", KEPT["sha"])
    stats = json.loads(tachikoma(mem, "stats", "--json"))
    assert stats["index"]["secrets_redacted"] == {"secrets": 10, "files": 2}


def test_the_files_are_never_changed_and_tagging_keeps_a_note_body_byte_for_byte(mem):
    before = (mem / NOTE_PATH).read_bytes()
    tachikoma(mem, "tag", NOTE_PATH, "--trust", "owner", "--confidence", "high")
    after = (mem / NOTE_PATH).read_bytes()
    assert after != before and after.endswith(before.split(b"---\n", 2)[2])  # new tags, the body as it was
    assert SECRETS["stripe"].encode() in after  # the file is the truth: redaction is what tachikoma shows
    assert git(mem, "status", "--porcelain") == ""


def make_client(app):
    app.test_client_class = WebClient
    return app.test_client()


def test_the_dashboard_api_and_file_pages(mem):
    from tachikoma_dashboard.app import create_app

    app = create_app(memory=mem, port=5000)
    try:
        client = make_client(app)
        answer = client.get("/api/search", query_string={"q": "AWS secret access key"})
        assert answer.status_code == 200 and answer.get_json()["results"]
        assert not leaked(answer.get_data(as_text=True))
        budgeted = client.get("/api/search", query_string={"q": "AWS secret access key", "budget_tokens": 600})
        assert budgeted.status_code == 200 and not leaked(budgeted.get_data(as_text=True))
        page = client.get("/", query_string={"q": "staging credentials stripe password"})
        assert page.status_code == 200 and not leaked(page.get_data(as_text=True))
        for path in (NOTE_PATH, SESSION_PATH):
            shown = client.get(f"/file/{path}", query_string={"lines": "1-40"}).get_data(as_text=True)
            assert "[secret: " in shown and not leaked(shown), path
            assert KEPT["sha"] in shown
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


def test_mcp_search_and_read(mem):
    params = stdio_server(mem, "--no-watch")

    async def scenario():
        async with Client(params) as client:
            out = []
            for name, arguments in (("search", {"query": "AWS secret access key"}),
                                    ("search", {"query": "AWS secret access key", "limit": 5}),
                                    ("read", {"path": NOTE_PATH}), ("read", {"path": NOTE_PATH, "lines": "12-20"}),
                                    ("read", {"path": SESSION_PATH}), ("read", {"path": SESSION_PATH, "view": "raw"})):
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, result.content[0].text)
                out.append(result.content[0].text + json.dumps(result.structured_content))
            return out

    answers = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    for answer in answers:
        assert not leaked(answer), answer[:400]
    assert "[secret: private key]" in answers[2] and "[secret: AWS key]" in answers[5]
    assert KEPT["uuid"] in answers[2] and KEPT["sha"] in answers[5]


def test_the_setting_off_shows_them_and_changing_it_reads_every_file_again(mem):
    (mem / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n\n[privacy]\nredact_secrets = false\n')
    out = tachikoma(mem, "index")
    assert "3 re-chunked" in out and "redacted" not in out, out
    assert set(leaked(index_bytes(mem))) >= {"aws_id", "aws_secret", "stripe", "github", "password"}
    assert "stripe" in leaked(tachikoma(mem, "search", "staging credentials stripe password", "--json"))
    assert {"github", "slack"} <= set(leaked(tachikoma(mem, "search", "GITHUB_TOKEN SLACK_BOT_TOKEN", "--json")))
    assert json.loads(tachikoma(mem, "stats", "--json"))["index"]["secrets_redacted"] == {"secrets": 0, "files": 0}
    (mem / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n')  # and on again
    assert "10 secrets redacted in 2 files" in tachikoma(mem, "index")
    assert not leaked(index_bytes(mem))


def test_a_bad_setting_is_refused_with_its_name(tmp_path):
    root = secret_memory(tmp_path / "memory", '[privacy]\nredact_secrets = "yes"\n')
    done = subprocess.run([sys.executable, "-m", "tachikoma", "index", "--memory", str(root)], capture_output=True,
                          text=True, env={"PYTHONPATH": str(CHECKOUT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1 and "privacy.redact_secrets must be true or false" in done.stderr
