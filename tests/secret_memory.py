"""A git memory holding secrets (fake, realistic in format): a note and a Claude Code session whose tool output
printed an ``.env``, beside a git SHA, a UUID and a sha256 that must stay as they are. For the tests of
redaction (`tachikoma.redaction`, docs/privacy.md) on every face."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from gitrepo import git


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


#: Each value would be a secret; none is real ("FAKE", "NOT", "REAL" spelt into each).
SECRETS = {
    "aws_id": "AKIAFAKE0NOT0REAL000",
    "aws_secret": "fAkE0nOt0ReAl0kEy/FaKe0NoT0rEaL0KeY0FAKE",
    "stripe": "sk_live_FAKE0notREAL0fake0notREAL0fake0notREAL00",
    "github": "ghp_FAKE0notREAL0fake0notREAL0fake0notRE",
    "slack": "xoxb-000000000000-000000000000-FAKEnotREALfake0000",
    "openai": "sk-proj-FAKE0notREAL0fake0notREAL0fake0notREAL0fake0notREAL",
    "password": "FakePass0000notreal9",
    "db_password": "FakeDbPassw0rd0notreal",
    "jwt": f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64({'sub': 'fake-user', 'note': 'not a real token'})}"
           ".ZmFrZXNpZ25hdHVyZWZha2VzaWduYXR1cmU",
    "pem_body": "MIIEowIBAAKCAQEAfakeFAKEfakeFAKEnotREALnotREALnotREALfakeFAKEfake",
}
#: What redaction must leave alone, in the same files.
KEPT = {
    "sha": "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
}

NOTE = f"""---
title: Deploying the billing service
---
# Deploying the billing service

The deploy of commit {KEPT['sha']} went out on Tuesday; request {KEPT['uuid']} was the first to hit it.
The artefact's sha256 is {KEPT['sha256']}.

Staging credentials, until the vault migration is done:

    STRIPE_SECRET_KEY={SECRETS['stripe']}
    password: {SECRETS['password']}
    DATABASE_URL=postgres://billing:{SECRETS['db_password']}@db.internal:5432/billing

The deploy key:

-----BEGIN RSA PRIVATE KEY-----
{SECRETS['pem_body']}
ZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtl
-----END RSA PRIVATE KEY-----

The billing webhook retries three times.
"""

SESSION_ID = "7d0c9a1e-5b3f-4e2a-9c8d-1f2e3a4b5c6d"
ENV_OUTPUT = "\n".join([
    f"AWS_ACCESS_KEY_ID={SECRETS['aws_id']}",
    f"AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']}",
    f"GITHUB_TOKEN={SECRETS['github']}",
    f"SLACK_BOT_TOKEN={SECRETS['slack']}",
    f"OPENAI_API_KEY={SECRETS['openai']}",
    f"SESSION_JWT={SECRETS['jwt']}",
    f"BUILD_COMMIT={KEPT['sha']}",
])


def _line(kind: str, uuid: str, at: str, content) -> dict:
    return {"parentUuid": None, "isSidechain": False, "sessionId": SESSION_ID, "cwd": "/home/mira/code/billing",
            "gitBranch": "main", "version": "2.0.31", "type": kind, "uuid": uuid, "timestamp": at,
            "message": {"role": kind, "content": content}}


SESSION_LINES = [
    _line("user", "u-1", "2026-06-01T09:00:00.000Z", "why does the AWS upload fail? check the environment"),
    _line("assistant", "a-1", "2026-06-01T09:00:05.000Z", [
        {"type": "text", "text": "Let me look at the AWS variables the service sees."},
        {"type": "tool_use", "id": "toolu_01", "name": "Bash",
         "input": {"command": "env | grep -E 'AWS|TOKEN|KEY|JWT|COMMIT'"}}]),
    _line("user", "u-2", "2026-06-01T09:00:06.000Z", [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": ENV_OUTPUT}]),
    _line("assistant", "a-2", "2026-06-01T09:00:10.000Z", [
        {"type": "text", "text": f"The AWS secret access key is set; the upload fails because the bucket policy "
                                 f"denies commit {KEPT['sha']}'s role. Request {KEPT['uuid']} shows it."}]),
]

NOTE_PATH = "notes/deploy.md"
SESSION_PATH = f"sessions/-home-mira-code-billing/{SESSION_ID}.jsonl"


def secret_memory(root: Path, settings: str = '[embedder]\nname = "hash"\n') -> Path:
    """The memory at `root`, committed to git."""
    (root / "notes").mkdir(parents=True)
    (root / NOTE_PATH).write_text(NOTE, encoding="utf-8")
    (root / SESSION_PATH).parent.mkdir(parents=True)
    (root / SESSION_PATH).write_text("".join(json.dumps(line) + "\n" for line in SESSION_LINES), encoding="utf-8")
    (root / "notes" / "plain.md").write_text("# Groceries\n\nOat milk, rye bread, apples.\n", encoding="utf-8")
    (root / "tachikoma.toml").write_text(settings, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory", date="2026-06-01T12:00:00+00:00")
    return root


def _pieces(value: str) -> list[str]:
    """What of a value would show it: the value, and its longest run of letters and digits in lower case (as
    a keyword index holds its words)."""
    runs = sorted(re.findall(r"[A-Za-z0-9]+", value), key=len)
    return [value, runs[-1].lower()]


def leaked(text: str) -> list[str]:
    """The names of the secrets whose value `text` holds, whole or as a keyword index's word."""
    lowered = text.lower()
    return [name for name, value in SECRETS.items()
            if value in text or any(piece in lowered for piece in _pieces(value)[1:])]


def index_bytes(root: Path) -> str:
    """Every byte of the SQLite index (its file, WAL and shared memory), as text."""
    return b"".join(p.read_bytes() for p in sorted((root / ".cache").glob("index.db*"))).decode("latin-1")
