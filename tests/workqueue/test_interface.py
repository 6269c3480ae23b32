"""The workqueue protocols: kubenb's queues fit them, and so does any object with the
same methods (what the controller and the views accept)."""

from __future__ import annotations

from kubenb.clock import FakeClock
from kubenb.workqueue import (
    DelayingInterface,
    DelayingQueue,
    Interface,
    Queue,
    RateLimitingInterface,
    RateLimitingQueue,
)


def test_each_queue_fits_its_interface_and_no_richer_one(cleanup):
    clock = FakeClock()
    plain = cleanup(Queue())
    delaying = cleanup(DelayingQueue(clock=clock))
    limited = cleanup(RateLimitingQueue(clock=clock))
    assert isinstance(plain, Interface) and not isinstance(plain, DelayingInterface)
    assert isinstance(delaying, DelayingInterface)
    assert not isinstance(delaying, RateLimitingInterface)
    assert isinstance(limited, RateLimitingInterface)


class _Recorded:
    """A stand-in queue, as a test of a controller might write one."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def add(self, item): self.calls.append(f"add {item}")
    def __len__(self): return 0
    def get(self): return None, True
    def done(self, item): self.calls.append(f"done {item}")
    def shut_down(self): pass
    def shut_down_with_drain(self): pass
    def shutting_down(self): return True
    def add_after(self, item, seconds): pass
    def add_rate_limited(self, item): pass
    def forget(self, item): pass
    def num_requeues(self, item): return 0


def test_a_look_alike_fits_the_rate_limiting_interface():
    assert isinstance(_Recorded(), RateLimitingInterface)
    assert not isinstance(object(), Interface)
