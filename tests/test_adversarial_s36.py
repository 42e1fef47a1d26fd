"""Adversarial tests of session 36: prefix words and identifiers on both engines (`keywords._prefixed`,
`keywords._words`, `postgres_bm25.term_query`, `postgres_schema.keyword_words`), ..."""

from __future__ import annotations

import pytest
from both_engines import on_both, write_memory

from tachikoma.search.keywords import keyword_search, keyword_terms
from tachikoma.store import STORE_ENV, locate
from tachikoma.store import postgres_schema as pg_store

NOTES = {
    "setup.md": "# Setup\n\nEdit /etc/app/config.toml then run it. Import os.path.join there. Mail ops@example.com "
                "or read https://example.com/docs/setup.html first.\n",
    "loop.md": "# Loop\n\nwait_healthy then we wait and wait and wait, healthy healthy healthy.\n",
    "study.md": "# Study\n\nShe finished her degree in physics.\n",
    "filler.md": "# Other\n\nNothing about it at all, just filler words here for the length of it.\n",
    "haus.md": "# Haus\n\nDie Nebenkostenabrechnung kam im März.\n",
}


def _found(store, query: str) -> tuple[list[str], dict[str, float]]:
    spans = store.chunk_spans()
    return (keyword_terms(store, query, len(spans)),
            {spans[i][0]: round(score, 6) for i, score in keyword_search(store, query, len(spans), None)})


@pytest.fixture
def both(tmp_path, url, monkeypatch):
    """The same memory on SQLite and on PostgreSQL, open for reading."""
    with on_both(tmp_path, url, monkeypatch, NOTES) as stores:
        yield stores


def _same(both, query: str, expected: list[str]) -> None:
    on_sqlite, on_postgres = both
    lite, shared = _found(on_sqlite, query), _found(on_postgres, query)
    assert sorted(lite[1]) == expected, (query, lite)
    assert lite[0] == shared[0] and sorted(shared[1]) == expected, (query, lite, shared)
    for path in expected:
        assert shared[1][path] == pytest.approx(lite[1][path], rel=1e-3), (query, lite, shared)


def test_a_prefix_word_snowball_stems_is_asked_unstemmed_on_postgres(both):
    # Break: "degli" (Italian "of the") is found nowhere and porter leaves it whole, so it is asked as a prefix;
    # PostgreSQL's to_tsquery stemmed the prefix to "deg" (Snowball drops "li") and "degli" found "degree".
    _same(both, "degli", [])
    _same(both, "nebenkosten", ["haus.md"])  # a compound's first part still begins it on both


@pytest.mark.parametrize("query, expected", [
    # Break: PostgreSQL's parser read "/etc/app/config.toml", "os.path.join", "ops@example.com" and the URL as
    # one word each (a file, a host, an e-mail address): an identifier or one of its parts found them on
    # SQLite only.
    ("config.toml", ["setup.md"]), ("config", ["setup.md"]), ("os.path", ["setup.md"]),
    ("path.join", ["setup.md"]), ("ops", ["setup.md"]), ("setup.html", ["setup.md"]), ("docs", ["setup.md"]),
    ("os.path.join", ["setup.md"]), ("example.com", ["setup.md"]),
])
def test_an_identifier_or_its_part_is_found_in_dotted_text_on_both_engines(both, query, expected):
    _same(both, query, expected)


def test_an_identifier_counts_its_phrase_on_postgres_as_fts5_does(both):
    # Break: PostgreSQL counted an identifier by its rarest part ("wait" and "healthy" four times each), FTS5 by
    # the phrase (once): the note scored -1.82 against SQLite's -1.54.
    _same(both, "wait_healthy", ["loop.md"])


def test_an_older_postgres_index_reads_joined_words_again(tmp_path, url, monkeypatch):
    import psycopg

    monkeypatch.setenv(STORE_ENV, url)
    root = write_memory(tmp_path / "memory", NOTES)
    with psycopg.connect(url, autocommit=True) as db:  # schema 4 as it was: an ASCII text read as written
        db.execute("UPDATE tachikoma.chunks SET kw = NULL WHERE octet_length(text) = char_length(text)")
        db.execute("UPDATE tachikoma.schema SET version = 4")
    with locate(root).open(readonly=False) as store:
        assert store.engine == "postgresql"
    with psycopg.connect(url) as db:
        assert db.execute("SELECT version FROM tachikoma.schema").fetchone()[0] == pg_store.SCHEMA_VERSION == 5
    with locate(root).open(readonly=True) as store:
        assert sorted(_found(store, "config")[1]) == ["setup.md"]


def test_keyword_words_split_what_postgres_joins():
    assert pg_store.keyword_words("see /etc/app/config.toml, v2.1.5 or a-b.") == "see  etc app config toml, v2 1 5 or a b."
    assert pg_store.keyword_text("plain words, nothing joined.") is None
    assert pg_store.keyword_text("Crème brûlée") == "Creme brulee"
