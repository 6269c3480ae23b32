"""The informer's Pacer: the Reflector waits for stages that keep up, never for slow ones.

Unit tests drive a Pacer over hand-set backlogs; the informer tests prove that a
handler blocked on a gate holds up neither the cache nor another handler while
pacing is on, and that every notification still arrives, in order.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.pacing import Pacer
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.clock import FakeClock
from tests.cache.fake_source import FakeSource, pod
from tests.cache.test_shared_informer import Listener, started
from tests.helpers import wait_until


class Stages:
    """Backlogs a test sets by hand, reported as the Pacer's stages."""

    def __init__(self, **backlogs: int) -> None:
        self.backlogs = dict(backlogs)

    def __call__(self) -> list[tuple[str, int]]:
        return list(self.backlogs.items())


@contextmanager
def collector(enabled: bool) -> Iterator[None]:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


def test_pace_returns_at_once_while_the_backlog_is_within_the_limit() -> None:
    pacer = Pacer(Stages(queue=3, listener=5), limit=8, patience=60.0)
    with collector(True):
        pacer.pace()
    assert pacer.waits == 0 and pacer.backlog() == 8


def test_pace_waits_until_the_stages_catch_up_then_goes_on() -> None:
    stages = Stages(queue=6, listener=6)
    pacer = Pacer(stages, limit=8, patience=60.0)  # a missed wake-up would hang the test
    returned = threading.Event()

    def reflector() -> None:
        pacer.pace()
        returned.set()

    with collector(True):
        thread = threading.Thread(target=reflector)
        thread.start()
        wait_until(lambda: pacer._waiting == 1, what="the reflector to wait")
        stages.backlogs["queue"] = 0
        pacer.progress()  # 6 left > limit/2: not yet
        assert not returned.wait(0.05)
        stages.backlogs["listener"] = 4
        pacer.progress()
        assert returned.wait(5)
        thread.join(5)
    assert pacer.waits == 1 and pacer.timeouts == 0


def test_a_stage_that_does_not_catch_up_is_ignored_until_it_has_drained() -> None:
    stages = Stages(fast=0, slow=50)
    pacer = Pacer(stages, limit=8, patience=0.01)
    with collector(True):
        pacer.pace()  # the slow stage makes no progress: one patience, then it is slow
        assert (pacer.waits, pacer.timeouts, pacer.stats()["slow_stages"]) == (1, 1, 1)
        stages.backlogs["slow"] = 500
        pacer.pace()  # ignored now: no wait at all
        assert pacer.waits == 1 and pacer.backlog() == 0
        stages.backlogs["slow"] = 0  # drained: forgiven
        assert pacer.backlog() == 0 and pacer.stats()["slow_stages"] == 0
        stages.backlogs["slow"] = 50
        pacer.pace()
    assert pacer.waits == 2 and pacer.timeouts == 2


class Item:
    """Something a stage hands back once delivered (a plain object: weakref-able)."""


def test_delivered_items_are_freed_by_the_next_pace_and_at_most_four_limits_wait() -> None:
    pacer = Pacer(Stages(), limit=2, patience=60.0)
    items = [Item() for _ in range(10)]
    refs = [weakref.ref(item) for item in items]
    for item in items:
        pacer.progress(item)
    del items, item
    # 4 * limit are kept for the Reflector; the rest died with the stage's reference
    assert [ref() is not None for ref in refs] == [True] * 8 + [False] * 2
    assert pacer.stats()["held_for_reflector"] == 8
    with collector(False):  # freeing happens even while pacing itself is off
        pacer.pace()
    assert [ref() for ref in refs] == [None] * 10
    assert pacer.stats()["held_for_reflector"] == 0


def test_replaced_objects_are_freed_on_the_reflector_thread() -> None:
    freed_on: list[str] = []

    class Tracked(dict):  # type: ignore[type-arg]
        def __del__(self) -> None:
            freed_on.append(threading.current_thread().name)

    source = FakeSource()
    source.add(pod("a", labels={"v": "0"}))
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock(),
                                   transform=lambda obj: Tracked(obj))
    updates: list[int] = []  # the handler keeps no object
    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_update=lambda old, new: updates.append(1)))
    with collector(True), started(informer):
        for version in range(1, 21):
            source.modify(pod("a", labels={"v": str(version)}))
        wait_until(lambda: len(updates) == 20, what="20 updates delivered")
        source.add(pod("b"))  # the next event's pace() frees what was handed back
        wait_until(lambda: len(freed_on) >= 20, what="versions 0-19 of a to be freed")
        assert len(freed_on) == 20
        assert all(name.startswith("kubenb-reflector-") for name in freed_on), freed_on
        source.modify(pod("b", labels={"v": "1"}))
        wait_until(lambda: len(updates) == 21, what="b's update delivered")
    # stopped: what listeners handed back since the last event is freed too
    assert informer.pacer is not None and informer.stats()["pacing"]["held_for_reflector"] == 0
    assert len(freed_on) == 21


def test_pacing_is_off_while_the_collector_is_disabled() -> None:
    pacer = Pacer(Stages(queue=1000), limit=8, patience=60.0)
    with collector(False):
        pacer.pace()
    assert pacer.waits == 0


@pytest.mark.parametrize("limit, patience", [(0, 0.002), (8, 0.0), (-1, 1.0)])
def test_pacer_rejects_a_limit_or_patience_that_would_never_let_it_wait(
        limit: int, patience: float) -> None:
    with pytest.raises(ValueError, match="need limit >= 1 and patience > 0"):
        Pacer(Stages(), limit=limit, patience=patience)


def test_a_blocked_handler_holds_up_neither_the_cache_nor_another_handler() -> None:
    gate = threading.Event()
    source = FakeSource()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock(), pace_limit=4)
    blocked, free = Listener("blocked", gate=gate), Listener("free")
    informer.add_event_handler(blocked)
    informer.add_event_handler(free)
    names = [f"pod{i:03d}" for i in range(300)]
    with collector(True), started(informer):
        for name in names:
            source.add(pod(name))
        wait_until(lambda: len(informer.get_indexer().list_keys()) == len(names),
                   what="the cache to hold every pod while one handler is blocked")
        wait_until(lambda: free.received == names, what="the free handler")
        assert blocked.received == []
        assert informer.stats()["pacing"]["timeouts"] >= 1  # the blocked one was let go
        gate.set()
        wait_until(lambda: blocked.received == names, timeout=30, what="the blocked handler")


def test_pace_limit_zero_turns_pacing_off() -> None:
    source = FakeSource()
    source.add(pod("a"))
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock(), pace_limit=0)
    with started(informer):
        assert informer.pacer is None and informer.stats()["pacing"] == {}
        assert informer.get_controller().reflector.pace is None


@pytest.mark.parametrize("seed", range(3))
def test_no_wake_up_is_lost_between_a_consuming_stage_and_the_reflector(seed: int) -> None:
    """A producer paces 5k times against a consumer that takes items as they come;
    with a patience of a minute, a lost wake-up would hang (pytest-timeout ends it),
    and a pace that returns must leave the backlog within its bound."""
    import random

    rng = random.Random(seed)
    stages = Stages(queue=0, listener=0)
    pacer = Pacer(stages, limit=8, patience=60.0)
    items = threading.Semaphore(0)
    produced = 5_000

    def consumer() -> None:
        for _ in range(produced):
            items.acquire()
            name = "queue" if stages.backlogs["queue"] else "listener"
            stages.backlogs[name] -= 1
            pacer.progress()

    thread = threading.Thread(target=consumer)
    with collector(True):
        thread.start()
        for _ in range(produced):
            stages.backlogs[rng.choice(("queue", "listener"))] += 1
            items.release()
            waits = pacer.waits
            pacer.pace()
            # Only the consumer ran meanwhile, and it only lowers backlogs.
            assert pacer.backlog() <= (pacer.limit // 2 if pacer.waits > waits else pacer.limit)
        thread.join(30)
    assert not thread.is_alive() and pacer.timeouts == 0
    assert pacer.waits > 0 and stages.backlogs == {"queue": 0, "listener": 0}
