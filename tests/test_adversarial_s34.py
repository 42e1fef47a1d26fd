"""Adversarial checks of session 34's changes: token budgets too small for a passage, the weight balance a
new index names, and the framing phrases left out of keyword queries."""

import subprocess
import sys

from example_memory import copy_example

from tachikoma.indexer import runner


def tachikoma(root, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_a_budgeted_search_with_no_good_match_says_so_on_the_command_line(tmp_path):
    root = copy_example(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    got = tachikoma(root, "search", "zzqxflorb", "--budget", "100", "--in-process")
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("no good match") and "unexpected error" not in got.stderr

