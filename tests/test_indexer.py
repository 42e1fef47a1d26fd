"""Incremental indexing against a real SQLite file."""

import os
import shutil
import sqlite3
import sys

import numpy as np
import pytest

from tachikoma import freshness, memory as mem
from tachikoma.indexer import pipeline, reporting, runner, status
from tachikoma.tagging import applying, planning
from tachikoma.embedders.hashing import HashingEmbedder
from tachikoma.errors import EmbedderError, EmbedderMismatch, TachikomaError
from tachikoma.store import IndexDamaged, Store

from counting_embedder import CountingEmbedder


def run(root, **kw):
    kw.setdefault("embedder_name", "hash")
    return runner.run(root, **kw)


def index_rows(root):
    with Store(mem.index_path(root)) as store:
        files = store.files()
        chunks = store.db.execute("SELECT f.path, c.idx, c.text, c.hash FROM chunks c JOIN files f ON f.id = c.file_id"
                                  " ORDER BY f.path, c.idx").fetchall()
    return files, chunks


def test_first_run_indexes_every_file_and_warns_about_bad_lines(memory):
    summary = run(memory)
    assert summary.added == len(mem.walk(memory)) == 11
    assert summary.chunks_embedded > 0 and summary.chunks == summary.chunks_embedded
    assert [w for w in summary.warnings if "design-chat.jsonl" in w] == [
        "2026-05-10/design-chat.jsonl:4: 2 lines not a JSON object, skipped (line 4, 6)"]
    db = sqlite3.connect(mem.index_path(memory))
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT value FROM meta WHERE key='embedder'").fetchone()[0] == "hash:512"
    blob, = db.execute("SELECT vector FROM chunks LIMIT 1").fetchone()
    assert len(blob) == 512 * 4  # float32
    assert (memory / ".cache" / ".gitignore").read_text().strip().endswith("*")


def test_unchanged_run_embeds_nothing_and_touch_does_not_reembed(memory):
    run(memory)
    os.utime(memory / "martin.md", (1, 1))  # new mtime, same content (as after a git clone)
    embedder = CountingEmbedder()
    summary = runner.run(memory, embedder=embedder)
    assert embedder.embedded == []
    assert (summary.added, summary.changed, summary.removed) == (0, 0, 0)
    assert summary.unchanged == 11


def test_edit_one_section_reembeds_only_that_chunk(memory):
    note = memory / "long.md"
    sections = [f"## Section {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(150)) + "\n" for i in range(5)]
    note.write_text("# Long note\n\n" + "\n".join(sections))
    run(memory)
    before = {c[2] for c in index_rows(memory)[1] if c[0] == "long.md"}
    assert len(before) >= 5
    note.write_text(note.read_text().replace("word2x10 ", "changed "))
    embedder = CountingEmbedder()
    summary = runner.run(memory, embedder=embedder)
    assert summary.changed == 1
    assert 1 <= len(embedder.embedded) <= 2, "only the chunks of the edited section"
    assert all("changed" in t for t in embedder.embedded)


def test_removed_file_leaves_the_index(memory):
    run(memory)
    (memory / "rumours.md").unlink()
    summary = run(memory)
    assert summary.removed == 1
    files, chunks = index_rows(memory)
    assert "rumours.md" not in files and all(c[0] != "rumours.md" for c in chunks)


def test_a_renamed_file_and_a_moved_folder_reuse_their_vectors(memory):
    """Moving a note or a folder of sessions (`git mv`, reorganising by date) changes no text: nothing is
    embedded again (the removed paths leave the index only after the new ones took their vectors)."""
    run(memory)
    (memory / "martin.md").rename(memory / "people-martin.md")
    (memory / "2026-03-22").rename(memory / "archive-2026-03-22")
    embedder = CountingEmbedder()
    summary = runner.run(memory, embedder=embedder)
    assert (summary.added, summary.removed) == (3, 3)
    assert embedder.embedded == [] and summary.chunks_embedded == 0 and summary.chunks_reused > 0
    files, chunks = index_rows(memory)
    assert "martin.md" not in files and "people-martin.md" in files
    assert not any(c[0] == "martin.md" or c[0].startswith("2026-03-22/") for c in chunks)


def test_the_run_line_counts_in_the_singular_too(memory):
    for path in mem.walk(memory):
        if path.path != "martin.md":
            (memory / path.path).unlink()
    run(memory)
    (memory / "walrus.md").write_text("# Walrus\n\nThe walrus ate twelve clams.\n")
    line = run(memory).line()
    assert "1 added" in line and "; 1 chunk embedded (" in line and "index holds 2 files, " in line


@pytest.mark.parametrize("engine", ["sqlite", "postgres"])
def test_the_run_line_accounts_for_every_chunk_it_stores(tmp_path, engine, request, monkeypatch):
    """Chunks of one run with the same text are embedded once: the line said "2 chunks embedded (0 reused)" for the
    four chunks it stored, two of them unaccounted for (a memory of repeated transcript lines: "55 chunks embedded"
    beside 1,523 stored). Those repeating another chunk's text are counted (`chunks_repeated` in `index --json`,
    beside the keys it had), whether the repeat is in the same batch or a later one (each file its own batch here;
    PostgreSQL embeds a batch before the next, so its later repeats found a vector and were counted as reused)."""
    from tachikoma.store import STORE_ENV

    if engine == "postgres":
        monkeypatch.setenv(STORE_ENV, request.getfixturevalue("url"))
    monkeypatch.setattr(pipeline, "STORE_BATCH_CHUNKS", 1)
    root = tmp_path / "memory"
    root.mkdir()
    same = "# Same\n\nThe very same text in each note.\n"
    for name in ("a.md", "b.md", "c.md"):
        (root / name).write_text(same)
    (root / "o.md").write_text("# Other\n\nSomething else entirely.\n")
    first = runner.run(root, embedder_name="hash")
    assert (first.chunks_embedded, first.chunks_reused, first.chunks_repeated) == (2, 0, 2)
    assert "; 2 chunks embedded (0 reused, 2 repeat another chunk's text) in " in first.line()
    for name in ("d.md", "e.md"):
        (root / name).write_text(same)
    second = runner.run(root)
    assert (second.chunks_embedded, second.chunks_reused, second.chunks_repeated) == (0, 2, 0)
    assert "; 0 chunks embedded (2 reused) in " in second.line()
    for name in ("f.md", "g.md"):
        (root / name).write_text("# New\n\nA new text, twice.\n")
    third = runner.run(root)
    assert (third.chunks_embedded, third.chunks_reused, third.chunks_repeated) == (1, 0, 1)
    assert "; 1 chunk embedded (0 reused, 1 repeats another chunk's text) in " in third.line()
    assert {"chunks_embedded": 1, "chunks_reused": 0, "chunks_repeated": 1}.items() <= third.as_dict().items()


def test_a_file_over_the_size_limit_is_not_pending_in_search_answers_either(memory):
    """A session over max_file_bytes is skipped and reported; it is not "changed since" for ever in every
    search answer (MCP then said the index was not up to date after each run), as `stats` already counts it."""
    (memory / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 2000\n")
    (memory / "big.md").write_text("# Big\n\n" + "word " * 1000)
    run(memory)
    with Store(mem.index_path(memory)) as store:
        assert freshness.answer_freshness(memory, store)["changed_since"] == 0
    assert status.freshness(memory)["changed_since"] == 0


def test_interrupted_run_leaves_a_usable_index_and_the_next_run_finishes(memory):
    for i in range(40):  # enough chunks for several batches
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(500)))
    embedder = CountingEmbedder(fail_after=pipeline.EMBED_SLICE)
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=embedder)
    files, _ = index_rows(memory)
    assert len(files) == 51, "every file is stored with its text before embedding starts"
    with Store(mem.index_path(memory)) as store:
        assert store.tier_counts()["full"] == pipeline.EMBED_SLICE, "the first batch of vectors was committed"
    summary = run(memory)
    assert summary.added == 0 and summary.chunks_embedded == summary.chunks - pipeline.EMBED_SLICE
    assert index_rows(memory)[0].keys() == {f.path for f in mem.walk(memory)}


def test_other_embedder_is_a_clear_error_naming_the_reembed_command(memory):
    run(memory)
    with pytest.raises(EmbedderMismatch, match="tachikoma index --reembed --embedder hash:64"):
        runner.run(memory, embedder_name="hash:64")
    summary = runner.run(memory, embedder_name="hash:64", reembed=True)
    assert summary.embedder == "hash:64" and summary.chunks_embedded == summary.chunks
    with Store(mem.index_path(memory)) as store:
        dims = {len(v) for (v,) in store.db.execute("SELECT vector FROM chunks")}
    assert dims == {64 * 4}, "vectors of two models are never mixed"


def test_second_concurrent_run_is_refused(memory):
    from filelock import FileLock

    lock = FileLock(str(mem.cache_dir(memory) / "index.lock"))
    with lock:
        with pytest.raises(TachikomaError, match="another"):
            run(memory)


def test_symlink_out_of_the_root_is_skipped_with_a_warning(memory, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nthe launch code is 0000")
    (memory / "leak.md").symlink_to(secret)
    summary = run(memory)
    assert any("leak.md" in w and "outside" in w for w in summary.warnings)
    _, chunks = index_rows(memory)
    assert not any("launch code" in c[2] for c in chunks)


def test_what_the_walk_skipped_counts_as_skipped(memory, tmp_path):
    """`index` said "0 skipped" right after warning that two symlinks were skipped: the summary counts them."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x.md").write_text("# Outside\n")
    (memory / "leak.md").symlink_to(tmp_path / "out" / "x.md")
    (memory / "linked").symlink_to(tmp_path / "out")
    summary = run(memory)
    walked = [w for w in summary.warnings if w.startswith(("leak.md:", "linked:"))]
    assert len(walked) == 2 and all(w.endswith("symlink points outside the memory folder, skipped") for w in walked)
    assert summary.skipped == 2 and ", 2 skipped, " in summary.line()
    again = run(memory)  # warned again, counted again
    assert again.skipped == 2 and ", 2 skipped, " in again.line()


def test_git_dates_and_dirty_files(git_memory):
    run(git_memory)
    files, _ = index_rows(git_memory)
    meeting = files["2026-03-22/meeting-notes.md"]
    assert meeting.fm_date is None and meeting.git_date == pytest.approx(1780315200)  # 2026-06-01 12:00 UTC
    (git_memory / "2026-03-22/meeting-notes.md").write_text("# Edited, not committed\n")
    run(git_memory)
    files, _ = index_rows(git_memory)
    assert files["2026-03-22/meeting-notes.md"].git_date is None, "an uncommitted edit is dated by mtime"


def test_tags_survive_deleting_the_index(git_memory):
    applying.apply(git_memory, planning.default_plan(git_memory))
    run(git_memory)
    files_before, chunks_before = index_rows(git_memory)
    tags_before = {p: (r.trust, r.confidence, r.source, r.invalid) for p, r in files_before.items()}
    assert tags_before["2026-03-22/session-abc.jsonl"] == ("self", "medium", "claude-code", {})
    shutil.rmtree(git_memory / ".cache")
    run(git_memory)
    files_after, chunks_after = index_rows(git_memory)
    assert {p: (r.trust, r.confidence, r.source, r.invalid) for p, r in files_after.items()} == tags_before
    assert chunks_after == chunks_before


def test_tag_file_edit_reaches_the_index_without_reembedding(memory):
    run(memory)
    tags = memory / "tachikoma-tags.yaml"
    tags.write_text(tags.read_text() + "2026-05-10/design-chat.jsonl:\n  trust: external\n")
    embedder = CountingEmbedder()
    summary = runner.run(memory, embedder=embedder)
    assert summary.retagged == 1 and embedder.embedded == []
    assert index_rows(memory)[0]["2026-05-10/design-chat.jsonl"].trust == "external"


def test_binary_and_oversized_files_are_skipped_not_fatal(memory):
    (memory / "blob.md").write_bytes(b"\x00\x01\x02" * 100)
    (memory / "huge.md").write_text("x " * 3_000_000)
    summary = run(memory)
    assert summary.skipped == 2
    assert any("blob.md" in w for w in summary.warnings) and any("huge.md" in w for w in summary.warnings)
    assert summary.files == 13


def test_pending_changes_counts_files_changed_since_last_run(memory):
    run(memory)
    (memory / "new.md").write_text("# New\n")
    (memory / "martin.md").write_text("# Changed\n")
    (memory / "rumours.md").unlink()
    with Store(mem.index_path(memory)) as store:
        assert freshness.pending_changes(memory, store) == 3


def test_vectors_are_unit_float32(memory):
    run(memory)
    with Store(mem.index_path(memory)) as store:
        _, _, matrix = store.load_matrix(512)
    assert matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_symlink_loops_odd_names_and_links_into_git_do_not_stop_a_run(memory):
    (memory / "l1.md").symlink_to("l2.md")
    (memory / "l2.md").symlink_to("l1.md")
    (memory / ".git").mkdir()
    (memory / ".git" / "config").write_text('[remote "origin"]\n\turl = https://u:TOKEN123@example.com/x.git\n')
    (memory / "cfg.md").symlink_to(".git/config")
    (memory / "a\\b.jsonl").write_text('{"role": "user", "content": "backslash words"}\n')
    if sys.platform != "darwin":
        with open(os.path.join(os.fsencode(memory), b"caf\xe9.md"), "w") as handle:
            handle.write("# caf\n")
    summary = run(memory)
    assert summary.added == 12, "the 11 example files and a\\b.jsonl"
    files, chunks = index_rows(memory)
    assert "a\\b.jsonl" in files and not any("TOKEN123" in c[2] for c in chunks)
    assert any(w.startswith("l1.md: symlink loop") for w in summary.warnings)
    assert any(w.startswith("cfg.md: symlink points into a hidden folder") for w in summary.warnings)
    if sys.platform != "darwin":
        assert any(w.startswith("caf\\xe9.md: file name is not valid UTF-8") for w in summary.warnings)


class BrokenEmbedder(HashingEmbedder):
    """An embedder whose server is gone: every call fails."""

    def __init__(self):
        super().__init__(64)

    def embed_documents(self, texts, progress=None):
        raise EmbedderError("cannot reach the embedding server")


def test_failed_reembed_leaves_the_old_index_untouched(memory):
    run(memory)
    before = index_rows(memory)
    with pytest.raises(EmbedderError, match="the index was not changed"):
        runner.run(memory, reembed=True, embedder=BrokenEmbedder())
    assert index_rows(memory) == before
    with Store(mem.index_path(memory)) as store:
        assert store.embedder == ("hash:512", 512)


def test_reembed_failing_halfway_rolls_back_to_the_old_index(memory):
    for i in range(20):
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(500)))
    run(memory)
    before = index_rows(memory)
    with Store(mem.index_path(memory)) as store:
        generation = store.generation
    embedder = CountingEmbedder(fail_after=pipeline.EMBED_SLICE + 1)  # the probe, then one batch
    embedder.dim = 512
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, reembed=True, embedder=CountingEmbedderNamed(embedder, "hash:999"))
    assert index_rows(memory) == before, "nothing of the half-done re-embedding is visible"
    with Store(mem.index_path(memory)) as store:
        assert store.embedder == ("hash:512", 512) and store.generation == generation
    assert status.freshness(memory)["state"] == "complete"


class CountingEmbedderNamed:
    """Wraps an embedder under another name (a different model with the same dimension)."""

    def __init__(self, inner, name):
        self.inner, self.name, self.dim, self.max_words = inner, name, inner.dim, inner.max_words

    def embed_documents(self, texts, progress=None):
        return self.inner.embed_documents(texts, progress)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def test_interrupted_run_is_recorded_as_incomplete_and_the_next_run_completes_it(memory):
    assert status.freshness(memory)["state"] == "none"
    for i in range(40):
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(500)))
    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=CountingEmbedder(fail_after=pipeline.EMBED_SLICE))
    fresh = status.freshness(memory)
    assert fresh["state"] == "incomplete" and fresh["last_indexed_at"] is not None
    # Every file was read and stored before embedding began: none is due again, only vectors are.
    assert fresh["last_complete_at"] is None and fresh["files"] > 0 and fresh["changed_since"] == 0
    assert "run `tachikoma index` to finish" in fresh["note"]
    assert fresh["note"].startswith(f"{pipeline.EMBED_SLICE} of {fresh['chunks']:,} chunks have full vectors")
    run(memory)
    fresh = status.freshness(memory)
    assert fresh["state"] == "complete" and fresh["note"] is None and fresh["changed_since"] == 0
    assert fresh["last_complete_at"] == fresh["last_indexed_at"]


def test_index_folder_deleted_during_a_run_stops_it_with_an_error(memory):
    for i in range(20):
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(500)))

    class Deleting(CountingEmbedder):
        def embed_documents(self, texts, progress=None):
            if len(self.embedded) >= pipeline.EMBED_SLICE:
                shutil.rmtree(memory / ".cache", ignore_errors=True)
            return super().embed_documents(texts, progress)

    with pytest.raises(TachikomaError, match="was deleted or replaced while tachikoma was using it"):
        runner.run(memory, embedder=Deleting())
    summary = run(memory)  # starts again from nothing
    assert summary.added == 31 and status.freshness(memory)["state"] == "complete"


def damage_pages(path, seed=7):
    """Overwrite every page but the first (the schema) with random bytes."""
    rng = np.random.default_rng(seed)
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.seek(4096)
        handle.write(rng.bytes(size - 4096))


def test_damaged_index_is_a_one_line_error_and_freshness_says_so(memory):
    run(memory)
    damage_pages(mem.index_path(memory))
    with pytest.raises(IndexDamaged, match=r"is damaged \(.*\): delete .*\.cache and run `tachikoma index`"):
        with Store(mem.index_path(memory)) as store:
            store.files()
    with pytest.raises(IndexDamaged):
        run(memory)
    fresh = status.freshness(memory)
    assert fresh["state"] == "damaged" and "delete" in fresh["error"] and fresh["last_indexed_at"] is None
    shutil.rmtree(memory / ".cache")
    assert run(memory).added == 11


@pytest.mark.parametrize("damage", [
    "UPDATE meta SET value = 'abc' WHERE key = 'schema_version'",
    "DROP TABLE chunks_fts",
    "UPDATE meta SET value = 'soon' WHERE key = 'generation'",
    "UPDATE meta SET value = 'x' WHERE key = 'dim'",
    "UPDATE files SET warnings = '{not json'",
])
def test_unreadable_metadata_or_missing_tables_are_damage(memory, damage):
    run(memory)
    db = sqlite3.connect(mem.index_path(memory))
    db.execute(damage)
    db.commit()
    db.close()
    with pytest.raises(IndexDamaged, match="is damaged"):
        with Store(mem.index_path(memory)) as store:
            store.files(), store.generation, store.embedder
    assert status.freshness(memory)["state"] == "damaged"


def test_a_new_chunking_re_chunks_every_file_and_keeps_unchanged_vectors(memory, monkeypatch):
    note = memory / "long.md"
    note.write_text("# Long note\n\n" + "\n\n".join(" ".join(f"p{i}w{j}" for j in range(30)) for i in range(6)))
    run(memory)
    files_before, chunks_before = index_rows(memory)
    assert status.freshness(memory)["note"] is None

    # The same files, chunked with a 40-word window instead of 200 (what an upgrade to smaller chunks
    # looks like; freshness sees it too): every file is chunked again.
    monkeypatch.setattr("tachikoma.embedders.hashing.HashingEmbedder.max_words", 40)
    assert "chunked by an older tachikoma" in status.freshness(memory)["note"]
    embedder = CountingEmbedder()
    summary = runner.run(memory, embedder=embedder)
    assert summary.rechunked == len(files_before) and summary.changed == summary.added == 0
    assert f"{len(files_before)} re-chunked" in summary.line()
    files_after, chunks_after = index_rows(memory)
    assert set(files_after) == set(files_before)
    long_before = [c for c in chunks_before if c[0] == "long.md"]
    long_after = [c for c in chunks_after if c[0] == "long.md"]
    assert len(long_before) == 1 and len(long_after) > 1
    assert all(len(text.split()) <= 40 + 5 for _, _, text, _ in long_after)  # + the heading context line
    # Chunks whose text did not change (short notes) kept their vectors: only new texts were embedded.
    unchanged = {c[3] for c in chunks_before} & {c[3] for c in chunks_after}
    assert unchanged and len(embedder.embedded) == len({c[3] for c in chunks_after} - unchanged)
    assert status.freshness(memory)["note"] is None

    # Recorded: the next run is an ordinary unchanged run.
    again = runner.run(memory, embedder=CountingEmbedder())
    assert again.rechunked == 0 and again.unchanged == len(files_before) and again.chunks_embedded == 0


def test_an_interrupted_re_chunking_is_resumed_by_the_next_run(memory, monkeypatch):
    for i in range(30):
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(150)))
    run(memory)
    monkeypatch.setattr("tachikoma.embedders.hashing.HashingEmbedder.max_words", 40)

    with pytest.raises(KeyboardInterrupt):
        runner.run(memory, embedder=CountingEmbedder(fail_after=pipeline.EMBED_SLICE))
    summary = runner.run(memory, embedder=CountingEmbedder())
    # The new chunking was recorded once every file was chunked again: what was left was only embedding.
    assert summary.rechunked == 0 and summary.chunks_embedded > 0
    _, chunks = index_rows(memory)
    bulk = [c for c in chunks if c[0].startswith("bulk-")]
    assert len(bulk) >= 30 * 4, "150-word notes now make at least 4 chunks each"
    assert status.freshness(memory)["note"] is None


def test_a_utf16_note_is_named_as_utf16_text_not_binary(memory, capsys):
    from tachikoma import cli, stats

    note = "# Rail\n\nThe 5V rail browns out under load.\n"
    (memory / "u16.md").write_bytes(note.encode("utf-16"))  # a byte-order mark, then NULs
    (memory / "u16be.md").write_bytes(b"\xfe\xff" + note.encode("utf-16-be"))
    summary = run(memory)
    assert "u16.md: UTF-16 text: save it as UTF-8, skipped" in summary.warnings
    assert "u16be.md: UTF-16 text: save it as UTF-8, skipped" in summary.warnings
    problems = [p for p in stats.report(memory)["problems"] if p["path"].startswith("u16")]
    assert problems == [{"path": path, "reason": "UTF-16 text: save it as UTF-8, skipped", "kind": "not-utf8"}
                        for path in ("u16.md", "u16be.md")]
    before = (memory / "u16.md").read_bytes()
    assert cli.main(["--memory", str(memory), "tag", "--path", "u16.md", "--trust", "owner", "--no-commit"]) == 1
    assert "skipped u16.md: UTF-16 text: save it as UTF-8; not tagged" in capsys.readouterr().err
    assert (memory / "u16.md").read_bytes() == before


def test_a_malformed_tag_file_does_not_stop_indexing_and_transcripts_keep_their_tags(memory, capsys):
    from tachikoma import cli

    (memory / "2026-04-02" / "kept.jsonl").write_text('{"role": "user", "content": "kept evergreen"}\n')
    tag_file = memory / "tachikoma-tags.yaml"
    tag_file.write_text(tag_file.read_text() + "2026-04-02/kept.jsonl:\n  trust: owner\n  evergreen: true\n")
    run(memory)
    tag_file.write_text(tag_file.read_text() + "oops: [unclosed\n")  # a typo while editing it
    (memory / "fresh.md").write_text("# Fresh\n\nThe zanzibar quokka note.\n")
    (memory / "new.jsonl").write_text('{"role": "user", "content": "a new session"}\n')
    with open(memory / "2026-04-02" / "kept.jsonl", "a") as session:  # read again, its tags kept
        session.write('{"role": "assistant", "content": "and one more line"}\n')
    summary = run(memory)
    warning = next(w for w in summary.warnings if "malformed YAML" in w)
    assert warning.startswith(f"{tag_file}: malformed YAML at line ")
    assert warning.endswith("fix the file; until then transcripts keep the tags the index has for them "
                            "(a new one is untagged)")
    files, chunks = index_rows(memory)
    assert {"fresh.md", "new.jsonl"} <= set(files), "the run went on"
    session = files["2026-04-02/session-chat.jsonl"]
    assert (session.trust, session.confidence, session.source) == ("self", "high", "tachikoma")
    assert files["2026-04-02/kept.jsonl"].trust == "owner" and files["2026-04-02/kept.jsonl"].evergreen
    assert files["new.jsonl"].trust is None
    assert cli.main(["--memory", str(memory), "index", "--embedder", "hash"]) == 0
    assert "until then transcripts keep the tags" in capsys.readouterr().err


# -- progress and reading ahead ------------------------------------------------


def test_detail_progress_counts_bytes_files_and_chunks(memory):
    big = memory / "notes" / "huge.md"
    big.parent.mkdir(exist_ok=True)
    big.write_text("# huge\n\n" + "word " * 3000, encoding="utf-8")
    (memory / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 10000\n", encoding="utf-8")
    states: list[reporting.RunProgress] = []
    seen = []

    def detail(state):
        states.append(reporting.RunProgress(**vars(state)))

    summary = run(memory, detail=detail, progress=lambda done, total, path: seen.append((done, total)))
    files = mem.walk(memory)
    last = states[-1]
    assert last.files_done == last.files_total == len(files) == summary.added + summary.skipped
    # The file over the limit is skipped after one stat: it is no part of the work to do.
    assert last.bytes_total == sum(f.size for f in files) - big.stat().st_size
    assert last.bytes_done == last.bytes_total
    assert last.chunks_embedded == summary.chunks_embedded > 0
    assert [s.bytes_done for s in states] == sorted(s.bytes_done for s in states)
    assert [s.chunks_embedded for s in states] == sorted(s.chunks_embedded for s in states)
    assert seen[-1] == (len(files), len(files))  # the simple callback still says files


def test_detail_progress_moves_while_one_large_file_is_embedded(memory, monkeypatch):
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 4)
    for old in memory.rglob("*.md"):
        old.unlink()
    for old in memory.rglob("*.jsonl"):
        old.unlink()
    (memory / "long.md").write_text("\n\n".join(f"Paragraph {i}: " + "text " * 70 for i in range(20)),
                                    encoding="utf-8")
    sizes = []

    class Sizes(CountingEmbedder):
        def embed_documents(self, texts, progress=None):
            sizes.append(len(texts))
            return super().embed_documents(texts, progress)

    states = []
    run(memory, embedder=Sizes(), detail=lambda s: states.append((s.phase, s.chunks_embedded, s.chunks_total)))
    during = [s for s in states if s[0] == "full vectors" and 0 < s[1] < s[2]]
    assert len(during) >= 2  # chunks advance between embedder calls, before the file is fully embedded
    assert len(sizes) >= 3 and max(sizes) <= 4  # the file's chunks went to the embedder in slices


def test_reading_ahead_keeps_order_raises_at_the_failing_file_and_stops_when_left():
    import threading

    calls = []

    def prepare(f, status):
        calls.append(f)
        if f == 5:
            raise OSError("disk on fire")
        return (f, status)

    todo = [(i, "added") for i in range(10)]
    got = []
    with pytest.raises(OSError, match="disk on fire"):
        for item in pipeline._read_ahead(todo, prepare, depth=2):
            got.append(item)
    assert got == [(i, "added") for i in range(5)]
    assert max(calls) == 5  # nothing read past the failure

    calls.clear()
    gen = pipeline._read_ahead([(i, "added") for i in range(1000)], lambda f, s: f, depth=3)
    assert next(gen) == 0
    gen.close()  # the consumer stops early: the reader thread ends instead of reading everything
    assert not [t for t in threading.enumerate() if t.name == "tachikoma-reader"]


def test_claude_codes_memory_is_indexed_and_hidden_memory_files_count_as_skipped(memory):
    """Regression: `.claude/CLAUDE.md` and `.claude/rules/` were left out silently (hidden); now they are indexed
    and searched, and a memory file in any other hidden place is warned about and counted in "N skipped"."""
    from tachikoma.search.searcher import Searcher

    rules = memory / ".claude" / "rules"
    rules.mkdir(parents=True)
    (memory / ".claude" / "CLAUDE.md").write_text("# Project memory\n\nRun the linter with `make lint-strict`.\n")
    (rules / "migrations.md").write_text("# Migrations\n\nEvery migration needs a rollback script in db/down.\n")
    (memory / ".claude" / "commands").mkdir()
    (memory / ".claude" / "commands" / "review.md").write_text("# Review\n\nReview the diff.\n")
    (memory / ".claude" / "settings.json").write_text('{"permissions": {}}\n')
    (memory / ".trash").mkdir()
    (memory / ".trash" / "old.md").write_text("# Old\n\nA note thrown away.\n")
    summary = run(memory)
    hidden = [w for w in summary.warnings if "hidden, not read" in w]
    assert sorted(w.split(":")[0] for w in hidden) == [".claude/commands", ".trash"]
    assert summary.skipped == 2 and ", 2 skipped, " in summary.line()
    files, _ = index_rows(memory)
    assert {".claude/CLAUDE.md", ".claude/rules/migrations.md"} <= set(files)
    assert not any(path.startswith((".trash", ".claude/commands", ".git", ".cache")) for path in files)
    searcher = Searcher(memory)
    try:
        found = searcher.search("rollback script for every migration", 3, min_score=0)["results"]
    finally:
        searcher.close()
    assert found[0]["path"] == ".claude/rules/migrations.md"
