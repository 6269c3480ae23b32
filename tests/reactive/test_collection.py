"""ObservableCollection: traits of a whole informer, net callbacks per batch on the
publisher thread, callback output into an Output widget."""

from __future__ import annotations

import sys
import threading
from typing import Any

import ipywidgets
import pytest

from kubenb.clock import FakeClock
from kubenb.reactive import ObservableCollection, Publisher, PublisherError
from tests.cache.fake_source import FakeSource
from tests.helpers import wait_until
from tests.reactive.support import running_informer, settle


def cm(name: str, rv: str, value: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": rv},
            "data": {"v": value}}


class Calls:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, ...]] = []
        self.threads: set[str] = set()

    def record(self, *event: str) -> None:
        with self.lock:
            self.events.append(event)
            self.threads.add(threading.current_thread().name)

    def add(self, obj: Any) -> None:
        self.record("add", obj["metadata"]["name"], obj["data"]["v"])

    def update(self, old: Any, new: Any) -> None:
        self.record("update", new["metadata"]["name"], old["data"]["v"], new["data"]["v"])

    def delete(self, obj: Any) -> None:
        self.record("delete", obj["metadata"]["name"], obj["data"]["v"])


def manual_collection(calls: Calls, **options: Any) -> ObservableCollection:
    collection = ObservableCollection(None, publisher=Publisher("manual", clock=FakeClock()),
                                      **options)
    collection.on_add(calls.add)
    collection.on_update(calls.update)
    collection.on_delete(calls.delete)
    return collection


def test_callbacks_get_the_net_change_of_each_key_per_batch() -> None:
    calls = Calls()
    coll = manual_collection(calls)
    h = coll.handler
    h.on_add(cm("c", "1", "c1"))
    h.on_add(cm("d", "2", "d1"))
    coll.flush()
    assert calls.events == [("add", "c", "c1"), ("add", "d", "d1")]
    calls.events.clear()
    h.on_add(cm("a", "3", "a1"))
    h.on_update(cm("a", "3", "a1"), cm("a", "4", "a2"))  # add + update = one add, latest
    h.on_add(cm("b", "5", "b1"))
    h.on_delete(cm("b", "6", "b1"))                       # add + delete = nothing
    h.on_update(cm("c", "1", "c1"), cm("c", "7", "c2"))
    h.on_update(cm("c", "7", "c2"), cm("c", "8", "c3"))   # from what was shown to the latest
    h.on_update(cm("d", "2", "d1"), cm("d", "2", "d1"))   # a resync: nothing
    h.on_delete(cm("d", "9", "d-final"))
    coll.flush()
    assert calls.events == [("add", "a", "a2"), ("update", "c", "c1", "c3"),
                            ("delete", "d", "d-final")]
    assert coll.keys == ["ns/a", "ns/c"] and coll.count == 2 == len(coll)
    assert coll.last_event == {"type": "DELETED", "key": "ns/d", "resource_version": "9",
                               "batch": 2}
    assert coll.get("ns/c")["data"]["v"] == "c3" and "ns/a" in coll
    assert sorted(coll) == ["ns/a", "ns/c"] and len(coll.list()) == 2
    coll.close()
    coll.publisher.stop()


def test_callbacks_run_on_the_publisher_thread_and_follow_an_informer() -> None:
    calls = Calls()
    source = FakeSource(kind="ConfigMap")
    source.add(cm("one", "", "1"))
    source.add(cm("two", "", "2"))
    with running_informer(source) as informer:
        coll = ObservableCollection(informer, on_add=calls.add, on_update=calls.update,
                                    on_delete=calls.delete)
        try:
            wait_until(lambda: coll.synced, what="the collection to sync")
            assert sorted(calls.events) == [("add", "one", "1"), ("add", "two", "2")]
            source.modify(cm("one", "", "1b"))
            source.delete(cm("two", "", "2"))
            wait_until(lambda: coll.count == 1, what="the delete")
            settle(coll)
            assert calls.events[2:] == [("update", "one", "1", "1b"), ("delete", "two", "2")]
            assert all(name.startswith("kubenb-publisher-") for name in calls.threads)
        finally:
            coll.close()


def test_register_remove_and_decorate() -> None:
    calls = Calls()
    coll = ObservableCollection(None, publisher=Publisher("reg", clock=FakeClock()))

    @coll.on_add
    def added(obj: Any) -> None:
        calls.add(obj)

    coll.on_add(added)  # twice is once
    coll.handler.on_add(cm("a", "1", "x"))
    coll.flush()
    coll.on_add(added, remove=True)
    coll.handler.on_add(cm("b", "2", "y"))
    coll.flush()
    assert calls.events == [("add", "a", "x")] and coll.count == 2
    with pytest.raises(PublisherError, match="callback must be callable"):
        coll.on_delete("print")  # type: ignore[arg-type]
    coll.close()
    coll.publisher.stop()


def test_prints_go_to_the_output_widget_and_a_failing_callback_does_not_stop_delivery(
        capsys: pytest.CaptureFixture[str]) -> None:
    output = ipywidgets.Output()
    coll = ObservableCollection(None, output=output)
    seen: list[str] = []

    def noisy(obj: Any) -> None:
        print("added", obj["metadata"]["name"])
        if obj["metadata"]["name"] == "bad":
            raise ValueError("no good")
        seen.append(obj["metadata"]["name"])

    coll.on_add(noisy)
    coll.handler.on_add(cm("bad", "1"))
    coll.handler.on_add(cm("good", "2"))
    print("from the cell")
    coll.close()  # applies what is pending (on the publisher thread)
    outputs = output.outputs
    stdout = "".join(o["text"] for o in outputs if o["name"] == "stdout")
    stderr = "".join(o["text"] for o in outputs if o["name"] == "stderr")
    assert stdout == "added bad\nadded good\n"
    assert "ValueError: no good" in stderr and "callback" in stderr
    assert seen == ["good"] and coll.stats()["callback_errors"] == 1
    captured = capsys.readouterr()
    assert "from the cell" in captured.out and "added" not in captured.out
    assert sys.stdout is not None
