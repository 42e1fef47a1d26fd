"""Freshness under load: save-to-searchable latency, idle watcher CPU, concurrent searchers during edits.

    python bench/bench_watch.py [--notes 200] [--edits 20] [--idle 30] [--searchers 8] [--seconds 60]

A generated memory of `--notes` markdown notes (offline MiniLM embedder,
committed nowhere: a plain folder) is served by the real commands:

1. **Save to searchable** (`tachikoma mcp`, driven by the MCP SDK's stdio
   client): a paragraph holding a new word is appended to a note, then the
   MCP `search` tool is asked for that word every 50 ms until a result's
   text holds it. Latency is from the write to that answer; p50 and p95
   over `--edits` edits.
2. **Idle CPU**: the same MCP server's CPU time (user + system, from
   /proc) over `--idle` seconds with nothing changing, as a share of one core.
3. **Concurrent searchers** (`tachikoma serve`, watching): `--searchers`
   threads call /api/search as fast as they can for `--seconds` seconds while
   an editor thread keeps creating, editing, renaming and deleting notes,
   about two changes a second (every name used once). Counted: requests, errors (anything but a 200
   JSON answer), and results naming a file deleted or renamed away before
   the request was sent (must be 0).

Figures are printed, not asserted: this is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

WORDS = ("memory index agent search deploy meeting backup server database release dashboard latency model "
         "weights user decision project schedule budget travel garden recipe guitar lesson invoice contract "
         "printer laptop kitchen window bicycle harbour mountain river coffee library museum concert").split()
TICKS = os.sysconf("SC_CLK_TCK")
EDIT_PAUSE = 0.5  # the editor thread makes about two changes a second


def make_memory(root: Path, notes: int, rng: random.Random) -> None:
    (root / "tachikoma.toml").write_text('[embedder]\nname = "minilm"\n')
    for n in range(notes):
        folder = root / f"topic-{n % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        paragraphs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(25, 60))).capitalize() + "."
                      for _ in range(rng.randint(1, 3))]
        (folder / f"note-{n:04d}.md").write_text(f"# Note {n}\n\n" + "\n\n".join(paragraphs) + "\n")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def child_pids() -> list[int]:
    """Direct children of this process (the spawned MCP server)."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                found.append(int(entry.name))
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


async def mcp_part(root: Path, edits: int, idle: float, rng: random.Random) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "tachikoma", "mcp", "--memory", str(root)])
    async with Client(params, read_timeout_seconds=120) as client:
        started = time.monotonic()
        while True:  # the first (catch-up) run builds the index
            result = await client.call_tool("stats", {})
            if result.structured_content["index"]["state"] == "complete" and \
                    result.structured_content["index"].get("last_watch_run", {}).get("state") == "done":
                break
            await asyncio.sleep(0.5)
        first_index = time.monotonic() - started
        notes = sorted(root.rglob("note-*.md"))
        latencies = []
        for n in range(edits):
            word = f"zq{n}x{rng.randrange(10**6)}"
            note = rng.choice(notes)
            written = time.monotonic()
            with open(note, "a") as handle:
                handle.write(f"\nThe {rng.choice(WORDS)} {word} was noted in edit {n}, "
                             f"next to the {rng.choice(WORDS)} and the {rng.choice(WORDS)}.\n")
            while True:
                result = await client.call_tool("search", {"query": word, "limit": 3, "min_score": 0})
                texts = [r["text"] for r in result.structured_content["results"]]
                if any(word in t for t in texts):
                    latencies.append(time.monotonic() - written)
                    break
                if time.monotonic() - written > 60:
                    latencies.append(float("inf"))
                    break
                await asyncio.sleep(0.05)
        await asyncio.sleep(3)  # let the last run finish before measuring idle
        pids = child_pids()
        before = {pid: cpu_seconds(pid) for pid in pids}
        await asyncio.sleep(idle)
        used = sum(cpu_seconds(pid) - before[pid] for pid in pids)
    return {"first_index_seconds": round(first_index, 1), "edits": edits,
            "latency_p50_s": round(statistics.median(latencies), 3),
            "latency_p95_s": round(percentile(latencies, 95), 3), "latency_max_s": round(max(latencies), 3),
            "idle_seconds": idle, "idle_cpu_percent_of_one_core": round(100 * used / idle, 3)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_part(root: Path, searchers: int, seconds: float, rng: random.Random) -> dict:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tachikoma", "serve", "--memory", str(root), "--port",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(base + "/api/stats", timeout=5) as r:
                    if json.loads(r.read())["index"]["changed_since"] == 0:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("tachikoma serve did not come up")
            time.sleep(0.5)
        gone: dict[str, float] = {}  # relative path -> when it stopped existing
        lock = threading.Lock()
        stop = threading.Event()
        counts = {"requests": 0, "errors": 0, "stale": 0, "edits": 0, "results": 0}
        examples: list[str] = []

        def editor() -> None:
            live: list[Path] = []
            n = 0
            while not stop.is_set():
                n += 1
                action = rng.random()
                if action < 0.4 or len(live) < 5:
                    path = root / "churn" / f"edit-{n:05d}.md"
                    path.parent.mkdir(exist_ok=True)
                    path.write_text(f"# Edit {n}\n\n" + " ".join(rng.choice(WORDS) for _ in range(40)) + ".\n")
                    live.append(path)
                elif action < 0.6:
                    with open(rng.choice(live), "a") as handle:
                        handle.write(" ".join(rng.choice(WORDS) for _ in range(20)) + ".\n")
                elif action < 0.8:
                    old = live.pop(rng.randrange(len(live)))
                    new = old.with_name(f"renamed-{n:05d}.md")
                    os.rename(old, new)
                    with lock:
                        gone[old.relative_to(root).as_posix()] = time.monotonic()
                    live.append(new)
                else:
                    old = live.pop(rng.randrange(len(live)))
                    old.unlink()
                    with lock:
                        gone[old.relative_to(root).as_posix()] = time.monotonic()
                counts["edits"] += 1
                time.sleep(EDIT_PAUSE)

        def searcher(seed: int) -> None:
            local = random.Random(seed)
            while not stop.is_set():
                query = " ".join(local.choice(WORDS) for _ in range(3))
                sent = time.monotonic()
                try:
                    url = f"{base}/api/search?" + urllib.parse.urlencode({"q": query, "limit": 20, "min_score": 0})
                    with urllib.request.urlopen(url, timeout=30) as r:
                        answer = json.loads(r.read())
                    ok = r.status == 200
                except Exception as exc:  # noqa: BLE001 - counted, and one is shown
                    ok, answer = False, None
                    examples.append(f"{type(exc).__name__}: {exc}")
                with lock:
                    counts["requests"] += 1
                    if not ok:
                        counts["errors"] += 1
                        continue
                    counts["results"] += len(answer["results"])
                    for r in answer["results"]:
                        if r["path"] in gone and gone[r["path"]] < sent:
                            counts["stale"] += 1
                            examples.append(f"stale: {r['path']}")

        threads = [threading.Thread(target=editor)] + [threading.Thread(target=searcher, args=(i,))
                                                       for i in range(searchers)]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join(60)
        with urllib.request.urlopen(base + "/api/stats", timeout=30) as r:
            index = json.loads(r.read())["index"]
        return {"searchers": searchers, "seconds": seconds, **counts,
                "searches_per_second": round(counts["requests"] / seconds, 1),
                "examples": examples[:5], "index_after": {k: index.get(k) for k in ("files", "changed_since")}}
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--idle", type=float, default=30.0)
    parser.add_argument("--searchers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="tachikoma-bench-watch-")) / "memory"
    root.mkdir()
    try:
        make_memory(root, args.notes, rng)
        mcp = asyncio.run(mcp_part(root, args.edits, args.idle, rng))
        print(json.dumps({"mcp": mcp}, indent=2), flush=True)
        http = http_part(root, args.searchers, args.seconds, rng)
        print(json.dumps({"http": http}, indent=2), flush=True)
        print(f"\nsave-to-searchable p50 {mcp['latency_p50_s']:.2f} s (p95 {mcp['latency_p95_s']:.2f} s, "
              f"{args.edits} edits, {args.notes} notes, MiniLM); idle watcher CPU "
              f"{mcp['idle_cpu_percent_of_one_core']:.2f}% of a core over {args.idle:.0f} s; "
              f"{args.searchers} HTTP searchers for {args.seconds:.0f} s during {http['edits']} edits: "
              f"{http['requests']} searches, {http['errors']} errors, {http['stale']} results naming a deleted file")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
