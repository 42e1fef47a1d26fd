"""Issue 16 items 2-6: what tachikoma writes is committed in the end, honestly, or not at all.

A failed commit is finished by the next run (2); a `remember` killed before
its commit is finished too, and its retry makes no duplicate (3); a path
through a symlink tags the file it points to, never a pretend no-op (4);
the repository's commit hooks run and a refusal is an error (5); a detached
HEAD is refused (6).
"""

import os
import subprocess
from pathlib import Path

import pytest

from gitrepo import git, hook, run_python, tachikoma_cli, tag
from mcp_helpers import run_tools
from tachikoma.git import gitutil
from tachikoma import notes
from tachikoma.tagging import applying, journal, model, planning, recovery
from tachikoma.errors import TachikomaError
from tachikoma.reading.frontmatter import split

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


tachikoma = tachikoma_cli


def trust(root: Path, rel: str, rev: str | None = None) -> str | None:
    text = git(root, "show", f"{rev}:{rel}") if rev else (root / rel).read_text(encoding="utf-8")
    return split(text.removeprefix("\ufeff")).meta.get("trust")


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "--untracked-files=all")


# --------------------------------------------------------------------------- 2. a failed commit


def test_a_commit_that_failed_on_a_lock_is_finished_by_the_next_run(git_memory):
    """The issue's repro: `.git/index.lock` present, tag exits 1; once it is gone, the same command
    commits the tags (it said "already had these values" and left the file modified for ever)."""
    lock = git_memory / ".git" / "index.lock"
    lock.touch()
    first = tachikoma(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert first.returncode == 1 and "index.lock" in first.stderr, first.stderr
    assert "next tachikoma run" in first.stderr
    assert trust(git_memory, "martin.md") == "external" and trust(git_memory, "martin.md", "HEAD") == "owner"
    still = tachikoma(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert still.returncode == 1, "nothing new to tag, but the earlier run is still not committed"
    assert "tried again by the next run" in still.stderr
    lock.unlink()
    again = tachikoma(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert again.returncode == 0, again.stderr
    assert "commit had failed" in again.stderr
    assert trust(git_memory, "martin.md", "HEAD") == "external"
    assert status(git_memory) == ""
    assert not journal.exists(git_memory)


def test_two_failed_commits_both_wait_and_are_both_finished(git_memory, monkeypatch):
    """A second failure does not push the first out of the journal."""
    real = gitutil.commit_blobs

    def full_disk(*_args, **_kwargs):
        raise gitutil.GitError("git update-index failed: No space left on device")

    monkeypatch.setattr(gitutil, "commit_blobs", full_disk)
    first = tag(git_memory, "martin.md", "external")
    second = tag(git_memory, "rumours.md", "self")
    assert first.commit_pending and second.commit_pending and "No space left" in second.commit_error
    assert len(journal.load(git_memory)) == 2
    monkeypatch.setattr(gitutil, "commit_blobs", real)
    done = recovery.recover(git_memory)
    assert done is not None and done.commit and not done.commit_pending
    assert sorted(c.path for c in done.changes) == ["martin.md", "rumours.md"]
    assert trust(git_memory, "martin.md", "HEAD") == "external"
    assert trust(git_memory, "rumours.md", "HEAD") == "self"
    assert status(git_memory) == "" and not journal.exists(git_memory)


def test_a_journal_from_before_several_runs_could_wait_is_still_finished(git_memory):
    """A version-1 journal (one run) left by an older tachikoma killed mid-run is read."""
    import json

    planned = planning.plan(git_memory, {"trust": "self"}, model.Selector(pattern="martin.md"), overwrite=True)
    applying.apply(git_memory, planned, commit=False)
    change = {k: v for k, v in vars(planned.changes[0]).items() if k != "current"}
    journal.path(git_memory).write_text(json.dumps({"version": 1, "action": ["tag", "trust=self"], "commit": True,
                                                    "changes": [change]}))
    done = recovery.recover(git_memory)
    assert done is not None and done.commit and trust(git_memory, "martin.md", "HEAD") == "self"


# --------------------------------------------------------------------------- 3. remember


def remember_in_a_process(root: Path, text: str, fault: str | None = None) -> subprocess.CompletedProcess:
    script = "import sys; from tachikoma import notes; print(notes.remember(sys.argv[1], sys.argv[2]).path)"
    return run_python("-c", script, str(root), text, fault=fault)


def test_a_remember_killed_before_its_commit_is_committed_by_the_next_writer(git_memory):
    killed = remember_in_a_process(git_memory, "The boiler was serviced on 3 March.", fault="remember-before-commit")
    assert killed.returncode == -9, killed.stderr
    assert status(git_memory) == "?? the-boiler-was-serviced-on-3-march.md\n"
    other = notes.remember(git_memory, "The bins go out on Tuesdays.")
    assert other.commit and other.commit_error is None
    assert status(git_memory) == "", "the killed call's note is committed too, not untracked for good"
    assert "the-boiler-was-serviced-on-3-march.md" in git(git_memory, "log", "--format=", "--name-only")


def test_a_retried_remember_gives_back_the_same_note(git_memory):
    """A client's retry after a kill (or a lost answer) makes no `-2` copy, and commits the note."""
    text = "The boiler was serviced on 3 March."
    killed = remember_in_a_process(git_memory, text, fault="remember-before-commit")
    assert killed.returncode == -9
    retried = notes.remember(git_memory, text)
    assert retried.path == "the-boiler-was-serviced-on-3-march.md" and retried.existing
    assert retried.commit_error is None and status(git_memory) == ""
    again = notes.remember(git_memory, text)
    assert again.path == retried.path and again.existing and again.commit is None
    assert sorted(p.name for p in git_memory.glob("the-boiler*")) == ["the-boiler-was-serviced-on-3-march.md"]
    other = notes.remember(git_memory, text, values={"confidence": "low"})
    assert other.path == "the-boiler-was-serviced-on-3-march-2.md" and not other.existing  # not the same note


def test_a_retried_remember_outside_git_gives_back_the_same_note(tmp_path):
    first = notes.remember(tmp_path, "Keys are under the mat.", "Keys")
    second = notes.remember(tmp_path, "Keys are under the mat.", "Keys")
    assert (first.path, second.path, second.existing) == ("keys.md", "keys.md", True)
    assert notes.remember(tmp_path, "Keys are in the drawer.", "Keys").path == "keys-2.md"


# --------------------------------------------------------------------------- 4. symlinks (MCP)


def test_mcp_tag_through_a_symlink_tags_the_file_it_points_to(git_memory):
    """It answered "nothing changed" while the target kept its trust: an agent downgrading a suspect
    memory believed it had."""
    os.symlink("martin.md", git_memory / "alias.md")
    (git_memory / "people").mkdir()
    (git_memory / "people" / "priya.md").write_text("---\ntrust: owner\n---\nPriya runs the staging database.\n")
    os.symlink("people", git_memory / "folks")
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "links")
    [(error, text, data)] = run_tools(git_memory, ("tag", {"paths": ["alias.md", "folks/priya.md"],
                                                           "trust": "untrusted"}))
    assert not error, text
    assert sorted(c["path"] for c in data["changed"]) == ["martin.md", "people/priya.md"]
    assert data["unchanged"] == [] and data["skipped"] == []
    assert data["symlinks"] == [{"path": "alias.md", "target": "martin.md"},
                                {"path": "folks/priya.md", "target": "people/priya.md"}]
    assert "alias.md is a symlink: tagged martin.md" in text
    assert trust(git_memory, "martin.md", "HEAD") == "untrusted"
    assert trust(git_memory, "people/priya.md", "HEAD") == "untrusted"
    assert os.path.islink(git_memory / "alias.md") and status(git_memory) == ""


def test_mcp_tag_never_reports_a_file_it_did_not_read_as_unchanged(git_memory, monkeypatch):
    """A file the walk does not list (here: hidden from it) is skipped with a reason, not "unchanged"."""
    real_walk = planning.walk
    monkeypatch.setattr(planning, "walk", lambda root, **kw: [f for f in real_walk(root, **kw) if f.path != "martin.md"])
    [(error, text, data)] = run_tools(git_memory, ("tag", {"paths": ["martin.md"], "trust": "untrusted"}))
    assert not error, text
    assert data["changed"] == [] and data["unchanged"] == []
    assert [s["path"] for s in data["skipped"]] == ["martin.md"] and "not tagged" in data["skipped"][0]["reason"]


def test_remember_in_a_symlinked_folder_writes_where_it_points_and_commits(git_memory):
    (git_memory / "people").mkdir()
    os.symlink("people", git_memory / "folks")
    [(error, text, data)] = run_tools(git_memory, ("remember", {"text": "Priya prefers mornings.", "folder": "folks"}))
    assert not error, text
    assert data["path"] == "people/priya-prefers-mornings.md" and data["commit"]
    assert status(git_memory) == "?? folks\n"  # the link itself was never committed; the note is
    assert "people/priya-prefers-mornings.md" in git(git_memory, "show", "--name-only", "--format=", data["commit"])


# --------------------------------------------------------------------------- 5. hooks


def test_a_refusing_pre_commit_hook_stops_the_commit_and_names_itself(git_memory):
    hook(git_memory, "pre-commit", "echo 'secret found: AWS_SECRET_ACCESS_KEY' >&2\nexit 1\n")
    head = git(git_memory, "rev-parse", "HEAD")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit is None and applied.commit_pending
    assert "pre-commit hook refused the commit" in applied.commit_error and "AWS_SECRET" in applied.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head
    assert trust(git_memory, "martin.md") == "external", "the file stays written, as the user can recover it"
    written = notes.remember(git_memory, "AWS_SECRET_ACCESS_KEY=abc123")
    assert written.commit is None and "pre-commit hook" in written.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head
    (git_memory / ".git" / "hooks" / "pre-commit").unlink()
    done = recovery.recover(git_memory)
    assert done.commit and done.remembered == [written.path] and not done.commit_pending
    assert status(git_memory) == ""


def test_commit_msg_hook_refuses_or_edits_and_post_commit_runs(git_memory):
    hook(git_memory, "commit-msg", "grep -q 'Signed-off-by' \"$1\" || { echo 'no sign-off' >&2; exit 1; }\n")
    refused = notes.remember(git_memory, "The printer is on the second floor.")
    assert refused.commit is None and "commit-msg hook refused the commit" in refused.commit_error
    assert "no sign-off" in refused.commit_error
    hook(git_memory, "commit-msg", "echo 'Signed-off-by: hook' >> \"$1\"\n")
    hook(git_memory, "post-commit", "git rev-parse HEAD > .git/post-commit-ran\n")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit and applied.commit_error is None
    assert "Signed-off-by: hook" in git(git_memory, "log", "-1", "--format=%B")
    assert (git_memory / ".git" / "post-commit-ran").read_text().strip() == applied.commit
    assert status(git_memory) == "", "the refused note was committed by the next run"


def test_pre_commit_sees_exactly_what_is_committed(git_memory):
    """As for `git commit <paths>`: the hook's index is HEAD plus tachikoma's change, not someone's
    unrelated staged file."""
    (git_memory / "staged.md").write_text("someone else's staged work\n")
    git(git_memory, "add", "staged.md")
    hook(git_memory, "pre-commit", "git diff --cached --name-only > .git/hook-saw\n")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit
    assert (git_memory / ".git" / "hook-saw").read_text().split() == ["martin.md"]
    assert git(git_memory, "diff", "--cached", "--name-only").split() == ["staged.md"]


# --------------------------------------------------------------------------- 6. detached HEAD


def test_tag_on_a_detached_head_refuses_before_writing(git_memory):
    git(git_memory, "checkout", "-q", "--detach")
    before = (git_memory / "martin.md").read_bytes()
    head = git(git_memory, "rev-parse", "HEAD")
    with pytest.raises(TachikomaError, match="HEAD is detached"):
        tag(git_memory, "martin.md", "external")
    assert (git_memory / "martin.md").read_bytes() == before and git(git_memory, "rev-parse", "HEAD") == head
    cli = tachikoma(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert cli.returncode == 1 and "HEAD is detached" in cli.stderr, cli.stderr
    assert (git_memory / "martin.md").read_bytes() == before
    assert tag(git_memory, "martin.md", "external", commit=False).paths == ["martin.md"]  # --no-commit still works


def test_remember_on_a_detached_head_writes_and_commits_once_on_a_branch(git_memory):
    git(git_memory, "checkout", "-q", "--detach")
    head = git(git_memory, "rev-parse", "HEAD")
    written = notes.remember(git_memory, "The spare key is with the neighbour.")
    assert written.commit is None and "HEAD is detached" in written.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head, "nothing committed on the detached HEAD"
    git(git_memory, "checkout", "-q", "main")
    other = notes.remember(git_memory, "The gas meter is in the cellar.")
    assert other.commit and status(git_memory) == ""
    log = git(git_memory, "log", "main", "--format=", "--name-only")
    assert written.path in log and other.path in log
