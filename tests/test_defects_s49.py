"""Session 49: four defects left last session, each against real files, a real index and real processes.

1. An index made before a tool's output ahead of a session's first turn was kept (session 48) reads its sessions
   again, though their files did not change (the chunking signature, `chunking.VERSION`).
"""

from __future__ import annotations

import json

from gitrepo import tachikoma_cli
from test_inputs_s48 import ANSWER, EARLY_OUTPUT, jsonl, output_line

# --------------------------------------------------------------------------- 1. early tool outputs, indexed before


def test_an_index_made_before_early_outputs_were_kept_reads_the_session_again(tmp_path, monkeypatch):
    """The reader started keeping a tool's output that comes before a session's first turn, but the chunking
    signature stayed the same: an indexed session got its early output only when its file next changed."""
    from tachikoma import chunking
    from tachikoma.indexer import runner

    root = tmp_path / "memory"
    path, lines = EARLY_OUTPUT["claude-code"]
    (root / path).parent.mkdir(parents=True)
    (root / path).write_text(jsonl(lines), encoding="utf-8")
    (root / "notes.md").write_text("# Notes\n\nThe deploy runs on Fridays.\n")

    # The index the previous tachikoma wrote: chunking version 6, whose reader left an early output out.
    with monkeypatch.context() as previous:
        previous.setattr(chunking, "VERSION", 6)
        previous.setattr("tachikoma.transcripts.place_early_outputs", lambda result: result.early_outputs.clear())
        runner.run(root, embedder_name="hash")

    def found() -> list[dict]:
        done = tachikoma_cli(root, "search", "zebrafish vault", "--json", "--min-score", "0")
        assert done.returncode == 0, done.stderr
        return [r for r in json.loads(done.stdout)["results"] if r["tool_matches"]]

    assert found() == []  # what the previous version's index held
    done = tachikoma_cli(root, "index", "--embedder", "hash", "--json")  # the file untouched
    assert done.returncode == 0, done.stderr
    [result] = found()
    assert result["path"] == path
    [match] = result["tool_matches"]
    assert (match["side"], match["line"]) == ("output", output_line(lines)) and ANSWER in match["excerpt"]
    summary = json.loads(done.stdout)
    assert summary["rechunked"] == 2 and summary["chunks_embedded"] == 0, summary  # read again, nothing embedded
