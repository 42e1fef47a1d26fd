"""Benchmark: what redacting secrets (``[privacy] redact_secrets``, `tachikoma.redaction`) costs an index run.

    python bench/bench_redaction.py --copies 20

Builds a large memory from the everyday memories of bench/everyday (their notes and sessions copied
`--copies` times into one folder, a fake key pasted into every tenth file, as an agent's ``env`` output
would), then indexes it from nothing twice, redaction on and off, with the keyword-hashing embedder
(``hash``: instant, so the figures are reading, chunking, redacting and storing, where redaction's cost
shows most; a real model's embedding time would add the same to both). Each setting is run `--rounds`
times, alternately, and the best of each is printed side by side, with the lines read and the share of
lines that reached detect-secrets' detectors (the rest stop at one cheap pattern, `redaction._CANDIDATE`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT))

from tachikoma import redaction  # noqa: E402
from tachikoma.config import Config  # noqa: E402
from tachikoma.indexer import runner  # noqa: E402

EVERYDAY = CHECKOUT / "bench" / "everyday"
FAKE = ("\nSTRIPE_SECRET_KEY=sk_live_FAKE0notREAL0fake0notREAL0fake0notREAL00\n"
        "AWS_SECRET_ACCESS_KEY=fAkE0nOt0ReAl0kEy/FaKe0NoT0rEaL0KeY0FAKE\n")


def build(target: Path, copies: int) -> tuple[int, int]:
    """The memory: every everyday memory's files, `copies` times; (files, bytes)."""
    files = total = 0
    sources = [p for p in sorted(EVERYDAY.glob("*/memory/**/*")) if p.suffix in (".md", ".jsonl") and p.is_file()]
    for copy in range(copies):
        for source in sources:
            rel = source.relative_to(EVERYDAY)
            out = target / f"copy{copy:03d}" / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            data = source.read_bytes()
            if source.suffix == ".md" and files % 10 == 0:
                data += FAKE.encode()
            out.write_bytes(data)
            files += 1
            total += len(data)
    return files, total


def index_once(root: Path, redact: bool) -> tuple[float, int]:
    shutil.rmtree(root / ".cache", ignore_errors=True)
    started = time.perf_counter()
    summary = runner.run(root, Config(redact_secrets=redact), embedder_name="hash")
    return time.perf_counter() - started, summary.secrets


def candidate_share(root: Path) -> tuple[int, int]:
    """(lines, lines the cheap pattern sends to the detectors), over the memory's files as written."""
    lines = candidates = 0
    for path in root.rglob("*"):
        if path.suffix in (".md", ".jsonl") and ".cache" not in path.parts:
            for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
                lines += 1
                candidates += bool(redaction._CANDIDATE.search(line))
    return lines, candidates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tachikoma-redaction-") as folder:
        root = Path(folder) / "memory"
        files, size = build(root, args.copies)
        lines, candidates = candidate_share(root)
        print(f"memory: {files:,} files, {size / 1e6:.1f} MB, {lines:,} lines; {candidates:,} lines "
              f"({100 * candidates / max(lines, 1):.2f}%) reach the detectors")
        best = {True: float("inf"), False: float("inf")}
        found = 0
        for _ in range(args.rounds):
            for redact in (True, False):
                seconds, secrets = index_once(root, redact)
                best[redact] = min(best[redact], seconds)
                found = secrets if redact else found
        print(f"index from nothing (hash embedder), best of {args.rounds}:")
        print(f"  redaction on   {best[True]:7.2f} s   ({found:,} secrets redacted)")
        print(f"  redaction off  {best[False]:7.2f} s")
        print(f"  cost           {best[True] - best[False]:+7.2f} s  ({100 * (best[True] / best[False] - 1):+.1f}%)")


if __name__ == "__main__":
    main()
