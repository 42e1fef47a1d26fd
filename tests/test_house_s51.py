"""Session 51's house-keeping: one home for each idea that had several, each with the behaviour that changed."""

import pytest

from tachikoma.config import load_config
from tachikoma.errors import TachikomaError
from tachikoma.globs import pattern_error, scope_error
from tachikoma.reading.tags import InvalidTagValue
from tachikoma.tagging.model import Selector
from tachikoma.vocabulary import MAX_PATTERN_CHARS
from tachikoma.web.forms import TagForm

from test_daily_use import run as cli_run

LONG = "notes/" + "a" * (MAX_PATTERN_CHARS - 5)  # one character over the limit


# --------------------------------------------------------------------------- 1. one check of a path pattern


def test_tag_path_is_held_to_the_pattern_length_every_other_face_holds(memory):
    """`search --path`, MCP's ``path``, the dashboard's tag form and ``[index] exclude`` held a folder or glob to
    4,096 characters; `tachikoma tag --path` (the tagging selector, which checked only `globs.pattern_error`) took
    any length and said "nothing to tag". It is now refused as a mistyped command line, exit 2, in the words
    `search --path` uses, and nothing is written. Failed before (exit 0)."""
    assert len(LONG) == MAX_PATTERN_CHARS + 1
    before = (memory / "martin.md").read_bytes()
    said = f"is {MAX_PATTERN_CHARS + 1:,} characters long; the limit is {MAX_PATTERN_CHARS:,}"
    code, out, err = cli_run("--memory", str(memory), "tag", "--path", LONG, "--trust", "self")
    assert code == 2 and out == "" and "argument --path: 'notes/aaa" in err and said in err, err
    code, _, err = cli_run("--memory", str(memory), "search", "Martin", "--path", LONG)
    assert code == 2 and said in err, err
    with pytest.raises(InvalidTagValue, match=said):  # the selector the dashboard and the API build, too
        Selector(pattern=("notes/", LONG))
    assert (memory / "martin.md").read_bytes() == before
    at_limit = LONG[:-1]
    assert pattern_error(at_limit) is None and Selector(pattern=at_limit).patterns == (at_limit,)


@pytest.mark.parametrize("pattern", ["", "  ", ".", "./"])
def test_tag_path_naming_no_folder_or_the_whole_memory_is_refused_for_all(memory, pattern):
    """`tag` tags every file only when told --all; `--path ""` (or ".") matched every file and tagged the whole
    memory without it. Now a usage error naming --all, exit 2, nothing written. Failed before (exit 0)."""
    before = (memory / "martin.md").read_bytes()
    code, out, err = cli_run("--memory", str(memory), "tag", "--path", pattern, "--trust", "self")
    assert code == 2 and out == "" and "--all" in err, err
    assert (memory / "martin.md").read_bytes() == before


@pytest.mark.parametrize("pattern", [LONG, "notes/../x", "[z-a]*.md"])
def test_a_bad_pattern_is_said_in_the_same_words_on_every_face(memory, pattern):
    """The length was said four ways ("index.exclude[0] is longer than …", "path: a folder or glob is at most …",
    "the path or pattern is … characters long"; nothing on `tag --path`). Every face now says `globs.pattern_error`'s
    sentence after its own prefix. Failed before for the long pattern."""
    said = pattern_error(pattern)
    assert said
    assert scope_error([pattern]) == f"path: {said}"
    form = TagForm(path=pattern, trust="self")
    assert form.parse() is None and form.errors["path"] == said
    (memory / "tachikoma.toml").write_text(f'[index]\nexclude = ["{pattern}"]\n', encoding="utf-8")
    with pytest.raises(TachikomaError) as caught:
        load_config(memory)
    assert str(caught.value).endswith(f"index.exclude: {said}")
    code, _, err = cli_run("--memory", str(memory), "tag", "--path", pattern, "--trust", "self")
    assert code == 2 and err.rstrip().endswith(f"argument --path: {said}"), err


def test_an_evergreen_pattern_is_held_to_the_same_length(memory):
    """``[ranking] evergreen`` checked its globs with `pattern_error` but no length: a settings file could hold a
    pattern of any size, matched on every cold search. It is held to the same bound. Failed before."""
    (memory / "tachikoma.toml").write_text(f'[ranking]\nevergreen = ["MEMORY.md", "{LONG}"]\n', encoding="utf-8")
    with pytest.raises(TachikomaError, match=f"ranking.evergreen: 'notes/a+'… is {MAX_PATTERN_CHARS + 1:,} characters"):
        load_config(memory)


def test_only_exclude_refuses_the_whole_memory(memory):
    """"./" leaves nothing to index, so ``[index] exclude`` refuses it; as a tag selector or a search's folder it
    is the whole memory, as before."""
    assert pattern_error("./", whole_memory=False) == "'./' is the whole memory folder, not a folder or file in it"
    assert pattern_error("./") is None and scope_error(["/"]) is None


@pytest.mark.parametrize("pattern", ["*", "**", "**/*", "/**", "**/*.*"])
def test_a_glob_matching_every_file_is_the_whole_memory_to_exclude_and_to_tag(memory, pattern):
    """``[index] exclude = ["**"]`` emptied the index with no error where "./" was refused, and `tag --path '**'`
    tagged every file without --all. Both are refused now, naming the whole memory; a glob leaving some files
    is not. Failed before."""
    (memory / "tachikoma.toml").write_text(f'[index]\nexclude = ["{pattern}"]\n', encoding="utf-8")
    with pytest.raises(TachikomaError, match="matches every file, the whole memory folder"):
        load_config(memory)
    (memory / "tachikoma.toml").unlink()
    before = (memory / "martin.md").read_bytes()
    code, _, err = cli_run("--memory", str(memory), "tag", "--path", pattern, "--trust", "self")
    assert code == 2 and "--all" in err, err
    assert (memory / "martin.md").read_bytes() == before
    assert pattern_error("*.md", whole_memory=False) is None and pattern_error("*/**", whole_memory=False) is None


# --------------------------------------------------------------------------- 3. a symlinked note's page


def test_a_symlinked_notes_page_redirects_without_reading_either_file(memory, monkeypatch):
    """The file page of `alias.md -> martin.md` read the whole note (front matter, text, secrets redacted) and then
    threw it away to redirect to martin.md's page: a large note was read twice for one page, and one that could not
    be read was an error where the redirect was due. The page now knows where to go from the path alone. Failed
    before (one read of the alias)."""
    from tachikoma.web import memory_file
    from tachikoma_dashboard.app import create_app

    from test_app import make_client

    read = []
    real_read = memory_file.read_document
    monkeypatch.setattr(memory_file, "read_document", lambda root, rel, *a, **k: read.append(rel) or
                        real_read(root, rel, *a, **k))
    (memory / "inbox" / "alias.md").symlink_to(memory / "martin.md")
    app = create_app(memory=memory, port=5000)
    try:
        client = make_client(app)
        response = client.get("/file/inbox/alias.md?lines=7-9")
        assert response.status_code == 302 and response.headers["Location"].endswith("/file/martin.md?lines=7-9")
        assert read == []
        assert client.get("/file/martin.md?lines=7-9").status_code == 200 and read == ["martin.md"]
        (memory / "tachikoma.toml").write_text('[index]\nexclude = ["martin.md"]\n', encoding="utf-8")
        refused = client.get("/file/inbox/alias.md")  # refused through the symlink, as before, not redirected
        assert refused.status_code == 403 and "left out of the memory" in refused.get_data(as_text=True)
        assert read == ["martin.md"]
    finally:
        app.extensions["tachikoma"].close()


# --------------------------------------------------------------------------- 4. MCP tag and [index] exclude


@pytest.fixture
def excluding(memory):
    (memory / "Templates").mkdir()
    (memory / "Templates" / "daily.md").write_text("# {{date}}\n\nThe daily template.\n", encoding="utf-8")
    (memory / "Archive").mkdir()
    (memory / "inbox" / "alias.md").symlink_to(memory / "Templates" / "daily.md")
    (memory / "Archive" / "link.md").symlink_to(memory / "martin.md")
    (memory / "tachikoma.toml").write_text('[index]\nexclude = ["Templates/", "Archive/**"]\n', encoding="utf-8")
    return memory


def test_mcp_tag_refuses_an_excluded_file_by_the_plans_check_naming_the_pattern(excluding):
    """MCP `tag` refused an excluded file itself, then the tagging plan, which every face shares, checked the same
    paths again. The plan's check is now the only one, and MCP's refusal is made from it: in the same words as
    before, naming the path the agent gave (a symlink too) and the pattern, with nothing written."""
    from mcp_helpers import run_tools

    before = {rel: (excluding / rel).read_bytes() for rel in ("martin.md", "Templates/daily.md")}
    answers = run_tools(excluding, ("tag", {"paths": ["martin.md", "Templates/daily.md"], "trust": "self"}),
                        ("tag", {"paths": ["inbox/alias.md"], "trust": "self"}))
    said = "is left out of the memory by [index] exclude ('Templates/'): not tagged"
    (error, text, _), (alias_error, alias_text, _) = answers
    assert error and text.endswith(f": 'Templates/daily.md' {said}"), text
    assert alias_error and alias_text.endswith(f": 'inbox/alias.md' {said}"), alias_text
    assert {rel: (excluding / rel).read_bytes() for rel in before} == before


def test_mcp_tag_through_a_symlink_in_an_excluded_folder_tags_the_note_as_the_command_line_does(excluding):
    """`Archive/link.md -> martin.md`, Archive/ left out: `tachikoma tag Archive/link.md` tagged martin.md (the
    note the link stands for is memory), while MCP's own check refused the link by its path. With the plan's check
    alone, MCP tags martin.md too, saying it followed the symlink. Failed before (refused)."""
    from mcp_helpers import run_tools

    code, out, _ = cli_run("--memory", str(excluding), "tag", "Archive/link.md", "--confidence", "low", "--overwrite",
                           "--dry-run")
    assert code == 0 and out.startswith("martin.md: ") and "1 file would change" in out, out
    [(error, text, done)] = run_tools(excluding, ("tag", {"paths": ["Archive/link.md"], "confidence": "low"}))
    assert not error and "Archive/link.md is a symlink: tagged martin.md." in text, text
    assert done["symlinks"] == [{"path": "Archive/link.md", "target": "martin.md"}]
    assert "confidence: low" in (excluding / "martin.md").read_text()
