"""The SQLite index's schema: its tables, the migrations that upgrade an older index in place, and
the tables an index must hold (`REQUIRED`). `sqlite.Store` creates and checks it, and scrubs its file of
what deleted rows left behind (`Scrubbing`)."""

from __future__ import annotations

SCHEMA_VERSION = 7
#: Columns each schema version added, so an older index is upgraded in place (its vectors kept).
#: Version 2: the dates of issue 8 (per-chunk transcript dates, dates in paths, evergreen notes);
#: the next `tachikoma index` reads every file again to fill them (`DATES_VERSION`).
MIGRATIONS = {
    2: ("ALTER TABLE files ADD COLUMN path_date REAL",
        "ALTER TABLE files ADD COLUMN turn_date REAL",
        "ALTER TABLE files ADD COLUMN evergreen INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE chunks ADD COLUMN date REAL"),
    # Version 3: whether a file's git date comes from an import (a commit adding many files at once).
    3: ("ALTER TABLE files ADD COLUMN git_import INTEGER NOT NULL DEFAULT 0",),
    # Version 4: tool call texts, searched by keyword only (filled as the next run chunks every file again).
    4: None,  # `TOOL_SCHEMA`, run as a script (`SCRIPTS`)
    # Version 5: tiers of vectors (issue 21). A chunk is stored with its text first (keyword search
    # works at once), its full vector later: an empty `vector` means "not embedded yet". `quick` holds
    # the cheap static vector (`embedders.static`) until then, NULL when none.
    5: ("ALTER TABLE chunks ADD COLUMN quick BLOB",
        # The chunks still to embed, found without reading every vector (`pending`, `count_pending`).
        "CREATE INDEX IF NOT EXISTS chunks_unembedded ON chunks(hash) WHERE length(vector) = 0"),
    # Version 6: words in every script (issue 29). The keyword index reads `segment.index_text` of each
    # text (`KEYWORDS_FUNCTION`): its triggers are made again and both keyword indexes refilled.
    6: None,  # `KEYWORDS_REBUILD`, run as a script (`SCRIPTS`)
    # Version 7: passages not in English read again by the multilingual embedder (issue 29, `MULTILINGUAL`).
    7: None,  # `MULTILINGUAL`, run as a script (`SCRIPTS`)
}

#: How the keyword index splits and stems words (FTS5 porter over unicode61); the dashboard's highlighting uses it too.
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"
#: The SQL function (`segment.index_text`, registered on every connection the store opens) that
#: gives the text the keyword indexes read: CJK and Thai runs in characters and bigrams, umlauts
#: spelled both ways; the stored text stays as written. An external-content FTS5 table is handed
#: that text by the triggers, and the same text again to delete a row.
KEYWORDS_FUNCTION = "tachikoma_keywords"


def _fts_triggers(table: str, fts: str, column: str) -> str:
    """The triggers that keep the external-content FTS5 table `fts` in step with `table`'s `column`,
    segmented by `KEYWORDS_FUNCTION` on the way in and on the way out."""
    return f"""
CREATE TRIGGER IF NOT EXISTS {table}_ai AFTER INSERT ON {table} BEGIN
    INSERT INTO {fts}(rowid, {column}) VALUES (new.id, {KEYWORDS_FUNCTION}(new.{column}));
END;
CREATE TRIGGER IF NOT EXISTS {table}_ad AFTER DELETE ON {table} BEGIN
    INSERT INTO {fts}({fts}, rowid, {column}) VALUES ('delete', old.id, {KEYWORDS_FUNCTION}(old.{column}));
END;
"""


CHUNK_TRIGGERS = _fts_triggers("chunks", "chunks_fts", "text")
TOOL_TRIGGERS = _fts_triggers("tool_texts", "tool_fts", "words")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    fm_date REAL,            -- front matter updated/date, unix seconds
    git_date REAL,           -- last commit changing the file's content (not its tags), unix seconds
    trust TEXT,
    confidence TEXT,
    source TEXT,
    invalid TEXT NOT NULL DEFAULT '{}',   -- JSON {key: raw value}
    warnings TEXT NOT NULL DEFAULT '[]',  -- JSON list of strings
    indexed_at REAL NOT NULL,
    path_date REAL,          -- YYYY-MM-DD in the file or folder name, unix seconds
    turn_date REAL,          -- a transcript's last timestamped turn, unix seconds
    evergreen INTEGER NOT NULL DEFAULT 0,  -- front matter `evergreen: true` (or the tag file's)
    git_import INTEGER NOT NULL DEFAULT 0  -- git_date is an import's (gitutil.IMPORT_FILES): a weak date
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,    -- the full model's float32 vector (empty until embedded)
    date REAL,               -- transcripts: the chunk's last timestamped turn in unix seconds
    quick BLOB               -- the quick tier's float32 vector until the full one is in
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id, idx);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE INDEX IF NOT EXISTS chunks_unembedded ON chunks(hash) WHERE length(vector) = 0;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='""" + FTS_TOKENIZE + """'
);
""" + CHUNK_TRIGGERS

#: The passages of an index whose embedder reads English only, read again by the multilingual embedder
#: (`indexer.pipeline.embed_multilingual`), one row per chunk text: its language when it is not English
#: (`embedders.auto.passage_language`) and that embedder's float32 vector; an English passage has a row too
#: (language NULL, vector empty), so that each text is judged once.
MULTILINGUAL = """
CREATE TABLE IF NOT EXISTS multilingual (
    hash TEXT PRIMARY KEY,   -- a chunk text's hash (`chunks.hash`)
    language TEXT,           -- "German", "Japanese", ...; NULL: English
    vector BLOB NOT NULL     -- empty for an English passage
);
"""

#: What transcripts' tool calls were given and gave back (`documents.ToolText`), by keyword only:
#: never embedded, and in an FTS table of its own, so its words neither lengthen the chunks' rows
#: (BM25 would rank their own text lower) nor weigh in the chunks' word statistics. A row belongs to
#: the chunk (file, idx) whose turn made the call; `words` are its distinct words (`keyword_words`).
TOOL_SCHEMA = """
CREATE TABLE IF NOT EXISTS tool_texts (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    chunk_idx INTEGER NOT NULL,
    line INTEGER NOT NULL,   -- the file line of the record holding the text
    tool TEXT NOT NULL,      -- the tool's name
    side TEXT NOT NULL,      -- 'input' or 'output'
    words TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_texts_file ON tool_texts(file_id, chunk_idx);
CREATE VIRTUAL TABLE IF NOT EXISTS tool_fts USING fts5(
    words, content='tool_texts', content_rowid='id', tokenize='""" + FTS_TOKENIZE + """'
);
""" + TOOL_TRIGGERS

#: Schema version 6: the triggers made again to hand the keyword indexes `KEYWORDS_FUNCTION`'s text,
#: and both indexes emptied and refilled from it (the vectors are kept: nothing is embedded again).
KEYWORDS_REBUILD = f"""
DROP TRIGGER IF EXISTS chunks_ai;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS tool_texts_ai;
DROP TRIGGER IF EXISTS tool_texts_ad;
{CHUNK_TRIGGERS}{TOOL_TRIGGERS}
INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all');
INSERT INTO chunks_fts(rowid, text) SELECT id, {KEYWORDS_FUNCTION}(text) FROM chunks;
INSERT INTO tool_fts(tool_fts) VALUES ('delete-all');
INSERT INTO tool_fts(rowid, words) SELECT id, {KEYWORDS_FUNCTION}(words) FROM tool_texts;
"""

#: The migrations run as scripts (their `MIGRATIONS` entry is None).
SCRIPTS = {4: TOOL_SCHEMA, 6: KEYWORDS_REBUILD, 7: MULTILINGUAL}

#: Tables, indexes and triggers every index has; one missing means the file was damaged.
REQUIRED = frozenset({"meta", "files", "chunks", "chunks_file", "chunks_hash", "chunks_fts", "chunks_ai",
                      "chunks_ad", "tool_texts", "tool_texts_file", "tool_fts", "tool_texts_ai", "tool_texts_ad",
                      "multilingual"})


class Scrubbing:
    """`Store.scrub`, kept beside the tables it rewrites."""

    def scrub(self) -> None:
        """Leave nothing of deleted rows in the index file: SQLite keeps a deleted row's bytes in free pages, and
        FTS5 a replaced text's words in its older segments, until they are overwritten. Each full-text index is
        merged into one segment (`optimize`), the file rewritten (VACUUM) and the WAL emptied. Run once a run
        replaced text that must not stay (secrets, when redaction starts: `indexer.runner`)."""
        self.db.commit()
        for table in ("chunks_fts", "tool_fts"):
            self.db.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        self.db.commit()
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
