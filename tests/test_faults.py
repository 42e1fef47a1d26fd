"""kill -9 at named steps (tachikoma.faults), then the same command again: nothing is lost.

Each test runs tachikoma in a subprocess with TACHIKOMA_FAULT=STEP[:N], so
it dies (SIGKILL) at exactly that step, deterministically. What must hold
after the kill, and after running the same command again, is issue 10's
contract: a plain commit by the user never takes the tags back out, and the
rerun ends with a clean work tree, HEAD holding the tags and every body
byte for byte as it was.
"""

import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from gitrepo import git, tachikoma_cli
from tachikoma.reading import tagfile
from tachikoma.reading.frontmatter import split

TAG = ("tag", "--all", "--trust", "owner", "--overwrite")
#: Notes whose bodies are awkward to keep byte for byte.
EXTRA = {
    "crlf.md": b"---\r\ntitle: crlf\r\n---\r\nline one\r\nline two\r\n",
    "no-newline.md": b"# No front matter\n\nends without a newline",
    "unicode.md": "---\ntrust: self\n---\n\u00e9t\u00e9 \u2014 caf\u00e9 \U0001f600\n\n```\n---\n```\n".encode(),
    "bom.md": "\ufeff# BOM first\n\ntext\n".encode(),
}


tachikoma = tachikoma_cli


@pytest.fixture
def repo(git_memory) -> Path:
    for name, data in EXTRA.items():
        (git_memory / name).write_bytes(data)
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "awkward notes")
    return git_memory


def notes(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if ".cache" not in p.parts)


def body(data: bytes) -> bytes:
    """The bytes after the front matter block."""
    text = data.decode("utf-8")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    fm = split(text[len(bom):])
    return fm.body.encode("utf-8") if fm.block else text[len(bom):].encode("utf-8")


def committed(root: Path, path: str, rev: str = "HEAD") -> bytes:
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, check=True).stdout


def trust_in(data: bytes) -> str | None:
    text = data.decode("utf-8").removeprefix("\ufeff")
    return str(split(text).meta.get("trust"))


def taggable(root: Path) -> list[str]:
    """The notes `tag --all` can rewrite (the malformed example is skipped with a reason)."""
    return [p for p in notes(root) if not split((root / p).read_text(encoding="utf-8").removeprefix("\ufeff")).error]


def assert_plain_commit_keeps_tags(root: Path, tmp_path: Path) -> None:
    """On a copy of the repository as the kill left it, `git add new.md && git commit` never removes tags."""
    copy = tmp_path / "after-kill"
    shutil.copytree(root, copy, symlinks=True)
    before = {p: committed(copy, p) for p in notes(root)}
    (copy / "new.md").write_text("# new\n")
    git(copy, "add", "new.md")
    git(copy, "commit", "-q", "-m", "a plain commit")
    for path, data in before.items():
        if trust_in(data) == "owner":
            assert trust_in(committed(copy, path)) == "owner", f"the plain commit took the tags of {path} back"


STEPS = [
    "tag-wrote-file:3",          # some notes written, the others not yet
    "atomic-before-rename:2",    # a temporary file written, not yet renamed
    "tag-before-commit",         # every file written, nothing committed
    "commit-before-ref",         # the commit object exists, HEAD not moved
    "commit-after-ref",          # HEAD moved
    "tag-after-commit",          # committed, the run's bookkeeping not yet cleared
]


@pytest.mark.parametrize("step", STEPS)
def test_kill_during_tagging_then_the_same_command_again_commits_everything(repo, tmp_path, step):
    originals = {p: (repo / p).read_bytes() for p in notes(repo)}
    targets = taggable(repo)
    killed = tachikoma(repo, *TAG, fault=step)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr)
    assert_plain_commit_keeps_tags(repo, tmp_path)

    again = tachikoma(repo, *TAG)
    assert again.returncode == 0, again.stderr
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert status == "", f"work tree not clean after the rerun:\n{status}\n{again.stdout}{again.stderr}"
    for path in targets:
        assert trust_in(committed(repo, path)) == "owner", path
        assert body((repo / path).read_bytes()) == body(originals[path]), path
    entries = tagfile.parse(repo, committed(repo, "tachikoma-tags.yaml")).all_entries()
    transcripts = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.jsonl"))
    assert all(entries[p]["trust"] == "owner" for p in transcripts), entries
    log = git(repo, "log", "--format=%B")
    assert "Tachikoma-Tagging: 1" in log or "tachikoma: " in log


def test_without_the_variable_nothing_is_killed(repo):
    done = tachikoma(repo, *TAG)
    assert done.returncode == 0, done.stderr
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_note_that_cannot_be_written_is_skipped_and_the_rest_tagged_and_committed(repo):
    """A real write failure on one note (EFBIG: the tag run's file-size limit is below that note's
    size, as ENOSPC or an immutable file would refuse it) costs that note only."""
    import resource

    big = b"# Big\n\n" + b"".join(b"line %06d of a long log kept in memory\n" % i for i in range(5000))
    (repo / "big.md").write_bytes(big)
    git(repo, "add", "big.md")
    git(repo, "commit", "-q", "-m", "a big note")
    before = {name: (repo / name).read_bytes() for name in notes(repo)}
    limit = 64 * 1024
    assert len(big) > limit > max(len(data) for name, data in before.items() if name != "big.md")

    def small_files():  # Python ignores SIGXFSZ, so a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run = tachikoma_cli(repo, *TAG, preexec_fn=small_files)
    assert run.returncode == 1, "a selected note left untagged is not success"
    assert "skipped big.md: cannot write (File too large); not tagged" in run.stderr
    assert (repo / "big.md").read_bytes() == big
    assert not [p.name for p in repo.iterdir() if p.name.endswith(".tmp")], "no temporary file is left"
    for name, data in before.items():
        if name != "big.md":
            assert split((repo / name).read_text(encoding="utf-8-sig")).meta.get("trust") == "owner", name
            assert body((repo / name).read_bytes()) == body(data), name
    assert git(repo, "status", "--porcelain") == "", "everything written is committed by this run"
    again = tachikoma(repo, "tag", "--path", "martin.md", "--confidence", "high", "--overwrite")
    assert again.returncode == 0, again.stderr
    assert "interrupted" not in again.stderr
