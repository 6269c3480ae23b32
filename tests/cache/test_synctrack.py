"""Sync trackers (spec items 83 and 84, client-go `synctrack_test.go`)."""

from __future__ import annotations

import threading

import pytest

from kubenb.cache.synctrack import AsyncTracker, SingleFileTracker
from kubenb.errors import KubenbError


def single(upstream):
    t = SingleFileTracker(upstream)
    return t.start, t.finished, t.has_synced


def async_(upstream):
    t: AsyncTracker[str] = AsyncTracker(upstream)
    return (lambda: t.start("key")), (lambda: t.finished("key")), t.has_synced


@pytest.mark.parametrize("construct", [single, async_], ids=["SingleFile", "Async"])
@pytest.mark.parametrize(
    ("synced", "start", "finish", "expect"),
    [
        (False, True, True, False),
        (True, True, False, False),
        (False, True, False, False),
        (True, True, True, True),
        (True, False, False, True),
    ],
)
def test_i083_basic_logic(construct, synced, start, finish, expect):
    start_fn, finished_fn, has_synced = construct(lambda: synced)
    if start:
        start_fn()
    if finish:
        finished_fn()
    assert has_synced() is expect


def test_i084_single_file_counting_and_negative_counter():
    t = SingleFileTracker(lambda: True)
    for _ in range(100):
        t.start()
    assert not t.has_synced()
    for _ in range(99):
        t.finished()
    assert not t.has_synced()
    assert t.pending() == 1
    t.finished()
    assert t.has_synced()
    with pytest.raises(KubenbError, match="negative counter"):
        t.finished()
    assert t.has_synced()  # stays true after the logic error
    assert t.pending() == 0


def test_i084_upstream_not_synced_is_always_false():
    upstream = {"synced": False}
    t = SingleFileTracker(lambda: upstream["synced"])
    assert not t.has_synced()
    t.start()
    t.finished()
    assert not t.has_synced()
    upstream["synced"] = True
    assert t.has_synced()


def test_i084_upstream_is_asked_first_so_the_count_is_never_stale():
    # TestNoStaleValue: upstream reports synced only after one more start().
    t = SingleFileTracker(lambda: True)
    calls: list[str] = []

    def upstream() -> bool:
        calls.append("upstream")
        t.start()  # the last initial item arrives while upstream is being asked
        return True

    t.upstream_has_synced = upstream
    assert not t.has_synced()
    assert calls == ["upstream"]


def test_i084_counting_is_thread_safe():
    t = SingleFileTracker(lambda: True)
    n, threads = 2000, 4

    def work() -> None:
        for _ in range(n):
            t.start()
            t.finished()

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    assert t.has_synced() and t.pending() == 0


def test_async_tracker_tracks_keys_and_tolerates_unstarted_finish():
    t: AsyncTracker[str] = AsyncTracker(lambda: True)
    t.finished("never-started")  # harmless
    t.start("a")
    t.start("b")
    t.start("a")
    assert not t.has_synced() and t.pending() == 2
    t.finished("a")
    assert not t.has_synced()
    t.finished("b")
    assert t.has_synced()
    assert "pending=0" in repr(t)
