"""The Controller's teaching gate (pause / step / resume), its races pinned down.

Not in client-go; the notebooks' delta stepper (kubenb.widgets.stepper) rests on it:
every step applies exactly the item the queue showed next, and reports that item.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kubenb.cache.controller import Controller
from kubenb.cache.delta_fifo import DeltaFIFO
from kubenb.clock import FakeClock
from tests.cache.fake_source import FakeSource, name_of, pod
from tests.helpers import wait_until


class LatePop(DeltaFIFO):
    """A DeltaFIFO whose first `pop` waits for `release`: the loop has entered pop
    (unpaused) but its thread has not run yet, as under a busy GIL."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def pop(self, process: Any) -> Any:
        self.entered.set()
        assert self.release.wait(5)
        return super().pop(process)


@contextmanager
def process_loop(fifo: DeltaFIFO) -> Iterator[tuple[Controller, list[str]]]:
    """A Controller's process loop on its own thread over `fifo`, recording the names
    it applies; closed, resumed and joined at the end."""
    applied: list[str] = []
    controller = Controller(fifo, FakeSource(),
                            lambda deltas, initial: applied.append(name_of(deltas[-1].object)),
                            clock=FakeClock())
    loop = threading.Thread(target=controller.process_loop, name="test-process-loop")
    loop.start()
    try:
        yield controller, applied
    finally:
        if isinstance(fifo, LatePop):
            fifo.release.set()
        fifo.close()
        controller.resume()
        loop.join(5)
    assert not loop.is_alive()


def test_a_step_granted_while_the_loop_sits_in_pop_applies_the_head_and_reports_it() -> None:
    fifo = LatePop()
    with process_loop(fifo) as (controller, applied):
        assert fifo.entered.wait(5)  # in pop, entered before the pause
        fifo.add(pod("a"))
        fifo.add(pod("b"))
        controller.pause()
        assert fifo.list_keys() == ["ns/a", "ns/b"]  # what a stepper shows next
        stepped: list[Any] = []
        stepper = threading.Thread(target=lambda: stepped.append(controller.step()))
        stepper.start()
        wait_until(lambda: controller._step_grants == 1, what="the step to be granted")
        fifo.release.set()
        stepper.join(5)
        assert [name_of(d.object) for d in stepped[0]] == ["a"]
        assert applied == ["a"]  # a alone: not a unreported and then b
        assert fifo.list_keys() == ["ns/b"]
        assert (controller.steps, controller.deltas_popped) == (1, 1)

        assert [name_of(d.object) for d in controller.step()] == ["b"]
        assert applied == ["a", "b"] and controller.deltas_popped == 2
        assert controller.step() is None  # nothing queued


def test_an_item_held_by_the_pause_is_counted_once_and_resume_applies_it_first() -> None:
    fifo = DeltaFIFO()
    with process_loop(fifo) as (controller, applied):
        controller.pause()  # the loop is blocked in pop: what it pops next is held
        fifo.add(pod("a"))
        wait_until(lambda: controller.held() is not None, what="a to be held")
        fifo.add(pod("b"))
        assert applied == [] and controller.deltas_popped == 0
        controller.resume()
        wait_until(lambda: len(applied) == 2, what="both applied after resume")
        assert applied == ["a", "b"] and controller.deltas_popped == 2
