"""Session 48's adversarial pass on its own changes: a question naming several things (`search.parts`), the budgeted
reply, early tool output in transcripts, the dashboard's "partly undone", front matter's odd line breaks, the
secrets count. Each test says what was broken and failed before its fix, or pins what held."""

from __future__ import annotations

import json

import pytest

from tachikoma.search.parts import named
from test_cli import tachikoma

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --------------------------------------------------------------------------- 1. a question naming several things

NOTES = {
    "work/office.md": "# Office move\n\nThe office moves to the third floor in March; desks are numbered.\n",
    "work/ending.md": "# Project end\n\nIn the end the project shipped two weeks late; the end of the sprint slipped.\n",
    "garden.md": "# Garden\n\nThe tomatoes need staking; the compost bin is full again.\n",
    "travel/porto.md": "# Porto\n\nFlights to Porto for the long weekend, 20 to 23 June. Stay near Ribeira.\n",
}


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    root = tmp_path_factory.mktemp("s48") / "memory"
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    assert tachikoma("index", "--memory", str(root)).returncode == 0
    return root


def search_json(root, question: str, *args: str) -> dict:
    done = tachikoma("search", question, "--memory", str(root), "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("question", [
    "Honestly, in the end, nobody knew the giraffe's tax return",
    "Frankly, at the office, the giraffe's tax return",
    "Yesterday, at the office, the giraffe said the deploy broke",
])
def test_a_sentence_set_off_by_commas_is_not_a_list_of_things(question):
    """A sentence's opening words ("Honestly,", "in the end,", "at the office,") set off by commas were read as
    things and searched on their own: "in the end" alone matched any note holding "end", so a question about a
    giraffe's tax return, which no memory holds, got ten results and no "no good match". Failed before."""
    assert named(question) == []


def test_a_sentence_with_commas_abstains_as_it_did(notes):
    for question in ("Honestly, in the end, nobody knew the giraffe's tax return",
                     "Frankly, at the office, the giraffe's tax return"):
        out = search_json(notes, question)
        assert out["no_good_match"] and not out["results"] and "named_parts" not in out, out["results"]


def test_a_thing_named_twice_is_searched_once(notes):
    """"Vienna, Porto, Kosmos, porto, Vienna" searched Porto and Vienna twice each (two searches for nothing), and
    the answer listed "Porto" twice, the second "(0 results)": the first took them all. Failed before."""
    assert named("Vienna, Porto, Kosmos, porto, Vienna") == ["Vienna", "Porto", "Kosmos"]
    assert named("the Porto trip, the Porto trip, the porto trip") == []  # one thing: the question as asked
    out = search_json(notes, "the garden, Porto, the office move, porto")
    assert [p["part"] for p in out["named_parts"]] == ["the garden", "Porto", "the office move"]


# --------------------------------------------------------------------------- 5. front matter's odd line breaks


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"])
@pytest.mark.parametrize("piece", ["\t# see the wiki", " \t", "  \t# pasted"])
def test_a_tab_after_a_yaml_break_in_the_opening_comment_is_reported(tmp_path, char, piece):
    """`--- # tags<U+2028><tab># see the wiki`: YAML 1.1 (PyYAML, tachikoma's reader) ends the line at U+2028, and a
    line that opens with a tab is an error to it ("found character '\\t' that cannot start any token"), as the same
    tab after a plain line break is to tachikoma (malformed front matter at line 2). It was read as front matter
    (its trust given to the note) because the piece "looks like a comment". Now reported as malformed, saying why.
    Failed before."""
    import yaml

    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import split

    text = f"--- # tags{char}{piece}\ntrust: owner\n---\n# Printer\n"
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text.split("\n---\n")[0])  # the YAML tachikoma reads with cannot read it
    fm = split(text)
    assert fm.meta == {} and fm.error and fm.error.startswith("malformed front matter at line 1: "), fm
    assert "tab" in fm.error, fm.error
    (tmp_path / "printer.md").write_text(text, encoding="utf-8")
    assert reader.read_document(tmp_path, "printer.md", "markdown").tags.trust is None


def test_spaces_and_a_comment_after_a_yaml_break_are_still_read():
    from tachikoma.reading.frontmatter import split

    for piece in ("", "   ", "  # pasted\t", "# a\tb"):
        fm = split(f"--- # tags\u2028{piece}\ntrust: owner\n---\nbody\n")
        assert fm.error is None and fm.meta == {"trust": "owner"}, (piece, fm.error)


# --------------------------------------------------------------------------- 1b. what every face does after a search


def parts_memory(tmp_path, shop):
    """Three notes, one per thing named; the Porto note names a file of `shop` changed since (stale)."""
    from tachikoma.indexer import runner

    root = tmp_path / "memory"
    (root / "2026-10-20").mkdir(parents=True)
    (root / "2026-10-20" / "porto.md").write_text(
        f"# Porto\n\nFlights to Porto for the long weekend; the booking script is billing/retry.py of {shop}.\n")
    (root / "2026-10-20" / "garden.md").write_text("# Garden\n\nThe tomatoes need staking; compost bin full.\n")
    (root / "2026-10-20" / "office.md").write_text("# Office move\n\nThe office moves to the third floor.\n")
    runner.run(root, embedder_name="hash")
    return root


QUESTION = "Which came first: the tomatoes, the Porto flights, or the office move?"


def test_a_things_count_says_what_the_answer_holds_after_fresh_only(tmp_path):
    """`search --fresh-only`: a result found for a thing and left out as stale was still counted for it
    ("“the Porto flights” (1 result)" over an answer without it; `named_parts` in JSON and MCP the same). Now each
    thing's count is of the results the answer holds. Failed before."""
    from test_staleness import make_shop

    root = parts_memory(tmp_path, make_shop(tmp_path))
    out = search_json(root, QUESTION, "--fresh-only", "--embedder", "hash")
    assert out["staleness"]["left_out"] >= 1 and "porto.md" not in str(out["results"])
    counted = {p["part"]: p["results"] for p in out["named_parts"]}
    for part, n in counted.items():
        assert n == sum(part in [r.get("found_for"), *r.get("also_found_for", [])] for r in out["results"]), (
            part, counted, out["results"])


def test_a_stale_results_cost_moves_it_alone(tmp_path):
    """`[staleness] factor = 0.5` cuts a stale result's score and ranks the results again, by raw score: over an
    answer put together from a question's search and its things' (each ranked by its score relative to its own
    search's best), that undid the putting together (the question's own best fell below a thing's second). Now the
    results are ranked again as they were put together, the stale one's score cut: the others keep their order.
    Failed before."""
    from test_staleness import make_shop

    root = parts_memory(tmp_path, make_shop(tmp_path))
    (tmp_path / "half.toml").write_text("[staleness]\nfactor = 0.5\n", encoding="utf-8")
    plain = search_json(root, QUESTION, "--embedder", "hash")
    costed = search_json(root, QUESTION, "--embedder", "hash", "--config", str(tmp_path / "half.toml"))
    assert any("stale" in r for r in costed["results"]) and plain["named_parts"]
    fresh = [r["path"] for r in costed["results"] if "stale" not in r]
    assert fresh == [r["path"] for r in plain["results"] if r["path"] in fresh]


def test_several_memories_name_each_thing_as_their_merged_answer_holds_it(tmp_path, url, monkeypatch):
    """`search --memories notes,trips` on a shared store: each memory's answer was put together from its things', then
    the memories' answers were merged by raw score and ``named_parts`` was the first memory's alone: with the things
    all in the second, the answer named none, though its results were found for them. Now the things are each
    memory's together (a good match in any is one) and counted over the merged results. Failed before."""
    from tachikoma.indexer import runner
    from tachikoma.search.pool import search_memories
    from tachikoma.store import STORE_ENV

    monkeypatch.setenv(STORE_ENV, url)
    notes, trips = tmp_path / "notes", tmp_path / "trips"
    for root, files in ((notes, {"garden.md": "# Garden\n\nThe tomatoes need staking; compost bin full.\n"}),
                        (trips, {"porto.md": "# Porto\n\nFlights to Porto for the long weekend in June.\n",
                                 "kyoto.md": "# Kyoto\n\nThe ryokan in Kyoto is booked for April, two nights.\n",
                                 "vienna.md": "# Vienna\n\nElena gives her soil talk in Vienna in March.\n"})):
        root.mkdir()
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8")
        (root / "tachikoma.toml").write_text(f'[store]\nname = "{root.name}"\n', encoding="utf-8")
        runner.run(root, embedder_name="hash")
    question = "Which came first: the Porto flights, the Kyoto ryokan, or Elena's Vienna talk?"
    trips_alone = search_memories(notes, ["trips"], question, 10, min_score=0.9)
    notes_alone = search_memories(notes, ["notes"], question, 10, min_score=0.9)
    assert trips_alone.get("named_parts") and not notes_alone.get("named_parts")
    both = search_memories(notes, ["notes", "trips"], question, 10, min_score=0.9)  # keywords decide
    assert [p["part"] for p in both.get("named_parts") or []] == [p["part"] for p in trips_alone["named_parts"]]
    for p in both["named_parts"]:
        assert p["results"] == sum(r.get("found_for") == p["part"] for r in both["results"]), both["named_parts"]
    trips_order = [r["path"] for r in trips_alone["results"]]
    assert [r["path"] for r in both["results"] if r["memory"] == "trips"] == trips_order  # as trips put them


# --------------------------------------------------------------------------- 4. partly undone


def test_a_file_restored_by_hand_before_undo_the_rest_counts_as_restored(git_memory):
    """A note left by an Undo (read-only) and then put back by hand as it was before the tagging (its former bytes,
    writable again): "Undo the rest" found its tags "changed since the tagging" and left it, every time, so the
    tagging stayed listed as partly undone, its Undo never done. What is left to undo is done when the file already
    holds what the undo would write."""
    from gitrepo import tag
    from tachikoma.tagging import undoing

    note = git_memory / "martin.md"
    before = note.read_bytes()
    applied = tag(git_memory, "*", "external")
    note.chmod(0o444)
    outcome = undoing.undo(git_memory, applied)
    assert outcome.state == undoing.PARTLY and "martin.md" in outcome.rest.paths
    note.chmod(0o644)
    note.write_bytes(before)  # put back by hand
    last = undoing.undo(git_memory, outcome.rest, earlier=outcome.progress)
    assert last.rest is None and last.state == undoing.UNDONE, (last.headline(), last.progress.left)
    assert last.headline() == "Undone: 1 file restored" and "martin.md already held its tags" in last.note()
    assert "by an earlier Undo" in last.note() and sorted(last.progress.restored) == sorted(applied.paths)
    assert note.read_bytes() == before
