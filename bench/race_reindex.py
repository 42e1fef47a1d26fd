"""Stress check: files created and deleted while `index` runs must all end up indexed.

    python bench/race_reindex.py --threads 3 --names 200 --runs 40

Writer threads create and delete notes (from a pool of `--names` names, each
name always with the same bytes, as a sync tool or `git checkout` brings a
file back) while the main thread runs `--runs` incremental index runs. Then
the writers stop, every note is written back, one more index run settles
the index, and each file's chunks are compared with a fresh rebuild of the
same folder. Prints the number of files the incremental index got wrong
(missing or with other chunks than the rebuild), which must be 0; exit
status 1 otherwise. Timing-dependent by nature: the deterministic form of
this race is tests/test_integrity.py.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from tachikoma import memory
from tachikoma.indexer import runner
from tachikoma.store import Store


def note(i: int) -> bytes:
    words = " ".join(f"topic{i}w{j}" for j in range(400))
    return f"# Note {i}\n\n{words}\n\n## More\n\n{words} again {i}\n".encode()


def chunks_by_file(root: Path) -> dict[str, list[str]]:
    with Store(memory.index_path(root)) as store:
        rows = store.db.execute("SELECT f.path, c.hash FROM files f LEFT JOIN chunks c ON c.file_id = f.id "
                                "ORDER BY f.path, c.idx").fetchall()
    found: dict[str, list[str]] = {}
    for path, digest in rows:
        found.setdefault(path, [])
        if digest is not None:
            found[path].append(digest)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--names", type=int, default=200)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tachikoma-race-"))
    root = work / "memory"
    root.mkdir()
    for i in range(args.names):
        (root / f"n{i:03d}.md").write_bytes(note(i))
    stop = threading.Event()
    churn = [0]

    def writer(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            i = rng.randrange(args.names)
            path = root / f"n{i:03d}.md"
            try:
                if rng.random() < 0.5:
                    path.unlink()
                else:
                    path.write_bytes(note(i))
                churn[0] += 1
            except OSError:
                pass
            time.sleep(rng.random() * 0.002)

    threads = [threading.Thread(target=writer, args=(args.seed + t,)) for t in range(args.threads)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    errors = 0
    try:
        for _ in range(args.runs):
            try:
                runner.run(root, embedder_name="hash")
            except Exception as exc:  # noqa: BLE001 - counted and shown, the run goes on
                errors += 1
                print(f"index run failed: {exc}", file=sys.stderr)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    churning = time.perf_counter() - started
    for i in range(args.names):
        (root / f"n{i:03d}.md").write_bytes(note(i))
    runner.run(root, embedder_name="hash")
    incremental = chunks_by_file(root)

    fresh = work / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".cache"))
    runner.run(fresh, embedder_name="hash")
    rebuilt = chunks_by_file(fresh)
    wrong = sorted(p for p in rebuilt if incremental.get(p) != rebuilt[p])
    empty = sum(1 for p in wrong if not incremental.get(p))
    print(f"{args.runs} index runs during {churn[0]} creates/deletes by {args.threads} threads "
          f"({churning:.1f} s), {errors} failed runs")
    print(f"after settling: {len(rebuilt)} files, {sum(map(len, rebuilt.values()))} chunks in a fresh rebuild; "
          f"{len(wrong)} files differ in the incremental index ({empty} with 0 chunks)")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if wrong or errors else 0


if __name__ == "__main__":
    sys.exit(main())
