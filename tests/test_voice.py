"""A question about its asker: a transcript passage holding only the agent's turns weighs less (`search.voice`),
on a real index of JSONL sessions, on both engines; the factor is in the explanation and in the score."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from tachikoma.config import load_config
from tachikoma.indexer import runner
from tachikoma.search import explain
from tachikoma.search.searcher import Searcher
from tachikoma.search.voice import AGENT_ONLY, ANY, about_asker, voice_of
from tachikoma.store import STORE_ENV

NOW = datetime(2026, 7, 1, tzinfo=timezone.utc)
ADVICE = ("Knee pain after running usually comes from the kneecap tracking badly, a tight iliotibial band or a "
          "meniscus strain. A sports medicine doctor or an orthopaedic surgeon can examine the joint, and a "
          "physiotherapist can give you exercises that strengthen the quadriceps and the hips. ") * 8


@pytest.mark.parametrize("question, about", [
    ("Which doctors did I see about my knee?", True),
    ("What's my dentist called?", True),
    ("I've lost the name of the knee doctor, who was it?", True),
    ("How many doctors did I visit in total?", True),
    ("Which doctors treat knee pain?", False),
    ("What does Martin do for a living?", False),
    ("How many months have passed since I saw the knee doctor?", False),  # the time between events
    ("How many days ago did I buy a smoker?", False),
    ("How many hours did I spend driving in total?", True),  # a total of hours, not the time between events
])
def test_which_questions_are_about_their_asker(question, about):
    assert about_asker(question, "") is about


def test_a_question_in_another_language_is_not_read():
    assert not about_asker("Welche Ärzte habe ich besucht? I", "German")


@pytest.mark.parametrize("text, voice", [
    ("[2026-06-01, Monday 1 June 2026]\nuser: I saw Dr. Patel\nassistant: Good.", ANY),
    ("[2026-06-01, Monday 1 June 2026]\nassistant: Knee pain usually comes from …", AGENT_ONLY),
    ("assistant → subagent Explore: find the tests\nassistant: Done.", AGENT_ONLY),
    ("system: You are Tachi.\nassistant: Hello.", AGENT_ONLY),
    ("# A note\nNo turns at all.", ANY),
    ("Caroline: hi\nMelanie: hello", ANY),  # a conversation between people: nobody is the agent
])
def test_whose_turns_a_passage_holds(text, voice):
    assert voice_of(text) == voice


def _session(path: Path, turns: list[tuple[str, str]], day: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"role": role, "content": text, "timestamp": f"{day}T10:00:00Z"}) + "\n"
                            for role, text in turns), encoding="utf-8")


@pytest.fixture
def memory(tmp_path) -> Path:
    root = tmp_path / "memory"
    _session(root / "sessions" / "knee.jsonl",
             [("user", "My knee hurts after running, what could it be?"), ("assistant", ADVICE)], "2026-06-01")
    _session(root / "sessions" / "patel.jsonl",
             [("user", "I saw Dr. Patel about my knee today, she thinks it is the kneecap."),
              ("assistant", "Thanks, I noted that Dr. Patel examined your knee.")], "2026-06-10")
    return root


def _search(root: Path, question: str, **kw) -> dict:
    searcher = Searcher(root)
    try:
        return searcher.search(question, limit=10, now=NOW, min_score=0, config=load_config(root), **kw)
    finally:
        searcher.close()


def _by_passage(answer: dict) -> dict:
    return {(r["path"], r["chunk"]): r for r in answer["results"]}


def _checks_the_agents_words(root: Path) -> None:
    question = "Which knee doctor did I see?"
    ruled = _by_passage(_search(root, question))
    agent_only = [r for r in ruled.values() if "agents_words" in r["factors"]]
    assert agent_only and all(r["path"] == "sessions/knee.jsonl" and "user:" not in r["text"] for r in agent_only)
    assert all("user:" in r["text"] for r in ruled.values() if "agents_words" not in r["factors"])
    first = agent_only[0]
    assert first["factors"]["agents_words"] == pytest.approx(0.85)
    assert "0.85 agent's words (the question is about you" in explain.sentence(first)
    # The factor is one of the score's: the same search with the rule off scores that passage / 0.85.
    (root / "tachikoma.toml").write_text("[ranking]\nagents_words = 1\n", encoding="utf-8")
    plain = _by_passage(_search(root, question))
    assert not any("agents_words" in r["factors"] for r in plain.values())
    key = (first["path"], first["chunk"])
    assert first["score"] == pytest.approx(plain[key]["score"] * 0.85, rel=1e-6)
    (root / "tachikoma.toml").unlink()
    # Not a question about its asker, or one about the time between events: nothing weighs less.
    for other in ("Which knee doctor examines runners?", "How many days have passed since I saw the knee doctor?"):
        assert not any("agents_words" in r["factors"] for r in _search(root, other)["results"])


def test_the_agents_words_weigh_less_for_a_question_about_the_asker(memory):
    runner.run(memory, embedder_name="hash")
    _checks_the_agents_words(memory)
    cached = list((memory / ".cache").glob("vectors-*.voices.npy"))
    assert len(cached) == 1  # read once per generation, kept beside the vector cache
    voices = np.load(cached[0])
    assert voices.dtype == np.int8 and set(voices.tolist()) == {int(ANY), int(AGENT_ONLY)}


def test_a_memory_without_transcripts_reads_no_voices(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "knee.md").write_text("# Knee\nI saw Dr. Patel about my knee.\n", encoding="utf-8")
    runner.run(root, embedder_name="hash")
    answer = _search(root, "Which knee doctor did I see?")
    assert answer["results"] and not any("agents_words" in r["factors"] for r in answer["results"])
    assert not list((root / ".cache").glob("vectors-*.voices.npy"))


def test_the_agents_words_on_postgres(memory, tmp_path, url, monkeypatch):
    monkeypatch.setenv(STORE_ENV, url)
    other = tmp_path / "other"
    _session(other / "sessions" / "x.jsonl", [("assistant", "Another memory in the same database.")], "2026-06-02")
    runner.run(other, embedder_name="hash")
    runner.run(memory, embedder_name="hash")
    _checks_the_agents_words(memory)
    # One memory's passages only: the other memory's, in the same database, are not read.
    searcher = Searcher(memory)
    try:
        with searcher.store.reading():
            read = searcher.store.map_chunk_texts(len)
            assert sorted(read) == sorted(searcher.snapshot().chunk_ids.tolist())
    finally:
        searcher.close()
