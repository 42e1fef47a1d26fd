"""Adversarial pass on session 51's new code: Logseq graphs (page names, headings as bullets, properties), MCP
`read`'s token cap, and the Logseq copies a search and the watcher leave out."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

import yaml

from tachikoma.chunking import _sections, chunk_document
from tachikoma.reading import logseq
from tachikoma.reading.reader import read_document

CONFIG = "{:meta/version 1\n :file/name-format :triple-lowbar}\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


# ---------------------------------------------------------------- no line takes time out of proportion to its size

def test_a_heading_or_property_line_with_a_long_run_of_spaces_is_read_in_linear_time(tmp_path):
    """A heading (`## x`, `- ## x`) or a first block's property whose text holds a long run of spaces (a table
    padded out, a pasted log) was matched in time growing with the run's square: 30 s for a 100 KB line, an index
    run and `stats` held for hours by a larger one. Each is read in one pass; the titles and values are as before."""
    spaces = " " * 60_000
    graph = write(tmp_path / "graph", {
        "logseq/config.edn": CONFIG,
        "pages/padded.md": f"title:: padded{spaces}x\n\n- ## Bullet{spaces}y\n\t- text\n## Heading{spaces}z\n- x\n"})
    took = timed(lambda: chunk_document(read_document(graph, "pages/padded.md", "markdown"), 80))
    assert took < 2.0, f"{took:.1f} s"
    assert timed(lambda: logseq.first_block(f"key:: a{spaces}b\n")) < 1.0
    chunks = chunk_document(read_document(graph, "pages/padded.md", "markdown"), 80_000)
    assert chunks[0].text.startswith(f"title:: padded{spaces}x")
    # the titles as they were read before
    text = "## Title ##  \n- ## Sub #\t\n  x\n- ## C#  \n y\n### ##\nz\n#### a # #\nw\n- ### \u00a0spaced\u00a0 \nv\n"
    assert [s.path for s in _sections(text, 1)] == [("Title",), ("Sub",), ("C#",), ("C#", ""), ("C#", "", "a #")]
    assert logseq.first_block("title:: a b \t\nalias::\t x , y  \n- z\n") == [
        logseq.Property("title", "a b", 0), logseq.Property("alias", "x , y", 1)]


def test_remember_reads_the_heading_a_note_opens_with_in_linear_time(tmp_path):
    """`remember` (MCP's tool, an agent's text) looked for the heading a note opens with by a pattern that took the
    square of a run of spaces in its first line: 5 s for 20,000 spaces, hours for the largest note it takes. The
    title it reads is as before."""
    from tachikoma import notes

    when = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)
    took = timed(lambda: notes.remember(tmp_path, "# Boiler" + " " * 60_000 + "x\nbody\n", commit=False, now=when))
    assert took < 2.0, f"{took:.1f} s"
    (tmp_path / "titles").mkdir()
    for text, title in [("# Deploy keys ##  \r\nThey live in the vault.", "Deploy keys"),
                        ("\n\n  ## Anna # \nprefers tea", "Anna"), ("#######\nseven", "####### seven"),
                        ("#Hashtag first\nnot a heading", "#Hashtag first not a heading")]:
        written = notes.remember(tmp_path / "titles", text, commit=False, now=when)
        assert yaml.safe_load((tmp_path / "titles" / written.path).read_text().split("---")[1])["title"] == title


def test_a_page_with_a_huge_alias_list_is_chunked_in_linear_time(tmp_path):
    """A first chunk opens with what a page is named (`front_matter_line`), and its other names were told apart by
    comparing each with every one before it: a page whose `alias::` lists 40,000 names (or a note whose front
    matter's `aliases:` does) took 10 s to chunk, the square of the list. The line says the same, held to its
    length as before."""
    names = ", ".join(f"name{i}" for i in range(40_000))
    graph = write(tmp_path / "graph", {"logseq/config.edn": CONFIG, "pages/many.md": f"alias:: {names}\n\n- body\n",
                                       "notes/yaml.md": "---\naliases: [" + names + "]\n---\n# Yaml\nbody\n"})
    for rel in ("pages/many.md", "notes/yaml.md"):
        doc = read_document(graph, rel, "markdown")
        took = timed(lambda doc=doc: chunk_document(doc, 80))
        assert took < 2.0, f"{rel}: {took:.1f} s"
    from tachikoma.chunking import FRONT_MATTER_CHARS, front_matter_line

    line = front_matter_line({"title": "Many", "alias": ["a", "b", "a", "A", "c  d", "c d", *map(str, range(500))]},
                             "- body a")
    assert line.startswith("Many (also c d, 0, 1, 2, 3,") and len(line) <= FRONT_MATTER_CHARS  # "a", "b" in the chunk


def test_a_page_name_never_decodes_to_a_control_character(tmp_path):
    """A page's file name is decoded as Logseq decodes it (`%2F` is "/"), and `%00` was decoded too: a NUL in the
    first chunk's text, which PostgreSQL refuses, so one page named `a%00b.md` stopped every index run of a shared
    store with a database error; `%1B` put an escape in it, `%0A` a line break. A name that would decode to a
    control character is left as written, as one that decodes to no text is."""
    graph = write(tmp_path / "graph", {"logseq/config.edn": CONFIG, "pages/a%00b.md": "- nul\n",
                                       "pages/a%1B[31mred.md": "- escape\n", "pages/line%0Abreak.md": "- break\n",
                                       "pages/What now%3F.md": "- fine\n", "pages/caf%C3%A9.md": "- fine\n"})
    names = {rel: read_document(graph, rel, "markdown").names.get("title")
             for rel in ("pages/a%00b.md", "pages/a%1B[31mred.md", "pages/line%0Abreak.md", "pages/What now%3F.md",
                         "pages/caf%C3%A9.md")}
    assert names == {"pages/a%00b.md": "a%00b", "pages/a%1B[31mred.md": "a%1B[31mred",
                     "pages/line%0Abreak.md": "line%0Abreak", "pages/What now%3F.md": "What now?",
                     "pages/caf%C3%A9.md": "café"}


def test_a_page_named_with_an_encoded_nul_is_indexed_on_postgresql(tmp_path, url, monkeypatch):
    from tachikoma.indexer import runner
    from tachikoma.store import STORE_ENV, locate

    monkeypatch.setenv(STORE_ENV, url)
    graph = write(tmp_path / "graph", {"logseq/config.edn": CONFIG, "pages/a%00b.md": "- nul\n", "pages/ok.md": "- ok\n"})
    runner.run(graph, embedder_name="hash")
    with locate(graph).open(readonly=True) as store:
        assert set(store.files()) == {"pages/a%00b.md", "pages/ok.md"}


# ---------------------------------------------------------------- a graph's copies: one rule on every face

GRAPH = {"logseq/config.edn": CONFIG, "pages/p.md": "- a page about tea\n",
         "logseq/bak/pages/b.md": "- zebrafish boiler, an old backup\n"}


def test_a_graph_is_the_same_to_the_walk_and_to_every_face_that_refuses_a_copy(tmp_path):
    """The walk took a `logseq/` folder for a graph's when anything named config.edn but a folder was in it (a
    dangling symlink, a FIFO), where `read`, tagging and the file page ask for a file: the backup was left out of
    the index and yet read. Both ask `logseq.holds_graph`: a config.edn that is no file makes no graph."""
    from tachikoma import memory
    from tachikoma.indexer import runner
    from tachikoma.store import locate

    graph = write(tmp_path / "graph", {rel: text for rel, text in GRAPH.items() if rel != "logseq/config.edn"})
    (graph / "logseq" / "config.edn").symlink_to("nowhere.edn")
    summary = runner.run(graph, embedder_name="hash")
    with locate(graph).open(readonly=True) as store:
        assert set(store.files()) == {"pages/p.md", "logseq/bak/pages/b.md"} and summary.excluded == 0
    assert memory.read_text(graph, "logseq/bak/pages/b.md")["text"].startswith("- zebrafish")
    (graph / "logseq" / "config.edn").unlink()
    (graph / "logseq" / "config.edn").write_text(CONFIG)
    summary = runner.run(graph, embedder_name="hash")
    with locate(graph).open(readonly=True) as store:
        assert set(store.files()) == {"pages/p.md"} and summary.excluded == 1


def test_a_symlink_to_a_copy_is_left_out_as_the_copy_is(tmp_path):
    """A note symlinked to a file in `logseq/bak/` was indexed under its own name (the walk asked only `[index]
    exclude` of the file it stands for), though `read` and the file page refuse it as a copy. It is left out, and
    counted with the graph's copies."""
    import json

    from tachikoma.indexer import runner
    from tachikoma.store import locate

    graph = write(tmp_path / "graph", GRAPH)
    (graph / "pages" / "alias.md").symlink_to("../logseq/bak/pages/b.md")
    summary = runner.run(graph, embedder_name="hash")
    with locate(graph).open(readonly=True) as store:
        assert set(store.files()) == {"pages/p.md"}
    assert summary.excluded == 2
    from test_logseq import run_cli

    report = json.loads(run_cli("--memory", str(graph), "stats", "--json")[1])
    assert report["logseq_copies"]["files"] == 2 and report["files"] == 1


def test_the_watcher_sees_a_graph_made_or_unmade(tmp_path):
    """Logseq writes `logseq/config.edn` when it opens a folder as a graph: from then on its copies are no memory.
    The watcher took the file for none of its business, so the copies stayed in the index until another change."""
    from tachikoma.watcher import relevant

    graph = write(tmp_path / "graph", GRAPH)
    assert relevant(graph, str(graph / "logseq" / "config.edn"))
    assert relevant(graph, str(graph / "notes" / "logseq" / "config.edn"))
    assert not relevant(graph, str(graph / "pages" / "config.edn"))
    assert not relevant(graph, str(graph / "logseq" / "custom.css"))


def test_a_search_leaves_out_the_copies_of_a_folder_that_became_a_graph_before_the_next_run(tmp_path):
    """An index made before the folder held `logseq/config.edn` holds its `logseq/bak/` copies: a search ranked them
    (the backup's stale text first for "zebrafish boiler") until the next index run, though `read` refuses them.
    They are left out at once, as a file `[index] exclude` leaves out is, not counted as missing."""
    from tachikoma.indexer import runner
    from tachikoma.search.searcher import Searcher

    graph = write(tmp_path / "graph", {rel: text for rel, text in GRAPH.items() if rel != "logseq/config.edn"})
    runner.run(graph, embedder_name="hash")
    write(graph, {"logseq/config.edn": CONFIG})
    searcher = Searcher(graph)
    try:
        answer = searcher.search("zebrafish boiler", 5, min_score=0)
    finally:
        searcher.close()
    assert [r["path"] for r in answer["results"]] in ([], ["pages/p.md"])
    assert answer["freshness"]["missing_files"] == 0


# ---------------------------------------------------------------- MCP read's token cap

def _asked_lines(text: str) -> str:
    return text.split("ask for lines '", 1)[1].split("'", 1)[0]


def test_the_lines_a_refused_read_names_are_read_when_asked_for(tmp_path):
    """A `read` over `[mcp] read_tokens` names the lines from its first that fit; it counted each line's text alone,
    not as the answer writes it (a line number before each, "> " before each line of a turn), so a note of many blank
    lines or a session whose turns hold many short lines was told "ask for lines '1-104'", and asking for them was
    refused again with the same words: an agent following the advice never read on. The lines named are measured as
    the answer sends them, and read whole when asked for; a cap smaller than a read's own framing says so."""
    import json

    from mcp_helpers import run_tools

    root = tmp_path / "memory"
    turn = {"type": "user", "message": {"role": "user", "content": "\n".join(["a"] * 20)},
            "timestamp": "2026-01-01T00:00:00Z", "sessionId": "s"}
    write(root, {"blank.md": "# Blank\n" + "\n" * 30_000 + "end\n", "quotes.md": '"\n' * 20_000,
                 "session.jsonl": "\n".join(json.dumps(turn) for _ in range(3_000)) + "\n",
                 "tachikoma.toml": "[mcp]\nread_tokens = 5000\n"})
    for path in ("blank.md", "quotes.md", "session.jsonl"):
        error, text, _ = run_tools(root, ("read", {"path": path}))[0]
        assert error and "ask for lines '" in text, text
        asked = _asked_lines(text)
        error, again, data = run_tools(root, ("read", {"path": path, "lines": asked}))[0]
        assert not error, f"{path} {asked}: {again}"
        assert data["lines"][0] == 1 and data["lines"][1] == int(asked.split("-")[1])
    write(root, {"tachikoma.toml": "[mcp]\nread_tokens = 40\n"})
    error, text, _ = run_tools(root, ("read", {"path": "blank.md", "lines": "1-3"}))[0]
    assert error and "line 1 alone" not in text and "[mcp] read_tokens (40) is less than" in text, text


def test_the_warning_of_tags_written_as_properties_is_short_and_its_command_runs(tmp_path):
    """`trust::` beside a `source::` of 5,000 characters (a pasted page) or holding an escape: the index run's
    warning quoted the value whole (a 10,000-character line, the value twice) and told the owner to run
    `tachikoma tag … --source '<5,000 characters>'`, which `tag` refuses (at most 200 characters, no control
    character). The value is shortened in the warning, and the command names only values `tag` takes."""
    from tachikoma.indexer import runner

    long = "x" * 5_000
    graph = write(tmp_path / "graph", {"logseq/config.edn": CONFIG,
                                       "pages/long.md": f"trust:: owner\nsource:: {long}\n\n- text\n",
                                       "pages/escape.md": "confidence:: high\nsource:: a\x1b[31mb\n\n- text\n"})
    warnings = {w.split(":", 1)[0]: w for w in runner.run(graph, embedder_name="hash").warnings}
    assert len(warnings["pages/long.md"]) < 600, len(warnings["pages/long.md"])
    assert warnings["pages/long.md"].endswith("`tachikoma tag --path pages/long.md --trust owner`")
    assert "--source" not in warnings["pages/escape.md"]
    assert warnings["pages/escape.md"].endswith("`tachikoma tag --path pages/escape.md --confidence high`")


def test_tagging_a_graph_s_copies_does_not_blame_index_exclude(tmp_path):
    """`tag --path logseq/bak/` is skipped as Logseq's copies of pages, and the last line said "the selection matches
    only files [index] exclude leaves out", a setting the memory does not have. It says they are left out of the
    memory, the line above saying why."""
    from test_logseq import run_cli

    graph = write(tmp_path / "graph", GRAPH)
    code, out, err = run_cli("--memory", str(graph), "tag", "--path", "logseq/bak/", "--trust", "self", "--dry-run")
    assert code == 1 and "Logseq's own copies of pages" in err
    assert out == "nothing to tag: the selection matches only files left out of the memory (above)\n"


# ---------------------------------------------------------------- PostgreSQL's text holds no NUL

def test_a_nul_in_a_file_s_text_or_tags_does_not_stop_a_postgresql_index_run(tmp_path, url, monkeypatch):
    """PostgreSQL's text holds no NUL (SQLite's does): a session whose JSON holds "\\u0000" (a tool's binary output),
    a note with a NUL past the first 8 KB that the binary sniff reads, or front matter whose YAML says `source:
    "a\\0b"` each stopped every index run of a shared store with a database error, the whole memory unindexed from then
    on. What the store keeps holds U+FFFD in its place; the run indexes everything."""
    import json

    from tachikoma.indexer import runner
    from tachikoma.search.searcher import Searcher
    from tachikoma.store import STORE_ENV, locate

    monkeypatch.setenv(STORE_ENV, url)
    turns = [{"type": "user", "message": {"role": "user", "content": "the kiln log says \u0000\u0000 zebrafish"},
              "timestamp": "2026-01-01T00:00:00Z", "sessionId": "s"},
             {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "noted"}]},
              "timestamp": "2026-01-01T00:00:01Z", "sessionId": "s"}]
    root = tmp_path / "memory"
    write(root, {"session.jsonl": "\n".join(json.dumps(t) for t in turns) + "\n",
                 "source.md": '---\nsource: "a\\0b"\n---\n# Source\nquartz teapot\n', "ok.md": "# ok\nfine\n"})
    (root / "late.md").write_bytes(b"# Late\n" + b"word " * 3000 + b"\nmarmalade\x00jar\n")
    summary = runner.run(root, embedder_name="hash")
    with locate(root).open(readonly=True) as store:
        assert set(store.files()) == {"session.jsonl", "source.md", "ok.md", "late.md"}, summary.line()
    searcher = Searcher(root)
    try:
        for word, path in (("zebrafish", "session.jsonl"), ("marmalade", "late.md"), ("quartz", "source.md")):
            results = searcher.search(word, 3, min_score=0)["results"]
            assert results and results[0]["path"] == path and "\x00" not in results[0]["text"]
    finally:
        searcher.close()


def test_a_negative_read_tokens_is_told_the_range(tmp_path):
    """`read_tokens = -5` was told "must be a whole number, 0 for no cap, not the integer -5": -5 is a whole number.
    The refusal says the range, as `budget_tokens`'s does."""
    import pytest

    from tachikoma.config import load_config
    from tachikoma.errors import TachikomaError

    write(tmp_path, {"tachikoma.toml": "[mcp]\nread_tokens = -5\n"})
    with pytest.raises(TachikomaError, match=r"mcp.read_tokens must be a whole number from 0 \(no cap\) up, not the "
                                             r"integer -5$"):
        load_config(tmp_path)


# ---------------------------------------------------------------- the dashboard

def test_a_symlinked_note_s_page_redirects_whatever_its_query_holds(tmp_path):
    """The page of `alias.md -> real.md` redirects to the note's page with the same query, built by `url_for` from
    the query's keys: `?rel=x` (a key the route takes) or `?_method=POST` (one `url_for` reads as its own) raised
    in `url_for` and the page was a 500 with a traceback on the console. The query is passed on as it was sent."""
    from tachikoma.indexer import runner
    from tachikoma_dashboard.app import create_app
    from web_helpers import Client

    root = write(tmp_path / "memory", {"real.md": "# Real\nthe note\n"})
    (root / "alias.md").symlink_to("real.md")
    runner.run(root, embedder_name="hash")
    app = create_app(memory=root, port=5000)
    app.test_client_class = Client
    try:
        client = app.test_client()
        for query in ("lines=1-2&q=note", "rel=x", "_method=POST", "_external=1&_anchor=top", "q=%C3%A9+%26"):
            response = client.get(f"/file/alias.md?{query}")
            assert response.status_code == 302, (query, response.status_code)
            assert response.headers["Location"] == f"/file/real.md?{query}"
    finally:
        app.extensions["tachikoma"].close()
