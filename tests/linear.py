"""A test helper: whether reading grows linearly with what it reads (a correctness property, not a speed target:
speed belongs in bench/), timed in CPU time so that other processes sharing the machine do not count."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

# The smaller reading takes at least this much CPU time: the size doubles (at most MAX_DOUBLINGS times) until it does,
# so a timer's tick, a cache miss or a page fault cannot make up a large part of it.
MIN_SECONDS = 0.01
MAX_DOUBLINGS = 6
REPEATS = 3


def cpu_seconds(read: Callable[[Any], Any], given: Any) -> tuple[float, Any]:
    """(CPU seconds this thread spent in `read(given)`, its result). `time.thread_time`: neither other processes
    nor this process's other threads count, so `read` must do its work in the calling thread. The collector is
    off while it runs: a pass over the whole test session's heap is not the reading's."""
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        result = read(given)
        return time.thread_time() - start, result
    finally:
        gc.enable()


def assert_linear(read: Callable[[Any], Any], make: Callable[[int], Any], size: int, *, times: int = 8,
                  within: float = 16, check: Callable[[Any, int], Any] | None = None) -> None:
    """`read(make(times * size))` takes less than `within` times the CPU time of `read(make(size))`: `times`× the
    input, ~`times`× the time, where reading in the square of the input takes ~`times`² (8×: 64×).

    Only `read` is timed; `check(result, size)`, when given, is called on each result (untimed). `size` is read once
    to warm, and doubles until its reading takes MIN_SECONDS; then the best of REPEATS readings of each size counts
    (the larger one is read again only while it is over the bound)."""
    def best(at: int, enough: float = 0.0) -> float:
        fastest = float("inf")
        for _ in range(REPEATS):
            seconds, result = cpu_seconds(read, make(at))
            if check is not None:
                check(result, at)
            fastest = min(fastest, seconds)
            if fastest < enough:
                break
        return fastest

    seconds, _ = cpu_seconds(read, make(size))  # warm
    for _ in range(MAX_DOUBLINGS):
        if seconds >= MIN_SECONDS:
            break
        size *= 2
        seconds, _ = cpu_seconds(read, make(size))
    small = best(size)
    large = best(times * size, enough=within * small)
    growth = large / small if small else float("inf")
    assert large < within * small, (
        f"{times}× the input took {growth:.1f}× the CPU time (linear: ~{times}×, at most {within:g}×): "
        f"{small * 1000:.1f} ms at size {size:,}, {large * 1000:.1f} ms at size {times * size:,}")
