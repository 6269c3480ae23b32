"""promote_young: young objects go to the oldest generation without a walk; never when
the program froze objects of its own, never when switched off; a large decode and a
busy watch stream (new objects or updates) promotes, an isolated event does not."""

from __future__ import annotations

import gc
import json
import threading
import weakref
from collections.abc import Iterator

import pytest

from kubenb import jsondecode as decode
from kubenb.cache import reflector as reflector_module
from kubenb.cache.reflector import Reflector
from kubenb.cache.store import new_store
from kubenb.client.watch import WatchEvent
from kubenb.clock import FakeClock
from kubenb.jsondecode import loads, promote_young, set_young_promotion
from tests.cache.fake_source import FakeSource, pod
from tests.helpers import collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def young_cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def switched_on() -> Iterator[None]:
    set_young_promotion(True)
    yield
    set_young_promotion(True)


def test_promotion_empties_the_young_generation_and_a_full_collection_still_frees_cycles(
        switched_on: None) -> None:
    gc.disable()  # no automatic collection may free the cycle before it is promoted
    try:
        cycle = young_cycle()
        kept = [{"a": [i]} for i in range(2000)]
        assert promote_young()
    finally:
        gc.enable()
    assert gc.get_count()[0] < 50  # the young count starts again (allowing a few stragglers)
    assert gc.get_freeze_count() == 0  # everything thawed again, into the oldest generation
    gc.collect(1)
    assert cycle() is not None  # promoted: a young collection no longer looks at it
    gc.collect()
    assert cycle() is None  # the next full collection frees it
    assert len(kept) == 2000


def test_while_promotions_go_on_a_full_collection_comes_at_least_every_interval(
        switched_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Promoted objects are not counted towards the next full collection, so a busy stream
    # that promotes after every event would otherwise keep the cycles promoted with its
    # objects for as long as it stays busy.
    now = [1000.0]
    monkeypatch.setattr(decode.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(decode, "_unswept_since", None)
    with collector(False):  # no automatic collection may free the cycle before it is promoted
        cycle = young_cycle()
        assert promote_young()  # the cycle is now in the oldest generation, uncounted
        now[0] += decode.FULL_COLLECTION_INTERVAL - 1
        assert promote_young()
        assert cycle() is not None  # not yet due
    now[0] += 1
    assert promote_young()
    assert cycle() is None  # the due full collection freed it
    assert decode._unswept_since is None


def test_no_full_collection_while_the_collector_is_off(
        switched_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(decode.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(decode, "_unswept_since", None)
    with collector(False):  # a pause, or cache_gc_policy(): whoever switched it off is in charge
        cycle = young_cycle()
        assert promote_young()
        now[0] += decode.FULL_COLLECTION_INTERVAL * 2
        assert promote_young()
        assert cycle() is not None
    gc.collect()
    assert cycle() is None


def test_promotion_is_skipped_when_the_program_froze_objects(switched_on: None) -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        assert not promote_young()
        # Not thawed (that would empty the permanent generation). Other threads of the
        # process (pytest-xdist's own) may free a few frozen objects meanwhile.
        assert gc.get_freeze_count() > frozen // 2
    finally:
        gc.unfreeze()


def test_promotion_can_be_switched_off(switched_on: None) -> None:
    set_young_promotion(False)
    assert not promote_young()
    set_young_promotion(True)
    assert promote_young()


def test_a_large_decode_promotes_what_it_decoded(switched_on: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(decode, "promote_young", lambda: calls.append(1) or True)
    small = json.dumps({"items": [1]})
    large = json.dumps({"items": [{"n": i} for i in range(20_000)]})
    assert loads(small) == {"items": [1]} and not calls
    assert len(loads(large)["items"]) == 20_000 and calls == [1]


def burst_of_added(source: FakeSource, n: int) -> Reflector:
    source.list_hook = lambda options: {"kind": "PodList", "apiVersion": "v1",
                                        "metadata": {"resourceVersion": "1"}, "items": []}
    source.script_watch(*(WatchEvent("ADDED", pod(f"p{i}", str(2 + i))) for i in range(n)),
                        close=True)
    return Reflector(source, new_store(), clock=FakeClock())


def run_one_watch(reflector: Reflector, source: FakeSource) -> None:
    stop = threading.Event()
    original = source.watch

    def watch_then_stop(options, read_timeout=None):  # type: ignore[no-untyped-def]
        if len(source.watch_calls) >= 1:
            stop.set()
        return original(options, read_timeout)

    source.watch = watch_then_stop  # type: ignore[method-assign]
    reflector.list_and_watch(stop)


def test_a_burst_of_added_events_promotes_once_per_event_after_the_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(reflector_module, "promote_young", lambda: calls.append(1) or True)
    source = FakeSource()
    reflector = burst_of_added(source, 50)
    run_one_watch(reflector, source)
    assert len(reflector.store.list()) == 50
    assert len(calls) == 49  # the first ADDED of a burst is not yet a burst


def test_a_steady_stream_of_updates_promotes_once_per_event_after_the_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The replaced objects are freed as fast as the new ones come, so the collector's
    # young count stays flat while its young list fills with what the cache keeps.
    calls = []
    monkeypatch.setattr(reflector_module, "promote_young", lambda: calls.append(1) or True)
    source = FakeSource()
    listed = [pod(f"p{i}", "1") for i in range(10)]
    source.list_hook = lambda options: {"kind": "PodList", "apiVersion": "v1",
                                        "metadata": {"resourceVersion": "1"}, "items": listed}
    source.script_watch(*(WatchEvent("MODIFIED", pod(f"p{i % 10}", str(2 + i)))
                          for i in range(30)), close=True)
    reflector = Reflector(source, new_store(), clock=FakeClock())
    run_one_watch(reflector, source)
    assert reflector.store.get_by_key("ns/p9")["metadata"]["resourceVersion"] == "31"
    assert len(calls) == 29


def test_isolated_added_events_do_not_promote(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(reflector_module, "promote_young", lambda: calls.append(1) or True)
    monkeypatch.setattr(reflector_module, "_BURST_GAP", 0.0)  # every gap is long
    source = FakeSource()
    reflector = burst_of_added(source, 20)
    run_one_watch(reflector, source)
    assert len(reflector.store.list()) == 20 and calls == []


class ReplaceProbe:
    """A store that notes, at each replace, whether the collector was on."""

    def __init__(self) -> None:
        self.inner = new_store()
        self.collector_on_at_replace: list[bool] = []

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)

    def replace(self, items, rv):  # type: ignore[no-untyped-def]
        self.collector_on_at_replace.append(gc.isenabled())
        self.inner.replace(items, rv)


@pytest.mark.parametrize("listed, paused", [(reflector_module._PROMOTE_LISTED, True),
                                            (reflector_module._PROMOTE_LISTED - 1, False)])
def test_a_large_list_is_queued_with_the_collector_paused_then_promoted(
        listed: int, paused: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a large list queues would otherwise be promoted the counted way while it
    drains, scheduling a full collection of the whole new cache (docs/informers.md)."""
    calls = []
    monkeypatch.setattr(reflector_module, "promote_young", lambda: calls.append(1) or True)
    source = FakeSource()
    for i in range(listed):
        source.add(pod(f"p{i}"))
    source.script_watch(close=True)
    store = ReplaceProbe()
    reflector = Reflector(source, store, clock=FakeClock())  # type: ignore[arg-type]
    assert gc.isenabled()
    run_one_watch(reflector, source)
    assert len(store.list()) == listed
    assert store.collector_on_at_replace == [not paused]
    assert calls == ([1] if paused else [])
    assert gc.isenabled()  # restored
