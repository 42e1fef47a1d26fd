"""Adversarial checks of session 34's changes: token budgets too small for a passage, the weight balance a
new index names, and the framing phrases left out of keyword queries."""

import subprocess
import sys

from example_memory import copy_example

from tachikoma import tokens
from tachikoma.config import load_config
from tachikoma.indexer import runner
from tachikoma.mcp_server import answer_text, data_framing
from tachikoma.search.pool import Searchers, search_as_asked


def tachikoma(root, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_a_budgeted_search_with_no_good_match_says_so_on_the_command_line(tmp_path):
    root = copy_example(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    got = tachikoma(root, "search", "zzqxflorb", "--budget", "100", "--in-process")
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("no good match") and "unexpected error" not in got.stderr



def test_mcp_no_good_match_within_a_budget_quotes_a_long_question_shortened(tmp_path):
    root = copy_example(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    searchers = Searchers()
    try:
        for question in ("zzqxflorb " * 200, "会議" * 1000):
            answer = search_as_asked(root, load_config(root), searchers,
                                     {"query": question, "limit": 10, "budget_tokens": 300},
                                     preamble=data_framing(False))
            assert answer["no_good_match"]
            text = answer_text(answer)
            assert text.startswith("no good match for") and "…" in text.split("\n")[0]
            assert tokens.count(text) <= 300
    finally:
        searchers.close()
