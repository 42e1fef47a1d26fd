"""OpenClaw heartbeats and checkpoint copies stay out of results, and every one is reported (issue 19, item 4)."""

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tachikoma import memory as mem, stats
from tachikoma.indexer import runner
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.search.searcher import Searcher
from tachikoma.transcripts import parse_transcript

SESSIONS = "agents/main/sessions"
POLL = ("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, "
        "reply HEARTBEAT_OK.")


def _message(n: int, role: str, content, **extra) -> dict:
    return {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n > 1 else None,
            "timestamp": f"2026-04-01T{n // 60:02d}:{n % 60:02d}:00Z",
            "message": {"role": role, "content": content, **extra}}


def heartbeat_session() -> list[dict]:
    lines = [{"type": "session", "version": 3, "id": "hb-0001", "timestamp": "2026-04-01T00:00:00Z",
              "cwd": "/home/ana/.openclaw/workspace"}]
    n = 1
    for i in range(6):  # six quiet polls, one of which reads HEARTBEAT.md first
        lines.append(_message(n, "user", [{"type": "text", "text": POLL}]))
        n += 1
        if i == 2:
            lines.append(_message(n, "assistant", [{"type": "toolCall", "id": f"t{i}", "name": "read",
                                                    "arguments": {"path": "HEARTBEAT.md"}}], model="claude-opus-4"))
            n += 1
            lines.append(_message(n, "toolResult", [{"type": "text", "text": "# HEARTBEAT.md\n- check the backups"}],
                                  toolCallId=f"t{i}", toolName="read"))
            n += 1
        lines.append(_message(n, "assistant", [{"type": "text", "text": "HEARTBEAT_OK"}], model="claude-opus-4"))
        n += 1
    # a poll that found something: kept whole
    lines.append(_message(n, "user", [{"type": "text", "text": POLL}]))
    lines.append(_message(n + 1, "assistant", [{"type": "text", "text": "The nightly backup of the wiki failed "
                                                                         "twice: disk quota on /srv/backups."}]))
    lines.append(_message(n + 2, "user", [{"type": "text", "text": "Raise the backup quota to 80 GB."}]))
    lines.append(_message(n + 3, "assistant", [{"type": "text", "text": "Done: the quota is 80 GB. HEARTBEAT_OK"}]))
    return lines


def _write(path: Path, lines: list[dict]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return text


def test_quiet_heartbeats_are_left_out_and_counted_and_an_alert_is_kept():
    text = "".join(json.dumps(line) + "\n" for line in heartbeat_session())
    transcript = parse_transcript(text, f"{SESSIONS}/hb.jsonl")
    said = [t.text for t in transcript.turns]
    assert not any(t == "HEARTBEAT_OK" for t in said)
    assert not any("check the backups" in x.text for t in transcript.turns for x in t.tool_texts)
    assert transcript.heartbeats == 6 * 2 + 1  # six polls and their answers, and the turn that read HEARTBEAT.md
    assert said[0] == POLL and "disk quota" in said[1]  # the poll that found something, and its answer
    assert said[-1] == "Done: the quota is 80 GB. HEARTBEAT_OK"  # more than the token: kept
    assert [w.split(": ", 1)[1] for w in transcript.warnings] == [
        "13 heartbeat turns not indexed (polls answered HEARTBEAT_OK: nothing to report)"]


def test_a_session_of_heartbeats_only_is_reported_as_such_not_as_empty():
    lines = heartbeat_session()[:4]  # header, poll, answer, poll
    lines.append(_message(4, "assistant", [{"type": "text", "text": " HEARTBEAT_OK\n"}]))
    transcript = parse_transcript("".join(json.dumps(x) + "\n" for x in lines), "hb.jsonl")
    assert transcript.turns == [] and transcript.heartbeats == 4
    assert len(transcript.warnings) == 1 and "heartbeat turns not indexed" in transcript.warnings[0]


@pytest.fixture
def openclaw(tmp_path) -> Path:
    root = (tmp_path / "openclaw").resolve()
    folder = root / SESSIONS
    text = _write(folder / "s1.jsonl", heartbeat_session())
    first = text.split("\n")
    (folder / "s1.checkpoint.0c1d.jsonl").write_text("\n".join(first[:12]) + "\n", encoding="utf-8")  # a copy
    # a checkpoint holding a line its session lost: indexed, nothing is lost
    lost = _message(90, "user", [{"type": "text", "text": "Remember the gate code is 4417."}])
    (folder / "s1.checkpoint.9f8e.jsonl").write_text("\n".join(first[:3] + [json.dumps(lost)]) + "\n",
                                                     encoding="utf-8")
    # a checkpoint of a session that is gone: the only copy left, indexed
    _write(folder / "s2.checkpoint.77aa.jsonl", [heartbeat_session()[0], _message(
        1, "user", [{"type": "text", "text": "Order more printer toner."}])])
    return root


def _paths_with_chunks(root: Path) -> dict[str, int]:
    db = sqlite3.connect(mem.index_path(root))
    try:
        return dict(db.execute("SELECT f.path, count(c.id) FROM files f LEFT JOIN chunks c ON c.file_id = f.id "
                               "GROUP BY f.path"))
    finally:
        db.close()


def test_a_checkpoint_copy_is_indexed_once_and_reported(openclaw):
    summary = runner.run(openclaw, embedder=HashingEmbedder(256))
    held = _paths_with_chunks(openclaw)
    assert held[f"{SESSIONS}/s1.jsonl"] > 0
    assert held[f"{SESSIONS}/s1.checkpoint.0c1d.jsonl"] == 0  # every line is in s1.jsonl
    assert held[f"{SESSIONS}/s1.checkpoint.9f8e.jsonl"] > 0  # holds a line s1 does not
    assert held[f"{SESSIONS}/s2.checkpoint.77aa.jsonl"] > 0  # s2.jsonl is gone
    assert summary.skipped == 1
    problems = {(p["path"], p["kind"]) for p in stats.report(openclaw)["problems"]}
    assert (f"{SESSIONS}/s1.checkpoint.0c1d.jsonl", "checkpoint-copy") in problems
    assert (f"{SESSIONS}/s1.jsonl", "heartbeats") in problems
    searcher = Searcher(openclaw, embedder=HashingEmbedder(256))
    try:
        answer = searcher.search("wiki backup quota", min_score=0)
    finally:
        searcher.close()
    assert [r["path"] for r in answer["results"]].count(f"{SESSIONS}/s1.jsonl") >= 1
    assert all("checkpoint.0c1d" not in r["path"] for r in answer["results"])
    assert all("HEARTBEAT_OK" != r["text"].rsplit(": ", 1)[-1] for r in answer["results"])


def test_a_checkpoint_is_indexed_once_its_session_is_gone(openclaw):
    runner.run(openclaw, embedder=HashingEmbedder(256))
    session = openclaw / SESSIONS / "s1.jsonl"
    shutil.move(session, openclaw / "elsewhere.bak")  # the session file is gone (not memory any more)
    runner.run(openclaw, embedder=HashingEmbedder(256))
    assert _paths_with_chunks(openclaw)[f"{SESSIONS}/s1.checkpoint.0c1d.jsonl"] > 0
