"""`tagging.replaced.Held`: a write that reaches a file after a rename replaced it is appended to the new one.

No test waits: the clock and the sleep are replaced.
"""

import os
from pathlib import Path

import pytest

from tachikoma.tagging import replaced
from tachikoma.tagging.replaced import GRACE, ROUNDS, Held


class Clock:
    def __init__(self):
        self.now, self.slept = 1000.0, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(replaced.time, "monotonic", clock.monotonic)
    monkeypatch.setattr(replaced.time, "sleep", clock.sleep)
    return clock


def replace_note(folder: Path, name: str, old: bytes, new: bytes):
    """`name` holding `old`, replaced by a file holding `new` the way a rename does; (the old file
    opened for appending, as a writer that opened it before the rename holds it; a descriptor on it
    for `Held`; the note's path)."""
    note = folder / name
    note.write_bytes(old)
    appender = open(note, "ab")
    fd = os.open(note, os.O_RDONLY)
    (folder / f".{name}.tmp").write_bytes(new)
    os.replace(folder / f".{name}.tmp", note)
    return appender, fd, note


def test_bytes_written_to_the_old_file_are_appended_to_the_new_one_in_order(tmp_path, clock):
    appender, fd, note = replace_note(tmp_path, "a.md", b"body\n", b"---\nt: x\n---\nbody\n")
    held = Held()
    held.hold(fd, len(b"body\n"), note)
    with open(note, "ab") as later:  # a writer that opened the note after the rename
        later.write(b"after\n")
    appender.write(b"late 1\nlate 2\n")
    appender.close()
    assert held.finish() == []
    assert note.read_bytes() == b"---\nt: x\n---\nbody\nafter\nlate 1\nlate 2\n"


def test_nothing_written_late_leaves_the_new_file_as_it_is(tmp_path, clock):
    appender, fd, note = replace_note(tmp_path, "a.md", b"body\n", b"new\n")
    appender.close()
    held = Held()
    held.hold(fd, 5, note)
    stat = os.stat(note)
    assert held.finish() == []
    assert note.read_bytes() == b"new\n" and os.stat(note).st_mtime_ns == stat.st_mtime_ns


def test_files_are_checked_once_they_are_grace_old_and_the_run_waits_once(tmp_path, clock):
    appender_a, fd_a, a = replace_note(tmp_path, "a.md", b"a\n", b"A\n")
    appender_b, fd_b, b = replace_note(tmp_path, "b.md", b"b\n", b"B\n")
    held = Held()
    held.hold(fd_a, 2, a)
    clock.now += GRACE / 2
    held.hold(fd_b, 2, b)
    appender_a.write(b"late a\n")
    appender_a.flush()
    appender_b.write(b"late b\n")
    appender_b.flush()
    assert held.check() == [] and a.read_bytes() == b"A\n", "a is not GRACE old yet"
    clock.now += GRACE * 0.51
    assert held.check() == []
    assert a.read_bytes() == b"A\nlate a\n" and b.read_bytes() == b"B\n"
    appender_a.write(b"too late\n")  # a is no longer held: this is the limit of any rename
    appender_a.close()
    assert held.finish() == []
    assert len(clock.slept) == 1 and 0 < clock.slept[0] < GRACE / 2, "b waited for, once"
    assert a.read_bytes() == b"A\nlate a\n" and b.read_bytes() == b"B\nlate b\n"
    appender_b.close()


def test_past_most_held_the_oldest_is_checked_early(tmp_path, clock, monkeypatch):
    monkeypatch.setattr(replaced, "MOST", 1)
    appender_a, fd_a, a = replace_note(tmp_path, "a.md", b"a\n", b"A\n")
    appender_b, fd_b, b = replace_note(tmp_path, "b.md", b"b\n", b"B\n")
    held = Held()
    held.hold(fd_a, 2, a)
    held.hold(fd_b, 2, b)
    appender_a.write(b"late a\n")
    appender_a.close()
    assert held.check() == []
    assert a.read_bytes() == b"A\nlate a\n"
    held.finish()
    appender_b.close()


def test_a_note_gone_meanwhile_is_not_made_again_and_the_bytes_are_reported(tmp_path, clock):
    appender, fd, note = replace_note(tmp_path, "a.md", b"body\n", b"new\n")
    held = Held()
    held.hold(fd, 5, note)
    appender.write(b"late\n")
    appender.close()
    note.unlink()
    [unsaved] = held.finish()
    assert (unsaved.path, unsaved.size) == (note, 5) and "No such file" in unsaved.why
    assert not note.exists()


def test_an_old_file_cut_short_adds_nothing(tmp_path, clock):
    appender, fd, note = replace_note(tmp_path, "a.md", b"body\n", b"new\n")
    held = Held()
    held.hold(fd, 5, note)
    appender.truncate(2)
    appender.close()
    assert held.finish() == []
    assert note.read_bytes() == b"new\n"


def test_the_late_bytes_of_a_note_go_to_add_together_in_the_order_held_with_where_they_belong(tmp_path, clock):
    appender_a, fd_a, note = replace_note(tmp_path, "a.md", b"a\n", b"A\n")
    added = []
    held = Held(lambda path, data, placed: added.append((path, data, placed)))
    held.hold(fd_a, 2, note)
    appender_b, fd_b, _ = replace_note(tmp_path, "b.tmp", b"b\n", b"unused\n")  # a second old file of the note
    held.hold(fd_b, 2, note)
    placed = replaced.Placed(1, 2, 3)
    held.placed(note, placed)
    appender_b.write(b"late b\n")
    appender_a.write(b"late a\n")
    appender_a.close()
    appender_b.close()
    assert held.finish() == []
    assert added == [(note, b"late a\nlate b\n", placed)]


def test_a_note_add_replaced_again_is_added_back_in_turn_then_appended_to_at_its_end(tmp_path, clock):
    """Adding back may itself replace the note (tagging's add rewrites it): the file it replaced is
    held, waited for and added back the same way, `ROUNDS` times at most; what reaches the file the last
    of those rounds replaced is appended at the note's end."""
    appender, fd, note = replace_note(tmp_path, "a.md", b"a\n", b"A\n")
    held = Held()
    replacing = []

    def add(path, data, placed):  # as tagging's: a new file with the bytes in, renamed over the note,
        again = open(path, "ab")  # and every time an appender that opened the note just before the rename
        replacing.append(again)
        (tmp_path / ".new").write_bytes(path.read_bytes() + data)
        old = os.open(path, os.O_RDONLY)
        os.replace(tmp_path / ".new", path)
        held.hold(old, os.fstat(old).st_size, path)
        again.write(b"later %d\n" % len(replacing))
        again.close()

    held._add = add
    held.hold(fd, 2, note)
    appender.write(b"late\n")
    appender.close()
    assert held.finish() == []
    assert note.read_bytes() == b"A\nlate\n" + b"".join(b"later %d\n" % n for n in range(1, ROUNDS + 1))
    assert len(clock.slept) == ROUNDS + 1 and len(replacing) == ROUNDS
