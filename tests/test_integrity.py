"""Issue 10: a file's fingerprint in the index means "this content was read and chunked".

A read that fails (the file vanished for a moment, an I/O error, over the
size limit) must leave the file marked as needing work, so a later run
retries it, and a change of the size limit makes the affected files eligible.
"""

import json
import os
from pathlib import Path

import pytest

from tachikoma import freshness, memory as mem, stats
from tachikoma.indexer import pipeline, runner, status
from tachikoma.tagging import applying, journal, model, planning, recovery
from tachikoma.store import Store


def run(root, **kw):
    kw.setdefault("embedder_name", "hash")
    return runner.run(root, **kw)


def chunk_count(root, path):
    with Store(mem.index_path(root)) as store:
        return store.db.execute("SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?",
                                (path,)).fetchone()[0]


def fresh_count(root, path, tmp_path):
    """The chunks a rebuild from scratch gives `path`."""
    copy = tmp_path / "fresh"
    copy.mkdir()
    (copy / path).write_bytes((root / path).read_bytes())
    run(copy)
    return chunk_count(copy, path)


def test_a_file_that_vanished_during_its_read_is_read_again_when_it_comes_back(memory, monkeypatch, tmp_path):
    """Deterministic form of the race: a sync tool (or git checkout) replaces martin.md just as it is read."""
    target = memory / "martin.md"
    original = pipeline.read_document

    def flaky(root, rel, kind, **kw):
        if rel == "martin.md":
            data = target.read_bytes()
            target.unlink()
            try:
                return original(root, rel, kind, **kw)
            finally:
                target.write_bytes(data)
        return original(root, rel, kind, **kw)

    monkeypatch.setattr(pipeline, "read_document", flaky)
    first = run(memory)
    assert any("martin.md" in w and "cannot read" in w for w in first.warnings), first.warnings
    assert chunk_count(memory, "martin.md") == 0
    monkeypatch.setattr(pipeline, "read_document", original)
    assert {"path": "martin.md", "kind": "read-failed"}.items() <= \
        next(p for p in stats.report(memory)["problems"] if p["path"] == "martin.md").items()

    with Store(mem.index_path(memory)) as store:
        assert freshness.pending_changes(memory, store) == 1, "the unread file still needs work"
    second = run(memory)
    assert chunk_count(memory, "martin.md") == fresh_count(memory, "martin.md", tmp_path) > 0
    assert second.changed + second.added == 1
    with Store(mem.index_path(memory)) as store:
        assert freshness.pending_changes(memory, store) == 0


def test_a_failed_read_with_an_unchanged_stat_is_still_retried(memory, monkeypatch):
    """Even when size and mtime come back identical, a file that was never read is not "unchanged"."""
    original = pipeline.read_document
    stat = os.stat(memory / "martin.md")

    def failing(root, rel, kind, **kw):
        doc = original(root, rel, kind, max_bytes=1) if rel == "martin.md" else original(root, rel, kind, **kw)
        return doc

    monkeypatch.setattr(pipeline, "read_document", failing)
    run(memory)
    assert chunk_count(memory, "martin.md") == 0
    monkeypatch.setattr(pipeline, "read_document", original)
    os.utime(memory / "martin.md", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    run(memory)
    assert chunk_count(memory, "martin.md") > 0


def write_config(root, max_bytes):
    (root / "tachikoma.toml").write_text(f"[index]\nmax_file_bytes = {max_bytes}\n")


def test_raising_the_size_limit_indexes_a_note_skipped_as_too_big(memory):
    big = memory / "big.md"
    big.write_text("# Big\n\n" + "zebra crossing notes. " * 2000)
    write_config(memory, 10_000)
    first = run(memory)
    assert any("big.md" in w and "limit" in w for w in first.warnings), first.warnings
    assert chunk_count(memory, "big.md") == 0

    # Still over the limit: reported by stats (not silently "unchanged").
    run(memory)
    problems = [p for p in stats.report(memory)["problems"] if p["path"] == "big.md"]
    assert [p["kind"] for p in problems] == ["too-large"], problems
    assert "limit" in problems[0]["reason"]

    write_config(memory, 1_000_000)
    big.touch()
    run(memory)
    assert chunk_count(memory, "big.md") > 0


def test_raising_the_size_limit_needs_no_touch(memory):
    big = memory / "big.md"
    big.write_text("# Big\n\n" + "zebra crossing notes. " * 2000)
    write_config(memory, 10_000)
    run(memory)
    write_config(memory, 1_000_000)
    run(memory)
    assert chunk_count(memory, "big.md") > 0


def test_lowering_the_size_limit_drops_a_note_now_over_it(memory):
    big = memory / "big.md"
    big.write_text("# Big\n\n" + "zebra crossing notes. " * 2000)
    run(memory)
    assert chunk_count(memory, "big.md") > 0
    write_config(memory, 10_000)
    summary = run(memory)
    assert any("big.md" in w and "limit" in w for w in summary.warnings), summary.warnings
    assert chunk_count(memory, "big.md") == 0


def test_an_oversized_file_is_not_hashed(memory, monkeypatch):
    """The size check comes before reading: a 5 GB file must not be hashed to learn it is skipped."""
    big = memory / "huge.md"
    with open(big, "wb") as handle:
        handle.truncate(50_000_000)  # sparse
    hashed = []
    real = freshness.file_sha256
    monkeypatch.setattr(freshness, "file_sha256", lambda path: hashed.append(path.name) or real(path))
    run(memory)  # first sight: nothing known, nothing hashed for planning either
    big.touch()
    os.utime(big, (1, 1))
    summary = run(memory)
    assert "huge.md" not in hashed
    assert any("huge.md" in w and "limit" in w for w in summary.warnings)


def test_changed_since_counts_transcripts_retagged_since_the_last_run(memory):
    """Tagging transcripts changes only the tag file, yet their tags in the index are stale until indexed."""
    run(memory)
    plan = planning.plan(memory, {"trust": "owner"}, model.Selector(kind="transcript"), overwrite=True)
    assert plan.changes
    applying.apply(memory, plan, commit=False)
    assert status.freshness(memory)["changed_since"] == len(plan.changes)
    summary = run(memory)
    assert summary.retagged == len(plan.changes)
    assert status.freshness(memory)["changed_since"] == 0


# --------------------------------------------------------------------------- commit order and recovery


def test_commit_stages_before_moving_the_branch(git_memory, monkeypatch):
    """At the moment HEAD moves, the real index already holds what is committed."""
    from gitrepo import git
    from tachikoma.git import gitutil

    seen = {}

    def spy(step):
        if step == "commit-before-ref":
            seen["staged"] = git(git_memory, "ls-files", "-s", "martin.md")
            seen["head"] = git(git_memory, "rev-parse", "HEAD")

    monkeypatch.setattr(gitutil.faults, "point", spy)
    new = b"---\ntrust: owner\n---\nchanged\n"
    commit = gitutil.commit_blobs(git_memory, {"martin.md": gitutil.Blob(new)}, "m",
                                  stage={"martin.md": gitutil.Blob(new)})
    assert seen["head"].strip() != commit
    assert git(git_memory, "ls-files", "-s", "martin.md") == seen["staged"]
    assert git(git_memory, "show", f"{commit}:martin.md").encode() == new


def test_head_moving_meanwhile_puts_the_index_back(git_memory, monkeypatch):
    from gitrepo import git
    from tachikoma.git import gitutil

    before = git(git_memory, "ls-files", "-s", "martin.md")

    def someone_commits(step):
        if step == "commit-before-ref":
            git(git_memory, "commit", "-q", "--allow-empty", "-m", "someone else")

    monkeypatch.setattr(gitutil.faults, "point", someone_commits)
    new = b"changed\n"
    with pytest.raises(gitutil.GitError, match="HEAD move"):
        gitutil.commit_blobs(git_memory, {"martin.md": gitutil.Blob(new)}, "m", stage={"martin.md": gitutil.Blob(new)})
    assert git(git_memory, "ls-files", "-s", "martin.md") == before


def test_recover_without_an_interrupted_run_does_nothing(git_memory):
    assert recovery.recover(git_memory) is None
    assert not (git_memory / ".cache" / journal.NAME).exists()


def test_an_unreadable_journal_is_dropped_with_a_reason(git_memory):
    journal_file = mem.cache_dir(git_memory) / journal.NAME
    journal_file.write_text('{"version": 1, "act')  # killed while it was being written
    done = recovery.recover(git_memory)
    assert done is not None and "unreadable" in done.commit_error and done.commit is None
    assert not journal_file.exists()


def test_a_run_that_wrote_files_and_died_is_committed_by_the_next_run(git_memory, monkeypatch):
    """In-process form of test_faults: the run dies after writing, before committing."""
    from gitrepo import git

    plan = planning.plan(git_memory, {"trust": "owner"}, model.Selector(kind="markdown"), overwrite=True)

    class Killed(BaseException):
        pass

    def die(step):
        if step == "tag-before-commit":
            raise Killed

    monkeypatch.setattr(applying.faults, "point", die)
    with pytest.raises(Killed):
        applying.apply(git_memory, plan)
    monkeypatch.undo()
    assert git(git_memory, "status", "--porcelain")  # tagged, not committed
    again = planning.plan(git_memory, {"trust": "owner"}, model.Selector(kind="markdown"), overwrite=True)
    assert again.changes == []  # the files already say trust: owner
    done = recovery.recover(git_memory)
    assert done.commit and sorted(done.paths) == sorted(c.path for c in plan.changes)
    assert "interrupted" in git(git_memory, "log", "-1", "--format=%B")
    assert git(git_memory, "status", "--porcelain") == ""


# --------------------------------------------------------------------------- tagging huge and binary files


def sparse(path, size):
    with open(path, "wb") as handle:
        handle.write(b"---\ntitle: huge\n---\n")
        handle.truncate(size)


def test_tag_refuses_a_note_over_the_size_limit_without_reading_it(git_memory):
    huge = git_memory / "huge.md"
    sparse(huge, 60_000_000)
    blocks = os.stat(huge).st_blocks
    plan = planning.plan(git_memory, {"trust": "self"}, model.Selector(pattern="huge.md"))
    assert plan.changes == []
    [(path, reason)] = plan.skipped
    assert path == "huge.md" and "60000000 bytes" in reason and "max_file_bytes" in reason, reason
    # A change planned before the file grew is refused at write time too.
    change = model.Change("huge.md", "markdown", {}, {"trust": "self"})
    applied = applying.apply(git_memory, model.Plan(root=git_memory, values={"trust": "self"}, overwrite=False,
                                                    changes=[change]))
    assert applied.changes == [] and "max_file_bytes" in applied.skipped[0].reason
    assert os.stat(huge).st_blocks == blocks, "the sparse file was not rewritten"
    assert applied.commit is None


def test_tag_uses_the_configured_size_limit(git_memory):
    (git_memory / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 100\n")
    plan = planning.plan(git_memory, {"trust": "self"}, model.Selector(pattern="martin.md"), overwrite=True)
    assert plan.changes == [] and "over the 100-byte limit" in plan.skipped[0].reason


def test_tag_refuses_a_binary_note(git_memory):
    (git_memory / "blob.md").write_bytes(b"---\ntitle: x\n---\n\x00\x01\x02binary")
    plan = planning.plan(git_memory, {"trust": "self"}, model.Selector(pattern="blob.md"))
    assert plan.changes == [] and "binary" in plan.skipped[0].reason


def test_cli_tag_on_a_huge_note_says_why_and_changes_nothing(git_memory):
    import subprocess
    import sys

    sparse(git_memory / "huge.md", 60_000_000)
    done = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(git_memory), "tag", "--path", "huge.md",
                           "--trust", "self"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr  # the selected note is not tagged (docs/tagging.md, exit status)
    assert "huge.md" in done.stderr and "limit" in done.stderr
    assert "nothing to tag" in done.stdout


def test_the_body_is_streamed_byte_for_byte_even_when_it_is_not_utf8(git_memory):
    """The rewrite copies the body without decoding it: bytes across block boundaries, invalid UTF-8, CRLF."""
    from gitrepo import git

    body = b"".join(bytes([i % 256]) * 3 + b"\r\n\xe2\x82" for i in range(1, 700_000)).replace(b"\x00", b"0")
    note = git_memory / "big.md"
    note.write_bytes(b"---\r\ntitle: big\r\n---\r\n" + body)
    git(git_memory, "add", "big.md")
    git(git_memory, "commit", "-q", "-m", "big")
    plan = planning.plan(git_memory, {"trust": "self"}, model.Selector(pattern="big.md"))
    assert [c.path for c in plan.changes] == ["big.md"], plan.skipped
    applied = applying.apply(git_memory, plan)
    assert applied.commit, applied.commit_error
    assert note.read_bytes() == b"---\r\ntitle: big\r\ntrust: self\r\n---\r\n" + body
    assert git(git_memory, "status", "--porcelain") == ""
    undone = applying.undo(git_memory, applied)
    assert undone.commit and note.read_bytes() == b"---\r\ntitle: big\r\n---\r\n" + body


# --------------------------------------------------------------------------- siblings


@pytest.mark.parametrize("rel", ["a" * 300 + ".md", "/".join(["d" * 200] * 30) + "/x.md", "x/" + "b" * 5000])
def test_file_page_with_a_very_long_path_is_404(memory, rel):
    from tachikoma_dashboard.app import create_app

    runner.run(memory, embedder_name="hash")
    client = create_app(memory=memory, port=5000).test_client()
    answer = client.get(f"/file/{rel}", base_url="http://127.0.0.1:5000")
    assert answer.status_code == 404, answer.get_data(as_text=True)[:500]


READ_ONLY_VIEW = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'


def run_without_write_access(root, *args):
    """tachikoma `args` in a process that cannot write `root`. As root (who writes anywhere) that is
    a read-only bind mount in a private mount namespace, as for a mounted backup; otherwise the
    folders are made read-only, as for another user's memory."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "tachikoma", "--memory", str(root), *args]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    if os.geteuid() == 0:
        view = ["unshare", "--mount", "sh", "-c", READ_ONLY_VIEW, "sh", str(root)]
        try:
            probe = subprocess.run([*view, "sh", "-c", "! touch \"$0/probe\"", str(root)], capture_output=True)
        except FileNotFoundError:
            probe = None
        if probe is None or probe.returncode != 0:
            pytest.skip("running as root, and no read-only mount can be made here")
        return subprocess.run([*view, *command], capture_output=True, text=True, timeout=60, env=env)
    folders = [p for p in [root, *root.rglob("*")] if p.is_dir()]
    for folder in folders:
        folder.chmod(0o555)
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    finally:
        for folder in folders:
            folder.chmod(0o755)


def test_search_works_on_a_read_only_memory_folder(memory):
    """Another user's memory, or a mounted backup: the index is readable, nothing can be written."""
    runner.run(memory, embedder_name="hash")
    done = run_without_write_access(memory, "search", "DRV8353", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["results"] and "DRV8353" in json.dumps(answer["results"])
    assert answer.get("freshness", {}).get("state", "complete") == "complete", answer.get("freshness")
    assert not list((memory / ".cache").glob("vectors-*")), "no vector cache could be written"


def test_a_folder_that_cannot_be_listed_is_a_warning_and_a_problem(memory, monkeypatch):
    locked = memory / "locked"
    locked.mkdir()
    (locked / "secret.md").write_text("# hidden\n")
    scandir = os.scandir

    def denied(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", denied)  # root may list anything, so chmod 0 cannot show it
    warnings = []
    found = mem.walk(memory, warnings.append)
    assert "locked/secret.md" not in {f.path for f in found}
    assert "locked: cannot list (Permission denied), skipped" in warnings, warnings
    problem = next(p for p in stats.report(memory)["problems"] if p["path"] == "locked")
    assert problem["kind"] == "unreadable-folder" and "cannot list" in problem["reason"]
    assert any("locked: cannot list" in w for w in runner.run(memory, embedder_name="hash").warnings)


def test_files_of_a_folder_that_cannot_be_listed_for_now_stay_indexed(memory, monkeypatch):
    locked = memory / "projects"
    run(memory)
    before = chunk_count(memory, "projects/tachikoma.md")
    scandir = os.scandir

    def denied(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", denied)
    summary = run(memory)
    assert summary.removed == 0
    assert chunk_count(memory, "projects/tachikoma.md") == before > 0


def test_undo_after_a_restart_puts_whole_notes_back_on_disk_and_in_git(git_memory):
    """The dashboard keeps undo records on disk; a note's record holds only its head, never its body."""
    from gitrepo import git
    from tachikoma.web import undo as records

    original = (git_memory / "martin.md").read_bytes()
    plan = planning.plan(git_memory, {"trust": "untrusted"}, model.Selector(pattern="martin.md"), overwrite=True)
    applied = applying.apply(git_memory, plan)
    assert applied.commit
    record = json.loads(json.dumps(records.encode(applied, 0.0)))
    assert len(record["restore"]["martin.md"]["original"]) < len(original)  # the head, as base64
    note = git_memory / "martin.md"
    note.write_bytes(note.read_bytes() + b"\nAn edit not committed yet.\n")
    undone = applying.undo(git_memory, records.decode(record))
    assert undone.commit, undone.commit_error
    assert git(git_memory, "show", "HEAD:martin.md").encode() == original
    assert note.read_bytes() == original + b"\nAn edit not committed yet.\n"
