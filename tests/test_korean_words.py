"""A Korean question's keywords are the words it asks about, not the particles and endings stuck to them
(session 42): "토마스는 김해공항에 언제 도착해?" asks for 토마스, 김해공항 and 도착, not for "스는", "항에" nor "언제".
The index keeps every bigram, so both engines read it as before; the query side alone changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tachikoma.indexer import runner
from tachikoma.search.keywords import STOPWORDS, asks_besides_time, keyword_search, query_terms
from tachikoma.language.segment import index_text, korean_stem, query_words
from tachikoma.store import STORE_ENV, locate

NOTES = {
    "travel.md": "# 한국 여행\n\n토마스는 5월 3일 오후에 김해공항에 도착한다. 갈비찜은 엄마가 한다.\n",
    # only particles, endings and question words of the questions below: "이 버스는 부산항에 선다" holds "스는"
    # and "항에", "어떻게 해야 할지" holds "어떻", "떻게"
    "bus.md": "# 버스\n\n이 버스는 부산항에 선다. 언제 오는지 어떻게 해야 할지 모르겠다.\n",
    "galbi.md": "# 갈비찜\n\n갈비는 찬물에 두 시간 담가 핏물을 뺀다.\n",
}


@pytest.mark.parametrize("word, stem", [
    ("김해공항에", "김해공항"), ("결혼식에서", "결혼식"), ("압력솥으로", "압력솥"), ("사람이야", "사람"),
    ("지은이는", "지은"), ("언제까지야", "언제"), ("프로였지", "프로"), ("도착해", "도착"), ("휴가가", "휴가"),
    ("집에", "집에"), ("휴가", "휴가"),      # at least two syllables stay
    ("Gleis", "Gleis"), ("予約は", "予約は"),  # another script: as it is
])
def test_a_korean_word_without_its_particle(word, stem):
    assert korean_stem(word) == stem


def test_query_words_of_a_korean_word_are_the_bigrams_of_its_stem():
    assert query_words("김해공항에") == ["김해", "해공", "공항"]
    assert query_words("토마스는") == ["토마", "마스"]
    assert query_words("에서") == []                 # a particle alone
    assert query_words("Gleis에서") == ["Gleis"]      # a particle after a word in another script
    assert query_words("Gleis라는") == ["Gleis"]
    assert query_words("5도") == ["5", "도"]          # 도 alone is a word (a degree), taken off a longer one only
    # Chinese as before; Japanese is cut at its particles (segment.japanese_parts, tests/test_japanese_words.py)
    assert query_words("电机驱动芯片的供应商") == ["电机", "机驱", "驱动", "动芯", "芯片", "片的", "的供", "供应", "应商"]


@pytest.mark.parametrize("question, keywords", [
    ("지은이는 어느 초등학교 선생님이야?", ["지은", "초등", "등학", "학교", "선생", "생님"]),
    ("토마스는 김해공항에 언제 도착해?", ["토마", "마스", "김해", "해공", "공항", "도착"]),
    ("루카스 부활절 휴가가 언제부터 언제까지야?", ["루카", "카스", "부활", "활절", "휴가"]),
    ("갈비 핏물은 어떻게 빼?", ["갈비", "핏물", "빼"]),
    ("Gleis에서 쓰는 서체가 뭐야?", ["Gleis", "쓰는", "서체"]),
])
def test_a_korean_question_asks_for_its_words_not_its_particles(question, keywords):
    assert query_terms(question, skip=STOPWORDS) == keywords


def test_the_index_keeps_every_bigram():
    assert index_text("김해공항에").split() == ["김", "김해", "해", "해공", "공", "공항", "항", "항에", "에"]


def test_a_time_alone_is_still_told():
    assert not asks_besides_time("에 뭐 있어?", "Korean")        # "2주 뒤 수요일에 뭐 있어?", its time blanked
    assert asks_besides_time("에 온보딩 출시 어떻게 됐어?", "Korean")
    assert asks_besides_time("비 와?", "Korean")                  # rain


def _memory(root: Path) -> Path:
    root.mkdir()
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    runner.run(root, embedder_name="hash")
    return root


def _found(store, query: str) -> list[str]:
    spans = store.chunk_spans()
    return [spans[i][0] for i, _ in keyword_search(store, query, len(spans), 10)]


def _check(store) -> None:
    # Before, the particles' bigrams matched bus.md too ("스는", "항에"; "어떻", "떻게").
    assert _found(store, "토마스는 김해공항에 언제 도착해?") == ["travel.md"]
    assert _found(store, "갈비 핏물은 어떻게 빼?")[0] == "galbi.md"
    assert "bus.md" not in _found(store, "갈비 핏물은 어떻게 빼?")
    assert _found(store, "김해공항") == ["travel.md"]


def test_particles_match_nothing_on_sqlite(tmp_path):
    with locate(_memory(tmp_path / "memory")).open(readonly=True) as store:
        assert store.engine == "sqlite"
        _check(store)


def test_particles_match_nothing_on_postgres(tmp_path, url, monkeypatch):
    monkeypatch.setenv(STORE_ENV, url)
    with locate(_memory(tmp_path / "memory")).open(readonly=True) as store:
        assert store.engine == "postgresql"
        _check(store)
