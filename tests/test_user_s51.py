"""What session 51's demanding user found: a two-person consultancy sharing one memory in git, searched on SQLite
and on PostgreSQL (team mode), with notes in English and Dutch and a Codex agent that pays for every token."""

from __future__ import annotations

import pytest

from tachikoma.config import load_config
from tachikoma.indexer import runner
from tachikoma.replies.reply import for_agent
from tachikoma.search.pool import Searchers, search_as_asked
from tachikoma.store import STORE_ENV

RATES = """---
trust: owner
confidence: high
date: 2026-11-28
---
# Rates for 2027

Agreed by Eva and Rob on 28 November 2026.

| who | 2026 | 2027 |
|---|---|---|
| partner | €115 / hour | €125 / hour |
| junior | none | €85 / hour |
"""
PARKING = ("## Parking\n\nDe parkeervergunning voor de Stadsbuitengracht kost €310 per jaar.\nVraag Eva naar de pas.\n"
           "Dit staat hier bovenaan ingevoegd.\n\n")
OTHER = "# Lunch\n\nBroodje Bert delivers the workshop lunch, no cashews.\n"


def _memory(root):
    root.mkdir()
    (root / "rates.md").write_text(RATES, encoding="utf-8")
    (root / "lunch.md").write_text(OTHER, encoding="utf-8")
    runner.run(root, embedder_name="hash")
    return root


def _ask(root, query: str, **more) -> dict:
    config = load_config(root)
    searchers = Searchers()
    try:
        return search_as_asked(root, config, searchers, {"query": query, "limit": 10, "min_score": 0, **more})
    finally:
        searchers.close()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_budgeted_reply_quotes_what_was_indexed_not_the_lines_an_edit_moved_there(tmp_path, engine, request,
                                                                                     monkeypatch):
    """A note edited after its last index run (a paragraph added at its top; a server started with --no-watch, a
    search from the command line): a budgeted reply (MCP's default) read the index's line numbers from the file as it
    is now, and quoted the new paragraph about a parking permit as the owner's evidence for "what rate do partners
    charge in 2027", under the rates note's name and trust; the rate table was in none of it. A result whose file
    changed since the index read it is now quoted as the index holds it, and the answer's freshness names that file.
    Failed before on both engines."""
    if engine == "postgresql":
        monkeypatch.setenv(STORE_ENV, request.getfixturevalue("url"))
    root = _memory(tmp_path / "memory")
    (root / "rates.md").write_text(RATES.replace("# Rates for 2027\n", PARKING + "# Rates for 2027\n"),
                                   encoding="utf-8")
    answer = _ask(root, "what rate do partners charge in 2027", budget_tokens=400, form="json")
    passages = [p for p in answer["budget"]["passages"] if p["path"] == "rates.md"]
    assert passages, answer["budget"]
    quoted = "\n".join(p["text"] for p in passages)
    assert "€125 / hour" in quoted and "parkeervergunning" not in quoted
    assert answer["freshness"]["changed_files"] == ["rates.md"]
    assert for_agent(answer)["freshness"]["changed_files"] == ["rates.md"]  # what MCP's structured content says
    whole = _ask(root, "what rate do partners charge in 2027")  # without a budget: the chunks, as before
    assert whole["freshness"]["changed_files"] == ["rates.md"]
    unchanged = _ask(root, "workshop lunch cashews", limit=1)
    assert [r["path"] for r in unchanged["results"]] == ["lunch.md"]
    assert "changed_files" not in unchanged["freshness"]  # only a result's file that changed is named


def test_mcp_read_of_a_note_saved_as_utf16_says_so_instead_of_giving_its_bytes(memory):
    """A Dutch note saved by Notepad as UTF-16: the index skips it ("UTF-16 text: save it as UTF-8") and the
    dashboard says the same, but MCP `read` answered its bytes decoded as UTF-8, a NUL between every two letters
    (400 tokens of noise for 70 letters). It is now refused with the index's reason. Failed before."""
    from mcp_helpers import run_tools

    note = "# Kerstborrel\n\nDe kerstborrel is op 18 december bij Eva thuis.\n"
    (memory / "kerst.md").write_bytes(b"\xff\xfe" + note.encode("utf-16-le"))
    (memory / "blob.md").write_bytes(b"PK\x03\x04\x00\x00 not a note")
    runner.run(memory, embedder_name="hash")
    (utf16_error, utf16, _), (binary_error, binary, _), (error, fine, _) = run_tools(
        memory, ("read", {"path": "kerst.md"}), ("read", {"path": "blob.md"}), ("read", {"path": "martin.md"}))
    assert utf16_error and "UTF-16 text: save it as UTF-8" in utf16 and "\\x00" not in utf16
    assert binary_error and "binary file" in binary
    assert not error and "Martin" in fine


def test_mcp_read_is_held_to_read_tokens_and_names_the_lines_that_fit(memory):
    """An agent that pays for every token: `read` of a Codex session holding one pasted log of 1.5 MB answered about
    300,000 tokens of text and as many of structured content, more than a model's context. A read whose answer is
    over `[mcp] read_tokens` (25,000 by default) is refused, naming its size and the lines from its first that fit;
    a line alone over the cap is said so, with where to read on. Failed before (the whole file came back)."""
    from mcp_helpers import run_tools
    from tachikoma.replies import tokens

    (memory / "pasted.md").write_text("# Pasted\n\n" + "lang " * 40_000 + "\n")
    error, text, _ = run_tools(memory, ("read", {"path": "pasted.md"}))[0]  # the default cap, 25,000
    assert error and "more than the 25,000 a read gives at once" in text and tokens.count(text) < 200
    (memory / "tachikoma.toml").write_text("[mcp]\nread_tokens = 2000\n")
    log = "".join(f"- 2026-12-0{1 + i % 7} 10:{i % 60:02d} export run {i} finished for the bakery forecast\n"
                  for i in range(600))
    (memory / "export-log.md").write_text("# Export log\n\n" + log + "\n" + "lang " * 20_000 + "\n\nThe end.\n")
    whole, fitting, one_line, after = run_tools(
        memory, ("read", {"path": "export-log.md"}), ("read", {"path": "export-log.md", "lines": "1-40"}),
        ("read", {"path": "export-log.md", "lines": "604"}), ("read", {"path": "export-log.md", "lines": "605-606"}))
    error, text, _ = whole
    assert error and "export-log.md lines 1-606 would be about" in text and "more than the 2,000" in text
    asked = text.split("ask for lines '", 1)[1].split("'", 1)[0]
    first, last = map(int, asked.split("-"))
    assert first == 1 and 40 < last < 600
    error, text, data = run_tools(memory, ("read", {"path": "export-log.md", "lines": asked}))[0]
    assert not error and data["lines"] == [1, last] and tokens.count(text) <= 2000
    assert not fitting[0] and "export run 0 finished" in fitting[1]
    error, text, _ = one_line
    assert error and "line 604 alone is more than that" in text
    assert not after[0] and "The end." in after[1]
    (memory / "tachikoma.toml").write_text("[mcp]\nread_tokens = 0\n")  # no cap: as before
    error, text, _ = run_tools(memory, ("read", {"path": "export-log.md", "lines": "604"}))[0]
    assert not error and tokens.count(text) > 20_000


def test_read_tokens_must_be_a_whole_number(memory):
    from tachikoma.errors import TachikomaError

    for bad in ("-1", "1.5", "true", '"lots"'):
        (memory / "tachikoma.toml").write_text(f"[mcp]\nread_tokens = {bad}\n")
        with pytest.raises((TachikomaError, ValueError), match="mcp.read_tokens must be a whole number"):
            load_config(memory)


def test_over_several_memories_the_files_changed_are_this_memorys(tmp_path, url, monkeypatch):
    """A search over two memories of the shared store, this one named second (`--memories notes,memory`): the answer's
    freshness is the first memory's, so the files changed since the index read them were the other memory's, and a
    budgeted reply read this memory's edited note by its old line numbers. They are now this memory's, on PostgreSQL."""
    monkeypatch.setenv(STORE_ENV, url)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "lunch.md").write_text(OTHER, encoding="utf-8")
    runner.run(other, embedder_name="hash")
    root = _memory(tmp_path / "memory")
    (root / "rates.md").write_text(RATES.replace("# Rates for 2027\n", PARKING + "# Rates for 2027\n"),
                                   encoding="utf-8")
    answer = _ask(root, "what rate do partners charge in 2027", budget_tokens=400, form="json",
                  memories=["notes", "memory"])
    assert answer["freshness"]["changed_files"] == ["rates.md"]
    quoted = "\n".join(p["text"] for p in answer["budget"]["passages"] if p["path"] == "rates.md")
    assert "€125 / hour" in quoted and "parkeervergunning" not in quoted


def test_the_index_page_says_where_a_shared_index_lives(tmp_path, url, monkeypatch):
    """A dashboard served on the PostgreSQL store said "The search index lives in <memory>/.cache/index.db": a file
    that is not its index (none, or an old SQLite one beside it). The page names the memory in its database (the
    address without a password, as every other message), and the SQLite file only on SQLite. Failed before."""
    from tachikoma_dashboard.app import create_app

    def index_page(root) -> str:
        app = create_app(memory=root, port=5000, watch=False)
        try:
            return app.test_client().get("/reindex", base_url="http://127.0.0.1:5000").get_data(as_text=True)
        finally:
            app.extensions["tachikoma"].index_job.wait(30)

    monkeypatch.setenv(STORE_ENV, url)
    page = index_page(_memory(tmp_path / "memory"))
    assert "index.db" not in page
    assert "The search index is the memory <code>memory</code> in the PostgreSQL database <code>postgresql://" in page
    monkeypatch.delenv(STORE_ENV)
    lite = _memory(tmp_path / "lite")
    assert f"The search index lives in <code>{lite}/.cache/index.db</code>" in index_page(lite)
