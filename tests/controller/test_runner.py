"""The reconcile runner: what each reconcile outcome does to the key, client-go's backoff
on a FakeClock, one key never in two workers, parallel workers, stop/drain, metrics."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import pytest

from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.clock import FakeClock
from kubenb.controller import (
    Controller,
    IdleTimeout,
    Result,
    controller_of,
    enqueue_key,
    enqueue_owner,
)
from kubenb.controller.runner import ControllerStateError
from kubenb.errors import KubenbError
from kubenb.workqueue import ItemExponentialFailureRateLimiter
from tests.helpers import wait_until


class Recorder:
    """A reconcile function that records (key, clock time) and plays a script."""

    def __init__(self, clock: FakeClock, script=None) -> None:
        self.clock = clock
        self.calls: list[tuple[str, float]] = []
        self.script = list(script or [])
        self.lock = threading.Lock()

    def __call__(self, key: str):
        with self.lock:
            self.calls.append((key, self.clock.now()))
            outcome = self.script.pop(0) if self.script else None
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def times(self) -> list[float]:
        return [round(t, 6) for _, t in self.calls]


def test_none_forgets_the_key(clock: FakeClock) -> None:
    rec = Recorder(clock)
    with Controller("c", rec, clock=clock) as ctrl:
        ctrl.enqueue("ns/a")
        ctrl.enqueue("ns/a")  # collapsed while queued
        assert ctrl.run_until_idle(quiet=0) == 1
        assert rec.calls == [("ns/a", 0.0)]
        assert ctrl.queue.num_requeues("ns/a") == 0
        m = ctrl.metrics()
        assert (m.reconciles, m.successes, m.errors) == (1, 1, 0)


def test_raising_reconcile_is_retried_with_client_go_backoff(clock: FakeClock, caplog) -> None:
    """Default controller rate limiter: 5 ms, 10 ms, 20 ms, ... per failure of one key."""
    rec = Recorder(clock, [RuntimeError("boom")] * 4)
    with Controller("backoff", rec, clock=clock) as ctrl:
        ctrl.enqueue("ns/a")
        with caplog.at_level(logging.ERROR, logger="kubenb.controller"):
            assert ctrl.run_until_idle(quiet=0) == 1
        assert "error syncing 'ns/a': boom, requeuing" in caplog.text
        assert ctrl.queue.num_requeues("ns/a") == 1

        clock.step(0.004)  # not due yet
        assert ctrl.run_until_idle(quiet=0) == 0
        for step, expected in [(0.001, 0.005), (0.010, 0.015), (0.020, 0.035),
                               (0.040, 0.075)]:
            clock.step(step)
            assert ctrl.run_until_idle(quiet=0) == 1
            assert rec.times()[-1] == expected
        # The 5th try succeeded: forgotten, so the next failure starts at 5 ms again.
        assert rec.times() == [0.0, 0.005, 0.015, 0.035, 0.075]
        assert ctrl.queue.num_requeues("ns/a") == 0
        m = ctrl.metrics()
        assert (m.reconciles, m.errors, m.successes, m.dropped) == (5, 4, 1, 0)
        assert m.last_error == "ns/a: RuntimeError: boom"
        assert ctrl.recent_errors()[0] == ("ns/a", "RuntimeError: boom")


def test_max_retries_drops_the_key_with_a_log_line(clock: FakeClock, caplog) -> None:
    limiter = ItemExponentialFailureRateLimiter(1.0, 60.0)
    rec = Recorder(clock, [ValueError("bad spec")] * 10)
    with Controller("drop", rec, max_retries=2, rate_limiter=limiter, clock=clock) as ctrl:
        ctrl.enqueue("ns/a")
        with caplog.at_level(logging.ERROR, logger="kubenb.controller"):
            ctrl.run_until_idle(quiet=0)
            clock.step(1.0)
            ctrl.run_until_idle(quiet=0)
            clock.step(2.0)
            ctrl.run_until_idle(quiet=0)
            clock.step(100.0)
            assert ctrl.run_until_idle(quiet=0) == 0
        assert rec.times() == [0.0, 1.0, 3.0]  # the first try plus max_retries retries
        assert "dropping 'ns/a' out of the queue after 2 retries: bad spec" in caplog.text
        assert ctrl.queue.num_requeues("ns/a") == 0
        assert ctrl.metrics().dropped == 1


def test_result_requeue_uses_the_rate_limiter(clock: FakeClock) -> None:
    rec = Recorder(clock, [Result(requeue=True), Result(requeue=True), None])
    with Controller("rq", rec, clock=clock) as ctrl:
        ctrl.enqueue("k")
        ctrl.run_until_idle(quiet=0)
        assert ctrl.queue.num_requeues("k") == 1
        clock.step(0.005)
        ctrl.run_until_idle(quiet=0)
        clock.step(0.010)
        ctrl.run_until_idle(quiet=0)
        assert rec.times() == [0.0, 0.005, 0.015]
        m = ctrl.metrics()
        assert (m.requeues, m.successes, m.errors) == (2, 1, 0)
        assert ctrl.queue.num_requeues("k") == 0


def test_result_requeue_after_waits_and_resets_backoff(clock: FakeClock) -> None:
    rec = Recorder(clock, [RuntimeError("x"), Result(requeue_after=30), Result(
        requeue=True, requeue_after=timedelta(seconds=10)), None])
    with Controller("after", rec, clock=clock) as ctrl:
        ctrl.enqueue("k")
        ctrl.run_until_idle(quiet=0)
        clock.step(0.005)
        ctrl.run_until_idle(quiet=0)
        assert ctrl.queue.num_requeues("k") == 0  # requeue_after forgets
        clock.step(29.999)
        assert ctrl.run_until_idle(quiet=0) == 0
        clock.step(0.001)
        assert ctrl.run_until_idle(quiet=0) == 1
        clock.step(10.0)  # requeue_after wins over requeue
        assert ctrl.run_until_idle(quiet=0) == 1
        assert rec.times() == [0.0, 0.005, 30.005, 40.005]
        assert ctrl.metrics().requeues_after == 2


def test_a_non_result_return_is_an_error(clock: FakeClock, caplog) -> None:
    rec = Recorder(clock, [True])
    with Controller("bad", rec, clock=clock, max_retries=0) as ctrl:
        ctrl.enqueue("k")
        with caplog.at_level(logging.ERROR, logger="kubenb.controller"):
            ctrl.run_until_idle(quiet=0)
        assert "returned bool; it must return None or a kubenb.controller.Result" in caplog.text
        assert ctrl.metrics().errors == 1


def test_one_key_is_never_in_two_workers(clock: FakeClock) -> None:
    inside = threading.Event()
    release = threading.Event()
    active: list[str] = []
    overlaps: list[str] = []
    lock = threading.Lock()
    calls: list[str] = []

    def reconcile(key: str) -> None:
        with lock:
            if key in active:
                overlaps.append(key)
            active.append(key)
            calls.append(key)
        if len(calls) == 1:
            inside.set()
            assert release.wait(5)
        with lock:
            active.remove(key)

    ctrl = Controller("one", reconcile, workers=4, clock=clock).run()
    try:
        ctrl.enqueue("ns/a")
        assert inside.wait(5)
        for _ in range(5):
            ctrl.enqueue("ns/a")  # dirty while processing: comes back after done
        ctrl.enqueue("ns/b")
        wait_until(lambda: "ns/b" in calls, what="another key to run meanwhile")
        assert calls.count("ns/a") == 1
        release.set()
        wait_until(lambda: calls.count("ns/a") == 2, what="the re-added key to run again")
        ctrl.run_until_idle(quiet=0)
    finally:
        release.set()
        ctrl.stop()
    assert overlaps == []
    assert calls.count("ns/a") == 2


def test_four_workers_reconcile_four_keys_at_once(clock: FakeClock) -> None:
    barrier = threading.Barrier(4, timeout=5)
    seen: list[str] = []

    def reconcile(key: str) -> None:
        barrier.wait()  # passes only when 4 reconciles run at the same time
        seen.append(key)

    with Controller("par", reconcile, workers=4, clock=clock) as ctrl:
        for i in range(4):
            ctrl.enqueue(f"ns/{i}")
        assert ctrl.run_until_idle(quiet=0) == 4
        assert sorted(seen) == [f"ns/{i}" for i in range(4)]
        assert ctrl.metrics().errors == 0


def test_stop_drains_the_reconcile_in_hand_and_joins(clock: FakeClock) -> None:
    started = threading.Event()
    release = threading.Event()
    finished: list[str] = []

    def reconcile(key: str) -> None:
        started.set()
        release.wait(5)
        finished.append(key)

    ctrl = Controller("drain", reconcile, clock=clock).run()
    ctrl.enqueue("k")
    assert started.wait(5)
    stopper = threading.Thread(target=ctrl.stop)
    stopper.start()
    stopper.join(0.05)
    assert stopper.is_alive()  # waits for the reconcile in hand
    release.set()
    stopper.join(5)
    assert not stopper.is_alive()
    assert finished == ["k"]
    assert not ctrl.is_running()
    assert ctrl.queue.shutting_down()


def test_run_again_after_stop_starts_with_a_fresh_queue(clock: FakeClock) -> None:
    rec = Recorder(clock)
    ctrl = Controller("again", rec, clock=clock)
    ctrl.run()
    with pytest.raises(ControllerStateError, match="already running"):
        ctrl.run()
    ctrl.enqueue("a")
    ctrl.run_until_idle(quiet=0)  # waits for the background workers
    ctrl.stop()
    first = ctrl.queue
    ctrl.enqueue("b")  # a new queue takes keys again
    assert ctrl.queue is not first
    ctrl.run()
    ctrl.run_until_idle(quiet=0)
    ctrl.stop()
    assert [k for k, _ in rec.calls] == ["a", "b"]


def test_idle_timeout_says_what_is_still_running(clock: FakeClock) -> None:
    release = threading.Event()

    def reconcile(key: str) -> None:
        release.wait(5)

    with Controller("slow", reconcile, clock=clock) as ctrl:
        ctrl.enqueue("ns/slow")
        release_later = threading.Timer(0.3, release.set)
        release_later.start()
        with pytest.raises(IdleTimeout, match=r"not idle after 0.2s: 0 key\(s\) queued, 1 "
                                              r"reconciling: 'ns/slow'"):
            ctrl.run_until_idle(timeout=0.2)
        release_later.join()
        assert ctrl.metrics().reconciles == 1  # the workers were joined before raising


def test_bad_arguments_raise_kubenb_errors() -> None:
    with pytest.raises(KubenbError, match="workers must be an int >= 1"):
        Controller("x", lambda k: None, workers=0)
    with pytest.raises(KubenbError, match="reconcile must be callable"):
        Controller("x", "nope")  # type: ignore[arg-type]
    with pytest.raises(KubenbError, match="max_retries must be None or an int"):
        Controller("x", lambda k: None, max_retries=-1)
    with pytest.raises(KubenbError, match="requeue_after must be >= 0"):
        Result(requeue_after=-1)
    with pytest.raises(KubenbError, match="watch\\(\\) needs a shared informer"):
        Controller("x", lambda k: None).watch(object())
    with pytest.raises(KubenbError, match="enqueue_owner: kind"):
        enqueue_owner("")


def _deployment(owner_kind: str = "Foo", controller: bool = True,
                api_version: str = "samplecontroller.k8s.io/v1alpha1") -> dict:
    return {"metadata": {"name": "web", "namespace": "ns", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "other", "uid": "1"},
        {"apiVersion": api_version, "kind": owner_kind, "name": "example-foo", "uid": "2",
         "controller": controller}]}}


def test_enqueue_key_and_enqueue_owner_map_objects_to_keys() -> None:
    dep = _deployment()
    assert enqueue_key(dep) == "ns/web"
    assert enqueue_key(DeletedFinalStateUnknown("ns/gone", None)) == "ns/gone"
    assert controller_of(dep)["name"] == "example-foo"
    to_foo = enqueue_owner("Foo")
    assert to_foo(dep) == "ns/example-foo"
    assert to_foo(DeletedFinalStateUnknown("ns/web", dep)) == "ns/example-foo"
    assert to_foo(DeletedFinalStateUnknown("ns/web", None)) is None
    assert to_foo(_deployment(owner_kind="Bar")) is None
    assert to_foo(_deployment(controller=False)) is None  # an owner, but not the controller
    assert enqueue_owner("Foo", group="samplecontroller.k8s.io")(dep) == "ns/example-foo"
    assert enqueue_owner("Foo", group="example.com")(dep) is None


def _threads_of(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(f"kubenb-controller-{name}")]


@pytest.mark.parametrize("workers", [1, 3])
def test_n_workers_are_n_threads_and_stop_drains_what_is_queued(clock: FakeClock,
                                                                 workers: int) -> None:
    """The thread that leads the term is the first worker: `workers` threads in all.
    Stopping wakes it at once, and queued keys are still reconciled (also by a lone
    worker) before every thread ends."""
    release = threading.Event()
    done: list[str] = []

    def reconcile(key: str) -> None:
        release.wait(5)
        done.append(key)

    ctrl = Controller("lead", reconcile, clock=clock, workers=workers).run()
    wait_until(lambda: len(_threads_of("lead")) == workers, what=f"{workers} thread(s)")
    ctrl.run_until_idle(quiet=0)  # started, synced, nothing to do
    assert len(_threads_of("lead")) == workers
    for i in range(5):
        ctrl.enqueue(f"ns/{i}")
    stopper = threading.Thread(target=ctrl.stop)
    stopper.start()
    release.set()
    stopper.join(10)
    assert not stopper.is_alive()
    assert sorted(done) == [f"ns/{i}" for i in range(5)]
    assert _threads_of("lead") == []


def test_stopping_an_idle_controller_wakes_its_leading_worker(clock: FakeClock) -> None:
    """An idle worker waits for a key without a timeout worth the name (every change
    notifies it): stop() must wake it, not leave it to that safety net."""
    ctrl = Controller("idle-stop", Recorder(clock), clock=clock, workers=1).run()
    ctrl.run_until_idle(quiet=0)
    stopper = threading.Thread(target=ctrl.stop)
    stopper.start()
    stopper.join(10)  # far below the gate's 30 s safety net
    assert not stopper.is_alive()
    assert _threads_of("idle-stop") == []
