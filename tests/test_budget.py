"""Recall within a token budget (`budget.select`, pure): trimmed passages, never twice, duplicates once,
an adaptive cut, always one passage, and the block an agent pastes."""

import pytest

from tachikoma.replies import budget, tokens
from tachikoma.replies.budget import Unit

FILLER = ("We talked about the weather, the garden, a film we both liked, and which train goes to the lake "
          "on Sundays; nothing in this turn is about anything the question asks. ")


def result(path, lines, score, kind="transcript", trust=None, confidence=None, date="2026-03-22T09:00:00+00:00"):
    return {"path": path, "kind": kind, "lines": list(lines), "text": "", "score": score,
            "tags": {k: v for k, v in (("trust", trust), ("confidence", confidence)) if v},
            "factors": {"date": date, "vector_similarity": 0.5}}


def turns(first, texts):
    return [Unit(first + i, first + i, t) for i, t in enumerate(texts)]


def session(first=1, n=10, answer_at=6):
    texts = [f"user: {FILLER}" if i % 2 == 0 else f"assistant: {FILLER}" for i in range(n)]
    texts[answer_at - first] = "user: The retry schedule lives in billing/retry.py and backs off for 30 seconds."
    return turns(first, texts)


def test_a_passage_is_trimmed_to_the_turns_around_the_match():
    units = session()
    out = budget.select([result("s.jsonl", (1, 10), 0.8)], [units], ["retry", "schedule"], 400)
    [p] = out["passages"]
    assert "billing/retry.py" in p.text
    assert p.lines[0] <= 6 <= p.lines[1] and (p.lines[1] - p.lines[0]) < 9  # not the whole chunk
    assert p.trimmed and tokens.count(p.text) <= 0.4 * 400
    assert out["used_tokens"] <= 400
    assert p.path == "s.jsonl" and p.date.startswith("2026-03-22") and "matched retry, schedule" in p.why


def test_overlapping_chunks_never_give_a_turn_twice():
    units = session()
    first = result("s.jsonl", (1, 7), 0.8)
    second = result("s.jsonl", (5, 10), 0.75)  # the next window starts again with turns 5-7
    out = budget.select([first, second], [units[:7], units[4:]], ["retry", "schedule"], 2000)
    given = [line for p in out["passages"] for line in range(p.lines[0], p.lines[1] + 1)]
    assert len(given) == len(set(given))
    assert sum("billing/retry.py" in p.text for p in out["passages"]) == 1


def test_two_chunks_that_split_a_list_differently_never_give_a_line_twice():
    # A note's chunks overlap at line 11: one reads it as the start of a paragraph (11-13), the other as the
    # end of the list 9-11. Keyed by a paragraph's first line, "Allergic to cats" came twice.
    whole = ["# Owen", "", "Jana's partner since 2020.", "", "- Birthday: 9 December.", "- Learning German, B1.",
             "- Allergic to cats (mild).", "", "Gift ideas: Lagavulin 16."]
    from tachikoma.replies.recall import note_units

    later, earlier = note_units("\n".join(whole[6:]), 11), note_units("\n".join(whole[:7]), 5)
    assert [(u.first, u.last) for u in earlier] == [(5, 5), (7, 7), (9, 11)]
    rs = [result("people/owen.md", (11, 13), 0.9, kind="markdown"), result("people/owen.md", (5, 11), 0.8,
                                                                          kind="markdown")]
    out = budget.select(rs, [later, earlier], ["allergic", "owen"], 2000, falloff=0.0)
    given = [line for p in out["passages"] for line in range(p.lines[0], p.lines[1] + 1)]
    assert len(given) == len(set(given)) and sum("Allergic" in p.text for p in out["passages"]) == 1
    # the list's other lines stay to be chosen; a turn given in part is not given again
    [rest] = budget._not_given(earlier[2], {11, 12, 13})
    assert (rest.first, rest.last, rest.text) == (9, 10, "- Birthday: 9 December.\n- Learning German, B1.")
    assert budget._not_given(Unit(9, 11, "user: a turn over three lines"), {11}) == []


def test_the_same_fact_from_two_files_comes_once_and_says_where_else():
    fact = "The retry schedule lives in billing/retry.py and backs off for 30 seconds, then 2 minutes, then 10."
    a = result("notes/billing.md", (3, 3), 0.8, kind="markdown")
    b = result("2026-03-22/copy.md", (9, 9), 0.7, kind="markdown")
    c = result("other.md", (1, 1), 0.7, kind="markdown")
    out = budget.select([a, b, c], [[Unit(3, 3, fact)], [Unit(9, 9, "Copied: " + fact)],
                                    [Unit(1, 1, "The retry schedule changed in November.")]],
                        ["retry", "schedule"], 1000)
    assert [p.path for p in out["passages"]] == ["notes/billing.md", "other.md"]
    assert out["passages"][0].also_in == ["2026-03-22/copy.md:9-9"]
    assert out["left_out"]["duplicate"] == 1


def test_the_cut_stops_where_scores_fall_off_even_with_room_left():
    rs = [result(f"f{i}.md", (1, 1), s, kind="markdown") for i, s in enumerate([0.9, 0.8, 0.3, 0.2])]
    units = [[Unit(1, 1, f"retry note number {i}")] for i in range(4)]
    out = budget.select(rs, units, ["retry"], 5000)
    assert [p.path for p in out["passages"]] == ["f0.md", "f1.md"]
    assert out["left_out"]["below_falloff"] == 2
    assert len(budget.select(rs, units, ["retry"], 5000, falloff=0.0)["passages"]) == 4


def test_a_weak_date_says_where_it_comes_from():
    """A note dated by the commit that imported it with many others (or by its file's time) showed that day as its
    date in the block and the JSON: "which came first" read the import's day as when it happened."""
    imported = {**result("porto.md", (1, 1), 0.8, kind="markdown", date="2026-12-07T10:00:00+00:00"),
                "factors": {"date": "2026-12-07T10:00:00+00:00", "date_source": "git-import", "date_trust": "weak"}}
    own = {**result("kyoto.md", (1, 1), 0.7, kind="markdown"),
           "factors": {"date": "2026-03-02T00:00:00+00:00", "date_source": "frontmatter", "date_trust": "own"}}
    out = budget.select([imported, own], [[Unit(1, 1, "the Porto trip")], [Unit(1, 1, "the Kyoto trip")]],
                        ["trip"], 2000, falloff=0.0)
    first, second = out["passages"]
    assert "porto.md:1-1 · 2026-12-07 (imported) · (" in first.block(1)
    assert "kyoto.md:1-1 · 2026-03-02 · (" in second.block(2)
    assert budget.agent_passage(first.as_dict())["weak_date"] == "imported"
    assert "weak_date" not in budget.agent_passage(second.as_dict())

def test_the_cut_reads_how_well_a_result_answers_not_its_tags():
    """An untagged note (trust 0.6 × confidence 0.7) that answers as well as the tagged chat above it (self, high:
    0.9) scores under half of it; the cut used to leave it out with room to spare (52 of the sixteen everyday
    memories' questions lost the file their top 5 held). The tags still order the passages."""
    chat = {**result("chat.jsonl", (1, 1), 0.9 * 1.0 * 0.60, trust="self", confidence="high"),
            "factors": {"trust_weight": 0.9, "confidence_weight": 1.0, "vector_similarity": 0.6}}
    note = {**result("note.md", (1, 1), 0.6 * 0.7 * 0.55, kind="markdown"),
            "factors": {"trust_weight": 0.6, "confidence_weight": 0.7, "vector_similarity": 0.55}}
    weak = {**result("weak.md", (1, 1), 1.0 * 1.0 * 0.28, kind="markdown", trust="owner", confidence="high"),
            "factors": {"trust_weight": 1.0, "confidence_weight": 1.0, "vector_similarity": 0.28}}
    assert note["score"] < 0.5 * chat["score"] < weak["score"]
    units = [[Unit(1, 1, f"retry: {name}")] for name in ("chat", "note", "weak")]
    out = budget.select([chat, weak, note], units, ["retry"], 5000)
    assert [p.path for p in out["passages"]] == ["chat.jsonl", "note.md"]  # in rank order; the weak one off
    assert out["left_out"]["below_falloff"] == 1


def test_the_best_alone_larger_than_the_budget_still_comes_back_trimmed_around_its_match():
    long_turn = "assistant: " + FILLER * 30 + "The retry schedule lives in billing/retry.py. " + FILLER * 30
    out = budget.select([result("s.jsonl", (4, 4), 0.9)], [[Unit(4, 4, long_turn)]], ["retry", "schedule"], 60)
    [p] = out["passages"]
    assert p.trimmed and "billing/retry.py" in p.text and p.text.startswith("…")
    assert out["used_tokens"] <= 60 and tokens.count(p.text) < 60


def test_a_later_smaller_passage_fills_room_a_larger_one_cannot():
    big = [Unit(1, 1, "retry " + " ".join(f"word{i}" for i in range(300)))]
    rs = [result("a.md", (1, 1), 0.9, kind="markdown"), result("b.md", (1, 1), 0.85, kind="markdown"),
          result("c.md", (1, 1), 0.8, kind="markdown")]
    first = [Unit(1, 1, "retry: " + FILLER)]  # about 35 tokens: the 60 left are too few for b.md cut down
    out = budget.select(rs, [first, big, [Unit(1, 1, "retry in c.md")]], ["retry"], 100)
    assert [p.path for p in out["passages"]] == ["a.md", "c.md"]
    assert out["left_out"]["over_budget"] == 1 and out["used_tokens"] <= 100


def test_a_result_without_units_is_its_chunk():
    r = {**result("gone.md", (5, 7), 0.9, kind="markdown"), "text": "The retry schedule moved."}
    [p] = budget.select([r], [[]], ["retry"], 200)["passages"]
    assert p.text == "The retry schedule moved." and p.lines == (5, 7)


def test_a_budget_too_small_for_one_passage_gets_none_and_says_what_would_do():
    """Before session 34 the best result came back cut to nothing ("……") with its source line, over budget
    (39 of 10 tokens): an agent paid for a source and no evidence."""
    long_turn = "assistant: " + FILLER * 5 + "The retry schedule lives in billing/retry.py. " + FILLER * 5
    rs, units = [result("s.jsonl", (4, 4), 0.9)], [[Unit(4, 4, long_turn)]]
    for size in range(1, 200):
        out = budget.select(rs, units, ["retry"], size, reserve=12)
        assert out["used_tokens"] <= size
        if "needed" in out:
            assert out["passages"] == [] and out["needed"] > size and out["left_out"]["over_budget"] == 1
        else:
            [p] = out["passages"]  # at least FIRST_PIECE tokens of room: the match itself, not just "……"
            assert "The retry schedule" in p.text and tokens.count(p.text) > budget.FIRST_PIECE // 2
    needed = budget.select(rs, units, ["retry"], 10, reserve=12)["needed"]
    [p] = budget.select(rs, units, ["retry"], needed, reserve=12)["passages"]
    assert "billing/retry.py" in p.text


def test_the_block_quotes_a_long_question_shortened_at_a_word():
    question = "why does the nightly export fail " + "with this stack trace frame " * 30
    line = budget.header(question, 1, 10, 100)
    assert line.startswith('Memory evidence for "why does the nightly export fail with this stack')
    assert '…" (1 passage, 10 of 100 tokens):' in line and len(line) < 160
    assert budget.header("short question", 2, 10, 100) == 'Memory evidence for "short question" (2 passages, 10 of 100 tokens):'


def test_no_results_and_bad_budgets():
    assert budget.select([], [], ["x"], 100)["passages"] == []
    with pytest.raises(ValueError):
        budget.select([], [], ["x"], 0)


def test_the_agent_block_states_an_owners_sure_memory_plainly_and_hedges_the_others():
    rs = [result("martin.md", (1, 1), 0.9, kind="markdown", trust="owner", confidence="high"),
          result("rumours.md", (2, 2), 0.8, kind="markdown", trust="untrusted"),
          result("guess.md", (3, 3), 0.7, kind="markdown", trust="self", confidence="speculative")]
    units = [[Unit(1, 1, "Martin prefers short standups.")], [Unit(2, 2, "Martin hates standups, I heard.")],
             [Unit(3, 3, "Maybe Martin wants no standups at all.")]]
    chosen = budget.select(rs, units, ["standups"], 500)
    text = budget.agent_text("standups", chosen)
    blocks = text.split("\n\n")[1:]
    assert blocks[0].startswith("1.\n> Martin prefers short standups.")  # evidence first (quoted), then its source
    assert "martin.md:1-1 · 2026-03-22 · (owner, high confidence)" in blocks[0]
    assert "(untrusted source; verify)" in blocks[1]
    assert "(speculative; verify before acting)" in blocks[2]
    assert tokens.count(text) <= 500 + tokens.count(text.splitlines()[0]) + 3
    assert budget.agent_text("x", {"passages": []}).startswith("No memory matches")


def test_a_trimmed_passage_gives_the_lines_of_the_text_it_kept():
    # issue 30: the budget cut the last passage to a window around its match, but its line range still
    # began at the question before it, which the window had cut off.
    question = Unit(10, 10, "user: " + FILLER * 3)
    answer = Unit(11, 11, "assistant: The retry schedule lives in billing/retry.py. " + FILLER * 3)
    first = [Unit(1, 1, "retry: " + FILLER * 2)]
    out = budget.select([result("a.md", (1, 1), 0.9, kind="markdown"), result("s.jsonl", (10, 11), 0.85)],
                        [first, [question, answer]], ["retry", "schedule"], 200)
    p = out["passages"][-1]
    assert p.path == "s.jsonl" and p.trimmed and p.text.startswith("…assistant: The retry schedule")
    assert p.lines == (11, 11)


def test_a_note_paragraph_cut_around_its_match_gives_its_own_lines():
    paragraph = [f"Line {n}: " + FILLER for n in range(20, 26)]
    paragraph[4] = "Line 24: the retry schedule lives in billing/retry.py and backs off for 30 seconds."
    note = [Unit(20, 25, "\n".join(paragraph), lined=True)]
    [p] = budget.select([result("billing.md", (20, 25), 0.9, kind="markdown")], [note], ["retry", "schedule"], 60)["passages"]
    assert p.trimmed and "billing/retry.py" in p.text and "Line 23" not in p.text
    assert p.text.startswith("…Line 24: the retry schedule")  # the window starts at the matched line
    assert p.lines[0] == 24 and p.lines[1] - p.lines[0] == p.text.count("\n")  # one file line per line kept


def test_the_turn_before_a_chunk_is_its_context_never_its_centre():
    # LongMemEval 86b68151: the chunk is the user's turn that answers ("The new bookshelf is from IKEA"), the
    # turn before it a long assistant turn matching as many words; the tie made that turn the centre, and the
    # chunk itself no longer fitted the passage.
    before = Unit(8, 8, "assistant: Congratulations on the new bookshelf! " + FILLER * 6, context=True)
    answer = Unit(9, 9, "user: I moved things around. The new bookshelf is from IKEA, and I'm happy with it.")
    [p] = budget.select([result("s.jsonl", (9, 9), 0.9)], [[before, answer]], ["bookshelf", "new"], 1000)["passages"]
    assert "from IKEA" in p.text and p.lines[1] == 9
    # matched by meaning alone: the chunk's own first unit, then the turn before it if there is room
    [q] = budget.select([result("s.jsonl", (9, 9), 0.9)], [[before, answer]], ["unrelated"], 1000)["passages"]
    assert "from IKEA" in q.text


def test_why_says_what_matched_the_time_asked_and_a_newer_memory_that_supersedes_it():
    """An agent reads a result's why beside its score: before, a memory superseded by a newer one (its recency
    halved) did not say so, and the why began with its rank and score, which the passage already carries."""
    old = result("notes/retry.md", (1, 4), 0.41, kind="markdown")
    old["factors"].update({"recency_reason": "superseded", "time_reason": "time: 2026-03-22, asked 'in March'",
                           "superseded_by": {"path": "notes/retry-v2.md", "date": "2026-05-01T08:00:00+00:00"}})
    said = budget.why(old, ["retry", "schedule"])
    assert said == ("matched retry, schedule; time: 2026-03-22, asked 'in March'; "
                    "superseded by notes/retry-v2.md (2026-05-01)")
    assert budget.why(result("a.md", (1, 2), 0.3, kind="markdown"), []) == "close in meaning (0.50)"
    passage = budget.whole([{**old, "text": "The retry schedule: 5 s, then 30 s."}], ["Retry", "schedule"])[0]
    assert passage.why == said and passage.as_result()["score"] == 0.41 and passage.as_result()["date"] == "2026-03-22"
    assert passage.block(1, with_why=True).endswith(f"   — notes/retry.md:1-4 · 2026-03-22 · (untagged) · score 0.410; {said}\n")


def test_why_names_a_prefix_part_and_an_accented_word_it_matched():
    """A compound's first part is listed as a prefix term ("zusatz*", `search.compounds`) and the keyword index
    folds accents: before, neither counted as matched in a passage's why (nor in choosing its units), since
    "zusatz*" begins no word as written and "ecole" is not "école"."""
    note = result("chor.md", (1, 3), 0.5, kind="markdown")
    passage = budget.whole([{**note, "text": "Vor Konzerten zusätzlich zwei Proben an der école."}],
                           ["zusatz*", "Proben", "ecole", "*"])[0]
    assert passage.why.startswith("matched zusatz, proben, ecole")
    assert budget.asked(["Zusatz*", "*", "Proben"]) == ["zusatz", "proben"]


def test_a_result_under_the_falloff_is_never_read_from_its_file(tmp_path, monkeypatch):
    """Each result's file is read as `budget.select` reaches it: one under half the first's score gives no passage,
    so its file is not opened (a budgeted search ranks twenty results and gives a handful)."""
    from tachikoma.replies import recall

    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text(f"# {name}\n\nThe retry schedule is in {name}.\n", encoding="utf-8")
    answer = {"query": "retry schedule", "keywords": ["retry", "schedule"],
              "results": [{**result(name, (1, 3), score, kind="markdown"), "text": f"retry in {name}"}
                          for name, score in (("a.md", 0.8), ("b.md", 0.5), ("c.md", 0.3))]}
    opened = []
    real = recall.memory.read_text
    monkeypatch.setattr(recall.memory, "read_text", lambda root, path, *a, **k: opened.append(path) or
                        real(root, path, *a, **k))
    out = recall.within_budget(answer, 1000, tmp_path)
    assert [p["path"] for p in out["budget"]["passages"]] == ["a.md", "b.md"]
    assert out["budget"]["left_out"]["below_falloff"] == 1
    assert opened == ["a.md", "b.md"]
