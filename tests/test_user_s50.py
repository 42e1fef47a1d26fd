"""What session 50's demanding user found at the edges of tagging: a source as long as a page on two faces and none
on the third, and a folder outside the memory that "matched no file"."""

import pytest

from tachikoma.globs import pattern_error
from tachikoma.reading.tags import InvalidTagValue, check_value
from tachikoma.vocabulary import MAX_SOURCE_CHARS

from test_daily_use import run as cli_run


def test_a_source_is_as_long_on_every_face_as_mcp_allows(memory):
    """MCP held `source` to 200 characters; `tachikoma tag --source` and the dashboard wrote 20 KB into a note's
    front matter and the commit subject. Every face checks a source with `check_value`, which now holds it to
    `MAX_SOURCE_CHARS`. Failed before."""
    assert check_value("source", "s" * MAX_SOURCE_CHARS) == "s" * MAX_SOURCE_CHARS
    with pytest.raises(InvalidTagValue, match=f"{MAX_SOURCE_CHARS + 1} characters, at most {MAX_SOURCE_CHARS}"):
        check_value("source", "s" * (MAX_SOURCE_CHARS + 1))
    before = (memory / "martin.md").read_bytes()
    code, _, err = cli_run("--memory", str(memory), "tag", "martin.md", "--source", "x" * 20_000)
    assert code == 2 and f"at most {MAX_SOURCE_CHARS}" in err
    assert (memory / "martin.md").read_bytes() == before


@pytest.mark.parametrize("pattern", ["../", "../other/*.md", "notes/../../x", "..\\x"])
def test_a_folder_outside_the_memory_is_said_to_be_outside_not_to_match_nothing(memory, pattern):
    """`tachikoma tag --path ../ --trust self` exited 0 saying no file matched, where a FILE outside the memory is an
    error: a folder or glob that climbs out of the memory can match nothing in it. Every face that reads such
    patterns (tag, search, the settings) says so. Failed before."""
    assert "points outside the memory folder" in pattern_error(pattern)
    code, _, err = cli_run("--memory", str(memory), "tag", "--path", pattern, "--trust", "self", "--dry-run")
    assert code != 0 and "points outside the memory folder" in err
    code, _, err = cli_run("--memory", str(memory), "search", "Martin", "--path", pattern)
    assert code == 2 and "points outside the memory folder" in err
    assert pattern_error("notes/..x/*.md") is None and pattern_error("/notes/") is None  # a name, the root
