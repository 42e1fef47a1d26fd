"""Session 48: inputs a demanding user writes, against real files and real git repositories.

Front matter opened by ``--- # a comment`` whose comment holds a line break YAML counts and Python's lines do not
(U+2028, U+2029, U+0085); a dashboard Undo that leaves files as they are (read-only, removed, retagged by hand):
partly undone, and the rest undone once the reasons are fixed.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from gitrepo import git, tachikoma_cli, tag

#: The line breaks YAML (1.1, as PyYAML and libyaml read it) counts inside a line that a "\n" does not end.
BREAKS = {"\u2028": "U+2028", "\u2029": "U+2029", "\x85": "U+0085"}


def commit_note(root: Path, name: str, data: bytes) -> Path:
    note = root / name
    note.write_bytes(data)
    git(root, "add", name)
    git(root, "commit", "-q", "-m", name)
    return note


# --------------------------------------------------------------------------- 1. a comment YAML reads as a comment


@pytest.mark.parametrize("char", list(BREAKS))
@pytest.mark.parametrize("after", ["# the wiki has the rest", "", "  ", "  # indented"])  # a tab: reported (s48 adversarial)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_comment_holding_a_yaml_line_break_before_another_comment_is_read(tmp_path, char, after, newline):
    """`--- # tags<U+2028># more`: every YAML reader sees comments there (YAML 1.1 breaks the line and the rest is a
    comment too; YAML 1.2 reads one comment), so the front matter is read; it was body text, its tags ignored."""
    from tachikoma.reading.frontmatter import read_front_matter, split

    text = (f"--- # tags, see the wiki{char}{after}{newline}trust: owner{newline}confidence: high{newline}---{newline}"
            f"# Printer{newline}floor 3{char}by the window{newline}")
    fm = split(text)
    assert fm.error is None and fm.meta == {"trust": "owner", "confidence": "high"}, fm
    assert fm.body == f"# Printer{newline}floor 3{char}by the window{newline}" and fm.body_line == 5
    note = tmp_path / "n.md"
    note.write_bytes(text.encode("utf-8"))
    read = read_front_matter(note)
    assert read.error is None and read.meta == {"trust": "owner", "confidence": "high"}


def test_such_a_note_is_counted_tagged_in_place_and_undone_byte_for_byte(git_memory):
    """Tagging it wrote a second front matter block above the first (its opening line taken for body text), and
    stats counted it untagged."""
    from tachikoma.tagging import applying
    from tachikoma.tagging.model import Change

    text = ("--- # tags, see the wiki\u2028# (pasted from the team page)\ntitle: Printer notes\n"
            "trust: owner  # I wrote it\nconfidence: high\n---\n# Printer\n\nfloor 3\u2028by the window\x85\n")
    note = commit_note(git_memory, "printer.md", text.encode("utf-8"))
    before = json.loads(tachikoma_cli(git_memory, "stats", "--json").stdout)
    assert not [p for p in before["problems"] if p["path"] == "printer.md"], before["problems"]
    done = tachikoma_cli(git_memory, "tag", "--path", "printer.md", "--trust", "external", "--source", "web",
                         "--overwrite", "--json")
    answer = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(c["path"], c["before"], c["after"]) for c in answer["changes"]] == [
        ("printer.md", {"trust": "owner"}, {"trust": "external", "source": "web"})], answer
    tagged = note.read_bytes().decode("utf-8")
    assert tagged == text.replace("trust: owner  #", "trust: external  #").replace(
        "confidence: high\n", "confidence: high\nsource: web\n")
    assert tagged.count("---") == 2 and git(git_memory, "status", "--porcelain") == ""
    undone = applying.undo(git_memory, [Change("printer.md", "markdown", {"trust": "owner"},
                                               {"trust": "external", "source": "web"})])
    assert not undone.skipped and note.read_bytes() == text.encode("utf-8")


# --------------------------------------------------------------------------- 2. a comment YAML would read as YAML


@pytest.mark.parametrize("char", list(BREAKS))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_comment_whose_rest_yaml_reads_as_a_value_is_reported_not_guessed(tmp_path, char, newline):
    """`--- # tags<U+2028>see the wiki`: YAML 1.1 (PyYAML, libyaml: tachikoma's) ends the line at U+2028 and reads
    "see the wiki" as YAML, YAML 1.2 reads it as part of the comment. Not read as front matter, and said, with the
    character and its line, as other unreadable front matter is."""
    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import read_front_matter, split

    text = (f"--- # tags for Martin{char}see the wiki{newline}trust: owner{newline}---{newline}# Printer{newline}")
    fm = split(text)
    assert fm.meta == {} and fm.error is not None, fm
    assert fm.error.startswith("malformed front matter at line 1: ") and BREAKS[char] in fm.error, fm.error
    assert "see the wiki" in fm.error and "comment" in fm.error
    assert fm.body == f"# Printer{newline}"
    note = tmp_path / "martin.md"
    note.write_bytes(text.encode("utf-8"))
    assert read_front_matter(note).error == fm.error
    document = reader.read_document(tmp_path, "martin.md", "markdown")
    assert document.tags.trust is None
    assert [w for w in document.warnings if BREAKS[char] in w and w.startswith("martin.md:1: malformed front")], \
        document.warnings


def test_such_a_note_is_skipped_by_every_face_with_the_reason_and_never_rewritten(git_memory):
    from tachikoma.tagging import model, planning

    data = "--- # tags\u2028trust: self\nconfidence: high\n---\n# Anna\n\nBody\u2028line.\n".encode("utf-8")
    note = commit_note(git_memory, "anna.md", data)
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern="anna.md"), overwrite=True)
    assert planned.changes == [] and "U+2028" in dict(planned.skipped)["anna.md"], planned.skipped
    done = tachikoma_cli(git_memory, "tag", "--path", "anna.md", "--path", "martin.md", "--trust", "external",
                         "--overwrite", "--json")
    answer = json.loads(done.stdout)
    assert done.returncode == 1 and [c["path"] for c in answer["changes"]] == ["martin.md"], answer
    assert "U+2028" in {s["path"]: s["reason"] for s in answer["skipped"]}["anna.md"]
    assert note.read_bytes() == data and git(git_memory, "status", "--porcelain") == ""
    stats = json.loads(tachikoma_cli(git_memory, "stats", "--json").stdout)
    problems = {p["path"]: p for p in stats["problems"]}
    assert "U+2028" in problems["anna.md"]["reason"] and problems["anna.md"]["kind"] == "front-matter", problems


# --------------------------------------------------------------------------- 3. an Undo that leaves files as they are


READ_ONLY = "read-only (mode 0444)"


def dashboard(root: Path):
    from tachikoma_dashboard.app import create_app
    from web_helpers import Client

    app = create_app(memory=root, port=5000)
    app.test_client_class = Client
    client = app.test_client()
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', client.get("/tag").get_data(as_text=True))[1]
    return app, client, token


def words(html: str) -> str:
    """The text of `html` as read: tags out, spaces collapsed (`<code>a.md</code>: why` reads "a.md: why")."""
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))).replace(" :", ":")


def undo_list(client) -> str:
    return client.get("/tag/recent", headers={"HX-Request": "true"}).get_data(as_text=True)


def test_an_undo_that_leaves_files_as_they_are_is_partly_undone_and_undoes_them_once_fixed(tmp_path):
    """A note made read-only since the tagging and one removed were left as they were, yet the tagging was recorded
    undone: its Undo was gone ("Already undone"), and those two notes kept the tags for good. Now the result says
    which files were restored and which not, and why; the tagging is listed as partly undone, with an Undo of the
    rest, which restores them once the reasons are fixed, byte for byte and committed."""
    from web_helpers import build_index, copy_memory, snapshot

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app, client, token = dashboard(root)
    original = snapshot(root)
    form = {"kind": "markdown", "path": "/*", "confidence": "low", "mode": "overwrite"}
    preview = client.get("/tag", query_string={"preview": "1", **form}).get_data(as_text=True)
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', preview)[1]
    html = client.post("/tag/apply", data={**form, "fingerprint": fingerprint, "csrf_token": token}).get_data(
        as_text=True)
    assert "Tagged 3 files" in words(html), words(html)
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html)[1]
    locked, removed = root / "identity.md", root / "martin.md"
    locked.chmod(0o444)
    tagged = locked.read_bytes()
    removed.unlink()

    html = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
    said = words(html)
    assert 'data-result="partly-undone"' in html and "Partly undone: 1 of 3 files restored" in said, said
    left = said.split("2 files not restored", 1)[1]
    assert f"identity.md: {READ_ONLY}" in left and "martin.md: no longer exists" in left, left
    assert "not tagged" not in left and "to undo it" in left  # said of an undo, not of a tagging
    assert (root / "rumours.md").read_bytes() == original["rumours.md"] and locked.read_bytes() == tagged
    assert f'action="{undo_url}"' in html and "Undo the rest" in said  # still undoable, here ...
    listed = words(undo_list(client))
    assert undo_url in undo_list(client) and "Partly undone just now: 1 of 3 files restored" in listed, listed
    assert git(root, "status", "--porcelain").split() == ["D", "martin.md"]  # the restored note is committed

    again = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)  # nothing fixed yet
    assert "Not undone: 2 files left as they are" in words(again) and f'action="{undo_url}"' in again, words(again)
    assert locked.read_bytes() == tagged and not removed.exists()

    locked.chmod(0o644)
    git(root, "checkout", "--", "martin.md")  # the note back, as the tagging left it
    _, restarted, restarted_token = dashboard(root)  # ... and after a restart
    assert undo_url in undo_list(restarted)
    done = restarted.post(undo_url, data={"csrf_token": restarted_token}).get_data(as_text=True)
    assert 'data-result="undone"' in done and "Undone: 2 files restored" in words(done), words(done)
    assert snapshot(root) == original and git(root, "status", "--porcelain") == ""
    assert undo_url not in undo_list(restarted)
    last = restarted.post(undo_url, data={"csrf_token": restarted_token})
    assert last.status_code == 409 and "already undone" in words(last.get_data(as_text=True))
    app.extensions["tachikoma"].index_job.wait(30)


def test_a_transcript_retagged_by_hand_since_stays_to_undo_and_the_tag_file_comes_back_byte_for_byte(tmp_path):
    from web_helpers import build_index, copy_memory, snapshot

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app, client, token = dashboard(root)
    original = snapshot(root)
    plan = client.get("/tag", query_string={"preview": "1", "defaults": "1"}).get_data(as_text=True)
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', plan)[1]
    html = client.post("/tag/apply", data={"defaults": "1", "fingerprint": fingerprint, "csrf_token": token}
                       ).get_data(as_text=True)
    assert "Tagged 2 files" in html, words(html)
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html)[1]
    tags = root / "tachikoma-tags.yaml"
    tagged = tags.read_text()
    entry = tagged.index("2026-05-10/design-chat.jsonl:")
    tags.write_text(tagged[:entry] + tagged[entry:].replace("trust: self", "trust: owner", 1))  # by hand

    said = words(client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True))
    assert "Partly undone: 1 of 2 files restored" in said, said
    assert "2026-05-10/design-chat.jsonl: its tags changed since the tagging (trust is now 'owner')" in said
    assert "trust: owner" in tags.read_text() and "2026-03-22/session-abc.jsonl" not in tags.read_text()

    now = tags.read_text()
    tags.write_text(now.replace("trust: owner", "trust: self", 1))  # the hand edit taken back
    said = words(client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True))
    assert "Undone: 1 file restored" in said, said
    assert snapshot(root) == original and git(root, "status", "--porcelain") == ""
    app.extensions["tachikoma"].index_job.wait(30)


def test_what_is_left_to_undo_is_the_files_left_with_their_exact_bytes(git_memory):
    """The engine's account, from which every face words it: a note made read-only since and a transcript retagged
    by hand are left; the rest keeps the note's exact former head, and the tag file is undone key by key (its
    bytes before the tagging would take back the transcript already restored too)."""
    from tachikoma.tagging import undoing

    locked, tags = git_memory / "martin.md", git_memory / "tachikoma-tags.yaml"
    before = {p: p.read_bytes() for p in (locked, git_memory / "rumours.md", tags)}
    applied = tag(git_memory, "*", "external")
    paths = set(applied.paths)
    assert {"martin.md", "rumours.md", "2026-05-10/design-chat.jsonl", "2026-03-22/session-abc.jsonl"} <= paths
    locked.chmod(0o444)
    tags.write_text(tags.read_text().replace("trust: external", "trust: owner", 1))  # the first entry, by hand
    hand = tags.read_text().split("trust: owner", 1)[0].rsplit("\n", 2)[-2].rstrip(":").strip('"')
    outcome = undoing.undo(git_memory, applied)
    assert outcome.state == undoing.PARTLY and outcome.rest is not None
    assert sorted(s.path for s in outcome.progress.left) == sorted(["martin.md", hand]) == sorted(outcome.rest.paths)
    assert set(outcome.progress.restored) == paths - {"martin.md", hand}
    reasons = dict(outcome.progress.left)
    assert "to undo it; not undone" in reasons["martin.md"] and "its tags changed since the tagging" in reasons[hand]
    assert outcome.rest.restore["martin.md"] == applied.restore["martin.md"]
    assert "tachikoma-tags.yaml" not in outcome.rest.restore
    assert (git_memory / "rumours.md").read_bytes() == before[git_memory / "rumours.md"]

    locked.chmod(0o644)
    tags.write_text(tags.read_text().replace("trust: owner", "trust: external", 1))
    last = undoing.undo(git_memory, outcome.rest, earlier=outcome.progress)
    assert last.state == undoing.UNDONE and last.rest is None and last.headline() == "Undone: 2 files restored"
    assert "were restored by an earlier Undo" in last.note()
    assert {p: p.read_bytes() for p in before} == before and git(git_memory, "status", "--porcelain") == ""
