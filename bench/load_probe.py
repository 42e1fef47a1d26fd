"""Load probe: searchers hammer the dashboard while the index is rebuilt again and again.

    python bench/load_probe.py --clients 8 --rounds 40 --files 300

Builds a synthetic memory of `--files` notes and transcripts, indexes it
(hash embedder: the probe times tachikoma, not a model), starts
`tachikoma serve --no-watch` on a free port, and runs `--clients` threads
that call ``/api/search`` back to back with varied queries. Meanwhile the
main thread runs `--rounds` index rounds, each a separate `tachikoma index`
process after editing, adding and deleting a few files (so every round
commits real changes and bumps the index generation). Prints the number of
requests, how many failed (not 200, bad JSON, or a connection error) and the
latency percentiles. Exit status 1 when any request failed. (The server's
request log goes to /dev/null: a pipe nobody reads fills after ~600 requests
and then blocks the server, which once showed up here as 60 s timeouts.)
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

WORDS = ("motor controller meeting agenda heat sink firmware thermal board revision sample order school "
         "concert coffee preference memory index ranking trust schedule review decision deadline project").split()


def note(rng: random.Random, i: int) -> str:
    body = "\n\n".join(f"## Part {p}\n\n" + " ".join(rng.choice(WORDS) for _ in range(120)) for p in range(3))
    return f"---\ntitle: note {i}\n---\n# Note {i}\n\n{body}\n"


def transcript(rng: random.Random, i: int) -> str:
    lines = [json.dumps({"role": rng.choice(("user", "assistant")),
                         "content": " ".join(rng.choice(WORDS) for _ in range(40))}) for _ in range(12)]
    return "\n".join(lines) + "\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tachikoma(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tachikoma", *args], capture_output=True, text=True, **kw)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="tachikoma-load-"))
    root = work / "memory"
    (root / "sessions").mkdir(parents=True)
    for i in range(args.files):
        if i % 4 == 0:
            (root / "sessions" / f"s{i}.jsonl").write_text(transcript(rng, i))
        else:
            (root / f"n{i}.md").write_text(note(rng, i))
    done = tachikoma("--memory", str(root), "index", "--embedder", "hash", "-q")
    if done.returncode:
        print(done.stderr, file=sys.stderr)
        return 1
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tachikoma", "--memory", str(root), "serve", "--no-watch",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "/api/stats", timeout=5).read()
            break
        except OSError:
            time.sleep(0.1)
    stop = threading.Event()
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    when: list[float] = []
    begun = time.perf_counter()

    def client(seed: int) -> None:
        local = random.Random(seed)
        while not stop.is_set():
            query = " ".join(local.sample(WORDS, 3))
            url = f"{base}/api/search?" + urllib.parse.urlencode({"q": query, "limit": 10})
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(url, timeout=60) as answer:
                    payload = json.loads(answer.read())
                    ok = answer.status == 200 and "results" in payload
                    problem = None if ok else f"status {answer.status}"
            except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
                problem = f"{type(exc).__name__}: {exc}"
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                if problem:
                    errors.append(problem)
                    when.append(started - begun)

    threads = [threading.Thread(target=client, args=(args.seed + c,)) for c in range(args.clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    index_failures = 0
    index_seconds = []
    try:
        for r in range(args.rounds):
            for i in rng.sample(range(args.files), 5):
                path = root / (f"sessions/s{i}.jsonl" if i % 4 == 0 else f"n{i}.md")
                if rng.random() < 0.2 and path.exists():
                    path.unlink()
                else:
                    path.write_text(transcript(rng, i) if i % 4 == 0 else note(rng, i + 1000 * r))
            t = time.perf_counter()
            done = tachikoma("--memory", str(root), "index", "-q")
            index_seconds.append(time.perf_counter() - t)
            if done.returncode:
                index_failures += 1
                print(f"index round {r} failed: {done.stderr.strip()}", file=sys.stderr)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        server.terminate()
        server.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    wall = time.perf_counter() - started
    ms = sorted(x * 1000 for x in latencies)
    pct = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]  # noqa: E731 (a one-line closure handed on)
    print(f"{args.clients} clients, {args.rounds} index rounds ({statistics.median(index_seconds):.2f} s median "
          f"each, {index_failures} failed), {args.files} files, {wall:.1f} s")
    print(f"{len(ms)} requests, {len(errors)} errors; latency p50 {pct(0.5):.1f} ms, p95 {pct(0.95):.1f} ms, "
          f"p99 {pct(0.99):.1f} ms, max {ms[-1]:.1f} ms")
    if when:
        print(f"  failed requests were sent at {', '.join(f'{t:.1f}' for t in sorted(when))} s")
    for problem in sorted(set(errors))[:10]:
        print(f"  error: {problem} (x{errors.count(problem)})")
    return 1 if errors or index_failures else 0


if __name__ == "__main__":
    sys.exit(main())
