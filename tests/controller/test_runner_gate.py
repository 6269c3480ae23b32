"""The workers' gate: pause() holds a running controller's workers before they take a
key (the keys stay queued), step(n) lets exactly n through, resume() opens it, and
stop() never leaves a worker waiting at it."""

from __future__ import annotations

import threading

import pytest

from kubenb.clock import FakeClock
from kubenb.controller import Controller
from kubenb.controller.runner import ControllerStateError
from kubenb.errors import KubenbError
from tests.helpers import assert_no_new_threads, wait_until


class Gatekeeper:
    """A reconcile that records its calls, counts keys held at once, and (with
    `hold`) blocks each call until `release` is set."""

    def __init__(self, hold: bool = False) -> None:
        self.calls: list[str] = []
        self.lock = threading.Lock()
        self.active: list[str] = []
        self.overlap: list[str] = []  # a key seen in two workers at once
        self.max_active = 0
        self.hold = hold
        self.release = threading.Event()

    def __call__(self, key: str) -> None:
        with self.lock:
            if key in self.active:
                self.overlap.append(key)
            self.active.append(key)
            self.calls.append(key)
            self.max_active = max(self.max_active, len(self.active))
        try:
            if self.hold:
                assert self.release.wait(30), "the test never released the reconcile"
        finally:
            with self.lock:
                self.active.remove(key)

    def count(self) -> int:
        with self.lock:
            return len(self.calls)


def parked(ctrl: Controller, n: int) -> None:
    wait_until(lambda: ctrl.parked_workers == n, 30, what=f"{n} worker(s) at the gate")


def test_paused_workers_take_no_key_and_the_keys_stay_queued(clock: FakeClock) -> None:
    rec = Gatekeeper()
    ctrl = Controller("gate-paused", rec, workers=2, clock=clock)
    ctrl.pause()
    assert ctrl.paused
    ctrl.run()
    try:
        parked(ctrl, 2)
        for key in ("ns/a", "ns/b", "ns/c"):
            ctrl.enqueue(key)
        # Every worker was woken by the adds and went back to the gate.
        parked(ctrl, 2)
        assert rec.count() == 0
        assert len(ctrl.queue) == 3
        assert ctrl.queue.processing_items() == []
        assert ctrl.metrics().reconciles == 0
    finally:
        ctrl.stop()


def test_pause_while_running_holds_back_the_next_key(clock: FakeClock) -> None:
    """Workers that were idle (not paused) when pause() came must not take a key."""
    rec = Gatekeeper()
    with Controller("gate-late", rec, workers=2, clock=clock) as ctrl:
        ctrl.run()
        ctrl.enqueue("ns/first")
        wait_until(lambda: ctrl.metrics().reconciles == 1, 30, what="the first reconcile")
        ctrl.pause()
        parked(ctrl, 2)
        ctrl.enqueue("ns/second")
        parked(ctrl, 2)
        assert rec.calls == ["ns/first"]
        assert len(ctrl.queue) == 1


def test_step_one_runs_exactly_one_reconcile(clock: FakeClock) -> None:
    rec = Gatekeeper()
    with Controller("gate-step", rec, workers=1, clock=clock) as ctrl:
        ctrl.pause()
        ctrl.run()
        parked(ctrl, 1)
        for key in ("ns/a", "ns/b", "ns/c"):
            ctrl.enqueue(key)
        ctrl.step()
        wait_until(lambda: ctrl.metrics().reconciles == 1, 30, what="one reconcile")
        parked(ctrl, 1)  # back at the gate: nothing more will run
        assert rec.calls == ["ns/a"]
        assert len(ctrl.queue) == 2
        assert ctrl.pending_steps == 0
        ctrl.step(1)
        wait_until(lambda: ctrl.metrics().reconciles == 2, 30, what="a second reconcile")
        parked(ctrl, 1)
        assert rec.calls == ["ns/a", "ns/b"]
        assert len(ctrl.queue) == 1


def test_step_three_with_several_workers_runs_exactly_three_in_parallel(
        clock: FakeClock) -> None:
    rec = Gatekeeper(hold=True)
    with Controller("gate-step3", rec, workers=4, clock=clock) as ctrl:
        ctrl.pause()
        ctrl.run()
        parked(ctrl, 4)
        for key in ("ns/a", "ns/b", "ns/c", "ns/d", "ns/e"):
            ctrl.enqueue(key)
        ctrl.step(3)
        # One worker each: three reconciles at once, the fourth worker stays parked.
        wait_until(lambda: len(rec.active) == 3, 30, what="three workers reconciling")
        parked(ctrl, 1)
        assert ctrl.pending_steps == 0
        rec.release.set()
        wait_until(lambda: ctrl.metrics().reconciles == 3, 30, what="three reconciles")
        parked(ctrl, 4)
        assert sorted(rec.calls) == ["ns/a", "ns/b", "ns/c"]
        assert rec.max_active == 3
        assert len(ctrl.queue) == 2


def test_a_key_is_never_in_two_workers_while_stepping(clock: FakeClock) -> None:
    """A key re-added while a worker reconciles it waits, even with steps to spare."""
    rec = Gatekeeper(hold=True)
    with Controller("gate-one-key", rec, workers=3, clock=clock) as ctrl:
        ctrl.pause()
        ctrl.run()
        parked(ctrl, 3)
        ctrl.enqueue("ns/a")
        ctrl.step(3)
        wait_until(lambda: rec.active == ["ns/a"], 30, what="ns/a reconciling")
        ctrl.enqueue("ns/a")  # dirty while processing: not handed out again yet
        ctrl.enqueue("ns/b")
        wait_until(lambda: rec.count() == 2, 30, what="ns/b taken by a second worker")
        assert ctrl.pending_steps == 1  # the third step waits for a key
        assert sorted(rec.active) == ["ns/a", "ns/b"]
        rec.release.set()
        wait_until(lambda: ctrl.metrics().reconciles == 3, 30, what="ns/a again")
        parked(ctrl, 3)
        assert sorted(rec.calls) == ["ns/a", "ns/a", "ns/b"]
        assert rec.overlap == []


def test_resume_opens_the_gate(clock: FakeClock) -> None:
    rec = Gatekeeper()
    with Controller("gate-resume", rec, workers=2, clock=clock) as ctrl:
        ctrl.pause()
        ctrl.run()
        parked(ctrl, 2)
        for key in ("ns/a", "ns/b", "ns/c"):
            ctrl.enqueue(key)
        ctrl.resume()
        assert not ctrl.paused
        wait_until(lambda: ctrl.metrics().reconciles == 3, 30, what="every queued key")
        assert sorted(rec.calls) == ["ns/a", "ns/b", "ns/c"]
        # a worker woken by resume() leaves the gate when it next runs: the other one
        # may have taken all three keys by then
        wait_until(lambda: ctrl.parked_workers == 0, 30, what="no worker left at the gate")
        assert not ctrl.paused


def test_stop_while_paused_leaves_no_thread_and_does_not_drain() -> None:
    before = set(threading.enumerate())
    rec = Gatekeeper()
    ctrl = Controller("gate-stop", rec, workers=3, clock=FakeClock())
    ctrl.pause()
    ctrl.run()
    parked(ctrl, 3)
    ctrl.enqueue("ns/a")
    ctrl.enqueue("ns/b")
    parked(ctrl, 3)
    ctrl.stop()
    assert_no_new_threads(before)
    assert rec.calls == []
    assert ctrl.parked_workers == 0
    assert ctrl.paused  # the pause outlives the run


def test_stop_while_a_stepped_key_reconciles_finishes_it_and_leaves_no_thread() -> None:
    before = set(threading.enumerate())
    rec = Gatekeeper(hold=True)
    ctrl = Controller("gate-stop-step", rec, workers=2, clock=FakeClock())
    ctrl.pause()
    ctrl.run()
    parked(ctrl, 2)
    ctrl.enqueue("ns/a")
    ctrl.enqueue("ns/b")
    ctrl.step()
    wait_until(lambda: rec.active == ["ns/a"], 30, what="ns/a reconciling")
    stopper = threading.Thread(target=ctrl.stop, name="test-stopper")
    stopper.start()
    wait_until(lambda: not ctrl.is_running(), 30, what="stop() under way")
    rec.release.set()
    stopper.join(30)
    assert not stopper.is_alive()
    assert_no_new_threads(before)
    assert rec.calls == ["ns/a"]


def test_paused_controller_runs_again_paused_and_run_until_idle_ignores_the_gate(
        clock: FakeClock) -> None:
    rec = Gatekeeper()
    with Controller("gate-idle", rec, workers=1, clock=clock) as ctrl:
        ctrl.pause()
        ctrl.enqueue("ns/a")
        assert ctrl.run_until_idle(quiet=0) == 1  # documented: its workers pass the gate
        assert ctrl.paused
        ctrl.run()
        parked(ctrl, 1)
        ctrl.enqueue("ns/b")
        parked(ctrl, 1)
        assert rec.calls == ["ns/a"]
        ctrl.resume()
        wait_until(lambda: rec.count() == 2, 30, what="ns/b after resume")


def test_step_needs_a_pause_and_a_positive_count(clock: FakeClock) -> None:
    ctrl = Controller("gate-errors", lambda key: None, clock=clock)
    with pytest.raises(ControllerStateError, match=r"is not paused: .* pause\(\) it first"):
        ctrl.step()
    ctrl.pause()
    for bad in (0, -1, 1.5, True):
        with pytest.raises(KubenbError, match="step\\(n\\) needs an int n >= 1"):
            ctrl.step(bad)  # type: ignore[arg-type]
    ctrl.step(2)
    assert ctrl.pending_steps == 2
    ctrl.resume()
    assert ctrl.pending_steps == 0
