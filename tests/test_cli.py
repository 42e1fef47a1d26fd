"""The command line as a user runs it: real processes, exit codes, JSON on stdout."""

import json
import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def tachikoma(*args, cwd=None, env=None):
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tachikoma", *args], capture_output=True, text=True,
                          cwd=cwd, env=full_env, timeout=120)


def test_help_lists_every_command():
    out = tachikoma("--help")
    assert out.returncode == 0
    for command in ("index", "search", "tag", "stats", "serve"):
        assert command in out.stdout


def test_index_search_json_round_trip(git_memory):
    assert tachikoma("--memory", str(git_memory), "index", "--embedder", "hash", "-q").returncode == 0
    out = tachikoma("--memory", str(git_memory), "search", "DRV8353 samples", "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["query"] == "DRV8353 samples" and 1 <= len(answer["results"]) <= 3
    first = answer["results"][0]
    assert not Path(first["path"]).is_absolute()
    assert (git_memory / first["path"]).exists()


def test_memory_from_environment_variable(memory):
    out = tachikoma("index", "--embedder", "hash", "--json", env={"TACHIKOMA_MEMORY": str(memory)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["added"] == 11


def test_default_memory_folder_is_dot_memory(memory):
    out = tachikoma("stats", "--json", cwd=memory.parent)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == 11


def test_failures_exit_non_zero_with_one_line(tmp_path, memory):
    missing = tachikoma("--memory", str(tmp_path / "nope"), "stats")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "does not exist" in missing.stderr
    no_index = tachikoma("--memory", str(memory), "search", "hello")
    assert no_index.returncode == 1 and "tachikoma index" in no_index.stderr
    bad_value = tachikoma("--memory", str(memory), "tag", "--all", "--trust", "bogus")
    assert bad_value.returncode == 1 and "invalid trust 'bogus'" in bad_value.stderr


def test_stats_json_shape(memory):
    out = tachikoma("--memory", str(memory), "stats", "--json")
    stats = json.loads(out.stdout)
    for key in ("files", "tagged", "partial", "untagged", "invalid"):
        assert isinstance(stats[key], int)
    assert stats["files"] == stats["tagged"] + stats["partial"] + stats["untagged"] + stats["invalid"]
    assert set(stats["by_kind"]) == {"markdown", "transcript"}
    assert stats["by_kind"]["transcript"]["files"] == 3
    assert stats["index"]["last_indexed_at"] is None


def test_tag_defaults_dry_run_then_apply_and_commit(git_memory):
    before = {p: p.read_bytes() for p in git_memory.rglob("*") if p.is_file() and ".git" not in p.parts}
    dry = tachikoma("--memory", str(git_memory), "tag", "--dry-run", "--json")
    plan = json.loads(dry.stdout)
    assert {c["path"] for c in plan["changes"]} == {"2026-03-22/session-abc.jsonl", "2026-05-10/design-chat.jsonl"}
    assert all(c["after"] == {"trust": "self", "confidence": "medium", "source": "tachikoma"} for c in plan["changes"])
    assert {p: p.read_bytes() for p in before} == before, "a dry run writes nothing"
    applied = tachikoma("--memory", str(git_memory), "tag")
    assert applied.returncode == 0 and "tagged 2 file(s), committed" in applied.stdout
    log = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=git_memory, capture_output=True, text=True).stdout
    assert "tag 2 files" in log
    stats = json.loads(tachikoma("--memory", str(git_memory), "stats", "--json").stdout)
    assert stats["by_kind"]["transcript"]["untagged"] == 0


def test_tag_markdown_by_path_keeps_body_bytes(git_memory):
    note = git_memory / "2026-03-22" / "meeting-notes.md"
    body = note.read_bytes()
    out = tachikoma("--memory", str(git_memory), "tag", "--path", "2026-03-22/*.md", "--trust", "OWNER",
                    "--confidence", "high", "--no-commit")
    assert out.returncode == 0, out.stderr
    text = note.read_bytes()
    assert text.startswith(b"---\n") and b"trust: owner\n" in text and text.endswith(body)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=git_memory, capture_output=True, text=True).stdout
    assert "meeting-notes.md" in status, "--no-commit leaves the change uncommitted"


def test_values_need_a_selector(memory):
    out = tachikoma("--memory", str(memory), "tag", "--trust", "owner")
    assert out.returncode == 1 and "say which files" in out.stderr
