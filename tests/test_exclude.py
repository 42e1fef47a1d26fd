"""`[index] exclude`: folders and files a person leaves out of the memory (an Obsidian vault's Templates/, an
archive, drafts), with real files and a real SQLite index: never walked nor indexed, removed from an index that
held them, ignored by the watcher, refused by `read` and tagging on every face, and said by `index` and `stats`."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import time
from pathlib import Path

import pytest

from mcp_helpers import run_tools
from tachikoma import cli, memory
from tachikoma.config import load_config
from tachikoma.errors import TachikomaError
from tachikoma.globs import path_matcher, pattern_matches
from tachikoma.indexer import runner, status
from tachikoma.live import LiveMemory
from tachikoma.notes import NoteError, remember
from tachikoma.search.searcher import Searcher
from tachikoma.store import STORE_ENV, locate
from tachikoma.watcher import Watcher, relevant, watched_folders

NOTES = {
    "Templates/daily.md": '---\ndate: "{{date}}"\n---\n# {{date}}\n\n## Boiler\nCheck the boiler pressure.\n',
    "Templates/meeting.md": "# Meeting template\n\nAttendees, boiler agenda, actions.\n",
    "Archive/2019/boiler.md": "# Old boiler\n\nThe old boiler was a Vaillant from 2004.\n",
    "notes/drafts/idea.md": "# Idea\n\nA half-baked idea about the boiler.\n",
    "notes/drafts/deeper/kept.md": "# Kept\n\nOne level below drafts: not matched by **/drafts/*.md.\n",
    "notes/boiler.md": "# Boiler\n\nThe boiler service is booked for 12 March.\n",
    "Daily/2026-03-01.md": "# 1 March\n\nCalled the plumber about the boiler.\n",
}
EXCLUDE = '[index]\nexclude = ["Templates/", "Archive/**", "**/drafts/*.md"]\n'
LEFT_OUT = {"Templates/daily.md", "Templates/meeting.md", "Archive/2019/boiler.md", "notes/drafts/idea.md"}
KEPT = set(NOTES) - LEFT_OUT


def write_vault(root: Path, settings: str | None = EXCLUDE) -> Path:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    if settings is not None:
        (root / "tachikoma.toml").write_text(settings, encoding="utf-8")
    return root


@pytest.fixture
def vault(tmp_path) -> Path:
    return write_vault(tmp_path / "vault")


def indexed(root: Path) -> set[str]:
    with locate(root).open(readonly=True) as store:
        return set(store.files())


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_an_excluded_folder_is_never_walked_nor_indexed(vault, tmp_path):
    """Templates/, Archive/** and **/drafts/*.md: none of their notes is indexed or found, the run counts them as
    excluded (not skipped), and Archive/ is not even entered: a symlink out of the memory inside it is not
    warned about, as it is anywhere else."""
    (tmp_path / "outside").mkdir()
    (vault / "Archive" / "elsewhere").symlink_to(tmp_path / "outside")
    (vault / "notes" / "elsewhere").symlink_to(tmp_path / "outside")  # the same, in a folder that is walked
    summary = runner.run(vault, embedder_name="hash")
    assert indexed(vault) == KEPT
    assert summary.excluded == 4 and summary.skipped == 1 and summary.added == 3
    assert [w.split(":")[0] for w in summary.warnings] == ["notes/elsewhere"]
    assert "0 removed, 1 skipped, 4 excluded, 0 unchanged" in summary.line()
    searcher = Searcher(vault)
    try:
        found = {r["path"] for r in searcher.search("boiler pressure template", 10, min_score=0)["results"]}
    finally:
        searcher.close()
    assert found and found <= KEPT


def test_a_newly_excluded_file_leaves_the_index_on_the_next_run_and_says_so(tmp_path):
    """An index made before the setting holds the template; once `Templates/` is excluded, freshness counts it as
    a change, and the next `tachikoma index` removes it and says how many files the setting leaves out, the
    same in its text and its --json."""
    root = write_vault(tmp_path / "vault", settings=None)
    assert run_cli("--memory", str(root), "index", "--embedder", "hash", "-q")[0] == 0
    assert indexed(root) == set(NOTES)
    (root / "tachikoma.toml").write_text(EXCLUDE, encoding="utf-8")
    assert status.freshness(root)["changed_since"] == 4  # the four to remove
    code, out, _ = run_cli("--memory", str(root), "index", "--json")
    summary = json.loads(out)
    assert code == 0 and (summary["removed"], summary["excluded"], summary["unchanged"]) == (4, 4, 3)
    assert indexed(root) == KEPT and status.freshness(root)["changed_since"] == 0
    code, out, _ = run_cli("--memory", str(root), "index")
    assert code == 0 and out.startswith("0 added, 0 changed, 0 removed, 0 skipped, 4 excluded, 3 unchanged;")
    (root / "tachikoma.toml").write_text("", encoding="utf-8")  # taken out again: indexed again
    assert runner.run(root).added == 4 and indexed(root) == set(NOTES)


def test_a_search_before_the_next_run_neither_reads_nor_returns_a_newly_excluded_file(tmp_path, monkeypatch):
    """Until the next index run, the index still holds a file `[index] exclude` now leaves out: searches counted it in
    `changed_since`, but still ranked it, and a budgeted reply read its text from the file (a template's
    "{{date}}" first for "boiler pressure"). It is left out of every answer at once, by its path (so on every face),
    and no reply reads it; it is no missing file either."""
    from tachikoma.replies import recall
    from tachikoma.search.pool import Searchers, search_as_asked

    root = write_vault(tmp_path / "vault", settings='[embedder]\nname = "hash"\n')
    runner.run(root)
    (root / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n' + EXCLUDE, encoding="utf-8")
    read, real = [], memory.read_text  # every file a reply reads goes through it (`recall.units_of`, `turn_view`)
    monkeypatch.setattr(memory, "read_text", lambda where, rel, *a, **k: read.append(rel) or real(where, rel, *a, **k))
    queries = ["check the boiler pressure template", "old Vaillant boiler from 2004", "half-baked idea boiler"]
    searcher = Searcher(root)
    try:
        for query in queries:
            answer = searcher.search(query, 10, min_score=0)
            assert {r["path"] for r in answer["results"]} <= KEPT, query
            assert answer["freshness"]["changed_since"] == 4 and answer["freshness"]["missing_files"] == 0
    finally:
        searcher.close()
    searchers = Searchers()
    try:
        for query in queries:
            reply = search_as_asked(root, load_config(root), searchers, {"query": query, "limit": 5, "min_score": 0,
                                                                        "budget_tokens": 400, "face": "cli"})
            passages = reply["budget"]["passages"]
            assert passages and {p["path"] for p in passages} <= KEPT, query
            evidence = [line for line in reply["agent_text"].splitlines() if line.startswith(">")]  # quoted passages
            assert evidence, query
            assert not any(word in line for line in evidence for word in ("{{date}}", "Vaillant", "half-baked"))
    finally:
        searchers.close()
    assert read and set(read) <= KEPT  # the budget read the kept notes' lines, and no other file
    [(error, _, found)] = run_tools(root, ("search", {"query": queries[0], "min_score": 0}))
    passages = found["budget"]["passages"]  # MCP's search is held to 1,000 tokens unless asked otherwise
    assert not error and passages and {p["path"] for p in passages} <= KEPT
    assert recall.memory is memory  # the module the budget reads through, spied on above


def test_stats_says_what_the_setting_leaves_out_one_line_per_folder(vault):
    """`stats` counts no excluded file, and says the setting's effect: how many files, one line per folder (not
    per file), and a pattern that matches nothing (a misspelt folder); --json carries the same."""
    (vault / "tachikoma.toml").write_text('[index]\nexclude = ["Templates/", "Archive/**", "**/drafts/*.md", '
                                          '"Atachments/"]\n', encoding="utf-8")
    for n in range(30):
        (vault / "Templates" / f"t{n}.md").write_text("# t\n")
    code, out, _ = run_cli("--memory", str(vault), "stats")
    assert code == 0 and out.startswith("3 files:")
    lines = out.splitlines()
    at = lines.index("excluded by [index] exclude: 34 files, not indexed, counted, read or tagged")
    assert lines[at + 1:at + 5] == ["  Archive/       1 file (Archive/**)",
                                    "  Templates/     32 files (Templates/)",
                                    "  notes/drafts/  1 file (**/drafts/*.md)",
                                    "  Atachments/: matches no file or folder"]
    code, out, _ = run_cli("--memory", str(vault), "stats", "--json")
    report = json.loads(out)
    assert code == 0 and report["files"] == 3
    assert report["excluded"] == {
        "patterns": ["Templates/", "Archive/**", "**/drafts/*.md", "Atachments/"], "files": 34,
        "folders": [{"folder": "Archive", "pattern": "Archive/**", "files": 1, "whole": True, "at_least": False},
                    {"folder": "Templates", "pattern": "Templates/", "files": 32, "whole": True, "at_least": False},
                    {"folder": "notes/drafts", "pattern": "**/drafts/*.md", "files": 1, "whole": False,
                     "at_least": False}],
        "unmatched": ["Atachments/"]}
    assert not any("Templates" in p["path"] for p in report["problems"])  # the {{date}} template is not read


def test_the_watcher_ignores_excluded_paths_and_follows_a_changed_setting(vault):
    """Changes under an excluded folder start no run; the settings file always counts (even when a pattern
    would match its name), and after the run it starts, the new setting is the one followed."""
    exclude = load_config(vault).exclude
    assert not relevant(vault, str(vault / "Templates" / "new.md"), exclude)
    assert not relevant(vault, str(vault / "Templates"), exclude)  # the folder renamed or removed whole
    assert not relevant(vault, str(vault / "notes" / "drafts" / "x.md"), exclude)
    assert relevant(vault, str(vault / "notes" / "drafts" / "deeper" / "x.md"), exclude)
    assert relevant(vault, str(vault / "tachikoma.toml"), memory.Exclusion(("*.toml",)))
    # A name that is not UTF-8 (watchfiles gives it with surrogate escapes, which RE2 cannot take) is matched by
    # what it does spell, and never stops the watching.
    assert not relevant(vault, f"{vault}/notes/drafts/x\udcff.md", exclude)
    assert relevant(vault, f"{vault}/notes/x\udcff.md", exclude)
    watched = {folder.relative_to(vault.resolve()).as_posix() for folder in watched_folders(vault, exclude)}
    assert watched == {".", "Daily", "notes", "notes/drafts", "notes/drafts/deeper"}  # no Templates/, no Archive/
    calls: list[set[str]] = []
    watcher = Watcher(vault, calls.append, catch_up=False, exclude=lambda: load_config(vault).exclude).start()
    try:
        assert watcher.wait_ready(30)
        (vault / "Templates" / "new.md").write_text("# new template\n")
        (vault / "Archive" / "2019" / "more.md").write_text("# more\n")
        time.sleep(1.5)
        assert calls == []
        (vault / "tachikoma.toml").write_text('[index]\nexclude = ["Archive/**"]\n')
        assert _waited(lambda: calls) and {Path(p).name for p in calls[0]} == {"tachikoma.toml"}
        (vault / "Templates" / "newer.md").write_text("# a template again\n")
        assert _waited(lambda: len(calls) > 1) and {Path(p).name for p in calls[1]} == {"newer.md"}
    finally:
        watcher.stop()


def test_a_watched_memory_drops_a_file_once_the_setting_excludes_it(tmp_path):
    """The watcher's own run (serve, mcp, index --watch) removes a file the settings newly leave out."""
    root = write_vault(tmp_path / "vault", settings=None)
    runner.run(root, embedder_name="hash")
    live = LiveMemory(root)
    try:
        live.watch(catch_up=False, ready_within=30)
        (root / "tachikoma.toml").write_text(EXCLUDE, encoding="utf-8")
        assert _waited(lambda: (live.reindexer.last or {}).get("state") == "done")
        assert indexed(root) == KEPT
        assert "4 removed, 0 skipped, 4 excluded, 3 unchanged" in live.reindexer.last["line"]
    finally:
        live.close()


def _waited(condition, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_reading_an_excluded_file_is_refused_on_every_face(vault):
    """Not "not found": the refusal names the setting and the pattern, however the path is spelt and through a
    symlink to it; a file the setting keeps reads as before."""
    runner.run(vault, embedder_name="hash")
    exclude = load_config(vault).exclude
    (vault / "notes" / "alias.md").symlink_to("../Templates/daily.md")
    for rel in ("Templates/daily.md", "./Templates//daily.md", "notes/alias.md"):
        with pytest.raises(memory.PathExcluded, match=r"left out of the memory by \[index\] exclude "
                                                      r"\('Templates/'\): not read"):
            memory.read_text(vault, rel, exclude=exclude)
    assert memory.read_text(vault, "notes/boiler.md", exclude=exclude)["text"].startswith("# Boiler")
    (error, text, _), (fine, _, answer) = run_tools(vault, ("read", {"path": "notes/drafts/idea.md"}),
                                                    ("read", {"path": "notes/drafts/deeper/kept.md"}))
    assert error and text.endswith(": 'notes/drafts/idea.md' is left out of the memory by [index] exclude "
                                   "('**/drafts/*.md'): not read")
    assert not fine and answer["text"].startswith("# Kept")

    from tachikoma_dashboard.app import create_app
    from web_helpers import Client

    app = create_app(memory=vault, port=5000)
    app.test_client_class = Client
    try:
        page = app.test_client().get("/file/Templates/daily.md")
        html = page.get_data(as_text=True)
        assert page.status_code == 403 and "Left out of the memory" in html
        assert "left out of the memory by [index] exclude (&#39;Templates/&#39;)" in html
        assert "{{date}}" not in html
        assert app.test_client().get("/file/notes/boiler.md").status_code == 200
        coverage = app.test_client().get("/coverage").get_data(as_text=True)
        assert 'data-excluded="5"' in coverage and "Templates/" in coverage  # and notes/alias.md, a symlink to a template
        listed = app.test_client().get("/coverage/files").get_data(as_text=True)
        assert "notes/boiler.md" in listed and "Templates/" not in listed and "drafts/idea.md" not in listed
    finally:
        app.extensions["tachikoma"].close()


def test_tagging_never_writes_an_excluded_file(vault):
    """Bulk tagging by glob neither lists nor writes an excluded file; naming one by path (a FILE, a --path, the
    MCP tool, the dashboard's preview) is refused, saying why, and the command exits 1."""
    before = {rel: (vault / rel).read_bytes() for rel in LEFT_OUT}
    said = "left out of the memory by [index] exclude ('Templates/'); not tagged"
    code, out, err = run_cli("--memory", str(vault), "tag", str(vault / "Templates" / "daily.md"), "--trust", "owner")
    assert code == 1 and f"skipped Templates/daily.md: {said}" in err and "nothing to tag" in out
    code, _, err = run_cli("--memory", str(vault), "tag", "--path", "Templates/daily.md", "--trust", "owner")
    assert code == 1 and f"skipped Templates/daily.md: {said}" in err
    code, _, err = run_cli("--memory", str(vault), "tag", "--path", "Templates/", "--trust", "owner")
    assert code == 1 and ("skipped Templates/: left out of the memory by [index] exclude ('Templates/'); none of "
                          "its files is tagged") in err
    code, out, _ = run_cli("--memory", str(vault), "tag", "--path", "**/*.md", "--trust", "owner", "--dry-run")
    assert code == 0 and {line.split(":")[0] for line in out.splitlines()[:-1]} == KEPT
    code, out, _ = run_cli("--memory", str(vault), "tag", "--path", "**/*.md", "--trust", "owner")
    assert code == 0 and out.splitlines()[-1] == "tagged 3 files"
    assert {rel: (vault / rel).read_bytes() for rel in LEFT_OUT} == before
    assert (vault / "notes" / "boiler.md").read_text().startswith("---\ntrust: owner\n---\n")
    [(error, text, _)] = run_tools(vault, ("tag", {"paths": ["Archive/2019/boiler.md"], "trust": "self"}))
    assert error and text.endswith(": 'Archive/2019/boiler.md' is left out of the memory by [index] exclude "
                                   "('Archive/**'): not tagged")

    from tachikoma_dashboard.app import create_app
    from web_helpers import Client

    app = create_app(memory=vault, port=5000)
    app.test_client_class = Client
    try:
        preview = app.test_client().get("/tag", query_string={"preview": "1", "path": "**/*.md", "trust": "self",
                                                               "mode": "overwrite"}).get_data(as_text=True)
        assert "3 files matched" in preview and "Templates/" not in preview and "drafts/idea.md" not in preview
        named = app.test_client().get("/tag", query_string={"preview": "1", "path": "notes/drafts/idea.md",
                                                             "trust": "self"}).get_data(as_text=True)
        assert "left out of the memory by [index] exclude (&#39;**/drafts/*.md&#39;); not tagged" in named
    finally:
        app.extensions["tachikoma"].close()
    assert {rel: (vault / rel).read_bytes() for rel in LEFT_OUT} == before


def test_a_folder_or_glob_naming_only_excluded_files_is_no_success_on_any_face(vault):
    """`tag --path Templates/` warned and exited 0 ("nothing to tag: no file matched"), where a file named by its path
    is skipped with the reason and exit status 1. A folder or glob that matches files the setting leaves out and no
    other says so, naming the setting's pattern, and exits 1, on the command line (--json too) and in the
    dashboard's preview; one matching memory files besides tags those, and a pattern matching nothing at all is
    still "no file matched" (exit 0)."""
    before = {rel: (vault / rel).read_bytes() for rel in LEFT_OUT}
    cases = {"Templates/": "left out of the memory by [index] exclude ('Templates/'); none of its files is tagged",
             "Templates": "left out of the memory by [index] exclude ('Templates/'); none of its files is tagged",
             "Templates/*.md": "matches only files left out of the memory by [index] exclude ('Templates/'); none "
                               "is tagged",
             "Archive/2019/": "left out of the memory by [index] exclude ('Archive/**'); none of its files is tagged",
             "**/*boiler*.md": None,  # notes/boiler.md too: tagged, the archived one not
             "**/idea.md": "matches only files left out of the memory by [index] exclude ('**/drafts/*.md'); none "
                           "is tagged",
             "[AT]*/**/*.md": "matches only files left out of the memory by [index] exclude ('Archive/**', "
                              "'Templates/'); none is tagged"}
    for pattern, said in cases.items():
        code, out, err = run_cli("--memory", str(vault), "tag", "--path", pattern, "--trust", "self", "--dry-run")
        if said is None:
            assert code == 0 and out.startswith("notes/boiler.md: ") and err == ""
            assert out.endswith("\ndry run: 1 file would change; nothing written\n")
            continue
        assert code == 1 and err == f"skipped {pattern}: {said}\n", (pattern, err)
        assert out == "nothing to tag: the selection matches only files left out of the memory (above)\n"
    code, out, _ = run_cli("--memory", str(vault), "tag", "--path", "Templates/", "--trust", "self", "--json")
    answer = json.loads(out)
    assert code == 1 and answer["matched"] == 0 and answer["warnings"] == []
    assert answer["excluded_patterns"] == [{"pattern": "Templates/", "reason": cases["Templates/"]}]
    code, out, err = run_cli("--memory", str(vault), "tag", "--path", "Templates/", "--path", "Daily/", "--trust",
                             "self")
    assert code == 1 and out.startswith("Daily/2026-03-01.md: ") and out.endswith("\ntagged 1 file\n")
    assert err == f"skipped Templates/: {cases['Templates/']}\n"
    code, out, err = run_cli("--memory", str(vault), "tag", "--path", "Nowhere/", "--trust", "self")
    assert (code, out, err) == (0, "nothing to tag: no file matched the selection\n", "")
    assert {rel: (vault / rel).read_bytes() for rel in LEFT_OUT} == before

    from tachikoma_dashboard.app import create_app
    from web_helpers import Client

    app = create_app(memory=vault, port=5000)
    app.test_client_class = Client
    try:
        for pattern in ("Templates/", "Templates/*.md"):
            preview = app.test_client().get("/tag", query_string={"preview": "1", "path": pattern, "trust": "self"})
            html = preview.get_data(as_text=True)
            assert 'data-nothing="excluded"' in html and 'data-nothing="no-match"' not in html
            assert f"<code>{pattern}</code>: {cases[pattern]}".replace("'", "&#39;") in html
    finally:
        app.extensions["tachikoma"].close()


def test_remember_writes_no_note_the_setting_would_leave_out(vault):
    """A note in an excluded folder would never be found: refused before anything (a folder too) is written."""
    exclude = load_config(vault).exclude
    with pytest.raises(NoteError, match=r"the folder 'Templates/weekly' is left out of the memory by \[index\] "
                                        r"exclude \('Templates/'\), so a note there would never be found"):
        remember(vault, "a weekly template", folder="Templates/weekly", commit=False, exclude=exclude)
    assert not (vault / "Templates" / "weekly").exists()
    with pytest.raises(NoteError, match=r"'notes/drafts/plan\.md' would be left out"):
        remember(vault, "the plan", title="plan", folder="notes/drafts", commit=False, exclude=exclude)
    assert remember(vault, "the plan", title="plan", folder="notes", commit=False, exclude=exclude).path == \
        "notes/plan.md"


def test_a_bad_pattern_is_one_line_naming_the_key_and_changes_nothing(vault):
    runner.run(vault, embedder_name="hash")
    (vault / "tachikoma.toml").write_text('[index]\nexclude = ["Templates/", "[z-a]*.md"]\n', encoding="utf-8")
    code, out, err = run_cli("--memory", str(vault), "index")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err == (f"tachikoma: {vault / 'tachikoma.toml'}: index.exclude: '[z-a]*.md' is not a glob tachikoma can "
                   "read: invalid character class range: z-a\n")
    assert indexed(vault) == KEPT
    with pytest.raises(TachikomaError, match=r"index\.exclude must be an array of path patterns"):
        (vault / "tachikoma.toml").write_text('[index]\nexclude = "Templates/"\n', encoding="utf-8")
        load_config(vault)
    many = ", ".join(f'"**/d{n}[a-z][a-z]*/**/x[a-z]?*.md"' for n in range(20_000))  # each fine, together too large
    (vault / "tachikoma.toml").write_text(f"[index]\nexclude = [{many}]\n", encoding="utf-8")
    with pytest.raises(TachikomaError, match=r"index\.exclude: its 20,000 patterns are too many to read together"):
        load_config(vault)


def test_one_matcher_reads_the_patterns_as_the_tag_selector_does():
    """`globs.path_matcher` (all of `[index] exclude` in one regular expression, for the walk) says what
    `pattern_matches` says of every pattern and path."""
    patterns = ["Templates/", "Archive/**", "**/drafts/*.md", "*.excalidraw.md", "2026-0[1-3]*/", "notes/a.md",
                "/top.md", "a**b.md", "[!x]*.jsonl", "people", "**/[Dd]aily/", "x?.md"]
    paths = ["Templates/a.md", "Templates", "Templatesx/a.md", "Archive/x/y.md", "Archive", "a/drafts/b.md",
             "drafts/b.md", "a/drafts/c/b.md", "p/q.excalidraw.md", "2026-02/s.jsonl", "2026-04/s.jsonl",
             "notes/a.md", "notes/a.mdx", "top.md", "x/top.md", "a/xb.md", "axb.md", "s.jsonl", "x.jsonl",
             "people/m.md", "people.md", "w/Daily/d.md", "Daily", "xy.md", "xyz.md", "Archive/"]
    for size in (1, 2, 3):
        for chosen in itertools.combinations(patterns, size):
            matcher = path_matcher(tuple(chosen))
            for path in paths:
                assert matcher(path) == any(pattern_matches(p, path) for p in chosen), (chosen, path)


def test_postgres_drops_a_newly_excluded_file_the_same_way(tmp_path, url, monkeypatch):
    """Team mode: a shared PostgreSQL index of the memory loses the files the setting newly leaves out."""
    monkeypatch.setenv(STORE_ENV, url)
    root = write_vault(tmp_path / "vault", settings=None)
    runner.run(root, embedder_name="hash")
    assert indexed(root) == set(NOTES)
    (root / "tachikoma.toml").write_text(EXCLUDE, encoding="utf-8")
    assert status.freshness(root)["changed_since"] == 4
    summary = runner.run(root)
    assert (summary.removed, summary.excluded) == (4, 4) and indexed(root) == KEPT
    assert status.freshness(root)["changed_since"] == 0


def test_a_new_index_judges_the_memory_s_language_without_what_the_setting_leaves_out(tmp_path):
    """`[embedder] name = "auto"` samples the memory's files for their language: an archive of German letters the
    setting leaves out does not make an English memory "mostly not English"."""
    from tachikoma.embedders import auto

    root = tmp_path / "vault"
    (root / "Archive").mkdir(parents=True)
    (root / "notes").mkdir()
    german = ("Die Heizung im Keller ist seit dem Winter kaputt und der Vermieter hat noch nicht geantwortet. "
              "Wir haben deshalb mit der Hausverwaltung gesprochen, aber sie wollten erst im Frühjahr kommen. ")
    english = ("The boiler in the basement has been broken since the winter and the landlord has not answered yet. "
               "We spoke with the building management, but they only wanted to come in the spring. ")
    for n in range(8):
        (root / "Archive" / f"brief-{n}.md").write_text(f"# Brief {n}\n\n{german * 4}", encoding="utf-8")
    for n in range(2):
        (root / "notes" / f"note-{n}.md").write_text(f"# Note {n}\n\n{english * 4}", encoding="utf-8")
    assert auto.detect(root).mostly_not_english
    (root / "tachikoma.toml").write_text('[index]\nexclude = ["Archive/"]\n', encoding="utf-8")
    detection = auto.detect(root, load_config(root).exclude)
    assert detection.files == 2 and not detection.mostly_not_english
