"""Issue 32, break 3: two clones of one template never share a memory name on a shared store by
accident; a clone that is meant to carry on a memory's index claims the name, explicitly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import git
from tachikoma.indexer import runner
from tachikoma.errors import TachikomaError
from tachikoma.search.searcher import Searcher
from tachikoma.store import STORE_ENV, locate


def template(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "readme.md").write_text("# Team memory\n\nWhat the team knows.\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "template")
    return root


def files(root: Path) -> list[str]:
    with locate(root).open(readonly=True) as store:
        return sorted(store.files())


def index_cli(root: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != STORE_ENV}
    return subprocess.run([sys.executable, "-m", "tachikoma", "index", "--embedder", "hash", "--memory", str(root),
                           "--store", url, *extra], capture_output=True, text=True, env=env, timeout=300)


def test_two_clones_of_one_template_do_not_leak_into_each_other(tmp_path, url, monkeypatch):
    tpl = template(tmp_path / "tpl")
    team_a, team_b = tmp_path / "teamA" / "memory", tmp_path / "teamB" / "memory"
    git(tmp_path, "clone", "-q", str(tpl), str(team_a))
    git(tmp_path, "clone", "-q", str(tpl), str(team_b))
    (team_b / "private.md").write_text("# Salaries\n\nThe okapi project budget is secret.\n", encoding="utf-8")
    git(team_b, "add", "-A")
    git(team_b, "commit", "-q", "-m", "private")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(team_a, embedder_name="hash")
    with pytest.raises(TachikomaError) as refused:
        runner.run(team_b, embedder_name="hash")
    message = str(refused.value)
    assert "belongs to another memory folder" in message and "--claim-name memory" in message
    assert "\n" not in message
    assert files(team_a) == ["readme.md"]  # B's private note never reached A's index
    searcher = Searcher(team_a)
    try:
        answer = searcher.search("okapi project budget", 5, min_score=0)
    finally:
        searcher.close()
    assert all(r["path"] != "private.md" for r in answer["results"])
    ids = {git(r, "config", "--local", "--get", "tachikoma.memoryid").strip() for r in (team_a, team_b)}
    assert len(ids) == 2 and "" not in ids  # each clone has its own id, in its own .git/config


def test_a_clone_claims_the_name_explicitly_and_then_keeps_it(tmp_path, url, monkeypatch):
    origin = template(tmp_path / "server" / "memory")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(origin, embedder_name="hash")
    moved = tmp_path / "new-server" / "memory"
    git(tmp_path, "clone", "-q", str(origin), str(moved))
    (moved / "new.md").write_text("# New\n\nWritten on the new server.\n", encoding="utf-8")
    refused = index_cli(moved, url)
    assert refused.returncode == 1 and "--claim-name memory" in refused.stderr
    wrong = index_cli(moved, url, "--claim-name", "other")
    assert wrong.returncode == 1 and "not 'other'" in wrong.stderr
    claimed = index_cli(moved, url, "--claim-name", "memory")
    assert claimed.returncode == 0, claimed.stderr
    assert "; memory 'memory' in postgresql://postgres@/" in claimed.stdout and " holds 2 files, " in claimed.stdout
    assert files(moved) == ["new.md", "readme.md"]
    again = index_cli(moved, url)  # the name is its own now: no claim needed
    assert again.returncode == 0, again.stderr
    assert index_cli(origin, url).returncode == 1  # and the old folder, still there, is the other one now


def test_the_same_clone_moved_on_this_machine_keeps_its_name(tmp_path, url, monkeypatch):
    first = template(tmp_path / "a" / "memory")
    monkeypatch.setenv(STORE_ENV, url)
    runner.run(first, embedder_name="hash")
    target = tmp_path / "b" / "memory"
    target.parent.mkdir()
    first.rename(target)
    template(first)  # a new repository at the old path: not the moved clone
    summary = runner.run(target, embedder_name="hash")  # the clone's id moved with it
    assert summary.chunks_embedded == 0
