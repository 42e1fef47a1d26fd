import pytest
import yaml

from tachikoma.reading import tagfile
from tachikoma.errors import TachikomaError
from tachikoma.memory import TAG_FILE
from tachikoma.reading.tagfile import HEADER, TagFileError, load, save


def write(root, text):
    (root / TAG_FILE).write_text(text, encoding="utf-8")


def touch(root, rel):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")


def test_missing_file_is_empty(tmp_path):
    tf = load(tmp_path)
    assert tf.entries == {} and tf.extra == {} and tf.warnings == []
    assert tf.exists is False
    assert tf.tags_for("a.jsonl").status == "untagged"


def test_comment_only_file_is_empty(tmp_path):
    write(tmp_path, HEADER)
    tf = load(tmp_path)
    assert tf.exists and tf.entries == {}


def test_round_trip_with_awkward_paths(tmp_path):
    entries = {
        "zeta/s.jsonl": {"trust": "self", "confidence": "medium", "source": "tachikoma"},
        "2026-03-22/session abc.jsonl": {"trust": "external"},
        "ünïcödé/日本.jsonl": {"confidence": "low", "source": "a: colon, and # hash"},
        "- dash.jsonl": {"source": "yes"},
        "123.jsonl": {"source": "2026-03-22"},
    }
    save(tmp_path, entries)
    text = (tmp_path / TAG_FILE).read_text(encoding="utf-8")
    assert text.startswith(HEADER)
    tf = load(tmp_path)
    assert tf.entries == entries
    assert tf.warnings == []
    assert list(tf.entries) == sorted(entries)
    # strings that YAML would read as booleans or dates stay strings
    assert tf.tags_for("- dash.jsonl").source == "yes"
    assert tf.tags_for("123.jsonl").source == "2026-03-22"


def test_saved_layout_is_plain_and_ordered(tmp_path):
    save(tmp_path, {"b.jsonl": {"source": "x", "confidence": "low", "trust": "owner"}, "a.jsonl": {"trust": "self"}})
    body = (tmp_path / TAG_FILE).read_text(encoding="utf-8")[len(HEADER):]
    assert body == "a.jsonl:\n  trust: self\nb.jsonl:\n  trust: owner\n  confidence: low\n  source: x\n"


def test_empty_entries_are_dropped_on_save(tmp_path):
    save(tmp_path, {"a.jsonl": {}, "b.jsonl": {"trust": "self"}})
    assert list(load(tmp_path).entries) == ["b.jsonl"]


def test_tags_for_is_case_insensitive_and_validates(tmp_path):
    write(tmp_path, "a.jsonl:\n  Trust: SELF\n  CONFIDENCE: High\nb.jsonl:\n  trust: bogus\n  confidence: low\n")
    tf = load(tmp_path)
    a = tf.tags_for("a.jsonl")
    assert (a.trust, a.confidence, a.status) == ("self", "high", "tagged")
    b = tf.tags_for("b.jsonl")
    assert b.trust is None and b.invalid == {"trust": "bogus"} and b.status == "invalid"
    assert tf.tags_for("nothing.jsonl").status == "untagged"


def test_malformed_yaml_is_an_error_naming_file_and_line(tmp_path):
    write(tmp_path, "a.jsonl:\n  trust: self\nb.jsonl:\n  trust: [unclosed\n  confidence: low\n")
    with pytest.raises(TagFileError) as info:
        load(tmp_path)
    message = str(info.value)
    assert TAG_FILE in message
    assert "line " in message
    assert isinstance(info.value, TachikomaError)


def test_malformed_yaml_line_number_is_right(tmp_path):
    write(tmp_path, "# comment\na.jsonl:\n  trust: self\n  confidence: low\n bad indentation: here\n")
    with pytest.raises(TagFileError, match=r"line 5"):
        load(tmp_path)


@pytest.mark.parametrize("text", ["a.jsonl:\n  trust: self\nb.jsonl: [unclosed\n",
                                  "a.jsonl:\n  trust: self\nb.jsonl: [unclosed",
                                  "a.jsonl:\n  trust: self\nb.jsonl: \"unclosed\n"])
def test_yaml_error_at_the_end_names_the_last_line(tmp_path, text):
    """PyYAML marks an error at the end of the text on the line after the last one; a 3-line file
    has no line 4."""
    write(tmp_path, text)
    with pytest.raises(TagFileError) as info:
        load(tmp_path)
    assert info.value.line == 3 and "line 3" in str(info.value)


def test_top_level_not_a_mapping_is_an_error(tmp_path):
    write(tmp_path, "- a.jsonl\n- b.jsonl\n")
    with pytest.raises(TagFileError, match="mapping"):
        load(tmp_path)


def test_duplicate_path_is_an_error(tmp_path):
    write(tmp_path, "a.jsonl:\n  trust: self\nb.jsonl:\n  trust: owner\na.jsonl:\n  confidence: low\n")
    with pytest.raises(TagFileError, match=r"line 5.*first at line 1"):
        load(tmp_path)


def test_non_mapping_entries_warn_and_survive_a_save(tmp_path):
    write(tmp_path, "a.jsonl: self\nb.jsonl:\n  trust: owner\nc.jsonl:\n")
    tf = load(tmp_path)
    assert list(tf.entries) == ["b.jsonl"]
    assert any("a.jsonl" in w and ":1:" in w for w in tf.warnings)
    assert any("c.jsonl" in w for w in tf.warnings)
    assert tf.tags_for("a.jsonl").status == "untagged"
    save(tmp_path, tf.all_entries())
    again = load(tmp_path)
    assert again.extra == {"a.jsonl": "self", "c.jsonl": None}
    assert again.entries == {"b.jsonl": {"trust": "owner"}}


def test_markdown_entries_are_ignored_with_warning_but_kept(tmp_path):
    write(tmp_path, "note.md:\n  trust: owner\n")
    tf = load(tmp_path)
    assert tf.tags_for("note.md").status == "untagged"
    assert any("note.md" in w and "front matter" in w for w in tf.warnings)
    save(tmp_path, tf.all_entries())
    assert load(tmp_path).entries == {"note.md": {"trust": "owner"}}


def test_unknown_keys_warn_and_are_kept(tmp_path):
    write(tmp_path, "a.jsonl:\n  trsut: self\n  confidence: low\n")
    tf = load(tmp_path)
    assert any("trsut" in w for w in tf.warnings)
    save(tmp_path, tf.all_entries())
    assert load(tmp_path).entries["a.jsonl"] == {"confidence": "low", "trsut": "self"}


def test_paths_outside_the_root_are_not_entries(tmp_path):
    write(tmp_path, "../x.jsonl:\n  trust: self\n/abs.jsonl:\n  trust: self\n")
    tf = load(tmp_path)
    assert tf.entries == {}
    assert len(tf.warnings) == 2
    assert set(tf.extra) == {"../x.jsonl", "/abs.jsonl"}


def test_stale_entries_are_kept_and_reported(tmp_path):
    touch(tmp_path, "here/a.jsonl")
    save(tmp_path, {"here/a.jsonl": {"trust": "self"}, "gone/b.jsonl": {"trust": "owner"}})
    tf = load(tmp_path)
    assert tf.stale() == ["gone/b.jsonl"]
    save(tmp_path, tf.all_entries())
    assert "gone/b.jsonl" in load(tmp_path).entries


def test_bom_is_accepted(tmp_path):
    (tmp_path / TAG_FILE).write_bytes("\ufeffa.jsonl:\n  trust: self\n".encode("utf-8"))
    assert load(tmp_path).tags_for("a.jsonl").trust == "self"


def test_saved_file_is_plain_yaml(tmp_path):
    save(tmp_path, {"a b/c.jsonl": {"trust": "self"}})
    data = yaml.safe_load((tmp_path / TAG_FILE).read_text(encoding="utf-8"))
    assert data == {"a b/c.jsonl": {"trust": "self"}}


def test_save_is_atomic_via_atomic_write(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(tagfile, "atomic_write_text", lambda path, text: calls.append(path))
    save(tmp_path, {"a.jsonl": {"trust": "self"}})
    assert calls == [tmp_path / TAG_FILE]


def test_aliased_entries_are_independent(tmp_path):
    write(tmp_path, "a.jsonl: &x {trust: self}\nb.jsonl: *x\nc.jsonl: {<<: *x, source: s}\n")
    tf = load(tmp_path)
    assert tf.entries["a.jsonl"] == tf.entries["b.jsonl"] == {"trust": "self"}
    tf.entries["a.jsonl"]["trust"] = "owner"
    assert tf.entries["b.jsonl"] == {"trust": "self"}
    assert tf.entries["c.jsonl"] == {"trust": "self", "source": "s"}


def test_backslash_is_an_ordinary_file_name_character(tmp_path):
    (tmp_path / "a\\b.jsonl").write_text("{}\n")
    save(tmp_path, {"a\\b.jsonl": {"trust": "self"}})
    tf = load(tmp_path)
    assert tf.warnings == [] and tf.extra == {}
    assert tf.tags_for("a\\b.jsonl").trust == "self"
    assert tf.stale() == []


@pytest.mark.parametrize("key", ["/abs.jsonl", "../up.jsonl", "a//b.jsonl", "./a.jsonl", "a/./b.jsonl", "a/"])
def test_paths_that_are_not_relative_are_still_refused(tmp_path, key):
    write(tmp_path, f"{key!r}: {{trust: self}}\n")
    tf = load(tmp_path)
    assert tf.entries == {} and key in tf.extra


def test_dates_and_yaml_1_1_booleans_are_text(tmp_path):
    write(tmp_path, "a.jsonl: {trust: self, source: no, date: 2026-13-01}\nb.jsonl: {source: 2026-02-30}\n")
    tf = load(tmp_path)
    assert tf.entries["a.jsonl"] == {"trust": "self", "source": "no", "date": "2026-13-01"}
    assert tf.tags_for("b.jsonl").source == "2026-02-30"
    assert tf.tags_for("a.jsonl").status == "partial"


def test_value_yaml_cannot_build_is_malformed(tmp_path):
    write(tmp_path, "a.jsonl: {trust: self}\nb.jsonl: {date: !!timestamp 2026-02-30}\n")
    with pytest.raises(TagFileError, match="line 2"):
        load(tmp_path)


def test_tag_given_twice_in_an_entry_warns(tmp_path):
    write(tmp_path, "a.jsonl:\n  trust: self\n  Trust: owner\n")
    tf = load(tmp_path)
    assert tf.tags_for("a.jsonl").trust == "owner"
    assert tf.warnings == [f"{TAG_FILE}:3: a.jsonl: trust is set more than once (trust at line 2, Trust at line 3); "
                           "the last one is used"]


def test_tag_file_symlinked_outside_the_root_is_neither_read_nor_written(tmp_path):
    from tachikoma.reading import tagfile as tf

    root = tmp_path / "memory"
    root.mkdir()
    outside = tmp_path / "outside.yaml"
    outside.write_text("a.jsonl:\n  trust: self\n")
    (root / tf.TAG_FILE).symlink_to(outside)
    with pytest.raises(tf.TagFileError, match="outside the memory folder"):
        tf.load(root)
    with pytest.raises(tf.TagFileError, match="outside the memory folder"):
        tf.save(root, {"b.jsonl": {"trust": "owner"}})
    assert outside.read_text() == "a.jsonl:\n  trust: self\n"
