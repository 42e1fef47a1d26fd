"""The relevance floor (min_score, no_good_match), results that never name a deleted file, freshness in
every answer, and the floor's measurement (`tachikoma eval abstention`)."""

import json
import os
import time

import numpy as np
import pytest

from tachikoma import indexer
from tachikoma.cli import main
from tachikoma.config import load_config
from tachikoma.errors import TachikomaError
from tachikoma.evaluation import abstention
from tachikoma.search import MEASURED_FLOORS, Searcher, relevance_floor
from test_eval_locomo import tiny


@pytest.fixture
def hashed(memory):
    indexer.run(memory, embedder_name="hash")
    s = Searcher(memory)
    yield s
    s.close()


#: No chunk holds every word of it ("Zanzibar" is nowhere), so the floor applies to every chunk.
QUERY = "DRV8353 gate driver samples for Zanzibar"


def test_floor_applies_to_vector_similarity_and_says_no_good_match(hashed):
    everything = hashed.search(QUERY, limit=50, min_score=0)
    assert everything["results"] and everything["no_good_match"] is False and everything["min_score"] == 0
    vectors = sorted(r["factors"]["vector_similarity"] for r in everything["results"])
    floor = vectors[len(vectors) // 2]
    kept = hashed.search(QUERY, limit=50, min_score=floor)
    assert kept["results"] and all(r["factors"]["vector_similarity"] >= floor for r in kept["results"])
    # Everything at or above the floor is still there; only weaker meaning is gone.
    assert {(r["path"], r["chunk"]) for r in kept["results"]} == \
           {(r["path"], r["chunk"]) for r in everything["results"] if r["factors"]["vector_similarity"] >= floor}
    none = hashed.search(QUERY, limit=50, min_score=1.0)
    assert none["results"] == [] and none["no_good_match"] is True
    with pytest.raises(TachikomaError, match="min_score"):
        hashed.search("x", min_score=1.5)


def test_a_chunk_holding_every_word_of_the_query_passes_the_floor(hashed):
    """An identifier means little to an embedder: "DRV8353" alone has a low cosine even with the notes that
    name it, and the floor answered "no good match" (with MiniLM: "88-1234", "CN-1041", "92"). A chunk
    holding every word of the query passes the floor; made-up words and a query with a word that is
    nowhere still get no good match."""
    found = hashed.search("DRV8353", limit=50, min_score=0.99)
    assert found["no_good_match"] is False and found["results"]
    assert all("drv8353" in r["text"].lower() for r in found["results"])
    assert all(r["factors"]["vector_similarity"] < 0.99 for r in found["results"])
    for query in ("zxqv blorf", "DRV8353 Zanzibar"):
        assert hashed.search(query, limit=50, min_score=0.99)["no_good_match"] is True
    assert hashed.search("DRV8353 Zanzibar", limit=50, min_score=0)["results"]  # the floor, not the words


def test_floor_comes_from_settings_else_the_embedder(memory, hashed):
    assert relevance_floor("hash:256") == 0.0 and relevance_floor("ollama:nomic-embed-text") == 0.0
    assert 0 < MEASURED_FLOORS["minilm:all-MiniLM-L6-v2"] < 1
    assert hashed.search("DRV8353", min_score=None)["min_score"] == 0.0
    (memory / "tachikoma.toml").write_text("[search]\nmin_score = 0.99\n")
    answer = hashed.search("DRV8353 Zanzibar", config=load_config(memory))
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
    indexer.run(memory, embedder_name="hash")
    assert main(["--memory", str(memory), "search", "DRV8353 Zanzibar", "--min-score", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no good match") and "min_score 1" in out
    assert main(["--memory", str(memory), "search", "DRV8353", "--json", "--min-score", "0"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["no_good_match"] is False and answer["freshness"]["changed_since"] == 0
    assert main(["--memory", str(memory), "search", "DRV8353", "--min-score", "2"]) == 1
    assert "--min-score must be between 0 and 1" in capsys.readouterr().err
    (memory / "martin.md").write_text("# changed\n")
    assert main(["--memory", str(memory), "search", "DRV8353"]) == 0
    assert "the index is not up to date (1 file changed" in capsys.readouterr().err


def test_floor_report_counts_by_hand():
    rows = ([{"set": "answerable", "similarity": s, "vector": s} for s in (0.5, 0.6, 0.7, 0.8)]
            + [{"set": "elsewhere", "similarity": s, "vector": s} for s in (0.3, 0.55, 0.65)]
            + [{"set": "nonsense", "similarity": s, "vector": s} for s in (0.1, 0.2)])
    values = {s: np.array([r["vector"] for r in rows if r["set"] == s]) for s in abstention.SETS}
    row = abstention.floor_row(values, 0.6)
    assert row["recall"] == 0.75  # 0.6, 0.7, 0.8 of four
    assert row["abstain_elsewhere"] == pytest.approx(2 / 3, abs=1e-4) and row["abstain_nonsense"] == 1.0
    assert row["answer_precision"] == 0.75  # 3 answerable of 4 answered (0.65 elsewhere)
    assert row["abstain_precision"] == 0.8  # 4 unanswerable of 5 abstained (0.5 answerable)
    result = abstention.report(rows, target_recall=0.75)
    assert result["signals"]["vector"]["chosen"]["floor"] == 0.6  # the highest floor keeping 3 of 4
    assert result["meta"]["queries"] == {"answerable": 4, "elsewhere": 3, "nonsense": 2}
    assert abstention.nonsense_queries() == abstention.nonsense_queries()  # the same every run
    # A query some chunk holds word for word is answered at any floor, as in the search.
    held = {"answerable": np.array([True, False, False, False]), "elsewhere": np.array([False, True, False]),
            "nonsense": np.array([False, False])}
    row = abstention.floor_row(values, 0.6, held)
    assert row["recall"] == 1.0 and row["abstain_elsewhere"] == pytest.approx(1 / 3, abs=1e-4)
    rows[0]["every_term"] = True
    assert abstention.report(rows, target_recall=0.75)["meta"]["every_term"] == \
        {"answerable": 1, "elsewhere": 0, "nonsense": 0}


def test_eval_abstention_end_to_end(tmp_path, capsys):
    data = tmp_path / "locomo-tiny.json"
    data.write_text(json.dumps(tiny()))
    out, work = tmp_path / "out", tmp_path / "work"
    assert main(["eval", "abstention", str(data), "--embedder", "hash", "--work", str(work), "--out", str(out),
                 "--quiet", "--recall", "0.5"]) == 0
    assert capsys.readouterr().out.startswith("chosen min_score")
    result = json.loads((out / "abstention.json").read_text())
    # conv-t1 has 3 answerable questions with evidence (one adversarial, one without evidence), conv-t2 one;
    # each conversation is asked the other's adversarial questions (conv-t2 has none) and the nonsense.
    assert result["meta"]["queries"] == {"answerable": 4, "elsewhere": 1,
                                         "nonsense": 2 * abstention.NONSENSE_QUERIES}
    assert (out / "abstention.md").read_text().startswith("# Relevance floor")
    # The indexes stay in the work folder for the next run.
    assert sorted(p.relative_to(work).parts[1] for p in work.glob("*/*/.cache/index.db")) == ["conv-t1", "conv-t2"]
    assert main(["eval", "abstention", str(data), "--work", str(work), "--recall", "0"]) == 1
