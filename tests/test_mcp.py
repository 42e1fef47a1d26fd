"""`tachikoma mcp` spawned as a subprocess and driven by the official MCP SDK's own stdio client."""

import asyncio
import errno
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from gitrepo import git
from mcp_helpers import stdio_server
from tachikoma.humanize import plural

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MINILM = '[embedder]\nname = "minilm"\n'


server = stdio_server  # a server run from the tree under test (other tests import it from here)


def run(scenario):
    """Run an async scenario (the SDK's client is async; the tests stay plain functions)."""
    return asyncio.run(asyncio.wait_for(scenario(), timeout=120))


async def call(client: Client, name: str, arguments: dict) -> tuple[bool, str, dict | None]:
    result = await client.call_tool(name, arguments)
    return result.is_error, result.content[0].text, result.structured_content


async def until(check, seconds: float = 30.0):
    """Poll the async `check` until it returns something true; its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = await check()
        if value or time.monotonic() > deadline:
            return value
        await asyncio.sleep(0.2)


@pytest.fixture
def mem(git_memory: Path) -> Path:
    """The example memory in git, with the offline MiniLM named in its settings (so no Ollama probe)."""
    (git_memory / "tachikoma.toml").write_text(MINILM)
    git(git_memory, "add", "tachikoma.toml")
    git(git_memory, "commit", "-q", "-m", "settings")
    return git_memory


def test_tools_listed_with_annotations_and_read_only_leaves_out_writers(mem):
    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        async with Client(server(mem, "--no-watch", "--read-only")) as client:
            read_only = {t.name for t in (await client.list_tools()).tools}
        return tools, read_only

    tools, read_only = run(scenario)
    assert set(tools) == {"search", "read", "stats", "remember", "tag"}
    assert read_only == {"search", "read", "stats"}
    for name in ("search", "read", "stats"):
        assert tools[name].annotations.read_only_hint is True
    assert tools["remember"].annotations.read_only_hint is False
    assert tools["remember"].annotations.destructive_hint is False
    assert tools["tag"].annotations.destructive_hint is True
    assert set(tools["search"].input_schema["properties"]) == {"query", "limit", "kind", "trust", "min_score",
                                                               "recency", "as_of", "memories", "budget_tokens", "fresh_only",
                                                               "untagged", "path", "source"}
    assert set(tools["remember"].input_schema["properties"]) == {"text", "title", "folder", "trust", "confidence",
                                                                 "source"}
    assert set(tools["tag"].input_schema["properties"]) == {"paths", "trust", "confidence", "source"}
    assert set(tools["read"].input_schema["properties"]) == {"path", "lines", "view", "memory"}
    assert "no_good_match" in tools["search"].description  # tells a model how to read the answer


def test_search_matches_the_cli_and_says_no_good_match(mem):
    subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "index", "-q"], check=True)

    def cli(*extra: str) -> dict:
        return json.loads(subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "search", "--json",
                                          "when does Martin like meetings", *extra],
                                         check=True, capture_output=True, text=True).stdout)

    asked, seeded = cli("--limit", "5"), cli("--recency", "seed")

    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            found = await call(client, "search", {"query": "when does Martin like meetings", "limit": 5})
            nonsense = await call(client, "search", {"query": "zxqv blorf", "budget_tokens": 0})
            floored = await call(client, "search", {"query": "when does Martin like meetings", "min_score": 0.99,
                                                     "budget_tokens": 0})
            markdown = await call(client, "search", {"query": "Martin", "kind": "markdown", "trust": "owner", "budget_tokens": 0})
            seed = await call(client, "search", {"query": "when does Martin like meetings", "recency": "seed",
                                                  "budget_tokens": 0})
            return found, nonsense, floored, markdown, seed

    found, nonsense, floored, markdown, seed = run(scenario)
    error, text, data = found
    assert not error and not data["no_good_match"]
    assert [(r["path"], r["lines"]) for r in data["results"]] == [(r["path"], r["lines"]) for r in asked["results"]]
    # The same scores, to 3 decimals (recency moves by the seconds between the two searches).
    assert [r["score"] for r in data["results"]] == pytest.approx([r["score"] for r in asked["results"]], abs=2e-3)
    best = data["results"][0]
    assert best["why"] and best["date"] == asked["results"][0]["factors"]["date"][:10]
    assert best["trust"] == asked["results"][0]["tags"].get("trust")
    assert data["freshness"]["changed_since"] == 0 and data["freshness"]["last_indexed_at"]
    assert data["freshness"]["watching"] is False
    assert f"   — {best['path']}:{best['lines'][0]}-{best['lines'][1]} · {best['date']} · (" in text
    shown = re.search(rf"· score (\d\.\d{{3}}); {re.escape(best['why'])}\n", text)  # 3 decimals; the JSON 4
    assert shown and abs(float(shown[1]) - best["score"]) <= 6e-4, text
    error, text, data = nonsense
    assert not error and data["no_good_match"] is True and data["results"] == []
    assert text == data["reason"]  # why, and what to try, on one line; nothing to act on about the index
    assert text.startswith('No memory matches "zxqv blorf": nothing is close enough in meaning (best ')
    assert text.endswith("min_score: 0 shows the nearest passages anyway.")
    assert floored[2]["no_good_match"] is True and "floor 0.99" in floored[2]["reason"], floored[2]
    assert markdown[2]["results"]
    assert all(r["path"].endswith(".md") and r["trust"] == "owner" for r in markdown[2]["results"])
    error, text, data = seed
    assert not error  # seed's scores, as the command line's with --recency seed (an agent's reply names no preset)
    assert [(r["path"], r["lines"]) for r in data["results"]] == [(r["path"], r["lines"]) for r in seeded["results"]]
    assert [r["score"] for r in data["results"]] == pytest.approx([r["score"] for r in seeded["results"]], abs=2e-3)
    assert [r["score"] for r in seeded["results"]] != pytest.approx([r["score"] for r in cli()["results"]], abs=2e-3)


def test_no_good_match_in_a_stale_index_does_not_say_the_memory_holds_nothing(mem):
    """Files changed since the last index run (a first build under way, the watcher off): an empty
    answer must not tell the model that the memory holds nothing relevant."""
    subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "index", "-q"], check=True)
    (mem / "boat.md").write_text("# Boat\n\nThe catamaran Wavedancer is moored at pier seven in Kiel.\n")

    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            return await call(client, "search", {"query": "Wavedancer catamaran pier", "min_score": 0.99,
                                                        "budget_tokens": 0})

    error, text, data = run(scenario)
    assert not error and data["no_good_match"] is True and data["freshness"]["changed_since"] == 1
    assert "nothing in the memory" not in text
    from tachikoma.humanize import NOT_UP_TO_DATE

    assert text.startswith(f'No memory matches "Wavedancer catamaran pier": {NOT_UP_TO_DATE}.\n')
    assert "1 file changed since" in text and data["reason"] == text.split("\n")[0]


def test_no_good_match_while_a_run_is_unfinished_says_so():
    """Right after the server starts (its run under way) or after an interrupted run, no file changed since:
    the answer said "the index is not up to date: search again once it is" over "0 files changed since"."""
    from tachikoma.humanize import NOT_UP_TO_DATE, RUN_NOT_FINISHED
    from tachikoma.mcp_answers import answer_text
    from tachikoma.replies.recall import within_budget

    fresh = {"state": "incomplete", "last_indexed_at": "2026-12-05T10:00:00+00:00", "changed_since": 0}
    answer = {"query": "Who fixed the boiler?", "no_good_match": True, "freshness": fresh, "results": []}
    text = answer_text(answer)
    assert text.splitlines()[0].endswith(f"{RUN_NOT_FINISHED}.") and NOT_UP_TO_DATE not in text
    assert "0 files changed since" in text
    budgeted = answer_text(within_budget({**answer, "match": {}, "min_score": 0.44}, 60, None))
    assert budgeted == f'No memory matches "Who fixed the boiler?": {RUN_NOT_FINISHED}.'
    changed = answer_text({**answer, "freshness": {**fresh, "changed_since": 2}})
    assert NOT_UP_TO_DATE in changed and "2 files changed since" in changed


def test_bad_arguments_are_tool_errors_and_the_server_lives_on(mem):
    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            outcomes = [await call(client, name, args) for name, args in [
                ("search", {"query": ""}),
                ("search", {"query": "x", "limit": 0}),
                ("search", {"query": "x", "limit": "many"}),
                ("search", {"query": "x", "min_score": 2}),
                ("search", {"query": "x", "kind": "video"}),
                ("search", {}),
                ("search", {"query": "x", "recency": "sometimes"}),
                ("read", {"path": "../../etc/passwd"}),
                ("read", {"path": "/etc/passwd"}),
                ("read", {"path": ".git/config"}),
                ("read", {"path": "tachikoma.toml"}),
                ("read", {"path": "martin.md", "lines": "900-950"}),
                ("read", {"path": "martin.md", "lines": "all"}),
                ("tag", {"paths": ["martin.md"], "trust": "maybe"}),
                ("tag", {"paths": ["martin.md"]}),
                ("tag", {"paths": ["../outside.md"], "trust": "self"}),
                ("tag", {"paths": ["nowhere.md"], "trust": "self"}),
                ("remember", {"text": "   "}),
                ("remember", {"text": "x", "folder": "../escape"}),
                ("remember", {"text": "x", "folder": ".git"}),
                ("no_such_tool", {}),
            ]]
            alive = await call(client, "read", {"path": "martin.md", "lines": "1-2"})
            return outcomes, alive

    outcomes, alive = run(scenario)
    for error, text, _ in outcomes:
        assert error, text
        assert "Traceback" not in text
    assert "not a path inside the memory folder" in outcomes[7][1]
    assert "not a memory file" in outcomes[10][1]
    assert "not within" in outcomes[11][1]
    assert "trust" in outcomes[13][1]
    assert "say what to set" in outcomes[14][1]
    assert "not a memory file" in outcomes[16][1]
    assert not alive[0] and alive[2]["lines"] == [1, 2]
    assert not (mem.parent / "escape").exists() and not (mem.parent / "outside.md").exists()
    assert git(mem, "status", "--porcelain") == ""  # nothing written by any refused call


def test_read_whole_file_and_a_range(mem):
    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            return (await call(client, "read", {"path": "martin.md"}),
                    await call(client, "read", {"path": "martin.md", "lines": "2-3"}))

    (error, text, whole), (_, range_text, part) = run(scenario)
    lines = (mem / "martin.md").read_text().splitlines()
    assert not error and whole["text"].splitlines() == lines and whole["total_lines"] == len(lines)
    assert part["text"].splitlines() == lines[1:3] and part["lines"] == [2, 3]
    assert range_text.splitlines()[1].strip() == f"2  {lines[1]}".strip()


SESSION = (Path(__file__).parent / "data" / "sessions" / "claude-code" / "-home-mira-code-tachikoma"
           / "5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218.jsonl")


def test_read_gives_a_transcript_as_turns_raw_on_request_and_a_long_one_by_line_range(mem):
    (mem / "session.jsonl").write_bytes(SESSION.read_bytes())
    size = SESSION.stat().st_size
    (mem / "tachikoma.toml").write_text(MINILM + f"[index]\nmax_file_bytes = {size - 1}\n")  # over the limit

    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            return (await call(client, "read", {"path": "session.jsonl"}),
                    await call(client, "read", {"path": "session.jsonl", "lines": "1-20"}),
                    await call(client, "read", {"path": "session.jsonl", "lines": "9-11"}),
                    await call(client, "read", {"path": "session.jsonl", "lines": "19", "view": "raw"}),
                    await call(client, "read", {"path": "martin.md", "lines": "1-2", "view": "turns"}),
                    await call(client, "read", {"path": "martin.md", "lines": "1-2", "view": "raw"}))

    whole, turns, some, raw, note, raw_note = run(scenario)
    assert whole[0] and f"session.jsonl is {size:,} bytes" in whole[1] and "ask for a line range" in whole[1]
    error, text, answer = turns
    assert not error and answer["view"] == "turns" and answer["total_lines"] == 30
    assert text.startswith("session.jsonl lines 1-20 of 30: 8 turns; thinking, tool output and images left out")
    assert "[line 7 · user · 2026-02-10 09:01 UTC]\n> Why does the search page rank the old rate-limiter note" in text
    assert "[line 9-11 · assistant · 2026-02-10 09:01 UTC]\n> Let me look at how recency is computed.\n" \
           "> [Read tachikoma/ranking.py]" in text
    assert answer["context"].startswith("Claude Code session 5c1e7a90 · ~/code/tachikoma")
    for raw_only in ("SECRET-THOUGHT", "TOOL-OUTPUT", "iVBORw0KGgo", '"parentUuid"'):
        assert raw_only not in text and raw_only not in json.dumps(answer)
    assert [(t["line"], t["last_line"], t["speaker"]) for t in some[2]["turns"]] == [(9, 11, "assistant")]
    error, text, answer = raw
    assert not error and answer["view"] == "raw" and "iVBORw0KGgo" in answer["text"]
    assert text.splitlines()[1].startswith("   19  {")
    # A note has no turns and no JSONL: it comes as its text whichever view is asked, and says so (it said "raw"
    # to a caller who asked for the default "turns").
    for error, text, answer in (note, raw_note):
        assert not error and answer["view"] == "text" and answer["lines"] == [1, 2], answer
        assert text.startswith("martin.md lines 1-2 of ") and text.splitlines()[1].startswith("    1  ")


def test_remember_writes_commits_and_indexes_at_once_without_overwriting(mem):
    text = "The staging database password rotates every **90 days**; ask Priya.\n\n- rotation: quarterly\n"

    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            first = await call(client, "remember", {"text": text, "title": "Staging DB: password rotation",
                                                    "folder": "notes/ops", "confidence": "high",
                                                    "source": "chat with Priya"})
            found = await call(client, "search", {"query": "how often does the staging password rotate",
                                                  "budget_tokens": 0})
            second = await call(client, "remember", {"text": "Another note.", "title": "Staging DB: password rotation",
                                                     "folder": "notes/ops"})
            return first, found, second

    first, found, second = run(scenario)
    error, message, data = first
    assert not error, message
    assert data["path"] == "notes/ops/staging-db-password-rotation.md"
    written = (mem / data["path"]).read_text()
    assert written.endswith("---\n\n# Staging DB: password rotation\n\n" + text)  # the title, the text byte for byte
    head = written.split("---\n")[1]
    assert "title: 'Staging DB: password rotation'" in head
    assert "trust: self" in head and "confidence: high" in head and "source: chat with Priya" in head
    assert git(mem, "show", "--name-only", "--format=%s", data["commit"]).split() == \
        ["tachikoma:", "remember", data["path"], data["path"]]
    assert found[2]["results"][0]["path"] == data["path"]  # searchable in the same breath
    assert second[2]["path"] == "notes/ops/staging-db-password-rotation-2.md"
    assert (mem / data["path"]).read_text() == written  # the first note was not overwritten
    assert git(mem, "status", "--porcelain") == ""


def test_tag_uses_the_tagging_engine_and_commits(mem):
    subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "index", "-q"], check=True)
    before = (mem / "martin.md").read_text()
    body = before.split("---\n", 2)[2] if before.startswith("---\n") else before

    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            tagged = await call(client, "tag", {"paths": ["martin.md", "2026-03-22/session-abc.jsonl"],
                                                "trust": "external", "confidence": "low"})
            search = await call(client, "search", {"query": "Martin meetings", "limit": 20})
            return tagged, search

    (error, text, data), (_, _, search) = run(scenario)
    assert not error, text
    assert {c["path"] for c in data["changed"]} == {"martin.md", "2026-03-22/session-abc.jsonl"}
    assert data["commit"] and git(mem, "status", "--porcelain") == ""
    after = (mem / "martin.md").read_text()
    assert after.endswith(body) and "trust: external" in after and "confidence: low" in after
    assert "2026-03-22/session-abc.jsonl" in (mem / "tachikoma-tags.yaml").read_text()
    martin = [r for r in search["results"] if r["path"] == "martin.md"]
    assert martin and martin[0]["trust"] == "external"  # the index carries the new tags


def test_tag_takes_a_path_as_an_agent_spells_it(mem):
    """"./martin.md" and "2026-03-22//x.jsonl" name the same files as their plain spelling: they are
    tagged, not reported as unchanged."""
    async def scenario():
        async with Client(server(mem, "--no-watch")) as client:
            return await call(client, "tag", {"paths": ["./martin.md", "2026-03-22//session-abc.jsonl"],
                                              "trust": "external"})

    error, text, data = run(scenario)
    assert not error, text
    assert {c["path"] for c in data["changed"]} == {"martin.md", "2026-03-22/session-abc.jsonl"}
    assert data["unchanged"] == [] and data["commit"]
    assert "trust: external" in (mem / "martin.md").read_text()


def test_stats_reports_coverage_and_freshness(mem):
    async def scenario():
        async with Client(server(mem)) as client:
            return await until(lambda: _ready_stats(client))

    error, text, report = run(scenario)
    assert not error
    assert report["files"] >= 10 and {"tagged", "untagged", "by_kind", "problems"} <= set(report)
    assert report["index"]["watching"] is True and report["index"]["state"] == "complete"
    assert "watching the folder" in text
    assert plural(len(report["problems"]), "problem") + ". Index" in text and "(s)" not in text


async def _ready_stats(client):
    outcome = await call(client, "stats", {})
    return outcome if outcome[2]["index"]["state"] == "complete" else None


def test_watcher_keeps_results_fresh_after_add_delete_and_rename(mem):
    async def found(client, query, path):
        _, _, data = await call(client, "search", {"query": query, "limit": 20})
        return [r["path"] for r in data["results"]].count(path) > 0

    async def scenario():
        async with Client(server(mem)) as client:
            assert await until(lambda: _ready_stats(client))
            note = mem / "inbox" / "sailing.md"
            note.write_text("# Sailing\nThe dinghy is moored at pier 7 in Kiel harbour.\n")
            added = await until(lambda: found(client, "where is the dinghy moored", "inbox/sailing.md"))
            note.rename(mem / "inbox" / "boat.md")
            old_gone = not await found(client, "where is the dinghy moored", "inbox/sailing.md")  # at once
            renamed = await until(lambda: found(client, "where is the dinghy moored", "inbox/boat.md"))
            (mem / "martin.md").unlink()
            deleted = not await found(client, "when does Martin like meetings", "martin.md")  # at once
            _, _, data = await call(client, "search", {"query": "when does Martin like meetings", "budget_tokens": 0})
            return added, old_gone, renamed, deleted, data

    added, old_gone, renamed, deleted, data = run(scenario)
    assert added and old_gone and renamed and deleted
    assert all((mem / r["path"]).exists() for r in data["results"])


def test_a_file_system_error_is_a_tool_error_that_says_why(mem, monkeypatch):
    """A memory the server cannot write (a read-only mount, another user's folder): the model gets the
    reason, as the command line prints it, instead of a bare 'Error executing tool remember'."""
    from tachikoma import mcp_server

    def read_only(*_args, **_kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(mem / ".note.0123456789ab.tmp"))

    monkeypatch.setattr(mcp_server.notes, "remember", read_only)
    server, tools = mcp_server.build_server(mem, watch=False)

    async def scenario():
        async with Client(server) as client:  # the SDK's client, connected in-process
            return await call(client, "remember", {"text": "The lab door code is 4711."})

    try:
        error, text, _ = run(scenario)
    finally:
        tools.close()
    assert error and "Permission denied" in text and ".note.0123456789ab.tmp" in text
    assert str(mem) not in text  # the memory's path, relative: no user name, no layout of the machine


def test_a_file_system_error_names_a_file_outside_the_memory_by_its_name_alone(mem, monkeypatch, tmp_path):
    from tachikoma import mcp_server

    def elsewhere(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "home" / "ana" / ".gitconfig"))

    monkeypatch.setattr(mcp_server.notes, "remember", elsewhere)
    server, tools = mcp_server.build_server(mem, watch=False)

    async def scenario():
        async with Client(server) as client:
            return await call(client, "remember", {"text": "The lab door code is 4711."})

    try:
        error, text, _ = run(scenario)
    finally:
        tools.close()
    assert error and text.endswith("No space left on device: .gitconfig") and "ana" not in text


def test_a_commit_that_failed_is_said_in_the_text_too(mem, monkeypatch):
    """The note is written and searchable but not committed: the text a model reads says so, not only the
    structured `commit_error` (it said "remembered in x.md; searchable now")."""
    from tachikoma import mcp_server
    from tachikoma.git.gitutil import GitError

    def refused(*_args, **_kwargs):
        raise GitError("git commit failed: HEAD moved while committing")

    monkeypatch.setattr(mcp_server.notes.gitutil, "commit", refused)
    monkeypatch.setattr(mcp_server.applying.gitutil, "commit_blobs", refused)
    server, tools = mcp_server.build_server(mem, watch=False)

    async def scenario():
        async with Client(server) as client:
            return (await call(client, "remember", {"text": "The lab door code is 4711."}),
                    await call(client, "tag", {"paths": ["martin.md"], "trust": "external"}))

    try:
        (error, text, data), (tag_error, tag_text, tag_data) = run(scenario)
    finally:
        tools.close()
    assert not error and data["commit"] is None and "HEAD moved" in data["commit_error"]
    assert "not committed: git commit failed: HEAD moved" in text
    assert not tag_error and "HEAD moved" in tag_data["commit_error"]
    assert "The file tagged was not committed: git commit failed: HEAD moved" in tag_text, tag_text


def test_stats_says_what_untagged_notes_beside_tagged_chats_do_to_ranking(tmp_path):
    from test_stats import notes_and_tagged_chats

    root = notes_and_tagged_chats(tmp_path / "notes")
    (root / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n')

    async def scenario():
        async with Client(server(root, "--no-watch")) as client:
            return await call(client, "stats", {})

    error, text, report = run(scenario)
    assert not error and report["balance"]["untagged_notes"] == 3
    assert text.endswith(f" Weights: {report['balance']['text']}.")
