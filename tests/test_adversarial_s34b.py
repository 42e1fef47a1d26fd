"""Adversarial tests of session 34b: a question about what is coming ranked by the days its passages name
(`tachikoma.mentions`, `Searcher.search`)."""

import time
from datetime import date

from tachikoma import mentions
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

WRITTEN = date(2026, 11, 20)
TODAY = date(2026, 12, 4)


def put(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_long_passage_full_of_days_is_read_in_linear_time(tmp_path):
    # A data dump on one line (no spaces: the chunker keeps it one chunk of 440,000 characters): every
    # question about what is coming that ranked it took 24 s, each day checked against all read before.
    root = tmp_path / "memory"
    put(root, "dates.md", "# Upcoming deliveries\n\n" + ",".join(f"2026-12-{1 + i % 28:02d}" for i in range(40000)) + "\n")
    put(root, "other.md", "# Deliveries\n\nThe next delivery comes soon.\n")
    runner.run(root, embedder_name="hash")
    searcher = Searcher(root)
    try:
        started = time.perf_counter()
        answer = searcher.search("What upcoming deliveries?", 5, min_score=0, as_of="2026-12-04")
        took = time.perf_counter() - started
    finally:
        searcher.close()
    assert answer["results"][0]["path"] == "dates.md"
    assert "still to come" in answer["results"][0]["factors"]["time_reason"]
    assert took < 5


def test_a_megabyte_of_prose_with_days_is_read_quickly():
    text = ("We met on 18 Dec 14:20 and talked about the 3.12. release. " * 17000)[:1_000_000]
    started = time.perf_counter()
    named = mentions.days(text, WRITTEN, TODAY)
    assert time.perf_counter() - started < 5
    assert date(2026, 12, 18) in named
