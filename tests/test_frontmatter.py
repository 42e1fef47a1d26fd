import pytest

from tachikoma.frontmatter import YamlError, load_yaml, set_keys, split
from tachikoma.tags import INVALID, PARTIAL, Tags

# --------------------------------------------------------------------------- load_yaml


@pytest.mark.parametrize("text, expected", [
    ("a: no", "no"),
    ("a: No", "No"),
    ("a: on", "on"),
    ("a: OFF", "OFF"),
    ("a: yes", "yes"),
    ("a: y", "y"),
    ("a: true", True),
    ("a: False", False),
    ("a: TRUE", True),
    ("a: ~", None),
    ("a: 12", 12),
])
def test_booleans_are_yaml_1_2(text, expected):
    assert load_yaml(text).data == {"a": expected}


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-45", "2026-03-22T25:00:00", "2026-03-22",
                                   "2026-03-22 10:00:00 +02:00"])
def test_timestamps_stay_text(value):
    assert load_yaml(f"date: {value}").data == {"date": value}
    fm = split(f"---\ndate: {value}\n---\nbody\n")
    assert fm.error is None and fm.meta == {"date": value}


@pytest.mark.parametrize("written", ["no", "on", "true", "False", "1.0", "0x1F", "010", "1_000", "1:20", ".inf", "12"])
def test_source_keeps_the_text_as_written(written):
    fm = split(f"---\nsource: {written}\nSource2: {written}\n---\n")
    assert fm.meta["source"] == written
    tags = Tags.from_mapping({"source": fm.meta["source"]})
    assert tags.source == written and tags.status == PARTIAL


def test_source_in_a_nested_mapping_and_any_case_keeps_text():
    assert load_yaml("a.jsonl: {Source: no, trust: self}\nb.jsonl: {source: 3.10}").data == {
        "a.jsonl": {"Source": "no", "trust": "self"}, "b.jsonl": {"source": "3.10"}}


def test_source_no_is_not_an_invalid_tag():
    fm = split("---\ntrust: self\nconfidence: high\nsource: no\n---\n")
    tags = Tags.from_mapping(fm.meta)
    assert tags.source == "no" and tags.status != INVALID and not tags.invalid


@pytest.mark.parametrize("value, line", [
    ("!!int abc", 3),
    ("!!timestamp 2026-02-30", 3),
    ("!!timestamp 2026-13-45", 3),
    ("!!float x", 3),
])
def test_values_yaml_cannot_build_are_malformed_not_a_crash(value, line):
    fm = split(f"---\ntitle: t\nbad: {value}\n---\nbody\n")
    assert fm.error is not None and fm.error.startswith(f"malformed front matter at line {line}:")
    assert fm.meta == {} and fm.body == "body\n"
    with pytest.raises(YamlError) as info:
        load_yaml(f"title: t\nbad: {value}")
    assert info.value.line == 2


def test_syntax_error_line_numbers():
    fm = split("---\ntitle: ok\ntags: [oops\n---\nbody\n")
    assert fm.error.startswith("malformed front matter at line ")
    with pytest.raises(YamlError):
        load_yaml("a: [")


@pytest.mark.parametrize("text, trust", [
    ("trust: a\nTrust: b", "b"),
    ("Trust: a\ntrust: b", "b"),
    ("trust: a\nTrust: b\ntrust: c", "c"),  # PyYAML alone would keep "trust" in its first place and read "b"
])
def test_the_value_written_last_counts(text, trust):
    fm = split(f"---\n{text}\n---\n")
    lowered = {str(k).lower(): v for k, v in fm.meta.items()}
    assert lowered["trust"] == trust


# --------------------------------------------------------------------------- set_keys / remove_keys


def test_set_keys_values_that_look_like_other_types_read_back_as_text():
    for value in ("no", "on", "2026-03-22", "1.0", "true", "null"):
        out = set_keys("---\n---\n", {"source": value})
        assert split(out).meta == {"source": value}
