"""Keywords in every script, on both engines (issue 29): words of Japanese, Chinese, Korean and Thai
found without spaces, umlauts and accents folded both ways, the migration of an older index, and
highlighting of those words."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tachikoma.indexer import runner
from tachikoma.search.keywords import STOPWORDS, keyword_search, query_terms
from tachikoma.search.searcher import Searcher
from tachikoma.language.segment import fold_accents, index_text, query_words
from tachikoma.store import STORE_ENV, locate
from tachikoma.store import postgres_schema as pg_store
from tachikoma.store.index_check import keyword_index_problem
from tachikoma.store.sqlite_schema import SCHEMA_VERSION as SQLITE_VERSION

NOTES = {
    "ja.md": "# 予定\n\n山田さんの歯医者の予約は金曜日の午後三時です。黒猫を二匹飼っている。\n",
    "zh.md": "# 供应商\n\n深圳的电机驱动芯片的供应商是华强电子，每月交货一次。\n",
    "de.md": "# Termine\n\nMartins Zahnarzttermin ist am Dienstag in München, Leopoldstraße 12.\n",
    "de-ascii.md": "# Haus\n\nDie Heizungswartung in Duesseldorf kommt naechste Woche.\n",
    "fr.md": "# Comité\n\nRéunion du comité à l'école le mercredi, avec le café offert.\n",
    "es.md": "# Proveedor\n\nLa reunión con el proveedor es en Bogotá el próximo jueves.\n",
    "ko.md": "# 일정\n\n내일 오후에 치과에 갑니다.\n",
    "th.md": "# นัด\n\nนัดหมอฟันวันศุกร์ตอนบ่าย\n",
    "ar.md": "# موعد\n\nموعد طبيب الأسنان يوم الخميس في ميونخ.\n",
    "en.md": "# Coffee\n\nMartin orders a flat white every morning before the standup meeting.\n",
}

#: (query, the note keyword search must find first)
FOUND = [
    ("予約", "ja.md"),                    # a two-character Japanese word inside a sentence
    ("歯医者の予約はいつですか？", "ja.md"),  # a question phrased otherwise than the note
    ("猫", "ja.md"),                      # one character
    ("供应商", "zh.md"),
    ("电机驱动芯片的供应商是谁", "zh.md"),
    ("치과", "ko.md"),                     # Korean: the particle 에 sticks to the word
    ("หมอฟัน", "th.md"),                   # Thai: "dentist", inside a sentence without spaces
    ("München", "de.md"),
    ("Muenchen", "de.md"),                # the umlaut spelled out
    ("Munchen", "de.md"),                 # the umlaut dropped
    ("Leopoldstrasse", "de.md"),          # ß spelled out
    ("Düsseldorf", "de-ascii.md"),        # a note written without umlauts, asked with one
    ("Zahnarzt", "de.md"),                # a compound's first part: "Zahnarzttermin"
    ("Heizung wann", "de-ascii.md"),      # "Heizungswartung"
    ("nächste", "de-ascii.md"),
    ("ecole", "fr.md"), ("école", "fr.md"), ("Cafe", "fr.md"),
    ("reunion", "es.md"), ("Bogota", "es.md"), ("próximo", "es.md"),
    ("flat white", "en.md"),
    ("الأسنان", "ar.md"),
]


def _memory(root: Path, notes: dict[str, str] = NOTES) -> Path:
    root.mkdir()
    for name, text in notes.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _found(store, query: str) -> list[str]:
    spans = store.chunk_spans()
    return [spans[i][0] for i, _ in keyword_search(store, query, len(spans), 10)]


def _check_found(store) -> None:
    for query, path in FOUND:
        found = _found(store, query)
        assert found and found[0] == path, (query, found)


def _downgraded_sqlite(index: Path) -> None:
    """Make `index` what schema 5 left: triggers handing FTS5 the text as written, the keyword
    indexes filled from it."""
    db = sqlite3.connect(index)
    with db:
        for name in ("chunks_ai", "chunks_ad", "tool_texts_ai", "tool_texts_ad"):
            db.execute(f"DROP TRIGGER {name}")
        db.executescript("""
            CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
                INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text); END;
            CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
                INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
            CREATE TRIGGER tool_texts_ai AFTER INSERT ON tool_texts BEGIN
                INSERT INTO tool_fts(rowid, words) VALUES (new.id, new.words); END;
            CREATE TRIGGER tool_texts_ad AFTER DELETE ON tool_texts BEGIN
                INSERT INTO tool_fts(tool_fts, rowid, words) VALUES ('delete', old.id, old.words); END;
            INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
            INSERT INTO tool_fts(tool_fts) VALUES ('rebuild');
            UPDATE meta SET value = '5' WHERE key = 'schema_version';
        """)
    db.close()


# ------------------------------------------------------------------ the segmented text itself

def test_english_is_indexed_exactly_as_written():
    text = "Martin's meeting notes: retries, 3 failures (DRV8353) -- see https://example.com/x?y=1"
    assert index_text(text) is text
    assert query_words("retries") == ["retries"]
    assert query_terms("When did the retries start?") == ["When", "did", "the", "retries", "start"]


def test_runs_become_characters_and_bigrams():
    assert index_text("予約です").split() == ["予", "予約", "約", "約で", "で", "です", "す"]
    assert query_words("歯医者の予約") == ["歯医", "医者", "予約"]  # cut at the particle: not "者の", "の予"
    assert query_words("いつですか") == ["いつ", "つで", "です", "すか"]  # hiragana only: kept
    assert query_words("予約はいつ") == ["予約"]  # hiragana words dropped beside content
    assert query_words("猫") == ["猫"]
    assert query_words("ABC社") == ["ABC", "社"]
    assert index_text("München Straße").split() == ["München", "Muenchen", "Straße", "Strasse"]
    assert query_words("Straße") == ["Straße", "Strasse"]


def test_accents_fold_in_latin_greek_and_cyrillic_only():
    assert fold_accents("Réunion à l'école, naïve, Bogotá, Ελλάδα") == "Reunion a l'ecole, naive, Bogota, Ελλαδα"
    assert fold_accents("がぎぐ 한국어 ไทย") == "がぎぐ 한국어 ไทย"  # voiced kana, Hangul, Thai untouched


# ------------------------------------------------------------------ both engines

def test_words_in_every_script_are_found_on_sqlite(tmp_path):
    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    with locate(root).open(readonly=True) as store:
        _check_found(store)


def test_words_in_every_script_are_found_on_postgres(tmp_path, url, monkeypatch):
    monkeypatch.setenv(STORE_ENV, url)
    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    with locate(root).open(readonly=True) as store:
        assert store.engine == "postgresql"
        _check_found(store)


def test_the_search_finds_and_explains_a_japanese_word(tmp_path):
    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        answer = searcher.search("歯医者の予約", 3, min_score=0)
    finally:
        searcher.close()
    top = answer["results"][0]
    assert top["path"] == "ja.md"
    assert top["factors"]["keyword_score"] == 1.0
    assert answer["no_good_match"] is False  # the note holds every word the question asks for
    assert {"歯医", "医者", "予約"} <= set(answer["keywords"])


# ------------------------------------------------------------------ migrations

def test_an_older_sqlite_index_gets_the_new_keyword_index(tmp_path):
    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    location = locate(root)
    _downgraded_sqlite(location.file)
    with sqlite3.connect(location.file) as db:  # schema 5 as it was: a sentence is one word
        assert db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '\"予約\"'").fetchone()[0] == 0
    summary = runner.run(root, embedder_name="hash")
    assert summary.chunks_embedded == 0  # the vectors are kept
    with sqlite3.connect(location.file) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SQLITE_VERSION)
    with location.open(readonly=True) as store:
        _check_found(store)
    with sqlite3.connect(location.file) as db:
        assert keyword_index_problem(db) is None and keyword_index_problem(db, "tool_fts") is None


def test_a_readonly_older_sqlite_index_asks_for_an_index_run(tmp_path):
    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    _downgraded_sqlite(locate(root).file)
    with pytest.raises(Exception, match="older tachikoma"):
        locate(root).open(readonly=True)


def test_an_older_postgres_index_gets_the_new_keyword_index(tmp_path, url, monkeypatch):
    import psycopg

    monkeypatch.setenv(STORE_ENV, url)
    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    cfg = pg_store.TS_CONFIG
    with psycopg.connect(url, autocommit=True) as db:  # schema 2 as it was: the tsvector of the text as written
        db.execute("ALTER TABLE tachikoma.chunks DROP COLUMN tsv, DROP COLUMN words, DROP COLUMN kw")
        db.execute(f"ALTER TABLE tachikoma.chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS "
                   f"(to_tsvector('{cfg}', text)) STORED, ADD COLUMN words integer GENERATED ALWAYS AS "
                   f"(tachikoma.word_count(to_tsvector('{cfg}', text))) STORED")
        db.execute("CREATE INDEX chunks_tsv ON tachikoma.chunks USING gin (tsv)")
        db.execute("ALTER TABLE tachikoma.tool_texts DROP COLUMN tsv, DROP COLUMN word_count, DROP COLUMN kw")
        db.execute(f"ALTER TABLE tachikoma.tool_texts ADD COLUMN tsv tsvector GENERATED ALWAYS AS "
                   f"(to_tsvector('{cfg}', words)) STORED, ADD COLUMN word_count integer GENERATED ALWAYS AS "
                   f"(tachikoma.word_count(to_tsvector('{cfg}', words))) STORED")
        db.execute("UPDATE tachikoma.schema SET version = 2")
        assert db.execute(f"SELECT count(*) FROM tachikoma.chunks WHERE tsv @@ plainto_tsquery('{cfg}', '予約')"
                          ).fetchone()[0] == 0
    summary = runner.run(root, embedder_name="hash")
    assert summary.chunks_embedded == 0
    with psycopg.connect(url) as db:
        assert db.execute("SELECT version FROM tachikoma.schema").fetchone()[0] == pg_store.SCHEMA_VERSION
    with locate(root).open(readonly=True) as store:
        _check_found(store)


# ------------------------------------------------------------------ highlighting and right-to-left text

def test_highlighting_marks_words_of_every_script():
    from tachikoma.web.render import highlight

    assert str(highlight("山田さんの歯医者の予約は金曜日です。", "予約")) == "山田さんの歯医者の<mark>予約</mark>は金曜日です。"
    assert str(highlight("黒猫を二匹", "猫")) == "黒<mark>猫</mark>を二匹"  # one character
    assert str(highlight("深圳的电机驱动芯片的供应商", "芯片供应商")) == "深圳的电机驱动<mark>芯片</mark>的<mark>供应商</mark>"
    assert str(highlight("内日 오후에 치과에 갑니다", "치과")) == "内日 오후에 <mark>치과</mark>에 갑니다"
    assert str(highlight("นัดหมอฟันวันศุกร์", "หมอฟัน")) == "นัด<mark>หมอฟัน</mark>วันศุกร์"  # across its marks
    assert str(highlight("Termin in München", "Muenchen")) == "Termin in <mark>München</mark>"
    assert str(highlight("Wartung in Duesseldorf", "Düsseldorf")) == "Wartung in <mark>Duesseldorf</mark>"
    assert str(highlight("à l'école", "ecole")) == "à l&#39;<mark>école</mark>"
    assert str(highlight("Retries at meetings", "retry meeting")) == "<mark>Retries</mark> at <mark>meetings</mark>"
    # an identifier as a whole, never its parts alone; a compound by the first part the search asked for
    assert str(highlight("calls wait_healthy; we wait", "wait_healthy")) == "calls <mark>wait_healthy</mark>; we wait"
    assert str(highlight("Die Nebenkostenabrechnung kam", "nebenkosten", ["Nebenkosten*"])) == (
        "Die <mark>Nebenkostenabrechnung</mark> kam")


def test_the_dashboard_shows_passages_in_their_own_direction(tmp_path):
    from tachikoma_dashboard.app import create_app

    root = _memory(tmp_path / "memory")
    runner.run(root, embedder_name="hash")
    app = create_app(memory=root, port=5000)
    try:
        client = app.test_client()
        html = client.get("/?q=الأسنان", base_url="http://127.0.0.1:5000",
                          headers={"HX-Request": "true"}).get_data(as_text=True)
        passage = re.search(r'<p class="text" dir="auto">([^<]*موعد[^<]*<mark>الأسنان</mark>[^<]*)</p>', html)
        assert passage, html
        page = client.get("/file/ar.md", base_url="http://127.0.0.1:5000").get_data(as_text=True)
        assert re.search(r'<div class="block[^"]*" id="[^"]+" data-lines="[^"]+" dir="auto">', page)
        japanese = client.get("/?q=予約", base_url="http://127.0.0.1:5000",
                              headers={"HX-Request": "true"}).get_data(as_text=True)
        assert "<mark>予約</mark>" in japanese
    finally:
        app.extensions["tachikoma"].index_job.wait(30)


# ------------------------------------------------------------------ a compound's first part, an identifier

COMPOUNDS = {
    "heizung.md": ("# Haus\n\nDie Heizungswartung ist im März, das Heizungsrohr im Keller tropft, "
                   "die Heizungswartung kostet 90 Euro.\n"),
    "zahn.md": "# Termine\n\nDer Zahnarzttermin ist am Dienstag.\n",
    "flur.md": "# Flur\n\nDie Größentabelle hängt im Flur.\n",
    "party.md": "# Notes\n\nA partial refund came in.\n",
    "other.md": "# Garden\n\nThe roses need water every evening in summer. We wait for rain; healthy plants need patience.\n",
    "deploy.md": "# Deploy\n\nThe script calls wait_healthy until the service answers; config.toml sets the timeout.\n",
}


def _scores(store, query: str) -> dict[str, float]:
    spans = store.chunk_spans()
    return {spans[i][0]: score for i, score in keyword_search(store, query, len(spans), None)}


def test_a_word_found_nowhere_finds_the_words_it_begins_on_both_engines(tmp_path, url, monkeypatch):
    lite = _memory(tmp_path / "lite", COMPOUNDS)
    runner.run(lite, embedder_name="hash")
    monkeypatch.setenv(STORE_ENV, url)
    shared = _memory(tmp_path / "shared", COMPOUNDS)
    runner.run(shared, embedder_name="hash")
    with locate(shared).open(readonly=True) as on_postgres:
        monkeypatch.delenv(STORE_ENV)
        with locate(lite).open(readonly=True) as on_sqlite:
            for query, expected in (("Heizung", ["heizung.md"]), ("zahnarzt Dienstag", ["zahn.md"]),
                                    ("Größen", ["flur.md"]),  # ß: casefold's "ss" is no spelling the index holds
                                    ("Nebenkosten", []),
                                    # an identifier is the phrase of its parts: never "wait" or "healthy" alone
                                    ("why does wait_healthy time out", ["deploy.md"]), ("config.toml", ["deploy.md"])):
                found = {store.engine: _scores(store, query) for store in (on_sqlite, on_postgres)}
                assert sorted(found["sqlite"]) == sorted(found["postgresql"]) == expected, (query, found)
                # The same BM25 (three words begin with "Heizung" in one chunk: a count of 3), up to the word counts
                # of the two stemmers (FTS5's porter, PostgreSQL's Snowball) in the length normalisation.
                for path in expected:
                    assert found["postgresql"][path] == pytest.approx(found["sqlite"][path], rel=0.05), (query, found)


def test_a_stemmed_or_short_word_is_no_prefix(tmp_path):
    root = _memory(tmp_path / "memory", COMPOUNDS)
    runner.run(root, embedder_name="hash")
    with locate(root).open(readonly=True) as store:
        # "party" is stored "parti": its prefix would find "partial"; "wate" (4 letters) is too short to begin a
        # compound ("water").
        assert _scores(store, "party") == {} and _scores(store, "wate") == {}
        assert list(_scores(store, "partial")) == ["party.md"]
        assert query_terms("Heizung") == ["Heizung"]  # the question's word as written: the prefix is the search's


def test_an_identifier_is_one_word():
    assert query_terms("why did wait_healthy time out in config.toml?") == [
        "why", "did", "wait_healthy", "time", "out", "in", "config.toml"]
    assert query_terms("os.path.join on version 2.1.5") == ["os.path.join", "on", "version", "2.1.5"]
    # abbreviations, a sentence's end, a lone underscore and scripts without spaces are no identifiers
    assert query_terms("e.g. the U.S. office. _private trailing_ 設定_値") == [
        "e", "g", "the", "U", "S", "office", "private", "trailing", "設定", "値"]


def test_the_search_finds_a_compound_by_its_first_part_and_says_so(tmp_path):
    root = _memory(tmp_path / "memory", COMPOUNDS)
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        answer = searcher.search("heizung", 3)
        untouched = searcher.search("Dienstag", 3)
    finally:
        searcher.close()
    assert answer["no_good_match"] is False and answer["results"][0]["path"] == "heizung.md"
    assert answer["keywords"] == ["heizung*"] and answer["keywords_nowhere"] == []
    assert untouched["keywords"] == ["Dienstag"]  # a word the memory holds is never widened


EMOJI = {"gp.md": "# Doctors\n\n☎️ Dr. Berger, our GP: his number is 030 1234567\n",
         "birthdays.md": "# Birthdays\n\n❤️ Anna: 12 May\n",
         "family.md": "# Photos\n\n👨\u200d👩\u200d👧 family photos from the lake\n"}


def test_an_emojis_variation_selector_asks_nothing_on_both_engines(tmp_path, url, monkeypatch):
    """"☎️" is U+260E and the emoji selector U+FE0F, which the query side read as a word of its own (a mark): found
    nowhere, it was a word the memory lacked. Neither engine indexes it; the question asks what "☎" alone asks."""
    lite = _memory(tmp_path / "lite", EMOJI)
    runner.run(lite, embedder_name="hash")
    monkeypatch.setenv(STORE_ENV, url)
    shared = _memory(tmp_path / "shared", EMOJI)
    runner.run(shared, embedder_name="hash")
    with locate(shared).open(readonly=True) as on_postgres:
        monkeypatch.delenv(STORE_ENV)
        with locate(lite).open(readonly=True) as on_sqlite:
            for store in (on_sqlite, on_postgres):
                for asked, plain, expected in (("☎️ number of the GP", "☎ number of the GP", ["gp.md"]),
                                               ("❤️Anna", "Anna", ["birthdays.md"]),
                                               ("👨\u200d👩\u200d👧 photos", "photos", ["family.md"])):
                    terms = query_terms(asked, skip=STOPWORDS)
                    assert terms == query_terms(plain, skip=STOPWORDS), asked
                    found = _scores(store, asked)
                    assert sorted(found) == expected and found == _scores(store, plain), (store.engine, asked)
                    assert store.keyword_counts(terms, 10) == [1] * len(terms), (store.engine, terms)  # all held
