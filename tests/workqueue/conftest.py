"""Fixtures and helpers for the workqueue tests.

Timers are driven by stepping a FakeClock. The only real-time waiting is polling
(bounded, 5 s) for a background thread to reach a state: never to let time pass.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.workqueue.metrics import InProcessMetricsProvider
from tests.helpers import kubenb_threads, wait_until

__all__ = ["run_in_thread", "wait_idle", "wait_until", "workqueue_threads"]


def wait_idle(q: Any, timeout: float = 5.0) -> None:
    """Wait until a DelayingQueue's waiting thread has seen every `add_after` and is
    parked until a clock time not yet reached: after this, nothing more is added
    until the clock moves. Used before asserting that nothing was added."""
    wait_until(q.waiting_settled, timeout, what="the delaying queue's waiting loop to park")


def workqueue_threads() -> list[threading.Thread]:
    """Live threads started by kubenb's workqueue."""
    return [t for t in kubenb_threads() if t.name.startswith("kubenb-workqueue")]


class _Result:
    """What a background call returned or raised."""

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        self.finished = threading.Event()


def run_in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, _Result]:
    """Run `fn` on a daemon thread; the result says when it finished and with what."""
    result = _Result()

    def target() -> None:
        try:
            result.value = fn()
        except BaseException as exc:  # reported to the test, not swallowed
            result.error = exc
        finally:
            result.finished.set()

    thread = threading.Thread(target=target, daemon=True, name="test-worker")
    thread.start()
    return thread, result


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def provider() -> InProcessMetricsProvider:
    """A private metrics provider, so tests never share numbers through the global one."""
    return InProcessMetricsProvider()


@pytest.fixture
def cleanup() -> Iterator[Callable[[Any], Any]]:
    """Register queues to shut down at the end of the test (even when it fails)."""
    queues: list[Any] = []

    def register(q: Any) -> Any:
        queues.append(q)
        return q

    yield register
    for q in queues:
        q.shut_down()
