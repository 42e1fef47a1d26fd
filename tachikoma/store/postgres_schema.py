"""The PostgreSQL index's schema: its tables, the text search configuration of its keyword columns,
and the migrations from each schema version to the next (``tachikoma.schema`` holds the version),
made or upgraded by `ensure_schema` when a store connects."""

from __future__ import annotations

import re

from ..errors import NoIndexYet, TachikomaError
from ..language.segment import fold_accents, index_text
from .postgres_errors import redacted

SCHEMA_VERSION = 5
#: The text search configuration of the keyword column.
TS_CONFIG = "tachikoma.words"
#: Key of the advisory locks (with the memory's id, or 0 while the schema is made): "tk".
LOCK_CLASS = 0x746B

#: The keyword columns: the tsvector of the text keyword search reads (`kw` when set, else the text
#: itself) and its word count (BM25's length).
_CHUNK_TSV = f"tsv tsvector GENERATED ALWAYS AS (to_tsvector('{TS_CONFIG}', coalesce(kw, text))) STORED"
_CHUNK_WORDS = (f"words integer GENERATED ALWAYS AS "
                f"(tachikoma.word_count(to_tsvector('{TS_CONFIG}', coalesce(kw, text)))) STORED")
_TOOL_TSV = f"tsv tsvector GENERATED ALWAYS AS (to_tsvector('{TS_CONFIG}', coalesce(kw, words))) STORED"
_TOOL_WORDS = (f"word_count integer GENERATED ALWAYS AS "
               f"(tachikoma.word_count(to_tsvector('{TS_CONFIG}', coalesce(kw, words)))) STORED")
CHUNK_KEYWORD_COLUMNS = f"{_CHUNK_TSV},\n    {_CHUNK_WORDS}"
TOOL_KEYWORD_COLUMNS = f"{_TOOL_TSV},\n    {_TOOL_WORDS}"

SCHEMA = f"""
CREATE SCHEMA IF NOT EXISTS tachikoma;
CREATE TABLE tachikoma.schema (version integer NOT NULL);
CREATE TEXT SEARCH DICTIONARY tachikoma.english_stem_all (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION {TS_CONFIG} (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION {TS_CONFIG}
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH tachikoma.english_stem_all;
CREATE FUNCTION tachikoma.word_count(tsvector) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT coalesce(sum(cardinality(positions)), 0)::integer FROM unnest($1) $$;
CREATE TABLE tachikoma.memories (
    id serial PRIMARY KEY,
    name text NOT NULL UNIQUE,
    root text,                      -- the folder it was last indexed from
    created_at double precision NOT NULL
);
CREATE TABLE tachikoma.meta (
    memory_id integer NOT NULL REFERENCES tachikoma.memories(id) ON DELETE CASCADE,
    key text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (memory_id, key)
);
CREATE TABLE tachikoma.files (
    id bigserial PRIMARY KEY,
    memory_id integer NOT NULL REFERENCES tachikoma.memories(id) ON DELETE CASCADE,
    path text NOT NULL,
    kind text NOT NULL,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    mtime_ns bigint NOT NULL,
    fm_date double precision,
    git_date double precision,
    trust text,
    confidence text,
    source text,
    invalid text NOT NULL DEFAULT '{{}}',
    warnings text NOT NULL DEFAULT '[]',
    indexed_at double precision NOT NULL,
    path_date double precision,
    turn_date double precision,
    evergreen boolean NOT NULL DEFAULT false,
    git_import boolean NOT NULL DEFAULT false,
    UNIQUE (memory_id, path)
);
CREATE TABLE tachikoma.chunks (
    id bigserial PRIMARY KEY,
    memory_id integer NOT NULL REFERENCES tachikoma.memories(id) ON DELETE CASCADE,
    file_id bigint NOT NULL REFERENCES tachikoma.files(id) ON DELETE CASCADE,
    idx integer NOT NULL,
    line_start integer NOT NULL,
    line_end integer NOT NULL,
    text text NOT NULL,
    hash text NOT NULL,
    vector vector NOT NULL,
    date double precision,
    kw text,                        -- what keyword search reads when it is not `text` (`keyword_text`)
    {CHUNK_KEYWORD_COLUMNS}
);
CREATE INDEX chunks_file ON tachikoma.chunks (file_id, idx);
CREATE INDEX chunks_memory ON tachikoma.chunks (memory_id, id);
CREATE INDEX chunks_hash ON tachikoma.chunks (memory_id, hash);
CREATE INDEX chunks_tsv ON tachikoma.chunks USING gin (tsv);
"""

#: What transcripts' tool calls were given and gave back (`documents.ToolText`), by keyword only, as
#: on SQLite (`sqlite.TOOL_SCHEMA`): never embedded, in a table of its own so that its words neither
#: lengthen the chunks' texts nor weigh in their word statistics. A row belongs to the chunk
#: (file_id, chunk_idx) whose turn made the call; `words` are its distinct words (`keyword_words`).
TOOL_SCHEMA = (
    f"""CREATE TABLE tachikoma.tool_texts (
    id bigserial PRIMARY KEY,
    memory_id integer NOT NULL REFERENCES tachikoma.memories(id) ON DELETE CASCADE,
    file_id bigint NOT NULL REFERENCES tachikoma.files(id) ON DELETE CASCADE,
    chunk_idx integer NOT NULL,
    line integer NOT NULL,   -- the file line of the record holding the text
    tool text NOT NULL,      -- the tool's name
    side text NOT NULL,      -- 'input' or 'output'
    words text NOT NULL,
    kw text,                 -- what keyword search reads when it is not `words` (`keyword_text`)
    {TOOL_KEYWORD_COLUMNS}
)""",
    "CREATE INDEX tool_texts_file ON tachikoma.tool_texts (file_id, chunk_idx)",
    "CREATE INDEX tool_texts_memory ON tachikoma.tool_texts (memory_id, id)",
    "CREATE INDEX tool_texts_tsv ON tachikoma.tool_texts USING gin (tsv)",
)

#: The passages read again by the multilingual embedder, as on SQLite (`sqlite_schema.MULTILINGUAL`): per
#: memory and chunk text, its language when it is not English (NULL: English) and that embedder's float32
#: vector (empty for English).
MULTILINGUAL = (
    """CREATE TABLE IF NOT EXISTS tachikoma.multilingual (
    memory_id integer NOT NULL REFERENCES tachikoma.memories(id) ON DELETE CASCADE,
    hash text NOT NULL,      -- a chunk text's hash (`chunks.hash`)
    language text,           -- "German", "Japanese", ...; NULL: English
    vector bytea NOT NULL,   -- empty for an English passage
    PRIMARY KEY (memory_id, hash)
)""",
)


#: ASCII punctuation that PostgreSQL's parser reads as part of a word when a letter or digit follows it: a host
#: ("config.toml", "os.path.join"), a file ("/etc/app/config.toml"), a version ("2.1.5"), an e-mail address, a
#: URL, a hyphenated word, a signed number. FTS5 (unicode61) splits words at every one of them; the keyword
#: columns read a space there (`keyword_words`), so that "config" finds "/etc/app/config.toml" on both engines,
#: and an identifier asked as the phrase of its parts ("os.path", `keywords._words`) finds "os.path.join".
_JOINING = re.compile(r"[-./@:+~\\]+(?=[^\W_])")
#: The same test in PostgreSQL's regular expressions: the rows schema 5 reads again (`_fill_keyword_texts`).
_JOINING_SQL = r"[-./@:+~\\][[:alnum:]]"


def keyword_words(text: str) -> str:
    """`text` as the keyword columns read it: accents folded in Python as SQLite's FTS5 folds them
    (``remove_diacritics``), since PostgreSQL's ``unaccent`` is an extension a server may not have, and each
    `_JOINING` run a space. Query words are read alike (`postgres_bm25.asked_words`)."""
    return _JOINING.sub(" ", fold_accents(text))


def keyword_text(text: str) -> str | None:
    """What keyword search reads for `text` (the `kw` column), None when it is `text` itself:
    `segment.index_text` (CJK and Thai runs as characters and bigrams, umlauts spelled both ways), then
    `keyword_words`."""
    read = keyword_words(text if text.isascii() else index_text(text))
    return None if read == text else read


def _fill_keyword_texts(db, joined: bool = False) -> None:
    """Schema 3: `kw` of every row whose text is not ASCII (its bytes outnumber its characters); schema 5
    (`joined`): and of every row holding a `_JOINING` run."""
    for table, column in (("chunks", "text"), ("tool_texts", "words")):
        also = f" OR {column} ~ %s" if joined else ""
        rows = db.execute(f"SELECT id, {column} FROM tachikoma.{table} "
                          f"WHERE octet_length({column}) <> char_length({column}){also}",
                          (_JOINING_SQL,) if joined else ()).fetchall()
        with db.cursor() as cur:
            cur.executemany(f"UPDATE tachikoma.{table} SET kw = %s WHERE id = %s",
                            [(keyword_text(text), i) for i, text in rows])


#: Statements each schema version adds to the one before (a callable: run with the connection).
MIGRATIONS: dict[int, tuple] = {
    # Version 2: tool call texts. Forgetting how files were chunked makes the next `tachikoma index`
    # read every file again (their vectors are found by text hash, not embedded again) to fill them.
    2: TOOL_SCHEMA + ("DELETE FROM tachikoma.meta WHERE key = 'chunking'",),
    # Version 3: words in every script (issue 29): the keyword columns read `kw` (`keyword_text`),
    # filled for the rows already there; the tsvectors and their GIN indexes are made again.
    3: ("ALTER TABLE tachikoma.chunks ADD COLUMN IF NOT EXISTS kw text",
        # (IF NOT EXISTS: from schema 1, version 2 made tool_texts as TOOL_SCHEMA is now, with kw.)
        "ALTER TABLE tachikoma.tool_texts ADD COLUMN IF NOT EXISTS kw text",
        _fill_keyword_texts,
        "ALTER TABLE tachikoma.chunks DROP COLUMN tsv, DROP COLUMN words",
        f"ALTER TABLE tachikoma.chunks ADD COLUMN {_CHUNK_TSV}, ADD COLUMN {_CHUNK_WORDS}",
        "CREATE INDEX chunks_tsv ON tachikoma.chunks USING gin (tsv)",
        "ALTER TABLE tachikoma.tool_texts DROP COLUMN tsv, DROP COLUMN word_count",
        f"ALTER TABLE tachikoma.tool_texts ADD COLUMN {_TOOL_TSV}, ADD COLUMN {_TOOL_WORDS}",
        "CREATE INDEX tool_texts_tsv ON tachikoma.tool_texts USING gin (tsv)"),
    # Version 4: the passages not in English read again by the multilingual embedder (issue 29).
    4: MULTILINGUAL,
    # Version 5: a word joined to the next by "." "/" "@" "-" … is two words, as on SQLite (`_JOINING`): the
    # rows holding one read again (their tsvectors follow `kw`).
    5: (lambda db: _fill_keyword_texts(db, joined=True),),
}


def schema_version(db) -> int | None:
    """The schema version of the database `db` is connected to, or None before the schema is made."""
    if db.execute("SELECT to_regclass('tachikoma.schema')").fetchone()[0] is None:
        return None
    row = db.execute("SELECT version FROM tachikoma.schema").fetchone()
    return row[0] if row else None


def ensure_schema(db, url: str, readonly: bool) -> None:
    """Make the schema, or bring an older one up to SCHEMA_VERSION (one creator at a time); a reader
    (`readonly`) only checks it. `url` names the database in messages (without its password)."""
    version = schema_version(db)
    if version == SCHEMA_VERSION:
        _check_vector(db, url)
        return
    if version is not None and version > SCHEMA_VERSION:
        raise TachikomaError(f"the PostgreSQL index at {redacted(url)} has schema {version}, this "
                             f"tachikoma reads {SCHEMA_VERSION}: upgrade tachikoma")
    if readonly:
        if version is None:
            raise NoIndexYet(f"no index yet in {redacted(url)}: run `tachikoma index` first")
        raise TachikomaError(f"the PostgreSQL index at {redacted(url)} was made by an older tachikoma "
                             f"(schema {version}): run `tachikoma index` to upgrade it")
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_CLASS,))  # one creator at a time
        _create_vector_extension(db, url)
        version = schema_version(db)
        if version is None:
            db.execute(SCHEMA)
            for statement in TOOL_SCHEMA + MULTILINGUAL:
                db.execute(statement)
            db.execute("INSERT INTO tachikoma.schema VALUES (%s)", (SCHEMA_VERSION,))
        elif version < SCHEMA_VERSION:
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[step]:
                    if callable(statement):
                        statement(db)
                    else:
                        db.execute(statement)
            db.execute("UPDATE tachikoma.schema SET version = %s", (SCHEMA_VERSION,))


def _check_vector(db, url: str) -> None:
    if db.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
        raise _no_vector(url, "it is not created in this database")


def _create_vector_extension(db, url: str) -> None:
    import psycopg

    if db.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    available = db.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if not available:
        raise _no_vector(url, "the server does not have it: install pgvector on the server")
    try:
        with db.transaction():
            db.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege:
        raise _no_vector(url, "this user may not create it: run `CREATE EXTENSION vector;` in this "
                              "database as a superuser") from None


def _no_vector(url: str, why: str) -> TachikomaError:
    return TachikomaError(f"PostgreSQL at {redacted(url)} has no `vector` extension (pgvector): {why}")
