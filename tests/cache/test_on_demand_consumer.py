"""The process loop on demand: a queue whose consumer ends when idle and comes back
with the next write (QueueBase.consume_on_demand, used by Controller.run).

The race that matters is a write landing just as the consumer decides to leave: it
must either be popped by that consumer or start a new one, never be stranded, and
two consumers must never pop at once.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from kubenb.cache import DeltaFIFO, ResourceEventHandlerFuncs, SharedIndexInformer
from kubenb.cache.controller import PROCESS_IDLE
from kubenb.cache.fifo import FIFO
from kubenb.cache.real_fifo import RealFIFO
from kubenb.errors import FIFOClosedError, QueueIdleError
from tests.cache.fake_source import FakeSource
from tests.helpers import wait_until


def _cm(name: str, rv: int = 1) -> dict:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": str(rv)}}


class Consumers:
    """Starts pop loops on demand and checks that no two ever pop at once."""

    def __init__(self, queue: object) -> None:
        self.queue = queue
        self.lock = threading.Lock()
        self.active = 0
        self.most_active = 0
        self.started = 0
        self.popped: list[str] = []
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        thread = threading.Thread(target=self._loop, name="test-consumer", daemon=True)
        with self.lock:
            self.started += 1
            self.threads.append(thread)
        thread.start()

    def _loop(self) -> None:
        with self.lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        try:
            while True:
                try:
                    self.queue.pop(self._take)  # type: ignore[attr-defined]
                except (QueueIdleError, FIFOClosedError):
                    return
        finally:
            with self.lock:
                self.active -= 1

    def _take(self, item: object, is_in_initial_list: bool) -> None:
        del is_in_initial_list
        if isinstance(item, dict):
            self.popped.append(item["metadata"]["name"])
        else:  # deltas
            self.popped.append(item[-1].object["metadata"]["name"])  # type: ignore[index]

    def join(self) -> None:
        for thread in list(self.threads):
            thread.join(10)
        assert not any(t.is_alive() for t in self.threads)


@pytest.mark.parametrize("make", [lambda: DeltaFIFO(), lambda: RealFIFO(),
                                  lambda: FIFO()], ids=["DeltaFIFO", "RealFIFO", "FIFO"])
@pytest.mark.parametrize("seed", range(3))
def test_writes_racing_an_idle_consumer_are_each_popped_once_by_one_consumer(make, seed) -> None:
    queue = make()
    consumers = Consumers(queue)
    queue.consume_on_demand(consumers.start, idle=0.002)
    rng = random.Random(seed)
    names = [f"cm-{i}" for i in range(400)]
    writers = [names[i::2] for i in range(2)]

    def write(part: list[str]) -> None:
        for name in part:
            queue.add(_cm(name))
            if rng.random() < 0.2:
                time.sleep(rng.choice([0.0, 0.001, 0.002, 0.003]))

    threads = [threading.Thread(target=write, args=(part,)) for part in writers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wait_until(lambda: len(consumers.popped) == len(names), what="every write popped")
    queue.close()
    consumers.join()
    assert sorted(consumers.popped) == sorted(names)
    assert consumers.most_active == 1
    assert consumers.started > 1  # the consumer did come and go


def test_a_closed_queue_starts_no_consumer() -> None:
    queue = DeltaFIFO()
    consumers = Consumers(queue)
    queue.consume_on_demand(consumers.start, idle=0.001)
    wait_until(lambda: consumers.active == 0 and consumers.started == 1,
               what="the first consumer to go idle")
    queue.close()
    queue.add(_cm("late"))  # writes still work on a closed queue
    assert consumers.started == 1
    consumers.join()


def test_idle_must_be_positive() -> None:
    with pytest.raises(ValueError, match="idle must be > 0"):
        DeltaFIFO().consume_on_demand(lambda: None, idle=0)


def test_an_idle_informer_holds_no_process_thread_and_loses_no_event() -> None:
    source = FakeSource()
    informer = SharedIndexInformer(source)
    seen: list[str] = []
    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda obj, initial=False: seen.append(obj["metadata"]["name"])))

    def process_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate()
                if t.name == f"kubenb-process-{informer.name}"]

    informer.start()
    try:
        assert informer.wait_for_cache_sync(timeout=10)
        wait_until(lambda: not process_threads(), timeout=PROCESS_IDLE * 10,
                   what="the idle process loop to end")
        for round_ in range(2):
            source.add(_cm(f"cm-{round_}"))
            wait_until(lambda round_=round_: len(seen) == round_ + 1,
                       what="the event to reach the handler")
            wait_until(lambda: not process_threads(), timeout=PROCESS_IDLE * 10,
                       what="the process loop to end again")
        assert seen == ["cm-0", "cm-1"]
    finally:
        informer.stop()
    assert not [t for t in threading.enumerate() if informer.name in t.name]
