"""Benchmark: a cold command-line search (`tachikoma search`, one process per query), CPU and wall,
side by side for several checkouts of tachikoma, `python -c pass` and `python -c "import numpy"`,
interleaved run by run.

    python bench/bench_cold_cli.py --memory /tmp/mem100k --tree main=/tmp/main-checkout --tree this=.
    python bench/bench_cold_cli.py --memory /tmp/mem100k --resident

The memory must be indexed already (bench/bench_index.py --memory builds one: 10k files, 100k chunks).
Each tree is imported through PYTHONPATH (so one virtualenv serves all). CPU is the child's user + system
time (all its threads: the freshness walk runs in one of them). Unless --no-bytecode, the trees are
compiled first (`compileall`): an installed tachikoma has its .pyc files, while a checkout run with
PYTHONDONTWRITEBYTECODE=1 compiles every module on every start (measured: within the noise at 100k).

With --resident, `tachikoma index --watch` of the first tree runs for the whole benchmark (in a private
XDG_RUNTIME_DIR), so that tree's search is answered by it (`tachikoma.resident`); that tree is also
timed with --in-process, the search a command line makes when nothing runs. CPU is then the client's
only: the host's share is in its answer's ``timing_ms`` (the ``host_rank_ms`` column, p50).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERIES = ["motor controller meeting agenda", "what did we decide about the firmware review",
           "coffee preference of the owner", "thermal board revision deadline", "school concert schedule"]


def timed(command: list[str], env: dict) -> tuple[float, float, float | None]:
    """(CPU ms of the child and its threads, wall ms, the host's rank ms if a resident host answered)
    of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    host_rank = None
    if done.stdout.startswith("{"):
        answer = json.loads(done.stdout)
        host_rank = answer["timing_ms"]["rank"] if "served_by" in answer else None
    return cpu * 1000, wall * 1000, host_rank


def start_host(tree: str, memory: Path, env: dict) -> subprocess.Popen:
    """`tachikoma index --watch` of `tree`, once it answers searches."""
    host = subprocess.Popen([sys.executable, "-m", "tachikoma", "--memory", str(memory), "index", "--watch", "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    probe = [sys.executable, "-m", "tachikoma", "--memory", str(memory), "search", "--json", QUERIES[0]]
    for _ in range(120):
        if timed(probe, env)[2] is not None:
            return host
        if host.poll() is not None:
            raise SystemExit(f"index --watch stopped: {host.stderr.read().strip()}")
        time.sleep(0.5)
    host.terminate()
    raise SystemExit("index --watch did not answer searches within a minute")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memory", type=Path, required=True, help="an indexed memory folder")
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH",
                        help="a checkout to time (repeatable; default: this one)")
    parser.add_argument("--runs", type=int, default=10, help="searches per tree")
    parser.add_argument("--no-bytecode", action="store_true", help="do not compile the trees first")
    parser.add_argument("--resident", action="store_true",
                        help="run `tachikoma index --watch` of the first tree meanwhile, and time its searches "
                             "both ways (asking it, and --in-process)")
    args = parser.parse_args()
    trees = [t.split("=", 1) for t in args.tree] or [["this", str(Path(__file__).resolve().parent.parent)]]
    if not args.no_bytecode:
        for _, path in trees:
            compileall.compile_dir(str(Path(path) / "tachikoma"), quiet=1)
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TACHIKOMA_STORE")}
    base_env["XDG_RUNTIME_DIR"] = runtime = tempfile.mkdtemp(prefix="bench-cold-cli-")
    commands = {"python -c pass": ([sys.executable, "-c", "pass"], base_env),
                "import numpy": ([sys.executable, "-c", "import numpy"], base_env)}
    for label, path in trees:
        search = [sys.executable, "-m", "tachikoma", "search", "QUERY", "--memory", str(args.memory), "--json"]
        env = dict(base_env, PYTHONPATH=str(Path(path).resolve()))
        if args.resident and label == trees[0][0]:
            commands[f"{label} --in-process"] = (search + ["--in-process"], env)
            label = f"{label}, asking index --watch"
        commands[label] = (search, env)
    host = start_host(trees[0][1], args.memory, dict(base_env, PYTHONPATH=str(Path(trees[0][1]).resolve()))) \
        if args.resident else None
    try:
        measure(commands, args.runs)
    finally:
        if host is not None:
            host.terminate()
            host.wait()
        shutil.rmtree(runtime, ignore_errors=True)


def measure(commands: dict, runs: int) -> dict:
    for label, (command, env) in commands.items():  # one warm-up each (page cache, vector cache files)
        timed([c if c != "QUERY" else QUERIES[0] for c in command], env)
    figures: dict[str, list[tuple]] = {label: [] for label in commands}
    load_before = os.getloadavg()
    for run in range(runs):
        query = QUERIES[run % len(QUERIES)]
        for label, (command, env) in commands.items():
            figures[label].append(timed([c if c != "QUERY" else query for c in command], env))
    load_after = os.getloadavg()
    numpy_cpu = statistics.median(row[0] for row in figures["import numpy"])
    print(f"# {runs} runs each, interleaved; load average {load_before[0]:.1f} before, {load_after[0]:.1f} "
          f"after, on {os.cpu_count()} cores")
    print("what | cpu_p50_ms | cpu_min_ms | wall_p50_ms | wall_p90_ms | cpu_x_import_numpy | host_rank_p50_ms")
    for label, rows in figures.items():
        cpu, wall = [r[0] for r in rows], sorted(r[1] for r in rows)
        host = [r[2] for r in rows if r[2] is not None]
        host_rank = f"{statistics.median(host):.1f}" if host else "-"
        print(f"{label} | {statistics.median(cpu):.0f} | {min(cpu):.0f} | {statistics.median(wall):.0f} | "
              f"{wall[int(0.9 * (len(wall) - 1))]:.0f} | {statistics.median(cpu) / numpy_cpu:.2f} | {host_rank}")
    return figures


if __name__ == "__main__":
    main()
