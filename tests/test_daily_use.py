"""Issue 32, what a new user tripped over in daily use: `tag FILE…`, a folder glob, the `--min-score` help,
the wording of the coverage page and of `serve`'s refusal."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import git
from tachikoma import cli
from web_helpers import copy_memory


@pytest.fixture
def root(tmp_path):
    return copy_memory(tmp_path / "memory")


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def confidence(root, rel: str) -> str | None:
    text = (root / rel).read_text()
    return next((line.split(":", 1)[1].strip() for line in text.split("---")[1].splitlines()
                 if line.startswith("confidence:")), None) if text.startswith("---") else None


def test_tag_takes_files_as_arguments(root, monkeypatch):
    code, out, err = run("--memory", str(root), "tag", "martin.md", "projects/tachikoma.md", "--confidence", "low",
                         "--overwrite")
    assert code == 0, err
    assert confidence(root, "martin.md") == "low" and confidence(root, "projects/tachikoma.md") == "low"
    assert "tag 2 files" in git(root, "log", "-1", "--format=%s")
    monkeypatch.chdir(root.parent)  # a path from here into the memory, as a shell completes it
    code, _, err = run("--memory", str(root), "tag", "memory/identity.md", "--confidence", "medium")
    assert code == 0, err
    code, _, err = run("--memory", str(root), "tag", "nothere.md", "--confidence", "medium")
    assert code == 1 and "'nothere.md' is not a memory file" in err
    code, _, err = run("--memory", str(root), "tag", "../outside.md", "--confidence", "medium")
    assert code == 1 and "outside the memory folder" in err
    code, _, err = run("--memory", str(root), "tag", "martin.md")
    assert code == 2 and "say what to set" in err


def test_tag_path_takes_a_folder_glob(root):
    (root / "2026-10-01").mkdir()
    (root / "2026-10-01" / "a.md").write_text("# A\nOne.\n")
    (root / "2026-11-02").mkdir()
    (root / "2026-11-02" / "b.md").write_text("# B\nTwo.\n")
    code, out, err = run("--memory", str(root), "tag", "--path", "2026-1*/", "--confidence", "low", "--json")
    assert confidence(root, "2026-10-01/a.md") == "low" and confidence(root, "2026-11-02/b.md") == "low"
    # new notes, never added to git: tagged, not committed (their text is not tachikoma's to commit), and said
    assert code == 1 and "2026-10-01/a.md, 2026-11-02/b.md are not tracked by git" in json.loads(out)["commit_error"]
    git(root, "add", "2026-10-01", "2026-11-02")
    code, out, err = run("--memory", str(root), "tag", "--path", "2026-1*/", "--trust", "self")
    assert code == 0, err


def test_min_score_help_says_one_decision_that_never_removes_a_result():
    done = subprocess.run([sys.executable, "-m", "tachikoma", "search", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "500"})
    assert "one decision for the whole answer" in done.stdout and "never removes a single result" in done.stdout
    assert "are not results" not in done.stdout


def test_coverage_says_its_rank_for_one_file(root):
    from tachikoma_dashboard.app import create_app

    (root / "tachikoma.toml").write_text('[ranking]\nevergreen = []\n')
    (root / "martin.md").write_text((root / "martin.md").read_text().replace("---\n", "---\nevergreen: true\n", 1))
    app = create_app(memory=root, port=5000)
    page = app.test_client().get("/coverage", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    said = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "1 file whose age never lowers its rank" in said


def test_serve_refusal_reads_as_english(root, monkeypatch):
    monkeypatch.delenv("TACHIKOMA_TOKEN", raising=False)
    code, _, err = run("--memory", str(root), "serve", "--host", "10.1.2.3")
    assert code == 1 and "since the dashboard reads and writes your memory" in err
    code, _, err = run("--memory", str(root), "serve", "--host", "10.1.2.3", "--mcp")
    assert code == 1 and "since the dashboard and MCP read and write your memory" in err


def test_serve_help_says_where_mcp_is_served():
    """`serve --help` said --mcp serves "(localhost only)", and `serve --host 0.0.0.0 --mcp --tokens-file F` serves it
    on every address (docs/team.md): the help names the condition instead."""
    done = subprocess.run([sys.executable, "-m", "tachikoma", "serve", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "500"})
    line = next(text for text in done.stdout.splitlines() if text.strip().startswith("--mcp "))
    assert "localhost only" not in line
    assert "--tokens-file" in line and "--trusted-proxy" in line


def test_remember_on_the_command_line_writes_commits_and_indexes(root, monkeypatch):
    code, out, err = run("--memory", str(root), "remember", "The okapi sleeps at noon.", "--title", "Okapi",
                         "--folder", "notes/zoo", "--confidence", "high", "--json")
    assert code == 0, err
    done = json.loads(out)
    assert done["path"] == "notes/zoo/okapi.md" and done["commit"] and done["indexed"]
    written = (root / done["path"]).read_text()
    assert written.endswith("# Okapi\n\nThe okapi sleeps at noon.\n") and "trust: self" in written
    assert git(root, "log", "-1", "--format=%s").strip() == "tachikoma: remember notes/zoo/okapi.md"
    code, out, _ = run("--memory", str(root), "search", "when does the okapi sleep", "--json", "--in-process")
    assert json.loads(out)["results"][0]["path"] == "notes/zoo/okapi.md"
    code, out, _ = run("--memory", str(root), "remember", "The okapi sleeps at noon.", "--title", "Okapi",
                       "--folder", "notes/zoo", "--confidence", "high")
    assert code == 0 and out.startswith("already remembered in notes/zoo/okapi.md")  # a retry writes nothing
    monkeypatch.setattr("sys.stdin", io.StringIO("Read from standard input.\n"))
    code, out, _ = run("--memory", str(root), "remember", "-")
    assert code == 0 and (root / "read-from-standard-input.md").is_file()
    code, _, err = run("--memory", str(root), "remember", "x", "--folder", "../outside")
    assert code == 1 and not (root.parent / "outside").exists() and err.startswith("tachikoma: ")


def test_recent_taggings_lists_every_face(root):
    from tachikoma_dashboard.app import create_app
    from tachikoma.tagging import applying, model, planning
    from tachikoma.mcp_server import AGENT_NOTE

    code, _, err = run("--memory", str(root), "tag", "martin.md", "--confidence", "low", "--overwrite")
    assert code == 0, err
    by_cli = git(root, "rev-parse", "HEAD").strip()
    plan = planning.plan(root, {"source": "okapi"}, model.Selector(paths=frozenset({"identity.md"})),
                        overwrite=True)
    by_agent = applying.apply(root, plan, note=AGENT_NOTE, by="an agent authenticated as bot (MCP)").commit
    app = create_app(memory=root, port=5000)
    html = app.test_client().get("/tag", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    said = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert "Recent taggings 2" in said
    assert f"commit {by_cli[:10]} · by the command line or a local dashboard" in said
    assert f"commit {by_agent[:10]} · by an agent authenticated as bot (MCP)" in said
    assert said.index(by_agent[:10]) < said.index(by_cli[:10])  # newest first
    assert "Undo this tagging" not in said  # those are undone with git, not here


def test_recent_taggings_name_the_transcripts_a_tagging_tagged(root):
    """A tagging of transcripts changes one file in git, the tag file; "Recent taggings" listed that ("Tag 1 file
    ... 1 file: tachikoma-tags.yaml"), a link to a page that does not exist, instead of the sessions it tagged."""
    from tachikoma_dashboard.app import create_app

    code, out, err = run("--memory", str(root), "tag", "--json")  # the defaults: untagged transcripts
    assert code == 0, err
    tagged = sorted(change["path"] for change in json.loads(out)["changes"])
    assert tagged and all(path.endswith(".jsonl") for path in tagged)
    client = create_app(memory=root, port=5000).test_client()
    html = client.get("/tag", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    listed = re.search(r'<li data-tagging>.*?</li>\s*</ul>\s*</details>', html, re.S).group(0)
    links = re.findall(r'<a href="(/file/[^"]+)">([^<]+)</a>', listed)
    assert sorted(name for _, name in links) == tagged
    assert "tachikoma-tags.yaml" not in listed
    for href, _ in links:
        assert client.get(href, base_url="http://127.0.0.1:5000").status_code == 200, href


SESSION = (Path(__file__).parent / "data" / "sessions" / "claude-code" / "-home-mira-code-tachikoma"
           / "5c1e7a90-2b44-4f0e-9d61-3a7be0c4d218.jsonl")


def test_the_transcript_page_shows_an_edits_old_and_new_text_apart(root):
    from tachikoma_dashboard.app import create_app
    from tachikoma.transcripts.common import input_parts, input_text

    arguments = {"file_path": "/a.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": False}
    assert input_text(arguments) == "/a.py\nx = 1\nx = 2"  # what is searched is unchanged
    assert input_parts(arguments) == [("file_path", "/a.py"), ("old_string", "x = 1"), ("new_string", "x = 2")]
    (root / "session.jsonl").write_bytes(SESSION.read_bytes())
    app = create_app(memory=root, port=5000)
    html = app.test_client().get("/file/session.jsonl", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    old = re.search(r'<span class="tool-key">old_string</span>\s*<pre[^>]*>([^<]*)</pre>', html)
    new = re.search(r'<span class="tool-key">new_string</span>\s*<pre[^>]*>([^<]*)</pre>', html)
    assert old and new and old.group(1) == "TOOL-INPUT-OLD" and new.group(1) == "TOOL-INPUT-NEW"


def test_task_lists_render_as_disabled_checkboxes_and_stay_sanitised(root):
    from tachikoma_dashboard.app import create_app

    (root / "todo.md").write_text("# Todo\n\n- [ ] call Sam\n- [x] book the room\n"
                                  "- [ ] <input type=\"text\" name=\"x\"> <img src=x onerror=alert(1)>\n")
    app = create_app(memory=root, port=5000)
    html = app.test_client().get("/file/todo.md", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert '<li><input type="checkbox" disabled aria-label="to do"> call Sam</li>' in html
    assert '<li><input type="checkbox" disabled checked aria-label="done"> book the room</li>' in html
    article = html.split("<article", 1)[1].split("</article>", 1)[0]
    assert "[ ]" not in article and article.count('type="checkbox"') == 3
    assert 'type="text"' not in article and "onerror" not in article  # what the file writes is still sanitised
