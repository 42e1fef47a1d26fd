"""Named crash points, so tests can kill tachikoma at an exact step (kill -9), not at a time.

Set ``TACHIKOMA_FAULT=STEP`` (or ``STEP:N`` for the N-th time the step is
reached) in the environment of a tachikoma process, and it sends itself
SIGKILL when it gets there: no cleanup, no ``finally``, as after a power cut
or ``kill -9``. The steps are the `point` calls in the code, named after
what has just happened (see tests/test_faults.py for the list in use).

The variable is read once, at import; when it is unset, `point` is a test of
one global and returns.
"""

from __future__ import annotations

import os
import signal

ENV = "TACHIKOMA_FAULT"
_STEP, _, _NTH = (os.environ.get(ENV) or "").partition(":")
_seen = 0


def point(step: str) -> None:
    """Die here (SIGKILL) when `step` is the one named in $TACHIKOMA_FAULT, the N-th time it is reached."""
    if not _STEP or step != _STEP:
        return
    global _seen
    _seen += 1
    if _seen == int(_NTH or 1):
        os.kill(os.getpid(), signal.SIGKILL)
