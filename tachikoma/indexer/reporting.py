"""Where an index run is, for a progress display: the dashboard's Index panel (`progress_view`) and
the command line's bar (`tqdm_progress`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class RunProgress:
    """Where an index run is, for a progress display (`run`'s `detail` callback).

    A run reads first, then embeds (``phase``). Reading is measured in bytes
    of the files to read (a file over the size limit counts for nothing: it
    is skipped after one stat); once a file is read its chunks are stored
    with their text, so keyword search finds them at once. Embedding is
    measured in chunks: first the quick tier's vectors (``quick_done`` of
    ``quick_total``, when the embedder has a quick tier), then the full
    model's (``chunks_embedded`` of ``chunks_total``), newest memories first.
    """

    files_done: int = 0
    files_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    note: str = ""
    phase: str = "reading"  # "reading", "quick vectors", "full vectors"
    chunks_total: int = 0  # chunks (distinct texts) to embed with the full model in this run
    quick_done: int = 0
    quick_total: int = 0


Detail = Callable[[RunProgress], None]


def progress_view(state: RunProgress, phase_seconds: float) -> dict:
    """What a progress display shows (the dashboard's Index panel; the command line's bar shows the
    same): the phase, files, its work done of total, the rate in chunks/s once embedding, and an
    estimate of the phase's time left from its own rate so far (None until it can say).
    `phase_seconds`: how long the current phase has run."""
    if state.phase == "reading":
        done, total, unit = state.bytes_done, state.bytes_total, "bytes"
    elif state.phase == "quick vectors":
        done, total, unit = state.quick_done, state.quick_total, "chunks"
    else:
        done, total, unit = state.chunks_embedded, state.chunks_total, "chunks"
    rate = done / phase_seconds if phase_seconds > 0 else 0.0
    left = (total - done) / rate if rate > 0 and total >= done else None
    return {"phase": state.phase, "files_done": state.files_done, "files_total": state.files_total,
            "done": done, "total": total, "unit": unit, "percent": 100.0 * done / total if total else 0.0,
            "chunks_per_second": rate if unit == "chunks" else None, "seconds_left": left,
            "chunks_reused": state.chunks_reused}


def tqdm_progress(stream=sys.stderr) -> tuple[Detail, Callable[[], None]]:
    """A `run` detail callback drawing a tqdm bar, and its closer.

    While reading, the bar fills by bytes of files to read; then, for each
    tier of vectors, by chunks to embed (the estimate of time left comes from
    that phase's own rate), e.g.
    ``index: reading  42%|████▏     | 81.2M/193M [00:10<00:14] 120/340 files, 5,120 chunks stored (312 reused)`` then
    ``index: full vectors  12%|█▏ | 1,024/8,310 [00:14<01:40] 340/340 files, 73.1 chunks/s``.
    """
    from tqdm import tqdm

    bar = None
    phase = None
    started = time.perf_counter()

    def update(state: RunProgress) -> None:
        nonlocal bar, phase, started
        reading = state.phase == "reading"
        if state.phase != phase:
            if bar is not None:
                bar.close()
            phase, started = state.phase, time.perf_counter()
            total = state.bytes_total if reading else state.chunks_total if state.phase == "full vectors" \
                else state.quick_total
            bar = tqdm(total=total, desc=f"index: {'reading' if reading else state.phase}", unit="B" if reading else " chunks",
                       unit_scale=reading, unit_divisor=1024 if reading else 1000,
                       file=stream, dynamic_ncols=True, leave=False,
                       bar_format="{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                  "[{elapsed}<{remaining}] {postfix}")
        files = f"{state.files_done}/{state.files_total} files"
        if reading:
            bar.n = min(state.bytes_done, state.bytes_total)
            reused = f" ({state.chunks_reused:,} reused)" if state.chunks_reused else ""
            ready = (f"{state.chunks_embedded:,} chunks embedded" if state.chunks_embedded  # a store without tiers
                     else "keyword search ready for what is read")
            bar.set_postfix_str(f"{files}, {ready}{reused}", refresh=False)
        else:
            done = state.chunks_embedded if state.phase == "full vectors" else state.quick_done
            bar.n = min(done, bar.total)
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.set_postfix_str(f"{files}, {done:,} chunks, {rate:.1f} chunks/s", refresh=False)
        bar.refresh()

    def close() -> None:
        if bar is not None:
            bar.close()

    return update, close

