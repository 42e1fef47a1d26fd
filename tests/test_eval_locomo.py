"""`tachikoma eval locomo` end to end on a tiny LoCoMo-shaped file, with the hash embedder."""

import json
import math
from datetime import datetime, timezone

import pytest

from tachikoma.cli import main
from tachikoma.config import RECENCY_PRESETS
from tachikoma.evaluation import locomo
from tachikoma.evaluation.cached_queries import CachedQueries
from tachikoma.search.searcher import Searcher

FILLER = [{"speaker": "Bob" if i % 2 else "Ann", "text": "fine " * 12} for i in range(30)]


def turns(session, items):
    return [{**t, "dia_id": f"D{session}:{i}"} for i, t in enumerate(items, 1)]


def tiny() -> list:
    long_session = ([{"speaker": "Ann", "text": "My sister plays the theremin in Oslo."}] + FILLER
                    + [{"speaker": "Ann", "text": "The theremin concert in Oslo was loud, a concert to remember."}])
    first = {
        "sample_id": "conv-t1",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bob",
            "session_1_date_time": "1:00 pm on 1 January, 2023",
            "session_1": turns(1, [{"speaker": "Ann", "text": "I adopted a greyhound named Pixel."},
                                   {"speaker": "Bob", "text": "Lovely dog!",
                                    "img_url": ["x"], "blip_caption": "a photo of a lighthouse"}]),
            "session_2_date_time": "2:00 pm on 1 March, 2023",
            "session_2": turns(2, long_session),
            "session_3_date_time": "3:00 pm on 1 June, 2023",
            "session_3": turns(3, [{"speaker": "Bob", "text": "We planted tomatoes."},
                                   {"speaker": "Ann", "text": "Pixel loves the garden."}]),
            "session_4_date_time": "4:00 pm on 2 June, 2023",  # a date without a session, as in conv-26
        },
        "qa": [
            {"question": "Greyhound?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "theremin concert Oslo", "answer": "x", "evidence": ["D2:01"], "category": 2},
            {"question": "lighthouse tomatoes", "answer": "x", "evidence": ["D1:2; D:3:1", "D9:9", "D"],
             "category": 1},
            {"question": "Would Ann like it?", "answer": "x", "evidence": [], "category": 3},
            {"question": "Pixel garden?", "evidence": ["D3:2"], "category": 5, "adversarial_answer": "x"},
        ],
        "observation": {}, "session_summary": {}, "event_summary": {},
    }
    second = {
        "sample_id": "conv-t2",
        "conversation": {
            "speaker_a": "Cy", "speaker_b": "Di",
            "session_1_date_time": "9:00 am on 5 May, 2022",
            "session_1": turns(1, [{"speaker": "Cy", "text": "The theremin is mine now."}]),
            "session_2_date_time": "9:00 am on 6 May, 2022",
            "session_2": turns(2, [{"speaker": "Di", "text": "Rain again today."}]),
            "session_3_date_time": "9:00 am on 7 May, 2022",
            "session_3": turns(3, [{"speaker": "Cy", "text": "Lunch was soup."}]),
        },
        "qa": [{"question": "Whose theremin?", "answer": "Cy", "evidence": ["D1:1"], "category": 4}],
    }
    return [first, second]


@pytest.fixture
def report(tmp_path):
    data = tmp_path / "locomo-tiny.json"
    data.write_text(json.dumps(tiny()))
    out, work = tmp_path / "out", tmp_path / "work"
    code = main(["eval", "locomo", str(data), "--embedder", "hash", "--out", str(out), "--work", str(work),
                 "--quiet", "--recency-cases", "10"])
    assert code == 0
    return json.loads((out / "report.json").read_text()), out, work


def test_recency_rules_and_sets_beside_locomo(report, capsys):
    rep, out, _ = report
    rows = {r["recency"]: r for r in rep["recency_rows"]}
    assert list(rows) == ["default", "strong", "seed", "off", "BM25 (no recency)"]
    assert rows["default"]["all"]["questions"] == rows["off"]["0-4"]["questions"] == 5  # both tiny conversations
    assert "5-9" not in rows["default"]
    sets = rep["recency_sets"]
    assert sets["cases"] == 10 and set(sets["sets"]) == {"knowledge_updates", "old_exact_match"}
    assert set(sets["sets"]["knowledge_updates"]) == {"off", "default", "strong", "seed"}
    md = (out / "report.md").read_text()
    assert "## Recency rules" in md and "knowledge updates (newer above older)" in md
    assert "conversations 0-4 (chosen on)" in md


def test_conversations_by_position(tmp_path):
    data = tmp_path / "locomo-tiny.json"
    data.write_text(json.dumps(tiny()))
    assert locomo.parse_selection("0-2,5") == [0, 1, 2, 5]
    conversations, _ = locomo.load(data, only=[1])
    assert [(c.sample_id, c.position) for c in conversations] == [(tiny()[1]["sample_id"], 1)]
    with pytest.raises(Exception, match="no position 7"):
        locomo.load(data, only=[7])
    for bad in ("x", "3-1", "-2"):
        with pytest.raises(Exception, match="--conversations"):
            locomo.parse_selection(bad)


def cell(report, system, group="overall"):
    return report["results"][system][group]


def test_report_files_counts_and_quirks(report):
    rep, out, _ = report
    assert {p.name for p in out.iterdir()} == {"report.md", "report.json", "per_question.jsonl"}
    meta = rep["meta"]
    assert meta["data"]["conversations"] == 2 and meta["data"]["sessions"] == 6
    assert meta["data"]["questions"] == 5
    assert meta["data"]["questions_by_category"] == {"1": 1, "2": 1, "3": 0, "4": 2, "5": 1}
    q = meta["quirks"]
    assert q["split_entries"] == 1 and q["repaired_ids"] == 2  # D2:01 and D:3:1
    assert q["unparseable_ids"] == ["conv-t1 #2: 'D'"]
    assert q["missing_turns"] == ["conv-t1: D9:9"]
    assert q["skipped_no_evidence"] == ["conv-t1 #3 (category 3)"]
    assert meta["index"]["embedder"] == "hash:512"
    assert [s["key"] for s in rep["systems"]][:5] == ["bm25", "vector", "vector+file", "vector+file+recency",
                                                      "hybrid"]
    assert cell(rep, "bm25", "3")["questions"] == 0
    md = (out / "report.md").read_text()
    assert "1 multi-hop" in md and "5 adversarial" in md and "LoCoMo R, chunk unit" in md
    lines = (out / "per_question.jsonl").read_text().splitlines()
    assert len(lines) == 5 and "theremin" not in "".join(lines), "per-question rows hold no data text"


def test_bm25_metrics_by_hand(report):
    rep, _, _ = report
    per = {(r["conversation"], r["qa"]): r["metrics"]["bm25"]
           for r in map(json.loads, (report[1] / "per_question.jsonl").read_text().splitlines())}

    # "theremin concert Oslo": the best chunk is session 2's last one (all three words, "concert" twice);
    # the evidence D2:1 is in session 2's first chunk, which comes second.
    m = per[("conv-t1", 1)]
    assert m["session_recall_any@1"] == m["session_R@1"] == m["session_ndcg@1"] == 1.0
    assert m["chunk_R@1"] == 0.0 and m["chunk_R@3"] == 1.0

    # "lighthouse tomatoes": evidence D1:2 (the caption) and D3:1; D9:9 and "D" dropped. Each session
    # matches one word of equal rarity, so both are found, in some order, and nothing else matches.
    m = per[("conv-t1", 2)]
    assert m["session_recall_any@1"] == 1.0 and m["session_recall_all@1"] == 0.0
    assert m["session_R@1"] == 0.5 and m["chunk_R@1"] == 0.5
    assert m["session_recall_all@3"] == m["session_R@3"] == m["session_ndcg@3"] == 1.0
    assert m["session_ndcg@1"] == 1.0

    # "Greyhound?" → session 1; "Pixel garden?" → session 3 (two words) before session 1 (one word).
    assert per[("conv-t1", 0)]["session_ndcg@1"] == 1.0
    assert per[("conv-t1", 4)]["session_R@1"] == 1.0
    # conv-t2 is asked of its own sessions only (conv-t1's session 2 also names the theremin).
    assert per[("conv-t2", 0)]["session_R@1"] == 1.0

    overall = cell(rep, "bm25")
    assert overall["questions"] == 5
    assert overall["session_R@1"] == pytest.approx((1 + 1 + 0.5 + 1 + 1) / 5)
    assert overall["chunk_R@1"] == pytest.approx((1 + 0 + 0.5 + 1 + 1) / 5)
    assert overall["session_recall_all@1"] == pytest.approx(4 / 5)
    assert cell(rep, "bm25", "1")["session_ndcg@10"] == 1.0
    # Per conversation: conv-t2's one question, and conv-t1's four, averaged on their own.
    by_conv = rep["by_conversation"]["bm25"]
    assert by_conv["conv-t2"] == {**by_conv["conv-t2"], "questions": 1, "session_R@1": 1.0}
    assert by_conv["conv-t1"]["questions"] == 4
    assert by_conv["conv-t1"]["session_R@1"] == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    md = (report[1] / "report.md").read_text()
    assert "**session_R@5 per conversation**" in md and "| conv-t1 | conv-t2 |" in md
    # Every metric of every system is a share.
    for system in rep["results"].values():
        for group in system.values():
            assert all(0 <= v <= 1 for k, v in group.items() if k != "questions" and v is not None)


def test_memory_folders_are_dated_transcripts_searched_the_normal_way(report):
    _, _, work = report
    root = work / "hash_512-200w" / "conv-t1"
    assert sorted(p.name for p in root.glob("*.jsonl")) == ["session_01.jsonl", "session_02.jsonl",
                                                            "session_03.jsonl"]
    lines = (root / "session_01.jsonl").read_text().splitlines()
    assert json.loads(lines[1]) == {"speaker": "Bob", "text": "Lovely dog! [image: a photo of a lighthouse]",
                                    "timestamp": "2023-01-01T13:00:00Z"}  # the session's date, on every turn
    assert (root / "session_02.jsonl").read_text().count("\n") == 32  # one line per turn
    conversations, _ = locomo.load(report[1].parent / "locomo-tiny.json")
    now = conversations[0].now
    assert now == datetime(2023, 6, 1, 15, 0, tzinfo=timezone.utc)
    searcher = Searcher(root, embedder=CachedQueries(locomo.choose("hash", None)))
    try:
        result = searcher.search("greyhound", 1, now=now)["results"][0]
        by_month = searcher.search("What happened in June 2023?", 1, now=now)["results"][0]
    finally:
        searcher.close()
    f = result["factors"]
    assert result["path"] == "session_01.jsonl" and result["lines"] == [1, 2]
    # Each chunk starts with its session's date line, so a question naming the month finds the session.
    assert result["text"].split("\n") == ["[2023-01-01, Sunday 1 January 2023]",
                                          "Ann: I adopted a greyhound named Pixel.",
                                          "Bob: Lovely dog! [image: a photo of a lighthouse]"]
    assert by_month["path"] == "session_03.jsonl"
    assert by_month["text"].startswith("[2023-06-01, Thursday 1 June 2023]\nBob: We planted tomatoes.")
    # Dated by its turns' timestamps (the file's mtime says the same, but the transcript comes first).
    assert f["date_source"] == "transcript" and f["date"] == "2023-01-01T13:00:00+00:00"
    assert f["age_days"] == pytest.approx((now - datetime(2023, 1, 1, 13, tzinfo=timezone.utc)).days + 2 / 24)
    rule = RECENCY_PRESETS["default"]
    assert f["recency_rule"] == "default" and f["recency_reason"] == "age"
    assert f["recency"] == pytest.approx(rule.floor + (1 - rule.floor) / (1 + f["age_days"] / rule.half_life_days))


def test_ndcg_in_the_report_is_binary_and_capped(report):
    rep, _, _ = report
    # For the two-session question, @1 nDCG is 1 (a gold session first) while recall_all@1 is 0.
    assert cell(rep, "bm25", "1")["session_ndcg@1"] == 1.0
    assert cell(rep, "bm25", "1")["session_recall_all@1"] == 0.0
    assert math.isclose(cell(rep, "bm25", "1")["session_ndcg@3"], 1.0)


def test_rerun_reuses_the_index(tmp_path, report):
    _, _, work = report
    data = tmp_path / "locomo-tiny.json"
    again = locomo.evaluate(data, "hash", work=work, progress=False)
    assert again["meta"]["index"]["chunks_embedded"] == 0
    assert again["results"]["bm25"] == report[0]["results"]["bm25"]


def test_limit_conversations_and_bad_input(tmp_path, capsys):
    data = tmp_path / "d.json"
    data.write_text(json.dumps(tiny()))
    assert main(["eval", "locomo", str(data), "--embedder", "hash", "--limit-conversations", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "4 questions" in printed and "session nDCG @5" in printed
    with pytest.raises(SystemExit) as exit_:  # a usage error
        main(["eval", "locomo", str(data), "--limit-conversations", "0"])
    assert exit_.value.code == 2
    (tmp_path / "bad.json").write_text("{")
    assert main(["eval", "locomo", str(tmp_path / "bad.json"), "--embedder", "hash", "--quiet"]) == 1


def test_max_words_chunks_the_transcripts_smaller_in_a_work_folder_of_its_own(tmp_path, report):
    rep, _, work = report
    data = tmp_path / "locomo-tiny.json"
    assert rep["meta"]["index"]["max_words"] == 200  # the hash embedder's own window
    small = locomo.evaluate(data, "hash", work=work, progress=False, max_words=10)
    assert small["meta"]["index"]["max_words"] == 10
    assert small["meta"]["index"]["chunks"] > rep["meta"]["index"]["chunks"]
    assert small["meta"]["index"]["chunks_embedded"] > 0, "a new index, not the 200-word one reused"
    assert sorted(p.name for p in work.iterdir()) == ["hash_512-10w", "hash_512-200w", "recency-hash_512-10-8"]
    searcher = Searcher(work / "hash_512-10w" / "conv-t1", embedder=locomo.choose("hash", None))
    try:
        texts = [t for (t,) in searcher.store.db.execute("SELECT text FROM chunks")]
    finally:
        searcher.close()
    assert all(len(t.split("\n", 1)[1].split()) <= 10 for t in texts)  # after the date line
    with pytest.raises(SystemExit) as exit_:  # a usage error
        main(["eval", "locomo", str(data), "--embedder", "hash", "--max-words", "1", "--quiet"])
    assert exit_.value.code == 2
