"""Benchmark: tagging large notes costs constant memory, and a note over the limit is refused at once.

    python bench/bench_tag_large.py --mb 150 --sparse-gb 1

Runs `tachikoma tag --path NOTE --trust self --no-commit` as a user would, in a
fresh process per case, and prints its wall time and peak resident memory:

- a real note just under the default 5 MB limit;
- a real note of `--mb` MB with `[index] max_file_bytes` raised above it
  (the front matter is rewritten and the body streamed through);
- a sparse note of `--sparse-gb` GB under the default limit (refused with
  the reason, after one stat);
- `--files` small notes tagged by one run (`--path bulk/`): what holding each
  replaced note open for a moment after its swap costs a bulk run (at most
  one grace period per run, not per note).

The baseline line is `tachikoma --help` in the same kind of process.
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

MEASURE = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
           "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def measure(*argv: str) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one tachikoma process."""
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "tachikoma", *argv],
                         capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, int(out.split()[-1]) / 1024


def real_note(path: Path, size: int) -> None:
    line = b"The motor controller ran hot at 40 kHz; the heat sink review is on Friday.\n"
    with open(path, "wb") as handle:
        handle.write(b"---\ntitle: large\n---\n")
        while handle.tell() < size:
            handle.write(line * 1000)
        handle.truncate(size)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=150)
    parser.add_argument("--sparse-gb", type=float, default=1.0)
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tachikoma-tag-large-"))
    root = work / "memory"
    root.mkdir()
    try:
        base = measure("--help")
        print(f"{'case':<44} {'seconds':>8} {'peak RSS MB':>12}")
        print(f"{'tachikoma --help (baseline)':<44} {base[0]:>8.2f} {base[1]:>12.1f}")

        real_note(root / "under.md", 4_900_000)
        seconds, rss = measure("--memory", str(root), "tag", "--path", "under.md", "--trust", "self", "--no-commit")
        print(f"{'4.9 MB note, tagged':<44} {seconds:>8.2f} {rss:>12.1f}")

        real_note(root / "large.md", args.mb * 1_000_000)
        (root / "tachikoma.toml").write_text(f"[index]\nmax_file_bytes = {(args.mb + 1) * 1_000_000}\n")
        before = os.path.getsize(root / "large.md")
        seconds, rss = measure("--memory", str(root), "tag", "--path", "large.md", "--trust", "self", "--no-commit")
        grew = os.path.getsize(root / "large.md") - before
        print(f"{f'{args.mb} MB note, limit raised, tagged (+{grew} B)':<44} {seconds:>8.2f} {rss:>12.1f}")
        (root / "tachikoma.toml").unlink()
        (root / "large.md").unlink()

        sparse = root / "sparse.md"
        with open(sparse, "wb") as handle:
            handle.write(b"---\ntitle: sparse\n---\n")
            handle.truncate(int(args.sparse_gb * 1_000_000_000))
        seconds, rss = measure("--memory", str(root), "tag", "--path", "sparse.md", "--trust", "self", "--no-commit")
        untouched = os.stat(sparse).st_blocks * 512 < 1_000_000
        print(f"{f'{args.sparse_gb:g} GB sparse note, refused':<44} {seconds:>8.2f} {rss:>12.1f}"
              f"   (file still sparse: {untouched})")
        sparse.unlink()

        bulk = root / "bulk"
        bulk.mkdir()
        for n in range(args.files):
            (bulk / f"note-{n:05d}.md").write_text(f"---\ntitle: note {n}\n---\n# Note {n}\n\nA line of body.\n")
        seconds, rss = measure("--memory", str(root), "tag", "--path", "bulk/", "--trust", "self", "--no-commit")
        tagged = sum("trust: self" in p.read_text() for p in bulk.iterdir())
        print(f"{f'{args.files} small notes, one run ({tagged} tagged)':<44} {seconds:>8.2f} {rss:>12.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
