import os
import stat

import pytest

from tachikoma import atomic
from tachikoma.atomic import atomic_write_bytes, atomic_write_text


def test_text_keeps_line_endings_and_missing_final_newline(tmp_path):
    path = tmp_path / "note.md"
    text = "a\r\nb\nc\rd — ü"
    atomic_write_text(path, text)
    assert path.read_bytes() == text.encode("utf-8")


def test_replaces_existing_content(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"old contents that are longer")
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new"


def test_keeps_permission_bits(tmp_path):
    path = tmp_path / "f.md"
    path.write_text("x")
    os.chmod(path, 0o640)
    atomic_write_text(path, "y")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    os.chmod(path, 0o604)
    atomic_write_text(path, "z")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o604


def test_new_file_follows_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "new.md", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.md").st_mode) == 0o640


@pytest.mark.parametrize("call, message", [("replace", "disk on fire"), ("fsync", "fsync failed")])
def test_failure_keeps_the_original_and_removes_the_temp_file(tmp_path, monkeypatch, call, message):
    path = tmp_path / "f.md"
    path.write_bytes(b"original")

    def broken(*args):
        raise OSError(message)

    monkeypatch.setattr(atomic.os, call, broken)
    with pytest.raises(OSError, match=message):
        atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.md"]


def test_fsyncs_file_and_folder(tmp_path, monkeypatch):
    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(os.path.realpath(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else fd)
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", spy)
    atomic_write_bytes(tmp_path / "f.md", b"x")
    assert len(synced) == 2
    if os.path.exists("/proc/self/fd"):
        assert synced[1] == str(tmp_path.resolve())


def test_symlink_is_kept_and_target_replaced(tmp_path):
    target = tmp_path / "real.md"
    target.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink()
    assert target.read_text() == "new"


@pytest.mark.parametrize("name", ["a" * 252 + ".md", "ü" * 125 + ".md"])  # 255 bytes: the longest name allowed
def test_a_file_with_the_longest_name_is_written_and_its_leftovers_found(tmp_path, name):
    """The temporary file repeats the name, so a name over 237 bytes made it too long for the file system
    (a note with a long name could not be tagged, and the whole tagging run stopped)."""
    path = tmp_path / name
    path.write_bytes(b"old")
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new" and os.listdir(tmp_path) == [name]
    leftover = tmp_path / (atomic._temp_prefix(name) + "0123456789ab.tmp")  # as kill -9 before the rename leaves
    leftover.write_bytes(b"half")
    assert atomic.remove_leftovers(path) == [leftover] and os.listdir(tmp_path) == [name]
