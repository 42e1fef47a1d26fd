"""`tachikoma eval everyday` on a tiny set written here: the git history it builds, the figures it must give."""

import json
import subprocess
from pathlib import Path

import pytest

from tachikoma.cli import main
from tachikoma.errors import TachikomaError
from tachikoma.evaluation import everyday

FILES = {
    "notes/deploy.md": "# Deploys\n\nProduction deploys run on Tuesdays with `make deploy`, never on Fridays.\n",
    "people/anna.md": "# Anna Berg\n\nAnna is our database administrator. She drinks green tea and runs backups.\n",
    "journal/2026-03-02.md": "# 2026-03-02\n\nMet the landlord about the broken heating radiator in the hall.\n",
}
EARLIER = "# Deploys\n\nDeploys are done by hand for now.\n"
COMMITS = [
    {"date": "2026-01-05T09:00:00+01:00", "message": "deploy notes", "files": ["notes/deploy.md"]},
    {"date": "2026-02-10T10:30:00+01:00", "message": "anna", "files": ["people/anna.md"]},
    {"date": "2026-03-02T20:00:00+01:00", "message": "journal", "files": ["journal/2026-03-02.md"]},
    {"date": "2026-03-04T08:15:00+01:00", "message": "deploy window", "files": ["notes/deploy.md"]},
]
QUESTIONS = [
    # answerable, found first
    {"id": "t-01", "question": "who is the database administrator", "expected": ["people/anna.md"],
     "kind": "person", "split": "dev"},
    {"id": "t-02", "question": "heating radiator landlord", "expected": ["journal/2026-03-02.md"],
     "kind": "time", "split": "held"},
    # answerable, but the file a person expects shares one word with it and another file two: second
    {"id": "t-03", "question": "administrator backups on Fridays", "expected": ["notes/deploy.md"],
     "kind": "fact", "split": "dev"},
    # no answer in the memory: shares no word with it
    {"id": "t-04", "question": "zebra xylophone quokka", "expected": [], "kind": "nonsense", "split": "held"},
]


def write_set(folder: Path, questions=QUESTIONS, files=FILES) -> Path:
    for name, text in files.items():
        path = folder / "memory" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (folder / "versions").mkdir(parents=True, exist_ok=True)
    (folder / "versions" / "deploy.v1.md").write_text(EARLIER, encoding="utf-8")
    manifest = {"name": "tiny", "style": "test", "languages": ["en"], "as_of": "2026-03-05T10:00:00+01:00",
                "commits": COMMITS, "versions": {"notes/deploy.md": "versions/deploy.v1.md"}}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps({**q, "lang": "en"}) + "\n" for q in questions),
                                            encoding="utf-8")
    return folder


def test_the_repository_has_the_back_dated_history_and_the_earlier_version(tmp_path):
    s = everyday.load_set(write_set(tmp_path / "tiny"))
    root = tmp_path / "repo"
    assert everyday.build_repo(s, root) == 4
    log = subprocess.run(["git", "log", "--format=%aI %cI %s", "--reverse"], cwd=root, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert log == [f"{c['date']} {c['date']} {c['message']}" for c in COMMITS]
    first = subprocess.run(["git", "show", "HEAD~3:notes/deploy.md"], cwd=root, capture_output=True, text=True,
                           check=True).stdout
    assert first == EARLIER
    assert (root / "notes/deploy.md").read_text(encoding="utf-8") == FILES["notes/deploy.md"]


def test_the_command_reports_the_figures_the_set_must_give(tmp_path):
    folder = write_set(tmp_path / "sets" / "tiny")
    out = tmp_path / "out"
    assert main(["eval", "everyday", str(tmp_path / "sets"), "--embedder", "hash", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in map(json.loads, (out / "per_question.jsonl").read_text().splitlines())}
    assert set(rows) == {"t-01", "t-02", "t-03", "t-04"}
    assert [rows[i]["top1"] for i in ("t-01", "t-02", "t-03")] == [True, True, False]
    assert rows["t-03"]["top"][0]["file"] == "people/anna.md"
    assert rows["t-03"]["rank_without_floor"] == 2 and rows["t-03"]["failure"].startswith("expected file")
    assert rows["t-04"]["no_good_match"] is True and rows["t-04"]["failure"] is None
    overall = report["results"]["overall"]["all"]
    assert overall["answerable"] == 3 and overall["top1"] == pytest.approx(2 / 3)
    assert overall["top5"] == 1.0 and overall["no_good_match_answerable"] == 0.0
    assert overall["nonsense"] == 1 and overall["no_good_match_nonsense"] == 1.0 and overall["offtopic"] == 0
    assert report["results"]["kind"]["fact"]["top1"] == 0.0 and report["results"]["kind"]["person"]["top1"] == 1.0
    assert report["results"]["split"]["dev"]["answerable"] == 2 and report["results"]["split"]["held"]["answerable"] == 1
    low, high = overall["ci95"]["top1"]
    assert 0.0 <= low < 2 / 3 < high <= 1.0
    # the note's date is its last back-dated commit, read from git by the normal indexer, as of the set's date
    deploy = next(t for t in rows["t-03"]["top"] if t["file"] == "notes/deploy.md")
    assert deploy["date_source"] == "git" and deploy["date"].startswith("2026-03-04T07:15")
    assert "| tiny | 3 | 67% | 100% | 0% |" in (out / "report.md").read_text(encoding="utf-8")
    assert folder.exists()  # the set itself is left as it was


def test_the_split_option_asks_only_that_split(tmp_path):
    write_set(tmp_path / "tiny")
    report = everyday.evaluate([tmp_path / "tiny"], "hash", split="held", progress=False)
    assert sorted(r["id"] for r in report["per_question"]) == ["t-02", "t-04"]


@pytest.mark.parametrize("change, message", [
    (lambda qs: qs + [{**qs[0], "id": "t-09", "expected": ["notes/missing.md"]}], "expected file not in memory/"),
    (lambda qs: qs + [{**qs[0], "id": "t-09", "kind": "trivia"}], "unknown kind"),
    (lambda qs: qs + [{**qs[3], "id": "t-09", "expected": ["people/anna.md"]}], "expects no file"),
    (lambda qs: qs + [dict(qs[0])], "duplicate id t-01"),
    (lambda qs: qs + [{**qs[0], "id": "t-09", "split": "test"}], "split must be dev or held"),
    (lambda qs: qs + [{**qs[0], "id": "t-09", "direction": "both"}], "direction must be same or cross"),
    (lambda qs: qs + [{**qs[0], "id": "t-09", "direction": False}], "direction must be same or cross"),
])
def test_a_malformed_question_is_named_with_its_line(tmp_path, change, message):
    write_set(tmp_path / "tiny", questions=change(list(QUESTIONS)))
    with pytest.raises(TachikomaError, match=f"line 5 .*{message}"):
        everyday.load_set(tmp_path / "tiny")


def test_questions_that_say_their_direction_are_reported_by_it(tmp_path):
    """A set whose questions say whether their note is in their own language (`direction`) gets a table per
    direction; an English question across languages and one from another language are told apart."""
    directed = [{**QUESTIONS[0], "direction": "same"}, {**QUESTIONS[1], "direction": "cross"},
                {**QUESTIONS[2], "id": "t-05", "question": "Wer ist die Datenbankadministratorin?",
                 "expected": ["people/anna.md"], "direction": "cross"}, QUESTIONS[3]]
    write_set(tmp_path / "tiny", questions=directed)
    (tmp_path / "tiny" / "questions.jsonl").write_text("".join(
        json.dumps({**q, "lang": "de" if q["id"] == "t-05" else "en"}) + "\n" for q in directed), encoding="utf-8")
    report = everyday.evaluate([tmp_path / "tiny"], "hash", progress=False)
    groups = report["results"]["direction"]
    assert {name: f["answerable"] for name, f in groups.items()} == {
        "same language": 1, "across, from English": 1, "across, from another language": 1}
    assert report["results"]["overall"]["direction"]["answerable"] == 3  # its own "all" row: these questions
    assert "## Per direction" in everyday.markdown(report) and "| **all of these** | 3 |" in everyday.markdown(report)
    plain = everyday.evaluate([write_set(tmp_path / "plain")], "hash", progress=False)
    assert "direction" not in plain["results"] and "## Per direction" not in everyday.markdown(plain)


def test_a_question_that_gathers_counts_every_file_it_needs(tmp_path):
    """A ``gather`` question's expected files are all needed: ``all5`` and ``share5`` say how many of them the
    top 5 holds, the report has a table of them, and one with a file missing from the top 5 is a failure."""
    gathering = [*QUESTIONS,
                 {"id": "t-05", "question": "which notes mention deploys, backups or the heating",
                  "expected": ["notes/deploy.md", "people/anna.md", "journal/2026-03-02.md"], "kind": "gather",
                  "split": "held"},
                 {"id": "t-06", "question": "administrator backups on Fridays",
                  "expected": ["people/anna.md", "notes/stray.md"], "kind": "gather", "split": "dev"}]
    write_set(tmp_path / "tiny", questions=gathering,
              files={**FILES, "notes/stray.md": "# Stray\n\nA note about lemons.\n"})
    manifest = json.loads((tmp_path / "tiny" / "manifest.json").read_text(encoding="utf-8"))
    manifest["commits"].append({"date": "2026-03-04T09:00:00+01:00", "message": "stray", "files": ["notes/stray.md"]})
    (tmp_path / "tiny" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    report = everyday.evaluate([tmp_path / "tiny"], "hash", progress=False)
    rows = {r["id"]: r for r in report["per_question"]}
    assert rows["t-05"]["all5"] is True and rows["t-05"]["share5"] == 1.0 and rows["t-05"]["failure"] is None
    assert rows["t-06"]["all5"] is False and rows["t-06"]["share5"] == 0.5  # the lemons note is not in its top 5
    assert rows["t-06"]["top1"] and rows["t-06"]["failure"] == "50% of its files in the top 5"
    assert "all5" not in rows["t-01"]
    overall = report["results"]["overall"]["all"]
    assert overall["gather"] == 2 and overall["all5_gather"] == 0.5 and overall["share5_gather"] == 0.75
    assert overall["answerable"] == 3 and overall["top1"] == pytest.approx(2 / 3)  # as without them
    assert "## Questions that gather" in everyday.markdown(report)
    assert "| tiny | 2 | 50% | 75% |" in everyday.markdown(report)
    assert "Questions that gather" not in everyday.markdown(everyday.evaluate([write_set(tmp_path / "plain")],
                                                                                  "hash", progress=False))


def test_a_file_no_commit_adds_is_an_error(tmp_path):
    write_set(tmp_path / "tiny", files={**FILES, "notes/stray.md": "not committed\n"})
    with pytest.raises(TachikomaError, match=r"no commit adds: \['notes/stray.md'\]"):
        everyday.load_set(tmp_path / "tiny")


def test_a_folder_without_sets_is_an_error(tmp_path):
    with pytest.raises(TachikomaError, match="no everyday set here"):
        everyday.find_sets([tmp_path])


#: the day a set is asked as of, when it is not the first three sets' 27 November
AS_OF = {"household": "2026-12-04T09:30:00+00:00", "mixed": "2026-12-04T08:30:00+09:00",
         "bilingual": "2027-03-12T09:15:00+00:00", "trilingual": "2027-01-15T09:00:00-05:00"}


@pytest.mark.parametrize("name", ["assistant", "team", "research", "household", "mixed", "bilingual",
                                  "trilingual"])
def test_the_committed_sets_keep_their_rules(name):
    """Each hand-written set loads, has its 25-45 files, at least 45 questions with 6 offtopic and 3
    nonsense, and the documented split: dev when the first byte of sha256(id) is even."""
    import hashlib

    s = everyday.load_set(everyday.DEFAULT_SETS / name)
    files = {f for c in s.commits for f in c["files"]} - {"tachikoma-tags.yaml"}
    assert 25 <= len(files) <= 45
    kinds = [q.kind for q in s.questions]
    assert len(kinds) >= 45 and kinds.count("offtopic") >= 6 and kinds.count("nonsense") >= 3
    assert set(everyday.KINDS) - {"gather"} <= set(kinds) <= set(everyday.KINDS)
    for q in s.questions:
        assert q.split == ("dev" if hashlib.sha256(q.ident.encode()).digest()[0] % 2 == 0 else "held"), q.ident
    assert max(len(c["files"]) for c in s.commits) < 5  # five or more files in a commit read as an import
    assert s.as_of.isoformat() == AS_OF.get(name, "2026-11-27T10:00:00+01:00")


#: session 47's blind sets: a reviewer's memories in agents' own on-disk formats, kept as built (their commits of
#: five or more files too), asked as of the moment, in UTC, the reviewer's own run searched them
#: (files, questions, as_of): session 48 added the questions asking the order of events (*-o) and naming several
#: things (*-n), written blind too (bench/everyday/README.md).
BLIND = {"claudecode": (29, 30, "2026-12-07T03:35:00+00:00"), "openclaw": (23, 28, "2026-12-07T03:37:00+00:00"),
         "codex": (23, 29, "2026-12-07T03:38:00+00:00")}


@pytest.mark.parametrize("name", sorted(BLIND))
def test_the_blind_reviewer_sets_keep_their_shape(name):
    import hashlib

    files, questions, as_of = BLIND[name]
    s = everyday.load_set(everyday.DEFAULT_SETS / name)
    assert len({f for c in s.commits for f in c["files"]}) == files and len(s.questions) == questions
    assert s.as_of.isoformat() == as_of and all(q.answerable and q.direction for q in s.questions)
    for q in s.questions:
        assert q.split == ("dev" if hashlib.sha256(q.ident.encode()).digest()[0] % 2 == 0 else "held"), q.ident
