"""One memory kept open by a long-running process (`tachikoma.live.LiveMemory`): on a real folder
and index, it searches, sees a change through its watcher's re-index run, answers the command line
over its socket, and on close lets go of the socket, the watcher's thread and its searchers."""

from __future__ import annotations

import threading
import time

import pytest

from tachikoma import resident
from tachikoma.errors import NoIndexYet
from tachikoma.live import LiveMemory

QUERY = "zanzibar quokka festival"
NOTE = "# Quokka\n\nThe zanzibar quokka festival is on 2026-05-04; Martin brings the quokka banners.\n"


def wait_for(check, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds:g} s"
        time.sleep(0.05)


def live_threads(before: set[threading.Thread]) -> set[str]:
    """The names of tachikoma's threads started since `before` and still running."""
    return {t.name for t in threading.enumerate() if t.name.startswith("tachikoma-") and t not in before}


def test_a_live_memory_searches_sees_a_change_and_lets_go_on_close(indexed_example):
    root = indexed_example
    before_threads = set(threading.enumerate())
    runs: list[dict] = []
    live = LiveMemory(root, report=runs.append)
    try:
        live.watch(catch_up=False, ready_within=30)
        host = live.host_searches("test")
        assert host.listening and host.path.exists()
        assert {"tachikoma-watch", "tachikoma-resident"} <= live_threads(before_threads)

        before = live.search({"query": QUERY, "limit": 5})
        assert "quokka.md" not in [r["path"] for r in before["results"]]
        assert before["freshness"]["watching"] is True and before["freshness"]["watch_error"] is None
        assert live.searchers.open_count() == 1  # kept open for the next question

        (root / "quokka.md").write_text(NOTE, encoding="utf-8")
        wait_for(lambda: runs and runs[-1]["state"] == "done")
        assert runs[-1]["line"].startswith("1 added")

        after = live.search({"query": QUERY, "limit": 5})
        assert after["results"][0]["path"] == "quokka.md"
        assert after["freshness"]["changed_since"] == 0
        assert after["freshness"]["last_watch_run"]["state"] == "done"
        assert live.searchers.open_count() == 1  # the same searcher, warmed after the run

        asked = resident.ask(root, None, {"query": QUERY, "limit": 5})  # as `tachikoma search` asks
        assert asked is not None and asked["served_by"]["process"] == "test"
        assert [r["path"] for r in asked["results"]] == [r["path"] for r in after["results"]]
        socket_path = host.path
    finally:
        live.close()
    assert not socket_path.exists()
    assert resident.ask(root, None, {"query": QUERY, "limit": 5}) is None
    wait_for(lambda: not live_threads(before_threads), 10)
    assert live.searchers.open_count() == 0
    with pytest.raises(RuntimeError):
        live.search({"query": QUERY, "limit": 5})


def test_without_an_index_a_face_chooses_the_error(memory):
    root = memory

    class Missing(Exception):
        pass

    plain = LiveMemory(root)
    own = LiveMemory(root, missing=Missing, check_index=True)
    try:
        with pytest.raises(NoIndexYet):
            plain.search({"query": QUERY, "limit": 5})
        with pytest.raises(Missing):
            own.search({"query": QUERY, "limit": 5})
        assert plain.watching() == {"watching": False, "watch_error": None}
    finally:
        plain.close()
        own.close()
