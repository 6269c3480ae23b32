"""SharedInformerFactory over real HTTP against the embedded API server.

One informer per (apiVersion, resource, namespace, selectors), started on its own
`kubenb-informer-...` thread, synced with `wait_for_cache_sync` and stopped (threads
joined) by `shutdown`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.cache.factory import InformerKey, SharedInformerFactory
from kubenb.cache.keys import NAMESPACE_INDEX
from kubenb.cache.real_fifo import RealFIFO
from kubenb.cache.shared_informer import InformerStateError
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.clock import FakeClock
from kubenb.errors import KubenbError, NotFound
from kubenb.server import EmbeddedServer
from tests.helpers import kubenb_threads, wait_until


@pytest.fixture
def dynamic(server: EmbeddedServer) -> DynamicClient:
    return DynamicClient(load_config(server.kubeconfig_path))


@pytest.fixture
def factory(dynamic: DynamicClient) -> Iterator[SharedInformerFactory]:
    made = SharedInformerFactory(dynamic, clock=FakeClock())
    try:
        yield made
    finally:
        made.shutdown()


def configmap(name: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "data": {"k": "v"}}


def names(objs: list[Any]) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objs)


def test_same_view_same_informer_other_views_other_informers(
        factory: SharedInformerFactory) -> None:
    a = factory.for_resource("v1", "configmaps", namespace="default",
                             label_selector={"app": "web"})
    b = factory.for_resource("v1", "configmaps", namespace="default", label_selector="app=web")
    assert a.informer() is b.informer()
    others = {
        factory.for_resource("v1", "configmaps").informer(),
        factory.for_resource("v1", "configmaps", namespace="default").informer(),
        factory.for_resource("v1", "configmaps", namespace="default",
                             field_selector="metadata.name=x").informer(),
        factory.for_resource("v1", "secrets", namespace="default").informer(),
    }
    assert len(others) == 4 and a.informer() not in others
    keys = set(factory.informers())
    assert InformerKey("v1", "configmaps", "default", "app=web", "") in keys
    assert InformerKey("v1", "configmaps", "", "", "") in keys
    assert len(keys) == 5


def test_start_sync_list_and_share(factory: SharedInformerFactory,
                                   dynamic: DynamicClient) -> None:
    cms = dynamic.resource("v1", "configmaps")
    cms.create(configmap("web-1", app="web"))
    cms.create(configmap("db-1", app="db"))
    web = factory.for_resource("v1", "configmaps", namespace="default",
                               label_selector="app=web")
    everything = factory.for_resource("v1", "configmaps", namespace="")
    assert not web.informer().is_started()
    factory.start()
    assert factory.wait_for_cache_sync(timeout=5) == {
        InformerKey("v1", "configmaps", "default", "app=web", ""): True,
        InformerKey("v1", "configmaps", "", "", ""): True}
    assert names(web.lister().list()) == ["web-1"]  # the selector reached the server
    assert "db-1" in names(everything.lister().list())
    assert web.lister().namespace("default").get("web-1")["metadata"]["labels"] == {
        "app": "web"}
    with pytest.raises(NotFound):
        web.lister().namespace("default").get("db-1")
    assert NAMESPACE_INDEX in web.informer().get_indexer().get_indexers()

    cms.create(configmap("web-2", app="web"))
    wait_until(lambda: names(web.lister().list()) == ["web-1", "web-2"], what="web-2")

    # a second start runs only informers not yet running
    threads = [t for t in kubenb_threads() if t.name.startswith("kubenb-informer")]
    factory.start()
    assert [t for t in kubenb_threads() if t.name.startswith("kubenb-informer")] == threads
    late = factory.for_resource("v1", "secrets", namespace="default")
    factory.start()
    assert factory.wait_for_cache_sync(timeout=5)[
        InformerKey("v1", "secrets", "default", "", "")]
    assert late.informer().is_started()


def test_options_apply_when_the_informer_is_made(dynamic: DynamicClient) -> None:
    factory = SharedInformerFactory(dynamic, 30.0, clock=FakeClock())
    try:
        def slim(obj: Any) -> Any:
            obj.pop("data", None)
            return obj

        first = factory.for_resource("v1", "configmaps", namespace="default", resync=5.0,
                                     transform=slim, queue="RealFIFO").informer()
        again = factory.for_resource("v1", "configmaps", namespace="default", resync=99.0,
                                     queue="DeltaFIFO").informer()
        assert again is first
        assert first.resync_check_period == 5.0 and first.queue_kind == "RealFIFO"
        default = factory.for_resource("v1", "secrets", namespace="default").informer()
        assert default.resync_check_period == 30.0 and default.queue_kind == "DeltaFIFO"
        dynamic.resource("v1", "configmaps").create(configmap("c"))
        factory.start()
        assert all(factory.wait_for_cache_sync(timeout=5).values())
        assert isinstance(first.get_controller().queue, RealFIFO)
        (obj,) = first.get_indexer().list()
        assert "data" not in obj  # the transform ran before the object was stored
    finally:
        factory.shutdown()


def client_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    """Threads started since `before`, except the embedded server's own."""
    return [t for t in set(threading.enumerate()) - before
            if t.is_alive() and not t.name.startswith("kubenb-server")]


def test_shutdown_stops_everything_and_refuses_new_informers(
        dynamic: DynamicClient) -> None:
    before = set(threading.enumerate())
    factory = SharedInformerFactory(dynamic, clock=FakeClock())
    informers = [factory.for_resource("v1", r, namespace="default").informer()
                 for r in ("configmaps", "secrets", "services")]
    factory.start()
    assert all(factory.wait_for_cache_sync(timeout=5).values())
    assert len([t for t in kubenb_threads() if t.name.startswith("kubenb-informer")]) == 3
    factory.shutdown()
    assert all(i.is_stopped() for i in informers)
    assert client_threads(before) == []
    with pytest.raises(InformerStateError, match="has been shut down") as refused:
        factory.for_resource("v1", "pods")
    assert isinstance(refused.value, KubenbError)
    factory.start()  # a no-op after shutdown
    assert client_threads(before) == []


def test_wait_for_cache_sync_stops_with_the_stop_event(dynamic: DynamicClient,
                                                       server: EmbeddedServer) -> None:
    factory = SharedInformerFactory(dynamic, clock=FakeClock())
    try:
        factory.for_resource("v1", "configmaps", namespace="default")
        server.faults.fail("list", code=500)  # the first list can never succeed
        factory.start()
        stop = threading.Event()
        stop.set()
        assert factory.wait_for_cache_sync(stop) == {
            InformerKey("v1", "configmaps", "default", "", ""): False}
    finally:
        factory.shutdown()


def test_remove_stops_one_informer_and_the_next_request_makes_a_fresh_one(
        factory: SharedInformerFactory) -> None:
    kept = factory.for_resource("v1", "configmaps").informer()
    removed = factory.for_resource("v1", "secrets").informer()
    factory.start()
    assert all(factory.wait_for_cache_sync(timeout=10).values())
    assert factory.remove(removed) is True
    assert removed.is_stopped() and not kept.is_stopped()
    assert list(factory.informers().values()) == [kept]
    assert not [t for t in kubenb_threads() if t.name == f"kubenb-informer-{removed.name}"]
    assert factory.remove(removed) is False  # already forgotten
    fresh = factory.for_resource("v1", "secrets").informer()
    assert fresh is not removed
    factory.start()
    assert all(factory.wait_for_cache_sync(timeout=10).values())
