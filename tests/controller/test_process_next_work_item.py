"""Controller.process_next_work_item(): client-go's processNextWorkItem, one key by hand.

It gets the next key, reconciles it, forgets or requeues it as the result says and
marks it done, exactly as a worker does; it answers False once the queue is shut
down and empty. Time moves only by FakeClock steps.
"""

from __future__ import annotations

from kubenb.clock import FakeClock
from kubenb.controller import Controller, Result


def test_each_call_reconciles_the_next_key_in_order(clock: FakeClock) -> None:
    seen: list[str] = []
    with Controller("by-hand", seen.append, clock=clock) as ctrl:
        for key in ("ns/a", "ns/b"):
            ctrl.enqueue(key)
        assert ctrl.process_next_work_item()
        assert seen == ["ns/a"]
        assert ctrl.process_next_work_item()
        assert seen == ["ns/a", "ns/b"]
        look = ctrl.queue.snapshot()
        assert (look.queued, look.processing, look.waiting) == ((), frozenset(), ())
        m = ctrl.metrics()
        assert (m.reconciles, m.successes, m.active_workers) == (2, 2, 0)


def test_the_result_decides_forget_or_requeue(clock: FakeClock) -> None:
    outcomes = {"ns/ok": None, "ns/again": Result(requeue=True),
                "ns/later": Result(requeue_after=30), "ns/boom": RuntimeError("boom")}

    def reconcile(key: str) -> Result | None:
        outcome = outcomes[key]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    with Controller("outcomes", reconcile, clock=clock) as ctrl:
        for key in outcomes:
            ctrl.enqueue(key)
        for _ in outcomes:
            assert ctrl.process_next_work_item()
        queue = ctrl.queue
        assert queue.num_requeues("ns/ok") == 0
        assert queue.num_requeues("ns/again") == 1
        assert queue.num_requeues("ns/later") == 0  # a periodic re-check resets backoff
        assert queue.num_requeues("ns/boom") == 1
        m = ctrl.metrics()
        assert (m.successes, m.requeues, m.requeues_after, m.errors) == (1, 1, 1, 1)
        assert ctrl.recent_errors() == [("ns/boom", "RuntimeError: boom")]
        look = queue.snapshot()
        assert look.processing == frozenset()  # every key was marked done
        assert dict(look.waiting)["ns/later"] == 30.0


def test_false_once_the_queue_is_shut_down_and_empty(clock: FakeClock) -> None:
    seen: list[str] = []
    ctrl = Controller("shut", seen.append, clock=clock)
    ctrl.enqueue("ns/a")
    ctrl.queue.shut_down()
    assert ctrl.process_next_work_item()  # a shut-down queue still hands out what it holds
    assert not ctrl.process_next_work_item()
    assert seen == ["ns/a"]
    ctrl.stop()
