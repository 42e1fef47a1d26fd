"""The index file: SQLite failures become one-line errors that say what to do."""

import sqlite3

import pytest

from tachikoma.errors import NoIndexYet, TachikomaError
from tachikoma.store import IndexDamaged, Store, index_error


def test_file_that_is_not_a_database_is_damaged(tmp_path):
    path = tmp_path / ".cache" / "index.db"
    path.parent.mkdir()
    path.write_bytes(b"this is not SQLite\n" * 500)
    with pytest.raises(IndexDamaged) as caught:
        Store(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.endswith(f"delete {tmp_path / '.cache'} and run `tachikoma index` to rebuild it from the memory "
                            "files")


def test_cache_folder_that_is_a_file_is_a_one_line_error(tmp_path):
    (tmp_path / ".cache").write_text("a file")
    with pytest.raises(TachikomaError, match=r"cannot create .*\.cache \(File exists\)"):
        Store(tmp_path / ".cache" / "index.db")


def test_busy_read_only_and_full_are_not_called_damage(tmp_path):
    path = tmp_path / "index.db"
    busy = index_error(path, sqlite3.OperationalError("database is locked"))
    assert not isinstance(busy, IndexDamaged) and "busy" in str(busy)
    read_only = index_error(path, sqlite3.OperationalError("attempt to write a readonly database"))
    assert not isinstance(read_only, IndexDamaged) and "read-only" in str(read_only)
    full = index_error(path, sqlite3.OperationalError("database or disk is full"))
    assert not isinstance(full, IndexDamaged) and "disk is full" in str(full)
    assert isinstance(index_error(path, sqlite3.DatabaseError("database disk image is malformed")), IndexDamaged)
    assert isinstance(index_error(path, sqlite3.OperationalError("no such table: chunks_fts")), IndexDamaged)


def test_a_bug_in_the_caller_is_not_reported_as_damage(tmp_path):
    store = Store(tmp_path / "index.db")
    store.close()
    with pytest.raises(sqlite3.ProgrammingError):
        store.get_meta("generation")


def test_a_reader_before_the_first_run_has_written_the_schema_gets_no_index_yet(tmp_path):
    """The first index run creates the file an instant before its tables: a search then must get the
    typed NoIndexYet (the dashboard's "no index yet" panel, MCP's "being built"), not a plain error
    that the dashboard showed as a 500 "Search failed"."""
    path = tmp_path / ".cache" / "index.db"
    with pytest.raises(NoIndexYet):
        Store(path, readonly=True)
    path.parent.mkdir()
    path.touch()
    with pytest.raises(NoIndexYet):
        Store(path, readonly=True)
