import pytest

from tachikoma.reading.frontmatter import remove_keys, set_keys, split
from tachikoma.reading.yaml_rules import YamlError, load_yaml
from tachikoma.reading.tags import INVALID, PARTIAL, Tags

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


def test_key_lines_and_duplicate_keys():
    fm = split("---\ntrust: owner\ntitle: x\nTrust: self\n---\nbody\n")
    assert fm.error is None
    assert fm.key_lines == [("trust", 2), ("title", 3), ("Trust", 4)]
    assert fm.duplicate_keys() == {"trust": [("trust", 2), ("Trust", 4)]}
    assert fm.duplicate_keys(["source"]) == {}
    assert fm.duplicate_problem(["trust"]) == "front matter: trust is set more than once (trust at line 2, Trust at line 4)"
    exact = split("---\nsource: a\nsource: b\n---\n")
    assert exact.duplicate_keys() == {"source": [("source", 2), ("source", 3)]}
    assert split("---\ntrust: owner\n---\n").duplicate_problem() is None


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


@pytest.mark.parametrize("text", [
    "---\ntrust: owner\nTrust: self\n---\nbody\n",
    "---\ntrust: owner\ntrust: self\n---\nbody\n",
    "---\nTRUST: owner\ntitle: t\ntrust_note: x\ntrust: self\n---\nbody\n",
])
def test_set_and_remove_refuse_a_key_set_twice(text):
    with pytest.raises(ValueError, match="trust is set more than once"):
        set_keys(text, {"trust": "external"})
    with pytest.raises(ValueError, match="trust is set more than once"):
        remove_keys(text, ["trust"])


def test_set_keys_leaves_other_repeated_keys_alone():
    text = "---\ntitle: a\ntitle: b\n---\nbody\n"
    assert set_keys(text, {"trust": "self"}) == "---\ntitle: a\ntitle: b\ntrust: self\n---\nbody\n"


def test_set_keys_refuses_to_write_a_second_spelling():
    # A quoted key is not recognised as a key line; appending would set trust twice. Said so (session 46).
    with pytest.raises(ValueError, match="line 2 sets trust in a form tachikoma does not change"):
        set_keys('---\n"trust": owner\n---\nbody\n', {"trust": "external"})


def test_set_keys_replaces_a_case_variant_key_in_place():
    assert set_keys("---\nTrust: owner\ntitle: t\n---\nb\n", {"trust": "self"}) == "---\ntrust: self\ntitle: t\n---\nb\n"


@pytest.mark.parametrize("text, expected", [
    ("---\nsource: |\n  a\n  b\n---\nx", "---\nsource: new\n---\nx"),
    ("---\nsource: |\n  a\n\n  b\ntitle: t\n---\nx", "---\nsource: new\ntitle: t\n---\nx"),
    ("---\nsource: |\n  a\n  b\n\n---\nx", "---\nsource: new\n---\nx"),
    ("---\nsource: >-\n  a\n\n\n  b\n\ntitle: t\n---\nx", "---\nsource: new\n\ntitle: t\n---\nx"),
    ("---\nsource:\n- a\n- b\ntitle: t\n---\nx", "---\nsource: new\ntitle: t\n---\nx"),
    ("---\nsource: x\n\n---\nx", "---\nsource: new\n\n---\nx"),
    ("---\r\nsource: |\r\n  a\r\n\r\n  b\r\n---\r\nx", "---\r\nsource: new\r\n---\r\nx"),
])
def test_replacing_a_multi_line_value_leaves_no_stray_lines(text, expected):
    assert set_keys(text, {"source": "new"}) == expected


def test_a_file_without_final_newline_gains_none():
    assert set_keys("---\ntitle: x\n---", {"trust": "self"}) == "---\ntitle: x\ntrust: self\n---"
    assert set_keys("---\ntrust: owner\n---", {"trust": "self"}) == "---\ntrust: self\n---"
    assert set_keys("---\n---", {"trust": "self"}) == "---\ntrust: self\n---"
    assert set_keys("body", {"trust": "self"}) == "---\ntrust: self\n---\nbody"


def test_set_keys_splits_lines_only_at_newlines():
    text = "---\ntitle: \"a\u2028trust: b\"\ntrust: owner\n---\nbody\n"
    assert set_keys(text, {"trust": "self"}) == "---\ntitle: \"a\u2028trust: b\"\ntrust: self\n---\nbody\n"


def test_set_keys_values_that_look_like_other_types_read_back_as_text():
    for value in ("no", "on", "2026-03-22", "1.0", "true", "null"):
        out = set_keys("---\n---\n", {"source": value})
        assert split(out).meta == {"source": value}
