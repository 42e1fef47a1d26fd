"""One explanation text (`tachikoma.search.explain`), said in the same words by every face: the command
line, the MCP server's text answer and the dashboard's explanation panel.

Before it, each face worded the score itself and they had drifted: the command line said "second chunk
of file", MCP "(2nd passage of the file)" and the dashboard "a better passage from this file ranks
above"; an unset trust was "untagged" on two faces and "trust: none (missing or invalid)" on the third.
"""

from __future__ import annotations

import json

import pytest
from markupsafe import escape

from tachikoma_dashboard.app import create_app
from tachikoma.replies import budget
from tachikoma.cli import main
from tachikoma.embedders import offline_default
from tachikoma.mcp_answers import answer_text
from tachikoma.search import explain
from web_helpers import build_index, copy_memory

QUERY, AS_OF = "Martin", "2026-11-01"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = copy_memory(tmp_path_factory.mktemp("explain") / "memory")
    build_index(root, offline_default())  # the model the example's results are worded for
    return root


def cli(root, capsys, *extra) -> str:
    assert main(["--memory", str(root), "search", "--in-process", "--as-of", AS_OF, "--limit", "10", *extra,
                 QUERY]) == 0
    return capsys.readouterr().out


def same_results(a: dict, b: dict) -> list[tuple]:
    return [(r["path"], r["chunk"], round(r["score"], 6)) for r in a["results"]] == \
           [(r["path"], r["chunk"], round(r["score"], 6)) for r in b["results"]]


def test_every_face_says_the_same_words_for_the_same_result(root, capsys):
    answer = json.loads(cli(root, capsys, "--json"))
    printed = cli(root, capsys).splitlines()
    mcp = answer_text(answer)
    client = create_app(memory=root, port=5000).test_client()
    served = client.get(f"/api/search?q={QUERY}&limit=10&as_of={AS_OF}", headers={"Host": "127.0.0.1:5000"})
    html = client.get(f"/?q={QUERY}&limit=10&as_of={AS_OF}", headers={"HX-Request": "true", "Host": "127.0.0.1:5000"})
    assert served.status_code == 200 and html.status_code == 200
    assert same_results(answer, served.get_json())  # the same results, so the same explanations are due
    page = html.get_data(as_text=True)
    results = answer["results"]
    # The example holds what drifted: a file's second passage and files with no trust set.
    assert any(r["factors"]["duplicate_penalty"] < 1 for r in results)
    assert any(r["factors"]["trust"] is None for r in results)
    for n, r in enumerate(results, 1):
        said = explain.sentence(r)
        assert printed[printed.index(next(p for p in printed if p.startswith(f"{n:2}. "))) + 1] == f"    = {said}"
        # MCP gives an agent each result's source, trust in words and score, and why in a few words (not the
        # arithmetic: `tachikoma search --json` keeps it)
        trust = budget.trust_words(r["tags"].get("trust"), r["tags"].get("confidence"))
        weak = budget.weak_date(r["factors"])  # a date from the commit that imported the note says so
        day = r["factors"]["date"][:10] + (f" ({weak})" if weak else "")
        assert (f"   — {r['path']}:{r['lines'][0]}-{r['lines'][1]} · {day} · ({trust}) · "
                f"score {r['score']:.3f}") in mcp
        assert f"<code>{explain.arithmetic(r)}</code>" in page
        for x in explain.factors(r):  # each factor's own row: its name and the same words for why
            assert f'<th scope="row">{x.name}</th>' in page
            assert f">{escape(x.why)}</td>" in page
    second = next(r for r in results if r["factors"]["duplicate_penalty"] < 1)
    assert explain.sentence(second).endswith(f"× {second['factors']['duplicate_penalty']:.2f} duplicate penalty "
                                             f"({explain.REPEAT})")
    assert "second chunk of file" not in "\n".join(printed) and "2nd passage" not in mcp
    untagged = next(r for r in results if r["factors"]["trust"] is None)
    assert f"trust ({explain.NOT_SET})" in explain.sentence(untagged)


def test_the_sentence_multiplies_what_the_arithmetic_does():
    f = {"similarity": 0.46, "vector_similarity": 0.3, "keyword_score": 0.7,
         "fusion": {"method": "convex", "keyword_weight": 0.4}, "trust": "owner", "trust_weight": 1.0,
         "confidence": None, "confidence_weight": 0.6, "age_days": 3.2, "date_source": "git",
         "date": "2026-03-01T00:00:00+00:00", "recency": 0.8, "recency_reason": "age", "recency_rule": "default",
         "time": 0.85, "time_reason": "time: 2026-03-01, asked 'in February', outside 2026-02",
         "duplicate_penalty": 0.8}
    r = {"score": 0.46 * 0.6 * 0.8 * 0.85 * 0.8, "factors": f}
    assert explain.sentence(r) == (
        "0.46 similarity (0.60 × meaning 0.30 + 0.40 × keywords 0.70) × 1.00 trust (owner)"
        " × 0.60 confidence (not set or invalid)"
        " × 0.80 recency (2026-03-01, 3 days ago, from its last content commit)"
        " × 0.85 time (2026-03-01, asked 'in February', outside 2026-02)"
        " × 0.80 duplicate penalty (a better passage from this file ranks above)")
    assert explain.formula(r) == "similarity × trust × confidence × recency × time × duplicate penalty = score"
    assert explain.arithmetic(r) == "0.46 × 1.00 × 0.60 × 0.80 × 0.85 × 0.80 = 0.15"
    assert [x.name for x in explain.factors(r) if x.part] == ["meaning", "keywords"]


def test_a_passage_read_by_the_multilingual_reader_says_its_cosine_was_put_on_the_index_scale():
    """"meaning 0.56 (the passage is in Spanish: cosine 0.38 of the multilingual reader (muse)'s embeddings)" on the
    command line left a reader wondering how 0.38 made 0.56: the dashboard's panel said "on this index's embedder's
    scale", the one-line sentence did not (the E5 scale's line says "on a scale from 0.76"). It says so now."""
    f = {"similarity": 0.56, "vector_similarity": 0.56, "keyword_score": 0.43,
         "fusion": {"method": "convex", "keyword_weight": 0.4, "meaning_alone": True},
         "read_by": {"embedder": "muse:universal-sentence-encoder-multilingual-3", "cosine": 0.38,
                     "language": "Spanish", "query_language": "English"}}
    assert explain.fusion_text(f) == (
        "meaning 0.56 (the passage is in Spanish: cosine 0.38 of the multilingual reader (muse)'s embeddings, put on "
        "this index's scale) alone: the passage is not in the question's language, so keywords (0.43) do not weigh "
        "on it")
