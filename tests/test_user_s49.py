"""Session 49: a demanding user's pass over the session 47 and 48 changes (usability breaks)."""

from __future__ import annotations

import json

from tachikoma.humanize import named_text
from tachikoma.search.parts import merged, recounted


def _answer(results, no_good_match=False):
    return {"query": "q", "keywords": [], "results": results, "no_good_match": no_good_match,
            "match": {"answered_by": None if no_good_match else "meaning"}}


def _result(path, score, chunk=0):
    return {"path": path, "chunk": chunk, "score": score, "lines": [1, 2]}


def test_a_thing_whose_best_is_the_questions_own_best_is_not_said_to_have_found_nothing():
    """"Which came first: Elena's talk in Vienna, the climbing refresher at Kosmos, or the Porto trip?": the
    question's own best was elena.md, and so was the search for "Elena's talk in Vienna"'s. The tie went to the
    question's own, and every face said “Elena's talk in Vienna” (0 results), though elena.md, its best, was the
    answer's first result."""
    whole = _answer([_result("elena.md", 0.44), _result("wohnung.md", 0.21)])
    elena = _answer([_result("elena.md", 0.62), _result("wohnung.md", 0.05)])
    kosmos = _answer([_result("jonas.md", 0.70), _result("journal.md", 0.05)])
    porto = _answer([_result("porto.md", 0.69), _result("mia.md", 0.15)])
    out = merged(whole, ["Elena's talk in Vienna", "Kosmos", "the Porto trip"], [elena, kosmos, porto], limit=10)
    assert out["results"][0]["path"] == "elena.md" and "found_for" not in out["results"][0]  # ranked as before
    counts = {p["part"]: p["results"] for p in out["named_parts"]}
    assert counts["Elena's talk in Vienna"] == 1, out["named_parts"]
    assert "“Elena's talk in Vienna” (1 result)" in named_text(out)
    assert {p["part"]: p["results"] for p in recounted(out)["named_parts"]} == counts  # counted again the same
    cut = recounted({**out, "results": out["results"][1:]})  # a cut that leaves it out no longer counts it
    assert {p["part"]: p["results"] for p in cut["named_parts"]}["Elena's talk in Vienna"] == 0


def test_remember_on_the_command_line_is_mcps_remember(tmp_path):
    """`tachikoma remember --help`: "The same remembering as MCP's `remember` tool". MCP's note is `self` and
    `medium`, never partly tagged (docs/agents.md); the command line's was `self` and no confidence, so `stats`
    counted it partly tagged, it ranked below the same note written by MCP (confidence 0.7, not 0.9), and MCP's
    retry of it wrote a copy (`-2`) instead of finding it."""
    from mcp_helpers import run_tools
    from test_daily_use import run
    from web_helpers import copy_memory

    root = copy_memory(tmp_path / "memory")
    code, out, err = run("--memory", str(root), "remember", "The lab door code changed on Monday.", "--title",
                         "Lab door", "--json")
    assert code == 0, err
    written = (root / "lab-door.md").read_text()
    assert "trust: self" in written and "confidence: medium" in written, written
    [(failed, text, done)] = run_tools(root, ("remember", {"text": "The lab door code changed on Monday.",
                                                           "title": "Lab door"}))
    assert not failed and done["already_remembered"] and done["path"] == "lab-door.md", text


def test_a_passage_matched_only_in_its_tool_calls_is_not_said_to_be_close_in_meaning():
    """MCP's `search` "zebrafinch cluster port" over a Claude Code session whose tool output alone held those words
    gave the passage `"why": "close in meaning (0.00)"` beside `"tools": "keywords 100% from tool calls: ..."`:
    a cosine of 0.00 is not close, and meaning was not why it was chosen (session 47 added ``tools`` for this, and
    left the why). It says where it matched."""
    from tachikoma.replies.budget import why

    result = {"path": "s.jsonl", "factors": {"vector_similarity": 0.0012, "keyword_in_tools": 1.0},
              "tool_matches": [{"tool": "Bash", "side": "output", "line": 4, "excerpt": "zebrafinch-cluster"}]}
    said = why(result, [])
    assert "close in meaning" not in said and "tool calls" in said, said
    plain = {"path": "a.md", "factors": {"vector_similarity": 0.52}}
    assert why(plain, []) == "close in meaning (0.52)"


def test_a_query_with_no_word_is_told_so(tmp_path):
    """`search "?"` said "no passage holds most of the query's words (best 0%)" of a query that holds none."""
    from tachikoma.humanize import no_match_reason

    match = {"answered_by": None, "best_vector_similarity": 0.14, "best_keyword_coverage": 0.0, "min_score": 0.44,
             "keyword_floor": 0.45, "pair_floors": [0.3, 0.33], "best_pair_coverage": 0.0}
    said = no_match_reason({"query": "?", "match": match})
    assert said == "nothing is close enough in meaning (best 0.14, floor 0.44) and the query holds no word to look for"
    assert no_match_reason({"query": "?", "match": match}, brief=True) == said
    assert "most of the query's words" in no_match_reason({"query": "zxqv?", "match": match})


def test_a_note_is_found_by_the_other_name_its_front_matter_gives_it(tmp_path):
    """Obsidian's `aliases`: "HK" found the meeting note linking to `[[Hannah Kessler|HK]]` first and her own note,
    whose front matter names her HK, far below; "Prof. Kessler" got no good match."""
    notes = {"People/Hannah Kessler.md": "---\naliases: [Prof. Kessler, HK]\ntags: [people]\n---\n# Hannah Kessler\n\n"
                                         "My second supervisor. Office 3.14 in the Informatics Forum.\n",
             "sync.md": "# Weekly sync\n\nMet [[Hannah Kessler|HK]] about the annotation scheme. #meeting\n",
             "climbing.md": "# Climbing\n\nBouldering at Alien Rock on Thursdays.\n",
             "groceries.md": "# Groceries\n\nOat milk, lentils, coffee.\n"}
    from test_cli import tachikoma

    for path, text in notes.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert tachikoma("index", "--memory", str(tmp_path)).returncode == 0
    answer = json.loads(tachikoma("search", "Prof. Kessler", "--memory", str(tmp_path), "--json").stdout)
    assert not answer["no_good_match"] and answer["results"][0]["path"] == "People/Hannah Kessler.md"
    answer = json.loads(tachikoma("search", "HK", "--memory", str(tmp_path), "--json").stdout)
    hers = next(r for r in answer["results"] if r["path"] == "People/Hannah Kessler.md")
    assert hers["factors"]["keyword_score"] > 0  # found by the name, as the note linking to her is


def test_a_templates_placeholder_in_front_matter_is_said_in_words_a_writer_can_act_on():
    """An Obsidian daily-note template (`created: {{date:YYYY-MM-DD}}`, in the blind Obsidian vault) was reported
    as "malformed front matter at line 3: found unhashable key": braces inside braces are a mapping used as a key
    to YAML. It says so and how to write it; the note is still read whole as text."""
    from tachikoma.reading.frontmatter import split

    read = split("---\ntags: [daily]\ncreated: {{date:YYYY-MM-DD}}\n---\n# {{date:dddd D MMMM YYYY}}\n")
    assert read.error == ("malformed front matter at line 3: a key that is itself a mapping, as {{date}} is to YAML "
                          "(braces inside braces), such as a template's placeholder: quote it (\"{{date}}\")")
    assert "# {{date:dddd D MMMM YYYY}}" in read.body
