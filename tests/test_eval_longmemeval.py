"""`tachikoma eval longmemeval` end to end on a tiny generated LongMemEval-format file (hash embedder)."""

import gzip
import json
import sqlite3

import pytest

from tachikoma.cli import main
from tachikoma.errors import TachikomaError
from tachikoma.evaluation import longmemeval

FILLER = ["We talked about the weather and the garden.", "Pasta recipes with tomatoes and basil.",
          "The train was late again this morning.", "Planning a birthday card for a colleague.",
          "Notes on a documentary about whales.", "Choosing paint colours for the hallway."]


def session(*user_lines: str) -> list[dict]:
    turns = []
    for line in user_lines:
        turns += [{"role": "user", "content": line}, {"role": "assistant", "content": "Thanks for telling me."}]
    return turns


def question(ident: str, kind: str, text: str, date: str, sessions: list[tuple[str, str, list]],
             gold: list[str]) -> dict:
    return {"question_id": ident, "question_type": kind, "question": text, "answer": "x", "question_date": date,
            "haystack_session_ids": [s[0] for s in sessions], "haystack_dates": [s[1] for s in sessions],
            "haystack_sessions": [s[2] for s in sessions], "answer_session_ids": gold}


def filler_sessions(prefix: str, dates: list[str]) -> list[tuple[str, str, list]]:
    return [(f"{prefix}_f{i}", d, session(FILLER[i % len(FILLER)])) for i, d in enumerate(dates)]


def tiny() -> list[dict]:
    days = ["2023/03/01 (Wed) 10:00", "2023/03/04 (Sat) 11:00", "2023/03/11 (Sat) 09:30", "2023/03/18 (Sat) 16:00"]
    jewelry = [("j_gold", "2023/03/18 (Sat) 15:00", session("My aunt gave me a silver necklace today.")),
               ("j_old", "2023/03/04 (Sat) 12:00", session("My aunt gave me a silver bracelet today."))]
    return [
        question("q_user", "single-session-user", "What breed is my dog Pixel?", "2023/03/20 (Mon) 09:00",
                 filler_sessions("u", days) + [("u_gold", "2023/03/02 (Thu) 10:00",
                                                session("My dog Pixel is a greyhound."))], ["u_gold"]),
        question("q_multi", "multi-session", "How many theremin concerts did I go to?", "2023/03/20 (Mon) 09:00",
                 filler_sessions("m", days) + [("m_a", "2023/03/05 (Sun) 10:00", session("I went to a theremin concert.")),
                                               ("m_b", "2023/03/12 (Sun) 10:00", session("Another theremin concert!"))],
                 ["m_a", "m_b"]),
        question("q_time", "temporal-reasoning", "Who gave me jewelry last Saturday?", "2023/03/22 (Wed) 12:00",
                 filler_sessions("t", days) + jewelry, ["j_gold"]),
        question("q_abs_abs", "single-session-user", "What is my cat's name?", "2023/03/20 (Mon) 09:00",
                 filler_sessions("a", days), ["answer_missing"]),
    ]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "lme.json.gz"
    path.write_bytes(gzip.compress(json.dumps(tiny()).encode()))
    return path


def test_load_reads_gzip_and_plain_json(tmp_path, data):
    plain = tmp_path / "lme.json"
    plain.write_text(json.dumps(tiny()))
    for path in (data, plain):
        questions = longmemeval.load(path)
        assert [q.ident for q in questions] == ["q_user", "q_multi", "q_time", "q_abs_abs"]
        assert questions[2].date.isoformat() == "2023-03-22T12:00:00+00:00"
        assert questions[3].abstention and questions[3].gold == []  # its answer session is not in the haystack


def test_bad_files_get_a_clear_error(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(TachikomaError, match="cannot read the LongMemEval file"):
        longmemeval.load(broken)
    item = tiny()[0]
    item["haystack_dates"] = ["yesterday"] * len(item["haystack_dates"])
    bad_date = tmp_path / "bad.json"
    bad_date.write_text(json.dumps([item]))
    with pytest.raises(TachikomaError, match="question q_user: unrecognised date 'yesterday'"):
        longmemeval.load(bad_date)


def test_stratified_prefixes_keep_every_type():
    questions = longmemeval.load_items([question(f"q{i}_{kind[:3]}", kind, "x", "2023/01/01 (Sun) 00:00", [], [])
                                        for kind in ("temporal-reasoning", "multi-session") for i in range(6)]
                                       + [question("z_ku", "knowledge-update", "x", "2023/01/01 (Sun) 00:00", [], [])])
    order = longmemeval.stratified(questions, None)
    assert len(order) == 13 and order[6].kind == "knowledge-update"  # the lone one sits at its share: halfway
    for n in range(1, 14):  # every prefix holds the two big types in equal shares
        counts = [sum(q.kind == kind for q in order[:n]) for kind in ("temporal-reasoning", "multi-session")]
        assert abs(counts[0] - counts[1]) <= 1
    assert [q.ident for q in longmemeval.stratified(questions, 5)] == [q.ident for q in order[:5]]


def test_eval_end_to_end_with_a_shared_vector_cache(tmp_path, data, capsys):
    cache = tmp_path / "vectors.sqlite"
    out = tmp_path / "report"
    assert main(["eval", "longmemeval", str(data), "--embedder", "hash", "--vector-cache", str(cache),
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "recall_all@5" in printed and "bm25-sessions" in printed
    report = json.loads((out / "report.json").read_text())
    keys = [s["key"] for s in report["systems"]]
    assert keys == ["default", "no-time-reading", "no-recency", "vector-only", "keywords-only", "bm25-sessions"]
    rows = {json.loads(line)["question_id"]: json.loads(line) for line in open(out / "per_question.jsonl")}
    assert rows["q_abs_abs"]["metrics"] == {}  # abstention: not scored for retrieval
    assert report["abstention"]["abstention_questions"] == 1
    user = rows["q_user"]["metrics"]
    assert user["default"]["recall_any@5"] == 1.0 and user["bm25-sessions"]["recall_any@5"] == 1.0
    assert rows["q_multi"]["metrics"]["default"]["recall_all@5"] == 1.0
    # "last Saturday" (as of Wed 22 March: the 18th) puts the necklace first; without time reading the
    # bracelet ties with it and its earlier file wins
    timed = rows["q_time"]["metrics"]
    assert timed["default"]["ndcg@5"] == 1.0 and rows["q_time"]["top_sessions"][0] == "j_gold"
    assert timed["no-time-reading"]["ndcg@5"] < 1.0
    assert report["results"]["default"]["temporal-reasoning"]["questions"] == 1
    assert {rows[q]["split"] for q in rows} <= {"dev", "held"}
    assert user["default"]["mrr"] == 1.0 and "recall_any@1" in user["default"]
    scored = [r for r in rows.values() if r["metrics"]]
    diff = report["differences"]["bm25-sessions"]["recall_any@5"]["overall"]
    assert diff["questions"] == len(scored)
    assert diff["difference"] == pytest.approx(sum(r["metrics"]["default"]["recall_any@5"]
                                                   - r["metrics"]["bm25-sessions"]["recall_any@5"]
                                                   for r in scored) / len(scored))
    assert diff["low"] <= diff["difference"] <= diff["high"]
    md = (out / "report.md").read_text()
    assert "| default |" in md and "abstention questions" in md and "default minus baseline" in md
    # the hash embedder has no measured floor: the report says why nothing abstains
    assert report["abstention"]["min_score"] == 0.0 and "floor 0: none is measured" in md
    # its question shares no word or meaning with the haystack: no good match, answered by nothing
    assert report["abstention"]["no_good_match_on_abstention"] == 1.0
    assert report["abstention"]["abstention_answered_by"] == {"meaning": 0, "keywords": 0, "meaning and keywords": 0,
                                                              "time": 0}
    # every distinct chunk text was embedded once; a second run embeds nothing
    stats = report["meta"]["stats"]
    assert stats["chunks_embedded"] > 0
    stored = sqlite3.connect(cache).execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert stored == stats["chunks_embedded"]
    again = longmemeval.evaluate(data, "hash", cache=cache, progress=False)
    assert again["meta"]["stats"]["chunks_embedded"] == 0
    assert again["meta"]["stats"]["chunks_from_cache"] == stats["chunks"]
    assert again["results"] == report["results"]


def test_limit_must_be_positive(data, capsys):
    assert main(["eval", "longmemeval", str(data), "--limit", "0"]) == 1
    assert "--limit must be at least 1" in capsys.readouterr().err
