"""The relevance floor (min_score, no_good_match), results that never name a deleted file, freshness in
every answer, and the floor's measurement (`tachikoma eval abstention`)."""

import json
import os
import time

import numpy as np
import pytest

from tachikoma.indexer import runner
from tachikoma.cli import main
from tachikoma.config import load_config
from tachikoma.errors import TachikomaError
from tachikoma.evaluation import abstention
from tachikoma.search.scoring import KEYWORD_FLOOR, MEASURED_FLOORS, relevance_floor
from tachikoma.search.searcher import Searcher
from test_eval_locomo import tiny


@pytest.fixture
def hashed(memory):
    runner.run(memory, embedder_name="hash")
    s = Searcher(memory)
    yield s
    s.close()


#: No chunk holds most of its words (the four cities are nowhere), so the floor applies to every chunk. Not a list
#: set off by commas: one question, not four things searched on their own too (`search.parts`).
QUERY = "DRV8353 gate driver samples for Zanzibar Timbuktu Ouagadougou and Ulaanbaatar"


def test_floor_decides_for_the_whole_answer_and_never_hides_a_result(hashed):
    """The issue's report: a per-chunk floor on the cosine dropped the very note the keyword side ranked
    first (a date, an identifier), so answers lost the right file. The floor now decides whether the answer
    has a good match at all; when it has, every result of `min_score=0` is there, in the same order."""
    everything = hashed.search(QUERY, limit=50, min_score=0)
    assert everything["results"] and everything["no_good_match"] is False and everything["min_score"] == 0
    vectors = sorted(r["factors"]["vector_similarity"] for r in everything["results"])
    floor = vectors[len(vectors) // 2]
    kept = hashed.search(QUERY, limit=50, min_score=floor)
    assert any(r["factors"]["vector_similarity"] < floor for r in kept["results"]), "weaker meaning is kept"
    assert [(r["path"], r["chunk"]) for r in kept["results"]] == [(r["path"], r["chunk"]) for r in everything["results"]]
    assert [r["score"] for r in kept["results"]] == pytest.approx([r["score"] for r in everything["results"]])
    assert kept["match"]["answered_by"] == "meaning" and kept["match"]["best_vector_similarity"] == vectors[-1]
    none = hashed.search(QUERY, limit=50, min_score=1.0)
    assert none["results"] == [] and none["no_good_match"] is True
    assert none["match"]["answered_by"] is None and none["match"]["best_keyword_coverage"] < KEYWORD_FLOOR
    with pytest.raises(TachikomaError, match="min_score"):
        hashed.search("x", min_score=1.5)


def test_a_chunk_holding_every_word_of_the_query_passes_the_floor(hashed):
    """An identifier means little to an embedder: "DRV8353" alone has a low cosine even with the notes that
    name it, and the floor answered "no good match" (with MiniLM: "88-1234", "CN-1041", "92"). A chunk
    holding (nearly) every word of the query, weighted by rarity, makes the answer a match; made-up words
    and a query with a rare word that is nowhere still get no good match."""
    found = hashed.search("DRV8353", limit=50, min_score=0.99)
    assert found["no_good_match"] is False and found["results"]
    assert found["match"]["answered_by"] == "keywords" and found["match"]["best_keyword_coverage"] == 1.0
    assert all("drv8353" in r["text"].lower() for r in found["results"])
    assert all(r["factors"]["vector_similarity"] < 0.99 for r in found["results"])
    for query in ("zxqv blorf", "DRV8353 Zanzibar Timbuktu"):
        assert hashed.search(query, limit=50, min_score=0.99)["no_good_match"] is True
    assert hashed.search("DRV8353 Zanzibar Timbuktu", limit=50, min_score=0)["results"]  # the floor, not the words


def test_floor_comes_from_settings_else_the_embedder(memory, hashed):
    assert relevance_floor("hash:256") == 0.0 and relevance_floor("ollama:nomic-embed-text") == 0.0
    assert 0 < MEASURED_FLOORS["minilm:all-MiniLM-L6-v2"] < 1
    assert hashed.search("DRV8353", min_score=None)["min_score"] == 0.0
    (memory / "tachikoma.toml").write_text("[search]\nmin_score = 0.99\n")
    answer = hashed.search("DRV8353 Zanzibar Timbuktu", config=load_config(memory))
    assert answer["min_score"] == 0.99 and answer["no_good_match"] is True
    for bad in ("1.5", "-0.1", "true", '"high"'):
        (memory / "tachikoma.toml").write_text(f"[search]\nmin_score = {bad}\n")
        with pytest.raises(TachikomaError, match="min_score"):
            load_config(memory)


def test_a_deleted_or_renamed_file_leaves_the_results_at_once(memory, hashed):
    query = "Martin meetings"
    before = hashed.search(query, limit=50)
    paths = [r["path"] for r in before["results"]]
    assert "martin.md" in paths and before["freshness"]["missing_files"] == 0
    (memory / "martin.md").rename(memory / "martin-renamed.md")
    hashed._freshness = None  # the freshness cache lasts a couple of seconds
    after = hashed.search(query, limit=50)
    assert "martin.md" not in [r["path"] for r in after["results"]]
    assert all((memory / r["path"]).exists() for r in after["results"])
    assert len(after["results"]) == min(50, len(before["results"]) - paths.count("martin.md"))
    assert after["freshness"]["missing_files"] == 1 and after["freshness"]["changed_since"] == 2


def test_many_deleted_files_are_all_left_out(memory, hashed):
    everything = hashed.search("the", limit=100, min_score=0)
    files = sorted({r["path"] for r in everything["results"]})
    for path in files[:-1]:
        os.remove(memory / path)
    answer = hashed.search("the", limit=3, min_score=0)
    assert {r["path"] for r in answer["results"]} <= {files[-1]}


def test_every_answer_says_how_fresh_the_index_is(memory, hashed):
    fresh = hashed.search("Martin")["freshness"]
    assert fresh["state"] == "complete" and fresh["changed_since"] == 0
    stamp = fresh["last_indexed_at"]
    assert abs(time.time() - _epoch(stamp)) < 120
    (memory / "new.md").write_text("# New\nA note the index has not seen.\n")
    hashed._freshness = None
    assert hashed.search("Martin")["freshness"]["changed_since"] == 1


def _epoch(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp()


def test_cli_min_score_and_no_good_match(memory, capsys):
    runner.run(memory, embedder_name="hash")
    assert main(["--memory", str(memory), "search", "DRV8353 Zanzibar", "--min-score", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no good match: nothing is close enough in meaning") and "floor 1)" in out
    assert "search without the floor: tachikoma search --min-score 0 'DRV8353 Zanzibar'" in out
    assert main(["--memory", str(memory), "search", "DRV8353", "--json", "--min-score", "0"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["no_good_match"] is False and answer["freshness"]["changed_since"] == 0
    with pytest.raises(SystemExit) as exit_:  # a mistyped command line: usage, exit 2
        main(["--memory", str(memory), "search", "DRV8353", "--min-score", "2"])
    assert exit_.value.code == 2
    assert "argument --min-score: '2' is not a number from 0 to 1" in capsys.readouterr().err
    (memory / "martin.md").write_text("# changed\n")
    assert main(["--memory", str(memory), "search", "DRV8353"]) == 0
    assert "the index is not up to date (1 file changed" in capsys.readouterr().err


def test_floor_report_counts_by_hand():
    rows = ([{"set": "answerable", "vector": v, "coverage": c, "R@5": r}
             for v, c, r in ((0.5, 0.9, 1.0), (0.6, 0.0, 0.5), (0.7, 0.0, 1.0), (0.8, 0.0, 0.0))]
            + [{"set": "elsewhere", "vector": v, "coverage": 0.5} for v in (0.3, 0.55, 0.65)]
            + [{"set": "nonsense", "vector": v, "coverage": 0.0} for v in (0.1, 0.2)])
    vector = {s: np.array([r["vector"] for r in rows if r["set"] == s]) for s in abstention.SETS}
    coverage = {s: np.array([r["coverage"] for r in rows if r["set"] == s]) for s in abstention.SETS}
    recall = np.array([r["R@5"] for r in rows if r["set"] == "answerable"])
    row = abstention.floor_row(vector, 0.6, coverage, 0.8, recall)
    assert row["recall"] == 1.0, "0.5 is answered by its keywords (0.9 >= 0.8)"
    assert row["cost"] == 0.0
    assert row["abstain_elsewhere"] == pytest.approx(2 / 3, abs=1e-4) and row["abstain_nonsense"] == 1.0
    assert row["answer_precision"] == 0.8  # 4 answerable of 5 answered (0.65 elsewhere)
    assert row["abstain_precision"] == 1.0
    row = abstention.floor_row(vector, 0.65, coverage, 1.01, recall)
    assert row["recall"] == 0.5 and row["cost"] == pytest.approx((1.0 + 0.5) / 4), "the R@5 of 0.5 and 0.6 is lost"
    result = abstention.report(rows, max_cost=0.2)
    assert result["chosen"]["floor"] == 0.7 and result["chosen"]["cost"] == 0.125, \
        "above 0.6 the R@5 of 0.6 is lost (0.5 / 4); above 0.7 also 0.7's (1.0 / 4): over 0.2"
    assert abstention.report(rows, max_cost=0.0)["chosen"]["floor"] == 0.6, "the highest floor losing nothing"
    pairs = {p["keyword_floor"]: p for p in result["pairs"]}
    assert pairs[0.8]["floor"] == 0.7, "at the search's own keyword floor, the chosen floor"
    assert pairs[1.01]["floor"] == 0.5 and pairs[1.01]["cost"] == 0.0, \
        "meaning alone: above 0.5 the question its keywords answered is lost (1.0 / 4: over 0.2)"
    assert result["meta"]["queries"] == {"answerable": 4, "elsewhere": 3, "nonsense": 2}
    assert result["meta"]["session_R@5_without_floor"] == 0.625
    assert abstention.nonsense_queries() == abstention.nonsense_queries()  # the same every run


def test_eval_abstention_end_to_end(tmp_path, capsys):
    data = tmp_path / "locomo-tiny.json"
    data.write_text(json.dumps(tiny()))
    out, work = tmp_path / "out", tmp_path / "work"
    assert main(["eval", "abstention", str(data), "--embedder", "hash", "--work", str(work), "--out", str(out),
                 "--quiet", "--max-cost", "0.5"]) == 0
    assert capsys.readouterr().out.startswith("chosen min_score")
    result = json.loads((out / "abstention.json").read_text())
    # conv-t1 has 3 answerable questions with evidence (one adversarial, one without evidence), conv-t2 one;
    # each conversation is asked the other's adversarial questions (conv-t2 has none) and the nonsense.
    assert result["meta"]["queries"] == {"answerable": 4, "elsewhere": 1,
                                         "nonsense": 2 * abstention.NONSENSE_QUERIES}
    assert (out / "abstention.md").read_text().startswith("# Relevance floor")
    assert "Both floors chosen together" in (out / "abstention.md").read_text()
    kept = [json.loads(line) for line in (out / "per_query.jsonl").read_text().splitlines()]
    assert abstention.report(kept, max_cost=0.5)["chosen"] == result["chosen"], "the report again from the rows"
    # The indexes stay in the work folder for the next run.
    assert sorted(p.relative_to(work).parts[1] for p in work.glob("*/*/.cache/index.db")) == ["conv-t1", "conv-t2"]
    with pytest.raises(SystemExit) as exit_:  # a mistyped command line: usage, exit 2
        main(["eval", "abstention", str(data), "--work", str(work), "--max-cost", "1"])
    assert exit_.value.code == 2


def test_floor_report_counts_the_pair_rule_within_its_margin_of_each_floor():
    # one answerable question reaches neither floor alone, but a chunk holding a third of its words has cosine
    # 0.31: answered at the floor 0.44 (0.31 >= 0.44 - 0.14), not at 0.46
    vector = {"answerable": np.array([0.35]), "elsewhere": np.array([0.2]), "nonsense": np.array([0.1])}
    coverage = {"answerable": np.array([0.4]), "elsewhere": np.array([0.0]), "nonsense": np.array([0.0])}
    paired = {"answerable": np.array([0.31]), "elsewhere": np.array([0.0]), "nonsense": np.array([0.0])}
    assert abstention.floor_row(vector, 0.44, coverage, 0.45, None, paired)["recall"] == 1.0
    assert abstention.floor_row(vector, 0.46, coverage, 0.45, None, paired)["recall"] == 0.0
    assert abstention.floor_row(vector, 0.44, coverage, 0.45, None, None)["recall"] == 0.0
