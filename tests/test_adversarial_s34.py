"""Adversarial checks of session 34's changes: token budgets too small for a passage, the weight balance a
new index names, and the framing phrases left out of keyword queries."""

import subprocess
import sys

from example_memory import copy_example

from tachikoma.replies import tokens
from tachikoma.config import load_config
from tachikoma.indexer import runner
from tachikoma.mcp_answers import answer_text, data_framing
from tachikoma.search.pool import Searchers, search_as_asked


def tachikoma(root, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_a_budgeted_search_with_no_good_match_says_so_on_the_command_line(tmp_path):
    root = copy_example(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    got = tachikoma(root, "search", "zzqxflorb", "--budget", "100", "--in-process")
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("No memory matches") and "unexpected error" not in got.stderr



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
            assert text.startswith("No memory matches") and "…" in text.split("\n")[0]
            assert tokens.count(text) <= 300
    finally:
        searchers.close()


def keywords_of(tmp_path, notes: dict[str, str], question: str) -> list[str]:
    from tachikoma.search.searcher import Searcher

    root = tmp_path / "kw"
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        return searcher.search(question, 5, min_score=0)["keywords"]
    finally:
        searcher.close()


def test_to_date_as_what_something_becomes_keeps_date(tmp_path):
    # "convert a timestamp to date" asks about dates: "to date" is no framing phrase (its conversion heuristic
    # was more rule than the phrase is worth; "what have we spent to date" keeps "date" too)
    notes = {"code/pandas.md": "pandas: a date from a timestamp column is .dt.date (it drops the time of day).\n",
             "code/zones.md": "pandas: convert a timestamp to another time zone with tz_convert.\n",
             "dev/calver.md": "Releases moved from semver to date-based numbers (CalVer) in May.\n",
             "money.md": "Spent on the move: 1,200 EUR for the van.\n"}
    for question in ("How do I convert a timestamp to date in pandas?", "How do I cast the column to date?",
                     "Why did we move releases to date-based numbers?"):
        assert "date" in keywords_of(tmp_path / question[:12].replace(" ", "-"), notes, question), question


def test_so_far_as_a_distance_keeps_far(tmp_path):
    notes = {"work/office.md": "The new office is far from the station: rent near it doubled.\n",
             "work/kiosk.md": "The station kiosk sells the office coffee.\n",
             "people/rafael.md": "Rafael built the NATS consumers.\n"}
    assert "far" in keywords_of(tmp_path / "office", notes, "Why is the new office so far from the station?")
    assert "far" in keywords_of(tmp_path / "away", notes, "Is the station really so far away?")
    assert "far" not in keywords_of(tmp_path / "rafael", notes, "What has Rafael done for us so far?")
