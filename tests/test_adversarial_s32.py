"""Adversarial checks of session 32's changes: a question that gathers from several memories ("how many",
"in total") read again with the best passages of its best files, and words found nowhere not weighed in a
memory whose held words all have FTS5's floor idf."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from test_gathering import AS_OF, NOTES, HarbourEmbedder, Nearest
from test_hybrid import TopicEmbedder

from tachikoma.config import Config, load_config
from tachikoma.embedders.names import E5_SMALL
from tachikoma.indexer import runner
from tachikoma.search import explain
from tachikoma.search.keywords import nowhere_weight
from tachikoma.search.searcher import Searcher

QUESTION = "How many boat trips in total?"


def indexed(root, notes: dict[str, str], embedder) -> None:
    root.mkdir()
    for name, text in notes.items():
        (root / name).write_text(text)
    runner.run(root, Config(), embedder=embedder)


@pytest.mark.parametrize("shortlist", [False, True])
def test_a_file_deleted_since_the_index_neither_widens_the_question_nor_is_named(tmp_path, monkeypatch, shortlist):
    # Only the files of the results were checked: with one result asked for, two.md (deleted) still widened
    # the question and was named in `widened_by`, though a result never names a file gone from the folder.
    root = tmp_path / "memory"
    indexed(root, NOTES, HarbourEmbedder())
    (root / "two.md").unlink()
    searcher = Searcher(root, load_config(root), embedder=HarbourEmbedder())
    if shortlist:  # every index is "large": the widened question's nearest are ranked a second time
        from tachikoma.search import vector_index

        monkeypatch.setattr(vector_index, "open_or_build", lambda folder, key, matrix, ids: (Nearest(matrix), False))
        monkeypatch.setattr(vector_index, "shortlist_size", lambda n, dim: 4)
        searcher.vector_index_min_chunks = 2
    try:
        answer = searcher.search(QUESTION, 1, as_of=AS_OF, min_score=0.0)
        assert (searcher.snapshot().vector_index is not None) == shortlist
    finally:
        searcher.close()
    assert answer["widened_by"] == [{"path": "one.md"}, {"path": "three.md"}]
    assert [r["path"] for r in answer["results"]] == ["one.md"]
    assert answer["freshness"]["missing_files"] == 1


class ScaledEmbedder(HarbourEmbedder):
    """HarbourEmbedder's topics over a shared direction, under e5-small's name: every cosine is high, and the
    ranking reads it on e5-small's scale (`scoring.SIMILARITY_SCALES`)."""

    name = E5_SMALL
    dim = 4

    def _vector(self, text):
        words = [w.strip(".,:?!").lower() for w in text.split()]
        return np.array([words.count("boat"), words.count("harbour"), words.count("lemons"), 2.0], dtype=np.float32)


def test_a_widened_meaning_is_explained_by_the_cosine_it_was_read_from(tmp_path):
    # The widened meaning was shown with the question's own cosine: "meaning 0.40 (cosine 0.75 on a scale from
    # 0.76)", a cosine below the scale's start giving 0.40. The cosine shown is the widened question's.
    root = tmp_path / "memory"
    indexed(root, {"one.md": "# One\nboat harbour boat\n", "two.md": "# Two\nboat harbour\n",
                   "three.md": "# Three\nboat harbour harbour\n", "four.md": "# Four\nharbour harbour harbour\n",
                   "five.md": "# Five\nlemons lemons\n"}, ScaledEmbedder())
    searcher = Searcher(root, load_config(root), embedder=ScaledEmbedder())
    try:
        answer = searcher.search(QUESTION, 5, as_of=AS_OF, min_score=0.0)
    finally:
        searcher.close()
    assert answer["widened_by"]
    for r in answer["results"]:
        factors = r["factors"]
        scale = factors["meaning_scale"]
        read = max((scale["cosine"] - scale["c0"]) / (1 - scale["c0"]), 0.0)
        assert read == pytest.approx(factors["vector_similarity"], abs=1e-5), r["path"]
    widened_only = [r for r in answer["results"] if r["factors"]["meaning_from_question"] == 0.0]
    assert widened_only and all(r["factors"]["meaning_scale"]["cosine"] > 0.76 for r in widened_only)


def test_widening_never_turns_no_good_match_into_a_match(tmp_path):
    # With the keyword part off for counting questions, b.md shares nothing with the question (its meaning is
    # 0): not a match. Widened by a.md, its meaning became more than 0 and its keywords (75% of the question's
    # words) decided that the answer had a good match, which the question alone does not have.
    root = tmp_path / "memory"
    indexed(root, {"a.md": "# A\nboat harbour\n", "b.md": "# B\nharbour ferry trips: many trips in total\n",
                   "c.md": "# C\nlemons\n", "d.md": "# D\noranges\n", "e.md": "# E\npears\n", "f.md": "# F\nplums\n"},
            HarbourEmbedder())
    answers, decided = {}, {}
    for files in (3, 0):
        config = replace(Config(), search=replace(Config().search, counting_keyword_weight=0.0, feedback_files=files))
        searcher = Searcher(root, config, embedder=HarbourEmbedder())
        try:  # decide=False keeps the results (and the files that widened) of an answer without a match
            answers[files] = searcher.search(QUESTION, 5, as_of=AS_OF, min_score=0.9, decide=False)
            decided[files] = searcher.search(QUESTION, 5, as_of=AS_OF, min_score=0.9)
        finally:
            searcher.close()
    assert answers[0]["no_good_match"] and answers[0]["match"]["answered_by"] is None
    assert answers[3]["widened_by"] == [{"path": "a.md"}]
    assert answers[3]["match"] == answers[0]["match"] and answers[3]["no_good_match"]
    assert decided[3]["no_good_match"] and decided[3]["results"] == [] and decided[3]["widened_by"] == []


def _deploying_memory(root):
    """Four notes and an agent's session that ran eight shell commands, two of them ./deploy.sh."""
    root.mkdir()
    notes = {"release.md": "# Release\nWe deploy the shop on Fridays after the meeting.\n",
             "garden.md": "# Garden\nThe garden shed needs a new roof.\n", "boat.md": "# Boat\nThe boat needs paint.\n",
             "invoice.md": "# Invoice\nThe invoice was paid.\n"}
    for name, text in notes.items():
        (root / name).write_text(text)
    base = {"sessionId": "s1", "cwd": "/home/ana/shop", "version": "2.1.3", "isSidechain": False,
            "userType": "external"}
    commands = ["./deploy.sh staging", "./deploy.sh production", "make build", "make test", "git status",
                "git log -1", "ls dist", "du -sh dist"]
    lines = [
        {**base, "type": "user", "uuid": "u0", "timestamp": "2026-03-02T10:00:00Z",
         "message": {"role": "user", "content": "Ship the new shop build to the servers."}},
        {**base, "type": "assistant", "uuid": "a0", "timestamp": "2026-03-02T10:00:05Z",
         "message": {"id": "m0", "role": "assistant", "model": "x", "content": [
             {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": c}}
             for i, c in enumerate(commands)]}},
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-03-02T10:00:09Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}
                                                 for i in range(len(commands))]}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-03-02T10:01:00Z",
         "message": {"id": "m1", "role": "assistant", "model": "x",
                     "content": [{"type": "text", "text": "The build is out."}]}},
    ]
    (root / "session.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    runner.run(root, Config(), embedder=TopicEmbedder())


def test_tool_texts_do_not_make_a_word_seem_held_in_half_of_the_chunks(tmp_path):
    # "deploy" is in 2 of the 5 chunks and in 2 of the 16 tool texts: a real weight in both. Its counts added
    # together (4 of 5 "chunks") made it look as if every held word had FTS5's floor idf, so "kubernetes",
    # found nowhere, was no longer weighed nor named.
    root = tmp_path / "memory"
    _deploying_memory(root)
    searcher = Searcher(root, Config(), embedder=TopicEmbedder())
    try:
        assert searcher.snapshot().chunk_count == 5 and searcher.store.tool_text_count() == 16
        answer = searcher.search("deploy kubernetes", 5, as_of=AS_OF)
        alone = searcher.search("deploy", 5, as_of=AS_OF)
    finally:
        searcher.close()
    assert answer["keywords_nowhere"] == ["kubernetes"]
    assert max(r["factors"]["keyword_score"] for r in answer["results"]) < 1.0
    assert alone["keywords_nowhere"] == [] and max(r["factors"]["keyword_score"] for r in alone["results"]) == 1.0
    # the rule reads chunks and tool texts each against their own number
    assert nowhere_weight({"deploy": 4, "kubernetes": 0}, 5, ({"deploy": 2}, 16))[0] == ["kubernetes"]
    assert nowhere_weight({"dentist": 2, "checkup": 0}, 2, ({"dentist": 1}, 2)) == ([], 0.0)
    assert nowhere_weight({"dentist": 2, "checkup": 0}, 2, ({"dentist": 1}, 3))[0] == ["checkup"]


def test_a_passage_without_full_vectors_is_not_said_to_be_read_with_the_widened_question(tmp_path, monkeypatch):
    # Only passages with this index's own full vectors are read again; one the run has not embedded yet is
    # found by its keywords alone, yet its explanation said the question "was read together with the best
    # passages of the files it matched best".
    from test_tiers import Stopping

    from tachikoma.embedders.hashing import HashingEmbedder
    from tachikoma.indexer import pipeline

    monkeypatch.setattr(pipeline, "EMBED_SLICE", 4)
    root = tmp_path / "memory"
    root.mkdir()
    for i in range(12):  # the newest four are embedded first
        ferry = " by ferry" if i < 3 else ""
        (root / f"n{i:02}.md").write_text(f"---\nupdated: 2026-03-{i + 1:02}\n---\n# Trip {i}\n"
                                          f"boat trip number {i} to the harbour{ferry}\n")
    with pytest.raises(KeyboardInterrupt):
        runner.run(root, embedder=Stopping(stop_after=4))
    searcher = Searcher(root, embedder=HashingEmbedder(512))
    try:
        answer = searcher.search("how many ferry boat trips in total", 12, as_of=AS_OF, min_score=0.0)
    finally:
        searcher.close()
    assert answer["widened_by"]
    kinds = {r["path"]: r["factors"].get("vectors") for r in answer["results"]}
    assert {None, "none"} <= set(kinds.values())
    for r in answer["results"]:
        said = explain.meaning_why(r["factors"])
        assert (explain.WIDENED in said) == (r["factors"].get("vectors") is None), r["path"]
        assert ("meaning_from_question" in r["factors"]) == (r["factors"].get("vectors") is None), r["path"]


def test_a_hostile_file_name_among_the_widening_files_is_inert_on_the_page_and_the_command_line(tmp_path):
    """Held, pinned: the names `widened_by` lists are escaped by the dashboard and printed by `printable`."""
    from html import unescape

    from test_app import make_client, run_cli

    from tachikoma_dashboard.app import create_app

    root = tmp_path / "memory"
    root.mkdir()
    names = ["<img src=x onerror=alert(1)>.md", "red\x1b[31m\u202e.md", "two\nlines.md"]
    for name in names:
        (root / name).write_text("# Boats\nboat trips to the harbour, three boat trips\n")
    runner.run(root, embedder_name="hash")
    query = "how many boat trips in total"
    app = create_app(memory=root, port=5000)
    try:
        client = make_client(app)
        answer = client.get("/api/search", query_string={"q": query, "min_score": 0}).get_json()
        html = client.get("/", query_string={"q": query, "min_score": 0}).get_data(as_text=True)
    finally:
        app.extensions["tachikoma"].index_job.wait(30)
    assert sorted(w["path"] for w in answer["widened_by"]) == sorted(names)
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;.md" in html
    assert "read together with" in unescape(html)
    printed = run_cli("--memory", str(root), "search", "--in-process", "--min-score", "0", query)
    line = printed.splitlines()[-1]
    assert line.startswith("a question that gathers from several memories: read together with")
    assert "\\x1b[31m\\u202e.md" in line and "two\\nlines.md" in line and "\x1b" not in printed
