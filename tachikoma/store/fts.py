"""FTS5 query text and highlighting: how a keyword query is written for SQLite's full-text index, and a
text marked the way that index reads it. Pure functions over SQLite (no index is opened): `sqlite.Store`
writes its MATCH expressions with them, the evaluations their BM25 baseline, the dashboard its highlights."""

from __future__ import annotations

import sqlite3
import threading

from .sqlite_schema import FTS_TOKENIZE


def quote_term(term: str) -> str:
    """An FTS5 string: the term in double quotes, inner quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


def keyword_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression matching any of `terms` (each quoted, joined by OR); "" for none."""
    return " OR ".join(quote_term(t) for t in terms)


_scratch = threading.local()


def highlight(text: str, terms: list[str], open_mark: str, close_mark: str) -> str | None:
    """`text` with each word that keyword search matches for any of `terms` between the marks,
    tokenised exactly like the keyword index (porter stemming: "retry" marks "retries"); None when
    nothing matches. Uses this thread's in-memory FTS5 table, never the index."""
    db = getattr(_scratch, "db", None)
    if db is None:
        db = _scratch.db = sqlite3.connect(":memory:")
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{FTS_TOKENIZE}')")
    with db:
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t(text) VALUES (?)", (text,))
        row = db.execute("SELECT highlight(t, 0, ?, ?) FROM t WHERE t MATCH ?",
                         (open_mark, close_mark, keyword_expression(terms))).fetchone()
    return None if row is None else row[0]
