"""Benchmark: what reading time in the query costs on the search path, and the parser it uses.

    python bench/bench_timeq.py --files 2000 --queries 100

In one run, over one synthetic memory (bench_index's, random vectors so no
model is timed), warm searches side by side:

* ``off``: ``[search] time_reading = false`` (the search path before time reading);
* ``on, no time``: the same queries with time reading on (the words are read, nothing found);
* ``off, time words`` / ``on, time words``: the queries with a time phrase appended ("last week",
  "in March", ...), read or not: the words cost keyword lookups either way; reading them adds the
  time factor of every chunk. Compare these two rows with each other.
* ``off, ahead words`` / ``on, ahead words``: the queries with a window still to come appended ("next week",
  "in the next six months", "nächste Woche", ...): read, they make a question about what is coming, whose 100
  best passages (`mentions.WINDOW_CANDIDATES`) are read for the days they name and ranked against the window
  (`mentions`). The synthetic passages are dense with digits, the worst case for reading days.

Then the parsers alone on a labelled list of phrases (`timeq.read` and, when it is installed,
dateparser's ``search_dates``): time per query, dates found in phrases that are not dates, and
time phrases missed. Figures are ratios to ``off`` as well as milliseconds: the machine may be loaded.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import RandomEmbedder, build_memory, words  # noqa: E402 (imported after sys.path points at this checkout)

from tachikoma.when import timeq  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.indexer import runner
from tachikoma.config import Config  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.search.searcher import Searcher  # noqa: E402 (imported after sys.path points at this checkout)

AS_OF = datetime(2026, 3, 25, 12, 0, tzinfo=timezone.utc)
TIME_PHRASES = ["last week", "in March", "on 2026-02-10", "two weeks ago", "yesterday", "last Saturday",
                "in October 2025", "recently", "last month", "since January"]
AHEAD_PHRASES = ["next week", "this coming week", "in the next six months", "the week after next", "next month",
                 "over the coming weeks", "nächste Woche", "la semaine prochaine", "来週", "next Tuesday",
                 "tomorrow", "in two weeks", "übermorgen", "明日"]
#: Phrases that hold a time, and phrases that hold none (numbers, versions, a modal "May").
WITH_TIME = ["what did we decide in March", "what happened on 2026-03-22", "what did we change last week",
             "which book did I finish a week ago", "jewelry I got last Saturday", "what did I do two weeks ago",
             "shoes I cleaned last month", "sports I watched in January", "what did I do yesterday",
             "what was I building in October 2025", "what did I do recently", "the Wednesday two months ago"]
WITHOUT_TIME = ["upgrade to version 2.1.5", "the server listens on port 2026", "fix bug 1041 in the parser",
                "May I ask about the deploy", "set timeout to 30 seconds", "we march on", "I had 3 cats and 12 dogs",
                "what is the wifi password", "how many engineers do I lead", "what did we decide about the API",
                "tag v2026.03.01", "the board revision 3 thermal notes"]


def warm_ms(searcher: Searcher, queries: list[str], config: Config) -> list[float]:
    return [searcher.search(q, 10, config=config, now=AS_OF, min_score=0)["timing_ms"]["rank"] for q in queries]


def search_rows(files: int, chunks_per_file: int, dim: int, n: int) -> list[tuple[str, float]]:
    root = Path(tempfile.mkdtemp(prefix="tachikoma-bench-timeq-"))
    try:
        build_memory(root, files, chunks_per_file)
        embedder = RandomEmbedder(dim)
        runner.run(root, Config(), embedder=embedder)
        rng = random.Random(2)
        plain = [words(rng, rng.randrange(2, 7)) for _ in range(n)]
        timed = [f"{q} {TIME_PHRASES[i % len(TIME_PHRASES)]}" for i, q in enumerate(plain)]
        coming = [f"{q} {AHEAD_PHRASES[i % len(AHEAD_PHRASES)]}" for i, q in enumerate(plain)]
        on = Config()
        off = replace(on, search=replace(on.search, time_reading=False))
        searcher = Searcher(root, on, embedder=embedder)
        searcher.search(plain[0], 10, now=AS_OF)  # warm: the snapshot is loaded
        rows = {"off": [], "on, no time": [], "off, time words": [], "on, time words": [], "off, ahead words": [],
                "on, ahead words": []}
        for _ in range(3):  # interleaved rounds, so load changes hit every row alike
            rows["off"] += warm_ms(searcher, plain, off)
            rows["on, no time"] += warm_ms(searcher, plain, on)
            rows["off, time words"] += warm_ms(searcher, timed, off)
            rows["on, time words"] += warm_ms(searcher, timed, on)
            rows["off, ahead words"] += warm_ms(searcher, coming, off)
            rows["on, ahead words"] += warm_ms(searcher, coming, on)
        searcher.close()
        return [(name, statistics.median(values)) for name, values in rows.items()]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def parser_rows() -> list[dict]:
    def tachikoma_read(text):
        return [w.phrase for w in timeq.read(text, AS_OF)]

    parsers = [("tachikoma.when.timeq", tachikoma_read)]
    try:
        from dateparser.search import search_dates

        settings = {"RELATIVE_BASE": AS_OF.replace(tzinfo=None), "PREFER_DATES_FROM": "past"}
        parsers.append(("dateparser.search_dates", lambda text: [
            found for found, _ in (search_dates(text, languages=["en"], settings=settings) or [])]))
    except ImportError:
        pass
    out = []
    for name, parse in parsers:
        parse("warm up")
        started = time.perf_counter()
        hits = [parse(t) for t in WITH_TIME]
        false = [(t, parse(t)) for t in WITHOUT_TIME]
        seconds = time.perf_counter() - started
        out.append({"parser": name, "ms_per_query": 1000 * seconds / (len(WITH_TIME) + len(WITHOUT_TIME)),
                    "missed": [t for t, h in zip(WITH_TIME, hits) if not h],
                    "false_dates": [f"{t!r} → {found}" for t, found in false if found]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--chunks-per-file", type=int, default=10)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    rows = search_rows(args.files, args.chunks_per_file, args.dim, args.queries)
    base = rows[0][1]
    references = {"time words": ("off, time words", rows[2][1]), "ahead words": ("off, ahead words", rows[4][1])}
    print(f"warm search, rank time (median of {3 * args.queries} each, {args.files} files × "
          f"{args.chunks_per_file} chunks, dim {args.dim}; the machine may be loaded: read the ratios)")
    for name, ms in rows:
        said, reference = next((ref for words_, ref in references.items() if words_ in name), ("off", base))
        print(f"  {name:16} {ms:8.2f} ms   × {ms / reference:.2f} of {said}")
    print("\nparsers on the labelled phrases "
          f"({len(WITH_TIME)} with a time, {len(WITHOUT_TIME)} without):")
    for row in parser_rows():
        print(f"  {row['parser']:24} {row['ms_per_query']:7.2f} ms/query, missed {len(row['missed'])}, "
              f"false dates in {len(row['false_dates'])}")
        for item in row["missed"]:
            print(f"      missed: {item!r}")
        for item in row["false_dates"]:
            print(f"      false:  {item}")


if __name__ == "__main__":
    main()
