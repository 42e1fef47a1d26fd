"""Issue 16, items 7-9: hostile things in the memory folder are reported, never hang or crash a walk.

A FIFO or socket named like a memory file, a folder nested a thousand levels
deep and a YAML alias bomb in front matter: index, stats and tag report each
one as a problem (with a kind) and handle the rest of the memory.
"""

import os
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from tachikoma.reading import frontmatter, yaml_rules
from tachikoma import memory as mem, stats
from tachikoma.indexer import runner
from tachikoma.tagging import applying, model, planning

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and sockets are POSIX")


def note(root, rel, text="# note\nsome words about cats\n"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def deep_folder(root, levels):
    """`levels` folders nested under root/deep with a note at the bottom, made one step at a time
    (one absolute path that long is more than a system call takes)."""
    cwd = os.getcwd()
    (root / "deep").mkdir(parents=True)
    try:
        os.chdir(root / "deep")
        for _ in range(levels):
            os.mkdir("d")
            os.chdir("d")
        with open("bottom.md", "w") as out:
            out.write("# bottom\n")
    finally:
        os.chdir(cwd)


def run_with_timeout(function, seconds=20):
    """`function()` in a thread; fails the test instead of hanging it (a FIFO opened for reading blocks)."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{function} still running after {seconds} s (blocked on a FIFO?)"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# --------------------------------------------------------------------------- 7: FIFOs and sockets


@pytest.fixture
def with_fifo(tmp_path):
    root = tmp_path / "memory"
    note(root, "ok.md")
    os.mkfifo(root / "pipe.md")
    return root


def test_walk_reports_a_fifo_named_like_a_note(with_fifo):
    warnings = []
    found = [f.path for f in mem.walk(with_fifo, warnings.append)]
    assert found == ["ok.md"]
    assert warnings == ["pipe.md: not a regular file (a FIFO), skipped"]


def test_walk_reports_a_socket_named_like_a_transcript(tmp_path):
    root = tmp_path / "m"
    note(root, "ok.md")
    # AF_UNIX paths are short (108 bytes): bind from inside the folder.
    cwd = os.getcwd()
    server = socket.socket(socket.AF_UNIX)
    try:
        os.chdir(root)
        server.bind("session.jsonl")
    finally:
        os.chdir(cwd)
    try:
        warnings = []
        assert [f.path for f in mem.walk(root, warnings.append)] == ["ok.md"]
        assert warnings == ["session.jsonl: not a regular file (a socket), skipped"]
    finally:
        server.close()


def test_stats_and_index_report_the_fifo_with_a_kind(with_fifo):
    result = run_with_timeout(lambda: stats.coverage(with_fifo))
    assert {"path": "pipe.md", "reason": "not a regular file (a FIFO), skipped", "kind": "not-a-file"} \
        in result["problems"]
    summary = run_with_timeout(lambda: runner.run(with_fifo, embedder_name="hash"))
    assert summary.added == 1
    assert "pipe.md: not a regular file (a FIFO), skipped" in summary.warnings


def test_tag_names_the_fifo_as_matched_and_skipped(with_fifo):
    plan = run_with_timeout(lambda: planning.plan(with_fifo, {"trust": "owner"},
                                                  model.Selector(paths={"pipe.md"})))
    assert plan.matched == 1 and not plan.changes
    assert [(s.path, s.reason) for s in plan.skipped] == [("pipe.md", "not a regular file (a FIFO)")]


def test_a_file_replaced_by_a_fifo_after_the_walk_is_refused_not_waited_on(with_fifo):
    with pytest.raises(mem.NotRegularFile, match="FIFO"):
        run_with_timeout(lambda: mem.open_regular(with_fifo / "pipe.md"))
    with pytest.raises(OSError, match="FIFO"):
        run_with_timeout(lambda: frontmatter.read_front_matter(with_fifo / "pipe.md"))
    from tachikoma.reading.reader import read_document
    doc = run_with_timeout(lambda: read_document(with_fifo, "pipe.md", "markdown"))
    assert doc.sha256 is None and doc.warnings == ["pipe.md: not a regular file (a FIFO), skipped"]


# --------------------------------------------------------------------------- 9: deep folders


@pytest.fixture
def deep_tmp():
    """A folder outside pytest's own temporary folders, removed by `rm -rf` (which does not recurse on
    the stack): pytest's clean-up of old runs, shutil.rmtree on Python < 3.12, dies with RecursionError
    on a thousand levels, in this session and in every later one."""
    top = Path(tempfile.mkdtemp(prefix="tachikoma-deep-"))
    yield top
    subprocess.run(["rm", "-rf", str(top)], check=True)


@pytest.fixture
def deep_memory(deep_tmp):
    root = deep_tmp / "memory"
    note(root, "ok.md")
    note(root, "zz/later.md")
    deep_folder(root, 1000)
    return root


def test_a_folder_nested_a_thousand_deep_is_reported_and_the_rest_indexed(deep_memory):
    warnings, unlisted = [], []
    found = [f.path for f in mem.walk(deep_memory, warnings.append, unlisted)]
    assert found == ["ok.md", "zz/later.md"]
    too_deep = "deep" + "/d" * mem.MAX_DEPTH
    assert warnings == [f"{too_deep}: folder nested more than {mem.MAX_DEPTH} levels deep, not read "
                        "(move its files higher up to index them)"]
    assert unlisted == [too_deep]

    summary = runner.run(deep_memory, embedder_name="hash")
    assert summary.added == 2
    problems = stats.coverage(deep_memory)["problems"]
    assert [(p["path"], p["kind"]) for p in problems] == [(too_deep, "too-deep")]
    plan = planning.plan(deep_memory, {"trust": "owner"})
    assert sorted(c.path for c in plan.changes) == ["ok.md", "zz/later.md"]


def test_a_note_just_within_the_depth_limit_is_read(deep_tmp):
    root = deep_tmp / "memory"
    deep_folder(root, mem.MAX_DEPTH - 1)
    warnings = []
    found = [f.path for f in mem.walk(root, warnings.append)]
    assert found == ["deep" + "/d" * (mem.MAX_DEPTH - 1) + "/bottom.md"] and warnings == []


# --------------------------------------------------------------------------- 8: YAML alias bombs


def alias_bomb(levels: int, key: str = "a") -> str:
    """Ten short lines of YAML that expand to 9**(levels+1) values when every alias is followed."""
    lines = [f"{key}0: &{key}0 [" + ", ".join(["lol"] * 9) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"{key}{level}: &{key}{level} [" + ", ".join([f"*{key}{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


BOMB_NOTE = "---\ntrust: owner\n" + alias_bomb(9) + "---\n# Bomb\nwords after the bomb\n"


def test_front_matter_alias_bomb_is_malformed_not_expanded():
    fm = frontmatter.split(BOMB_NOTE)
    # Plain values only in the asserts: pytest would print a bomb it was handed, expanding it.
    error, body, nothing_read = fm.error, fm.body, fm.meta == {}
    assert error is not None and error.startswith("malformed front matter: aliases (*name) would expand it to ")
    assert nothing_read and body == "# Bomb\nwords after the bomb\n"


def test_a_value_that_contains_itself_is_malformed():
    fm = frontmatter.split("---\ntitle: x\nloop: &l [1, *l]\n---\nbody\n")
    error = fm.error
    assert error == ("malformed front matter at line 3: an alias refers to a value that "
                                          "contains it; not read")


def test_ordinary_aliases_and_merge_keys_still_read():
    fm = frontmatter.split("---\nbase: &b {x: 1, y: 2}\nother:\n  <<: *b\n  z: 3\nrefs: [*b, *b]\n---\nhi\n")
    assert fm.error is None
    assert fm.meta["other"] == {"x": 1, "y": 2, "z": 3} and fm.meta["refs"] == [{"x": 1, "y": 2}] * 2


def test_aliases_may_add_up_to_the_budget():
    # 100 * 100 values through aliases are within the budget; twice as many more are over it.
    row = "r: &r [" + ", ".join(["v"] * 99) + "]\n"
    table = "t: &t [" + ", ".join(["*r"] * 100) + "]\n"
    assert yaml_rules.load_yaml(row + table).data["t"][99][98] == "v"
    raised = None
    try:
        yaml_rules.load_yaml(row + table + "u: [" + ", ".join(["*t"] * 2) + "]\n")
    except yaml_rules.YamlError as exc:
        raised = str(exc)
    assert raised is not None and "would expand it to 30,108 values" in raised


def test_bomb_in_a_note_is_a_front_matter_problem_for_index_stats_and_tag(tmp_path):
    root = tmp_path / "memory"
    note(root, "ok.md")
    note(root, "bomb.md", BOMB_NOTE)
    summary = run_with_timeout(lambda: runner.run(root, embedder_name="hash"))
    assert summary.added == 2
    assert any(w.startswith("bomb.md:1: malformed front matter: aliases") for w in summary.warnings)
    problems = run_with_timeout(lambda: stats.coverage(root))["problems"]
    assert [(p["path"], p["kind"]) for p in problems] == [("bomb.md", "front-matter")]
    plan = run_with_timeout(lambda: planning.plan(root, {"trust": "self"}, model.Selector(paths={"bomb.md"})))
    assert plan.matched == 1 and not plan.changes and "aliases" in plan.skipped[0].reason


def test_bomb_in_the_tag_file_is_a_tag_file_error(tmp_path):
    from tachikoma.reading import tagfile

    root = tmp_path / "memory"
    note(root, "ok.md")
    (root / mem.TAG_FILE).write_text(alias_bomb(9))
    with pytest.raises(tagfile.TagFileError, match="aliases"):
        run_with_timeout(lambda: tagfile.load(root))


def test_file_page_shows_bomb_and_huge_values_bounded(tmp_path):
    from tachikoma_dashboard.app import create_app

    root = tmp_path / "memory"
    note(root, "bomb.md", "---\n" + alias_bomb(6) + "---\n# Bomb\nbody\n")
    # Within the alias budget but large when written out: 9 * 9 * 100 values.
    note(root, "wide.md", "---\nrow: &r [" + ", ".join(["word"] * 100) + "]\nsq: &s [" + ", ".join(["*r"] * 9)
         + "]\ncube: [" + ", ".join(["*s"] * 9) + "]\nlong: " + "y" * 5000 + "\n---\n# Wide\nbody\n")
    runner.run(root, embedder_name="hash")
    client = create_app(memory=root, port=5000).test_client()
    for name in ("bomb.md", "wide.md"):
        response = run_with_timeout(lambda: client.get(f"/file/{name}", base_url="http://127.0.0.1:5000"))
        html = response.get_data(as_text=True)
        assert response.status_code == 200, html[:500]
        assert len(html) < 60_000, f"{name}: {len(html):,} characters"
    html = client.get("/file/bomb.md", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert "aliases (*name) would expand it to" in html


def test_tagging_a_note_that_became_a_fifo_after_the_plan_skips_it_at_once(tmp_path):
    """Regression (issue 16 leftover): the final write opened the note with a plain open, so a FIFO put in
    its place between the plan and the write blocked `tag` until a writer came."""
    root = tmp_path / "memory"
    path = note(root, "swapped.md")
    plan = planning.plan(root, {"trust": "owner"}, model.Selector(paths={"swapped.md"}))
    assert [c.path for c in plan.changes] == ["swapped.md"]
    path.unlink()
    os.mkfifo(path)
    try:
        applied = run_with_timeout(lambda: applying.apply(root, plan, commit=False), seconds=10)
    finally:  # the old code is still blocked in open(): a writer end lets its thread go
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert not applied.changes
    assert [(s.path, s.reason) for s in applied.skipped] == [("swapped.md", "cannot read (not a regular file: a FIFO)")]
