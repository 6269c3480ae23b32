"""Workqueue metrics: spec section O (behaviours 128-130) and the snapshot."""

from __future__ import annotations

import threading

import pytest

from kubenb.workqueue import metrics as metrics_mod
from kubenb.workqueue.delaying import DelayingQueue
from kubenb.workqueue.metrics import (
    InProcessMetricsProvider,
    InProcessSummary,
    MetricsProvider,
    MetricsSnapshot,
    NoopMetricsProvider,
    SummarySnapshot,
    get_provider,
    set_provider,
)
from kubenb.workqueue.queue import UPDATER_LINGER, Queue
from tests.workqueue.conftest import wait_until, workqueue_threads


class RecordingMetric:
    """Like client-go's testMetric: counts inc/dec, keeps the last set and observation."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inc_count = 0
        self.dec_count = 0
        self.set_value: float | None = None
        self.set_calls = 0
        self.observed: list[float] = []
        self.changed = threading.Event()

    def inc(self) -> None:
        with self.lock:
            self.inc_count += 1

    def dec(self) -> None:
        with self.lock:
            self.dec_count += 1

    def set(self, value: float) -> None:
        with self.lock:
            self.set_value = value
            self.set_calls += 1
        self.changed.set()

    def observe(self, value: float) -> None:
        with self.lock:
            self.observed.append(value)

    @property
    def gauge(self) -> float:
        return self.inc_count - self.dec_count


class RecordingProvider:
    """A foreign provider (think Prometheus): kubenb cannot read its metrics back."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.depth = RecordingMetric()
        self.adds = RecordingMetric()
        self.latency = RecordingMetric()
        self.duration = RecordingMetric()
        self.unfinished = RecordingMetric()
        self.longest = RecordingMetric()
        self.retries = RecordingMetric()

    def _made(self, what: str, name: str, metric: RecordingMetric) -> RecordingMetric:
        self.calls.append((what, name))
        return metric

    def new_depth_metric(self, name):
        return self._made("depth", name, self.depth)

    def new_adds_metric(self, name):
        return self._made("adds", name, self.adds)

    def new_latency_metric(self, name):
        return self._made("latency", name, self.latency)

    def new_work_duration_metric(self, name):
        return self._made("work_duration", name, self.duration)

    def new_unfinished_work_seconds_metric(self, name):
        return self._made("unfinished_work_seconds", name, self.unfinished)

    def new_longest_running_processor_seconds_metric(self, name):
        return self._made("longest_running_processor_seconds", name, self.longest)

    def new_retries_metric(self, name):
        return self._made("retries", name, self.retries)


ALL_SEVEN = {
    "depth",
    "adds",
    "latency",
    "work_duration",
    "unfinished_work_seconds",
    "longest_running_processor_seconds",
    "retries",
}


def new_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in workqueue_threads() if t not in before]


# --- O128 ------------------------------------------------------------------------------


def test_o128_unnamed_queue_records_nothing_and_starts_no_thread(clock, cleanup):
    rec = RecordingProvider()
    before = set(workqueue_threads())
    q = cleanup(Queue(clock=clock, metrics_provider=rec))
    assert new_threads(before) == []
    q.add("foo")
    q.get()
    q.done("foo")
    assert rec.calls == []
    assert rec.adds.inc_count == 0
    snap = q.metrics()
    assert snap.enabled is False
    assert (snap.name, snap.adds, snap.latency.count) == ("", 0, 0)


def test_o128_noop_provider_records_nothing_and_starts_no_thread(clock, cleanup):
    before = set(workqueue_threads())
    q = cleanup(Queue(name="noop-q", clock=clock, metrics_provider=NoopMetricsProvider()))
    assert new_threads(before) == []
    q.add("foo")
    assert q.metrics() == MetricsSnapshot(name="noop-q", enabled=False, depth=1)


def test_o128_named_queue_with_real_provider_records_and_runs_updater(clock, provider):
    before = set(workqueue_threads())
    q = Queue(name="named-q", clock=clock, metrics_provider=provider)
    assert new_threads(before) == []  # the updater starts with the first item handed out
    q.add("foo")
    q.get()
    threads = new_threads(before)
    assert [t.name for t in threads] == ["kubenb-workqueue-metrics-named-q"]
    assert all(t.daemon for t in threads)
    assert q.metrics().enabled is True
    assert q.metrics().adds == 1
    assert provider.names() == ["named-q"]
    q.shut_down()
    assert not threads[0].is_alive()


def test_o128_provider_interface_has_the_seven_constructors(clock, cleanup):
    rec = RecordingProvider()
    assert isinstance(rec, MetricsProvider)
    assert isinstance(InProcessMetricsProvider(), MetricsProvider)
    assert isinstance(NoopMetricsProvider(), MetricsProvider)
    cleanup(DelayingQueue(name="seven", clock=clock, metrics_provider=rec))
    assert {what for what, _ in rec.calls} == ALL_SEVEN
    assert {name for _, name in rec.calls} == {"seven"}


def test_o128_retries_metric_exists_for_named_delaying_queue_only(clock, cleanup):
    plain = RecordingProvider()
    cleanup(Queue(name="plain", clock=clock, metrics_provider=plain))
    assert "retries" not in {what for what, _ in plain.calls}

    delaying = RecordingProvider()
    q = cleanup(DelayingQueue(name="delaying", clock=clock, metrics_provider=delaying))
    q.add_after("x", 1.0)
    assert delaying.retries.inc_count == 1
    assert q.metrics().retries == 1  # read from the queue's own copy


def test_o128_set_provider_only_first_call_counts_for_later_queues(clock, monkeypatch, cleanup):
    monkeypatch.setattr(metrics_mod, "_global_provider", InProcessMetricsProvider())
    monkeypatch.setattr(metrics_mod, "_provider_set", False)
    early = cleanup(Queue(name="early", clock=clock))

    first, second = RecordingProvider(), RecordingProvider()
    set_provider(first)
    set_provider(second)  # ignored
    assert get_provider() is first

    late = cleanup(Queue(name="late", clock=clock))
    early.add("a")
    late.add("b")
    assert first.calls and {name for _, name in first.calls} == {"late"}
    assert second.calls == []
    assert first.adds.inc_count == 1  # only the queue created after set_provider
    assert early.metrics().adds == 1  # early keeps the provider it was created with


def test_o128_default_global_provider_keeps_numbers_in_process():
    # kubenb differs from client-go here on purpose (see tests/workqueue/README.md).
    assert isinstance(get_provider(), (InProcessMetricsProvider, RecordingProvider))


# --- O129 ------------------------------------------------------------------------------


def test_o129_exact_metric_accounting(clock):
    rec = RecordingProvider()
    q = Queue(name="test", clock=clock, metrics_provider=rec, unfinished_work_update_period=0.001)
    try:
        q.add("foo")
        assert (rec.adds.inc_count, rec.depth.gauge) == (1, 1)
        clock.step(50e-6)

        item, _ = q.get()
        assert item == "foo"
        assert rec.latency.observed == [5e-05]
        # Something is processing: the updater runs on the clock now.
        wait_until(clock.has_waiters, what="the updater to wait on the clock")

        for _ in range(5):  # re-added while processing: de-duplicated
            q.add(item)
        assert rec.adds.inc_count == 2
        assert rec.depth.gauge == 1
        assert len(q) == 0  # dirty, not queued

        clock.step(25e-6)
        q.done(item)
        assert rec.duration.observed == [2.5e-05]
        assert rec.depth.gauge == 1

        item, _ = q.get()
        assert item == "foo"
        assert rec.latency.observed == [5e-05, 2.5e-05]

        clock.step(0.001)
        wait_until(lambda: rec.longest.set_value is not None, what="the unfinished-work update")
        assert rec.unfinished.set_value == 0.001
        assert rec.longest.set_value == 0.001

        q.done(item)
        assert rec.duration.observed == [2.5e-05, 0.001]

        snap = q.metrics()  # the same numbers, read back through the snapshot
        assert snap.enabled is True
        assert (snap.name, snap.adds, snap.depth, snap.retries) == ("test", 2, 0, 0)
        assert snap.unfinished_work_seconds == 0.001
        assert snap.longest_running_processor_seconds == 0.001
        assert (snap.latency.count, snap.latency.last) == (2, 2.5e-05)
        assert snap.latency.sum == pytest.approx(7.5e-05)  # a float sum, not exact
        assert (snap.work_duration.count, snap.work_duration.last) == (2, 0.001)
        assert (snap.work_duration.min, snap.work_duration.max) == (2.5e-05, 0.001)
    finally:
        q.shut_down()


def test_o129_unfinished_work_sums_ages_and_longest_is_the_oldest(clock, provider):
    q = Queue(name="ages", clock=clock, metrics_provider=provider, unfinished_work_update_period=1)
    try:
        q.add("a")
        q.get()
        wait_until(clock.has_waiters)
        clock.step(0.25)
        q.add("b")
        q.get()
        clock.step(0.75)  # a is 1 s old, b 0.75 s: the updater fires at t=1
        wait_until(lambda: q.metrics().longest_running_processor_seconds == 1.0)
        snap = q.metrics()
        assert snap.unfinished_work_seconds == 1.75
        q.done("a")
        q.done("b")
        clock.step(1.0)
        wait_until(lambda: q.metrics().unfinished_work_seconds == 0.0)
        assert q.metrics().longest_running_processor_seconds == 0.0
    finally:
        q.shut_down()


def test_o129_unnamed_queue_depth_counts_dirty_items(clock):
    q = Queue(clock=clock)
    q.add("a")
    q.add("b")
    q.get()
    q.add("a")  # dirty while processing: in depth, not in len
    snap = q.metrics()
    assert (snap.depth, len(q)) == (2, 1)


# --- O130 ------------------------------------------------------------------------------


def test_o130_unfinished_work_loop_stops_at_shutdown(clock):
    rec = RecordingProvider()
    before = set(workqueue_threads())
    q = Queue(name="stop", clock=clock, metrics_provider=rec, unfinished_work_update_period=0.001)
    q.add("busy")
    q.get()  # processing: the updater runs on the clock
    (updater,) = new_threads(before)
    wait_until(clock.has_waiters, what="the updater to wait on the clock")
    clock.step(0.001)
    assert rec.unfinished.changed.wait(5)
    wait_until(clock.has_waiters, what="the updater to park again")
    calls = rec.unfinished.set_calls
    assert calls == 1

    q.shut_down()
    assert not updater.is_alive()
    assert not clock.has_waiters()
    clock.step(3600)
    assert rec.unfinished.set_calls == calls


def test_o130_the_updater_sleeps_off_the_clock_while_nothing_is_processing(clock):
    """An idle queue wakes nothing; the gauges read 0 once the last item is done."""
    rec = RecordingProvider()
    q = Queue(name="idle", clock=clock, metrics_provider=rec, unfinished_work_update_period=1)
    try:
        assert not clock.has_waiters()
        q.add("a")
        q.get()
        wait_until(clock.has_waiters, what="the updater to wait on the clock")
        clock.step(1)
        wait_until(lambda: rec.unfinished.set_value == 1.0, what="the first update")
        q.done("a")
        clock.step(1)  # the next tick sees nothing processing: 0, and off the clock
        wait_until(lambda: rec.unfinished.set_value == 0.0 and not clock.has_waiters(),
                   what="the updater to sleep")
        calls = rec.unfinished.set_calls
        clock.step(3600)
        assert rec.unfinished.set_calls == calls
        q.add("b")
        q.get()  # wakes it
        wait_until(clock.has_waiters, what="the updater to wait on the clock again")
    finally:
        q.shut_down()


def test_the_updater_ends_after_lingering_idle_and_the_next_get_starts_another(clock):
    """A queue with nothing processing holds no thread for long; work brings one back."""
    rec = RecordingProvider()
    q = Queue(name="linger", clock=clock, metrics_provider=rec, unfinished_work_update_period=1)
    try:
        def updaters() -> list[threading.Thread]:
            return [t for t in threading.enumerate()
                    if t.name == "kubenb-workqueue-metrics-linger"]

        q.add("a")
        q.get()
        first = updaters()
        assert len(first) == 1
        wait_until(clock.has_waiters, what="the updater to wait on the clock")
        q.done("a")
        clock.step(1)  # its next tick finds nothing processing: it parks, then ends
        wait_until(lambda: not first[0].is_alive(), timeout=UPDATER_LINGER * 10,
                   what="the idle updater to end")
        assert updaters() == []
        q.add("b")
        q.get()
        wait_until(clock.has_waiters, what="a new updater to wait on the clock")
        assert len(updaters()) == 1 and updaters()[0] is not first[0]
        clock.step(1)
        wait_until(lambda: rec.unfinished.set_value == 1.0, what="the new updater's update")
    finally:
        q.shut_down()
    assert updaters() == []


def test_shut_down_racing_the_first_get_leaves_no_updater(clock):
    for round_ in range(50):
        q = Queue(name=f"race-{round_}", clock=clock, metrics_provider=RecordingProvider())
        q.add("a")
        getter = threading.Thread(target=q.get)
        getter.start()
        q.shut_down()
        getter.join()
        assert not [t for t in threading.enumerate()
                    if t.name == f"kubenb-workqueue-metrics-race-{round_}"]


def test_o130_update_period_must_be_positive(clock):
    with pytest.raises(ValueError, match="unfinished_work_update_period"):
        Queue(name="bad", clock=clock, unfinished_work_update_period=0)


# --- the snapshot ----------------------------------------------------------------------


def test_summary_snapshot_quantiles_and_mean():
    summary = InProcessSummary(recent=100)
    assert summary.snapshot() == SummarySnapshot()
    assert SummarySnapshot().mean is None
    for value in range(1, 101):
        summary.observe(value / 100)
    snap = summary.snapshot()
    assert (snap.count, snap.min, snap.max, snap.last) == (100, 0.01, 1.0, 1.0)
    assert snap.sum == pytest.approx(50.5)
    assert snap.mean == pytest.approx(0.505)
    assert (snap.p50, snap.p90, snap.p99) == (0.51, 0.9, 0.99)


def test_summary_quantiles_follow_recent_observations_only():
    summary = InProcessSummary(recent=10)
    for _ in range(100):
        summary.observe(100.0)
    for _ in range(10):
        summary.observe(1.0)
    snap = summary.snapshot()
    assert (snap.count, snap.max, snap.p99) == (110, 100.0, 1.0)


def test_snapshot_as_dict_is_flat_for_a_dataframe_row(clock, provider):
    q = DelayingQueue(name="flat", clock=clock, metrics_provider=provider)
    try:
        q.add("a")
        row = q.metrics().as_dict()
    finally:
        q.shut_down()
    assert row["name"] == "flat"
    assert row["depth"] == 1
    assert row["latency_count"] == 0
    assert "work_duration_p99" in row
    assert all(not isinstance(v, dict) for v in row.values())


def test_in_process_provider_lists_queues_and_snapshots_by_name(clock, provider):
    q1 = Queue(name="one", clock=clock, metrics_provider=provider)
    q2 = DelayingQueue(name="two", clock=clock, metrics_provider=provider)
    try:
        q1.add("x")
        q2.add_after("y", 0)
        assert provider.names() == ["one", "two"]
        assert provider.snapshot("one").adds == 1
        assert provider.snapshot("two").retries == 1
        assert provider.snapshot("two") == q2.metrics()
        with pytest.raises(KeyError):
            provider.snapshot("three")
    finally:
        q1.shut_down()
        q2.shut_down()
