"""The memory folder a benchmark builds of its sessions: one JSONL transcript a session, dated by it."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path


def write_transcripts(root: Path, transcripts: dict[str, tuple[list[str], datetime]]) -> None:
    """Each transcript (file name → its JSON rows and the session's date) as a file in `root`, made if missing;
    a .jsonl file of another set is removed. A file already holding its rows is not written again (it and its
    index stay as they were); every one is modified at its session's date."""
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.glob("*.jsonl"):
        if stale.name not in transcripts:
            stale.unlink()
    for name, (lines, date) in transcripts.items():
        content = ("\n".join(lines) + "\n").encode("utf-8")
        path = root / name
        if not path.exists() or path.read_bytes() != content:
            path.write_bytes(content)
        ns = int(date.timestamp()) * 1_000_000_000
        os.utime(path, ns=(ns, ns))
