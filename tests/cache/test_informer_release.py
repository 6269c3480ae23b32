"""A stopped informer nobody references is freed at once, cache and all.

CPython frees an object caught in a reference cycle only when the collector walks the
generation it sits in, and an informer's cache lives in the oldest one. So the informer
must not be part of a cycle: dropping the last reference has to free it by reference
counting alone. These tests keep the collector off while they check, so only reference
counting can free anything.
"""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.weak import weak_method
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.server import EmbeddedServer
from tests.helpers import collector, wait_until


@pytest.fixture
def dynamic(server: EmbeddedServer) -> DynamicClient:
    server.seed_objects(20, kind="pods", namespace="default")
    return DynamicClient(load_config(server.kubeconfig_path))


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    with collector(False):
        yield


def _wait_released(ref: weakref.ref[Any]) -> None:
    # A thread that has just ended may still hold its frame for a moment.
    wait_until(lambda: ref() is None, timeout=5, what="the dropped informer to be freed")


def test_a_stopped_informer_with_handlers_and_indexes_is_freed_when_dropped(
        dynamic: DynamicClient, collector_off: None) -> None:
    delivered: list[str] = []
    informer = SharedIndexInformer(ListWatch.from_client(dynamic.resource("v1", "pods"),
                                                         namespace="default"))
    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda obj, initial: delivered.append(obj["metadata"]["name"])))
    informer.add_indexers({"by-node": lambda obj: [obj["spec"].get("nodeName", "")]})
    informer.start()
    assert informer.wait_for_cache_sync(timeout=30)
    wait_until(lambda: len(delivered) == 20, timeout=30)
    informer.add_event_handler(ResourceEventHandlerFuncs(on_add=lambda obj, initial: None))
    informer.stop()
    informer_ref, indexer_ref = weakref.ref(informer), weakref.ref(informer.get_indexer())
    del informer
    _wait_released(informer_ref)
    assert indexer_ref() is None


def test_a_factory_shut_down_and_dropped_frees_its_informers(
        dynamic: DynamicClient, collector_off: None) -> None:
    factory = SharedInformerFactory(dynamic)
    informer = factory.core().v1().pods().informer()
    factory.start()
    assert all(factory.wait_for_cache_sync(timeout=30).values())
    assert len(informer.get_indexer().list_keys()) == 20
    factory.shutdown()
    ref = weakref.ref(informer)
    del informer, factory
    _wait_released(ref)


def test_a_running_informer_is_kept_alive_by_its_threads(
        dynamic: DynamicClient, collector_off: None) -> None:
    informer = SharedIndexInformer(ListWatch.from_client(dynamic.resource("v1", "pods"),
                                                         namespace="default")).start()
    kept: SharedIndexInformer | None = informer
    try:
        assert informer.wait_for_cache_sync(timeout=30)
        ref = weakref.ref(informer)
        del informer
        time.sleep(0.2)
        kept = ref()
        assert kept is not None  # the weak callbacks never cut a running informer short
        assert len(kept.get_indexer().list_keys()) == 20
    finally:
        if kept is not None:
            kept.stop()


class _Counter:
    def __init__(self) -> None:
        self.calls = 0

    def bump(self, by: int = 1) -> int:
        self.calls += by
        return self.calls


def test_weak_method_calls_through_while_the_object_lives_then_returns_the_default() -> None:
    counter = _Counter()
    bump = weak_method(counter.bump, default=-1)
    assert bump() == 1
    assert bump(by=2) == 3
    assert bump.__name__ == "bump"
    del counter
    assert bump() == -1
