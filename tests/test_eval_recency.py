"""The recency sets: generated cases that are varied and fair, and the measurement through the search."""

from collections import Counter

import pytest

from tachikoma.cli import main
from tachikoma.evaluation import recency


def test_at_least_200_varied_cases_each_with_ages_1_to_400_days():
    updates, exact = recency.build()
    assert len(updates) >= 200 and len(exact) >= 200
    for cases in (updates, exact):
        ages = [m.age_days for c in cases for m in c.memories]
        assert min(ages) >= 1 and max(ages) <= 400
        assert max(ages) - min(ages) > 350, "the whole range is used"
        assert len({c.query for c in cases}) == len(cases), "no question is asked twice"
        words = Counter(c.query.split()[0].lower() for c in cases)
        assert len(words) >= 8, "varied phrasings, not one template"
    for case in updates:
        old, new = case.memories
        assert case.target == new.key and old.age_days >= new.age_days + 30
    for case in exact:
        answer, *fresh = case.memories
        assert case.target == answer.key and all(f.age_days < answer.age_days for f in fresh)
    assert recency.build() == recency.build(), "the same cases every run"
    assert recency.build(seed=9) != recency.build()


def test_memories_are_dated_every_way(tmp_path):
    updates, exact = recency.build(30)
    where = recency.write_memory(updates + exact, tmp_path)
    kinds = Counter(path.split("/")[0] for path in where.values())
    assert set(kinds) == {"sessions", "notes", "daily", "journal", "inbox"}
    assert len(where) == sum(len(c.memories) for c in updates + exact)


@pytest.mark.parametrize("kind, ranked, expected", [
    ("update", ["b", "a"], True), ("update", ["a", "b"], False), ("update", ["b"], True), ("update", ["a"], False),
    ("update", [], False), ("exact", ["b", "a"], True), ("exact", ["a", "b"], False),
])
def test_what_passes(kind, ranked, expected):
    case = recency.Case(kind, "q", "B", ["A"], [])
    assert recency.passed(case, ranked, {"A": "a", "B": "b"}) is expected


def test_eval_recency_command(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["eval", "recency", "--embedder", "hash", "--cases", "12", "--work", str(tmp_path / "w"),
                 "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| knowledge updates (newer above older) |" in printed and "| off | default | strong | seed |" in printed
    assert (out / "recency.json").exists() and (out / "recency.md").read_text().startswith("| set |")
