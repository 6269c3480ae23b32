"""retry_on_conflict (client-go's retry.RetryOnConflict) against real 409s from the
embedded server, with the waits stepped on a FakeClock."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controller import DEFAULT_BACKOFF, DEFAULT_RETRY, Backoff, on_error, retry_on_conflict
from kubenb.errors import Conflict, KubenbError, NotFound
from tests.helpers import wait_until


def in_thread(fn) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as err:
            out["error"] = err

    thread = threading.Thread(target=run, name="test-retry")
    thread.start()
    return thread, out


def test_a_conflicting_write_is_retried_with_a_fresh_read(cluster: Cluster,
                                                         clock: FakeClock) -> None:
    cms = cluster.resource("configmaps")
    cms.create({"metadata": {"name": "counter"}, "data": {"n": "0"}})
    tries: list[str] = []

    def increment() -> dict[str, Any]:
        current = cms.get("counter")
        tries.append(current["metadata"]["resourceVersion"])
        if len(tries) == 1:  # someone else writes between our read and our write
            other = cms.get("counter")
            other["data"]["owner"] = "someone-else"
            cms.update(other)
        current["data"]["n"] = str(int(current["data"]["n"]) + 1)
        return cms.update(current)

    thread, out = in_thread(lambda: retry_on_conflict(increment, clock=clock,
                                                      rand=random.Random(1)))
    wait_until(clock.has_waiters, what="the wait after the conflict")
    assert len(tries) == 1
    clock.step(0.011)  # DEFAULT_RETRY: 10 ms plus up to 10% jitter
    thread.join(5)
    assert "error" not in out
    assert out["value"]["data"] == {"n": "1", "owner": "someone-else"}
    assert len(tries) == 2 and tries[0] != tries[1]


def test_conflicts_give_up_after_five_tries_with_the_last_conflict(clock: FakeClock) -> None:
    calls: list[float] = []

    def always_conflicts() -> None:
        calls.append(clock.now())
        raise Conflict(409, "Conflict", f"conflict #{len(calls)}")

    thread, out = in_thread(lambda: retry_on_conflict(always_conflicts, clock=clock,
                                                      rand=random.Random(3)))
    expected = DEFAULT_RETRY.delays(random.Random(3))
    assert len(expected) == 4 and all(0.010 <= d <= 0.011 for d in expected)
    for n, delay in enumerate(expected, start=1):
        wait_until(lambda n=n: len(calls) == n and clock.has_waiters(), what=f"try {n}")
        clock.step(delay)
    thread.join(5)
    assert len(calls) == 5
    assert isinstance(out["error"], Conflict) and out["error"].message == "conflict #5"


def test_other_errors_are_raised_at_once() -> None:
    calls: list[int] = []

    def not_found() -> None:
        calls.append(1)
        raise NotFound(404, "NotFound", 'configmaps "x" not found')

    with pytest.raises(NotFound):
        retry_on_conflict(not_found)
    assert calls == [1]
    assert retry_on_conflict(lambda: 42) == 42


def test_backoff_steps_follow_wait_backoff() -> None:
    assert DEFAULT_BACKOFF.delays() != []
    no_jitter = Backoff(duration=0.010, factor=5.0, steps=4)
    assert [round(d, 6) for d in no_jitter.delays()] == [0.01, 0.05, 0.25]
    # Reaching the cap ends the tries: 1 s, 2 s, then 8 s would pass the 5 s cap.
    capped = Backoff(duration=1.0, factor=2.0, steps=6, cap=5.0)
    assert capped.delays() == [1.0, 2.0]
    clock = FakeClock()
    calls: list[float] = []

    def fails() -> None:
        calls.append(clock.now())
        raise TimeoutError("slow")

    thread, out = in_thread(lambda: on_error(capped, lambda e: isinstance(e, TimeoutError),
                                             fails, clock=clock))
    for n, delay in enumerate(capped.delays(), start=1):
        wait_until(lambda n=n: len(calls) == n and clock.has_waiters(), what=f"try {n}")
        clock.step(delay)
    thread.join(5)
    assert calls == [0.0, 1.0, 3.0] and isinstance(out["error"], TimeoutError)
    with pytest.raises(KubenbError, match="duration must be >= 0"):
        Backoff(duration=-1)
