"""Benchmark: peak memory of reading and chunking one huge session file, streamed vs read whole.

    nice -n 10 .venv/bin/python bench/bench_big_session.py --mb 2048 --whole-mb 512

Writes one Claude Code session of the given size into /tmp (sessions of
bench/bench_sessions.py, one after another in one file: mostly tool output,
as real sessions are), then, each in a fresh process, reads and chunks it:

* streamed: `reader.read_document`, which reads a transcript line by line;
* whole: the way main read it (every byte read, decoded, split into lines,
  then parsed), at --whole-mb (a 2 GB file read whole takes ~4x its size
  in memory, more than a shared machine should be asked for).

Prints each process's peak resident memory (VmHWM) and time side by side,
with the file size and the text that reaches the chunks. The file is deleted
at the end (--keep keeps it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = r"""
import hashlib, sys, time
from pathlib import Path
from tachikoma.chunking import chunk_document
from tachikoma.reading.documents import Document
from tachikoma.reading.reader import _decode, read_document
from tachikoma.transcripts import parse_transcript
root, name, how = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
started = time.perf_counter()
if how == "streamed":
    doc = read_document(root, name, "transcript", max_bytes=10**12)
else:  # main's way: the whole file in memory, then its text, then its lines
    data = (root / name).read_bytes()
    doc = Document(path=name, kind="transcript", sha256=hashlib.sha256(data).hexdigest())
    text = _decode(data, name, doc.warnings)
    del data
    t = parse_transcript(text, name)
    doc.turns, doc.session = t.turns, t.session
chunks = chunk_document(doc, 80)
seconds = time.perf_counter() - started
peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
print(peak * 1024, seconds, len(chunks), sum(len(c.text) for c in chunks))
"""


def write_session(path: Path, megabytes: float) -> int:
    from bench_sessions import claude_session

    rng = random.Random(7)
    target = int(megabytes * 1e6)
    written = 0
    start = 1_760_000_000.0
    with open(path, "w", encoding="utf-8") as out:
        n = 0
        while written < target:
            rows, _ = claude_session(rng, f"s{n}", "/home/me/project", start + n * 3600, 40)
            block = "".join(json.dumps(row) + "\n" for row in rows)
            out.write(block)
            written += len(block.encode("utf-8"))
            n += 1
    return written


def measure(folder: Path, name: str, how: str) -> tuple[int, float, int, int]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder), name, how], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    return int(out[0]), float(out[1]), int(out[2]), int(out[3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=2048.0, help="size of the session file (default 2048)")
    parser.add_argument("--whole-mb", type=float, default=512.0,
                        help="size at which the read-whole way is measured too (0: not at all)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/tier-big-session"))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'file':>10} {'way':>9} {'peak RSS':>10} {'RSS/file':>9} {'seconds':>8} {'chunks':>8} {'chunk text':>11}")
    sizes = sorted({args.mb, args.whole_mb} - {0})
    try:
        for mb in sizes:
            name = f"session-{mb:g}mb.jsonl"
            size = write_session(args.folder / name, mb)
            for how in ("streamed", "whole"):
                if how == "whole" and mb != args.whole_mb:
                    continue
                peak, seconds, chunks, text = measure(args.folder, name, how)
                print(f"{size / 1e6:>8.0f}MB {how:>9} {peak / 1e6:>8.0f}MB {peak / size:>8.2f}x {seconds:>8.1f} "
                      f"{chunks:>8,} {text / 1e6:>9.1f}MB", flush=True)
            if not args.keep:
                (args.folder / name).unlink()
    finally:
        if not args.keep:
            for leftover in args.folder.glob("session-*.jsonl"):
                leftover.unlink()
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
