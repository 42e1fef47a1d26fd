"""Session 49: four defects left last session, each against real files, a real index and real processes.

1. An index made before a tool's output ahead of a session's first turn was kept (session 48) reads its sessions
   again, though their files did not change (the chunking signature, `chunking.VERSION`).
2. A carriage return alone in the opening fence's comment (``--- # tags\r``) of a note whose lines end with a line
   feed is read as U+2028 in the same place is, or reported saying so: not as classic Mac OS line endings.
3. The dashboard's Undo of a tagging (whole, partly, the rest) is no tagging of its own in the list of recent
   taggings, and the tagging it undid is listed as partly undone, or undone.
4. `remember` (command line and MCP) says the secrets redacted in the note it wrote, not the whole index's.
"""

from __future__ import annotations

import json
import re

import pytest

from gitrepo import git, tachikoma_cli
from test_inputs_s48 import ANSWER, EARLY_OUTPUT, jsonl, output_line

# --------------------------------------------------------------------------- 1. early tool outputs, indexed before


def test_an_index_made_before_early_outputs_were_kept_reads_the_session_again(tmp_path, monkeypatch):
    """The reader started keeping a tool's output that comes before a session's first turn, but the chunking
    signature stayed the same: an indexed session got its early output only when its file next changed."""
    from tachikoma import chunking
    from tachikoma.indexer import runner

    root = tmp_path / "memory"
    path, lines = EARLY_OUTPUT["claude-code"]
    (root / path).parent.mkdir(parents=True)
    (root / path).write_text(jsonl(lines), encoding="utf-8")
    (root / "notes.md").write_text("# Notes\n\nThe deploy runs on Fridays.\n")

    # The index the previous tachikoma wrote: chunking version 6, whose reader left an early output out.
    with monkeypatch.context() as previous:
        previous.setattr(chunking, "VERSION", 6)
        previous.setattr("tachikoma.transcripts.place_early_outputs", lambda result: result.early_outputs.clear())
        runner.run(root, embedder_name="hash")

    def found() -> list[dict]:
        done = tachikoma_cli(root, "search", "zebrafish vault", "--json", "--min-score", "0")
        assert done.returncode == 0, done.stderr
        return [r for r in json.loads(done.stdout)["results"] if r["tool_matches"]]

    assert found() == []  # what the previous version's index held
    done = tachikoma_cli(root, "index", "--embedder", "hash", "--json")  # the file untouched
    assert done.returncode == 0, done.stderr
    [result] = found()
    assert result["path"] == path
    [match] = result["tool_matches"]
    assert (match["side"], match["line"]) == ("output", output_line(lines)) and ANSWER in match["excerpt"]
    summary = json.loads(done.stdout)
    assert summary["rechunked"] == 2 and summary["chunks_embedded"] == 0, summary  # read again, nothing embedded


# --------------------------------------------------------------------------- 2. a carriage return in `--- # comment`

#: Notes whose lines end with a line feed (or CRLF) but whose opening fence's comment holds a carriage return alone,
#: after which comes a comment or nothing: every YAML reader ends the line there, and what follows it is no YAML.
READ_ALIKE = {
    "cr-then-comment.md": "--- # tags\r# see the wiki\ntrust: owner\n---\n# Printer\n\nFloor 3.\r\n",
    "cr-then-spaces.md": "--- # tags\r   \ntrust: owner\n---\n# Printer\n\nFloor 3.\n",
    "cr-before-crlf.md": "--- # tags\r\r\ntrust: owner\r\n---\r\n# Printer\r\n\r\nFloor 3.\r\n",
}
#: The same with text after the carriage return: YAML to every YAML reader, on the fence's own line to a reader
#: of lines (tachikoma's editing, an editor's): reported, never guessed at.
REPORTED = {
    "cr-ends-the-comment.md": ("--- # tags\rtrust: self\ntrust: owner\n---\n# Printer\n", "trust: self"),
    "cr-inside-the-comment.md": ("--- # tags\r, see the wiki\ntrust: owner\n---\n# Printer\n", ", see the wiki"),
    "cr-then-a-tab.md": ("--- # tags\r\t# see the wiki\ntrust: owner\n---\n# Printer\n", "tab"),
}


def read_front_matter_of(root, name, text, read_front_matter):
    """`read_front_matter` (which reads the head of the file alone, `read_head`) of `text` written to `root/name`."""
    (root / name).write_bytes(text.encode())
    return read_front_matter(root / name)


@pytest.mark.parametrize("name", sorted(READ_ALIKE))
def test_a_carriage_return_in_the_fences_comment_then_a_comment_is_read(git_memory, name):
    """Reported as "classic Mac OS line endings" (convert with mac2unix), though its lines end with line feeds;
    read now, as U+2028 there is, and tagged with its body and fence line byte for byte."""
    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import read_front_matter, split

    text = READ_ALIKE[name]
    fm = split(text)
    assert fm.error is None and fm.meta == {"trust": "owner"}, fm.error
    (git_memory / name).write_bytes(text.encode())
    assert read_front_matter(git_memory / name).meta == {"trust": "owner"}
    document = reader.read_document(git_memory, name, "markdown")
    assert document.tags.trust == "owner" and document.warnings == [], document.warnings
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "a note")
    done = tachikoma_cli(git_memory, "tag", "--path", name, "--trust", "self", "--overwrite")
    assert done.returncode == 0, done.stderr
    written = (git_memory / name).read_bytes().decode()
    assert written.startswith(text.split("\n", 1)[0] + "\n") and written.endswith(fm.body)
    assert written.replace("trust: self", "trust: owner") == text and split(written).meta == {"trust": "self"}


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_a_carriage_return_in_the_fences_comment_then_text_is_reported_as_such(git_memory, name):
    """Reported as classic Mac OS line endings; now as malformed front matter naming the carriage return in the
    fence's comment, on every face, and never tagged."""
    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import read_front_matter, split

    text, shown = REPORTED[name]
    for fm in (split(text), read_front_matter_of(git_memory, name, text, read_front_matter)):
        assert fm.meta == {} and fm.error.startswith("malformed front matter at line 1: the comment after the "
                                                     "opening --- holds a carriage return"), fm.error
        assert shown in fm.error and "classic Mac" not in fm.error and "mac2unix" not in fm.error
    assert any("carriage return" in w and "classic Mac" not in w
               for w in reader.read_document(git_memory, name, "markdown").warnings)
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "a note")
    done = tachikoma_cli(git_memory, "tag", "--path", name, "--trust", "self", "--overwrite")
    assert f"skipped {name}: malformed front matter at line 1: the comment after the opening --- holds a " \
           "carriage return" in done.stderr, done.stderr
    assert (git_memory / name).read_bytes() == text.encode()


@pytest.mark.parametrize("text", ["---\rtrust: owner\r---\rbody\r", "--- # tags\rtrust: owner\r---\rbody\r",
                                  "--- # tags\r# see the wiki\rtrust: owner\r---\rbody\r", "---\r"])
def test_a_note_whose_lines_do_end_with_a_carriage_return_is_still_named_so(tmp_path, text):
    from tachikoma.reading.frontmatter import CR_ONLY, read_front_matter, split

    assert split(text).error == CR_ONLY
    assert read_front_matter_of(tmp_path, "old-mac.md", text, read_front_matter).error == CR_ONLY


# --------------------------------------------------------------------------- 3. an undo is no tagging of its own


def recent_items(client) -> list[str]:
    """The recent taggings the page lists, each as read (`words`)."""
    from test_undo_frontmatter_s48 import undo_list, words

    html = undo_list(client)
    return [words(item).strip() for item in re.findall(r"<li data-tagging.*?</details>.*?</li>", html, re.S)]


def test_an_undo_is_never_listed_as_a_tagging_and_the_tagging_says_how_far_it_is_undone(tmp_path):
    """Each Undo commits with the tagging trailer, and the list read that commit from git as a tagging "by the
    command line or a local dashboard" (one more after every Undo the rest), which could then be "undone" with git;
    and once the tagging was undone, it was listed as a tagging someone else made, not as undone."""
    from test_undo_frontmatter_s48 import dashboard, words
    from web_helpers import build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app, client, token = dashboard(root)
    form = {"kind": "markdown", "path": "/*", "confidence": "low", "mode": "overwrite"}
    preview = client.get("/tag", query_string={"preview": "1", **form}).get_data(as_text=True)
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', preview)[1]
    html = client.post("/tag/apply", data={**form, "fingerprint": fingerprint, "csrf_token": token}).get_data(
        as_text=True)
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html)[1]
    tagging = git(root, "rev-parse", "HEAD").strip()
    locked = root / "identity.md"
    locked.chmod(0o444)

    for _ in range(2):  # an undo that leaves the locked note, twice
        html = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
        assert "partly-undone" in html or "not-undone" in html, words(html)
        assert "Undo tagging" not in words(html.split('id="tag-recent"', 1)[-1])  # the result page's list
        [item] = recent_items(client)
        assert item.startswith(f"Tag 3 files (confidence=low) just now · commit {tagging[:10]}"), item
        assert "Partly undone just now: 2 of 3 files restored" in item and "Undo the rest" in item, item

    locked.chmod(0o644)
    html = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
    assert 'data-result="undone"' in html, words(html)
    assert git(root, "log", "-1", "--format=%s").startswith("tachikoma: undo tagging of 1 file")
    [item] = recent_items(client)
    assert item.startswith(f"Tag 3 files (confidence=low) just now · commit {tagging[:10]}"), item
    assert "Undone just now" in item and "Undo" not in item.replace("Undone", ""), item
    assert "left to undo" not in item
    app.extensions["tachikoma"].index_job.wait(30)


def test_a_tagging_undone_in_one_go_is_listed_undone(tmp_path):
    from test_undo_frontmatter_s48 import dashboard
    from web_helpers import build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app, client, token = dashboard(root)
    plan = client.get("/tag", query_string={"preview": "1", "defaults": "1"}).get_data(as_text=True)
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', plan)[1]
    html = client.post("/tag/apply", data={"defaults": "1", "fingerprint": fingerprint, "csrf_token": token}
                       ).get_data(as_text=True)
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html)[1]
    html = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
    assert 'data-result="undone"' in html
    [item] = recent_items(client)
    assert item.startswith("Tag 2 files (trust=self") and "Undone just now" in item, item
    assert undo_url not in html.split('id="tag-recent"', 1)[-1]
    app.extensions["tachikoma"].index_job.wait(30)


def test_a_tagging_no_dashboard_can_undo_carries_no_undo_key(tmp_path):
    """A tagging made on the command line is listed with `data-undo="None"`: the key it has not, as text."""
    from test_undo_frontmatter_s48 import dashboard, undo_list
    from web_helpers import build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    assert tachikoma_cli(root, "tag", "--kind", "markdown", "--path", "/*", "--confidence", "low",
                         "--overwrite").returncode == 0
    app, client, _token = dashboard(root)
    html = undo_list(client)
    assert "data-tagging" in html and "by the command line" in html
    assert "data-undo" not in html, html
    app.extensions["tachikoma"].index_job.wait(30)


# --------------------------------------------------------------------------- 4. remember's secrets: the note's own

#: What `remember` says of a note holding one key.
ONE_IN_THE_NOTE = "1 secret redacted in the note (shown as [secret: …]; [privacy] redact_secrets, docs/privacy.md)"


@pytest.fixture
def secrets_mem(tmp_path):
    """The secret memory (tests/secret_memory.py: 10 secrets in 2 files), indexed."""
    from secret_memory import secret_memory

    root = secret_memory(tmp_path / "memory")
    assert tachikoma_cli(root, "index").returncode == 0
    return root


def test_the_command_line_remember_says_the_secrets_of_the_note_it_wrote(secrets_mem):
    """A clean note was said to hold "10 secrets redacted in 2 files": the whole index's."""
    from test_inputs_s48 import note_with_a_key

    clean = tachikoma_cli(secrets_mem, "remember", "the printer is on floor 3", "--title", "Printer")
    assert clean.returncode == 0 and "secret" not in clean.stdout, clean.stdout
    data = json.loads(tachikoma_cli(secrets_mem, "remember", "the scanner is on floor 2", "--title", "Scanner",
                                    "--json").stdout)
    assert data["indexed"] and data["secrets_redacted"] == {"secrets": 0, "files": 0}, data
    keyed = tachikoma_cli(secrets_mem, "remember", note_with_a_key(), "--title", "CI token")
    assert keyed.returncode == 0 and keyed.stdout.splitlines()[-1] == ONE_IN_THE_NOTE, keyed.stdout
    stats = json.loads(tachikoma_cli(secrets_mem, "stats", "--json").stdout)  # the index's count is the index's
    assert stats["index"]["secrets_redacted"] == {"secrets": 11, "files": 3}


def test_mcp_remember_says_the_secrets_of_the_note_it_wrote(secrets_mem):
    from mcp_helpers import run_tools
    from test_inputs_s48 import SAID_AFTER_REMEMBER, note_with_a_key

    (clean_error, clean_text, clean), (error, text, keyed), (stats_error, stats_text, _) = run_tools(
        secrets_mem, ("remember", {"text": "the printer is on floor 3", "title": "Printer"}),
        ("remember", {"text": note_with_a_key(), "title": "CI token"}), ("stats", {}))
    assert not clean_error and clean_text.endswith("; searchable now") and "secret" not in clean_text, clean_text
    assert clean["secrets_redacted"] == {"secrets": 0, "files": 0}, clean
    assert not error and text.endswith(f"; searchable now; {ONE_IN_THE_NOTE}"), text
    assert keyed["secrets_redacted"] == {"secrets": 1, "files": 1}, keyed
    assert not stats_error and f" {SAID_AFTER_REMEMBER}." in stats_text, stats_text  # the index's, as before
