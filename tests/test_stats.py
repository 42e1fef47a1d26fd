import builtins
import json
from pathlib import Path

import pytest

from tachikoma import stats
from tachikoma.tagging import applying, planning
from tachikoma.memory import TAG_FILE
from tachikoma.stats import coverage, files
from tachikoma.reading.tagfile import TagFileError
#: A transcript of one turn (a file that is "{}" would be a data file, not a transcript).
TURN = '{"role": "user", "content": "hi"}\n'


def put(root: Path, rel: str, data):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def pct(tagged, partial, untagged, invalid):
    return {"tagged": tagged, "partial": partial, "untagged": untagged, "invalid": invalid}


@pytest.fixture
def crafted(tmp_path):
    root = tmp_path / "memory"
    put(root, "a.md", "---\ntrust: owner\nconfidence: high\n---\nbody\n")               # tagged
    put(root, "b.md", "---\ntrust: self\n---\nbody\n")                                  # partial
    put(root, "c.md", "# no front matter\n")                                            # untagged
    put(root, "d.md", "---\r\nsource: web\r\n---\r\nbody\r\n")                          # partial
    put(root, "notes/e.md", "---\ntrust: bogus\nconfidence: low\n---\nbody\n")          # invalid
    put(root, "notes/f.md", "---\ntrust: owner\nconfidence: [high\n---\nbody\n")        # malformed: untagged
    put(root, "notes/g.md", "\ufeff---\nTrust: External\nconfidence: SPECULATIVE\n---\n")  # tagged
    put(root, "notes/h.md", b"---\ntrust: untrusted\nconfidence: medium\n---\n\xff\xfe not utf-8 body\n")  # tagged
    put(root, ".hidden/x.md", "---\ntrust: owner\n---\n")                               # not memory
    put(root, "2026-03/s1.jsonl", TURN)                                               # tagged
    put(root, "2026-03/s2.jsonl", TURN)                                               # untagged
    put(root, "2026-03/s3.jsonl", TURN)                                               # invalid
    put(root, "2026-03/s4.jsonl", b"\xff not even json\n")                # a problem: not counted
    put(root, TAG_FILE, (
        "2026-03/s1.jsonl:\n  trust: self\n  confidence: medium\n"
        "2026-03/s3.jsonl:\n  confidence: wat\n"
        "2026-03/s4.jsonl:\n  source: x\n"
        "a.md:\n  trust: untrusted\n"
        "gone.jsonl:\n  trust: owner\n"
    ))
    return root


def test_crafted_folder_counts(crafted):
    result = coverage(crafted)
    assert (result["files"], result["tagged"], result["partial"], result["untagged"], result["invalid"]) == (11, 4, 2, 3, 2)
    assert result["percent"] == pct(36.4, 18.2, 27.3, 18.2)
    assert result["by_kind"] == {
        "markdown": {"files": 8, "tagged": 3, "partial": 2, "untagged": 2, "invalid": 1,
                     "percent": pct(37.5, 25.0, 25.0, 12.5)},
        "transcript": {"files": 3, "tagged": 1, "partial": 0, "untagged": 1, "invalid": 1,
                       "percent": pct(33.3, 0.0, 33.3, 33.3)},
    }
    assert result["by_folder"] == {
        ".": {"files": 4, "tagged": 1, "partial": 2, "untagged": 1, "invalid": 0,
              "percent": pct(25.0, 50.0, 25.0, 0.0)},
        "2026-03": {"files": 3, "tagged": 1, "partial": 0, "untagged": 1, "invalid": 1,
                    "percent": pct(33.3, 0.0, 33.3, 33.3)},
        "notes": {"files": 4, "tagged": 2, "partial": 0, "untagged": 1, "invalid": 1,
                  "percent": pct(50.0, 0.0, 25.0, 25.0)},
    }
    assert result["trust"] == {"owner": 1, "self": 2, "external": 1, "untrusted": 1, "missing": 6}
    assert result["confidence"] == {"high": 1, "medium": 2, "low": 1, "speculative": 1, "missing": 6}
    assert result["invalid_values"] == [
        {"path": "2026-03/s3.jsonl", "key": "confidence", "value": "wat"},
        {"path": "notes/e.md", "key": "trust", "value": "bogus"},
    ]
    problems = {(p["path"], p["reason"].split(":")[0]) for p in result["problems"]}
    assert all(p["kind"] for p in result["problems"]), "every problem carries a machine-readable kind"
    kinds = {p["path"]: p["kind"] for p in result["problems"] if p["path"] != TAG_FILE}
    assert kinds["notes/f.md"] == "front-matter"
    assert {p["kind"] for p in result["problems"] if p["path"] == TAG_FILE} == {"tag-file", "stale-tag-entry"}
    assert any(path == "notes/f.md" and reason.startswith("malformed front matter") for path, reason in problems)
    reasons = " ".join(p["reason"] for p in result["problems"] if p["path"] == TAG_FILE)
    assert "a.md is a markdown file" in reasons
    assert "gone.jsonl, which does not exist" in reasons
    assert not any(p["path"].startswith("notes/h.md") for p in result["problems"])
    assert [p for p in result["problems"] if p["path"].endswith(".jsonl") and p["path"] != TAG_FILE] == [
        {"path": "2026-03/s4.jsonl", "kind": "not-a-transcript",
         "reason": "not a transcript: no line is a message of a known format; not indexed, and not tagged"}]


def test_keys_are_exactly_the_documented_shape(crafted):
    result = coverage(crafted)
    assert list(result) == ["files", "tagged", "partial", "untagged", "invalid", "percent", "by_kind",
                            "by_folder", "trust", "confidence", "invalid_values", "evergreen", "balance", "problems",
                            "tag_file", "excluded", "logseq_copies"]
    assert result["excluded"] == {"patterns": [], "files": 0, "folders": [], "unmatched": []}
    assert result["logseq_copies"] is None  # no Logseq graph here


def test_evergreen_files_are_counted(tmp_path):
    (tmp_path / "people").mkdir()
    (tmp_path / "MEMORY.md").write_text("index of memories\n")
    (tmp_path / "people" / "USER.md").write_text("---\nevergreen: true\n---\nthe user\n")
    (tmp_path / "pinned.md").write_text("---\nEvergreen: true\n---\nrules\n")
    (tmp_path / "not.md").write_text("---\nevergreen: false\n---\nnews\n")
    (tmp_path / "chat.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    (tmp_path / "tachikoma-tags.yaml").write_text("chat.jsonl:\n  evergreen: true\n")
    assert coverage(tmp_path)["evergreen"] == {"files": 4, "marked": 3, "by_config": 1}
    (tmp_path / "tachikoma.toml").write_text('[ranking]\nevergreen = ["not.md"]\n')
    assert coverage(tmp_path)["evergreen"] == {"files": 4, "marked": 3, "by_config": 1}


def test_empty_folder(tmp_path):
    result = coverage(tmp_path)
    assert result["files"] == 0
    assert result["percent"] == pct(0.0, 0.0, 0.0, 0.0)
    assert result["by_kind"]["markdown"]["files"] == 0 and result["by_folder"] == {}


def test_stats_follow_tagging(crafted):
    applying.apply(crafted, planning.default_plan(crafted))
    result = coverage(crafted)
    assert result["by_kind"]["transcript"]["tagged"] == 2  # s1 and s2 (s3 and s4 had tags already)
    assert result["by_kind"]["transcript"]["untagged"] == 0


def test_malformed_tag_file_is_reported_and_the_notes_still_counted(crafted):
    """Session 46: it was an error, and `tachikoma stats` reported nothing at all."""
    put(crafted, TAG_FILE, "a: [\n")
    result = coverage(crafted)
    assert result["tag_file"]["line"] == 1 and "malformed YAML" in result["tag_file"]["problem"]
    assert result["tag_file"]["not_counted"] == 3  # s1, s2, s3; s4 is a data file, a problem as ever
    assert result["by_kind"]["markdown"]["files"] > 0
    assert any(p["kind"] == "tag-file-unreadable" for p in result["problems"])
    with pytest.raises(TagFileError):
        files(crafted, kind="transcript")
    assert files(crafted, kind="markdown")


def test_reads_only_heads(crafted, monkeypatch):
    """Notes up to their front matter's end; transcripts up to their first transcript line."""
    opened = []
    read = {}
    real_open = builtins.open

    class Counting:
        def __init__(self, handle, path):
            self.handle, self.path = handle, path

        def __iter__(self):
            for line in self.handle:
                read[self.path] = read.get(self.path, 0) + len(line)
                yield line

        def __getattr__(self, name):
            return getattr(self.handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

    def spy(path, *args, **kwargs):
        opened.append(str(path))
        handle = real_open(path, *args, **kwargs)
        return Counting(handle, str(path)) if str(path).endswith(".jsonl") else handle

    monkeypatch.setattr(planning, "open", spy, raising=False)
    monkeypatch.setattr(builtins, "open", spy)
    big = "---\ntrust: owner\nconfidence: low\n---\n" + ("x" * 1000 + "\n") * 20000
    put(crafted, "big.md", big)
    line = '{"role": "user", "content": "%s"}\n' % ("word " * 200)
    put(crafted, "big.jsonl", line * 20000)
    coverage(crafted)
    assert any(p.endswith("big.md") for p in opened)
    assert read[str(crafted / "big.jsonl")] == len(line)


def test_counts_a_large_folder(tmp_path):
    # Speed is measured by bench/bench_index.py, not asserted here.
    root = tmp_path / "memory"
    lines = []
    for i in range(1000):
        folder = f"f{i % 20:02d}"
        put(root, f"{folder}/n{i}.md", f"---\ntitle: note {i}\ntrust: self\nconfidence: low\n---\n" + "text\n" * 200)
        put(root, f"{folder}/s{i}.jsonl", '{"role": "user", "content": "x"}\n' * 50)
        if i % 2:
            lines.append(f"{folder}/s{i}.jsonl:\n  trust: self\n  confidence: medium\n")
    put(root, TAG_FILE, "".join(lines))
    result = coverage(root)
    assert result["files"] == 2000
    assert result["tagged"] == 1500 and result["untagged"] == 500
    assert len(result["by_folder"]) == 20


def test_format_text_mentions_every_count(crafted):
    result = stats.report(crafted)
    text = stats.format_text(result)
    assert text.splitlines()[0] == ("11 files: 4 tagged (36.4%), 2 partial (18.2%), 3 untagged (27.3%), "
                                    "2 invalid (18.2%)")
    assert "trust: owner 1, self 2, external 1, untrusted 1, missing 6" in text
    assert "notes/e.md: trust 'bogus'" in text
    assert "notes/f.md: malformed front matter" in text


def test_impossible_dates_do_not_crash(tmp_path):
    root = tmp_path / "m"
    put(root, "n.md", "---\ntrust: self\ndate: 2026-02-30\nupdated: 2026-03-22T25:00:00\n---\nbody\n")
    put(root, "a.jsonl", TURN)
    put(root, TAG_FILE, "a.jsonl: {trust: self, date: 2026-13-01}\n")
    result = coverage(root)
    assert result["files"] == 2 and result["trust"]["self"] == 2


def test_source_no_or_on_is_text_not_invalid(tmp_path):
    root = tmp_path / "m"
    put(root, "n.md", "---\nsource: no\n---\nbody\n")
    put(root, "a.jsonl", TURN)
    put(root, TAG_FILE, "a.jsonl: {source: on}\n")
    result = coverage(root)
    assert result["invalid"] == 0 and result["partial"] == 2 and result["invalid_values"] == []


def test_tag_key_set_twice_is_a_problem(tmp_path):
    root = tmp_path / "m"
    put(root, "n.md", "---\ntrust: owner\nTrust: self\n---\nbody\n")
    result = coverage(root)
    assert result["trust"]["self"] == 1
    assert result["problems"] == [{"path": "n.md", "reason": "front matter: trust is set more than once "
                                   "(trust at line 2, Trust at line 3); the last one is counted",
                                   "kind": "repeated-tag"}]


def test_stats_the_index_and_its_run_count_the_same_files(tmp_path, capsys):
    """Issue 18: stats said 36 files, the Index panel "holds 38 files": the index counted a .jsonl data
    file (a row kept so the next run knows it unchanged). A memory file is a note or a transcript, for
    every face; data files are named apart. Also an empty session and a note over max_file_bytes."""
    from tachikoma import cli
    from tachikoma.indexer import runner, status

    (tmp_path / "a.md").write_text("# A\nAlpha.\n")
    (tmp_path / "big.md").write_text("# Big\n" + "word " * 400)
    (tmp_path / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 1000\n")
    (tmp_path / "chat.jsonl").write_text('{"role": "user", "content": "hello there"}\n')
    (tmp_path / "starting.jsonl").write_text("")
    (tmp_path / "metrics.jsonl").write_text('{"metric": "latency", "value": 3}\n')
    summary = runner.run(tmp_path, embedder_name="hash")
    counted = coverage(tmp_path)["files"]
    fresh = status.freshness(tmp_path)
    assert counted == 4 and summary.files == fresh["files"] == counted
    assert summary.data_files == fresh["data_files"] == 1
    assert "index holds 4 files and 1 .jsonl data file," in summary.line()
    assert cli.main(["--memory", str(tmp_path), "stats"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 files:") and "4 files (and 1 .jsonl data file, not searched)" in out


def notes_and_tagged_chats(root: Path) -> Path:
    """3 untagged notes, 1 owner / high note and 2 transcripts tagged self / medium (`tachikoma tag`'s default)."""
    for i in range(3):
        put(root, f"notes/n{i}.md", f"# Note {i}\n\nbody\n")
    put(root, "notes/owner.md", "---\ntrust: owner\nconfidence: high\n---\nbody\n")
    for i in range(2):
        put(root, f"2026-03/s{i}.jsonl", TURN)
    put(root, TAG_FILE, "".join(f"2026-03/s{i}.jsonl:\n  trust: self\n  confidence: medium\n" for i in range(2)))
    return root


def test_untagged_notes_beside_heavier_tags_are_named(tmp_path):
    root = notes_and_tagged_chats(tmp_path / "memory")
    balance = coverage(root)["balance"]
    assert {k: v for k, v in balance.items() if k != "text"} == {
        "notes": 4, "untagged_notes": 3, "untagged_weight": 0.42, "heavier_files": 3, "heavier_weight": 0.81,
        "heavier_kinds": {"markdown": 1, "transcript": 2}}
    assert balance["text"] == ("3 of 4 notes are untagged and weigh 0.42 (trust × confidence) against 0.81 to 1.00 "
                               "for 1 note and 2 transcripts: those outrank an untagged note unless it matches "
                               "1.9 times as well")
    line = next(x for x in stats.format_text(stats.report(root)).splitlines() if x.startswith("weights: "))
    assert line.endswith("--trust owner --confidence high --dry-run` shows which) or set [ranking.trust] missing "
                         "and [ranking.confidence] missing (docs/ranking.md)")


def test_no_balance_note_when_the_notes_are_tagged_or_weigh_as_much(tmp_path):
    root = notes_and_tagged_chats(tmp_path / "memory")
    for i in range(2):  # 3 of 4 notes tagged: most are
        put(root, f"notes/n{i}.md", "---\ntrust: owner\nconfidence: high\n---\nbody\n")
    assert coverage(root)["balance"] is None
    plain = tmp_path / "plain"  # nothing tagged: everything weighs the same
    put(plain, "a.md", "body\n")
    put(plain, "2026-03/s.jsonl", TURN)
    assert coverage(plain)["balance"] is None
    weighed = notes_and_tagged_chats(tmp_path / "weighed")  # untagged weighs as an owner's: nothing heavier
    put(weighed, "tachikoma.toml", "[ranking.trust]\nmissing = 1.0\n[ranking.confidence]\nmissing = 1.0\n")
    assert coverage(weighed)["balance"] is None
    assert "weights:" not in stats.format_text(stats.report(weighed))


def test_notes_with_only_a_source_or_misspelt_tags_weigh_as_untagged_in_the_balance(tmp_path):
    root = notes_and_tagged_chats(tmp_path / "memory")
    put(root, "notes/n0.md", "---\nsource: a call with Anna\n---\nbody\n")  # was untagged: still weighs 0.42
    put(root, "notes/n1.md", "---\ntrust: owenr\nconfidence: hihg\n---\nbody\n")
    put(root, "notes/n2.md", "---\ntrust: owner\n---\nbody\n")  # half tagged: weighs 1.0 × 0.7, not untagged
    balance = coverage(root)["balance"]
    assert (balance["notes"], balance["untagged_notes"]) == (4, 2)
    assert balance["text"].startswith("2 of 4 notes are untagged and weigh 0.42")


def test_a_new_index_names_the_weight_balance_and_a_later_run_does_not(tmp_path, capsys):
    from tachikoma.cli import main

    root = notes_and_tagged_chats(tmp_path / "memory")
    assert main(["--memory", str(root), "index", "--embedder", "hash"]) == 0
    first = capsys.readouterr().out.splitlines()
    assert first[0].startswith("embedder hash") and first[-1].startswith("weights: 3 of 4 notes are untagged")
    assert first[-1].endswith(stats.BALANCE_ADVICE)
    assert main(["--memory", str(root), "index"]) == 0  # nothing new: the summary line alone
    assert "weights:" not in capsys.readouterr().out
    again = notes_and_tagged_chats(tmp_path / "again")
    assert main(["--memory", str(again), "index", "--embedder", "hash", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["balance"] == coverage(again)["balance"]  # the same counts
    tagged = tmp_path / "tagged"
    put(tagged, "a.md", "---\ntrust: owner\nconfidence: high\n---\nbody\n")
    assert main(["--memory", str(tagged), "index", "--embedder", "hash", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["balance"] is None
