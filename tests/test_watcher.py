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


def test_changes_are_grouped_and_the_index_writes_do_not_loop(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text("# A\nalpha\n")
    calls: list[set[str]] = []
    lock = threading.Lock()

    def on_change(paths):
        with lock:
            calls.append(paths)
        runner.run(root, embedder_name="hash")

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
    lines = []
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        lines.append(line)
        if line.startswith("}"):
            return json.loads("".join(lines))


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
