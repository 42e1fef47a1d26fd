"""What is left of an English negation once the keyword index splits it ("didn't": "didn", "t") is never a word
the memory is missing (session 47): "Why didn't we switch to Postgres?" in a memory that never writes "didn't"
lacks no subject, and the answer does not say "not in this memory: didn". Where a passage says it, it is a
keyword still (LoCoMo's answers say "I won't …")."""

from test_everyday_rules import ask, put, put_unrelated

from tachikoma.indexer import runner
from tachikoma.search.keywords import nowhere_weight


def test_a_negation_found_nowhere_is_not_missing():
    assert nowhere_weight({"didn": 0, "t": 0, "switch": 2, "Postgres": 3}, 40) == ([], 0.0)
    for word in ("doesn", "don", "isn", "wasn", "couldn", "shouldn", "wouldn", "haven"):
        assert nowhere_weight({word: 0, "t": 0, "backup": 2}, 40) == ([], 0.0)


def test_a_name_or_a_word_of_its_own_found_nowhere_is_still_missing():
    missing, weight = nowhere_weight({"Don": 0, "call": 2}, 40)  # Don, a name
    assert missing == ["Don"] and weight > 0
    missing, _ = nowhere_weight({"won": 0, "match": 2}, 40)  # "Who won the match?"
    assert missing == ["won"]


def test_the_answer_names_no_negation_as_missing_and_a_note_saying_it_still_matches(tmp_path):
    root = tmp_path / "mem"
    put(root, "adr/0002-database.md", "We stay on SQLite with Litestream backups; Postgres would add a server.\n")
    put(root, "chats/why.md", "The migration to Postgres didn't happen: the switch was too costly.\n")
    put_unrelated(root)
    runner.run(root, embedder_name="hash")
    answer = ask(root, "why didn't we switch to Postgres?", "2026-12-07")
    assert "didn" not in answer["keywords_nowhere"] and "t" not in answer["keywords_nowhere"]
    assert answer["results"][0]["path"] == "chats/why.md"  # it says "didn't", "switch" and "Postgres"

    put(root, "chats/why.md", "The migration to Postgres was dropped: the switch was too costly.\n")
    runner.run(root, embedder_name="hash")
    answer = ask(root, "why didn't we switch to Postgres?", "2026-12-07")
    assert answer["keywords_nowhere"] == []
    by_path = {r["path"]: r["factors"]["keyword_score"] for r in answer["results"]}
    # nothing is missing from a match that holds "switch" and "Postgres": the best one counts whole
    assert by_path["chats/why.md"] == 1.0
