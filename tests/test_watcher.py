"""The watcher: which changes count, grouping, no loop on the index's own writes, and `index --watch`."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

from tachikoma.config import load_config
from tachikoma.indexer import runner, status
from tachikoma.watcher import Watcher, relevant


def test_relevant_changes(tmp_path):
    root = tmp_path
    assert relevant(root, str(root / "a.md")) and relevant(root, str(root / "x" / "s.jsonl"))
    assert relevant(root, str(root / "tachikoma-tags.yaml")) and relevant(root, str(root / "tachikoma.toml"))
    assert relevant(root, str(root / "2026-05"))  # a folder renamed or removed whole
    for claude in (".claude/CLAUDE.md", ".claude/rules/style.md", "app/.claude/CLAUDE.md", ".claude", ".claude/rules"):
        assert relevant(root, str(root / claude)), claude  # Claude Code's memory is read: its changes count
    for ignored in (".cache/index.db", ".cache/index.db-wal", ".git/index", "notes/.a.md.1f2e.tmp",
                    "picture.png", "notes/.hidden/a.md", ".claude/settings.json", ".claude/commands/review.md",
                    ".claude/.CLAUDE.md.3f1a.tmp"):
        assert not relevant(root, str(root / ignored)), ignored
    assert not relevant(root, "/elsewhere/a.md")


def _indexing_recorder(root):
    """The paths of each call, their lock, and an `on_change` that records them and indexes `root`."""
    calls: list[set[str]] = []
    lock = threading.Lock()

    def on_change(paths):
        with lock:
            calls.append(paths)
        runner.run(root, embedder_name="hash")
    return calls, lock, on_change


def test_changes_are_grouped_and_the_index_writes_do_not_loop(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text("# A\nalpha\n")
    calls, lock, on_change = _indexing_recorder(root)

    watcher = Watcher(root, on_change, catch_up=True).start()
    try:
        assert watcher.wait_ready(30)
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.05)
        assert calls == [set()]  # the catch-up run, which also created .cache/index.db
        for n in range(5):  # a burst, like a checkout
            (root / f"n{n}.md").write_text(f"# N{n}\nnote {n}\n")
        deadline = time.monotonic() + 15
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)  # long enough for a loop to show: the run above wrote to .cache
        with lock:
            assert len(calls) == 2, calls
            assert {Path(p).name for p in calls[1]} == {f"n{n}.md" for n in range(5)}
        assert status.freshness(root)["files"] == 6
    finally:
        watcher.stop()
    assert not watcher.running


def test_index_watch_reindexes_each_change_until_interrupted(memory):
    proc = subprocess.Popen([sys.executable, "-m", "tachikoma", "--memory", str(memory), "index", "--watch",
                             "--json", "--embedder", "hash"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_default_sigint)
    try:
        first = _json_block(proc)  # the normal run's summary
        assert first["added"] == 11
        assert proc.stderr.readline().startswith("watching ")
        (memory / "martin.md").unlink()
        line = json.loads(proc.stdout.readline())
        assert line["state"] == "done" and "1 removed" in line["line"]
        # ISO 8601 in UTC, like every other time tachikoma reports (was epoch seconds)
        started, finished = (datetime.fromisoformat(line[key]) for key in ("started", "finished"))
        assert started.utcoffset() == timedelta(0) and started <= finished
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 130 and "interrupted" in err


def _default_sigint() -> None:
    """Ctrl-C's default in the child: a test run started in the background (`cmd &`) ignores SIGINT,
    and a child inheriting that would never see the interrupt this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _json_block(proc) -> dict:
    """The JSON document the process prints first: one line into a pipe (`cli.common.print_json`), several lines
    ending in "}" had it been indented."""
    lines = []
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        lines.append(line)
        if line.rstrip().endswith("}"):
            try:
                return json.loads("".join(lines))
            except ValueError:
                continue


def test_runs_keep_one_loaded_embedder_until_the_index_changes_embedder(memory):
    from tachikoma.watcher import KeptEmbedder

    config = load_config(memory)
    kept = KeptEmbedder()
    assert kept.for_run(memory, config) is None  # no index yet: the run chooses
    runner.run(memory, embedder_name="hash")
    first = kept.for_run(memory, config)
    assert first is not None and first.name.startswith("hash")
    assert kept.for_run(memory, config) is first  # loaded once, reused by every run
    summary = runner.run(memory, config, embedder=first)
    assert summary.embedder == first.name
    runner.run(memory, embedder_name="hash:64", reembed=True)  # rebuilt with another embedder
    again = kept.for_run(memory, config)
    assert again is not first and again.dim == 64
    (memory / "tachikoma.toml").write_text('[embedder]\nname = "minilm"\n')
    assert kept.for_run(memory, load_config(memory)) is None  # a mismatch: the run itself says so


def test_serve_logs_a_watched_run_only_when_it_did_something(memory, caplog):
    """Regression: `serve` logged "index run (files changed): 0 added, 0 changed, 0 removed, …" for every run the
    watcher started that found nothing to do (a file saved unchanged, a folder made, a tagging's second run).
    The first run's summary, a run that did something and one asked for (Re-index) are INFO lines; a run with
    nothing to do is a DEBUG line."""
    import logging

    from tachikoma.web.index_job import IndexJob

    (memory / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n')
    job = IndexJob(memory, lambda: load_config(memory))

    def run_for(reason: str) -> list[tuple[int, str]]:
        caplog.clear()
        assert job.start(reason)
        assert job.wait(60)["state"] == "done"
        return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "tachikoma.web"]

    caplog.set_level(logging.DEBUG, logger="tachikoma.web")
    first = run_for("watch")
    assert [level for level, _ in first] == [logging.INFO] and "11 added" in first[0][1]
    (memory / "martin.md").touch()  # saved unchanged: a new time, the same text
    (memory / "empty-folder").mkdir()
    quiet = run_for("watch")
    assert quiet == [(logging.DEBUG, quiet[0][1])] and "0 added, 0 changed, 0 removed" in quiet[0][1]
    assert run_for("refresh")[0][0] == logging.DEBUG
    (memory / "martin.md").write_text((memory / "martin.md").read_text() + "\nHe likes tea.\n")
    changed = run_for("watch")
    assert [level for level, _ in changed] == [logging.INFO] and "1 changed" in changed[0][1]
    asked = run_for("reindex")
    assert [level for level, _ in asked] == [logging.INFO] and "0 added, 0 changed" in asked[0][1]
    (memory / "gone").symlink_to(memory.parent)  # a file newly left out: the same counts, a new warning
    assert run_for("watch")[0][0] == logging.INFO


def test_serve_s_first_run_says_it_is_the_start_not_that_files_changed(memory, caplog):
    """`serve` began with "index run (files changed): 0 added, 0 changed, 0 removed, 0 skipped, 11 unchanged": its
    watcher's first run catches up with what changed while nothing watched, whether anything did or not. That
    run says "at start"; a run a change started still says "files changed"."""
    import logging

    from tachikoma_dashboard.app import create_app

    (memory / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n')
    runner.run(memory)
    caplog.set_level(logging.DEBUG, logger="tachikoma.web")
    app = create_app(memory=memory, watch=True)
    dashboard = app.extensions["tachikoma"]
    try:
        deadline = time.monotonic() + 60
        while dashboard.index_job.snapshot()["state"] != "done" and time.monotonic() < deadline:
            time.sleep(0.05)
        said = [r.getMessage() for r in caplog.records if r.name == "tachikoma.web"]
        assert len(said) == 1 and said[0].startswith("index run (at start): 0 added, 0 changed, 0 removed"), said
        assert dashboard.index_job.snapshot()["reason"] == "start"
        assert dashboard.live.watcher.wait_ready(10)
        caplog.clear()
        (memory / "identity.md").unlink()
        while not any("files changed" in r.getMessage() for r in caplog.records) and time.monotonic() < deadline:
            time.sleep(0.05)
        said = [r.getMessage() for r in caplog.records if r.name == "tachikoma.web"]
        assert said and said[-1].startswith("index run (files changed): 0 added, 0 changed, 1 removed"), said
    finally:
        dashboard.close()


def test_index_watch_prints_a_line_only_for_a_run_that_did_something(memory, capsys):
    """`index --watch` printed a summary line for every watched run, "0 added, 0 changed, …" included; with
    --json it still gives every run, each saying whether it was news."""
    from tachikoma.cli.indexing import watch_report
    from tachikoma.live import LiveMemory

    (memory / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n')
    runner.run(memory)
    printed = LiveMemory(memory, report=watch_report(as_json=False))
    as_json = LiveMemory(memory, report=watch_report(as_json=True))
    try:
        printed.reindex()  # the first watched run: its summary
        assert "0 added, 0 changed" in capsys.readouterr().out
        (memory / "martin.md").touch()
        printed.reindex()
        assert capsys.readouterr().out == ""
        (memory / "identity.md").unlink()
        printed.reindex()
        assert capsys.readouterr().out.startswith("0 added, 0 changed, 1 removed")
        as_json.reindex()
        as_json.reindex()
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [line["news"] for line in lines] == [True, False] and all(line["state"] == "done" for line in lines)
    finally:
        printed.close()
        as_json.close()


def test_the_watcher_never_watches_through_a_symlinked_folder(tmp_path):
    """A symlink to a folder outside the memory (a home folder, /tmp) is skipped by the indexer, and the watcher
    keeps to the same rule: before, watchfiles followed it, watched every folder below it (a symlink to a large
    tree used up the system's inotify watches, and watching stopped) and re-indexed for each change out there.
    Folders made later, dotted names too, are watched as they come, and a file written in one at once is indexed."""
    root = tmp_path / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "n.md").write_text("# N\nnote\n")
    outside = tmp_path / "outside"
    (outside / "a" / "b").mkdir(parents=True)
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "notes" / "up").symlink_to(root, target_is_directory=True)  # a loop
    calls, lock, on_change = _indexing_recorder(root)

    def wait_for(check, seconds=15):
        deadline = time.monotonic() + seconds
        while not check() and time.monotonic() < deadline:
            time.sleep(0.05)
        return check()

    watcher = Watcher(root, on_change, catch_up=True).start()
    try:
        assert watcher.wait_ready(30)
        assert wait_for(lambda: len(calls) == 1)  # the catch-up run
        (outside / "a" / "b" / "x.md").write_text("# Outside\nnot memory\n")
        time.sleep(1.5)
        with lock:
            assert len(calls) == 1, calls  # nothing outside the memory is watched
        (root / "notes" / "n.md").write_text("# N\nnote, edited\n")
        assert wait_for(lambda: any(str(root / "notes" / "n.md") in c for c in calls))
        (root / "v1.2").mkdir()  # a new folder (a dot in its name), and a note written in it at once
        (root / "v1.2" / "a.md").write_text("# A\nalpha\n")
        assert wait_for(lambda: any(str(root / "v1.2") in c for c in calls))
        assert wait_for(lambda: status.freshness(root)["files"] == 2 and status.freshness(root)["changed_since"] == 0)
        before = len(calls)
        (root / "v1.2" / "b.md").write_text("# B\nbeta\n")  # the new folder is watched
        assert wait_for(lambda: any(str(root / "v1.2" / "b.md") in c for c in calls[before:])), (before, calls)
        assert wait_for(lambda: status.freshness(root)["files"] == 3)
        assert watcher.error is None
    finally:
        watcher.stop()
