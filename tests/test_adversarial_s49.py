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


@pytest.mark.parametrize(("question", "things"), [
    ("Which did I read first: War and Peace, Crime and Punishment, or Pride and Prejudice?",
     ["War and Peace", "Crime and Punishment", "Pride and Prejudice"]),
    ("Which came out first: Tom and Jerry, Bonnie and Clyde, or Romeo and Juliet?",
     ["Tom and Jerry", "Bonnie and Clyde", "Romeo and Juliet"]),
    ("Which did I watch first: Before Sunrise, Heat, or Romeo and Juliet?", ["Before Sunrise", "Heat", "Romeo and Juliet"]),
])
def test_the_last_of_a_list_of_titles_keeps_its_and(question, things):
    """A list of titles is a list of things even when a title holds "and", but the last title after ", or" was cut
    at its "and" as a list's last two are: "Pride", "Prejudice" searched alone, four things named for three."""
    from tachikoma.search.parts import named

    assert named(question) == things


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


# --------------------------------------------------------------------------- front matter: carriage returns in the fence

#: Notes whose lines end with a line feed, but whose opening fence's comment holds two carriage returns alone: each
#: followed by a comment or nothing, which every YAML reader reads as such (as two U+2028 there are read).
TWO_CRS = {
    "two-comments.md": "--- # tags\r# see the wiki\r# and the runbook\ntrust: owner\n---\n# Printer\n\nFloor 3.\n",
    "cr-then-blank.md": "--- # tags\r\r# see the wiki\ntrust: owner\n---\n# Printer\n\nFloor 3.\n",
}


@pytest.mark.parametrize("name", sorted(TWO_CRS))
def test_two_carriage_returns_in_the_fence_of_a_note_whose_lines_end_with_line_feeds_are_no_classic_mac(
        tmp_path, name):
    """The second carriage return in the fence's comment made the note one "whose lines end with a carriage return
    alone (classic Mac OS line endings)" (convert it with mac2unix), though every line of it ends with a line feed
    and U+2028 in the same two places is read: it is read as one carriage return there is, and tagged so."""
    from tachikoma.reading.frontmatter import read_front_matter, split
    from tachikoma.tagging.edit import edit_markdown
    from tachikoma.tagging.model import Change

    text = TWO_CRS[name]
    assert split(text.replace("\r", "\u2028")).meta == {"trust": "owner"}  # as U+2028 there is read
    fm = split(text)
    assert fm.error is None and fm.meta == {"trust": "owner"}, fm.error
    (tmp_path / name).write_bytes(text.encode())
    assert read_front_matter(tmp_path / name).meta == {"trust": "owner"}
    tagged = edit_markdown(text.encode(), Change(path=name, kind="markdown", before={}, after={"confidence": "high"}))
    assert tagged.decode().endswith("trust: owner\nconfidence: high\n---\n# Printer\n\nFloor 3.\n")
    assert tagged.decode().startswith(text.split("\n", 1)[0] + "\n")  # the fence's line kept byte for byte


@pytest.mark.parametrize("text", ["---\rtrust: owner\r---\rbody\r", "---\rtrust: owner\r---\rbody\r\n",
                                  "--- # tags\r# see\r# more\rtrust: owner\r---\rbody\r", "---\rtrust: owner\rbody\r",
                                  "---\r", "--- # tags\r"])
def test_a_note_whose_front_matter_does_end_its_lines_with_carriage_returns_is_still_named_so(tmp_path, text):
    from tachikoma.reading.frontmatter import CR_ONLY, read_front_matter, split

    assert split(text).error == CR_ONLY
    (tmp_path / "old-mac.md").write_bytes(text.encode())
    assert read_front_matter(tmp_path / "old-mac.md").error == CR_ONLY



# --------------------------------------------------------------------------- humanize: a query with no word to look for


def test_the_evidence_without_its_query_is_told_of_its_words():
    """`no_match_reason` of an answer's evidence without its query (tests/test_newuser_s47.py) said "the query holds
    no word to look for": a missing query was read as "?"."""
    from tachikoma.humanize import no_match_reason

    match = {"best_vector_similarity": 0.30, "min_score": 0.44, "best_keyword_coverage": 0.40, "keyword_floor": 0.45}
    said = no_match_reason({"match": match, "min_score": 0.44})
    assert "no word to look for" not in said and "most of the query's words (best 40%, needs 45%)" in said, said


@pytest.mark.parametrize("query", ["the", "of the", "was it"])
def test_a_query_of_function_words_alone_is_told_it_holds_no_word_to_look_for(tmp_path, query):
    """"?" is told "the query holds no word to look for", but "the" (whose keywords are none: a function word is
    not looked for) was still told "no passage holds most of the query's words (best 0%, needs 45%)", on every
    face: no passage could, the query holds none."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "bob.md").write_text("# Bob\n\nBob plays the cello on Tuesdays at the community hall.\n")
    assert tachikoma_cli(root, "index").returncode == 0
    answer = json.loads(tachikoma_cli(root, "search", query, "--json").stdout)
    assert answer["no_good_match"] and answer["keywords"] == []
    for args in ((), ("--budget", "300")):
        done = tachikoma_cli(root, "search", query, *args)
        assert "the query holds no word to look for" in done.stdout + done.stderr, done.stdout
        assert "most of the query's words" not in done.stdout + done.stderr


def test_a_word_in_every_passage_or_in_none_is_still_a_word_the_query_holds(tmp_path):
    """"Where does Martin live?" in a memory about Martin: "Martin" is in every passage and "live" in none, so neither
    is a keyword, and the answer was told "the query holds no word to look for" (the test above's rule read the
    empty keyword lists). The query holds words; no passage holds most of them."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "martin.md").write_text("# Martin\n\nMartin designs motor controllers in Munich.\n")
    (root / "meetings.md").write_text("# Meetings\n\nMartin prefers short stand-ups at 09:30.\n")
    assert tachikoma_cli(root, "index").returncode == 0
    answer = json.loads(tachikoma_cli(root, "search", "Where does Martin live?", "--json", "--min-score", "0.9").stdout)
    assert answer["no_good_match"] and answer["keywords"] == [] and "no_words" not in answer["match"]
    said = tachikoma_cli(root, "search", "Where does Martin live?", "--min-score", "0.9").stdout
    assert "no word to look for" not in said and "most of the query's words" in said, said
