"""A Logseq graph read as Logseq defines it, with real files and a real SQLite index: its own folders of copies
(``logseq/bak/``, ``logseq/version-files/``, ``logseq/.recycle/``) are not memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tachikoma import memory
from tachikoma.indexer import runner
from tachikoma.watcher import relevant

from test_exclude import indexed, run_cli

CONFIG = ('{:meta/version 1\n ;; namespaces as work___harbour.md\n :file/name-format :triple-lowbar\n'
          ' :preferred-format "Markdown"}\n')
GRAPH = {
    "logseq/config.edn": CONFIG,
    "journals/2026_12_03.md": "- Moved the boiler service to Friday [[casa/boiler]]\n",
    "pages/casa___boiler.md": "tags:: casa\n\n- ## Service\n\t- booked for Friday 11 December\n",
    "logseq/bak/pages/casa___boiler/2026-11-05T20_41_07.318Z.Desktop.md": "- ## Service\n\t- booked for Monday\n",
    "logseq/version-files/base/pages/casa___boiler.md": "- ## Service\n\t- booked for Tuesday\n",
    "logseq/.recycle/pages_casa___old.md": "- the old boiler page\n",
}
COPIES = {rel for rel in GRAPH if rel.startswith(("logseq/bak/", "logseq/version-files/", "logseq/.recycle/"))}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def graph(tmp_path) -> Path:
    return write(tmp_path / "graph", GRAPH)


def test_logseq_s_copies_of_pages_are_not_memory(graph):
    """The backup, the sync version and the deleted page are neither indexed nor warned about (the hidden
    `.recycle` is not said as hidden): the run counts them as left out on purpose, as `[index] exclude`'s."""
    summary = runner.run(graph, embedder_name="hash")
    assert indexed(graph) == {"journals/2026_12_03.md", "pages/casa___boiler.md"}
    assert summary.excluded == 3 and summary.skipped == 0 and summary.warnings == []
    assert "0 skipped, 3 excluded, 0 unchanged" in summary.line()


def test_a_graph_in_a_folder_of_the_memory_too_and_only_a_graph(tmp_path):
    """A graph may be a folder of the memory (a git repository holding a graph and an agent's sessions); a
    `logseq/bak/` with no `logseq/config.edn` beside it is no graph's, so it is memory as any folder is."""
    root = tmp_path / "memory"
    write(root, {f"notes/{rel}": text for rel, text in GRAPH.items()})
    write(root, {"other/logseq/bak/kept.md": "# a folder someone named so\n", "sessions/a.md": "# a note\n"})
    runner.run(root, embedder_name="hash")
    assert indexed(root) == {"notes/journals/2026_12_03.md", "notes/pages/casa___boiler.md",
                             "other/logseq/bak/kept.md", "sessions/a.md"}
    assert memory.read_text(root, "other/logseq/bak/kept.md")["text"] == "# a folder someone named so"


def test_an_indexed_backup_leaves_the_index_once_the_folder_is_a_graph(tmp_path):
    """An index made before (or before `config.edn` was there) loses the copies on the next run."""
    root = write(tmp_path / "graph", {rel: text for rel, text in GRAPH.items() if rel != "logseq/config.edn"})
    runner.run(root, embedder_name="hash")
    assert COPIES - {"logseq/.recycle/pages_casa___old.md"} <= indexed(root)
    write(root, {"logseq/config.edn": CONFIG})
    summary = runner.run(root, embedder_name="hash")
    assert summary.removed == 2 and indexed(root) == {"journals/2026_12_03.md", "pages/casa___boiler.md"}


def test_stats_says_what_logseq_s_folders_leave_out_in_one_line(graph):
    code, out, _ = run_cli("--memory", str(graph), "stats")
    assert code == 0 and out.startswith("2 files:")
    assert ("Logseq's own copies of pages (backups, old versions, deleted pages), not memory: 3 files "
            "(logseq/.recycle/ 1, logseq/bak/ 1, logseq/version-files/ 1), not indexed, counted, read or tagged"
            in out.splitlines())
    assert "hidden" not in out
    report = json.loads(run_cli("--memory", str(graph), "stats", "--json")[1])
    assert report["logseq_copies"] == {"files": 3, "folders": [
        {"folder": "logseq/.recycle", "files": 1, "at_least": False},
        {"folder": "logseq/bak", "files": 1, "at_least": False},
        {"folder": "logseq/version-files", "files": 1, "at_least": False}]}
    assert report["excluded"]["files"] == 0 and report["problems"] == []


def test_reading_or_tagging_a_copy_is_refused_and_the_watcher_ignores_them(graph):
    backup = "logseq/bak/pages/casa___boiler/2026-11-05T20_41_07.318Z.Desktop.md"
    with pytest.raises(memory.PathExcluded, match=r"left out of the memory: Logseq's own copies of pages "
                                                  r"\(backups, old versions, deleted pages\), not memory, in "
                                                  r"logseq/bak/: not read"):
        memory.read_text(graph, backup)
    before = (graph / backup).read_bytes()
    code, _, err = run_cli("--memory", str(graph), "tag", "--path", backup, "--trust", "owner")
    assert code == 1 and "Logseq's own copies of pages" in err and (graph / backup).read_bytes() == before
    assert not relevant(graph, str(graph / backup))
    assert not relevant(graph, str(graph / "logseq" / "version-files" / "base" / "x.md"))
    assert relevant(graph, str(graph / "pages" / "casa___boiler.md"))


def test_the_dashboard_and_mcp_say_it_too(graph):
    from mcp_helpers import run_tools
    from tachikoma_dashboard.app import create_app
    from web_helpers import Client

    runner.run(graph, embedder_name="hash")
    [(error, text, report)] = run_tools(graph, ("stats", {}))
    assert not error and report["logseq_copies"]["files"] == 3
    assert ("Left out as Logseq's own copies of pages (backups, old versions, deleted pages), not memory: 3 files "
            "(not searched or read).") in text
    app = create_app(memory=graph, port=5000)
    app.test_client_class = Client
    try:
        page = app.test_client().get("/file/logseq/bak/pages/casa___boiler/2026-11-05T20_41_07.318Z.Desktop.md")
        assert page.status_code == 403 and "Logseq&#39;s own copies of pages" in page.get_data(as_text=True)
        coverage = app.test_client().get("/coverage").get_data(as_text=True)
        assert 'data-logseq-copies="3"' in coverage and "<code>logseq/version-files/</code>: 1 file" in coverage
    finally:
        app.extensions["tachikoma"].close()


# ---------------------------------------------------------------- a page's name

def test_a_page_is_named_by_its_file_name_as_logseq_decodes_it(tmp_path):
    """`:file/name-format :triple-lowbar` (read from config.edn, not from a comment): `___` is a namespace,
    URL-encoded characters are decoded (an older `%2F` name too), empty namespaces dropped; Logseq's older format
    reads `.` as a namespace; a name macOS wrote decomposed is composed."""
    from tachikoma.reading.logseq import LEGACY, TRIPLE_LOWBAR, name_format, title_from_file_name

    assert title_from_file_name("work___harbour", TRIPLE_LOWBAR) == "work/harbour"
    assert title_from_file_name("work___harbour___rollout", TRIPLE_LOWBAR) == "work/harbour/rollout"
    assert title_from_file_name("admin%2Futenze", TRIPLE_LOWBAR) == "admin/utenze"
    assert title_from_file_name("What now%3F", TRIPLE_LOWBAR) == "What now?"
    assert title_from_file_name("a______b", TRIPLE_LOWBAR) == "a/b"
    assert title_from_file_name("v1.2 notes", TRIPLE_LOWBAR) == "v1.2 notes"
    assert title_from_file_name("100%", TRIPLE_LOWBAR) == "100%"  # not an encoded character: kept
    assert title_from_file_name("work.harbour", LEGACY) == "work/harbour"
    assert title_from_file_name("work%2Fharbour", LEGACY) == "work/harbour"
    assert title_from_file_name("carta d'identita\u0300", LEGACY) == "carta d'identità"
    graph = write(tmp_path / "graph", {"logseq/config.edn": CONFIG})
    assert name_format(graph) == TRIPLE_LOWBAR
    (graph / "logseq" / "config.edn").write_text(";; :file/name-format :triple-lowbar, one day\n{:meta/version 1}\n")
    assert name_format(graph) == LEGACY


def test_a_pages_first_block_names_it_and_gives_it_other_names(tmp_path):
    """`title::` in the first block overrides the file name; `alias::` gives other names (comma-separated,
    `[[links]]` whole); the properties are those the first block opens with, after YAML front matter too, written
    alone or as its first bullet; a journal is named by its date, not by a name here."""
    from tachikoma.reading.logseq import first_block, page_names

    graph = write(tmp_path / "graph", {"logseq/config.edn": CONFIG})
    assert page_names(graph, "pages/work___harbour.md", "alias:: harbour, [[Port, the]]\n\n- ## What it is\n") == \
        {"title": "work/harbour", "alias": ["harbour", "Port, the"]}
    assert page_names(graph, "pages/admin%2Futenze.md", "title:: Admin / Utenze\ntags:: admin\n- x\n") == \
        {"title": "Admin / Utenze"}
    assert page_names(graph, "pages/sub/Dario Esposito.md", "- Colleague on the Harbour team\n") == \
        {"title": "Dario Esposito"}
    assert page_names(graph, "journals/2026_12_03.md", "- a day\n") == {}
    assert page_names(graph, "journals/2026_12_03.md", "alias:: the move day\n- a day\n") == {"alias": ["the move day"]}
    assert page_names(tmp_path, "pages/work___harbour.md", "alias:: harbour\n") == {}  # in no graph
    assert [p.key for p in first_block("\n- alias:: Sas\n  tags:: person\n- title:: not the first block\n")] == \
        ["alias", "tags"]
    assert first_block("- My partner.\n  alias:: Sas\n") == []
    assert first_block("Title:: Shouting\n")[0].key == "title"


def test_a_page_is_found_by_its_name_and_aliases(tmp_path):
    """"who's dario" missed `pages/Dario Esposito.md`, whose text never says his surname, and a word only in a page's
    name could not be found: its first chunk opens with its name (and the aliases it does not say), as a note's
    opens with what its front matter names it; front matter's title wins."""
    from tachikoma.chunking import chunk_document
    from tachikoma.reading.reader import read_document

    graph = write(tmp_path / "graph", {
        "logseq/config.edn": CONFIG,
        "pages/Dario Esposito.md": "tags:: person\n\n- Colleague on the Harbour team since January.\n",
        "pages/work___harbour.md": "alias:: Porto\n\n- ## What it is\n\t- Replaces the nightly batch planner.\n",
        "pages/clip___knee.md": "---\ntitle: Knee pain in cyclists\n---\n- Saddle too low.\n",
        "pages/old.md": "- Nothing here says it.\n"})
    [first] = chunk_document(read_document(graph, "pages/Dario Esposito.md", "markdown"), 80)
    assert first.text.startswith("Dario Esposito\ntags:: person") and (first.line_start, first.line_end) == (1, 3)
    [first] = chunk_document(read_document(graph, "pages/work___harbour.md", "markdown"), 80)
    assert first.text.startswith("work/harbour\nalias:: Porto")
    [first] = chunk_document(read_document(graph, "pages/clip___knee.md", "markdown"), 80)
    assert first.text.startswith("Knee pain in cyclists\n- Saddle")
    runner.run(graph, embedder_name="hash")
    from tachikoma.search.searcher import Searcher

    searcher = Searcher(graph)
    try:
        assert searcher.search("Esposito", 3, min_score=0)["results"][0]["path"] == "pages/Dario Esposito.md"
        assert searcher.search("work", 3, min_score=0)["results"][0]["path"] == "pages/work___harbour.md"
    finally:
        searcher.close()


def test_the_file_page_shows_the_page_s_name(graph):
    from tachikoma.web.memory_file import read_memory_file

    write(graph, {"pages/work___harbour.md": "alias:: Porto, Haven\n\n- ## What it is\n"})
    shown = read_memory_file(graph, "pages/work___harbour.md", None, lambda rel, line=None: rel)
    assert list(shown["meta"].items())[:2] == [("Logseq page", "work/harbour"), ("alias", "Porto, Haven")]
    assert read_memory_file(graph, "journals/2026_12_03.md", None, lambda rel, line=None: rel)["meta"] == {}


# ---------------------------------------------------------------- lines that say nothing

def test_block_ids_folding_and_block_refs_are_no_text(graph):
    """`id:: <uuid>` (what a `((block ref))` points at) and `collapsed:: true` were indexed as text, the id split
    into keyword junk: they are left out of the chunks, whose line numbers still map to the file, which is
    untouched; a `((ref))` is not resolved, and leaves no id behind. A line that says something is kept."""
    from tachikoma.chunking import chunk_document
    from tachikoma.reading.reader import read_document

    uuid = "6a1f0c2e-7b4d-4c1a-9e55-2f83d1b6a0c7"
    journal = (f"- Keys handed back to Pautasso\n\t- deposit: **€1.250** back by 15 December\n\t  id:: {uuid}\n"
               f"- ## Incidents\n\t- collapsed:: true\n\t- Reminder about the deposit: (({uuid.upper()}))\n"
               f"\t- followed the runbook ((6a0e3b51-88c2-4f0f-b7a4-1c9d2e6f4a10)): retention set to 3 days\n"
               f"\t- id:: not-a-uuid and collapsed:: sometimes\n```\nid:: {uuid}\n```\n")
    write(graph, {"journals/2026_12_02.md": journal})
    before = (graph / "journals" / "2026_12_02.md").read_bytes()
    chunks = chunk_document(read_document(graph, "journals/2026_12_02.md", "markdown"), 30)
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (4, 11)]
    assert chunks[0].text == "- Keys handed back to Pautasso\n\t- deposit: **€1.250** back by 15 December"
    assert chunks[1].text.split("\n")[:5] == [
        "- ## Incidents", "\t- Reminder about the deposit:", "\t- followed the runbook: retention set to 3 days",
        "\t- id:: not-a-uuid and collapsed:: sometimes", "```"]
    assert f"id:: {uuid}" in chunks[1].text  # in a code block: as written
    runner.run(graph, embedder_name="hash")
    assert (graph / "journals" / "2026_12_02.md").read_bytes() == before
    from tachikoma.search.searcher import Searcher

    searcher = Searcher(graph)
    try:
        assert searcher.search("6a0e3b51", 3, min_score=0)["results"] == []
        assert searcher.search("Pautasso", 3, min_score=0)["results"][0]["lines"] == [1, 11]
        assert searcher.search("sometimes", 3, min_score=0)["results"]  # the line that says something
    finally:
        searcher.close()


# ---------------------------------------------------------------- tags written as properties

def test_tags_written_as_properties_are_not_read_and_said_with_how_to_tag(graph):
    """`trust:: owner` and `confidence:: high` in a page's first block were ignored in silence and `stats` counted
    the page untagged. They are still not read (a note's tags have one place, its YAML front matter, which tagging
    writes), but the index run and `stats` say so, naming the file and line and how to tag it; once it is tagged so
    (its body, properties and all, kept byte for byte), nothing is said. A `source::` alone, Logseq's common
    property of a clipping, is not warned about; nor is a property its front matter agrees with."""
    write(graph, {
        "pages/Saskia de Wit.md": "alias:: Sas\ntrust:: owner\nconfidence:: high\n\n- My partner.\n",
        "pages/clip___knee.md": "type:: [[clipping]]\nsource:: https://example.org/knee\n\n- Saddle too low.\n",
        "pages/agreed.md": "---\ntrust: owner\n---\ntrust:: Owner\n- ok\n",
        "pages/rumour.md": "---\nconfidence: low\n---\nconfidence:: speculative\nsource:: a colleague\n- maybe\n",
        "pages/bad.md": "- trust:: boss\n- text\n"})
    said = ("pages/Saskia de Wit.md:2: trust:: owner and confidence:: high: Logseq properties, which are not tags to "
            "tachikoma (it reads tags from YAML front matter, which Logseq keeps): not read; tag it with "
            "`tachikoma tag --path 'pages/Saskia de Wit.md' --trust owner --confidence high`")
    summary = runner.run(graph, embedder_name="hash")
    assert said in summary.warnings and "pages/Saskia de Wit.md" in indexed(graph)
    assert ("pages/rumour.md:4: confidence:: speculative and source:: a colleague: Logseq properties, which are not "
            "tags to tachikoma (it reads tags from YAML front matter, which Logseq keeps): not read; tag it with "
            "`tachikoma tag --path pages/rumour.md --confidence speculative --source 'a colleague' --overwrite`"
            ) in summary.warnings
    assert [w for w in summary.warnings if w.startswith("pages/bad.md:1: trust:: boss: a Logseq property, which is "
                                                         "no tag to tachikoma")]
    assert not [w for w in summary.warnings if w.startswith(("pages/clip", "pages/agreed"))]
    report = json.loads(run_cli("--memory", str(graph), "stats", "--json")[1])
    assert {p["path"]: p["reason"] for p in report["problems"] if p["kind"] == "logseq-tags"} == {
        "pages/Saskia de Wit.md": said.removeprefix("pages/Saskia de Wit.md:2: ").join(["line 2: ", ""]),
        "pages/rumour.md": next(w for w in summary.warnings if w.startswith("pages/rumour.md:4: ")).replace(
            "pages/rumour.md:4: ", "line 4: ", 1),
        "pages/bad.md": next(w for w in summary.warnings if w.startswith("pages/bad.md:1: ")).replace(
            "pages/bad.md:1: ", "line 1: ", 1)}
    assert report["untagged"] == 5 and report["partial"] == 2  # Saskia is untagged, as the index ranks her

    body = (graph / "pages" / "Saskia de Wit.md").read_bytes()
    code, _, _ = run_cli("--memory", str(graph), "tag", "--path", "pages/Saskia de Wit.md", "--trust", "owner",
                         "--confidence", "high")
    assert code == 0 and (graph / "pages" / "Saskia de Wit.md").read_bytes() == \
        b"---\ntrust: owner\nconfidence: high\n---\n" + body
    summary = runner.run(graph, embedder_name="hash")
    assert not [w for w in summary.warnings if "Saskia" in w]
    report = json.loads(run_cli("--memory", str(graph), "stats", "--json")[1])
    assert "pages/Saskia de Wit.md" not in {p["path"] for p in report["problems"]} and report["tagged"] == 1
