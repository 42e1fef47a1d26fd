"""The date of each memory: every source, in order, per chunk; tagging never changes it."""

import json
import os
import shutil
from datetime import datetime, timezone

import numpy as np
import pytest

from tachikoma.reading import dates
from tachikoma.git import gitutil
from tachikoma.indexer import runner, status
from tachikoma.tagging import applying, model, planning
from tachikoma.search import ranking
from tachikoma.search import searcher as search_module
from tachikoma.chunking import chunk_document
from tachikoma.config import RECENCY_PRESETS, Config, RankingConfig
from tachikoma.reading.documents import Chunk, Document, Turn
from tachikoma.search.keywords import words_held
from tachikoma.search.searcher import Searcher
from tachikoma.store import Store

from gitrepo import git

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
UTC = timezone.utc


def at(*parts) -> float:
    return datetime(*parts, tzinfo=UTC).timestamp()


def put(root, rel, text, mtime=None):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def search_results(root, query, limit, **kwargs) -> list[dict]:
    """The results of one search with no relevance floor (a Searcher opened and closed)."""
    searcher = Searcher(root)
    try:
        return searcher.search(query, limit, min_score=0, **kwargs)["results"]
    finally:
        searcher.close()


def factors_by_path(root, query, **kwargs):
    found = {}
    for r in search_results(root, query, 50, now=NOW, **kwargs):
        found.setdefault(r["path"], r["factors"])
    return found


def new_repo(top):
    """An empty git repository at `top` (made)."""
    top.mkdir()
    git(top, "init", "-q")
    return top


def commit_all(top, message, date):
    """Commit every file in `top` at `date`."""
    git(top, "add", ".")
    git(top, "commit", "-qm", message, date=date)


# ----------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize("path, expected", [
    ("memory/2026-02-10.md", (2026, 2, 10)),  # OpenClaw's daily file
    ("2026-03-22/notes.md", (2026, 3, 22)),  # the seed's daily folder
    ("2025-01-01/2026-04-05-standup.md", (2026, 4, 5)),  # the deepest part wins
    ("2026-02-30/notes.md", None),  # not a real date
    ("2026-02-30-and-2026-02-03.md", (2026, 2, 3)),
    ("notes/v2026-01-01x.md", (2026, 1, 1)),
    ("notes/120260-01-01.md", None),  # five digits are no year
    ("notes/plain.md", None),
    ("journals/2026_12_03.md", (2026, 12, 3)),  # Logseq's journal page
    ("vault/daily.journal.2026.12.02.md", (2026, 12, 2)),  # Dendron's daily note
    ("vault/scratch.2026.10.03.151204.md", (2026, 10, 3)),  # Dendron's scratch note: a time follows
    ("notes/2026-12.03.md", None),  # one separator throughout
    ("notes/2026_02_30.md", None),
    ("notes/v1.2.3.md", None),
    ("vendor/lib-1000.10.10.md", None),  # a version: a year before 1900 takes "-" alone
    ("history/1066-10-14.md", (1066, 10, 14)),
])
def test_path_dates(path, expected):
    found = dates.path_date(path)
    assert found == (datetime(*expected, tzinfo=UTC) if expected else None)


def test_a_transcript_chunk_is_dated_by_its_last_timestamped_turn():
    turns = [Turn("user", "a", 1, datetime(2026, 1, 1, 9, tzinfo=UTC)),
             Turn("assistant", "b", 2, datetime(2026, 1, 1, 10, tzinfo=UTC)),
             Turn("user", "c", 3, None),
             Turn("assistant", "d", 5, datetime(2026, 1, 2, 8, tzinfo=UTC)),
             Turn("user", "e", 7, None)]
    doc = Document("s.jsonl", "transcript", turns=turns)
    chunks = [Chunk(0, "", 1, 3), Chunk(1, "", 3, 5), Chunk(2, "", 6, 7)]
    assert dates.chunk_dates(doc, chunks) == [at(2026, 1, 1, 10), at(2026, 1, 2, 8), None]
    assert dates.last_turn_date(doc) == at(2026, 1, 2, 8)
    assert dates.chunk_dates(Document("n.md", "markdown"), chunks) == [None, None, None]


def test_real_chunks_of_a_long_session_get_their_own_dates():
    turns = [Turn("user" if i % 2 else "assistant", f"message number {i} " * 30, i + 1,
                  datetime(2026, 1, 1 + i, tzinfo=UTC)) for i in range(8)]
    doc = Document("s.jsonl", "transcript", turns=turns)
    chunks = chunk_document(doc, 80)
    found = dates.chunk_dates(doc, chunks)
    assert len(chunks) > 2 and len(set(found)) > 2, "each chunk dated by its own turns"
    for chunk, when in zip(chunks, found):
        last = max(t for t in turns if chunk.line_start <= t.line <= chunk.line_end)
        assert when == last.timestamp.timestamp()


def test_choose_takes_sources_in_order():
    nan = np.nan
    date, source = dates.choose(
        chunk_date=np.array([1.0, nan, nan, nan, nan, nan]),
        turn_date=np.array([9.0, 2.0, nan, nan, nan, nan]),
        fm_date=np.array([9.0, 9.0, 3.0, nan, nan, nan]),
        path_date=np.array([9.0, 9.0, 9.0, 4.0, nan, nan]),
        git_date=np.array([9.0, 9.0, 9.0, 9.0, 5.0, nan]),
        mtime=np.array([9.0, 9.0, 9.0, 9.0, 9.0, 6.0]))
    assert date.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert [dates.SOURCES[i] for i in source] == ["transcript", "transcript", "frontmatter", "path", "git", "mtime"]


@pytest.mark.parametrize("meta, expected", [
    ({"evergreen": True}, True), ({"Evergreen": "true"}, True), ({"evergreen": False}, False),
    ({"evergreen": "no"}, False), ({}, False), (None, False),
])
def test_front_matter_evergreen(meta, expected):
    assert dates.front_matter_evergreen(meta) is expected


# ----------------------------------------------------------------------------- presets


def test_seed_preset_is_exactly_the_seed_rule():
    days = np.array([0.0, 1.0, 7.5, 30.0, 90.0, 184.0, 400.0])
    no = np.zeros(days.shape[0], dtype=bool)
    seed = ranking.recency_rule(days, no, RECENCY_PRESETS["seed"])
    assert seed.tolist() == (1.0 / (1.0 + days / 30.0)).tolist()  # bit for bit


def test_presets_order_and_floor():
    days = np.array([0.0, 30.0, 184.0, 400.0, 10_000.0])
    no = np.zeros(days.shape[0], dtype=bool)
    values = {name: ranking.recency_rule(days, no, rule) for name, rule in RECENCY_PRESETS.items()}
    assert values["off"].tolist() == [1.0] * 5
    for name in ("default", "strong", "seed"):
        assert values[name][0] == 1.0 and np.all(np.diff(values[name]) < 0), "fresher is always more"
    default = RECENCY_PRESETS["default"]
    assert values["default"].min() > default.floor, "never below the floor: it orders, it does not bury"
    assert np.all(values["default"] >= values["strong"]) and np.all(values["strong"][1:] > values["seed"][1:])
    evergreen = np.ones(days.shape[0], dtype=bool)
    assert ranking.recency_rule(days, evergreen, RECENCY_PRESETS["seed"]).tolist() == [1.0] * 5


def test_config_overrides_of_the_preset(tmp_path):
    from tachikoma.config import load_config

    (tmp_path / "tachikoma.toml").write_text('[ranking]\nrecency = "Strong"\nrecency_floor = 0.5\n'
                                             'half_life_days = 10\nevergreen = ["*.pinned.md"]\n')
    cfg = load_config(tmp_path).ranking
    assert cfg.recency == "strong" and cfg.rule.floor == 0.5 and cfg.rule.half_life_days == 10
    assert cfg.evergreen == ("*.pinned.md",)
    assert cfg.with_recency("seed").rule == RECENCY_PRESETS["seed"], "a named preset drops the overrides"
    for bad, message in (('recency = "fast"', "unknown recency 'fast'"),
                         ("recency_floor = 1.5", "recency_floor must be a number between 0 and 1"),
                         ('evergreen = "MEMORY.md"', "ranking.evergreen must be an array")):
        (tmp_path / "tachikoma.toml").write_text(f"[ranking]\n{bad}\n")
        with pytest.raises(Exception, match=message):
            load_config(tmp_path)
    assert RankingConfig().recency == "default"


# ----------------------------------------------------------------------------- through the index


@pytest.fixture
def dated(tmp_path):
    """One memory per date source, all about the same thing."""
    root = tmp_path / "mem"
    put(root, "session.jsonl", "".join(json.dumps(x) + "\n" for x in [
        {"role": "user", "content": "the lighthouse lamp needs a new bulb", "timestamp": "2026-11-20T10:00:00Z"},
        {"role": "assistant", "content": "noted: lighthouse lamp bulb", "timestamp": "2026-11-21T10:00:00Z"},
    ]), mtime=at(2026, 1, 1))
    put(root, "fm.md", "---\ndate: 2026-05-01\nupdated: 2026-06-01\n---\nThe lighthouse lamp was repainted.\n",
        mtime=at(2026, 1, 1))
    put(root, "fmdate.md", "---\ndate: 2026-05-01\n---\nThe lighthouse lamp is red.\n", mtime=at(2026, 1, 1))
    put(root, "daily/2026-03-22.md", "Walked to the lighthouse lamp.\n", mtime=at(2026, 1, 1))
    put(root, "2026-04-02/notes.md", "Lighthouse lamp photos.\n", mtime=at(2026, 1, 1))
    put(root, "loose.md", "Lighthouse lamp rumours.\n", mtime=at(2026, 2, 3, 4, 5))
    return root


def test_every_date_source_through_the_index(dated):
    runner.run(dated, embedder_name="hash")
    found = factors_by_path(dated, "lighthouse lamp")
    expect = {"session.jsonl": ("transcript", "2026-11-21T10:00:00+00:00"),
              "fm.md": ("frontmatter", "2026-06-01T00:00:00+00:00"),  # updated before date
              "fmdate.md": ("frontmatter", "2026-05-01T00:00:00+00:00"),
              "daily/2026-03-22.md": ("path", "2026-03-22T00:00:00+00:00"),
              "2026-04-02/notes.md": ("path", "2026-04-02T00:00:00+00:00"),
              "loose.md": ("mtime", "2026-02-03T04:05:00+00:00")}
    assert {p: (f["date_source"], f["date"]) for p, f in found.items()} == expect
    f = found["daily/2026-03-22.md"]
    assert f["age_days"] == pytest.approx((NOW - datetime(2026, 3, 22, tzinfo=UTC)).days)


def test_git_dates_skip_tagging_and_tag_only_commits(tmp_path):
    top = new_repo(tmp_path / "repo")
    put(top, "old-note.md", "Vendors: we buy brackets from Misumi.\n")
    put(top, "other.md", "Nothing about it.\n")
    commit_all(top, "notes", "2026-05-31T12:00:00Z")
    put(top, "old-note.md", "---\ntrust: owner\n---\nVendors: we buy brackets from Misumi.\n")
    git(top, "commit", "-qam", "tags by hand", date="2026-09-01T12:00:00Z")
    put(top, "other.md", "Now it says something.\n")
    git(top, "commit", "-qam", "content", date="2026-10-01T12:00:00Z")
    times = gitutil.content_times(top)
    assert times["old-note.md"] == datetime(2026, 5, 31, 12, tzinfo=UTC), "a tag-only hand edit does not count"
    assert times["other.md"] == datetime(2026, 10, 1, 12, tzinfo=UTC)

    applied = applying.apply(top, planning.plan(top, {"source": "x", "confidence": "high"},
                                                model.Selector(pattern="old-note.md")))
    assert applied.commit and "Tachikoma-Tagging: 1" in git(top, "log", "-1", "--format=%B")
    assert git(top, "log", "-1", "--format=%(trailers:key=Tachikoma-Tagging,valueonly)").strip() == "1"
    assert gitutil.content_times(top)["old-note.md"] == datetime(2026, 5, 31, 12, tzinfo=UTC)


def test_tagging_never_changes_a_memory_age(tmp_path):
    """The issue's report: tagging a 184-day-old note made it "0 days, git" and raised its score."""
    top = new_repo(tmp_path / "repo")
    put(top, "vendors.md", "Vendors: we buy brackets from Misumi.\n")
    put(top, "notes/2026-05-01.md", "Brackets arrived from Misumi.\n")
    put(top, "chat.jsonl", json.dumps({"role": "user", "content": "order brackets from Misumi"}) + "\n")
    commit_all(top, "notes", "2026-05-31T12:00:00Z")
    runner.run(top, embedder_name="hash")
    before = factors_by_path(top, "brackets Misumi")
    # The folder's first commit of several files is an import: a weak date, but still the same date.
    assert before["vendors.md"]["date_source"] == "git-import" and before["vendors.md"]["age_days"] == pytest.approx(183.5)

    plan = planning.plan(top, {"source": "x", "trust": "owner"}, model.Selector())
    assert {c.path for c in plan.changes} == {"vendors.md", "notes/2026-05-01.md", "chat.jsonl"}
    assert applying.apply(top, plan).commit
    assert git(top, "status", "--porcelain") == "" or "tachikoma-tags" not in git(top, "status", "--porcelain")
    summary = runner.run(top, embedder_name="hash")
    assert summary.changed == 2 and summary.chunks_embedded == 0
    after = factors_by_path(top, "brackets Misumi")
    shutil.rmtree(top / ".cache")  # a fresh index (as after a clone) gives the same dates
    runner.run(top, embedder_name="hash")
    rebuilt = factors_by_path(top, "brackets Misumi")
    for path in before:
        for key in ("date", "date_source", "date_trust", "age_days", "recency", "similarity", "confidence_weight"):
            assert after[path][key] == before[path][key] == rebuilt[path][key], (path, key)
        assert after[path]["trust"] == "owner" and after[path]["trust_weight"] == 1.0

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(top), str(clone))
    runner.run(clone, embedder_name="hash")
    cloned = factors_by_path(clone, "brackets Misumi")
    assert {p: f["date"] for p, f in cloned.items()} == {p: f["date"] for p, f in before.items()}


def test_tagging_outside_git_keeps_the_file_time(tmp_path):
    root = tmp_path / "mem"
    note = put(root, "note.md", "The brackets come from Misumi.\n", mtime=at(2026, 3, 1))
    runner.run(root, embedder_name="hash")
    before = factors_by_path(root, "brackets Misumi")["note.md"]
    applying.apply(root, planning.plan(root, {"trust": "owner"}, model.Selector()))
    assert note.read_text().startswith("---\ntrust: owner\n---\n")
    summary = runner.run(root, embedder_name="hash")
    assert summary.changed == 1, "the index still sees the tag change"
    after = factors_by_path(root, "brackets Misumi")["note.md"]
    assert (after["date"], after["date_source"], after["recency"]) == (before["date"], "mtime", before["recency"])
    assert after["trust_weight"] == 1.0 and before["trust_weight"] == 0.6


def test_evergreen_by_front_matter_and_by_config_glob(tmp_path):
    root = tmp_path / "mem"
    put(root, "MEMORY.md", "Lighthouse lamp facts.\n", mtime=at(2024, 1, 1))
    put(root, "sub/identity.md", "I keep the lighthouse lamp.\n", mtime=at(2024, 1, 1))
    put(root, "pinned.md", "---\nevergreen: true\n---\nLighthouse lamp rules.\n", mtime=at(2024, 1, 1))
    put(root, "old.md", "Lighthouse lamp gossip.\n", mtime=at(2024, 1, 1))
    runner.run(root, embedder_name="hash")
    found = factors_by_path(root, "lighthouse lamp")
    for path in ("MEMORY.md", "sub/identity.md", "pinned.md"):
        assert found[path]["recency"] == 1.0 and found[path]["recency_reason"] == "evergreen", path
        assert found[path]["date_source"] == "mtime" and found[path]["age_days"] > 600
    assert found["old.md"]["recency_reason"] == "age" and found["old.md"]["recency"] < 1
    (root / "tachikoma.toml").write_text('[ranking]\nevergreen = ["old.md"]\n')
    found = factors_by_path(root, "lighthouse lamp")
    assert found["old.md"]["recency"] == 1.0 and found["MEMORY.md"]["recency_reason"] == "age"
    assert found["pinned.md"]["recency_reason"] == "evergreen", "front matter needs no glob"
    off = factors_by_path(root, "lighthouse lamp", recency="off")
    assert {f["recency_reason"] for f in off.values()} == {"off"} and {f["recency"] for f in off.values()} == {1.0}


def test_an_old_index_is_upgraded_without_embedding(dated):
    runner.run(dated, embedder_name="hash")
    path = dated / ".cache" / "index.db"
    with Store(path) as store:  # make it look like an index of schema 1, from before dates
        db = store.db
        db.execute("UPDATE chunks SET date = NULL")
        db.execute("UPDATE files SET path_date = NULL, turn_date = NULL")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        db.execute("DELETE FROM meta WHERE key = 'dates'")
        db.commit()
        for column in ("path_date", "turn_date", "evergreen", "git_import"):
            db.execute(f"ALTER TABLE files DROP COLUMN {column}")
        db.execute("ALTER TABLE chunks DROP COLUMN quick")  # schema 4
        db.execute("ALTER TABLE chunks DROP COLUMN date")
        db.commit()
    with pytest.raises(Exception, match="older tachikoma .* run `tachikoma index` to upgrade"):
        Store(path, readonly=True)
    assert "older tachikoma" in status.freshness(dated)["note"]  # stats and the coverage page say what to do
    with pytest.raises(Exception, match="run `tachikoma index` to upgrade it"):
        Searcher(dated).search("lighthouse", 3)
    summary = runner.run(dated, embedder_name="hash")
    assert summary.chunks_embedded == 0 and summary.rechunked == 6
    assert status.freshness(dated)["note"] is None
    found = factors_by_path(dated, "lighthouse lamp")
    assert found["session.jsonl"]["date_source"] == "transcript" and found["2026-04-02/notes.md"]["date_source"] == "path"
    assert runner.run(dated, embedder_name="hash").rechunked == 0


def test_an_index_dated_before_logseq_and_dendron_names_dates_them_on_its_next_run(tmp_path):
    """A journal page named as Logseq names it and a daily note named as Dendron does are dated by their names,
    and an index made before those names were read (dates version 1) dates them on its next run, embedding
    nothing again."""
    root = tmp_path / "graph"
    put(root, "journals/2026_11_30.md", "- Walked to the lighthouse lamp\n", mtime=at(2026, 12, 1, 8))
    put(root, "vault/daily.journal.2026.11.20.md", "Lighthouse lamp: new bulb ordered.\n", mtime=at(2026, 12, 1, 8))
    runner.run(root, embedder_name="hash")
    found = factors_by_path(root, "lighthouse lamp")
    assert found["journals/2026_11_30.md"]["date"].startswith("2026-11-30")
    assert found["vault/daily.journal.2026.11.20.md"]["date"].startswith("2026-11-20")
    assert {f["date_source"] for f in found.values()} == {"path"}
    with Store(root / ".cache" / "index.db") as store:  # as an index made before: file times
        store.db.execute("UPDATE files SET path_date = NULL")
        store.db.execute("UPDATE meta SET value = '1' WHERE key = 'dates'")
        store.db.commit()
    assert "dated by an older tachikoma" in status.freshness(root)["note"]
    summary = runner.run(root, embedder_name="hash")
    assert summary.chunks_embedded == 0 and summary.rechunked == 2
    assert {f["date_source"] for f in factors_by_path(root, "lighthouse lamp").values()} == {"path"}


def test_recency_of_each_chunk_in_a_search(dated):
    put(dated, "fresh.md", "lamp\n", mtime=at(2026, 11, 30))
    runner.run(dated, embedder_name="hash")
    found = factors_by_path(dated, "lighthouse lamp")
    default = Config().ranking.rule
    assert found["fresh.md"]["date_trust"] == "weak" and found["fresh.md"]["recency"] < 1.0, \
        "a file time says how old, never how fresh"
    for f in found.values():
        age = max(f["age_days"], default.half_life_days) if f["date_trust"] == "weak" else f["age_days"]
        expected = default.floor + (1 - default.floor) / (1 + age / default.half_life_days)
        assert f["recency"] == pytest.approx(expected * (default.superseded if "superseded_by" in f else 1.0))
    seed = factors_by_path(dated, "lighthouse lamp", recency="seed")
    for f in seed.values():
        # The seed's rule counts days since the file's modification, and its explanation agrees.
        assert f["recency"] == 1 / (1 + f["age_days"] / 30) and f["recency_rule"] == "seed"
        assert f["date_source"] in ("git", "git-import", "mtime")
        assert f["recency_reason"] == "age", "the seed's rule knows no supersession"
    assert seed["fresh.md"]["date"].startswith("2026-11-30") and seed["fresh.md"]["date_source"] == "mtime"


def test_the_seed_rule_counts_from_the_modification_of_a_note_just_written(tmp_path):
    """The issue's case: in a folder without git, a note written today had recency 0.5 under the seed
    preset with age_days 0 (its file time was a weak date). The seed's rule is days since modification."""
    root = tmp_path / "mem"
    put(root, "today.md", "The lighthouse lamp was replaced.\n")
    put(root, "older.md", "The lighthouse lamp flickers.\n", mtime=datetime.now(UTC).timestamp() - 30 * 86400)
    runner.run(root, embedder_name="hash")
    found = {r["path"]: r["factors"] for r in search_results(root, "lighthouse lamp", 5, recency="seed")}
    assert found["today.md"]["age_days"] < 0.01 and found["today.md"]["recency"] > 0.999
    assert found["older.md"]["age_days"] == pytest.approx(30, abs=0.01)
    assert found["older.md"]["recency"] == pytest.approx(0.5, abs=1e-3)


def test_supersessions_rule():
    """j supersedes i: another file, more than a day newer, alike, and about as relevant."""
    v = np.array([[1.0, 0.0], [0.8, 0.6], [-0.6, 0.8], [1.0, 0.0]], dtype=np.float32)
    day = 86400.0
    sim = np.array([0.8, 0.7, 0.9, 0.5])
    dates_ = np.array([0.0, 10 * day, 20 * day, 30 * day])
    files = np.array([0, 1, 2, 0])
    yes = np.ones(4, dtype=bool)
    no = np.zeros(4, dtype=bool)
    by = ranking.supersessions(sim, v, dates_, files, yes, no)
    # 0 is superseded by 1 (cos 0.8, sim 0.7 >= 0.75 × 0.8); 3 (same file, sim 0.5 < 0.6) does not count;
    # 2 is unlike everything; 1 and 3: 3 is newer and alike but far less relevant (0.5 < 0.75 × 0.7).
    assert by.tolist() == [1, -1, -1, -1]
    assert ranking.supersessions(sim, v, dates_, files, ~yes, no).tolist() == [-1] * 4, "evergreen never"
    same_day = np.array([0.0, 0.5 * day, 20 * day, 30 * day])
    assert ranking.supersessions(sim, v, same_day, files, yes, no)[0] == -1, "a day apart at least"
    both_transcripts = ranking.supersessions(sim, v, dates_, files, yes, yes)
    assert both_transcripts[0] == -1, "conversation excerpts must be far more alike (0.9)"


def test_supersessions_read_the_query_words():
    """With the query's words known: a newer chunk holding too few of the words the older holds is no
    update however alike; a conversation excerpt and a note holding the same words are, at cosine 0.5."""
    day = 86400.0
    yes = np.ones(2, dtype=bool)
    dates_ = np.array([0.0, 10 * day])
    files = np.array([0, 1])
    alike = np.array([[1.0, 0.0], [0.8, 0.6]], dtype=np.float32)  # cosine 0.8
    sim = np.array([0.8, 0.7])
    words = np.array([[True, True, True], [True, True, True]])
    assert ranking.supersessions(sim, alike, dates_, files, yes, ~yes, words).tolist() == [1, -1]
    fewer = np.array([[True, True, True], [True, True, False]])  # 2 of the 3 the older holds (< 0.7)
    assert ranking.supersessions(sim, alike, dates_, files, yes, ~yes, fewer).tolist() == [-1, -1]
    assert ranking.supersessions(sim, alike, dates_, files, yes, ~yes).tolist() == [1, -1], "words unknown"
    # cosine 0.55 and the newer only 0.69 of the older's similarity: an update only between a note and an
    # excerpt (the newer one here), and only if the newer holds every word the older holds.
    loose = np.array([[1.0, 0.0], [0.55, np.sqrt(1 - 0.55 ** 2)]], dtype=np.float32)
    low = np.array([0.9, 0.62])
    newer_excerpt = np.array([False, True])
    assert ranking.supersessions(low, loose, dates_, files, yes, newer_excerpt, words).tolist() == [1, -1]
    assert ranking.supersessions(low, loose, dates_, files, yes, ~yes, words).tolist() == [-1, -1], "two notes"
    assert ranking.supersessions(low, loose, dates_, files, yes, yes, words).tolist() == [-1, -1], "two excerpts"
    assert ranking.supersessions(low, loose, dates_, files, yes, newer_excerpt, fewer).tolist() == [-1, -1]
    assert ranking.supersessions(low, loose, dates_, files, yes, newer_excerpt).tolist() == [-1, -1]
    none = np.zeros((2, 3), dtype=bool)
    assert ranking.supersessions(low, loose, dates_, files, yes, newer_excerpt, none).tolist() == [-1, -1], \
        "an older chunk holding none of the words gives nothing to compare"
    lower = np.array([0.9, 0.5])  # 0.56 of the older's similarity: below 0.65
    assert ranking.supersessions(lower, loose, dates_, files, yes, newer_excerpt, words).tolist() == [-1, -1]


def test_words_held_reads_the_keyword_index(tmp_path):
    root = tmp_path / "mem"
    put(root, "a.md", "The Granite staging database runs PostgreSQL 13; the ops team set it up in spring "
                      "with backups every night.\n")
    put(root, "b.md", "Booked the Granite lab for Thursday.\n")
    put(root, "c.md", "Nothing relevant here at all.\n")
    runner.run(root, embedder_name="hash")
    with Store(root / ".cache" / "index.db", readonly=True) as store:
        rows = dict(store.db.execute("SELECT f.path, c.id FROM chunks c JOIN files f ON f.id = c.file_id"))
        ids = np.array([rows["c.md"], rows["a.md"], rows["b.md"]])
        held = words_held(store, "Which database does Granite staging run?", ids)
        # the query's words, function words aside: database, Granite, staging, run ("runs" is stemmed)
        assert held.tolist() == [[False] * 4, [True] * 4, [False, True, False, False]]
        assert words_held(store, "which is the", ids).shape == (3, 0)
        assert words_held(store, "Granite", ids[:0]).shape == (0, 1)


def test_an_update_told_in_a_conversation_supersedes_the_note(tmp_path, monkeypatch):
    """The update is a transcript turn, the old fact a note: the search reads the query's words from
    the keyword index for the comparison and the older note says what superseded it."""
    root = tmp_path / "mem"
    fact = "staging database runs PostgreSQL {} on the shared cluster behind the office firewall, backed up nightly."
    put(root, "notes/granite.md", "---\ndate: 2025-06-01\n---\nGranite " + fact.format(13) + "\n")
    turns = [{"role": "user", "content": "Granite " + fact.format(16), "timestamp": "2026-10-01T09:00:00Z"},
             {"role": "assistant", "content": "Noted.", "timestamp": "2026-10-01T09:00:05Z"}]
    put(root, "sessions/upgrade.jsonl", "".join(json.dumps(t) + "\n" for t in turns))
    put(root, "notes/lab.md", "---\ndate: 2025-03-01\n---\nThe Granite lab wifi password is kx-4471.\n")
    put(root, "notes/booked.md", "---\ndate: 2026-11-28\n---\nBooked the Granite lab for Thursday.\n")
    runner.run(root, embedder_name="hash")
    held = []
    real = search_module.words_held
    monkeypatch.setattr(search_module, "words_held",
                        lambda db, query, ids, *read: held.append(real(db, query, ids, *read)) or held[-1])
    searcher = Searcher(root)
    try:
        answer = searcher.search("Which database does Granite staging run?", 5, now=NOW, min_score=0)
    finally:
        searcher.close()
    assert held and held[0].shape[1] == 4 and held[0].any(), "the candidates' query words were read"
    note = next(r for r in answer["results"] if r["path"] == "notes/granite.md")
    assert note["factors"]["superseded_by"]["path"] == "sessions/upgrade.jsonl"
    assert note["factors"]["recency_reason"] == "superseded"
    assert answer["results"][0]["path"] == "sessions/upgrade.jsonl"
    product = 1.0
    for key in ("similarity", "trust_weight", "confidence_weight", "recency", "duplicate_penalty"):
        product *= note["factors"][key]
    assert note["score"] == pytest.approx(product, rel=1e-12)


def test_a_knowledge_update_ranks_the_newer_fact_first(tmp_path):
    root = tmp_path / "mem"
    put(root, "people/priya-2025.md",
        "---\ndate: 2025-08-01\n---\nPriya lives in Lisbon, in a flat near the old tram line by the river.\n")
    put(root, "people/priya-2026.md",
        "---\ndate: 2026-07-01\n---\nPriya lives in Oslo now, in a flat near the old tram line by the river.\n")
    put(root, "2026-11-29/groceries.md", "Buy tram tickets and milk.\n")
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        off = searcher.search("where does Priya live", 5, now=NOW, min_score=0, recency="off")["results"]
        default = searcher.search("where does Priya live", 5, now=NOW, min_score=0)["results"]
    finally:
        searcher.close()
    old = next(r for r in default if r["path"] == "people/priya-2025.md")
    assert old["factors"]["recency_reason"] == "superseded"
    assert old["factors"]["superseded_by"] == {"path": "people/priya-2026.md", "date": "2026-07-01T00:00:00+00:00"}
    assert default[0]["path"] == "people/priya-2026.md"
    product = 1.0
    for key in ("similarity", "trust_weight", "confidence_weight", "recency", "duplicate_penalty"):
        product *= old["factors"][key]
    assert old["score"] == pytest.approx(product, rel=1e-12), "the explanation still multiplies out"
    assert {r["factors"]["recency_reason"] for r in off} == {"off"}


# ----------------------------------------------------------------------------- how far a date is trusted


def test_choose_tells_an_import_from_an_edit():
    nan = np.nan
    date, source = dates.choose(chunk_date=np.full(3, nan), turn_date=np.full(3, nan), fm_date=np.full(3, nan),
                                path_date=np.array([nan, nan, 4.0]), git_date=np.array([5.0, 5.0, 5.0]),
                                mtime=np.full(3, 6.0), git_import=np.array([False, True, True]))
    assert date.tolist() == [5.0, 5.0, 4.0]
    assert [dates.SOURCES[i] for i in source] == ["git", "git-import", "path"]
    assert [dates.TRUST[dates.SOURCES[i]] for i in source] == ["commit", "weak", "own"]


def test_a_weak_date_never_counts_as_fresh():
    rule = RECENCY_PRESETS["default"]
    ages = np.array([0.0, 0.0, 400.0])
    weak = np.array([False, True, True])
    rec = ranking.recency_rule(ages, np.zeros(3, dtype=bool), rule, weak=weak)
    assert rec[0] == 1.0
    assert rec[1] == pytest.approx(ranking.recency(np.array([rule.half_life_days]), rule.half_life_days,
                                                   rule.floor)[0]), "at least one half-life old"
    assert rec[2] == pytest.approx(ranking.recency(np.array([400.0]), rule.half_life_days, rule.floor)[0])


def test_supersession_needs_a_date_trusted_as_much():
    v = np.array([[1.0, 0.0], [1.0, 0.0]], dtype=np.float32)
    sim = np.array([0.8, 0.8])
    day = 86400.0
    dates_ = np.array([0.0, 30 * day])
    files = np.array([0, 1])
    yes, no = np.ones(2, dtype=bool), np.zeros(2, dtype=bool)
    own, commit, weak = 2, 1, 0
    for older, newer, expected in ((own, own, 1), (own, commit, -1), (own, weak, -1), (commit, commit, 1),
                                   (commit, weak, -1), (weak, weak, 1), (weak, own, 1)):
        strength = np.array([older, newer])
        assert ranking.supersessions(sim, v, dates_, files, yes, no, strength=strength)[0] == expected, \
            (older, newer)


def test_import_commits_are_told_from_edits(tmp_path):
    top = new_repo(tmp_path / "repo")
    for name in ("a.md", "b.md"):
        put(top, name, f"{name}\n")
    commit_all(top, "first commit of an existing memory", "2026-03-01T12:00:00Z")
    put(top, "a.md", "edited\n")
    git(top, "commit", "-qam", "an edit", date="2026-03-05T12:00:00Z")
    for i in range(gitutil.IMPORT_FILES):
        put(top, f"moved/{i}.md", f"note {i}\n")
    commit_all(top, "many notes at once", "2026-03-09T12:00:00Z")
    put(top, "c.md", "one new note\n")
    put(top, "d.md", "and another\n")
    commit_all(top, "two new notes", "2026-03-10T12:00:00Z")
    changes = gitutil.content_changes(top)
    assert changes["a.md"] == gitutil.ContentChange(datetime(2026, 3, 5, 12, tzinfo=UTC), False)
    assert changes["b.md"] == gitutil.ContentChange(datetime(2026, 3, 1, 12, tzinfo=UTC), True), \
        "the folder's first commit of several files is an import"
    assert changes["moved/0.md"].imported and not changes["c.md"].imported


TOMAS = "Tomas from Nordlys visits the Porto office for the packaging review on 15 February.\n"
TOMAS_MOVED = "Tomas from Nordlys visits the Porto office: the packaging review moved to 20 February.\n"


def _tomas_memory(top):
    """The issue's memory: an undated note and a dated daily note, committed in one initial commit."""
    new_repo(top)
    put(top, "people/tomas.md", "# Tomas\n\n" + TOMAS)
    put(top, "memory/2026-02-10.md", "# 2026-02-10\n\n" + TOMAS_MOVED)
    put(top, "memory/2026-02-09.md", "# 2026-02-09\n\nOrdered printer paper.\n")
    put(top, "projects/pipeline.md", "The nightly run starts at 02:00.\n")
    put(top, "skills/review.md", "How to review a packaging proof.\n")
    commit_all(top, "my memory", "2026-03-01T12:00:00Z")


def _search(root, query, now):
    return {r["path"]: r for r in search_results(root, query, 10, now=now)}


def test_a_first_commit_never_supersedes_a_dated_memory(tmp_path):
    """The issue's report: right after the first commit of an existing memory, the undated
    people/tomas.md ("15 February") was 0 days old and halved memory/2026-02-10.md ("moved to 20
    February") as superseded."""
    top = tmp_path / "repo"
    _tomas_memory(top)
    runner.run(top, embedder_name="hash")
    now = datetime(2026, 3, 2, tzinfo=UTC)
    found = _search(top, "when does Tomas visit the Porto office", now)
    tomas, daily = found["people/tomas.md"]["factors"], found["memory/2026-02-10.md"]["factors"]
    assert daily["recency_reason"] == "age" and "superseded_by" not in daily
    assert (tomas["date_source"], tomas["date_trust"]) == ("git-import", "weak")
    assert (daily["date_source"], daily["date_trust"]) == ("path", "own")
    assert tomas["recency"] < daily["recency"], "the undated note does not look fresher than the dated one"

    # Edited on its own later, the note has a real edit date, still not the memory's own: no supersession.
    put(top, "people/tomas.md", "# Tomas\n\n" + TOMAS + "He prefers email.\n")
    git(top, "commit", "-qam", "tomas prefers email", date="2026-03-03T12:00:00Z")
    runner.run(top, embedder_name="hash")
    found = _search(top, "when does Tomas visit the Porto office", datetime(2026, 3, 4, tzinfo=UTC))
    tomas, daily = found["people/tomas.md"]["factors"], found["memory/2026-02-10.md"]["factors"]
    assert (tomas["date_source"], tomas["date_trust"]) == ("git", "commit")
    assert "superseded_by" not in daily


def test_a_dated_update_still_supersedes_after_an_import(tmp_path):
    """The memory's own dates keep working: a later daily note supersedes the imported one it updates."""
    top = tmp_path / "repo"
    _tomas_memory(top)
    put(top, "memory/2026-03-05.md", "# 2026-03-05\n\n" + TOMAS_MOVED.replace("20 February", "9 March"))
    commit_all(top, "today", "2026-03-05T18:00:00Z")
    runner.run(top, embedder_name="hash")
    found = _search(top, "when does Tomas visit the Porto office", datetime(2026, 3, 6, tzinfo=UTC))
    assert found["memory/2026-02-10.md"]["factors"]["superseded_by"]["path"] == "memory/2026-03-05.md"


def test_an_import_puts_no_memory_inside_the_time_asked_about(tmp_path):
    """An existing memory committed at once in the week asked about: "what did I decide last week" gave every
    imported note "time: 2026-03-01, asked 'last week'", 1.0, beside the daily note truly from that week, and the
    question's "no good match" was decided by them (session 50's user pass). A weak date is when the file was
    copied, not what it is from: outside any window, said so. Failed before."""
    top = tmp_path / "repo"
    _tomas_memory(top)
    put(top, "memory/2026-02-26.md", "# 2026-02-26\n\nDecided to print the packaging proofs in Porto.\n")
    commit_all(top, "a daily note", "2026-03-02T18:00:00Z")
    runner.run(top, embedder_name="hash")
    # asked on Wednesday 4 March: last week is 23 February to 1 March, the import's day among them
    found = _search(top, "what did I decide about the packaging review last week", datetime(2026, 3, 4, tzinfo=UTC))
    daily, tomas = found["memory/2026-02-26.md"]["factors"], found["people/tomas.md"]["factors"]
    assert (daily["time"], daily["time_reason"]) == (1.0, "time: 2026-02-26, asked 'last week'")
    assert tomas["date_trust"] == "weak" and tomas["time"] == 0.6
    assert tomas["time_reason"] == ("time: 2026-03-01, asked 'last week'; a weak date (an import or a file time), not "
                                    "when it is from")


def test_words_held_reads_a_common_word_as_a_rare_one(tmp_path, monkeypatch):
    """A word in more than WORDS_HELD_SCAN chunks is looked up chunk by chunk instead of read whole:
    the same answer either way."""
    import tachikoma.search.keywords as keywords_module

    root = tmp_path / "mem"
    put(root, "a.md", "The Granite staging database runs PostgreSQL 13 for the ops team.\n")
    put(root, "b.md", "Booked the Granite lab for Thursday.\n")
    put(root, "c.md", "Nothing relevant here at all.\n")
    runner.run(root, embedder_name="hash")
    with Store(root / ".cache" / "index.db", readonly=True) as store:
        ids = np.array([r[0] for r in store.db.execute("SELECT id FROM chunks ORDER BY id")])
        query = "Which database does Granite staging run?"
        read_whole = words_held(store, query, ids)
        monkeypatch.setattr(keywords_module, "WORDS_HELD_SCAN", 0)  # every word counts as common
        assert words_held(store, query, ids).tolist() == read_whole.tolist()
        assert read_whole.any(axis=0).all() and not read_whole.all()
