"""The informer's Pacer: the Reflector waits for stages that keep up, never for slow ones.

Unit tests drive a Pacer over hand-set backlogs; the informer tests prove that a
handler blocked on a gate holds up neither the cache nor another handler while
pacing is on, and that every notification still arrives, in order.
"""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.pacing import Pacer
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.clock import FakeClock
from tests.cache.fake_source import FakeSource, pod
from tests.cache.test_shared_informer import Listener, started
from tests.helpers import collector, wait_until


class Stages:
    """Backlogs a test sets by hand, reported as the Pacer's stages."""

    def __init__(self, **backlogs: int) -> None:
        self.backlogs = dict(backlogs)

    def __call__(self) -> list[tuple[str, int]]:
        return list(self.backlogs.items())


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


def test_in_a_stream_each_pace_frees_the_oldest_items_about_one_event_at_a_time() -> None:
    pacer = Pacer(Stages(), limit=4, patience=60.0, quiet=60.0)
    pacer.pace()  # the first event: nothing held yet
    items = [Item() for _ in range(6)]
    refs = [weakref.ref(item) for item in items]
    for item in items:
        pacer.progress(item)
    del items, item
    # `limit` are kept for the Reflector; the rest died with the stage's reference
    assert [ref() is not None for ref in refs] == [True] * 4 + [False] * 2
    assert pacer.stats()["held_for_reflector"] == 4
    pacer.pace()  # the oldest len / (limit / 2) = 2
    assert [ref() is not None for ref in refs] == [False, False, True, True, False, False]
    pacer.pace()  # then 2 // 2 = 1, and never fewer than one
    assert [ref() is not None for ref in refs] == [False] * 3 + [True] + [False] * 2
    pacer.pace()
    assert [ref() for ref in refs] == [None] * 6
    pacer.pace()  # nothing held: nothing to do
    assert pacer.stats()["held_for_reflector"] == 0


@pytest.mark.parametrize("enabled", [True, False])
def test_after_a_quiet_spell_or_with_the_collector_off_a_pace_frees_everything(
        enabled: bool) -> None:
    pacer = Pacer(Stages(), limit=8, patience=60.0, quiet=0.0 if enabled else 60.0)
    pacer.pace()
    items = [Item() for _ in range(8)]
    refs = [weakref.ref(item) for item in items]
    for item in items:
        pacer.progress(item)
    del items, item
    with collector(enabled):  # off: no collector count to keep flat
        pacer.pace()
    assert [ref() for ref in refs] == [None] * 8


def test_freeing_one_event_at_a_time_keeps_young_collections_away() -> None:
    """The reason for the rule above: frees that come all at once are lost to the
    collector's count (it stops at zero), so the next events' allocations trigger
    collections; frees spread one per event offset them."""
    per_event = max(1, gc.get_threshold()[0] // 6)  # ~6 events' worth passes it

    def collections(quiet: float) -> int:
        counted = [0]

        def count(phase: str, info: dict[str, int]) -> None:
            if phase == "stop" and info["generation"] == 0:
                counted[0] += 1

        pacer = Pacer(Stages(), limit=32, patience=60.0, quiet=quiet)
        in_flight: list[list[list[int]]] = []
        with collector(True):
            gc.collect()
            gc.callbacks.append(count)
            try:
                for _ in range(640):
                    in_flight.append([[] for _ in range(per_event)])  # decode an event
                    pacer.pace()
                    if len(in_flight) == 32:  # a listener delivers half of what is ahead
                        for done in in_flight[:16]:
                            pacer.progress(done)
                        del in_flight[:16], done
            finally:
                gc.callbacks.remove(count)
        pacer.close()
        return counted[0]

    all_at_once, spread = collections(quiet=0.0), collections(quiet=60.0)
    assert all_at_once >= 40, all_at_once  # about two collections per batch of 16
    print(all_at_once, spread)
    assert spread <= 10, (spread, all_at_once)


@pytest.mark.parametrize("then", ["stream", "quiet-event", "quiet-bookmark"])
def test_replaced_objects_are_freed_on_the_reflector_thread(then: str) -> None:
    freed_on: list[str] = []

    class Tracked(dict):  # type: ignore[type-arg]
        def __del__(self) -> None:
            freed_on.append(threading.current_thread().name)

    source = FakeSource()
    source.add(pod("a", labels={"v": "0"}))
    source.add(pod("b", labels={"v": "0"}))
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock(),
                                   transform=lambda obj: Tracked(obj))
    assert informer.pacer is not None
    informer.pacer.quiet = 3600.0  # no spell of real time counts as quiet
    updates: list[int] = []  # the handler keeps no object
    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_update=lambda old, new: updates.append(1)))
    with collector(True), started(informer):
        # the two initial adds are handed back before the watch's first event, whose
        # pace (the first ever: after a "quiet spell") frees them; else they would be
        # counted below as held updates (CI saw them delivered after that event)
        wait_until(lambda: informer.stats()["pacing"]["held_for_reflector"] == 2,
                   what="the initial adds handed back")
        for version in range(1, 21):
            source.modify(pod("a", labels={"v": str(version)}))
        # each of the 20 notifications is handed back, then held or already freed
        wait_until(lambda: len(updates) == 20 and len(freed_on)
                   + informer.stats()["pacing"]["held_for_reflector"] == 20,
                   what="20 updates delivered and handed back")
        if then == "stream":  # each event frees about one event's worth, the oldest first
            for version in range(1, 21):
                source.modify(pod("b", labels={"v": str(version)}))
            wait_until(lambda: len(updates) == 40, what="b's 20 updates delivered")
        elif then == "quiet-event":  # the first event after a quiet spell frees everything
            informer.pacer.quiet = 0.0
            source.modify(pod("b", labels={"v": "1"}))
            wait_until(lambda: len(updates) == 21, what="b's update delivered")
        else:  # a quiet watch's next bookmark does the same (a server sends one a minute)
            # the last update was handed back after its own pace: held until then
            assert informer.stats()["pacing"]["held_for_reflector"] >= 1
            informer.pacer.quiet = 0.0
            source.bookmark()
        wait_until(lambda: len(freed_on) >= 20, what="versions 0-19 of a to be freed")
        # the thread the Reflector runs on (the informer's), never a listener's
        assert all(name.startswith("kubenb-informer-") for name in freed_on), freed_on
    # stopped: what listeners handed back since is freed too
    assert informer.stats()["pacing"]["held_for_reflector"] == 0
    assert len(freed_on) == {"stream": 40, "quiet-event": 21, "quiet-bookmark": 20}[then]


def test_pacing_is_off_while_the_collector_is_disabled() -> None:
    pacer = Pacer(Stages(queue=1000), limit=8, patience=60.0)
    with collector(False):
        pacer.pace()
    assert pacer.waits == 0


@pytest.mark.parametrize("limit, patience, quiet",
                         [(0, 0.002, 0.05), (8, 0.0, 0.05), (-1, 1.0, 0.05), (8, 1.0, -1.0)])
def test_pacer_rejects_a_limit_patience_or_quiet_that_would_never_let_it_work(
        limit: int, patience: float, quiet: float) -> None:
    with pytest.raises(ValueError, match="need limit >= 1, patience > 0 and quiet >= 0"):
        Pacer(Stages(), limit=limit, patience=patience, quiet=quiet)


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


def test_the_informers_stages_follow_its_listeners_and_its_queue() -> None:
    """PacingStages caches each listener's count until the listeners change: a listener
    added or removed later is (no longer) paced, and each count is read afresh."""
    import gc

    from kubenb.cache.delta_fifo import DeltaFIFO
    from kubenb.cache.handlers import ResourceEventHandlerFuncs
    from kubenb.cache.processor import AddNotification, ProcessorListener, SharedProcessor
    from kubenb.cache.shared_informer import PacingStages

    processor = SharedProcessor()
    stages = PacingStages(processor)
    assert stages() == []

    def listener(to: SharedProcessor) -> ProcessorListener:
        return to.add_listener(ProcessorListener(
            ResourceEventHandlerFuncs(), 0.0, 0.0, None, lambda: True))

    first = listener(processor)
    first.add(AddNotification({"metadata": {"name": "a"}}, False))
    assert stages() == [(first, 1)]
    second = listener(processor)
    for name in "bc":
        second.add(AddNotification({"metadata": {"name": name}}, False))
    first.add(AddNotification({"metadata": {"name": "d"}}, False))
    assert stages() == [(first, 2), (second, 2)]  # counts read again, the new one found
    queue = DeltaFIFO()
    queue.add({"metadata": {"namespace": "default", "name": "e"}})
    stages.queue = queue
    processor.remove_listener(first)
    assert stages() == [(second, 2), (queue, 1)]
    del processor, first, second
    gc.collect()
    assert stages() == []  # held weakly: a gone processor leaves nothing to pace
