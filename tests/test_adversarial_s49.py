"""Session 49's adversarial pass: each test failed on the session's changes before its fix."""

from __future__ import annotations

import json

import pytest

from gitrepo import tachikoma_cli

# --------------------------------------------------------------------------- search.parts: a title among other parts

NOT_LISTS = [
    "Did Alice, Bob and Carol ever visit the giraffe's tax office?",
    "Was Alice, Bob or Carol at the giraffe's tax office?",
    "Is Paris, London or Rome the capital of the giraffes?",
    "By The Way, For The Record, Just Saying, the giraffe",
    "In The Meantime, On The Other Hand, At The Office, the giraffe paid taxes",
]


@pytest.mark.parametrize("question", NOT_LISTS)
def test_a_name_after_a_question_word_is_no_title_unless_every_part_is_one(question):
    """"Did Alice" is written as a title (two capitalised words) and was read as a thing, so a plain question about
    three people became a list ("Did Alice", "Bob", "Carol ever visit …"): only a list of titles reads a title that
    opens with a question word or a preposition as a thing."""
    from tachikoma.search.parts import named

    assert named(question) == []


def test_a_question_no_memory_answers_is_not_answered_through_a_name_read_as_a_title(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in {"alice": "Alice moved to Porto in 2025 and works on the payments team.",
                       "bob": "Bob plays the cello on Tuesdays at the community hall.",
                       "carol": "Carol runs the climbing gym Kosmos since spring."}.items():
        (root / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n")
    assert tachikoma_cli(root, "index").returncode == 0
    done = tachikoma_cli(root, "search", NOT_LISTS[0], "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["no_good_match"] and not answer["results"] and not answer.get("named_parts"), answer
