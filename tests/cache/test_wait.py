"""wait_for_cache_sync (spec item 96), driven with a FakeClock."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from kubenb.cache.processor import AddNotification, ProcessorListener
from kubenb.cache.wait import SYNCED_POLL_PERIOD, wait_for_cache_sync, wait_for_named_cache_sync
from kubenb.clock import FakeClock
from kubenb.errors import KubenbError
from tests.helpers import wait_until


class Waiter:
    """Runs wait_for_cache_sync on a thread and keeps its answer."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        self.result: bool | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=args, kwargs=kw, name="test-wait")
        self.thread.start()

    def _run(self, *args: Any, **kw: Any) -> None:
        try:
            self.result = wait_for_cache_sync(*args, **kw)
        except BaseException as exc:
            self.error = exc

    def join(self) -> bool | None:
        self.thread.join(5)
        assert not self.thread.is_alive(), "wait_for_cache_sync did not return"
        return self.result


def counting(true_from: int) -> tuple[list[int], Any]:
    calls: list[int] = []

    def has_synced() -> bool:
        calls.append(1)
        return len(calls) >= true_from

    return calls, has_synced


def test_i096_default_poll_period_is_100ms():
    assert SYNCED_POLL_PERIOD == 0.1


def test_i096_true_at_once_when_everything_is_synced():
    clock = FakeClock()
    assert wait_for_cache_sync(threading.Event(), lambda: True, lambda: True, clock=clock)
    assert wait_for_cache_sync(threading.Event(), clock=clock)  # nothing to wait for
    assert not clock.has_waiters()


def test_i096_polls_every_period_until_all_functions_return_true():
    clock = FakeClock()
    calls, slow = counting(true_from=3)
    stop = threading.Event()
    w = Waiter(stop, lambda: True, slow, clock=clock)
    wait_until(lambda: len(calls) == 1 and clock.has_waiters())
    clock.step(0.05)  # half a period: no new check
    wait_until(clock.has_waiters)
    assert len(calls) == 1
    clock.step(0.05)
    wait_until(lambda: len(calls) == 2 and clock.has_waiters())
    clock.step(SYNCED_POLL_PERIOD)
    assert w.join() is True
    assert len(calls) == 3


def test_i096_false_when_stop_is_set_first():
    clock = FakeClock()
    stop = threading.Event()
    w = Waiter(stop, lambda: False, clock=clock)
    wait_until(clock.has_waiters)
    stop.set()  # no clock step needed
    assert w.join() is False


def test_i096_checks_once_even_if_stop_is_already_set():
    stop = threading.Event()
    stop.set()
    assert wait_for_cache_sync(stop, lambda: True) is True
    assert wait_for_cache_sync(stop, lambda: False) is False


def test_i096_timeout_is_in_clock_seconds():
    clock = FakeClock()
    calls, never = counting(true_from=10**9)
    w = Waiter(None, never, timeout=0.25, clock=clock, poll_period=0.1)
    for expected, step in ((1, 0.1), (2, 0.1), (3, 0.05)):
        wait_until(lambda n=expected: len(calls) == n and clock.has_waiters())
        clock.step(step)
    # The last wait was cut to the 0.05 s left; one last check at the deadline, then False.
    assert w.join() is False
    assert len(calls) == 4


def test_i096_accepts_registrations_and_informers_with_has_synced():
    clock = FakeClock()
    upstream = {"synced": False}

    class Handler:
        def __init__(self) -> None:
            self.gate = threading.Event()

        def on_add(self, obj: Any, initial: bool) -> None:
            self.gate.wait(5)

        def on_update(self, old: Any, new: Any) -> None: ...

        def on_delete(self, obj: Any) -> None: ...

    handler = Handler()
    listener = ProcessorListener(handler, 0, 0, clock, lambda: upstream["synced"], name="wait")
    listener.add(AddNotification({"metadata": {"name": "a"}}, True))
    listener.start()

    class Informer:
        def has_synced(self) -> bool:
            return upstream["synced"]

    w = Waiter(threading.Event(), Informer(), listener, clock=clock)
    wait_until(clock.has_waiters)
    upstream["synced"] = True
    clock.step(0.1)
    wait_until(clock.has_waiters)
    assert w.thread.is_alive()  # the handler has not finished its initial add
    handler.gate.set()
    wait_until(listener.has_synced)
    clock.step(0.1)
    assert w.join() is True
    listener.stop()
    listener.join(5)


def test_i096_bad_arguments_are_clear_errors():
    with pytest.raises(KubenbError, match="argument 2 \\(int\\) is neither"):
        wait_for_cache_sync(threading.Event(), lambda: True, 42)
    with pytest.raises(KubenbError, match="poll_period must be > 0"):
        wait_for_cache_sync(threading.Event(), lambda: True, poll_period=0)


def test_i096_named_wait_logs_start_and_outcome(caplog):
    with caplog.at_level(logging.INFO, logger="kubenb.cache.wait"):
        assert wait_for_named_cache_sync("my-controller", None, lambda: True)
        stop = threading.Event()
        stop.set()
        assert not wait_for_named_cache_sync("other", stop, lambda: False)
    text = caplog.text
    assert "waiting for caches to sync for my-controller" in text
    assert "caches are synced for my-controller" in text
    assert "unable to sync caches for other" in text
