"""A test helper: what a process wrote to a pseudo-terminal."""

from __future__ import annotations

import os
import subprocess


def drained(leader: int, process: subprocess.Popen) -> bytes:
    """Everything written to the pseudo-terminal whose leader end is `leader`, read until `process` closes it;
    then waits for `process` and closes `leader`."""
    out = b""
    while True:
        try:
            block = os.read(leader, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not block:
            break
        out += block
    process.wait(timeout=120)
    os.close(leader)
    return out
