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
        asked = {"query": "how many retry schedule backoff changes in total", "limit": 3, "min_score": 0}
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
                                                   "min_score": 0})
            fresh = await call(client, "search", {"query": "retry schedule backoff", "as_of": "2026-12-01",
                                                  "min_score": 0, "fresh_only": True})
            return marked, fresh

    (error, text, data), (_, _, fresh) = run(scenario)
    assert not error
    session = next(r for r in data["results"] if r["path"].endswith("session.jsonl"))
    assert session["stale"]["files"][0] == {"repo": str(shop), "path": "billing/retry.py", "commits": 3,
                                           "last": "2026-11-30", "change": "modified", "renamed_to": None}
    assert "(stale: billing/retry.py changed in 3 commits since, last 2026-11-30: check the code" in text
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
