"""Benchmark: how soon a first index of a session corpus answers, by keyword, by quick and by full vectors.

    nice -n 10 .venv/bin/python bench/bench_tiers.py --mb 200 --full-seconds 600

Builds the synthetic session corpus of bench/bench_sessions.py, then runs one
first `tachikoma index` (MiniLM) over it and prints, side by side:

* when a keyword search from another process first answered (a poller
  process searches every second while the run goes on);
* when every file was stored, so keyword search covers everything;
* when every chunk had its quick vector (search by meaning, quick tier);
* when every chunk had its full vector, or, when the full phase is cut
  after --full-seconds, its rate so far and the time it would take at that
  rate (marked "projected");
* the reference: the run as main did it, nothing searchable by meaning
  before the full vectors, and keyword search over every file only at the
  end (= the full-vectors time).

The machine's load average is printed before and after: on a shared machine
the absolute times move with it, the order of the phases does not.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sessions import build_corpus, load_average  # noqa: E402 (imported after sys.path points at this checkout)

from tachikoma.indexer import pipeline, reporting, runner  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.embedders import create  # noqa: E402 (imported after sys.path points at this checkout)

POLLER = r"""
import sys, time
from pathlib import Path
from tachikoma.errors import TachikomaError
from tachikoma.search.searcher import Searcher
root, query = Path(sys.argv[1]), sys.argv[2]
while True:
    try:
        searcher = Searcher(root)
        try:
            answer = searcher.search(query, 5, min_score=0)
        finally:
            searcher.close()
        if answer["results"]:
            print(time.time(), answer["results"][0]["factors"].get("vectors", "full"), flush=True)
            break
    except TachikomaError:
        pass
    time.sleep(1.0)
"""


class Budget(Exception):
    """The full phase ran out of its time budget."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--full-seconds", type=float, default=None,
                        help="stop the full-vector phase after this many seconds and project its end")
    parser.add_argument("--query", default="invoice rounding", help="the poller's keyword query")
    parser.add_argument("--keep", metavar="DIR")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tachikoma-tiers-"))
    work.mkdir(parents=True, exist_ok=True)
    poller = None
    try:
        written = build_corpus(work, args.mb)
        (work / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 1000000000\n")
        print(f"corpus: {sum(written.values()) / 1e6:.1f} MB; load average before: {load_average()}")
        embedder = create(args.embedder)
        embedder.load()  # model loading is not indexing
        quick = pipeline.quick_tier(embedder, pipeline.QUICK_TIER_MIN_CHUNKS)
        if quick is not None:
            quick.load()  # distilled once per machine, cached: not part of a run either
        shutil.rmtree(work / ".cache", ignore_errors=True)
        poller = subprocess.Popen([sys.executable, "-c", POLLER, str(work), args.query], stdout=subprocess.PIPE,
                                  text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        marks: dict[str, float] = {}
        last: dict = {}
        started = time.time()

        def detail(state: reporting.RunProgress) -> None:
            marks.setdefault(state.phase, time.time())
            last.update(vars(state))
            if (args.full_seconds is not None and state.phase == "full vectors"
                    and time.time() - marks["full vectors"] > args.full_seconds):
                raise Budget

        cut = False
        try:
            summary = runner.run(work, embedder=embedder, detail=detail)
            chunks = summary.chunks
        except Budget:
            cut = True
            chunks = None
        ended = time.time()
        try:
            answered, tier = poller.communicate(timeout=60)[0].split()
        except (subprocess.TimeoutExpired, ValueError):
            answered, tier = "nan", "-"
        reading_end = marks.get("quick vectors", marks.get("full vectors", ended))
        quick_end = marks.get("full vectors", ended) if "quick vectors" in marks else None
        full_start = marks.get("full vectors", ended)
        done, total = last.get("chunks_embedded", 0), last.get("chunks_total", 0)
        rate = done / max(ended - full_start, 1e-9)
        full_end = ended if not cut else full_start + (total / rate if rate else float("inf"))
        print(f"load average after: {load_average()}; {total:,} chunk texts to embed, "
              f"{last.get('quick_total', 0):,} given quick vectors")
        print(f"\n{'':<44} {'this branch':>14} {'main (before)':>14}")

        def row(label: str, value: float | None, before: float | None, note: str = "") -> None:
            show = lambda v: "-" if v is None else f"{v - started:,.0f} s"  # noqa: E731 (a one-line closure handed on)
            print(f"{label:<44} {show(value):>14} {show(before):>14} {note}")

        row("first keyword search answered", float(answered) if answered != "nan" else None, None,
            f"(its best result: {tier} vectors)")
        row("every file searchable by keyword", reading_end, full_end)
        row("every chunk searchable by meaning (quick)", quick_end, None)
        row("every chunk with full vectors", full_end, full_end, "(projected from the rate so far)" if cut else "")
        print(f"\nfull-vector rate: {rate:.1f} chunks/s over {ended - full_start:.0f} s ({done:,} chunks)"
              f"{'; cut by --full-seconds' if cut else ''}; main indexes the same chunks at the same rate, "
              "so its first keyword answer over everything and first answer by meaning come only then")
        if chunks is not None:
            print(f"index holds {chunks:,} chunks")
    finally:
        if poller is not None and poller.poll() is None:
            poller.kill()
            poller.wait()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
