"""Session 50: defects left by session 49, each against real files (and, where it matters, a real git repository).

3. A tag line added to front matter whose lines end differently takes the ending the block's own lines use, or
   when it has none, the one most of the file uses, not the opening fence's.
4. A line break YAML 1.1 counts right after an opening fence with no comment (`---` U+2028 `trust: owner`) is told
   what it does there and to put a line break in its place, not that YAML 1.2 reads the rest as comment.
5. The dashboard's list of recent taggings says of each what is true: undone (by its note, or by git when the note
   was written before it named the tagging or is past those kept), partly undone, or why it cannot be undone here.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from gitrepo import git, tachikoma_cli, tag

# --------------------------------------------------------------------------- 3. a new tag line's line ending

#: (note, what `tag --trust self --overwrite` makes of it), byte for byte.
ENDINGS = {
    # The fence ends CRLF, the closing fence LF, and the body ends with a carriage return alone: the block has no
    # line of its own and the file's lines tie; the line goes above the closing fence and ends as it does.
    "fence-crlf.md": (b"--- # tags\r\n---\nbody\r", b"--- # tags\r\ntrust: self\n---\nbody\r"),
    # The block's own line ends LF though both fences and the body end CRLF: the new line as the block's.
    "block-lf.md": (b"---\r\ntitle: Printer\n---\r\n# Printer\r\n\r\nFloor 3.\r\n",
                    b"---\r\ntitle: Printer\ntrust: self\n---\r\n# Printer\r\n\r\nFloor 3.\r\n"),
    # An empty block between LF fences, in a note of CRLF lines: the ending most of the file uses.
    "empty-block.md": (b"---\n---\n# Printer\r\nFloor 3.\r\nRoom 12.\r\n",
                       b"---\ntrust: self\r\n---\n# Printer\r\nFloor 3.\r\nRoom 12.\r\n"),
    # A line rewritten keeps its own ending (it took the block's CRLF); the key added takes the block's.
    "rewritten.md": (b"---\r\ntrust: owner\nsource: chat\r\ntitle: Printer\r\n---\r\nFloor 3.\n",
                     b"---\r\ntrust: self\nsource: chat\r\ntitle: Printer\r\nconfidence: low\r\n---\r\nFloor 3.\n"),
}


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_a_new_tag_line_ends_as_the_blocks_lines_or_the_files_do(git_memory, name):
    """``--- # tags`` CRLF, ``---`` LF: the line added between them took the opening fence's CRLF, one more line
    ending a file of LF lines had not used. Tagged on the command line in a git memory; the body byte for byte."""
    from tachikoma.reading.frontmatter import split

    before, after = ENDINGS[name]
    (git_memory / name).write_bytes(before)
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "a note")
    values = ["--trust", "self"] + ["--confidence", "low"] * (name == "rewritten.md")
    done = tachikoma_cli(git_memory, "tag", "--path", name, *values, "--overwrite")
    assert done.returncode == 0, done.stderr
    written = (git_memory / name).read_bytes()
    assert written == after, written
    assert split(written.decode()).body == split(before.decode()).body
    committed = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=git_memory, capture_output=True, check=True)
    assert committed.stdout == after  # committed as written (`git` reads text: its line endings would be lost)


# --------------------------------------------------------------------------- 4. a YAML line break after a bare fence

#: A line break YAML 1.1 counts right after an opening fence with no comment, then text: (note, the break's name).
BARE_FENCE = {
    "ls.md": ("---\u2028trust: owner\nconfidence: high\n---\n# Printer\n", "line separator (U+2028)"),
    "ls-after-spaces.md": ("--- \u2028trust: owner\r\n---\r\n# Printer\r\n", "line separator (U+2028)"),
    "nel.md": ("---\x85trust: owner\n---\n# Printer\n", "next line (U+0085)"),
    "cr.md": ("---\rtrust: owner\nconfidence: high\n---\n# Printer\n", "carriage return"),
}


@pytest.mark.parametrize("name", sorted(BARE_FENCE))
def test_a_yaml_break_after_a_bare_fence_says_what_happens_and_what_to_do(git_memory, name):
    """`---` U+2028 `trust: owner` was told "`trust: owner` would be read as YAML and not as comment (YAML 1.2 reads
    it as comment); remove that character, or start the text after it with #": there is no comment (to YAML 1.2 the
    --- line goes on and opens nothing), and removing the character leaves `---trust: owner`, no fence at all. Now it
    says so and to put a line break there, which makes the note's front matter read; on every face that reports."""
    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import read_front_matter, split

    text, brk = BARE_FENCE[name]
    fm = split(text)
    assert fm.meta == {} and fm.error.startswith(f"malformed front matter at line 1: the opening --- line holds a "
                                                 f"{brk}"), fm.error
    assert "comment" not in fm.error and "start the text after it with #" not in fm.error, fm.error
    assert fm.error.endswith("; put a line break in place of that character to make `trust: owner` a line of the "
                             "front matter, or remove that character and the text after it"), fm.error
    if brk != "carriage return":
        assert ("would be a line of YAML to YAML 1.1 but to YAML 1.2, which reads no line break there, part of the "
                "--- line, which then opens no front matter") in fm.error, fm.error
    (git_memory / name).write_bytes(text.encode())
    assert read_front_matter(git_memory / name).error == fm.error
    told = fm.error.removeprefix("malformed front matter at line 1: ")
    assert f"{name}:1: malformed front matter: {told}; the whole file is indexed as text" in \
        reader.read_document(git_memory, name, "markdown").warnings
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "a note")
    done = tachikoma_cli(git_memory, "tag", "--path", name, "--trust", "self", "--overwrite")
    assert f"skipped {name}: {fm.error}" in done.stderr and (git_memory / name).read_bytes() == text.encode()
    # As told: a line break in place of the character, and the front matter is read.
    at = text.index("trust") - 1
    fixed = text[:at] + "\n" + text[at + 1:]
    assert split(fixed).meta["trust"] == "owner" and split(fixed).error is None, fixed


def test_a_yaml_break_inside_the_fences_comment_is_still_told_as_one():
    """In a comment (`--- # tags` U+2028 `see the wiki`) YAML 1.2 does read the rest as comment: said as before."""
    from tachikoma.reading.frontmatter import split

    error = split("--- # tags\u2028see the wiki\ntrust: owner\n---\nbody\n").error
    assert error.endswith("so `see the wiki` after it would be read as YAML and not as comment (YAML 1.2 reads it "
                          "as comment); remove that character, or start the text after it with #"), error


# --------------------------------------------------------------------------- 5. the list of recent taggings


def applied_in_dashboard(root, client, token) -> tuple[str, str]:
    """A tagging of the example's three notes made in the dashboard: its Undo's address and its commit."""
    form = {"kind": "markdown", "path": "/*", "confidence": "low", "mode": "overwrite"}
    preview = client.get("/tag", query_string={"preview": "1", **form}).get_data(as_text=True)
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', preview)[1]
    html = client.post("/tag/apply", data={**form, "fingerprint": fingerprint, "csrf_token": token}).get_data(
        as_text=True)
    return re.search(r'action="(/tag/undo/[^"]+)"', html)[1], git(root, "rev-parse", "HEAD").strip()


def undo_folder(root):
    return root / ".cache" / "undo"


def test_a_tagging_undone_is_listed_undone_whatever_notes_the_dashboard_still_keeps(tmp_path):
    """The list told a tagging undone only by the dashboard's note naming its commit: one undone before session 49
    (whose note named only the undo's commit) or past the 50 notes kept was listed as a tagging "by the command line
    or a local dashboard", with nothing said of its undo. Git tells it: the undo commit reversed its every change,
    though a note's body was written and committed between the tagging and its undo."""
    from test_defects_s49 import recent_items
    from test_undo_frontmatter_s48 import dashboard
    from web_helpers import build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app, client, token = dashboard(root)
    undo_url, tagging = applied_in_dashboard(root, client, token)
    with open(root / "martin.md", "a", encoding="utf-8") as note:
        note.write("\nMartin moved the retro to Fridays.\n")
    git(root, "commit", "-q", "-am", "martin: the retro moved")
    html = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
    assert 'data-result="undone"' in html
    undo = git(root, "rev-parse", "HEAD").strip()
    assert b"retro to Fridays" in (root / "martin.md").read_bytes()  # the body written since stays
    [note] = undo_folder(root).glob("*.undone")
    said = {}
    for case in ("its note", "a note written before session 49", "no note (past the 50 kept)"):
        if case == "a note written before session 49":  # it named the undo's commit, not the tagging's
            written = json.loads(note.read_bytes())
            note.write_text(json.dumps({"undone": written["undone"], "commit": written["commit"]}))
        elif case.startswith("no note"):
            note.unlink()
        [item] = recent_items(client)
        assert item.startswith(f"Tag 3 files (confidence=low) just now · commit {tagging[:10]}"), (case, item)
        assert f"Undone just now by commit {undo[:10]}: every file restored" in item, (case, item)
        assert "Cannot be undone" not in item and "Undo" not in item.replace("Undone", ""), (case, item)
        said[case] = item
    assert said["its note"].replace("this dashboard", "a dashboard") == said["no note (past the 50 kept)"]
    app.extensions["tachikoma"].index_job.wait(30)


def test_a_tagging_without_an_undo_here_says_why(tmp_path):
    """A tagging the list shows with no Undo said nothing of it: the command line's and MCP's (they keep none) and
    a dashboard's whose record is gone (it keeps its newest 50), undone or partly undone or not at all."""
    from tachikoma.mcp_server import AGENT_NOTE
    from tachikoma.tagging import applying, model, planning
    from test_defects_s49 import recent_items
    from test_undo_frontmatter_s48 import dashboard
    from web_helpers import build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app, client, token = dashboard(root)
    undo_url, dashboards = applied_in_dashboard(root, client, token)
    locked = root / "identity.md"
    locked.chmod(0o444)
    html = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
    assert "partly-undone" in html
    locked.chmod(0o644)
    partly = git(root, "rev-parse", "HEAD").strip()
    [item] = recent_items(client)
    assert "Partly undone just now: 2 of 3 files restored" in item and "Undo the rest" in item, item
    for record in undo_folder(root).glob("*"):  # the record forgotten (past the newest 50 kept)
        record.unlink()
    [item] = recent_items(client)
    assert item.startswith(f"Tag 3 files (confidence=low) just now · commit {dashboards[:10]} · by a dashboard"), item
    assert f"Partly undone just now by commit {partly[:10]}: 2 of 3 files restored" in item, item
    assert ("The rest cannot be undone here: the dashboard keeps the undo of its newest 50 taggings, and this one's "
            f"is not among them; git show {dashboards[:10]} shows what it changed.") in item, item
    assert "Undo" not in item.replace("undone", "").replace("Undone", ""), item

    assert tachikoma_cli(root, "tag", "--path", "martin.md", "--source", "meeting", "--overwrite").returncode == 0
    cli = git(root, "rev-parse", "HEAD").strip()
    planned = planning.plan(root, {"confidence": "medium"}, model.Selector(pattern="rumours.md"), overwrite=True)
    mcp = applying.apply(root, planned, commit=True, note=AGENT_NOTE).commit
    html = client.get("/tag/recent", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "data-undo" not in html  # no Undo button for any of them
    by_mcp, by_cli, _dashboards = recent_items(client)
    assert by_mcp.endswith(f"· by an agent (MCP) Cannot be undone here: an agent made it through MCP, which keeps no "
                           f"undo; git revert {mcp[:10]} undoes it. 1 file rumours.md"), by_mcp
    assert by_cli.endswith(f"· by the command line or a local dashboard Cannot be undone here: the command line keeps "
                           "no undo, and if a dashboard made it, the dashboard keeps the undo of its newest 50 "
                           f"taggings, and this one's is not among them; git revert {cli[:10]} undoes it. 1 file martin.md"), \
        by_cli
    app.extensions["tachikoma"].index_job.wait(30)


def test_git_tells_a_tagging_undone_whatever_its_files_are_named(git_memory):
    """Git quotes a file name holding a quote, a backslash or a letter outside ASCII in a diff's header
    ("b/\\303\\274n\\303\\257.md"): such a note's tagging, undone, is told undone all the same; a tagging no undo
    reversed is not, nor one whose undo reversed only some of its files."""
    from tachikoma.tagging import undoing
    from tachikoma.web.recent_taggings import tagging_commits

    names = ['ünï 日本.md', 'say "hi".md', 'back\\slash.md']
    for name in names:
        (git_memory / name).write_text(f"# {name}\n\nA note.\n", encoding="utf-8")
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "odd names")
    applied = tag(git_memory, "*.md", "external")  # every note, the odd ones among them
    assert {c.path for c in applied.changes} >= set(names)
    (git_memory / "later.md").write_text("# Later\n", encoding="utf-8")  # a note of another tagging, not undone
    git(git_memory, "add", "later.md")
    git(git_memory, "commit", "-q", "-m", "later")
    untouched = tag(git_memory, "later.md", "owner")
    done = undoing.undo(git_memory, applied)
    assert done.rest is None
    found = {c["commit"]: c for c in tagging_commits(git_memory)}
    assert found[applied.commit]["undone"] == {"at": pytest.approx(found[applied.commit]["undone"]["at"]),
                                               "commit": done.done.commit}
    assert "undone" not in found[untouched.commit] and "restored" not in found[untouched.commit]
    # An undo that restores some of a tagging's files: partly, by that commit.
    some = tag(git_memory, "*.md", "untrusted")
    (git_memory / names[0]).chmod(0o444)
    try:
        part = undoing.undo(git_memory, some)
    finally:
        (git_memory / names[0]).chmod(0o644)
    assert part.rest is not None and [c.path for c in part.rest.changes] == [names[0]]
    listed = {c["commit"]: c for c in tagging_commits(git_memory)}[some.commit]
    assert "undone" not in listed and listed["restored"]["commit"] == part.done.commit
    assert listed["restored"]["files"] == len(listed["paths"]) - 1
    assert set(names) <= set(listed["paths"])  # the files' names as they are, not as git quotes them
