"""Session 47: inputs a demanding user writes, against real files, real git repositories and real processes.

`{}` and other lines of a chat transcript that hold no turn, front matter opened by ``--- # a comment``, the
``[git]`` settings of a file given with ``--config``, notes and tag files made read-only (chmod 444), and a tag
file with a line break other than LF or CRLF, or ending in a block scalar without a final line break.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from gitrepo import git, hook, tachikoma_cli
from mcp_helpers import run_tools

#: A pre-commit hook slower than the time limit the tests set (1 s), quick enough that a test which waits for
#: it (the limit not honoured) fails in seconds, not after the default 300 s.
SLOW_HOOK = "sleep 6\n"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the memory but git's own and the cache, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink() and not {".git", ".cache"} & set(p.relative_to(root).parts)}


# --------------------------------------------------------------------------- 3. [git] settings from --config


def test_the_hook_time_limit_of_a_config_file_given_with_the_option_counts(git_memory, tmp_path):
    """`--config FILE` set every other setting, but `[git] hook_timeout` was read from the memory's own
    tachikoma.toml only: a team's settings kept outside the memory waited 300 s for a hung hook."""
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", SLOW_HOOK)
    head = git(git_memory, "rev-parse", "HEAD")
    started = time.monotonic()
    done = tachikoma_cli(git_memory, "--config", str(settings), "tag", "--path", "martin.md", "--trust", "external",
                         "--overwrite", "--json")
    assert time.monotonic() - started < 5.5, "the hook was waited for: the setting was not read"
    answer = json.loads(done.stdout)
    assert done.returncode == 1 and answer["commit"] is None, done.stdout
    assert "did not finish within 1 s ([git] hook_timeout)" in answer["commit_error"], answer["commit_error"]
    assert git(git_memory, "rev-parse", "HEAD") == head


def test_a_bad_hook_time_limit_in_the_config_file_stops_the_run_before_it_writes(git_memory, tmp_path):
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 0\n")
    before = snapshot(git_memory)
    done = tachikoma_cli(git_memory, "--config", str(settings), "tag", "--path", "martin.md", "--trust",
                         "external", "--overwrite")
    assert done.returncode == 1 and "git.hook_timeout must be a number of seconds > 0" in done.stderr, done.stderr
    assert str(settings) in done.stderr
    assert snapshot(git_memory) == before


def test_remember_keeps_to_the_hook_time_limit_of_the_config_file(git_memory, tmp_path):
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", SLOW_HOOK)
    done = tachikoma_cli(git_memory, "--config", str(settings), "remember", "the printer is on floor 3",
                         "--title", "Printer")
    assert "did not finish within 1 s ([git] hook_timeout)" in done.stdout + done.stderr


def test_mcp_tag_and_remember_keep_to_the_hook_time_limit_of_the_server_config_file(git_memory, tmp_path):
    settings = tmp_path / "team.toml"
    settings.write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", SLOW_HOOK)
    (tag_error, _, tagged), (remember_error, _, remembered) = run_tools(
        git_memory, ("tag", {"paths": ["martin.md"], "confidence": "low"}),
        ("remember", {"text": "the printer is on floor 3", "title": "Printer"}), config_path=str(settings))
    assert not tag_error and tagged["commit"] is None and "within 1 s" in tagged["commit_error"], tagged
    assert not remember_error and remembered["commit"] is None and "within 1 s" in remembered["commit_error"]


# --------------------------------------------------------------------------- 2. `--- # a comment` opens front matter


COMMENTED = ("--- # tags, see the wiki\ntitle: Martin's printer\ntrust: owner  # I wrote it\nconfidence: high\n---\n"
             "# Printer\n\nfloor 3, the one by the window\n")


@pytest.mark.parametrize("opening", ["--- # tags, see the wiki", "---\t#tags", "---   #", "\ufeff--- # with a BOM"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_front_matter_opened_by_a_comment_is_read(tmp_path, opening, newline):
    """YAML allows a comment after the document start marker; such a note's front matter was body text and its
    tags were ignored (the note untagged)."""
    from tachikoma.reading.frontmatter import read_front_matter, split

    text = f"{opening}{newline}trust: owner{newline}confidence: high{newline}---{newline}# Printer{newline}"
    fm = split(text.removeprefix("\ufeff"))
    assert fm.error is None and fm.meta == {"trust": "owner", "confidence": "high"}
    assert fm.body == f"# Printer{newline}" and fm.body_line == 5
    note = tmp_path / "n.md"
    note.write_bytes(text.encode("utf-8"))
    assert read_front_matter(note).meta == {"trust": "owner", "confidence": "high"}


@pytest.mark.parametrize("first", ["---# not a comment", "--- trust: owner", "----"])
def test_a_first_line_that_is_no_document_start_opens_no_front_matter(first):
    from tachikoma.reading.frontmatter import split

    text = f"{first}\ntrust: owner\n---\nbody\n"
    assert split(text).meta == {} and split(text).body == text


def test_a_note_opened_by_a_comment_is_tagged_in_place_and_undone_byte_for_byte(git_memory):
    """Tagging it wrote a second front matter block above the first (the comment line taken for body text)."""
    from tachikoma.tagging import applying

    note = git_memory / "printer.md"
    note.write_text(COMMENTED)
    git(git_memory, "add", "printer.md")
    git(git_memory, "commit", "-q", "-m", "printer")
    done = tachikoma_cli(git_memory, "stats", "--json")
    assert json.loads(done.stdout)["trust"]["owner"] >= 1
    preview = tachikoma_cli(git_memory, "tag", "--path", "printer.md", "--trust", "external", "--source", "web",
                            "--overwrite", "--dry-run", "--json")
    answer = json.loads(preview.stdout)
    assert [(c["path"], c["before"], c["after"]) for c in answer["changes"]] == [
        ("printer.md", {"trust": "owner"}, {"trust": "external", "source": "web"})], answer
    applied = tachikoma_cli(git_memory, "tag", "--path", "printer.md", "--trust", "external", "--source", "web",
                            "--overwrite", "--json")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert note.read_text() == COMMENTED.replace("trust: owner  #", "trust: external  #").replace(
        "confidence: high\n", "confidence: high\nsource: web\n")
    assert git(git_memory, "status", "--porcelain") == ""
    from tachikoma.tagging.model import Change

    undone = applying.undo(git_memory, [Change("printer.md", "markdown", {"trust": "owner"},
                                               {"trust": "external", "source": "web"})])
    assert not undone.skipped and note.read_text() == COMMENTED


# --------------------------------------------------------------------------- 4. a read-only note or tag file


READ_ONLY = "read-only (mode 0444)"


def mode_of(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def skipped_of(answer: dict) -> dict[str, str]:
    return {s["path"]: s["reason"] for s in answer["skipped"]}


def test_the_command_line_refuses_a_read_only_note_and_tags_the_rest(git_memory):
    """A note made read-only (chmod 444) in a folder that may be written was replaced by the rename all the same:
    the user's "do not change this" was not honoured."""
    locked, other = git_memory / "martin.md", git_memory / "rumours.md"
    locked.chmod(0o444)
    before = locked.read_bytes()
    preview = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--path", "rumours.md", "--confidence", "low",
                            "--overwrite", "--dry-run", "--json")
    planned = json.loads(preview.stdout)
    assert preview.returncode == 1 and READ_ONLY in skipped_of(planned)["martin.md"], planned
    assert [c["path"] for c in planned["changes"]] == ["rumours.md"]
    done = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--path", "rumours.md", "--confidence", "low",
                         "--overwrite", "--json")
    answer = json.loads(done.stdout)
    assert done.returncode == 1 and READ_ONLY in skipped_of(answer)["martin.md"], answer
    assert [c["path"] for c in answer["changes"]] == ["rumours.md"] and answer["committed"] == ["rumours.md"]
    assert locked.read_bytes() == before and mode_of(locked) == 0o444
    assert "confidence: low" in other.read_text()
    text = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--confidence", "low", "--overwrite")
    assert text.returncode == 1 and f"martin.md: {READ_ONLY}" in text.stdout + text.stderr
    assert git(git_memory, "status", "--porcelain") == ""


def test_a_read_only_tag_file_refuses_every_transcript_and_the_notes_are_tagged(git_memory):
    tags = git_memory / "tachikoma-tags.yaml"
    tags.chmod(0o444)
    before = tags.read_bytes()
    done = tachikoma_cli(git_memory, "tag", "--path", "2026-*/", "--confidence", "low", "--overwrite", "--json")
    answer = json.loads(done.stdout)
    skipped = skipped_of(answer)
    transcripts = {"2026-03-22/session-abc.jsonl", "2026-04-02/session-chat.jsonl", "2026-05-10/design-chat.jsonl"}
    assert transcripts <= set(skipped), answer
    assert all(f"tachikoma-tags.yaml is {READ_ONLY}" in skipped[p] for p in transcripts), skipped
    assert [c["path"] for c in answer["changes"]] == ["2026-03-22/meeting-notes.md"]
    assert tags.read_bytes() == before and mode_of(tags) == 0o444
    assert done.returncode == 1


def test_mcp_tag_refuses_a_read_only_note_with_the_reason(git_memory):
    locked = git_memory / "martin.md"
    locked.chmod(0o444)
    before = locked.read_bytes()
    # (medium → low: an agent lowers confidence; speculative → low would raise it, which it may not)
    [(error, _, done)] = run_tools(git_memory, ("tag", {"paths": ["martin.md", "projects/tachikoma.md"],
                                                        "confidence": "low"}))
    assert not error and [c["path"] for c in done["changed"]] == ["projects/tachikoma.md"], done
    assert READ_ONLY in {s["path"]: s["reason"] for s in done["skipped"]}["martin.md"]
    assert locked.read_bytes() == before


def test_the_dashboard_previews_applies_and_undoes_around_a_read_only_note(tmp_path):
    """The preview names the read-only note; Apply tags the others; a note made read-only after the apply is
    left as it is by Undo, which says so, and the rest is undone."""
    from tachikoma_dashboard.app import create_app
    from web_helpers import Client, build_index, copy_memory

    root = copy_memory(tmp_path / "memory")
    build_index(root)
    app = create_app(memory=root, port=5000)
    app.test_client_class = Client
    client = app.test_client()
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', client.get("/tag").get_data(as_text=True))[1]
    locked, first, second = root / "martin.md", root / "rumours.md", root / "identity.md"
    locked.chmod(0o444)
    originals = {p: p.read_bytes() for p in (locked, first, second)}
    form = {"kind": "markdown", "path": "/*", "confidence": "speculative", "mode": "overwrite"}
    preview = client.get("/tag", query_string={"preview": "1", **form}).get_data(as_text=True)
    assert "martin.md" in preview and READ_ONLY in preview
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', preview)[1]
    html = client.post("/tag/apply", data={**form, "fingerprint": fingerprint, "csrf_token": token}).get_data(
        as_text=True)
    assert READ_ONLY in html and locked.read_bytes() == originals[locked]
    assert b"speculative" in first.read_bytes() and b"speculative" in second.read_bytes()
    undo_url = re.search(r'action="(/tag/undo/[^"]+)"', html)[1]
    second.chmod(0o444)
    tagged = second.read_bytes()
    undone = client.post(undo_url, data={"csrf_token": token}).get_data(as_text=True)
    assert READ_ONLY in undone and "identity.md" in undone
    assert first.read_bytes() == originals[first] and second.read_bytes() == tagged and mode_of(second) == 0o444
    app.extensions["tachikoma"].index_job.wait(30)


# --------------------------------------------------------------------------- 1. transcript lines that hold no turn


@pytest.mark.parametrize("line, kind", [
    ('{"role": "user"}', "user message without text"),
    ('{"role": "assistant", "content": ""}', "assistant message without text"),
    ('{"role": "user", "content": null}', "user message without text"),
    ('{"role": "user", "content": []}', "user message without text"),
    ('{"role": "user", "content": {"image_url": "x.png"}}', "user message without text"),
    ('{"role": "user", "content": [{"type": "image_url", "image_url": "x.png"}]}', "user message without text"),
    ('{"role": "assistant", "content": "   "}', "assistant message without text"),
    ('{"speaker": "Caroline", "text": ""}', "line from Caroline without text"),
])
def test_a_chat_line_that_holds_no_turn_is_counted_not_dropped(line, kind):
    """A chat line with a role but nothing readable (no content, empty, an image only) was left out without a
    word, while `{}` and a line without text from a speaker were counted."""
    from tachikoma.transcripts import parse_transcript, problem_kind

    text = '{"role": "user", "content": "hello"}\n' + line + '\n{"role": "assistant", "content": "hi"}\n'
    result = parse_transcript(text, "chat.jsonl")
    assert [t.text for t in result.turns] == ["hello", "hi"]
    assert result.warnings == [f"chat.jsonl:2: 1 line of an unknown kind skipped ({kind} ×1)"]
    assert problem_kind(result.warnings[0]) == "unknown-lines"


def test_tool_output_before_any_turn_is_kept_and_counted_only_when_no_turn_follows():
    """Session 47 counted it and left it out; since session 48 it is kept with the first turn, as in every agent
    format (tests/test_inputs_s48.py), and counted only in a file where no turn comes to keep it."""
    from tachikoma.transcripts import parse_transcript

    result = parse_transcript('{"role": "tool", "content": "ls output"}\n{"role": "user", "content": "hi"}\n',
                              "chat.jsonl")
    assert [t.text for t in result.turns] == ["hi"] and result.warnings == []
    assert [(t.line, t.text) for t in result.turns[0].tool_texts] == [(1, "ls output")]
    alone = parse_transcript('{"role": "tool", "content": "ls output"}\n', "chat.jsonl")
    assert alone.warnings[0] == "chat.jsonl:1: 1 line of an unknown kind skipped (tool output before any turn ×1)"


def test_index_reports_every_line_and_file_that_holds_no_turn(tmp_path):
    """`{}` in a session, a file of `{}` lines and an empty .jsonl, through `tachikoma index` and `stats`: each
    is said (the empty file is a session about to start: counted, no problem, as docs/indexing.md says)."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "chat.jsonl").write_text('{"role": "user", "content": "cats"}\n{}\n{"role": "user"}\n'
                                     '{"role": "assistant", "content": "dogs"}\n')
    (root / "braces.jsonl").write_text("{}\n{}\n")
    (root / "new.jsonl").write_text("")
    done = tachikoma_cli(root, "index", "--embedder", "hash", "--json")
    summary = json.loads(done.stdout)
    assert done.returncode == 0 and summary["skipped"] == 1 and summary["data_files"] == 1, summary
    assert summary["files"] == 2  # chat.jsonl and the empty new.jsonl
    warnings = "\n".join(summary["warnings"])
    assert ("chat.jsonl:2: 2 lines of an unknown kind skipped (no role or speaker ×1, user message without text ×1)"
            in warnings), warnings
    assert "braces.jsonl: not a transcript: none of its 2 lines is a message of a known format" in warnings
    assert "new.jsonl" not in warnings
    problems = {p["path"]: p["kind"] for p in json.loads(tachikoma_cli(root, "stats", "--json").stdout)["problems"]}
    assert problems == {"chat.jsonl": "unknown-lines", "braces.jsonl": "not-a-transcript"}
