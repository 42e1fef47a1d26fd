"""Source-tied staleness with real git repositories and a real Claude Code session and note."""

import json
from pathlib import Path

import pytest
from gitrepo import git

from tachikoma import staleness
from tachikoma.config import load_config
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher


def commit(repo: Path, files: dict[str, str | None], date: str, message: str = "change") -> None:
    for name, content in files.items():
        path = repo / name
        if content is None:
            git(repo, "rm", "-q", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message, date=date)


@pytest.fixture
def shop(tmp_path) -> Path:
    return make_shop(tmp_path)


def make_shop(tmp_path: Path, name: str = "shop") -> Path:
    """A code repository: retry.py changed in 3 commits after 2026-10-15, old.py deleted, pay.py renamed,
    notes.py untouched since, and a change to notes.py left uncommitted in the working tree."""
    repo = tmp_path / "code" / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"billing/retry.py": "v1\n", "billing/old.py": "x\n", "billing/pay.py": "p\n",
                  "billing/notes.py": "n\n"}, "2026-10-01T10:00:00+00:00", "start")
    for i, day in enumerate(["2026-11-02", "2026-11-15", "2026-11-30"]):
        commit(repo, {"billing/retry.py": f"v{i + 2}\n"}, f"{day}T10:00:00+00:00")
    commit(repo, {"billing/old.py": None}, "2026-11-02T12:00:00+00:00", "drop old")
    git(repo, "mv", "billing/pay.py", "billing/payment.py")
    git(repo, "commit", "-q", "-m", "rename", date="2026-11-03T12:00:00+00:00")
    (repo / "billing" / "notes.py").write_text("edited, not committed\n")
    return repo


def session_line(kind: str, content, cwd: str, stamp: str) -> str:
    return json.dumps({"type": kind, "timestamp": stamp, "sessionId": "s1", "cwd": cwd, "gitBranch": "main",
                       "message": {"role": kind, "content": content}})


def memory_with(tmp_path: Path, shop: Path) -> Path:
    root = tmp_path / "memory"
    (root / "2026-10-15").mkdir(parents=True)
    stamp = "2026-10-15T09:00:00Z"
    lines = [session_line("user", "Make the retry schedule back off longer.", str(shop), stamp),
             session_line("assistant", [{"type": "text", "text": "I changed the retry schedule backoff."},
                                        {"type": "tool_use", "id": "t1", "name": "Edit",
                                         "input": {"file_path": str(shop / "billing" / "retry.py"),
                                                   "old_string": "a", "new_string": "b"}}], str(shop), stamp),
             session_line("assistant", [{"type": "tool_use", "id": "t2", "name": "Read",
                                         "input": {"file_path": str(shop / "billing" / "notes.py")}}],
                          str(shop), stamp)]
    (root / "2026-10-15" / "session.jsonl").write_text("\n".join(lines) + "\n")
    (root / "2026-10-20").mkdir()
    (root / "2026-10-20" / "billing-notes.md").write_text(
        f"# Billing code\n\nThe code is in {shop}. The payment flow lives in `billing/pay.py` and the\n"
        "cleanup job in billing/old.py:12; the notes helper is billing/notes.py.\n")
    (root / "2026-10-21").mkdir()
    (root / "2026-10-21" / "unrelated.md").write_text("# Gardening\n\nThe tomatoes need water. billing/retry.py\n")
    runner.run(root, embedder_name="hash")
    return root


def test_a_session_that_edited_a_file_is_stale_after_commits_to_it(tmp_path, shop):
    root = memory_with(tmp_path, shop)
    answer = Searcher(root).search("retry schedule backoff", 10, as_of="2026-12-01")
    session = next(r for r in answer["results"] if r["path"].endswith("session.jsonl"))
    marked = staleness.mark(answer, repos=staleness.Repositories())
    stale = session["stale"]
    assert stale["text"] == "stale: billing/retry.py changed in 3 commits since, last 2026-11-30"
    [f] = stale["files"]
    assert (f["path"], f["commits"], f["change"], Path(f["repo"])) == ("billing/retry.py", 3, "modified", shop)
    # notes.py was read in the session and changed only in the working tree: not stale
    assert all(x["path"] != "billing/notes.py" for x in stale["files"])
    # the notes naming the repository's changed files are stale, the gardening note is not; whether the billing
    # note is among the results at all depends on the hash embedder's collisions with the words of tmp_path
    naming = sum(r["path"].endswith(("session.jsonl", "billing-notes.md")) for r in answer["results"])
    assert marked["staleness"] == {"checked": len(answer["results"]), "stale": naming, "factor": 1.0,
                                   "fresh_only": False, "left_out": 0}


def test_a_note_naming_a_repository_is_stale_for_deleted_and_renamed_files(tmp_path, shop):
    root = memory_with(tmp_path, shop)
    answer = staleness.mark(Searcher(root).search("payment flow cleanup job notes helper", 10),
                            repos=staleness.Repositories())
    note = next(r for r in answer["results"] if r["path"].endswith("billing-notes.md"))
    files = {f["path"]: f for f in note["stale"]["files"]}
    assert set(files) == {"billing/pay.py", "billing/old.py"}  # notes.py: only its working tree changed
    assert files["billing/old.py"]["change"] == "deleted"
    assert (files["billing/pay.py"]["change"], files["billing/pay.py"]["renamed_to"]) == ("renamed",
                                                                                          "billing/payment.py")
    assert "billing/old.py deleted since (2026-11-02)" in note["stale"]["text"]
    assert "billing/pay.py renamed to billing/payment.py since (2026-11-03)" in note["stale"]["text"]
    # a note naming no repository: its path means nothing, unless a code root is configured
    garden = next(r for r in Searcher(root).search("tomatoes water", 5)["results"] if "unrelated" in r["path"])
    assert staleness.check(garden, repos=staleness.Repositories()) is None
    assert "billing/retry.py" in staleness.check(garden, (str(shop),), staleness.Repositories())["text"]


def test_the_factor_reranks_and_fresh_only_leaves_stale_out(tmp_path, shop):
    root = memory_with(tmp_path, shop)
    plain = Searcher(root).search("retry schedule backoff tomatoes", 10, as_of="2026-12-01")
    order = [r["path"] for r in plain["results"]]
    scores = {r["path"]: r["score"] for r in plain["results"]}
    costed = staleness.mark(json.loads(json.dumps(plain)), factor=0.5, repos=staleness.Repositories())
    stale = [r for r in costed["results"] if "stale" in r]
    assert stale and all(r["score"] == pytest.approx(scores[r["path"]] * 0.5) for r in stale)
    assert [r["score"] for r in costed["results"]] == sorted((r["score"] for r in costed["results"]), reverse=True)
    fresh = staleness.mark(json.loads(json.dumps(plain)), fresh_only=True, repos=staleness.Repositories())
    assert [r["path"] for r in fresh["results"]] == [p for p in order if p not in {r["path"] for r in stale}]
    assert fresh["staleness"]["left_out"] == len(stale)


def retry_notes(tmp_path: Path, shop: Path, stale: int, fresh: str) -> Path:
    """A memory of `stale` notes that name billing/retry.py (changed since: the best matches, all stale)
    and 3 fresh notes saying `fresh`, indexed."""
    root = tmp_path / "memory"
    (root / "2026-10-20").mkdir(parents=True)
    for i in range(stale):
        (root / "2026-10-20" / f"stale-{i}.md").write_text(
            f"# Retry {i}\n\nThe retry schedule backoff is in billing/retry.py of {shop}; retry schedule backoff.\n")
    for i in range(3):
        (root / "2026-10-20" / f"fresh-{i}.md").write_text(f"# Note {i}\n\n{fresh}\n")
    runner.run(root, embedder_name="hash")
    return root


def test_fresh_only_asks_for_more_until_it_has_as_many_fresh_memories_as_asked(tmp_path, shop):
    from tachikoma.search import pool

    root = retry_notes(tmp_path, shop, 6, "We talked about the retry schedule.")
    config = load_config(root)
    searchers = pool.Searchers()
    try:
        asked = {"query": "retry schedule backoff", "limit": 2}
        plain = pool.search_as_asked(root, config, searchers, asked)
        assert all("stale" in r for r in plain["results"])  # the first two ranked are stale
        fresh = pool.search_as_asked(root, config, searchers, {**asked, "fresh_only": True})
        assert [r["path"].split("/")[-1][:5] for r in fresh["results"]] == ["fresh", "fresh"]
        assert fresh["staleness"]["ranked"] == 2 * pool.FRESH_GROWTH and fresh["staleness"]["left_out"] == 6
        everything = pool.search_as_asked(root, config, searchers, {**asked, "limit": 20, "fresh_only": True})
        assert len(everything["results"]) == 3 and everything["staleness"]["ranked"] == 20  # no more to find
    finally:
        searchers.close()


def test_fresh_only_is_not_steered_by_a_stale_memory(tmp_path, shop):
    """A question that gathers is widened by its best files (`scoring.rank_snapshot`'s `gather`): with
    fresh_only, a stale file neither widens it nor is named as having done so."""
    from tachikoma.search import pool

    root = retry_notes(tmp_path, shop, 4, "We changed the retry schedule again.")
    config = load_config(root)
    searchers = pool.Searchers()
    try:
        # what only the stale notes say (backoff): they are its best files whatever the temporary path they name
        asked = {"query": "how many retry backoff settings in total", "limit": 3, "min_score": 0}
        plain = pool.search_as_asked(root, config, searchers, asked)
        assert any("stale" in w["path"] for w in plain["widened_by"])  # as asked for everything: stale files widen it
        fresh = pool.search_as_asked(root, config, searchers, {**asked, "fresh_only": True})
        assert fresh["results"] and all("stale" not in r and "fresh" in r["path"] for r in fresh["results"])
        shown = {r["path"] for r in fresh["results"]}
        assert all(w["path"] in shown for w in fresh["widened_by"]), fresh["widened_by"]
    finally:
        searchers.close()


def test_a_commit_after_a_search_is_seen_by_the_next(tmp_path, shop):
    root = memory_with(tmp_path, shop)
    repos = staleness.Repositories()
    garden = next(r for r in Searcher(root).search("tomatoes water", 5)["results"] if "unrelated" in r["path"])
    garden["text"] += f"\nSee {shop} and `billing/notes.py`."
    assert all(f["path"] != "billing/notes.py" for f in (staleness.check(garden, (), repos) or {"files": []})["files"])
    git(shop, "commit", "-q", "-am", "notes", date="2026-12-01T10:00:00+00:00")
    assert any(f["path"] == "billing/notes.py" for f in staleness.check(garden, (), repos)["files"])


def test_settings(tmp_path):
    (tmp_path / "tachikoma.toml").write_text('[staleness]\nfactor = 0.7\ncode_roots = ["~/code/shop"]\n')
    cfg = load_config(tmp_path)
    assert (cfg.staleness.factor, cfg.staleness.code_roots, cfg.staleness.check) == (0.7, ("~/code/shop",), True)
    (tmp_path / "tachikoma.toml").write_text("[staleness]\nfactor = 2\n")
    with pytest.raises(Exception, match="staleness.factor must be a number between 0 and 1"):
        load_config(tmp_path)


def test_every_face_carries_it(tmp_path, shop):
    from test_app import make_client

    from tachikoma_dashboard.app import create_app
    from tachikoma import cli  # noqa: F401 (the command line, in this process)
    from tachikoma.search.pool import Searchers, search_as_asked

    root = memory_with(tmp_path, shop)
    config = load_config(root)
    searchers = Searchers()
    try:
        asked = {"query": "retry schedule backoff", "limit": 10, "as_of": "2026-12-01"}
        answer = search_as_asked(root, config, searchers, asked)
        session = next(r for r in answer["results"] if r["path"].endswith("session.jsonl"))
        assert session["stale"]["files"][0]["commits"] == 3  # JSON (and MCP, the same answer) carry it as data
        fresh = search_as_asked(root, config, searchers, {**asked, "fresh_only": True})
        assert all("stale" not in r for r in fresh["results"]) and fresh["staleness"]["left_out"] >= 1
        budgeted = search_as_asked(root, config, searchers, {**asked, "budget_tokens": 300})
        passage = next(p for p in budgeted["budget"]["passages"] if p["path"].endswith("session.jsonl"))
        assert passage["stale"].startswith("stale: billing/retry.py changed in 3 commits")
        assert "; stale: billing/retry.py changed in 3 commits since, last 2026-11-30: check the code)" \
            in budgeted["agent_text"]
    finally:
        searchers.close()
    client = make_client(create_app(memory=root, port=5000))
    page = client.get("/?q=retry+schedule+backoff&as_of=2026-12-01").get_data(as_text=True)
    assert '<span class="badge stale" title="stale: billing/retry.py changed in 3 commits since, last 2026-11-30">' \
        in page
    api = client.get("/api/search?q=retry+schedule+backoff&fresh_only=1").get_json()
    assert api["staleness"]["fresh_only"] is True and all("stale" not in r for r in api["results"])


def test_mcp_carries_it_as_data_and_asks_for_fresh_memories_only(tmp_path, shop):
    from mcp import Client
    from test_mcp import call, run, server

    root = memory_with(tmp_path, shop)

    async def scenario():
        async with Client(server(root, "--no-watch")) as client:
            marked = await call(client, "search", {"query": "retry schedule backoff", "as_of": "2026-12-01",
                                                   "min_score": 0, "budget_tokens": 0})
            fresh = await call(client, "search", {"query": "retry schedule backoff", "as_of": "2026-12-01",
                                                  "min_score": 0, "fresh_only": True, "budget_tokens": 0})
            return marked, fresh

    (error, text, data), (_, _, fresh) = run(scenario)
    assert not error
    session = next(r for r in data["results"] if r["path"].endswith("session.jsonl"))
    # an agent is given the stale files in words (the JSON API keeps each file's fields)
    assert session["stale"] == "stale: billing/retry.py changed in 3 commits since, last 2026-11-30"
    assert "; stale: billing/retry.py changed in 3 commits since, last 2026-11-30: check the code) · score" in text
    assert all(not r["path"].endswith("session.jsonl") for r in fresh["results"])
    assert fresh["staleness"]["left_out"] >= 1


#: A repository folder whose name is markup (folder names come from the memory's text: untrusted).
HOSTILE_REPO = "sh<b>op&\"'<i>"


def test_the_file_page_lists_the_stale_files(tmp_path, shop):
    from test_app import make_client

    from tachikoma_dashboard.app import create_app

    root = memory_with(tmp_path, shop)
    client = make_client(create_app(memory=root, port=5000))
    page = client.get("/file/2026-10-15/session.jsonl").get_data(as_text=True)
    assert '<span class="badge stale" title="stale: billing/retry.py changed in 3 commits since, last 2026-11-30">' \
        in page
    section = page[page.index("<section class=\"panel stale-list\""):page.index("</section>")]
    assert "<strong>billing/retry.py changed in 3 commits since, last 2026-11-30</strong>" in section
    assert f"in <code>{shop}</code> · memory of 2026-10-15" in section
    assert "1 file this memory names changed" in section and "notes.py" not in section  # working tree only
    assert 'href="/file/2026-10-15/session.jsonl?lines=' in section
    note = client.get("/file/2026-10-20/billing-notes.md").get_data(as_text=True)
    listed = note[note.index("<section class=\"panel stale-list\""):note.index("</section>")]
    assert "<strong>billing/old.py deleted since (2026-11-02)</strong>" in listed
    assert "<strong>billing/pay.py renamed to billing/payment.py since (2026-11-03)</strong>" in listed
    assert 'data-change="deleted"' in listed and 'data-change="renamed"' in listed
    assert "<a href=\"/file/2026-10-20/billing-notes.md?lines=1-4#hit\">lines 1–4</a>" in listed
    # the same words as the search's explanation, and no list for a memory that is not stale
    answer = Searcher(root).search("payment flow cleanup job notes helper", 10)
    result = next(r for r in answer["results"] if r["path"].endswith("billing-notes.md"))
    assert staleness.check(result, repos=staleness.Repositories())["text"] == \
        staleness.check_file([result], repos=staleness.Repositories())["text"]
    garden = client.get("/file/2026-10-21/unrelated.md").get_data(as_text=True)
    assert "stale-list" not in garden and "badge stale" not in garden


def test_the_file_page_escapes_what_the_memory_names(tmp_path):
    repo = make_shop(tmp_path, HOSTILE_REPO)
    root = memory_with(tmp_path, repo)
    from test_app import make_client

    from tachikoma_dashboard.app import create_app

    page = make_client(create_app(memory=root, port=5000)).get("/file/2026-10-15/session.jsonl").get_data(as_text=True)
    section = page[page.index("<section class=\"panel stale-list\""):page.index("</section>")]
    assert "sh&lt;b&gt;op&amp;&#34;&#39;&lt;i&gt;" in section and "<b>" not in section and "<i>" not in section


def test_a_score_cut_for_staleness_is_explained(tmp_path, shop):
    from tachikoma.search import explain

    root = memory_with(tmp_path, shop)
    answer = staleness.mark(Searcher(root).search("retry schedule backoff", 10, as_of="2026-12-01"), factor=0.5,
                            repos=staleness.Repositories())
    session = next(r for r in answer["results"] if "stale" in r)
    assert explain.arithmetic(session).endswith(f"× 0.50 = {session['score']:.2f}")
    assert "0.50 staleness (stale: billing/retry.py changed in 3 commits since" in explain.sentence(session)


# ---------------------------------------------------------------- a session's own commits


def tool_use(call_id: str, name: str, **args) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def tool_result(call_id: str, text: str, failed: bool = False) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text, **({"is_error": True} if failed else {})}


def write_session(root: Path, name: str, cwd: Path, turns: list[tuple[str, str, object]]) -> Path:
    """A Claude Code session file in the memory at `root`: `turns` are (time, "user"/"assistant", content)."""
    path = root / "sessions" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(session_line(kind, content, str(cwd), stamp) for stamp, kind, content in turns) + "\n")
    return path


def ops_repo(tmp_path: Path) -> Path:
    """A code repository with scripts/deploy.sh (and two other scripts), all committed on 1 October."""
    repo = tmp_path / "code" / "ops"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -e\nrestart\n", "scripts/backup.sh": "#!/bin/sh\nbackup\n",
                  "scripts/restore.sh": "#!/bin/sh\nrestore\n", "scripts/lint.sh": "#!/bin/sh\nlint\n"},
           "2026-10-01T10:00:00+00:00", "start")
    return repo


def stale_sessions(root: Path, query: str = "deploy script session") -> dict[str, dict | None]:
    """Each session file of the memory → its result's `stale` (None when not stale), as a search marks it
    with the session files readable; every chunk of a session must agree."""
    answer = Searcher(root).search(query, 50, min_score=0)
    staleness.mark(answer, repos=staleness.Repositories(), source=lambda r: root / r["path"])
    out: dict[str, dict | None] = {}
    for r in answer["results"]:
        if r["path"].startswith("sessions/"):
            assert out.get(r["path"], r.get("stale")) == r.get("stale"), r["path"]
            out[r["path"]] = r.get("stale")
    return out


def test_a_session_is_not_stale_by_the_commit_that_brings_its_own_edits(tmp_path):
    """The report: a session whose edits were committed (squashed, with a reviewer's tweak) 20 minutes
    after it ended said "changed in 3 commits since" when 2 changes came after it."""
    repo = ops_repo(tmp_path)
    root = tmp_path / "memory"
    deploy = str(repo / "scripts" / "deploy.sh")
    write_session(root, "2026-10-02-deploy.jsonl", repo, [
        ("2026-10-02T08:41:23Z", "user", "Make the deploy script fail on errors."),
        ("2026-10-02T08:41:46Z", "assistant", [tool_use("r1", "Read", file_path=deploy)]),
        ("2026-10-02T08:41:50Z", "user", [tool_result("r1", "#!/bin/sh\nset -e\nrestart\n")]),
        ("2026-10-02T08:42:32Z", "assistant", [tool_use("e1", "Edit", file_path=deploy, old_string="set -e\n",
                                                        new_string="set -eu\n")]),
        ("2026-10-02T08:42:40Z", "user", [tool_result("e1", "The file has been updated.")]),
        ("2026-10-02T08:46:22Z", "assistant", "The deploy script now fails on errors and unset variables."),
    ])
    # the session's edit, committed after it ended, as reviewed ("set -eu" became "set -euo pipefail")
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -euo pipefail\nrestart\n"}, "2026-10-02T09:05:00+00:00")
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -euo pipefail\nmigrate\nrestart\n"}, "2026-11-20T10:02:00+00:00")
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -euo pipefail\nmigrate\nswitch\n"}, "2026-12-03T17:40:00+00:00")
    runner.run(root, embedder_name="hash")
    stale = stale_sessions(root)["sessions/2026-10-02-deploy.jsonl"]
    assert stale["text"] == "stale: scripts/deploy.sh changed in 2 commits since, last 2026-12-03"
    # without the session file to read (another memory's result on a shared store), every commit counts, as before
    answer = Searcher(root).search("deploy script session", 10, min_score=0)
    staleness.mark(answer, repos=staleness.Repositories())
    assert {r["stale"]["text"] for r in answer["results"] if "stale" in r} == \
        {"stale: scripts/deploy.sh changed in 3 commits since, last 2026-12-03"}


def test_a_session_whose_edits_were_committed_after_it_ended_is_not_stale(tmp_path):
    """The report's other session: it wrote deploy.sh and edited a runbook not yet in git; one commit an hour
    after it ended brought both (and the runbook as the owner reworded it)."""
    repo = ops_repo(tmp_path)
    (repo / "notes").mkdir()
    (repo / "notes" / "rollback.md").write_text("# Runbook: rolling back\n")  # not committed
    root = tmp_path / "memory"
    write_session(root, "2026-12-03-blue-green.jsonl", repo, [
        ("2026-12-03T16:30:23Z", "user", "Switch the deploy script to blue/green and update the rollback runbook."),
        ("2026-12-03T16:31:55Z", "assistant", [tool_use("w1", "Write", file_path=str(repo / "scripts" / "deploy.sh"),
                                                        content="#!/bin/sh\nset -e\nswitch\n")]),
        ("2026-12-03T16:32:10Z", "user", [tool_result("w1", "File written")]),
        ("2026-12-03T16:33:50Z", "assistant", [tool_use("e1", "Edit", file_path=str(repo / "notes" / "rollback.md"),
                                                        old_string="# Runbook: rolling back\n",
                                                        new_string="# Runbook: rolling back\n\nSwitch back.\n")]),
        ("2026-12-03T16:34:00Z", "user", [tool_result("e1", "The file has been updated.")]),
        ("2026-12-03T16:36:31Z", "assistant", "Both updated; the deploy script is blue/green now."),
    ])
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -e\nswitch\n",
                  "notes/rollback.md": "# Runbook: rolling back\n\nSwitch back within 10 minutes.\n"},
           "2026-12-03T17:40:00+00:00", "blue/green deploy, runbooks")
    runner.run(root, embedder_name="hash")
    assert stale_sessions(root) == {"sessions/2026-12-03-blue-green.jsonl": None}
    commit(repo, {"notes/rollback.md": "# Runbook: rolling back\n\nRedeploy the old tag.\n"}, "2026-12-05T09:00:00+00:00")
    assert stale_sessions(root)["sessions/2026-12-03-blue-green.jsonl"]["text"] == \
        "stale: notes/rollback.md changed in 1 commit since, last 2026-12-05"


def test_a_commit_days_later_is_the_sessions_own_only_when_it_holds_what_the_session_wrote(tmp_path):
    repo = ops_repo(tmp_path)
    root = tmp_path / "memory"
    scripts = repo / "scripts"
    write_session(root, "2026-10-05-scripts.jsonl", repo, [
        ("2026-10-05T10:00:00Z", "user", "Tidy the backup and restore scripts."),
        ("2026-10-05T10:01:00Z", "assistant", [
            tool_use("e1", "Edit", file_path=str(scripts / "backup.sh"), old_string="backup\n", new_string="backup -v\n"),
            tool_use("e2", "MultiEdit", file_path=str(scripts / "restore.sh"),
                     edits=[{"old_string": "restore\n", "new_string": "restore -v\n"}])]),
        ("2026-10-05T10:01:30Z", "user", [tool_result("e1", "The file has been updated."),
                                          tool_result("e2", "The file has been updated.")]),
        ("2026-10-05T10:02:00Z", "assistant", [tool_use("e3", "Edit", file_path=str(scripts / "backup.sh"),
                                                        old_string="#!/bin/sh\n", new_string="#!/bin/bash\n")]),
        ("2026-10-05T10:02:30Z", "user", [tool_result("e3", "The file has been updated.")]),
        ("2026-10-05T10:03:00Z", "assistant", "The backup and restore scripts are verbose now."),
    ])
    # three days later: backup.sh exactly as the session's two edits left it (its own), restore.sh otherwise
    commit(repo, {"scripts/backup.sh": "#!/bin/bash\nbackup -v\n", "scripts/restore.sh": "#!/bin/sh\nrestore -q\n"},
           "2026-10-08T10:00:00+00:00")
    runner.run(root, embedder_name="hash")
    stale = stale_sessions(root, "backup restore scripts verbose")["sessions/2026-10-05-scripts.jsonl"]
    assert stale["text"] == "stale: scripts/restore.sh changed in 1 commit since, last 2026-10-08"


def test_what_is_not_a_sessions_own_commit(tmp_path):
    """A failed edit, a file only read, a second commit after the one that brought the edit, a deletion:
    each is a change since, however soon after the session it came."""
    repo = ops_repo(tmp_path)
    root = tmp_path / "memory"
    scripts = repo / "scripts"
    write_session(root, "2026-10-05-lint.jsonl", repo, [
        ("2026-10-05T10:00:00Z", "user", "Look at the lint, backup, restore and deploy scripts."),
        ("2026-10-05T10:01:00Z", "assistant", [
            tool_use("e1", "Edit", file_path=str(scripts / "lint.sh"), old_string="nope\n", new_string="lint -x\n"),
            tool_use("r1", "Read", file_path=str(scripts / "backup.sh")),
            tool_use("e2", "Edit", file_path=str(scripts / "restore.sh"), old_string="restore\n", new_string="r\n"),
            tool_use("e3", "Edit", file_path=str(scripts / "deploy.sh"), old_string="restart\n", new_string="go\n")]),
        ("2026-10-05T10:01:30Z", "user", [tool_result("e1", "String to replace not found in file.", failed=True),
                                          tool_result("r1", "#!/bin/sh\nbackup\n"),
                                          tool_result("e2", "The file has been updated."),
                                          tool_result("e3", "The file has been updated.")]),
        ("2026-10-05T10:03:00Z", "assistant", "Done looking at the scripts."),
    ])
    commit(repo, {"scripts/lint.sh": "#!/bin/sh\nlint -y\n", "scripts/backup.sh": "#!/bin/sh\nbackup -z\n",
                  "scripts/restore.sh": "#!/bin/sh\nr\n"}, "2026-10-05T11:00:00+00:00")  # restore.sh: its own
    commit(repo, {"scripts/restore.sh": "#!/bin/sh\nr2\n", "scripts/deploy.sh": None}, "2026-10-05T12:00:00+00:00")
    runner.run(root, embedder_name="hash")
    stale = stale_sessions(root, "lint backup restore deploy scripts")["sessions/2026-10-05-lint.jsonl"]
    assert {f["path"]: (f["commits"], f["change"]) for f in stale["files"]} == {
        "scripts/lint.sh": (1, "modified"), "scripts/backup.sh": (1, "modified"),
        "scripts/restore.sh": (1, "modified"), "scripts/deploy.sh": (1, "deleted")}


def test_every_face_reads_the_session_for_its_own_commits(tmp_path):
    from test_app import make_client

    from tachikoma_dashboard.app import create_app
    from tachikoma.search.pool import Searchers, search_as_asked

    repo = ops_repo(tmp_path)
    root = tmp_path / "memory"
    write_session(root, "2026-10-02-deploy.jsonl", repo, [
        ("2026-10-02T08:41:23Z", "user", "Make the deploy script fail on errors."),
        ("2026-10-02T08:42:32Z", "assistant", [tool_use("e1", "Edit", file_path=str(repo / "scripts" / "deploy.sh"),
                                                        old_string="set -e\n", new_string="set -eu\n")]),
        ("2026-10-02T08:46:22Z", "assistant", "The deploy script now fails on unset variables."),
    ])
    commit(repo, {"scripts/deploy.sh": "#!/bin/sh\nset -eu\nrestart\n"}, "2026-10-02T09:05:00+00:00")
    runner.run(root, embedder_name="hash")
    config = load_config(root)
    searchers = Searchers()
    try:
        asked = {"query": "deploy script fail unset variables", "limit": 10, "min_score": 0}
        answer = search_as_asked(root, config, searchers, asked)
        assert any(r["path"].endswith("deploy.jsonl") for r in answer["results"])
        assert answer["staleness"]["stale"] == 0
        fresh = search_as_asked(root, config, searchers, {**asked, "fresh_only": True})
        assert any(r["path"].endswith("deploy.jsonl") for r in fresh["results"])
    finally:
        searchers.close()
    page = make_client(create_app(memory=root, port=5000)).get("/file/sessions/2026-10-02-deploy.jsonl")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "stale-list" not in text and "badge stale" not in text
