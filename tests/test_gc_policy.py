"""CacheGCPolicy: collection moves to one timer thread and comes back on stop."""

from __future__ import annotations

import gc
import weakref

import pytest

from kubenb.clock import FakeClock
from kubenb.errors import KubenbError
from kubenb.gc_policy import CacheGCPolicy
from tests.helpers import wait_until


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def make_cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_start_takes_over_collection_and_stop_restores_it() -> None:
    assert gc.isenabled()
    policy = CacheGCPolicy(young_interval=1.0, full_interval=10.0, clock=FakeClock())
    with policy:
        assert not gc.isenabled() and policy.running
        assert "running" in repr(policy)
    assert gc.isenabled() and not policy.running
    policy.stop()  # a second stop is a no-op
    assert gc.isenabled()


def test_young_and_full_collections_follow_the_clock() -> None:
    clock = FakeClock()
    with CacheGCPolicy(young_interval=1.0, full_interval=3.0, clock=clock) as policy:
        cycle = make_cycle()
        assert cycle() is not None  # automatic collection is off: the cycle lives on
        wait_until(clock.has_waiters, what="the policy thread to wait on the clock")
        clock.step(1.0)
        wait_until(lambda: policy.young_collections == 1, what="a young collection")
        assert cycle() is None  # a young cycle dies in a young collection
        wait_until(clock.has_waiters, what="the policy thread to wait again")
        clock.step(1.0)
        wait_until(lambda: policy.young_collections == 2, what="the second young collection")
        wait_until(clock.has_waiters, what="the policy thread to wait again")
        clock.step(1.0)
        wait_until(lambda: policy.full_collections == 1, what="a full collection at 3 s")
        assert policy.stats()["longest_pause_seconds"] >= 0


def test_only_one_policy_per_process_and_bad_intervals_are_refused() -> None:
    with CacheGCPolicy(clock=FakeClock()), pytest.raises(KubenbError, match="already running"):
        CacheGCPolicy(clock=FakeClock()).start()
    with pytest.raises(KubenbError, match="young_interval"):
        CacheGCPolicy(young_interval=0)
    with pytest.raises(KubenbError, match="young_interval"):
        CacheGCPolicy(young_interval=5, full_interval=1)
