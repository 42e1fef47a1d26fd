"""Benchmark: a cold command-line search (`tachikoma search`, one process per query), CPU and wall,
side by side for several checkouts of tachikoma and `python -c "import numpy"`, interleaved run by run.

    python bench/bench_cold_cli.py --memory /tmp/mem100k --tree main=/tmp/main-checkout --tree this=.

The memory must be indexed already (bench/bench_index.py --memory builds one: 10k files, 100k chunks).
Each tree is imported through PYTHONPATH (so one virtualenv serves all). CPU is the child's user + system
time (all its threads: the freshness walk runs in one of them). Unless --no-bytecode, the trees are
compiled first (`compileall`): an installed tachikoma has its .pyc files, while a checkout run with
PYTHONDONTWRITEBYTECODE=1 compiles every module on every start (measured: within the noise at 100k).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERIES = ["motor controller meeting agenda", "what did we decide about the firmware review",
           "coffee preference of the owner", "thermal board revision deadline", "school concert schedule"]


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """(CPU ms of the child and its threads, wall ms) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1000, wall * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memory", type=Path, required=True, help="an indexed memory folder")
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH",
                        help="a checkout to time (repeatable; default: this one)")
    parser.add_argument("--runs", type=int, default=10, help="searches per tree")
    parser.add_argument("--no-bytecode", action="store_true", help="do not compile the trees first")
    args = parser.parse_args()
    trees = [t.split("=", 1) for t in args.tree] or [["this", str(Path(__file__).resolve().parent.parent)]]
    if not args.no_bytecode:
        for _, path in trees:
            compileall.compile_dir(str(Path(path) / "tachikoma"), quiet=1)
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TACHIKOMA_STORE")}
    commands = {"import numpy": ([sys.executable, "-c", "import numpy"], base_env)}
    for label, path in trees:
        commands[label] = ([sys.executable, "-m", "tachikoma", "search", "QUERY", "--memory", str(args.memory),
                            "--json"], dict(base_env, PYTHONPATH=str(Path(path).resolve())))
    for label, (command, env) in commands.items():  # one warm-up each (page cache, vector cache files)
        timed([c if c != "QUERY" else QUERIES[0] for c in command], env)
    figures: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    load_before = os.getloadavg()
    for run in range(args.runs):
        query = QUERIES[run % len(QUERIES)]
        for label, (command, env) in commands.items():
            figures[label].append(timed([c if c != "QUERY" else query for c in command], env))
    load_after = os.getloadavg()
    numpy_cpu = statistics.median(c for c, _ in figures["import numpy"])
    print(f"# {args.runs} runs each, interleaved; load average {load_before[0]:.1f} before, {load_after[0]:.1f} "
          f"after, on {os.cpu_count()} cores; bytecode {'as found' if args.no_bytecode else 'compiled'}")
    print("what | cpu_p50_ms | cpu_min_ms | wall_p50_ms | cpu_x_import_numpy")
    for label, rows in figures.items():
        cpu = [c for c, _ in rows]
        wall = [w for _, w in rows]
        print(f"{label} | {statistics.median(cpu):.0f} | {min(cpu):.0f} | {statistics.median(wall):.0f} | "
              f"{statistics.median(cpu) / numpy_cpu:.2f}")


if __name__ == "__main__":
    main()
