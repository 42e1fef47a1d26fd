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
