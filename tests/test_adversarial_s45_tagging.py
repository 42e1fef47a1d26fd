"""Session 45's adversarial review of tagging and indexing, against real files and real git repositories.

Each test is a break found by trying it: a commit hook that never ends, a repository that signs its
commits, a note in a git submodule, a tag file that is a FIFO or holds merge conflict markers, ...
"""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from gitrepo import git, hook, tachikoma_cli, tag
from tachikoma.git import gitrun
from tachikoma.reading import tagfile
from tachikoma.reading.frontmatter import split
from tachikoma.tagging import applying, model, planning, recovery

SLEEPER = "sleep 1000"


def trust(root: Path, rel: str, rev: str | None = None) -> str | None:
    text = git(root, "show", f"{rev}:{rel}") if rev else (root / rel).read_text(encoding="utf-8")
    return split(text.removeprefix("\ufeff")).meta.get("trust")


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "--untracked-files=all")


def sleepers(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


# --------------------------------------------------------------------------- a hook that never ends


def test_a_hook_that_never_ends_is_stopped_and_the_run_is_retried(git_memory, monkeypatch):
    """A pre-commit hook that hangs (a `sleep`, a scanner waiting on the network) held the writers' lock for ever:
    `tag`, the dashboard's Apply and MCP `tag` never answered, and each later writer waited on the lock, then on the
    same hook again. Now it is stopped after `gitrun.HOOK_TIMEOUT` seconds, with what it started; nothing is
    committed, the note stays tagged and the next run commits it."""
    monkeypatch.setattr(gitrun, "HOOK_TIMEOUT", 1.5)
    marker = f"{SLEEPER}  # {git_memory.name}-pre"
    hook(git_memory, "pre-commit", f"{marker}\n")
    head = git(git_memory, "rev-parse", "HEAD")
    started = time.monotonic()
    applied = tag(git_memory, "martin.md", "external")
    assert time.monotonic() - started < 15
    assert applied.commit is None and applied.commit_pending
    assert "pre-commit hook did not finish within 1.5 s" in applied.commit_error, applied.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head
    assert trust(git_memory, "martin.md") == "external"
    time.sleep(0.2)
    assert sleepers(marker) == [], "what the hook started is stopped too"
    (git_memory / ".git" / "hooks" / "pre-commit").unlink()
    done = recovery.recover(git_memory)
    assert done.commit and not done.commit_pending
    assert trust(git_memory, "martin.md", "HEAD") == "external" and status(git_memory) == ""


def test_a_post_commit_hook_that_never_ends_does_not_hold_the_run(git_memory, monkeypatch):
    monkeypatch.setattr(gitrun, "HOOK_TIMEOUT", 1.0)
    hook(git_memory, "post-commit", f"{SLEEPER}\n")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit and applied.commit_error is None, "git does not wait on post-commit's result either"
    assert git(git_memory, "rev-parse", "HEAD").strip() == applied.commit


def test_git_run_without_a_timeout_is_as_before(tmp_path):
    done = gitrun.run(tmp_path, ["--version"], literal=False)
    assert done.returncode == 0 and done.stdout.startswith(b"git version")
    with pytest.raises(gitrun.GitError, match="failed"):
        gitrun.run(tmp_path, ["rev-parse", "HEAD"])


# --------------------------------------------------------------------------- commit signing


FAKE_GPG = """#!/bin/sh
cat > /dev/null
echo "[GNUPG:] SIG_CREATED D 1 8 00 0 0" >&2
printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nfake\\n-----END PGP SIGNATURE-----\\n'
"""


def test_a_repository_that_signs_its_commits_gets_signed_tagging_commits(git_memory, tmp_path):
    """With `commit.gpgSign` set, `git commit` signs or refuses; tachikoma's commits (made with `git commit-tree`,
    which does not read that setting) went in unsigned, to be refused by the server that requires signatures."""
    gpg = tmp_path / "fake-gpg"
    gpg.write_text(FAKE_GPG)
    gpg.chmod(0o755)
    git(git_memory, "config", "commit.gpgSign", "true")
    git(git_memory, "config", "gpg.program", str(gpg))
    git(git_memory, "config", "user.signingKey", "ABCDEF")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit and applied.commit_error is None
    assert "gpgsig -----BEGIN PGP SIGNATURE-----" in git(git_memory, "cat-file", "-p", applied.commit)


def test_a_signature_that_cannot_be_made_is_no_unsigned_commit(git_memory):
    git(git_memory, "config", "commit.gpgSign", "true")
    git(git_memory, "config", "gpg.program", "false")
    head = git(git_memory, "rev-parse", "HEAD")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit is None and applied.commit_pending
    assert "gpg failed to sign" in applied.commit_error, applied.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head
    assert trust(git_memory, "martin.md") == "external", "the note stays tagged; the next run commits it"
    git(git_memory, "config", "commit.gpgSign", "false")
    assert recovery.recover(git_memory).commit
    assert status(git_memory) == ""


# --------------------------------------------------------------------------- a tag file that is a FIFO


def test_a_fifo_named_like_the_tag_file_is_refused_at_once_by_every_command(git_memory):
    """`tachikoma-tags.yaml` as a FIFO (a note named like one was refused, the tag file was read as any file):
    index, stats, tag and search waited for ever on the first writer. Now every one says it cannot read it."""
    (git_memory / tagfile.TAG_FILE).unlink()
    os.mkfifo(git_memory / tagfile.TAG_FILE)
    with pytest.raises(tagfile.TagFileError, match="not a regular file"):
        tagfile.load(git_memory)
    indexed = tachikoma_cli(git_memory, "index", "--embedder", "hash")
    assert indexed.returncode == 0, indexed.stderr
    assert "cannot read the tag file (not a regular file: a FIFO)" in indexed.stderr
    for command in (["stats"], ["tag", "--dry-run"], ["tag", "--path", "2026-03-22/", "--trust", "self"]):
        done = tachikoma_cli(git_memory, *command)
        assert done.returncode == 1 and "not a regular file: a FIFO" in done.stderr, (command, done.stderr)
    # Session 46: a note needs no tag file (stats counts the notes, tagging them works).
    done = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--trust", "self", "--overwrite")
    assert done.returncode == 0, done.stderr
    searched = tachikoma_cli(git_memory, "search", "Martin", "--json")
    assert searched.returncode == 0, searched.stderr


# --------------------------------------------------------------------------- a note in a git submodule


def submodule(git_memory: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-repo"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "shared.md").write_text("---\ntitle: shared\n---\n# Shared note\n\nFrom another repository.\n")
    (other / "chat.jsonl").write_text('{"role": "user", "content": "hello from the submodule"}\n')
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "other")
    git(git_memory, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "vendor")
    git(git_memory, "commit", "-q", "-m", "vendor")


def test_a_note_in_a_submodule_is_said_and_the_rest_is_committed_once(git_memory, tmp_path):
    """A note inside a git submodule made `git check-ignore` fail, so nothing of the run was committed (the tag file
    neither), and the run stayed in the journal: every later `tag` exited 1 with the same error for ever."""
    submodule(git_memory, tmp_path)
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern="vendor/"))
    applied = applying.apply(git_memory, planned)
    assert sorted(c.path for c in applied.changes) == ["vendor/chat.jsonl", "vendor/shared.md"]
    assert applied.commit, applied.commit_error
    assert not applied.commit_pending
    assert "vendor/shared.md is in the git submodule vendor" in applied.commit_error
    assert "vendor/chat.jsonl" in git(git_memory, "show", f"{applied.commit}:{tagfile.TAG_FILE}")
    assert git(git_memory, "show", "--name-only", "--format=", applied.commit).split() == [tagfile.TAG_FILE]
    assert trust(git_memory, "vendor/shared.md") == "external", "tagged in its own work tree, not committed there"
    assert status(git_memory).split() == ["M", "vendor"], "the submodule holds the tagged note"
    later = tag(git_memory, "martin.md", "external")
    assert later.commit and later.commit_error is None and later.recovered is None, "nothing is left to retry"


def test_the_cli_names_the_submodule_and_the_next_run_is_quiet(git_memory, tmp_path):
    submodule(git_memory, tmp_path)
    first = tachikoma_cli(git_memory, "tag", "--path", "vendor/", "--trust", "external")
    assert first.returncode == 1 and "is in the git submodule vendor" in first.stderr, first.stderr
    assert "committed" in first.stdout
    second = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert second.returncode == 0 and second.stderr == "", second.stderr


# --------------------------------------------------------------------------- remember where git will not commit


def test_remember_in_an_ignored_folder_says_so_once_and_is_not_retried_for_ever(git_memory):
    """`remember` into a folder git ignores left its run in the journal: every later writing run said both
    "committed 1 note an interrupted remember had written" and "was not committed", and exited 1, for ever."""
    from tachikoma import notes

    (git_memory / ".gitignore").write_text("private/\n")
    git(git_memory, "add", ".gitignore")
    git(git_memory, "commit", "-q", "-m", "ignore private/")
    written = notes.remember(git_memory, "The spare key is under the blue flower pot.", folder="private")
    assert written.commit is None and "is ignored by git" in written.commit_error
    assert "next tachikoma run" not in written.commit_error
    assert (git_memory / written.path).is_file()
    later = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert later.returncode == 0 and later.stderr == "", later.stderr


def test_a_fifo_named_like_the_note_remember_would_write_does_not_hang_it(git_memory):
    """`remember` looks for a note it wrote before with the same bytes (a retry) by opening each candidate; a FIFO
    named like one made it wait for ever."""
    from tachikoma import notes

    (git_memory / "inbox").mkdir(exist_ok=True)
    os.mkfifo(git_memory / "inbox" / "the-boiler-was-serviced-in-may.md")
    written = notes.remember(git_memory, "The boiler was serviced in May.", folder="inbox")
    assert written.path == "inbox/the-boiler-was-serviced-in-may-2.md" and written.commit


# --------------------------------------------------------------------------- a tag file left in a merge conflict


def test_a_tag_file_with_conflict_markers_says_so(git_memory):
    """Two branches tagged the same transcript: the merge stops with conflict markers in the tag file, and every
    command said "malformed YAML at line 12: could not find expected ':'"; now they say it is a merge conflict."""
    git(git_memory, "checkout", "-q", "-b", "other")
    tag(git_memory, "2026-05-10/design-chat.jsonl", "external")
    git(git_memory, "checkout", "-q", "main")
    tag(git_memory, "2026-05-10/design-chat.jsonl", "owner")
    merged = subprocess.run(["git", "merge", "other"], cwd=git_memory, capture_output=True, text=True)
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout
    with pytest.raises(tagfile.TagFileError, match="unresolved merge conflict") as raised:
        tagfile.load(git_memory)
    text = (git_memory / tagfile.TAG_FILE).read_text().split("\n")
    assert text[raised.value.line - 1].startswith("<<<<<<<")
    done = tachikoma_cli(git_memory, "tag", "--path", "2026-03-22/", "--trust", "self")
    assert done.returncode == 1 and "unresolved merge conflict" in done.stderr and "git add" in done.stderr
    assert "could not find expected" not in done.stderr


def test_yaml_errors_without_conflict_markers_read_as_before(memory):
    (memory / tagfile.TAG_FILE).write_text("a.jsonl:\n  trust: self\n<<<<<<< only an opening\nb\n")
    with pytest.raises(tagfile.TagFileError, match="malformed YAML"):
        tagfile.load(memory)


# --------------------------------------------------------------------------- a session line nested too deep


def test_a_session_line_nested_too_deep_is_no_edit_and_no_crash(tmp_path):
    """The search reads a Claude Code session's edits to tell its own commits from later changes
    (`transcripts.edits`): a line naming Edit and nested deeper than `json` can read raised RecursionError there,
    while every reader of the session skips it."""
    from tachikoma.transcripts.edits import session_edits

    session = tmp_path / "deep.jsonl"
    edit = {"type": "assistant", "timestamp": "2026-03-22T10:00:00Z", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Edit",
         "input": {"file_path": str(tmp_path / "a.py"), "old_string": "a", "new_string": "b"}}]}}
    deep = '{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Edit", "input": ' \
        + "[" * 100_000 + "]" * 100_000 + "}]}}"
    session.write_text(deep + "\n" + json.dumps(edit) + "\n")
    found = session_edits(session)
    assert list(found) == [str(tmp_path / "a.py")]
