import subprocess
from datetime import datetime, timezone

import pytest
from gitrepo import git

from tachikoma.git import gitutil
from tachikoma.errors import TachikomaError


pytestmark = pytest.mark.usefixtures("isolated_git")


def make_repo(path):
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    return path


def write(path, text="x\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_repo_toplevel(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "memory").mkdir()
    assert gitutil.repo_toplevel(repo / "memory").resolve() == repo.resolve()
    assert gitutil.repo_toplevel(repo).resolve() == repo.resolve()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert gitutil.repo_toplevel(plain) is None


def test_git_missing_means_no_repo(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    assert gitutil.repo_toplevel(repo) is None
    assert gitutil.content_times(repo) == {}
    assert gitutil.commit(repo, ["a.md"], "m") is None


def test_content_times_subfolder_and_odd_names(tmp_path):
    repo = make_repo(tmp_path / "repo")
    root = repo / "mem ory"
    write(root / "a b.md")
    write(root / "ünï cödé" / "日本.jsonl")
    write(root / "quote\"and\\back.md")
    write(repo / "outside.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one", date="2026-01-02T03:04:05+00:00")
    write(root / "a b.md", "changed\n")
    git(repo, "commit", "-qam", "two", date="2026-02-03T10:00:00+02:00")

    times = gitutil.content_times(root)
    assert set(times) == {"a b.md", "ünï cödé/日本.jsonl", "quote\"and\\back.md"}
    assert times["a b.md"] == datetime(2026, 2, 3, 8, 0, 0, tzinfo=timezone.utc)
    assert times["ünï cödé/日本.jsonl"] == datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert all(t.tzinfo is not None and t.utcoffset().total_seconds() == 0 for t in times.values())

    top = gitutil.content_times(repo)
    assert "outside.md" in top and "mem ory/a b.md" in top


def test_content_times_renames_and_newline_names(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / "old.md")
    write(repo / "\nstarts with newline.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one", date="2026-01-01T00:00:00+00:00")
    git(repo, "mv", "old.md", "new.md")
    git(repo, "commit", "-qm", "rename", date="2026-01-05T00:00:00+00:00")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty", date="2026-01-09T00:00:00+00:00")
    times = gitutil.content_times(repo)
    assert times["new.md"] == datetime(2026, 1, 5, tzinfo=timezone.utc)
    assert times["\nstarts with newline.md"] == datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_content_times_not_a_repo_or_empty_repo(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert gitutil.content_times(plain) == {}
    assert gitutil.content_times(make_repo(tmp_path / "empty")) == {}


def test_parse_raw_log_empty_commits_digit_names_and_trailers():
    oid = lambda n: f"{n:040d}".encode()  # noqa: E731 (a one-line closure handed on)
    change = lambda old, new: b":100644 100644 " + oid(old) + b" " + oid(new) + b" M"  # noqa: E731 (a one-line closure handed on)
    out = (b"\x001700000300 \x00"                                   # a commit without files
           b"\x001700000200 1\x00\n" + change(1, 2) + b"\x00123\x00"  # a tagging commit; a file named 123
           b"\x001700000100 \x00\n" + change(0, 1) + b"\x00123\x00" + change(0, 3) + b"\x00b.md\x00")
    added = []
    history = gitutil._parse_raw_log(out, "", added)
    assert history == {"123": [(1700000200.0, True, oid(1).decode(), oid(2).decode(), 1),
                               (1700000100.0, False, oid(0).decode(), oid(1).decode(), 2)],
                       "b.md": [(1700000100.0, False, oid(0).decode(), oid(3).decode(), 2)]}
    assert added == [0, 0, 0], "status M: nothing added"


def head(repo):
    return git(repo, "rev-parse", "HEAD").strip()


def committed_files(repo, rev="HEAD"):
    return git(repo, "show", "--name-only", "--format=", rev).split("\n")


def test_commit_exactly_the_paths_given(tmp_path):
    repo = make_repo(tmp_path / "repo")
    root = repo / "memory"
    write(root / "a.md")
    write(root / "b.md")
    write(root / "staged-by-someone.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    write(root / "a.md", "a2\n")
    write(root / "b.md", "b2\n")
    write(root / "staged-by-someone.md", "s2\n")
    write(root / "new *glob* name.md", "n\n")
    git(repo, "add", "memory/staged-by-someone.md")

    commit_id = gitutil.commit(root, ["a.md", "new *glob* name.md"], "tachikoma: test\n\nbody")
    assert commit_id == head(repo)
    assert [p for p in committed_files(repo) if p] == ["memory/a.md", "memory/new *glob* name.md"]
    assert git(repo, "log", "-1", "--format=%B").strip() == "tachikoma: test\n\nbody"
    status = git(repo, "status", "--porcelain")
    assert "M  memory/staged-by-someone.md" in status  # still staged, not committed
    assert " M memory/b.md" in status  # untouched


def test_commit_nothing_to_commit_returns_none(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / "a.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    before = head(repo)
    assert gitutil.commit(repo, ["a.md"], "m") is None
    assert gitutil.commit(repo, [], "m") is None
    assert head(repo) == before


def test_commit_outside_a_repo_returns_none(tmp_path):
    write(tmp_path / "plain" / "a.md")
    assert gitutil.commit(tmp_path / "plain", ["a.md"], "m") is None


def test_commit_deletion(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / "a.md")
    write(repo / "b.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    (repo / "a.md").unlink()
    assert gitutil.commit(repo, ["a.md", "never-existed.md"], "delete a") == head(repo)
    assert git(repo, "ls-files").split() == ["b.md"]


def test_first_commit_of_a_repository(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / "a.md")
    write(repo / "other.md")
    assert gitutil.commit(repo, ["a.md"], "first") == head(repo)
    assert git(repo, "ls-files").split() == ["a.md"]


def test_commit_without_identity_configured(tmp_path):
    repo = make_repo(tmp_path / "repo")
    assert subprocess.run(["git", "config", "user.email"], cwd=repo, capture_output=True).returncode != 0
    write(repo / "a.md")
    commit_id = gitutil.commit(repo, ["a.md"], "m")
    assert commit_id
    assert git(repo, "log", "-1", "--format=%an <%ae>") == "tachikoma <tachikoma@localhost>\n"


def test_commit_keeps_configured_identity(tmp_path):
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "config", "user.name", "Ada"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.email", "ada@example.com"], cwd=repo, check=True)
    write(repo / "a.md")
    gitutil.commit(repo, ["a.md"], "m")
    assert git(repo, "log", "-1", "--format=%an <%ae>") == "Ada <ada@example.com>\n"


def test_commit_failure_is_a_clear_error(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / ".gitignore", "ignored.md\n")
    write(repo / "ignored.md")
    with pytest.raises(TachikomaError, match="ignored by git"):
        gitutil.commit(repo, ["ignored.md"], "m")


def test_dirty_paths(tmp_path):
    repo = make_repo(tmp_path / "repo")
    root = repo / "mem"
    for name in ("clean.md", "modified.md", "staged.md", "deleted.md", "old name.md"):
        write(root / name)
    write(repo / "outside.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    assert gitutil.dirty_paths(root) == set()
    write(root / "modified.md", "m\n")
    write(root / "staged.md", "s\n")
    git(repo, "add", "mem/staged.md")
    (root / "deleted.md").unlink()
    git(repo, "mv", "mem/old name.md", "mem/new näme.md")
    write(root / "untracked.md")
    write(repo / "outside.md", "changed\n")
    assert gitutil.dirty_paths(root) == {"modified.md", "staged.md", "deleted.md", "old name.md", "new näme.md"}
    assert gitutil.dirty_paths(tmp_path / "home") == set()


def test_versions_reads_head_and_index(tmp_path):
    repo = make_repo(tmp_path / "repo")
    root = repo / "mem"
    write(root / "same.md", "v1\n")
    write(root / "staged.md", "v1\n")
    write(root / "gone-from-index.md", "v1\n")
    write(repo / ".gitignore", "mem/ignored.md\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    write(root / "staged.md", "v2\n")
    git(repo, "add", "mem/staged.md")
    write(root / "staged.md", "v3 in the work tree only\n")
    write(root / "new-staged.md", "n\n")
    git(repo, "add", "mem/new-staged.md")
    git(repo, "rm", "-q", "--cached", "mem/gone-from-index.md")
    write(root / "untracked.md")
    write(root / "ignored.md")
    names = ["same.md", "staged.md", "new-staged.md", "gone-from-index.md", "untracked.md", "ignored.md"]
    found = gitutil.versions(root, names)
    assert found["same.md"] == gitutil.Versions(gitutil.Blob(b"v1\n"), gitutil.Blob(b"v1\n"))
    assert found["staged.md"] == gitutil.Versions(gitutil.Blob(b"v1\n"), gitutil.Blob(b"v2\n"))
    assert found["new-staged.md"] == gitutil.Versions(None, gitutil.Blob(b"n\n"))
    assert found["gone-from-index.md"] == gitutil.Versions(gitutil.Blob(b"v1\n"), None)
    assert found["untracked.md"] == gitutil.Versions() and not found["untracked.md"].tracked
    assert found["ignored.md"].ignored and not found["ignored.md"].tracked
    assert gitutil.versions(tmp_path / "home", ["x.md"]) is None


def test_commit_blobs_commits_the_given_content_not_the_work_tree(tmp_path):
    repo = make_repo(tmp_path / "repo")
    root = repo / "mem"
    write(root / "a.md", "a1\n")
    write(root / "other.md", "o1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    write(root / "a.md", "a1\nperson's edit\n")
    write(root / "other.md", "o2\n")
    git(repo, "add", "mem/other.md")
    blob = gitutil.Blob(b"tagged\na1\n")
    commit_id = gitutil.commit_blobs(root, {"a.md": blob, "new file.md": gitutil.Blob(b"n\n", "100755")},
                                     "m\n\nbody", stage={"a.md": blob})
    assert commit_id == head(repo)
    assert git(repo, "show", "HEAD:mem/a.md") == "tagged\na1\n"
    assert git(repo, "ls-tree", "HEAD", "mem/new file.md").startswith("100755 ")
    assert git(repo, "log", "-1", "--format=%B").strip() == "m\n\nbody"
    assert git(repo, "show", ":mem/a.md") == "tagged\na1\n"  # staged as committed
    assert git(repo, "show", ":mem/other.md") == "o2\n"  # someone's staged change: still staged ...
    assert git(repo, "show", "HEAD:mem/other.md") == "o1\n"  # ... and not committed
    assert (root / "a.md").read_text() == "a1\nperson's edit\n"  # work tree untouched
    assert git(repo, "reflog", "-1", "--format=%gs").strip() == "commit: m"
    # Nothing new: no commit.
    assert gitutil.commit_blobs(root, {"a.md": blob}, "again") is None
    # Deleting.
    assert gitutil.commit_blobs(root, {"a.md": None}, "delete", stage={"a.md": None}) == head(repo)
    assert "mem/a.md" not in git(repo, "ls-files")


def test_commit_blobs_first_commit_and_not_a_repo(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / "staged-by-someone.md")
    git(repo, "add", "staged-by-someone.md")
    commit_id = gitutil.commit_blobs(repo, {"a.md": gitutil.Blob(b"x\n")}, "first")
    assert commit_id == head(repo)
    assert git(repo, "ls-tree", "--name-only", "HEAD").split() == ["a.md"]
    assert git(repo, "reflog", "-1", "--format=%gs").strip() == "commit (initial): first"
    assert gitutil.commit_blobs(tmp_path / "home", {"a.md": gitutil.Blob(b"x")}, "m") is None


def test_commit_blobs_refuses_when_head_moved(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    write(repo / "a.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    real_hash = gitutil._hash_objects

    def meanwhile(*args, **kwargs):
        result = real_hash(*args, **kwargs)
        write(repo / "b.md")
        git(repo, "add", "b.md")
        git(repo, "commit", "-qm", "someone else")
        return result

    monkeypatch.setattr(gitutil, "_hash_objects", meanwhile)
    with pytest.raises(gitutil.GitError, match="HEAD move"):
        gitutil.commit_blobs(repo, {"a.md": gitutil.Blob(b"new\n")}, "m")
    assert git(repo, "log", "-1", "--format=%s").strip() == "someone else"
    assert git(repo, "show", "HEAD:a.md") == "x\n"


def test_worktree_blobs_get_gits_filters(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write(repo / ".gitattributes", "*.md text eol=lf\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    blob = gitutil.Blob(b"a\r\nb\r\n", worktree=True)
    gitutil.commit_blobs(repo, {"a.md": blob}, "m")
    assert subprocess.run(["git", "cat-file", "-p", "HEAD:a.md"], cwd=repo, capture_output=True).stdout == b"a\nb\n"
