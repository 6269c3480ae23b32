"""kubenb's cache classes are what the tools/cache interfaces say they are: the Reflector,
the controller and the views are typed against the protocols, and these fit them."""

from __future__ import annotations

import pytest

from kubenb.cache import (
    FIFO,
    DeltaFIFO,
    Queue,
    RealFIFO,
    ReflectorStore,
    SharedIndexInformer,
    SharedInformer,
    new_indexer,
    new_store,
)
from kubenb.cache.listwatch import ListWatch


@pytest.mark.parametrize("make", [
    lambda: DeltaFIFO(known_objects=new_indexer()),
    lambda: RealFIFO(known_objects=new_indexer()),
], ids=["DeltaFIFO", "RealFIFO"])
def test_the_informer_queues_are_queues_a_reflector_can_fill(make: object) -> None:
    queue = make()  # type: ignore[operator]
    assert isinstance(queue, Queue)
    assert isinstance(queue, ReflectorStore)


@pytest.mark.parametrize("make", [new_store, new_indexer, FIFO], ids=["Store", "Indexer", "FIFO"])
def test_stores_are_what_a_reflector_writes_into(make: object) -> None:
    assert isinstance(make(), ReflectorStore)  # type: ignore[operator]


def test_a_plain_store_is_not_a_queue() -> None:
    assert not isinstance(new_store(), Queue)


def test_the_shared_index_informer_is_a_shared_informer() -> None:
    informer = SharedIndexInformer(ListWatch(lambda options: {}, lambda options: iter(())))
    assert isinstance(informer, SharedInformer)


def test_an_object_missing_a_method_is_not_an_informer() -> None:
    class HalfInformer:
        def add_event_handler(self, handler: object) -> None: ...

        def has_synced(self) -> bool:
            return True

    assert not isinstance(HalfInformer(), SharedInformer)
