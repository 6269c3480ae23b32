"""The publisher: per-key coalescing, the rate bound (FakeClock), bursts, ordering, stop."""

from __future__ import annotations

import itertools
import logging
import threading
import time
import weakref
from typing import Any

import ipywidgets
import pytest

from kubenb.clock import FakeClock
from kubenb.reactive.publisher import (
    DROP,
    Publisher,
    PublisherError,
    hold_sync_sink,
)
from tests.helpers import collector, wait_until


class Recorder:
    """A sink that records each batch with the clock time it arrived at."""

    def __init__(self, clock: Any = None) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.batches: list[tuple[float, dict[Any, Any]]] = []
        self.state: dict[Any, Any] = {}

    def __call__(self, batch: dict[Any, Any]) -> None:
        with self.lock:
            at = self.clock.now() if self.clock is not None else time.monotonic()
            self.batches.append((at, dict(batch)))
            self.state.update(batch)

    def count(self) -> int:
        with self.lock:
            return len(self.batches)


def test_values_are_coalesced_per_key_and_the_latest_wins() -> None:
    publisher = Publisher("coalesce", clock=FakeClock())
    sink = Recorder()
    channel = publisher.channel(sink)
    channel.submit("a", 1)
    channel.submit("b", 1)
    channel.submit_many([("a", 2), ("a", 3), ("c", 1)])
    assert channel.pending() == 3
    assert channel.flush() == 3
    assert sink.batches[0][1] == {"a": 3, "b": 1, "c": 1}
    assert list(sink.batches[0][1]) == ["a", "b", "c"]  # first-submission order
    stats = channel.stats()
    assert (stats["submitted"], stats["coalesced"], stats["batches"], stats["published"]) == (
        5, 2, 1, 3)
    assert channel.flush() == 0 and sink.count() == 1  # nothing pending: no empty batch
    publisher.stop()


def test_first_update_leaves_at_once_then_one_batch_per_interval() -> None:
    clock = FakeClock()
    sink = Recorder(clock)
    with Publisher("leading", clock=clock) as publisher:
        channel = publisher.channel(sink, rate=10)
        channel.submit("k", 1)
        wait_until(lambda: sink.count() == 1, what="the leading-edge batch")
        channel.submit("k", 2)
        channel.submit("k", 3)
        wait_until(clock.has_waiters, what="the publisher to wait out the interval")
        clock.step(0.05)  # half an interval: still waiting
        assert clock.has_waiters() and sink.count() == 1
        clock.step(0.05)
        wait_until(lambda: sink.count() == 2, what="the throttled batch")
        assert sink.batches[1] == (pytest.approx(0.1), {"k": 3})
    assert publisher.stats()["running"] is False


def test_burst_20k_updates_to_one_key_at_2k_per_second_ends_on_the_last_value() -> None:
    """20k updates over ~10 s of clock time (2048/s): at most rate x duration + 1 batches,
    each at least 1/rate apart, and the published state ends on the last value."""
    clock = FakeClock()
    sink = Recorder(clock)
    rate = 8.0  # 1/8 s and 1/2048 s are exact in binary: no drift in clock sums
    with Publisher("burst", clock=clock) as publisher:
        channel = publisher.channel(sink, rate=rate)
        for value in range(20_000):
            channel.submit("pod", value)
            clock.step(1 / 2048)
            if value % 256 == 255:  # once per interval, let the publisher catch up
                wait_until(lambda: channel.pending() == 0 or clock.has_waiters(),
                           what="the publisher to publish or wait for its next slot")
        duration = clock.now()
        clock.step(1.0)  # let the trailing batch out
        wait_until(lambda: channel.pending() == 0, what="the trailing batch")
    times = [t for t, _ in sink.batches]
    assert duration * rate / 2 <= len(times) <= duration * rate + 1
    assert all(b - a >= 1 / rate for a, b in itertools.pairwise(times))
    assert sink.state == {"pod": 19_999}
    values = [batch["pod"] for _, batch in sink.batches]
    assert values == sorted(values) and len(set(values)) == len(values)
    stats = channel.stats()
    assert stats["submitted"] == 20_000 and stats["published"] == len(times)
    assert stats["coalesced"] == 20_000 - len(times)


def test_burst_from_many_threads_real_clock_bounded_and_final() -> None:
    """Four threads flood four keys as fast as they can; the batch count stays within the
    rate bound of the elapsed time and every key ends on its thread's last value."""
    sink = Recorder()
    rate = 20.0
    publisher = Publisher("flood").start()
    channel = publisher.channel(sink, rate=rate)
    start = time.monotonic()

    def flood(key: int) -> None:
        for value in range(5_000):
            channel.submit(key, value)

    threads = [threading.Thread(target=flood, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    publisher.stop()
    elapsed = time.monotonic() - start
    assert sink.state == {0: 4_999, 1: 4_999, 2: 4_999, 3: 4_999}
    # the stop() flush is the one batch allowed outside the rate
    assert sink.count() <= elapsed * rate + 2


def test_flush_and_the_publisher_thread_never_reorder_batches() -> None:
    sink = Recorder()
    publisher = Publisher("order").start()
    channel = publisher.channel(sink, rate=1000)
    done = threading.Event()

    def produce() -> None:
        for value in range(3_000):
            channel.submit("k", value)
        done.set()

    producer = threading.Thread(target=produce)
    producer.start()
    while not done.is_set():
        channel.flush()
    producer.join()
    publisher.stop()
    values = [batch["k"] for _, batch in sink.batches]
    assert values == sorted(values) and values[-1] == 2_999


def test_merge_can_drop_a_key() -> None:
    def cancel_out(previous: Any, new: Any) -> Any:
        return DROP if previous == "add" and new == "delete" else new

    publisher = Publisher("merge", clock=FakeClock())
    sink = Recorder()
    channel = publisher.channel(sink, merge=cancel_out)
    channel.submit("a", "add")
    channel.submit("a", "delete")
    channel.submit("b", "add")
    channel.flush()
    assert sink.batches[0][1] == {"b": "add"}
    publisher.stop()


def test_a_sink_that_raises_is_logged_without_the_batch_and_publishing_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    calls: list[dict[Any, Any]] = []

    def flaky(batch: dict[Any, Any]) -> None:
        calls.append(batch)
        if len(calls) == 1:
            raise RuntimeError("widget gone")

    publisher = Publisher("flaky", clock=FakeClock())
    channel = publisher.channel(flaky, name="secrets-view")
    with caplog.at_level(logging.ERROR, logger="kubenb.reactive.publisher"):
        channel.submit("s", {"data": {"password": "hunter2"}})
        channel.flush()
    channel.submit("s", 2)
    channel.flush()
    assert len(calls) == 2 and calls[1] == {"s": 2}
    assert channel.stats()["sink_errors"] == 1
    assert "RuntimeError: widget gone" in channel.last_error
    assert "secrets-view" in caplog.text and "hunter2" not in caplog.text
    publisher.stop()


def test_stop_publishes_what_is_pending_joins_and_refuses_new_work() -> None:
    clock = FakeClock()
    sink = Recorder(clock)
    publisher = Publisher("stop", clock=clock).start()
    channel = publisher.channel(sink, rate=1.0)
    channel.submit("k", 1)
    wait_until(lambda: sink.count() == 1, what="first batch")
    channel.submit("k", 2)
    wait_until(clock.has_waiters, what="rate wait")
    publisher.stop()  # no clock step: the final state still gets out
    assert sink.state == {"k": 2}
    assert channel.closed
    channel.submit("k", 3)  # a late informer event is dropped, not an error
    assert channel.pending() == 0 and sink.state == {"k": 2}
    with pytest.raises(PublisherError, match="stopped"):
        publisher.channel(sink)
    with pytest.raises(PublisherError, match="cannot start again"):
        publisher.start()
    publisher.stop()  # twice is fine


def test_stop_without_flush_drops_pending() -> None:
    sink = Recorder()
    publisher = Publisher("drop", clock=FakeClock())
    channel = publisher.channel(sink)
    channel.submit("k", 1)
    publisher.stop(flush=False)
    assert sink.count() == 0


def test_stop_from_inside_a_sink_does_not_deadlock() -> None:
    publisher = Publisher("self-stop").start()
    seen: list[dict[Any, Any]] = []

    def sink(batch: dict[Any, Any]) -> None:
        seen.append(batch)
        publisher.stop()

    channel = publisher.channel(sink)
    channel.submit("k", 1)
    wait_until(lambda: not publisher.is_running() and seen, what="the publisher to stop")
    assert seen == [{"k": 1}]


def test_each_channel_has_its_own_rate() -> None:
    clock = FakeClock()
    fast, slow = Recorder(clock), Recorder(clock)
    with Publisher("two", clock=clock) as publisher:
        fast_channel = publisher.channel(fast, rate=8)
        slow_channel = publisher.channel(slow, rate=2)
        for step in range(8):  # one clock second, an update to both every 1/8 s
            fast_channel.submit("k", step)
            slow_channel.submit("k", step)
            wait_until(lambda: fast_channel.pending() == 0, what="fast channel batch")

            def settled() -> bool:
                # The slow channel either waits for its turn on the clock, or was
                # published in this round and its sink has run (it records clock time).
                if slow_channel.pending():
                    return clock.has_waiters()
                return slow.count() == slow_channel.stats()["batches"]

            wait_until(settled, what="the publisher to publish or wait for the slow one")
            clock.step(0.125)
        wait_until(lambda: slow_channel.pending() == 0, what="slow channel batch")
    assert fast.count() == 8
    assert [t for t, _ in slow.batches] == [0.0, 0.5, 1.0]
    assert slow.state == {"k": 7}


@pytest.mark.parametrize("rate", [0, -1, float("nan")])
def test_a_rate_must_be_positive(rate: float) -> None:
    publisher = Publisher("bad", clock=FakeClock())
    with pytest.raises(PublisherError, match="rate must be > 0"):
        publisher.channel(lambda batch: None, rate=rate, name="pods")
    with pytest.raises(PublisherError, match="sink must be callable"):
        publisher.channel("not a function")  # type: ignore[arg-type]
    publisher.stop()


def test_hold_sync_sink_sends_one_widget_message_per_batch() -> None:
    progress = ipywidgets.IntProgress(min=0, max=10)
    sent: list[Any] = []
    original = progress.send_state

    def count_send_state(key: Any = None) -> None:
        sent.append(set(key) if isinstance(key, set) else key)  # hold_sync clears it
        original(key)

    progress.send_state = count_send_state  # type: ignore[method-assign]

    def apply(batch: dict[str, int]) -> None:
        progress.max = batch["max"]
        progress.value = batch["value"]
        progress.description = "pods"

    publisher = Publisher("widget", clock=FakeClock())
    channel = publisher.channel(hold_sync_sink(progress, apply))
    channel.submit_many([("max", 100), ("value", 40)])
    channel.flush()
    assert len(sent) == 1 and set(sent[0]) >= {"max", "value", "description"}
    assert (progress.max, progress.value) == (100, 40)
    publisher.stop()
    with pytest.raises(PublisherError, match="hold_sync"):
        hold_sync_sink(object(), apply)


def test_a_closed_channel_lets_go_of_its_sink() -> None:
    # A view's sink is its own bound method and the view holds its channel: kept, that
    # cycle would hold a closed view (and its informer's cache) until a full collection.
    with collector(False):
        publisher = Publisher("release", clock=FakeClock())
        sink = Recorder()
        channel = publisher.channel(sink)
        channel.submit("k", 1)
        channel.close()  # flushes first
        assert sink.state == {"k": 1}
        ref = weakref.ref(sink)
        del sink
        assert ref() is None
        channel.submit("k", 2)  # dropped, as before
        assert channel.flush() == 0
        publisher.stop()
