""""No good match" in every language with e5-small: its meaning is read above what the lowest tenth of the
passages in the same script earn (`search.ranking.above_background`, `scoring.SCRIPT_BACKGROUND`).

e5-small gives a question a higher cosine with every passage written in the question's own script,
whatever it is about: on the polyglot memory "公司的年终奖什么时候发？" (when is the company's year-end
bonus paid; nothing in the memory says) reached a scaled meaning of 0.47 with a Chinese note on shipping,
above the floor, and "我们的办公室租金是多少？" (the office rent) 0.31: both were answered. Read above what
the lowest tenth of the passages in the same script earn, the second falls to 0.16, below the floor 0.20
(the first, at 0.27, is still answered). The real index here is the polyglot set's own memory
(bench/everyday/polyglot/memory, 36 notes in six languages), indexed with e5-small.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tachikoma.embedders import E5_SMALL
from tachikoma.indexer import runner
from tachikoma.search import ranking
from tachikoma.search.searcher import Searcher
from tachikoma.language.segment import dominant_script

POLYGLOT = Path(__file__).resolve().parents[1] / "bench" / "everyday" / "polyglot" / "memory"


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("polyglot") / "memory"
    shutil.copytree(POLYGLOT, root)
    runner.run(root, embedder_name="e5-small")
    s = Searcher(root)
    assert s.embedder.name == E5_SMALL
    yield s
    s.close()


@pytest.mark.parametrize("question", [
    "我们的办公室租金是多少？",  # the office rent: 0.31 with a Chinese note before, 0.16 above its script's tenth
    "カレーライスの作り方を教えてください。",  # how to make curry rice: 0.22 with a Japanese note, 0.16
    "啊啊啊 嗯嗯 哈哈哈哈",  # interjections: 0.37, 0.14
    "ふぁじこ れぴぬ もそめ",  # made-up kana syllables: 0.29, 0.14
])
def test_off_topic_in_the_memory_script_is_no_good_match(searcher: Searcher, question: str) -> None:
    answer = searcher.search(question, limit=5)
    assert answer["no_good_match"], (question, answer["match"], [r["path"] for r in answer["results"]])
    assert answer["match"]["meaning_from"] == "the 10% quantile of the passages in its script"


@pytest.mark.parametrize("question, expected", [
    ("饺子馅怎么做？", "zh/jiaozi.md"),  # same language, by meaning alone
    ("陈伟喜欢喝什么茶？", "zh/chen.md"),
    ("When does the factory close for Chinese New Year?", "zh/chen.md"),  # across languages, no shared word
    ("Wie hoch ist das Projektbudget für 2027?", "en/budget.md"),
])
def test_questions_the_memory_answers_still_find_their_note(searcher: Searcher, question: str,
                                                            expected: str) -> None:
    answer = searcher.search(question, limit=5)
    assert not answer["no_good_match"], (question, answer["match"])
    assert expected in [r["path"] for r in answer["results"]]


def test_minilm_index_reads_meaning_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    shutil.copytree(POLYGLOT / "zh", root)
    runner.run(root, embedder_name="minilm-int8")
    s = Searcher(root)
    try:
        match = s.search("饺子馅怎么做？", limit=3)["match"]
        assert "meaning_from" not in match
        with s.store.reading():
            assert s.snapshot().scripts is None
    finally:
        s.close()


def test_above_background_subtracts_each_script_median() -> None:
    meaning = np.array([0.5, 0.3, 0.2, 0.1, 0.4, 0.35, 0.9])
    groups = np.array(["Han", "Han", "Han", "Han", "Latin", "Latin", "Cyrillic"], dtype=object)
    allowed = np.array([True, True, True, True, True, True, True])
    out = ranking.above_background(meaning, groups, allowed)
    assert np.allclose(out[:4], meaning[:4] - 0.25)  # the median of 0.5, 0.3, 0.2, 0.1
    assert np.allclose(out[4:], meaning[4:])  # fewer than three passages: no median to go by
    low = ranking.above_background(meaning, groups, allowed, quantile=0.0)  # the least a passage earns
    assert np.allclose(low[:4], meaning[:4] - 0.1)
    # A chunk that is not allowed (a filter, a date after "as of") counts for no median.
    allowed[0] = False
    out = ranking.above_background(meaning, groups, allowed)
    assert np.allclose(out[:4], meaning[:4] - 0.2)


def test_dominant_script() -> None:
    assert dominant_script("# 陈伟\n\n陈伟是华芯电子的销售经理，英语很好。") == "Han"
    assert dominant_script("# 日本語の勉強\n\n12月の日本語能力試験（JLPT）N4を受験する予定。") == "Japanese"
    assert dominant_script("Die Gastherme wird jedes Jahr im Oktober gewartet.") == "Latin"
    assert dominant_script("йцукен фывапр") == "Cyrillic"
    assert dominant_script("ㅁㄴㅇㄹ ㅋㅋㅋ") == "Hangul"
    assert dominant_script("12:30 — 42 €") == ""


def test_scripts_are_read_once_per_generation(searcher: Searcher, monkeypatch: pytest.MonkeyPatch) -> None:
    with searcher.store.reading():
        scripts = searcher.snapshot().scripts
    assert scripts is not None
    paths = searcher.snapshot().paths
    by_path = {paths[f]: str(s) for f, s in zip(searcher.snapshot().chunk_file, scripts)}
    assert (by_path["zh/jiaozi.md"], by_path["ja/ramen.md"], by_path["de/auto.md"]) == ("Han", "Japanese", "Latin")
    assert list(searcher.root.joinpath(".cache").glob("vectors-*.scripts.npy")), "kept beside the vector cache"
    again = Searcher(searcher.root)  # a cold search from the command line: the texts are not read again
    monkeypatch.setattr(type(again.store), "chunk_details", lambda *a: pytest.fail("chunk texts read again"))
    try:
        with again.store.reading():
            assert list(again.snapshot().scripts) == list(scripts)
    finally:
        again.close()
