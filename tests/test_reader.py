import json
import os
from datetime import UTC, datetime

import pytest

from tachikoma.reading.documents import MARKDOWN, TRANSCRIPT
from tachikoma.memory import PathOutsideMemory
from tachikoma.reading.reader import read_document
from tachikoma.reading.tags import Tags

UTC = UTC


def write(tmp_path, rel, content):
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def test_markdown_with_front_matter(tmp_path):
    write(tmp_path, "notes/a.md",
          "---\ntrust: Owner\nconfidence: high\nsource: martin\nupdated: 2026-11-20\ndate: 2020-01-01\n---\n"
          "# Title\n\nBody text.\n")
    doc = read_document(tmp_path, "notes/a.md", MARKDOWN)
    assert doc.warnings == []
    assert doc.path == "notes/a.md" and doc.kind == MARKDOWN
    assert doc.tags == Tags(trust="owner", confidence="high", source="martin")
    assert doc.meta["source"] == "martin"
    assert doc.date == datetime(2026, 11, 20, tzinfo=UTC)
    assert doc.text == "# Title\n\nBody text.\n"
    assert doc.body_line == 8
    assert doc.turns == []


def test_markdown_without_front_matter(tmp_path):
    write(tmp_path, "plain.md", "# Just a note\ntext\n")
    doc = read_document(tmp_path, "plain.md", MARKDOWN)
    assert doc.warnings == [] and doc.meta == {} and doc.tags == Tags() and doc.date is None
    assert doc.text == "# Just a note\ntext\n" and doc.body_line == 1


@pytest.mark.parametrize("value, expected", [
    ("2026-03-01T10:00:00+02:00", datetime(2026, 3, 1, 8, tzinfo=UTC)),  # aware datetime from YAML
    ("2026-03-01 10:00:00", datetime(2026, 3, 1, 10, tzinfo=UTC)),  # naive datetime → UTC
    ("'2026-03-01'", datetime(2026, 3, 1, tzinfo=UTC)),  # quoted: a str
    ("'2026-03-01T10:00:00Z'", datetime(2026, 3, 1, 10, tzinfo=UTC)),
])
def test_front_matter_date_forms(tmp_path, value, expected):
    write(tmp_path, "d.md", f"---\ndate: {value}\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.warnings == []
    assert doc.date == expected
    assert doc.date.tzinfo is not None and doc.date.utcoffset().total_seconds() == 0


def test_unparseable_date_is_a_warning_and_falls_back(tmp_path):
    write(tmp_path, "d.md", "---\ntrust: self\nupdated: last tuesday\ndate: 2024-02-03\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.date == datetime(2024, 2, 3, tzinfo=UTC)
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("d.md:3: ") and "updated" in doc.warnings[0]
    assert doc.tags.trust == "self"


def test_unparseable_only_date_gives_none(tmp_path):
    write(tmp_path, "d.md", "---\ndate: 2024\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.date is None
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith("d.md:2: ")


@pytest.mark.parametrize("content, line, words", [
    ("---\ntrust: owner\n# never closed\nsecret words here\n", "1", "never closed"),  # unterminated
    ("---\ntrust: owner\nconfidence: [high\n---\nsecret words here\n", None, "malformed"),  # YAML syntax error
    ("---\n- trust\n- owner\n---\nsecret words here\n", "1", "not a mapping"),  # a list
    ("---\njust a string\n---\nsecret words here\n", "1", "not a mapping"),  # a scalar
])
def test_malformed_front_matter_indexes_the_whole_text(tmp_path, content, line, words):
    write(tmp_path, "bad.md", content)
    doc = read_document(tmp_path, "bad.md", MARKDOWN)
    assert doc.text == content
    assert doc.body_line == 1
    assert doc.tags == Tags() and doc.meta == {} and doc.date is None
    assert len(doc.warnings) == 1
    assert words in doc.warnings[0]
    prefix = doc.warnings[0].split(": ")[0]
    if line is None:
        assert prefix.startswith("bad.md:") and int(prefix.split(":")[1]) > 1
    else:
        assert prefix == f"bad.md:{line}"


def test_crlf_and_bom(tmp_path):
    raw = "\ufeff---\r\ntrust: owner\r\n---\r\n# Title\r\nline two\r\n"
    write(tmp_path, "w.md", raw)
    doc = read_document(tmp_path, "w.md", MARKDOWN)
    assert doc.warnings == []
    assert doc.tags.trust == "owner"
    assert doc.text == "# Title\nline two\n"
    assert doc.body_line == 4
    assert "\r" not in doc.text and "\ufeff" not in doc.text


def test_bom_without_front_matter(tmp_path):
    write(tmp_path, "b.md", "\ufeff# Heading\n")
    doc = read_document(tmp_path, "b.md", MARKDOWN)
    assert doc.text == "# Heading\n" and doc.warnings == []


def test_invalid_utf8_is_replaced_and_reported_with_its_line(tmp_path):
    write(tmp_path, "latin.md", b"# Title\nfine line\ncaf\xe9 au lait\nmore \xff\n")
    doc = read_document(tmp_path, "latin.md", MARKDOWN)
    assert doc.warnings == ["latin.md:3: invalid UTF-8, undecodable bytes replaced"]
    assert "caf\ufffd au lait" in doc.text
    assert "fine line" in doc.text


def test_binary_file_is_skipped(tmp_path):
    write(tmp_path, "img.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"x" * 100)
    doc = read_document(tmp_path, "img.md", MARKDOWN)
    assert doc.text == "" and doc.turns == []
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith("img.md: ") and "binary" in doc.warnings[0]


def test_oversized_file_is_skipped(tmp_path):
    write(tmp_path, "big.md", "word " * 300)
    doc = read_document(tmp_path, "big.md", MARKDOWN, max_bytes=1000)
    assert doc.text == "" and doc.turns == []
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith("big.md: ") and "1000" in doc.warnings[0]
    exact = read_document(tmp_path, "big.md", MARKDOWN, max_bytes=1500)
    assert exact.warnings == [] and exact.text.startswith("word")


def test_empty_files(tmp_path):
    write(tmp_path, "e.md", "")
    write(tmp_path, "e.jsonl", "")
    md = read_document(tmp_path, "e.md", MARKDOWN)
    tr = read_document(tmp_path, "e.jsonl", TRANSCRIPT)
    assert md.text == "" and md.warnings == []
    assert tr.turns == [] and tr.warnings == []


def test_missing_file_is_a_warning(tmp_path):
    doc = read_document(tmp_path, "gone.md", MARKDOWN)
    assert doc.text == "" and len(doc.warnings) == 1 and doc.warnings[0].startswith("gone.md: cannot read")


def test_paths_outside_the_root_are_refused(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    write(tmp_path, "secret.md", "secret")
    for rel in ("../secret.md", str(tmp_path / "secret.md"), ".git/config"):
        with pytest.raises(PathOutsideMemory):
            read_document(root, rel, MARKDOWN)


def test_transcript(tmp_path):
    lines = [json.dumps({"type": "user", "timestamp": "2025-01-02T03:04:05Z",
                         "message": {"role": "user", "content": "hello"}}),
             "{broken",
             json.dumps({"type": "assistant", "message": {"role": "assistant", "content": "hi"}})]
    write(tmp_path, "s/t.jsonl", "\r\n".join(lines) + "\r\n")
    doc = read_document(tmp_path, "s/t.jsonl", TRANSCRIPT)
    assert doc.kind == TRANSCRIPT and doc.text == ""
    assert [(t.speaker, t.text, t.line) for t in doc.turns] == [("user", "hello", 1), ("assistant", "hi", 3)]
    assert doc.session == {"format": "claude-code"}
    assert doc.turns[0].timestamp == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith("s/t.jsonl:2: ")
    assert doc.tags == Tags()


def test_transcript_front_matter_like_text_is_not_read_as_tags(tmp_path):
    write(tmp_path, "t.jsonl", json.dumps({"speaker": "A", "text": "---\ntrust: owner\n---"}) + "\n")
    doc = read_document(tmp_path, "t.jsonl", TRANSCRIPT)
    assert doc.tags == Tags() and doc.meta == {}
    assert len(doc.turns) == 1


def test_invalid_utf8_in_transcript(tmp_path):
    write(tmp_path, "t.jsonl", b'{"speaker": "A", "text": "ok"}\n{"speaker": "B", "text": "caf\xe9"}\n')
    doc = read_document(tmp_path, "t.jsonl", TRANSCRIPT)
    assert doc.warnings == ["t.jsonl:2: invalid UTF-8, undecodable bytes replaced"]
    assert [t.text for t in doc.turns] == ["ok", "caf\ufffd"]


def test_unknown_kind_is_a_programming_error(tmp_path):
    write(tmp_path, "a.md", "x")
    with pytest.raises(ValueError):
        read_document(tmp_path, "a.md", "pdf")




@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-45", "2026-03-22T25:00:00", "2026-02-29 10:00:00"])
def test_impossible_date_is_a_warning_with_its_line_not_a_crash(tmp_path, value):
    write(tmp_path, "d.md", f"---\ntrust: self\ndate: {value}\n---\nbody words\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.date is None and doc.tags.trust == "self" and doc.text == "body words\n"
    assert doc.warnings == [f"d.md:3: front matter date {value!r} is not a date, ignored"]
    assert doc.meta["date"] == value


def test_a_dendron_notes_unix_time_in_milliseconds_is_its_date(tmp_path):
    """Dendron writes `updated` and `created` as Unix times in milliseconds: a real vault's every note was warned
    "front matter updated '1796247600000' is not a date, ignored" and dated by git instead. 13 digits are read as
    milliseconds and 10 as seconds; other numbers are still no date."""
    write(tmp_path, "proj.flat.md", "---\nid: x1\ntitle: Flat\nupdated: 1796247600000\ncreated: 1780000000000\n---\nb\n")
    doc = read_document(tmp_path, "proj.flat.md", MARKDOWN)
    assert doc.date == datetime(2026, 12, 2, 21, 40, tzinfo=UTC) and doc.warnings == []
    write(tmp_path, "s.md", "---\ndate: 1796247600\n---\nb\n")
    assert read_document(tmp_path, "s.md", MARKDOWN).date == datetime(2026, 12, 2, 21, 40, tzinfo=UTC)
    for value in ("20261201", "179624760000", "01796247600000", "17962476000000"):
        write(tmp_path, "n.md", f"---\ndate: {value}\n---\nb\n")
        doc = read_document(tmp_path, "n.md", MARKDOWN)
        assert doc.date is None and doc.warnings == [f"n.md:2: front matter date {value!r} is not a date, ignored"]


def test_impossible_updated_falls_back_to_date(tmp_path):
    write(tmp_path, "d.md", "---\nupdated: 2026-02-30\ndate: 2026-02-28\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.date == datetime(2026, 2, 28, tzinfo=UTC)
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith("d.md:2: ")


@pytest.mark.parametrize("value, expected", [
    ("2026-3-2", datetime(2026, 3, 2, tzinfo=UTC)),  # YAML allows one-digit month and day
    ("2026-03-01 10:00:00 +2", datetime(2026, 3, 1, 8, tzinfo=UTC)),
    ("2026-03-01t10:00:00.25Z", datetime(2026, 3, 1, 10, 0, 0, 250000, tzinfo=UTC)),
    ("2026-03-01 10:00:00.1234567 -01:30", datetime(2026, 3, 1, 11, 30, 0, 123456, tzinfo=UTC)),
])
def test_yaml_timestamp_forms_still_parse(tmp_path, value, expected):
    write(tmp_path, "d.md", f"---\ndate: {value}\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.warnings == [] and doc.date == expected


def test_source_no_reads_as_text(tmp_path):
    write(tmp_path, "d.md", "---\ntrust: self\nconfidence: low\nsource: no\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.tags.source == "no" and doc.tags.status == "tagged" and doc.warnings == []


def test_key_set_twice_is_a_warning_and_the_last_counts(tmp_path):
    write(tmp_path, "d.md", "---\ntrust: owner\nTrust: self\n---\nbody\n")
    doc = read_document(tmp_path, "d.md", MARKDOWN)
    assert doc.tags.trust == "self"
    assert doc.warnings == ["d.md:3: trust is set more than once (trust at line 2, Trust at line 3); "
                            "the last one is used"]


# -- transcripts are streamed from disk (issue 21: bounded memory on a 2 GB session) --------------


@pytest.mark.parametrize("body", [
    b'{"role": "user", "content": "hello"}\n{"role": "assistant", "content": "hi there"}\n',
    b'\xef\xbb\xbf{"role": "user", "content": "bom"}\r\n{"role": "assistant", "content": "crlf"}\r\n',
    b'{"role": "user", "content": "caf\xe9 bad bytes"}\nnot json\n{"role": "assistant", "content": "ok"}',
    b'{"role": "user", "content": "no newline at the end"}\n{"role": "assistant", "content": "half',
    b'', b'\n\n', b'{"role": "user", "content": "a lone \r in a line"}\n',
])
def test_a_streamed_transcript_reads_as_the_whole_text_did(tmp_path, body):
    import hashlib

    from tachikoma.reading.reader import _decode
    from tachikoma.transcripts import parse_transcript

    (tmp_path / "s.jsonl").write_bytes(body)
    doc = read_document(tmp_path, "s.jsonl", "transcript")
    whole_warnings: list[str] = []
    whole = parse_transcript(_decode(body, "s.jsonl", whole_warnings), "s.jsonl")
    assert doc.sha256 == hashlib.sha256(body).hexdigest()
    assert [(t.speaker, t.text, t.line, t.line_end) for t in doc.turns] == \
        [(t.speaker, t.text, t.line, t.line_end) for t in whole.turns]
    assert doc.warnings == whole_warnings + whole.warnings


def test_a_transcript_growing_past_the_limit_while_read_is_skipped(tmp_path, monkeypatch):
    from tachikoma.reading import reader

    (tmp_path / "s.jsonl").write_bytes(b'{"role": "user", "content": "hello"}\n' * 100)
    real_stat = reader.os.stat
    monkeypatch.setattr(reader.os, "stat", lambda p, *a, **k: os.stat_result((*real_stat(p)[:6], 10, *real_stat(p)[7:])))
    doc = read_document(tmp_path, "s.jsonl", "transcript", max_bytes=1000)
    assert doc.turns == [] and doc.sha256 is None
    assert doc.warnings == ["s.jsonl: over the 1000-byte limit ([index] max_file_bytes), skipped"]
