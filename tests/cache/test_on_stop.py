"""on_stop: callbacks on a stop Event, from one shared thread that lives only while used."""

from __future__ import annotations

import threading

from kubenb.cache.on_stop import StopEvent, on_stop


def _waiters() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "kubenb-stop-waiter"]


def test_a_stop_event_calls_its_callbacks_and_the_thread_ends_with_the_last_cancel() -> None:
    stop = StopEvent()
    called = threading.Event()
    handle = on_stop(stop, called.set)
    assert len(_waiters()) == 1
    stop.set()
    assert called.wait(10)
    handle.cancel()
    assert _waiters() == []


def test_a_plain_event_works_too() -> None:
    stop = threading.Event()
    called = threading.Event()
    handle = on_stop(stop, called.set)
    stop.set()
    assert called.wait(10)
    handle.cancel()
    assert _waiters() == []


def test_one_thread_serves_every_registration_and_ends_when_all_cancel() -> None:
    stops = [StopEvent() for _ in range(50)]
    calls: list[int] = []
    handles = [on_stop(stop, lambda i=i: calls.append(i)) for i, stop in enumerate(stops)]
    assert len(_waiters()) == 1
    for handle in handles[:25]:
        handle.cancel()
    assert len(_waiters()) == 1  # still in use
    for handle in handles[25:]:
        handle.cancel()
    assert _waiters() == []
    for stop in stops:
        stop.set()
    assert calls == []  # cancelled before the stop: never called


def test_registering_on_a_set_event_calls_at_once() -> None:
    stop = StopEvent()
    stop.set()
    called = threading.Event()
    handle = on_stop(stop, called.set)
    assert called.wait(10)
    handle.cancel()
    assert _waiters() == []


def test_cancel_waits_for_a_running_callback() -> None:
    stop = StopEvent()
    entered, release = threading.Event(), threading.Event()
    finished: list[bool] = []

    def slow() -> None:
        entered.set()
        release.wait(10)
        finished.append(True)

    handle = on_stop(stop, slow)
    stop.set()
    assert entered.wait(10)
    cancelled = threading.Event()
    canceller = threading.Thread(target=lambda: (handle.cancel(), cancelled.set()))
    canceller.start()
    assert not cancelled.wait(0.05)  # still inside the callback
    release.set()
    canceller.join(10)
    assert finished == [True] and cancelled.is_set()
    assert _waiters() == []


def test_a_failing_callback_does_not_keep_the_others_from_running() -> None:
    stop = StopEvent()
    called = threading.Event()

    def fail() -> None:
        raise RuntimeError("boom")

    handles = [on_stop(stop, fail), on_stop(stop, called.set)]
    stop.set()
    assert called.wait(10)
    for handle in handles:
        handle.cancel()
    assert _waiters() == []
