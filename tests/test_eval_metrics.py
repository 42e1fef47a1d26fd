"""Retrieval metrics, worked by hand."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tachikoma.evaluation import metrics as m
from tachikoma.evaluation.locomo import Quirks, parse_evidence, parse_session_date, turn_text


def test_distinct_keeps_first_occurrences():
    assert m.distinct(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]
    assert m.distinct([]) == []


def test_recall_any_and_all():
    ranked = ["s3", "s1", "s7", "s2"]
    assert m.recall_any(ranked, {"s7"}, 1) == 0.0
    assert m.recall_any(ranked, {"s7"}, 3) == 1.0
    assert m.recall_all(ranked, {"s1", "s2"}, 3) == 0.0
    assert m.recall_all(ranked, {"s1", "s2"}, 4) == 1.0
    assert m.recall_all(ranked, {"s1", "s9"}, 10) == 0.0, "a gold item never retrieved"
    assert m.recall_any([], {"s1"}, 5) == 0.0


def test_ndcg_binary():
    # gold at ranks 2 and 3 of 5: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3)
    got = m.ndcg(["x", "a", "b", "y", "z"], {"a", "b"}, 5)
    assert got == pytest.approx((1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3)))
    assert m.ndcg(["a", "x"], {"a"}, 1) == 1.0
    assert m.ndcg(["x", "a"], {"a"}, 1) == 0.0
    assert m.ndcg(["x", "a"], {"a"}, 2) == pytest.approx(1 / math.log2(3))
    # ideal is capped at k: three gold items, k = 1, first one right → 1
    assert m.ndcg(["a", "b", "c"], {"a", "b", "c"}, 1) == 1.0
    assert m.ndcg(["a", "a", "x"], {"a", "b"}, 3) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_evidence_recall_files_counts_turns_not_sessions():
    evidence = [("s1", 4), ("s1", 9), ("s2", 3)]
    assert m.evidence_recall_files(["s1", "s5"], evidence, 2) == pytest.approx(2 / 3)
    assert m.evidence_recall_files(["s5", "s2"], evidence, 1) == 0.0
    assert m.evidence_recall_files(["s5", "s2"], evidence, 2) == pytest.approx(1 / 3)


def test_evidence_recall_spans_needs_the_line_inside_a_chunk_of_the_same_file():
    spans = [("s1", 1, 5), ("s2", 10, 20), ("s1", 6, 12)]
    evidence = [("s1", 4), ("s1", 9), ("s2", 3)]
    assert m.evidence_recall_spans(spans, evidence, 1) == pytest.approx(1 / 3)
    assert m.evidence_recall_spans(spans, evidence, 2) == pytest.approx(1 / 3), "s2:3 is outside 10-20"
    assert m.evidence_recall_spans(spans, evidence, 3) == pytest.approx(2 / 3)
    assert m.evidence_recall_spans(spans, [("s2", 10), ("s2", 20)], 2) == 1.0, "bounds are inclusive"


def test_errors_and_mean():
    with pytest.raises(ValueError):
        m.recall_any(["a"], set(), 1)
    with pytest.raises(ValueError):
        m.ndcg(["a"], {"a"}, 0)
    assert m.mean([]) is None
    assert m.mean([1.0, 0.0, 0.5]) == 0.5


@given(st.lists(st.integers(0, 8), max_size=12), st.sets(st.integers(0, 8), min_size=1), st.integers(1, 10))
def test_metric_invariants(ranked, gold, k):
    ranked = m.distinct(ranked)
    any_, all_, n = m.recall_any(ranked, gold, k), m.recall_all(ranked, gold, k), m.ndcg(ranked, gold, k)
    assert 0 <= n <= 1 + 1e-12
    assert all_ <= any_
    assert (n > 0) == (any_ == 1.0)
    assert m.recall_any(ranked, gold, k + 1) >= any_ and m.ndcg(ranked, gold, k) <= 1 + 1e-12
    evidence = [(g, 1) for g in gold]
    assert m.evidence_recall_files(ranked, evidence, k) == pytest.approx(
        len(gold & set(ranked[:k])) / len(gold))
    if all_ == 1.0:
        assert m.evidence_recall_files(ranked, evidence, k) == 1.0


def test_evidence_quirks():
    q = Quirks()
    assert parse_evidence(["D8:6; D9:17"], q) == [(8, 6), (9, 17)]
    assert parse_evidence(["D:11:26", "D30:05"], q) == [(11, 26), (30, 5)]
    assert parse_evidence(["D9:1 D4:4 D4:6", "D9:1"], q) == [(9, 1), (4, 4), (4, 6)]
    assert parse_evidence(["D1:18", "D", "D1:20"], q, "conv-x #3") == [(1, 18), (1, 20)]
    assert q.split_entries == 2 and q.repaired_ids == 2 and q.unparseable_ids == ["conv-x #3: 'D'"]


def test_session_dates_and_captions():
    d = parse_session_date("1:56 pm on 8 May, 2023")
    assert (d.year, d.month, d.day, d.hour, d.minute) == (2023, 5, 8, 13, 56)
    assert parse_session_date("12:19 am on 4 January, 2024").hour == 0
    assert parse_session_date("12:05 pm on 4 January, 2024").hour == 12
    with pytest.raises(ValueError):
        parse_session_date("yesterday")
    assert turn_text({"text": "Look!", "blip_caption": "a photo of a dog"}) == "Look! [image: a photo of a dog]"
    assert turn_text({"text": "Hi"}) == "Hi"


def test_reciprocal_rank():
    assert m.reciprocal_rank(["a", "b", "c"], {"c", "x"}) == pytest.approx(1 / 3)
    assert m.reciprocal_rank(["a", "b", "c"], {"a"}) == 1.0
    assert m.reciprocal_rank(["a", "b", "c"], {"c"}, k=2) == 0.0
    assert m.reciprocal_rank([], {"c"}) == 0.0


def test_split_is_fixed_and_about_half():
    ids = [f"q{i}" for i in range(2000)]
    splits = [m.split_of(i) for i in ids]
    assert splits == [m.split_of(i) for i in ids]  # the same id, the same half, every time
    assert set(splits) == {"dev", "held"}
    assert 0.45 < splits.count("dev") / len(ids) < 0.55


def test_bootstrap_difference_brackets_the_mean_and_is_reproducible():
    a = [1.0] * 60 + [0.0] * 40
    b = [1.0] * 50 + [0.0] * 50
    out = m.bootstrap_difference(a, b)
    assert out["difference"] == pytest.approx(0.1) and out["questions"] == 100
    assert out["low"] < 0.1 < out["high"] and out["low"] >= 0.0  # a only ever gains on b here
    assert m.bootstrap_difference(a, b) == out
    same = m.bootstrap_difference(a, a)
    assert same["difference"] == same["low"] == same["high"] == 0.0
    assert m.bootstrap_mean([1.0, 0.0, 1.0, 1.0])["mean"] == pytest.approx(0.75)
    with pytest.raises(ValueError):
        m.bootstrap_difference([1.0], [1.0, 0.0])
