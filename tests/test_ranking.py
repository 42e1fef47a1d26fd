"""The ranking rules, on their own: pure functions over arrays."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tachikoma.config import RankingConfig
from tachikoma.search.ranking import file_weights, rank, recency, tag_weights

CFG = RankingConfig()


def weight(trust, confidence, age=0.0):
    return file_weights(np.array([trust], dtype=object), np.array([confidence], dtype=object),
                        np.array([age]), CFG)[0]


def test_owner_high_beats_more_similar_but_untagged_low_quality():
    # 0.55 × 1.0 × 1.0 = 0.55 beats 0.60 × 0.7 × 0.9 = 0.378
    trusted = 0.55 * weight("owner", "high")
    external = 0.60 * weight("external", "medium")
    assert trusted == pytest.approx(0.55)
    assert external == pytest.approx(0.378)
    fw = np.array([weight("owner", "high"), weight("external", "medium")])
    ranked = rank(np.array([0.55, 0.60]), np.array([0, 1]), fw, k=2)
    assert ranked.chunks.tolist() == [0, 1]
    assert ranked.scores.tolist() == pytest.approx([0.55, 0.378])


def test_untagged_and_self_medium_weights():
    assert 0.55 * weight(None, None) == pytest.approx(0.231)
    assert 0.55 * weight("self", "medium") == pytest.approx(0.4455)


def test_unknown_values_count_as_missing():
    assert weight("maybe", "sure") == pytest.approx(weight(None, None))
    assert tag_weights(np.array(["owner", None, "bogus"], dtype=object), CFG.trust).tolist() == [1.0, 0.6, 0.6]


def test_recency_at_0_30_90_days():
    assert recency(np.array([0.0, 30.0, 90.0]), 30).tolist() == pytest.approx([1.0, 0.5, 0.25])
    assert recency(np.array([-5.0]), 30).tolist() == [1.0], "a future date counts as today"


def test_second_chunk_of_a_file_is_penalised_and_third_dropped():
    sim = np.array([0.9, 0.8, 0.7, 0.5])
    files = np.array([0, 0, 0, 1])
    ranked = rank(sim, files, np.ones(2), k=10)
    assert ranked.chunks.tolist() == [0, 1, 3]
    assert ranked.penalty.tolist() == [1.0, 0.8, 1.0]
    assert ranked.scores.tolist() == pytest.approx([0.9, 0.64, 0.5])


def test_penalised_second_chunk_can_fall_below_another_file():
    ranked = rank(np.array([0.9, 0.7, 0.6]), np.array([0, 0, 1]), np.ones(2), k=3)
    assert ranked.chunks.tolist() == [0, 2, 1]  # 0.7 × 0.8 = 0.56 < 0.6


def test_k_results_when_enough_files_match():
    rng = np.random.default_rng(1)
    sim = rng.random(5000)
    files = rng.integers(0, 40, 5000)
    assert rank(sim, files, np.ones(40), k=25).chunks.shape == (25,)
    assert rank(sim, files, np.ones(40), k=200).chunks.shape == (80,)  # 40 files × 2


def test_mask_excludes_chunks():
    ranked = rank(np.array([0.9, 0.8]), np.array([0, 1]), np.ones(2), k=2, mask=np.array([False, True]))
    assert ranked.chunks.tolist() == [1]


def brute_force(sim, files, fw, k, per_file, penalty):
    base = sim * fw[files]
    order = sorted(range(len(sim)), key=lambda i: (-base[i], i))
    seen, out = {}, []
    for i in order:
        n = seen.get(files[i], 0)
        if n < per_file:
            out.append((base[i] * penalty ** n, i))
            seen[files[i]] = n + 1
    out.sort(key=lambda t: (-t[0], t[1]))
    return out[:k]


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 300),
    n_files=st.integers(1, 30),
    k=st.integers(1, 40),
    per_file=st.integers(1, 3),
    penalty=st.floats(0.0, 1.0),
)
def test_matches_a_brute_force_reference(data, n, n_files, k, per_file, penalty):
    sim = data.draw(arrays(np.float64, n, elements=st.floats(0, 1)))
    files = data.draw(arrays(np.int64, n, elements=st.integers(0, n_files - 1)))
    fw = data.draw(arrays(np.float64, n_files, elements=st.floats(0.05, 1)))
    ranked = rank(sim, files, fw, k, per_file, penalty)
    expected = brute_force(sim, files, fw, k, per_file, penalty)
    assert ranked.scores.tolist() == pytest.approx([s for s, _ in expected])
    # Invariants: sorted, at most per_file per file, score = base × penalty.
    assert np.all(np.diff(ranked.scores) <= 1e-12)
    _, counts = np.unique(files[ranked.chunks], return_counts=True)
    assert counts.max(initial=0) <= per_file
    assert np.allclose(ranked.scores, ranked.base * ranked.penalty)


@given(
    sims=arrays(np.float64, 2, elements=st.floats(0.01, 1)),
    trust=st.sampled_from(["owner", "self", "external", "untrusted", None]),
    confidence=st.sampled_from(["high", "medium", "low", "speculative", None]),
    ages=arrays(np.float64, 2, elements=st.floats(0, 3650)),
)
def test_monotone_in_every_factor(sims, trust, confidence, ages):
    # Same tags: the more similar and the more recent chunk never ranks lower.
    w = file_weights(np.array([trust, trust], dtype=object), np.array([confidence, confidence], dtype=object),
                     ages, CFG)
    if sims[0] >= sims[1] and ages[0] <= ages[1]:
        assert sims[0] * w[0] >= sims[1] * w[1]
    # Better trust never lowers a score.
    order = ["owner", "self", "external", "untrusted"]
    ws = [tag_weights(np.array([t], dtype=object), CFG.trust)[0] for t in order]
    assert ws == sorted(ws, reverse=True)
