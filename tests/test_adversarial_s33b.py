"""Adversarial tests of session 33's weight-balance note (`stats.weight_balance`) and its function words."""

from __future__ import annotations

import json
from pathlib import Path

from flask.testing import FlaskClient

from tachikoma import cli, stats
from tachikoma.mcp_server import MemoryTools
from tachikoma.memory import TAG_FILE
from tachikoma_dashboard.app import create_app
from test_stats import TURN, notes_and_tagged_chats, put

#: Settings under which an untagged file weighs as much as an owner's: nothing outranks an untagged note.
EVEN = "[ranking.trust]\nmissing = 1.0\n[ranking.confidence]\nmissing = 1.0\n"


def even_settings(tmp_path: Path) -> Path:
    """A settings file outside the memory, given with --config (the memory has no tachikoma.toml)."""
    path = tmp_path / "even.toml"
    path.write_text(EVEN, encoding="utf-8")
    return path


def test_stats_weighs_with_the_settings_file_given_by_config(tmp_path, capsys):
    # `tachikoma --config even.toml search` ranks untagged notes as high as an owner's; `stats` with the
    # same --config said they weighed 0.42 against 0.81 and told the user to tag them.
    root = notes_and_tagged_chats(tmp_path / "memory")
    even = even_settings(tmp_path)
    assert stats.coverage(root)["balance"] is not None  # the memory's own (default) settings: the note is due
    assert cli.main(["--memory", str(root), "--config", str(even), "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["balance"] is None
    assert cli.main(["--memory", str(root), "--config", str(even), "stats"]) == 0
    assert "weights:" not in capsys.readouterr().out


def test_the_dashboard_and_mcp_weigh_with_their_settings_file(tmp_path):
    root = notes_and_tagged_chats(tmp_path / "memory")
    even = even_settings(tmp_path)
    app = create_app(memory=root, config=even, port=5000)
    app.test_client_class = FlaskClient
    try:
        client = app.test_client()
        html = client.get("/coverage", base_url="http://127.0.0.1:5000").get_data(as_text=True)
        api = client.get("/api/stats", base_url="http://127.0.0.1:5000").get_json()
    finally:
        app.extensions["tachikoma"].index_job.wait(30)
    assert "What the tags do to ranking" not in html and api["balance"] is None
    tools = MemoryTools(root, str(even), watch=False)
    try:
        assert tools.stats()["balance"] is None
    finally:
        tools.live.close()


def test_one_heavier_file_is_named_in_the_singular(tmp_path):
    # "… against 0.81 for 1 transcript: those outrank an untagged note …": one transcript is not "those".
    root = tmp_path / "memory"
    put(root, "a.md", "# A\n\nbody\n")
    put(root, "2026-03/s.jsonl", TURN)
    put(root, TAG_FILE, "2026-03/s.jsonl:\n  trust: self\n  confidence: medium\n")
    text = stats.coverage(root)["balance"]["text"]
    assert text == ("1 of 1 note is untagged and weighs 0.42 (trust × confidence) against 0.81 for 1 transcript: "
                    "that transcript outranks an untagged note unless it matches 1.9 times as well")
    put(root, "b.md", "---\ntrust: owner\nconfidence: high\n---\nbody\n")
    put(root, "c.md", "body\n")
    two = stats.coverage(root)["balance"]["text"]  # 1 note and 1 transcript: two files, "those"
    assert "for 1 note and 1 transcript: those outrank an untagged note" in two


def test_a_tiny_untagged_weight_is_not_shown_as_zero(tmp_path):
    # [ranking.trust] missing = 0.05 and [ranking.confidence] missing = 0.05 (bury untagged notes): they weigh
    # 0.0025, shown as "0.00" beside "unless it matches 400.0 times as well".
    root = notes_and_tagged_chats(tmp_path / "memory")
    put(root, "tachikoma.toml", "[ranking.trust]\nmissing = 0.05\n[ranking.confidence]\nmissing = 0.05\n")
    balance = stats.coverage(root)["balance"]
    assert balance["untagged_weight"] == 0.0025
    assert "untagged and weigh 0.0025 (trust × confidence) against 0.81 to 1.00" in balance["text"]
    assert "unless it matches 324.0 times as well" in balance["text"]
