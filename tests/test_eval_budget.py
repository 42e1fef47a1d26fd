"""`tachikoma eval budget` end to end on a tiny generated LongMemEval-format file (hash embedder)."""

import gzip
import json

import pytest
from test_eval_longmemeval import tiny

from tachikoma.replies import tokens
from tachikoma.cli import main
from tachikoma.evaluation import recall_budget


@pytest.fixture
def labelled(tmp_path):
    items = tiny()
    for item in items:  # the user turns that state the answer are labelled, as LongMemEval labels them
        for sid, turns in zip(item["haystack_session_ids"], item["haystack_sessions"]):
            if sid in item["answer_session_ids"]:
                for turn in turns:
                    turn["has_answer"] = turn["role"] == "user"
    path = tmp_path / "lme.json.gz"
    path.write_bytes(gzip.compress(json.dumps(items).encode()))
    return path


def test_inside_needs_a_run_of_the_turns_words():
    turn = " ".join(f"w{i}" for i in range(30))
    assert recall_budget.inside(turn, "header\n" + turn.upper())  # case and layout do not matter
    assert recall_budget.inside(turn, " ".join(f"w{i}" for i in range(5, 25)))  # 20 words in a row
    assert not recall_budget.inside(turn, " ".join(f"w{i}" for i in range(5, 24)))  # 19: not enough
    assert recall_budget.inside("My dog Pixel is a greyhound.", "user: my dog pixel is a greyhound")
    assert not recall_budget.inside("My dog Pixel is a greyhound.", "user: my dog pixel is a")


def test_naive_text_is_the_top_chunks_cut_to_the_budget():
    results = [{"path": f"s{i}.jsonl", "lines": [1, 2], "text": "word " * 60} for i in range(5)]
    text = recall_budget.naive_text(results, 150)
    assert tokens.count(text) <= 150 and text.startswith("s0.jsonl:1-2\n") and "s2.jsonl" in text
    assert "s3.jsonl" not in text


def test_eval_budget_end_to_end(tmp_path, labelled, capsys):
    out = tmp_path / "report"
    assert main(["eval", "budget", str(labelled), "--embedder", "hash", "--vector-cache",
                 str(tmp_path / "v.sqlite"), "--budgets", "60,400", "--falloffs", "0", "--out", str(out),
                 "--quiet"]) == 0
    assert "| 400 | budget |" in capsys.readouterr().out
    report = json.loads((out / "budget.json").read_text())
    assert report["meta"]["questions"] == 3  # the abstention question has no labelled turn
    res = report["results"]
    assert set(res["400"]) == {"budget", "budget-falloff-0", "naive"}
    for budget in ("60", "400"):
        for cell in res[budget].values():
            assert cell["tokens_max"] <= int(budget)
    # the single-session question's answer turn is found within 400 tokens by the budgeted answer
    row = next(r for r in report["per_question"] if r["question_id"] == "q_user")
    assert row["answer_turns"] == 1 and row["budgets"]["400"]["budget"]["inside"] == 1
    assert (out / "budget.md").read_text().startswith("# Recall within a token budget")
    # 95% bootstrap intervals around each share, each half's shares, and the difference from the naive cut
    cell = res["400"]["budget"]
    low, high = cell["turn_share_ci"]
    assert low <= cell["turn_share"] <= high
    assert sum(h["questions"] for h in cell["by_split"].values()) == 3
    diff = report["differences"]["400"]["budget"]["turn_share"]["overall"]
    assert diff["difference"] == pytest.approx(cell["turn_share"] - res["400"]["naive"]["turn_share"], abs=1e-3)
    assert "Against the naive cut" in (out / "budget.md").read_text()


def test_a_pooled_share_and_its_difference_have_bootstrap_intervals():
    from tachikoma.evaluation import metrics

    one = metrics.bootstrap_share([2, 0, 1, 1], [2, 1, 2, 1])
    assert one["share"] == pytest.approx(4 / 6) and one["low"] <= one["share"] <= one["high"]
    same = metrics.bootstrap_share([2, 0, 1, 1], [2, 1, 2, 1], [2, 0, 1, 1])
    assert (same["difference"], same["low"], same["high"]) == (0.0, 0.0, 0.0)
    better = metrics.bootstrap_share([2, 1, 2, 1], [2, 1, 2, 1], [0, 0, 0, 0])
    assert better["difference"] == 1.0 and better["low"] == 1.0
