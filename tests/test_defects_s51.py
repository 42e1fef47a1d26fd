"""Session 51: defects seen in use, each against real files (and, where it matters, the real embedded PostgreSQL).

1. An agent's budgeted reply from one memory of a shared (PostgreSQL) store named that memory on every passage's
   source line (``[notes] martin.md:7-17 …``) and in every passage's JSON: tokens an agent pays for and learns
   nothing from. The memory is named only when the search covered several (the answer's ``memories``).
2. A file whose name is stored decomposed (NFD, as macOS writes ``café.md``) was not found by MCP `read` and `tag`,
   `tachikoma tag FILE` or `--path` when the name was typed composed (NFC), and the other way round.
3. A budget over the limit was refused, on MCP, in 754 characters.
4c. A budgeted reply quoted Logseq's ``id:: <uuid>`` and ``collapsed:: true`` lines, which the chunker leaves out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata

import pytest

from example_memory import example_and_runbook
from mcp_helpers import tree_env
from tachikoma.store import STORE_ENV

QUERY = "what does Martin prefer for meetings"

# --------------------------------------------------------------------------- 1. one memory of a shared store


@pytest.fixture
def shared(tmp_path, url, monkeypatch):
    """The example memory ("notes") and a runbook ("operations"), indexed into one PostgreSQL database."""
    monkeypatch.setenv(STORE_ENV, url)
    notes, _ops = example_and_runbook(tmp_path)
    return notes, url


def test_one_memory_of_a_shared_store_is_not_named_on_every_passage(shared):
    """`search --budget` (the block and its JSON) and MCP's search (its text and structured content) of one memory
    said ``[notes]`` before every passage's source and ``"memory":"notes"`` in every passage. Failed before."""
    from tachikoma.mcp_answers import answer_text
    from tachikoma.mcp_server import MemoryTools

    notes, url = shared
    run = lambda *a: subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(notes), *a],  # noqa: E731
                                    capture_output=True, text=True, env=tree_env(**{STORE_ENV: url}), timeout=300)
    block = run("search", QUERY, "--budget", "600", "--in-process")
    assert block.returncode == 0, block.stderr
    assert "— martin.md:" in block.stdout and "[notes]" not in block.stdout, block.stdout
    as_json = run("search", QUERY, "--budget", "600", "--json", "--in-process")
    assert as_json.returncode == 0, as_json.stderr
    passages = json.loads(as_json.stdout)["budget"]["passages"]
    assert passages and all("memory" not in p for p in passages), passages
    tools = MemoryTools(notes, watch=False)
    try:
        answer = tools.search(QUERY)  # the server's budget
        assert answer["budget"]["passages"] and "[notes]" not in answer_text(answer)
        whole = tools.search(QUERY, 3, budget_tokens=0)  # whole results, as an agent reads them
        assert "[notes]" not in answer_text(whole)
        # Several memories: each passage says whose it is, in the text and the JSON.
        both = tools.search("restart the quokka service", min_score=0, memories=["notes", "operations"])
        assert "[operations] runbook.md" in answer_text(both)
        assert {p["memory"] for p in both["budget"]["passages"]} >= {"operations"}
    finally:
        tools.close()


# --------------------------------------------------------------------------- 3. a budget over the limit


def test_a_budget_over_the_limit_is_refused_in_one_short_line(tmp_path):
    """MCP's search refused `budget_tokens: 200000` in 754 characters: pydantic's "less than or equal to 100000" and
    then the argument's whole description. A value over its maximum is told the maximum alone, on every face.
    Failed before (MCP's length)."""
    from example_memory import indexed_example
    from mcp_helpers import run_tools
    from tachikoma_dashboard.app import create_app

    mem = indexed_example(tmp_path / "mem")
    (error, text, _), (_, limit_text, _) = run_tools(mem, ("search", {"query": "x", "budget_tokens": 200_000}),
                                                      ("search", {"query": "x", "limit": 500}))
    assert error and text == ("invalid arguments for search: budget_tokens: at most 100,000, got 200000. "
                              "Correct them and call search again."), text
    assert "limit: at most 100, got 500." in limit_text and len(limit_text) < 120, limit_text
    api = create_app(memory=mem, port=5000, watch=False).test_client().get(
        "/api/search", base_url="http://127.0.0.1:5000", query_string={"q": "x", "budget_tokens": "200000"})
    assert api.status_code == 400 and "100,000" in api.get_json()["error"] and len(api.get_json()["error"]) < 80
    cli = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "search", "x", "--budget", "200000"],
                         capture_output=True, text=True, env=tree_env(), timeout=120)
    assert cli.returncode == 2 and cli.stderr.splitlines()[-1].endswith("is not a whole number from 1 to 100,000")


# --------------------------------------------------------------------------- 2. a name in either normalisation

FOLDER, NAME = "Réunions", "café.md"
NOTE = "---\ntrust: owner\n---\n# Café\n\nThe espresso machine on floor 3 descales every Friday.\n"


def spelt(form: str, text: str) -> str:
    return unicodedata.normalize(form, text)


@pytest.mark.parametrize("stored, typed", [("NFD", "NFC"), ("NFC", "NFD")])
def test_a_name_typed_in_the_other_normalisation_reaches_the_file(tmp_path, stored, typed):
    """`Réunions/café.md` stored in one normalisation and typed in the other: MCP `read` said it is not a memory
    file, MCP `tag` and `tachikoma tag FILE` refused it, and `search --path` (a folder or the file) found nothing.
    Failed before (every face, both ways)."""
    from example_memory import copy_example
    from mcp_helpers import run_tools
    from tachikoma.indexer import runner

    mem = copy_example(tmp_path / "mem")  # the example memory, and beside its notes:
    (mem / spelt(stored, FOLDER)).mkdir()
    (mem / spelt(stored, FOLDER) / spelt(stored, NAME)).write_text(NOTE, encoding="utf-8")
    (mem / "other.md").write_text("# Other\n\nThe espresso beans come from a roaster in Munich.\n", encoding="utf-8")
    runner.run(mem, embedder_name="hash")
    on_disk, given = f"{spelt(stored, FOLDER)}/{spelt(stored, NAME)}", f"{spelt(typed, FOLDER)}/{spelt(typed, NAME)}"
    assert on_disk != given and not (mem / given).exists()  # two spellings on Linux: one file, one nothing
    (read_error, read_text, _), (tag_error, tag_text, tagged) = run_tools(
        mem, ("read", {"path": given}), ("tag", {"paths": [given], "confidence": "high"}), allow_owner_trust=False)
    assert not read_error and "descales every Friday" in read_text, read_text
    assert not tag_error and [c["path"] for c in tagged["changed"]] == [on_disk] and not tagged["symlinks"], tag_text
    assert "confidence: high" in (mem / on_disk).read_text(encoding="utf-8")
    cli = lambda *a: subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), *a],  # noqa: E731
                                    capture_output=True, text=True, env=tree_env(), timeout=300)
    done = cli("tag", given, "--source", "chat", "--no-commit", "--json")
    assert done.returncode == 0, done.stderr
    assert [c["path"] for c in json.loads(done.stdout)["changes"]] == [on_disk], done.stdout
    assert "source: chat" in (mem / on_disk).read_text(encoding="utf-8")
    for scope in (spelt(typed, FOLDER) + "/", given, "**/" + spelt(typed, NAME)):
        found = cli("search", "espresso descales", "--path", scope, "--json", "--in-process", "--min-score", "0")
        assert found.returncode == 0, found.stderr
        assert [r["path"] for r in json.loads(found.stdout)["results"]] == [on_disk], (scope, found.stdout)


@pytest.mark.parametrize("stored, typed", [("NFD", "NFC"), ("NFC", "NFD")])
def test_every_pattern_matches_a_name_in_the_other_normalisation(stored, typed):
    """`tag --path`, `search --path`, `[index] exclude` and the evergreen list compare a pattern typed in one
    normalisation with names held in the other. Failed before."""
    from tachikoma.globs import name_or_path_matcher, path_matcher, pattern_matches
    from tachikoma.memory import Exclusion

    path = f"{spelt(stored, FOLDER)}/{spelt(stored, NAME)}"
    for pattern in (spelt(typed, FOLDER) + "/", spelt(typed, FOLDER + "/" + NAME), "*/" + spelt(typed, "caf*.md"),
                    spelt(typed, "café*")):
        assert pattern_matches(pattern, path) and path_matcher((pattern,))(path), pattern
    assert Exclusion((spelt(typed, FOLDER) + "/",)).file(path) is not None
    assert name_or_path_matcher((spelt(typed, NAME),))(path)


def test_each_spelling_is_its_own_file_when_both_are_there(tmp_path):
    """Linux holds `café.md` composed and decomposed as two files: each name reaches its own, never the other."""
    from tachikoma import memory

    for form in ("NFC", "NFD"):
        (tmp_path / spelt(form, NAME)).write_text(f"# {form}\n", encoding="utf-8")
    for form in ("NFC", "NFD"):
        assert memory.read_text(tmp_path, spelt(form, NAME))["text"] == f"# {form}"
        assert memory.resolved(tmp_path, spelt(form, NAME)) == spelt(form, NAME)


def test_a_file_system_that_answers_either_spelling_gives_the_name_it_lists(tmp_path, monkeypatch):
    """macOS finds `café.md` typed composed when it holds it decomposed, so the path typed exists, but the walk (and
    so the index and tagging) lists the name as held: the path typed is the name listed, not a symlink to it."""
    from tachikoma import memory

    (tmp_path / spelt("NFD", NAME)).write_text("# café\n", encoding="utf-8")
    real = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda p: real(spelt("NFD", os.fspath(p))))  # either spelling answers
    assert memory.resolved(tmp_path, spelt("NFC", NAME)) == spelt("NFD", NAME)
    assert memory.stands_for(tmp_path, spelt("NFC", NAME)) is None


def test_the_other_spelling_never_reaches_outside_the_memory(tmp_path):
    """A name in the other normalisation is looked for among the entries of the memory's own folders only: a symlink
    so named that points outside is refused as before, and so is a path that climbs out."""
    from tachikoma import memory

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / NAME).write_text("# secret\n", encoding="utf-8")
    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / spelt("NFD", NAME)).symlink_to(outside / NAME)
    (mem / ".hidden").mkdir()
    (mem / ".hidden" / spelt("NFD", NAME)).write_text("# hidden\n", encoding="utf-8")
    for given in (spelt("NFC", NAME), f"../outside/{spelt('NFD', NAME)}", f".hidden/{spelt('NFC', NAME)}"):
        with pytest.raises(memory.PathOutsideMemory):
            memory.safe_path(mem, given)


# --------------------------------------------------------------------------- 4c. Logseq's lines that say nothing

PAGE = """- Deploy checklist for the quokka service
  id:: 6a1f0c2e-7b4d-4c1e-9a2b-3c4d5e6f7a8b
  collapsed:: true
\t- Drain the load balancer before the restart
\t  id:: 7b2e1d3f-8c5e-4d2f-8b3c-4d5e6f7a8b9c
\t- See ((6a1f0c2e-7b4d-4c1e-9a2b-3c4d5e6f7a8b)) for the rollback
"""


def test_a_budgeted_reply_leaves_out_lines_that_say_nothing(tmp_path):
    """`search --budget` quoted `id:: 6a1f…` and `collapsed:: true` (and a block reference's uuid) as evidence: tokens
    and noise the chunker already leaves out of what it indexes (`chunking._NO_CONTENT`). The reply reads a note's
    lines by the same rule; its line numbers are the file's. Failed before."""
    from tachikoma.indexer import runner

    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "deploy.md").write_text(PAGE, encoding="utf-8")
    runner.run(mem, embedder_name="hash")
    done = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(mem), "search", "quokka load balancer",
                           "--budget", "300", "--json", "--in-process", "--min-score", "0"],
                          capture_output=True, text=True, env=tree_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    [passage] = json.loads(done.stdout)["budget"]["passages"]
    assert passage["text"] == ("- Deploy checklist for the quokka service\n\t- Drain the load balancer before the "
                               "restart\n\t- See for the rollback"), passage["text"]
    assert passage["lines"] == [1, 6]
