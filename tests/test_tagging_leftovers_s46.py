"""Session 46: what session 45's review of tagging left, each against real files and real git repositories.

A hook's time limit as a setting, hooks without a terminal, a merge (cherry-pick, revert, rebase, `git am`,
bisect) in progress, comments on tag lines, CR-only line endings, front matter tachikoma cannot edit, a tag
file that cannot be read, what a partly committed run says, and notes and tag files that cannot be written.
"""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from gitrepo import git, hook, tachikoma_cli, tag
from tachikoma.reading import tagfile
from tachikoma.errors import TachikomaError
from tachikoma.reading.frontmatter import split
from tachikoma.tagging import applying, journal, model, planning

SLEEPER = "sleep 1000"


def trust(root: Path, rel: str, rev: str | None = None) -> str | None:
    text = git(root, "show", f"{rev}:{rel}") if rev else (root / rel).read_text(encoding="utf-8")
    return split(text.removeprefix("\ufeff")).meta.get("trust")


def shown(root: Path, rev: str, rel: str) -> bytes:
    """The bytes of `rel` in `rev`, as git holds them."""
    return subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=root, capture_output=True, check=True).stdout


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "--untracked-files=all")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the memory but git's own and the cache, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink() and not {".git", ".cache"} & set(p.relative_to(root).parts)}


# --------------------------------------------------------------------------- 1. the hook's time limit, a setting


def test_the_hook_time_limit_is_a_setting(git_memory):
    """`gitrun.HOOK_TIMEOUT` (300 s) could only be changed in the code: a team whose pre-commit scanner takes
    six minutes, or one that wants a hung hook stopped sooner, had no say."""
    (git_memory / "tachikoma.toml").write_text("[git]\nhook_timeout = 1\n")
    hook(git_memory, "pre-commit", f"{SLEEPER}  # {git_memory.name}-setting\n")
    head = git(git_memory, "rev-parse", "HEAD")
    started = time.monotonic()
    applied = tag(git_memory, "martin.md", "external")
    assert time.monotonic() - started < 30
    assert applied.commit is None and applied.commit_pending
    assert "the pre-commit hook did not finish within 1 s ([git] hook_timeout)" in applied.commit_error, \
        applied.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head


@pytest.mark.parametrize("value, said", [("0", "git.hook_timeout must be a number of seconds > 0"),
                                         ("-5", "git.hook_timeout must be a number of seconds > 0"),
                                         ('"soon"', "git.hook_timeout must be a finite number, not a string"),
                                         ("nan", "git.hook_timeout must be a finite number")])
def test_a_bad_hook_time_limit_is_a_clear_error_and_nothing_is_written(git_memory, value, said):
    (git_memory / "tachikoma.toml").write_text(f"[git]\nhook_timeout = {value}\n")
    before = snapshot(git_memory)
    done = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--trust", "external", "--overwrite")
    assert done.returncode == 1 and said in done.stderr, done.stderr
    assert snapshot(git_memory) == before


def test_a_settings_file_broken_after_the_preview_stops_the_apply_before_it_writes(git_memory):
    """The dashboard previews with the settings it started with; a settings file broken since then stopped the
    run only at its commit, after every file was written."""
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern="martin.md"), overwrite=True)
    (git_memory / "tachikoma.toml").write_text("[git]\nhook_timeout = 0\n")
    before = snapshot(git_memory)
    with pytest.raises(TachikomaError, match="git.hook_timeout"):
        applying.apply(git_memory, planned)
    assert snapshot(git_memory) == before and not journal.exists(git_memory)


# --------------------------------------------------------------------------- 2. hooks without a terminal


def test_a_hook_that_asks_on_the_terminal_is_refused_at_once_and_says_why(git_memory):
    """Hooks run in a session of their own (so a hung one can be stopped with all it started), without a
    terminal: a hook asking "really commit? [y/N]" on /dev/tty cannot open it. That is the behaviour on every
    face (the dashboard and MCP never had a terminal), so the refusal says it, at once, instead of a bare
    "cannot open /dev/tty"."""
    hook(git_memory, "pre-commit", "exec < /dev/tty\nprintf 'really commit? [y/N] '\nread answer\n"
                                   "[ \"$answer\" = y ]\n")
    started = time.monotonic()
    applied = tag(git_memory, "martin.md", "external")
    assert time.monotonic() - started < 30, "no wait for an answer"
    assert applied.commit is None and applied.commit_pending
    assert "the pre-commit hook refused the commit" in applied.commit_error
    assert "without a terminal, so a hook cannot ask a question there" in applied.commit_error, applied.commit_error
    assert trust(git_memory, "martin.md") == "external" and trust(git_memory, "martin.md", "HEAD") != "external"


def test_a_hook_that_asks_only_when_it_has_a_terminal_commits(git_memory):
    """What the refusal advises: a hook that goes on without asking when /dev/tty cannot be opened."""
    hook(git_memory, "pre-commit", "if (exec < /dev/tty) 2>/dev/null; then exec < /dev/tty; read answer; "
                                   "[ \"$answer\" = y ]; fi\n")
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit and applied.commit_error is None, applied.commit_error
    assert trust(git_memory, "martin.md", "HEAD") == "external"


# --------------------------------------------------------------------------- 3. a git operation in progress


def _conflicting_branches(root: Path) -> None:
    """`other` and `main` each change plan.txt, a file outside the memory's notes, in their own way."""
    (root / "plan.txt").write_text("base\n")
    git(root, "add", "plan.txt")
    git(root, "commit", "-q", "-m", "plan")
    git(root, "checkout", "-q", "-b", "other")
    (root / "plan.txt").write_text("other\n")
    git(root, "commit", "-q", "-am", "other plan")
    git(root, "checkout", "-q", "main")
    (root / "plan.txt").write_text("main\n")
    git(root, "commit", "-q", "-am", "main plan")


def _stopped(root: Path, *args: str) -> None:
    done = subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args], cwd=root,
                          capture_output=True, text=True, env={**os.environ, "GIT_EDITOR": "true"})
    assert done.returncode != 0, (args, done.stdout, done.stderr)


def _merge(root):
    _stopped(root, "merge", "other")
    return "a merge is in progress", "git merge --abort", ["merge", "--abort"]


def _cherry_pick(root):
    _stopped(root, "cherry-pick", "other")
    return "a cherry-pick is in progress", "git cherry-pick --abort", ["cherry-pick", "--abort"]


def _revert(root):
    (root / "plan.txt").write_text("later\n")
    git(root, "commit", "-q", "-am", "later plan")
    _stopped(root, "revert", "HEAD~1")
    return "a revert is in progress", "git revert --abort", ["revert", "--abort"]


def _rebase(root):
    git(root, "checkout", "-q", "other")
    _stopped(root, "rebase", "main")
    return "a rebase is in progress", "git rebase --abort", ["rebase", "--abort"]


def _rebase_apply(root):
    git(root, "checkout", "-q", "other")
    _stopped(root, "rebase", "--apply", "main")
    return "a rebase is in progress", "git rebase --abort", ["rebase", "--abort"]


def _am(root):
    patch = git(root, "format-patch", "-1", "--stdout", "other")
    (root.parent / "other.patch").write_text(patch)
    _stopped(root, "am", str(root.parent / "other.patch"))
    return "`git am` is applying patches", "git am --abort", ["am", "--abort"]


def _bisect(root):
    git(root, "bisect", "start")
    return "a bisect is in progress", "git bisect reset", ["bisect", "reset"]


@pytest.mark.parametrize("operation", [_merge, _cherry_pick, _revert, _rebase, _rebase_apply, _am, _bisect])
def test_tagging_during_a_git_operation_refuses_before_writing(git_memory, operation):
    """Tagging while a merge (or cherry-pick, revert, `git am`) had stopped on a conflict committed on the
    branch, in the middle of it: `git merge --abort` then refused to rewind. During a rebase it said "HEAD is
    detached: check out a branch first", which is the wrong advice then. Now every face refuses before it
    writes anything, naming the operation and what to do; the operation can be finished or aborted as if
    tachikoma had not been asked, and tagging works after it."""
    _conflicting_branches(git_memory)
    what, advice, abort = operation(git_memory)
    head = git(git_memory, "rev-parse", "HEAD")
    before = snapshot(git_memory)
    with pytest.raises(TachikomaError) as raised:
        tag(git_memory, "martin.md", "external")
    assert what in str(raised.value) and advice in str(raised.value) and "nothing was tagged" in str(raised.value)
    assert snapshot(git_memory) == before and not journal.exists(git_memory)
    cli = tachikoma_cli(git_memory, "tag", "--path", "2026-03-22/", "--trust", "external", "--overwrite")
    assert cli.returncode == 1 and what in cli.stderr and advice in cli.stderr, cli.stderr
    assert snapshot(git_memory) == before and git(git_memory, "rev-parse", "HEAD") == head
    git(git_memory, *abort)
    git(git_memory, "checkout", "-q", "main")
    assert status(git_memory) == ""
    applied = tag(git_memory, "martin.md", "external")
    assert applied.commit and applied.commit_error is None


def test_tagging_without_committing_is_allowed_during_a_merge(git_memory):
    _conflicting_branches(git_memory)
    _merge(git_memory)
    applied = tag(git_memory, "martin.md", "external", commit=False)
    assert applied.commit is None and trust(git_memory, "martin.md") == "external"


def test_a_run_left_to_finish_waits_for_the_merge_to_end(git_memory):
    """A run whose commit failed is finished by the next writing run (`recover`); during a merge it must wait
    too, or it commits in the middle of the merge as before."""
    from tachikoma.tagging import recovery

    _conflicting_branches(git_memory)
    hook(git_memory, "pre-commit", "exit 1\n")
    assert tag(git_memory, "martin.md", "external").commit_pending
    (git_memory / ".git" / "hooks" / "pre-commit").unlink()
    _merge(git_memory)  # martin.md stays tagged in the work tree: the merge does not touch it
    head = git(git_memory, "rev-parse", "HEAD")
    later = recovery.recover(git_memory)
    assert later.commit is None and later.commit_pending and "a merge is in progress" in later.commit_error
    assert git(git_memory, "rev-parse", "HEAD") == head and journal.exists(git_memory)
    git(git_memory, "merge", "--abort")
    done = recovery.recover(git_memory)
    assert done.commit and trust(git_memory, "martin.md", "HEAD") == "external"


# --------------------------------------------------------------------------- 4. comments on tag lines


COMMENTED_NOTE = (b"---\ntitle: Anna\ntrust: owner  # checked by Martin\n# where it came from:\n"
                  b"confidence: high   # from the contract\n---\n# Anna\n\nBody, byte for byte.\r\n")
COMMENTED_TAGS = ("# our tags, kept by hand\n"
                  "\n"
                  "# the design chat:\n"
                  "2026-05-10/design-chat.jsonl:\n"
                  "  trust: external  # checked by Martin\n"
                  "  confidence: low  # a guess\n"
                  "\n"
                  "# Martin's own session\n"
                  "2026-04-02/session-chat.jsonl:\n"
                  "  trust: self\n"
                  "  confidence: high\n"
                  "  source: tachikoma  # written by the agent\n")


def _commented(root: Path) -> None:
    (root / "people").mkdir(exist_ok=True)
    (root / "people" / "anna.md").write_bytes(COMMENTED_NOTE)
    (root / tagfile.TAG_FILE).write_text(COMMENTED_TAGS)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "commented tags")


def test_a_comment_on_a_changed_front_matter_line_stays_and_undo_puts_the_line_back(git_memory):
    """`trust: owner  # checked by Martin` became `trust: external`: the person's comment was lost (undo put it
    back). The value alone changes now; the comment stays on its line, in the work tree and in the commit."""
    _commented(git_memory)
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern="people/anna.md"),
                            overwrite=True)
    applied = applying.apply(git_memory, planned)
    assert applied.commit and applied.commit_error is None
    expected = COMMENTED_NOTE.replace(b"trust: owner  #", b"trust: external  #")
    assert (git_memory / "people" / "anna.md").read_bytes() == expected
    assert shown(git_memory, "HEAD", "people/anna.md") == expected
    undone = applying.undo(git_memory, applied)
    assert undone.commit and (git_memory / "people" / "anna.md").read_bytes() == COMMENTED_NOTE


def test_the_tag_file_keeps_its_comments_and_a_changed_tag_its_own(git_memory):
    """Tagging one transcript rewrote the whole tag file, sorted, under tachikoma's header: every comment a
    person wrote in it was lost. Now only the changed entry's lines change; a changed tag keeps the comment
    after its value, a new entry goes in sorted order, and undo gives the file back byte for byte."""
    _commented(git_memory)
    planned = planning.plan(git_memory, {"trust": "untrusted", "source": "web"},
                            model.Selector(pattern=["2026-05-10/design-chat.jsonl", "2026-03-22/session-abc.jsonl"]),
                            overwrite=True)
    applied = applying.apply(git_memory, planned)
    assert applied.commit and applied.commit_error is None
    text = (git_memory / tagfile.TAG_FILE).read_text()
    assert text == ("# our tags, kept by hand\n"
                    "\n"
                    "2026-03-22/session-abc.jsonl:\n"
                    "  trust: untrusted\n"
                    "  source: web\n"
                    "# the design chat:\n"
                    "2026-05-10/design-chat.jsonl:\n"
                    "  trust: untrusted  # checked by Martin\n"
                    "  confidence: low  # a guess\n"
                    "  source: web\n"
                    "\n"
                    "# Martin's own session\n"
                    "2026-04-02/session-chat.jsonl:\n"
                    "  trust: self\n"
                    "  confidence: high\n"
                    "  source: tachikoma  # written by the agent\n"), text
    assert git(git_memory, "show", f"HEAD:{tagfile.TAG_FILE}") == text
    undone = applying.undo(git_memory, applied)
    assert undone.commit and (git_memory / tagfile.TAG_FILE).read_text() == COMMENTED_TAGS


def test_the_tag_file_edited_in_git_keeps_the_comments_of_both_versions(git_memory):
    """The commit holds tachikoma's change only: the same in-place edit is made to the tag file as git has it,
    beside a person's uncommitted comment in the work tree."""
    _commented(git_memory)
    (git_memory / tagfile.TAG_FILE).write_text(COMMENTED_TAGS.replace("# a guess", "# a guess, ask Anna"))
    applied = tag(git_memory, "2026-05-10/design-chat.jsonl", "untrusted")
    assert applied.commit and applied.commit_error is None
    committed = git(git_memory, "show", f"HEAD:{tagfile.TAG_FILE}")
    assert committed == COMMENTED_TAGS.replace("trust: external  # checked", "trust: untrusted  # checked")
    assert "# a guess, ask Anna" in (git_memory / tagfile.TAG_FILE).read_text()


def test_a_tag_file_tachikoma_cannot_edit_in_place_is_written_whole_as_before(git_memory):
    """Anchors and aliases: an edit of one entry could change another, so the file is written anew."""
    (git_memory / tagfile.TAG_FILE).write_text("# mine\n2026-05-10/design-chat.jsonl: &x\n  trust: self\n"
                                               "2026-04-02/session-chat.jsonl: *x\n")
    tag(git_memory, "2026-05-10/design-chat.jsonl", "external")
    loaded = tagfile.load(git_memory)
    assert loaded.tags_for("2026-05-10/design-chat.jsonl").trust == "external"
    assert loaded.tags_for("2026-04-02/session-chat.jsonl").trust == "self"
    assert (git_memory / tagfile.TAG_FILE).read_text().startswith(tagfile.HEADER)


# --------------------------------------------------------------------------- 5. CR-only line endings


CR_NOTE = b"---\rtrust: owner\rconfidence: high\r---\r# An old Mac note\r\rIts body.\r"


def test_a_note_with_cr_only_line_endings_is_reported_and_never_rewritten(git_memory):
    """Classic Mac OS line endings ("\\r" alone): the block was not read as front matter, so the note counted as
    untagged and tagging put a second block above the first one. Now every reader says why it is not read, the
    preview skips it with that reason, and the run writes nothing to it."""
    (git_memory / "old-mac.md").write_bytes(CR_NOTE)
    (git_memory / "old-mac-plain.md").write_bytes(b"# No front matter\rJust lines.\r")
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "old notes")
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern="old-mac*.md"), overwrite=True)
    assert planned.changes == []
    reasons = dict(planned.skipped)
    assert "carriage return alone" in reasons["old-mac.md"] and "mac2unix" in reasons["old-mac.md"]
    assert "carriage return alone" in reasons["old-mac-plain.md"]
    done = tachikoma_cli(git_memory, "tag", "--path", "old-mac*.md", "--trust", "external", "--overwrite")
    assert done.returncode == 1 and "skipped old-mac.md: the note's lines end with a carriage return" in done.stderr
    assert (git_memory / "old-mac.md").read_bytes() == CR_NOTE and status(git_memory) == ""
    stats = tachikoma_cli(git_memory, "stats", "--json")
    problems = {p["path"]: p for p in json.loads(stats.stdout)["problems"]}
    assert "carriage return alone" in problems["old-mac.md"]["reason"], problems
    from tachikoma.reading import reader

    document = reader.read_document(git_memory, "old-mac.md", "markdown")
    assert any("carriage return alone" in w for w in document.warnings), document.warnings


# --------------------------------------------------------------------------- 6. front matter tachikoma does not edit


@pytest.mark.parametrize("head, said", [
    (b"---\n{trust: owner, confidence: high}\n---\n", "front matter is written as a YAML flow mapping"),
    (b"---\n  trust: owner\n  title: Anna\n---\n", "front matter keys are indented (by 2 characters)"),
    (b'---\n"trust": owner\ntitle: Anna\n---\n', "front matter line 2 sets trust in a form tachikoma does not"),
])
def test_front_matter_tachikoma_would_refuse_is_skipped_by_the_preview(git_memory, head, said):
    """Flow-style or indented front matter showed as a change in the preview ("trust=owner → trust=external")
    and was then refused when applied, with a YAML error about a line the person never wrote. The preview now
    makes the very edit on the bytes it read: the note is skipped, up front, with the reason, and the run
    writes nothing to it."""
    note = head + b"# Anna\n\nBody.\n"
    (git_memory / "anna.md").write_bytes(note)
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "anna")
    planned = planning.plan(git_memory, {"trust": "external"}, model.Selector(pattern=["anna.md", "martin.md"]),
                            overwrite=True)
    assert [c.path for c in planned.changes] == ["martin.md"]
    assert said in dict(planned.skipped)["anna.md"], planned.skipped
    preview = tachikoma_cli(git_memory, "tag", "--path", "anna.md", "--path", "martin.md", "--trust", "external",
                            "--overwrite", "--dry-run")
    assert preview.returncode == 1 and f"skipped anna.md: {said}" in preview.stderr, preview.stderr
    assert "anna.md: " not in preview.stdout, "not shown as a change"
    applied = applying.apply(git_memory, planned)
    assert applied.paths == ["martin.md"] and applied.commit
    assert (git_memory / "anna.md").read_bytes() == note
    assert git(git_memory, "show", "--name-only", "--format=", applied.commit).split() == ["martin.md"]


def test_comment_only_front_matter_is_an_empty_block_not_a_malformed_one(git_memory):
    """"---\\n# draft\\n---" was "front matter is not a mapping": skipped by tagging and listed as a problem."""
    (git_memory / "draft.md").write_bytes(b"---\n# draft, not reviewed\n---\nText.\n")
    applied = tag(git_memory, "draft.md", "self")
    assert applied.paths == ["draft.md"]
    assert (git_memory / "draft.md").read_bytes() == b"---\n# draft, not reviewed\ntrust: self\n---\nText.\n"


# --------------------------------------------------------------------------- 7. a tag file that cannot be read


BROKEN_TAGS = "2026-04-02/session-chat.jsonl:\n  trust: self\n2026-05-10/design-chat.jsonl: [unclosed\n"


@pytest.mark.parametrize("kind", ["malformed", "fifo"])
def test_stats_reports_the_tag_file_and_counts_the_rest(git_memory, kind):
    """A malformed tag file (or a FIFO named like it) made `tachikoma stats` print one error and nothing else:
    no note counted, no index state. Now the notes are counted, the transcripts said not to be, and the command
    exits 1 with the tag file's problem."""
    (git_memory / tagfile.TAG_FILE).unlink()
    if kind == "fifo":
        os.mkfifo(git_memory / tagfile.TAG_FILE)
    else:
        (git_memory / tagfile.TAG_FILE).write_text(BROKEN_TAGS)
    said = "not a regular file: a FIFO" if kind == "fifo" else "malformed YAML at line 3"
    text = tachikoma_cli(git_memory, "stats")
    assert text.returncode == 1 and said in text.stderr, text.stderr
    assert "markdown" in text.stdout and "not counted: 3 transcripts" in text.stdout, text.stdout
    assert "index: none yet" in text.stdout
    answer = tachikoma_cli(git_memory, "stats", "--json")
    report = json.loads(answer.stdout)
    assert report["by_kind"]["markdown"]["files"] == 8 and report["by_kind"]["transcript"]["files"] == 0
    assert report["tag_file"]["not_counted"] == 3 and said.split(" at ")[0] in report["tag_file"]["problem"]
    assert [p["kind"] for p in report["problems"]].count("tag-file-unreadable") == 1


@pytest.mark.parametrize("kind", ["malformed", "fifo"])
def test_notes_are_tagged_without_a_readable_tag_file(git_memory, kind):
    """Tagging notes needs no tag file: a malformed one stopped `tag --kind markdown` (and every note's tagging
    on every face) before anything was looked at. A selection holding a transcript still needs it, and says why
    and what can be done meanwhile; it writes nothing."""
    (git_memory / tagfile.TAG_FILE).unlink()
    if kind == "fifo":
        os.mkfifo(git_memory / tagfile.TAG_FILE)
    else:
        (git_memory / tagfile.TAG_FILE).write_text(BROKEN_TAGS)
    before = snapshot(git_memory)
    mixed = tachikoma_cli(git_memory, "tag", "--path", "2026-03-22/", "--trust", "external", "--overwrite")
    assert mixed.returncode == 1 and "the selection holds transcripts, such as 2026-03-22/session-abc.jsonl" \
        in mixed.stderr and "kind markdown" in mixed.stderr, mixed.stderr
    assert snapshot(git_memory) == before
    notes = tachikoma_cli(git_memory, "tag", "--kind", "markdown", "--path", "2026-03-22/", "--trust", "external",
                          "--overwrite")
    assert notes.returncode == 0, notes.stderr
    assert trust(git_memory, "2026-03-22/meeting-notes.md", "HEAD") == "external"
    if kind == "malformed":
        assert (git_memory / tagfile.TAG_FILE).read_text() == BROKEN_TAGS
    else:
        assert (git_memory / tagfile.TAG_FILE).is_fifo()


# --------------------------------------------------------------------------- 8. what a partly committed run says


def test_a_partly_committed_run_says_exactly_what_was_committed_and_what_not(git_memory):
    """A run that committed two files and left a note git does not track said "files were tagged but not
    committed: inbox/draft.md is not tracked" and then "tagged 3 files, committed 1a2b…": it read as if
    nothing, or everything, had been committed. Now each face says which files the commit holds and which it
    does not, and why."""
    (git_memory / "inbox" / "draft.md").write_text("# Draft\n\nNot added to git.\n")
    done = tachikoma_cli(git_memory, "tag", "--path", "inbox/", "--path", "2026-05-10/", "--trust", "external",
                         "--overwrite")
    head = git(git_memory, "rev-parse", "HEAD").strip()
    assert done.returncode == 1
    assert (f"committed 3 of the 4 files tagged in {head[:10]} (inbox/bad-tag.md, inbox/quick-thought.md, "
            "2026-05-10/design-chat.jsonl); not committed: inbox/draft.md is not tracked by git") in done.stderr, \
        done.stderr
    assert "tagged but not committed" not in done.stderr
    assert f"tagged 4 files, 3 of them committed in {head[:10]}" in done.stdout, done.stdout
    assert sorted(git(git_memory, "show", "--name-only", "--format=", "HEAD").split()) == [
        "inbox/bad-tag.md", "inbox/quick-thought.md", tagfile.TAG_FILE]


def test_a_run_whose_commit_failed_whole_says_none_was_committed(git_memory):
    hook(git_memory, "pre-commit", "echo 'secret found' >&2; exit 1\n")
    done = tachikoma_cli(git_memory, "tag", "--path", "inbox/", "--trust", "external", "--overwrite", "--json")
    answer = json.loads(done.stdout)
    assert done.returncode == 1 and answer["commit"] is None and answer["committed"] == []
    text = tachikoma_cli(git_memory, "tag", "--path", "martin.md", "--trust", "self", "--overwrite")
    assert "the 2 files tagged were not committed" not in text.stderr  # the earlier run is said as such
    assert "the file tagged was not committed: the pre-commit hook refused the commit (exit status 1): secret " \
           "found" in text.stderr, text.stderr


# --------------------------------------------------------------------------- 9. notes and tag files that cannot be written


def _chattr(flag: str, *paths: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True).returncode == 0


def test_an_immutable_note_and_tag_file_are_skipped_and_the_rest_committed(git_memory):
    """As root, who may write any file, an immutable file (chattr +i) is what refuses a write: the note is
    skipped with the reason and left as it was, the other files are tagged and committed; an immutable tag file
    costs its transcripts only."""
    note, tags = git_memory / "rumours.md", git_memory / tagfile.TAG_FILE
    if not _chattr("+i", note, tags):
        pytest.skip("chattr +i is not possible here (not root, or a file system without it)")
    try:
        before = {note: note.read_bytes(), tags: tags.read_bytes()}
        done = tachikoma_cli(git_memory, "tag", "--path", "rumours.md", "--path", "martin.md", "--path",
                             "2026-05-10/", "--trust", "external", "--overwrite")
        assert done.returncode == 1, done.stderr
        assert "skipped rumours.md: cannot write (Operation not permitted); not tagged" in done.stderr, done.stderr
        assert (f"skipped 2026-05-10/design-chat.jsonl: cannot write {tagfile.TAG_FILE} (Operation not permitted); "
                "not tagged") in done.stderr
        assert {path: path.read_bytes() for path in before} == before
        assert trust(git_memory, "martin.md", "HEAD") == "external" and status(git_memory) == ""
        assert not [p for p in git_memory.rglob(".*.tmp")], "no temporary file is left"
    finally:
        _chattr("-i", note, tags)


READ_ONLY_FOLDER = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'


def test_a_note_on_a_read_only_mount_is_skipped_and_the_rest_committed(git_memory):
    """A folder of the memory mounted read-only (a backup, a shared drive): its notes are skipped with the
    reason, the others tagged and committed."""
    from gitrepo import CHECKOUT

    folder = git_memory / "inbox"
    command = ["unshare", "--mount", "sh", "-c", READ_ONLY_FOLDER, "sh", str(folder)]
    probe = subprocess.run([*command, "sh", "-c", '! touch "$0/probe"', str(folder)], capture_output=True) \
        if shutil.which("unshare") else None
    if probe is None or probe.returncode != 0:
        pytest.skip("no read-only mount can be made here")
    before = snapshot(git_memory)
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run([*command, os.sys.executable, "-m", "tachikoma", "--memory", str(git_memory), "tag",
                           "--path", "inbox/", "--path", "martin.md", "--trust", "external", "--overwrite"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "skipped inbox/quick-thought.md: cannot write (Read-only file system); not tagged" in done.stderr
    assert {k: v for k, v in snapshot(git_memory).items() if k.startswith("inbox/")} == \
        {k: v for k, v in before.items() if k.startswith("inbox/")}
    assert trust(git_memory, "martin.md", "HEAD") == "external" and status(git_memory) == ""


def test_permission_denied_on_a_note_costs_that_note_only(memory, tmp_path):
    """A note in a folder the user may not write (EACCES): as root that takes another user, nobody."""
    import tempfile

    from gitrepo import CHECKOUT

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root to run tachikoma as another user")
    home = Path(tempfile.mkdtemp(prefix="tagleft-eacces-"))
    try:
        home.chmod(0o755)
        root = home / "memory"
        shutil.copytree(memory, root)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "memory")
        subprocess.run(["chown", "-R", "65534:65534", str(home)], check=True)
        (root / "inbox").chmod(0o555)
        (root / "rumours.md").chmod(0o444)
        before = snapshot(root)
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(CHECKOUT), "GIT_CONFIG_NOSYSTEM": "1",
               "TACHIKOMA_MODEL_CACHE": str(home / "cache")}
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", os.sys.executable,
                               "-m", "tachikoma", "--memory", str(root), "tag", "--path", "inbox/", "--path",
                               "rumours.md", "--path", "martin.md", "--trust", "external", "--overwrite"],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1, done.stderr
        assert "skipped inbox/quick-thought.md: cannot write (Permission denied); not tagged" in done.stderr, \
            done.stderr
        assert {k: v for k, v in snapshot(root).items() if k.startswith("inbox/")} == \
            {k: v for k, v in before.items() if k.startswith("inbox/")}
        committed = git(root, "-c", "safe.directory=*", "show", "--name-only", "--format=", "HEAD").split()
        assert committed == ["martin.md"], committed
        assert trust(root, "martin.md") == "external"
        # Session 47: a note the user made read-only (0444) in a folder they may write is no longer tagged (session
        # 46 tagged it, as `sed -i` would): its mode says "do not change this" (tests/test_inputs_s47.py).
        assert "skipped rumours.md: read-only (mode 0444)" in done.stderr, done.stderr
        assert snapshot(root)["rumours.md"] == before["rumours.md"]
        assert (root / "rumours.md").stat().st_mode & 0o777 == 0o444
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(home)])
        shutil.rmtree(home, ignore_errors=True)


def test_two_entries_differing_only_in_case_are_reported(git_memory):
    """`Chat.jsonl` beside `chat.jsonl` in the tag file, or `Notes.md` beside `notes.md` in the memory: one file
    on a case-insensitive file system (macOS, Windows). No case-insensitive file system can be mounted here
    (the kernel has no casefolding, no vfat), so what is tried is what a case-sensitive one shows: both are
    reported, and an entry whose file exists only with other capitals is stale, with the file named."""
    (git_memory / "notes").mkdir()
    (git_memory / "notes" / "Notes.md").write_text("# Upper\n")
    (git_memory / "notes" / "notes.md").write_text("# lower\n")
    (git_memory / tagfile.TAG_FILE).write_text("2026-05-10/design-chat.jsonl:\n  trust: self\n"
                                               "2026-05-10/Design-Chat.jsonl:\n  trust: owner\n")
    loaded = tagfile.load(git_memory)
    assert any("'2026-05-10/design-chat.jsonl' and '2026-05-10/Design-Chat.jsonl' differ only in case" in w
               for w in loaded.warnings), loaded.warnings
    report = json.loads(tachikoma_cli(git_memory, "stats", "--json").stdout)
    reasons = [p["reason"] for p in report["problems"]]
    assert any("entry for 2026-05-10/Design-Chat.jsonl, which does not exist; 2026-05-10/design-chat.jsonl does: "
               "the names differ in case" in r for r in reasons), reasons
    assert any("notes/Notes.md and notes/notes.md differ only in case" in r for r in reasons), reasons


@pytest.mark.parametrize("target", ["martin.md", "2026-04-02/session-chat.jsonl", "tachikoma.toml", "outside"])
def test_a_symlinked_tag_file_is_refused_and_nothing_is_written(git_memory, target):
    """`tachikoma-tags.yaml` as a symlink to a note inside the memory was read as the tag file (the note's text
    as YAML) and written through: tagging a transcript replaced the note with YAML. Now a symlink there is
    refused wherever it points, by every reader and writer; notes are tagged as usual."""
    (git_memory / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 5000000\n")
    outside = git_memory.parent / "outside.yaml"
    outside.write_text("2026-05-10/design-chat.jsonl:\n  trust: self\n")
    (git_memory / tagfile.TAG_FILE).unlink()
    (git_memory / tagfile.TAG_FILE).symlink_to(outside if target == "outside" else git_memory / target)
    before = snapshot(git_memory)
    outside_before = outside.read_bytes()
    with pytest.raises(tagfile.TagFileError, match="is a symlink"):
        tagfile.load(git_memory)
    done = tachikoma_cli(git_memory, "tag", "--path", "2026-05-10/", "--trust", "external", "--overwrite")
    assert done.returncode == 1 and "is a symlink" in done.stderr, done.stderr
    assert snapshot(git_memory) == before and outside.read_bytes() == outside_before
    assert (git_memory / tagfile.TAG_FILE).is_symlink()
    stats = tachikoma_cli(git_memory, "stats")
    assert stats.returncode == 1 and "is a symlink" in stats.stderr and "not counted" in stats.stdout
    notes = tachikoma_cli(git_memory, "tag", "--path", "rumours.md", "--trust", "external", "--overwrite")
    assert notes.returncode == 0, notes.stderr
    assert snapshot(git_memory)[target if target != "outside" else "martin.md"] == \
        before[target if target != "outside" else "martin.md"]
