"""Issue 32, break 9: one huge single-line transcript record (a 45 MB line) is skipped with a warning
that names its file and line, in bounded memory; the rest of the file and the other files are indexed."""

from __future__ import annotations

import hashlib
import json
import tracemalloc

from tachikoma.reading import reader
from tachikoma.indexer import runner
from tachikoma.reading.documents import TRANSCRIPT

HUGE = 20_000_000


def write_session(path, huge_bytes: int = HUGE) -> bytes:
    filler = "word " * (huge_bytes // 5)
    data = ('{"role":"user","content":"what did the capybara eat"}\n'
            + json.dumps({"role": "assistant", "content": filler}) + "\n"
            + '{"role":"assistant","content":"the capybara ate melons"}\n').encode()
    path.write_bytes(data)
    return data


def test_a_line_past_the_limit_is_skipped_in_bounded_memory_and_named(tmp_path):
    data = write_session(tmp_path / "s.jsonl")
    tracemalloc.start()
    try:
        doc = reader.read_document(tmp_path, "s.jsonl", TRANSCRIPT, max_bytes=50_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * reader.MAX_LINE_BYTES, peak  # never the 20 MB line whole (it was ~6× its size)
    assert [t.text for t in doc.turns] == ["what did the capybara eat", "the capybara ate melons"]
    assert [t.line for t in doc.turns] == [1, 3]  # the lines keep their numbers
    assert doc.sha256 == hashlib.sha256(data).hexdigest()  # every byte hashed: a change is still seen
    warning = next(w for w in doc.warnings if "limit of one transcript line" in w)
    assert warning.startswith(f"s.jsonl:2: line 2 is {len(data.splitlines()[1]) + 1:,} bytes, over the "
                              f"{reader.MAX_LINE_BYTES:,}-byte limit")


def test_a_line_just_under_the_limit_is_read(tmp_path):
    write_session(tmp_path / "s.jsonl", reader.MAX_LINE_BYTES - 100)
    doc = reader.read_document(tmp_path, "s.jsonl", TRANSCRIPT, max_bytes=50_000_000)
    assert len(doc.turns) == 3 and not any("limit of one transcript line" in w for w in doc.warnings)


def test_the_index_run_goes_on_with_the_other_files(tmp_path):
    (tmp_path / "tachikoma.toml").write_text('[index]\nmax_file_bytes = 50000000\n[embedder]\nname = "hash"\n')
    write_session(tmp_path / "s.jsonl")
    (tmp_path / "note.md").write_text("# Note\nThe okapi is shy.\n")
    warnings = []
    summary = runner.run(tmp_path, warn=warnings.append)
    assert summary.added == 2
    assert any(w.startswith("s.jsonl:2: line 2 is") for w in warnings), warnings
