"""Agent session folders end to end: indexed, reported, tagged and shown as a user points
tachikoma at them (a folder like ~/.claude/projects or ~/.openclaw, not a git repository)."""

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tachikoma import memory as mem, stats
from tachikoma.indexer import runner
from tachikoma.tagging import applying, planning

from counting_embedder import MINILM_WINDOW, CountingEmbedder

DATA = Path(__file__).parent / "data" / "sessions"
CLAUDE = "claude-code/-home-mira-code-tachikoma/5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218.jsonl"
SUBAGENT = "claude-code/-home-mira-code-tachikoma/5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218/subagents/agent-a7f3c21.jsonl"


@pytest.fixture
def sessions(tmp_path) -> Path:
    root = tmp_path / "agents"
    shutil.copytree(DATA, root)
    return root.resolve()


def chunks_of(root: Path, rel: str) -> list[str]:
    db = sqlite3.connect(mem.index_path(root))
    try:
        return [t for (t,) in db.execute("SELECT c.text FROM chunks c JOIN files f ON f.id = c.file_id "
                                         "WHERE f.path = ? ORDER BY c.idx", (rel,))]
    finally:
        db.close()


def test_session_folder_is_indexed_with_context_and_tool_lines(sessions):
    summary = runner.run(sessions, embedder=CountingEmbedder(MINILM_WINDOW))
    assert summary.files == 8 and summary.skipped == 1  # the data file yields nothing
    assert summary.data_files == 1  # and is counted apart: it is not memory (as stats counts)
    chunks = chunks_of(sessions, CLAUDE)
    assert len(chunks) == 3
    assert chunks[0].startswith("Claude Code session 5c1e7a90 · ~/code/tachikoma · branch sessions · "
                                "claude-sonnet-4-5-20250929\n[2026-02-10, Tuesday 10 February 2026]\n")
    assert chunks[-1].startswith("Claude Code session 5c1e7a90 · ~/code/tachikoma · branch sessions-rebase · ")
    everything = "\n".join(chunks)
    for line in ("[Edit tachikoma/search.py]", "[Bash: git rebase -i main]", "[Read tachikoma/ranking.py]",
                 "[Bash: pytest -q tests/test_search.py] failed"):
        assert line in everything
    assert "TOOL-OUTPUT" not in everything and "SECRET" not in everything
    sub = chunks_of(sessions, SUBAGENT)
    # Named after the Task call in its parent session that gave it its prompt.
    assert len(sub) == 1 and sub[0].startswith("Claude Code subagent Explore (a7f3c21) of session 5c1e7a90")
    assert "\nassistant → subagent Explore: List every function" in sub[0]
    assert "\nsubagent Explore: Two readers use it" in sub[0]


def test_stats_reports_each_problem_once_with_its_kind(sessions):
    before = stats.report(sessions)["problems"]
    assert before == [{"path": "not-a-transcript/prices.jsonl", "kind": "not-a-transcript",
                       "reason": "not a transcript: no line is a message of a known format; not indexed, and not "
                                 "tagged"}]
    (sessions / "openclaw/agents/main/sessions/empty-run.jsonl").write_text(
        json.dumps({"type": "session", "version": 3, "id": "s2", "cwd": "/w"}) + "\n")
    runner.run(sessions, embedder=CountingEmbedder(MINILM_WINDOW))
    problems = stats.report(sessions)["problems"]
    kinds = sorted((p["path"].split("/")[0], p["kind"]) for p in problems)
    assert kinds == [("claude-code", "unknown-lines"), ("codex", "unknown-lines"), ("not-a-transcript",
                     "not-a-transcript"), ("openclaw", "no-turns"), ("openclaw", "unknown-lines")]
    claude = next(p for p in problems if p["path"] == CLAUDE)
    assert claude["reason"] == "line 30: 1 line of an unknown kind skipped (x-future-record ×1)"
    assert "not-a-transcript/prices.jsonl: not a transcript" in stats.format_text(stats.report(sessions))


def test_default_tags_go_to_the_tag_file_at_the_root_without_git(sessions):
    applied = applying.apply(sessions, planning.default_plan(sessions))
    assert applied.commit is None  # not a repository: nothing to commit, the tags are written all the same
    tags = (sessions / mem.TAG_FILE).read_text()
    assert f"{CLAUDE}:\n  trust: self\n  confidence: medium\n  source: claude-code\n" in tags
    assert "prices.jsonl" not in tags
    report = stats.report(sessions)
    assert report["by_kind"]["transcript"]["untagged"] == 0  # the data file is a problem, not counted
    assert report["by_kind"]["transcript"]["percent"]["tagged"] == 100.0
    assert "not-a-transcript/prices.jsonl" in {p["path"] for p in report["problems"]}


def test_appending_to_a_session_embeds_only_the_new_lines_chunks(sessions):
    runner.run(sessions, embedder=CountingEmbedder(MINILM_WINDOW))
    old = chunks_of(sessions, CLAUDE)
    turns = []
    for i in range(12):
        turns.append({"type": "user", "uuid": f"n{i}u", "sessionId": "5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218",
                      "cwd": "/home/mira/code/tachikoma", "gitBranch": "sessions-rebase",
                      "timestamp": f"2026-02-10T10:{i:02d}:00Z",
                      "message": {"role": "user", "content": f"Question {i} about the heat map colours and legend."}})
        turns.append({"type": "assistant", "uuid": f"n{i}a", "sessionId": "5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218",
                      "timestamp": f"2026-02-10T10:{i:02d}:05Z",
                      "message": {"id": f"msg_n{i}", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                                  "content": [{"type": "text", "text": f"Answer {i}: the legend uses five steps."}]}})
    with open(sessions / CLAUDE, "a") as handle:
        handle.write("".join(json.dumps(t) + "\n" for t in turns))
    embedder = CountingEmbedder(MINILM_WINDOW)
    summary = runner.run(sessions, embedder=embedder)
    new = chunks_of(sessions, CLAUDE)
    assert len(old) == 3 and len(new) == 6
    assert summary.changed == 1
    assert new[:len(old) - 1] == old[:-1], "every chunk but the last one keeps its text"
    assert summary.chunks_reused >= len(old) - 1
    assert summary.chunks_embedded == len(new) - (len(old) - 1) == len(embedder.embedded)


def test_file_page_shows_the_session_and_links_a_subagent_to_its_parent(sessions):
    from tachikoma_dashboard.app import create_app

    runner.run(sessions, embedder=CountingEmbedder(MINILM_WINDOW))
    app = create_app(memory=sessions, port=5000)
    client = app.test_client()
    html = client.get(f"/file/{SUBAGENT}", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert "<dt>Agent</dt><dd>Claude Code</dd>" in html
    assert "<dt>Subagent</dt><dd>Explore (a7f3c21)</dd>" in html
    assert f'<dt>Parent session</dt><dd><a href="/file/{CLAUDE}">{CLAUDE}</a></dd>' in html
    html = client.get(f"/file/{CLAUDE}?lines=14-15", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert "<dt>Branch</dt><dd>sessions-rebase</dd>" in html
    assert f'<dt>Subagent file</dt><dd><a href="/file/{SUBAGENT}">agent-a7f3c21.jsonl</a></dd>' in html
    assert "<li><code>[Edit tachikoma/search.py]</code></li>" in html
    assert "lines 14–15" in html and "speaker-summary" in html
    app.extensions["tachikoma"].index_job.wait(30)


def test_an_empty_jsonl_is_a_session_about_to_start_not_a_problem(sessions, capsys):

    empty = "claude-code/-home-mira-code-tachikoma/0e0e0e0e-0000-4000-8000-000000000000.jsonl"
    (sessions / empty).write_bytes(b"")
    summary = runner.run(sessions, embedder=CountingEmbedder(MINILM_WINDOW))
    assert not any("0e0e0e0e" in w for w in summary.warnings)
    report = stats.report(sessions)
    assert not any(p["path"] == empty for p in report["problems"])  # `index` and `stats` agree: nothing wrong
    assert empty in {f["path"] for f in stats.files(sessions, status="untagged")}
    plan = planning.default_plan(sessions)
    assert empty not in {c.path for c in plan.changes}
    assert any(s.path == empty and s.reason.startswith("empty (a session about to start)") for s in plan.skipped)


OPENCLAW = "openclaw/agents/main/sessions/8e2f4c6a-1d3b-4a5c-9e7f-0b2d4f6a8c1e.jsonl"


def test_an_openclaw_reset_archive_is_indexed_as_the_session_it_is(sessions):
    """OpenClaw keeps a session it resets as ``<id>.jsonl.reset.<timestamp>``; in one real folder these
    archives held the two largest conversations, and they were neither indexed nor reported."""
    archive = OPENCLAW.replace(".jsonl", ".jsonl.reset.1767225600000")
    (sessions / OPENCLAW).rename(sessions / archive)
    (sessions / "notes.jsonl.deleted.1767225600000").write_text("{}\n")  # a deleted one stays out
    assert mem.kind_of(archive) == "transcript" and mem.kind_of("notes.jsonl.deleted.1767225600000") is None
    runner.run(sessions, embedder=CountingEmbedder(MINILM_WINDOW))
    chunks = chunks_of(sessions, archive)
    assert chunks and chunks[0].startswith("OpenClaw session")
