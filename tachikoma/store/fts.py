"""FTS5 query text and highlighting: how a keyword query is written for SQLite's full-text index, and a
text marked the way that index reads it. Pure functions over SQLite (no index is opened): `sqlite.Store`
writes its MATCH expressions with them, the evaluations their BM25 baseline, the dashboard its highlights."""

from __future__ import annotations

import sqlite3
import threading

from ..language.segment import fold_accents
from .sqlite_schema import FTS_TOKENIZE


#: A query word ending in this matches every word it begins ("Zahnarzt*": "Zahnarzttermin"). A word read from
#: a question never ends in it (`keywords.query_terms` splits words at every symbol): only `keywords` adds it.
PREFIX = "*"


def quote_term(term: str) -> str:
    """An FTS5 string: the term in double quotes, inner quotes doubled; a prefix query for a term ending in
    `PREFIX`."""
    if term.endswith(PREFIX):
        return quote_term(term[:-1]) + PREFIX
    return '"' + term.replace('"', '""') + '"'


def keyword_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression matching any of `terms` (each quoted, joined by OR); "" for none."""
    return " OR ".join(quote_term(t) for t in terms)


_scratch = threading.local()


def _scratch_db() -> sqlite3.Connection:
    """This thread's in-memory FTS5 table `t`, tokenised as the keyword index is, and its vocabulary `v`."""
    db = getattr(_scratch, "db", None)
    if db is None:
        db = _scratch.db = sqlite3.connect(":memory:")
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{FTS_TOKENIZE}')")
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    return db


def _holding(text: str) -> sqlite3.Connection:
    """`_scratch_db` holding `text` alone."""
    db = _scratch_db()
    with db:
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t(text) VALUES (?)", (text,))
    return db


def stems(text: str) -> list[str]:
    """The words of `text` as the keyword index stores them (folded, porter-stemmed: "Parties" -> "parti"),
    in alphabetical order. Uses this thread's in-memory FTS5 table, never the index."""
    return [row[0] for row in _holding(text).execute("SELECT term FROM v")]


def unstemmed(word: str) -> bool:
    """Whether the keyword index stores `word` as written (accents folded, not stemmed): only then does asking it
    as a prefix ask what it says, since FTS5's porter stems a prefix query ("arbeits*" is "arbeit*") and
    PostgreSQL does not."""
    return stems(word) == [fold_accents(word.lower())]


def highlight(text: str, terms: list[str], open_mark: str, close_mark: str) -> str | None:
    """`text` with each word that keyword search matches for any of `terms` between the marks,
    tokenised exactly like the keyword index (porter stemming: "retry" marks "retries"); None when
    nothing matches. Uses this thread's in-memory FTS5 table, never the index."""
    row = _holding(text).execute("SELECT highlight(t, 0, ?, ?) FROM t WHERE t MATCH ?",
                                 (open_mark, close_mark, keyword_expression(terms))).fetchone()
    return None if row is None else row[0]
