"""transform_strip_managed_fields: what it drops, what it keeps, and caches built with it.

The function itself is tested on the real kube-apiserver v1.32 pods (which carry
managedFields) and on tombstones and non-dicts; the informers run over real HTTP against
the embedded server, which records managedFields on every write as a real one does.
Memory figures are in benchmarks/bench_memory.py, not here.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubenb.cache import (
    DeletedFinalStateUnknown,
    DeltaFIFO,
    DeltaType,
    ExplicitKey,
    ListWatch,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    SharedInformerFactory,
    new_indexer,
    transform_strip_managed_fields,
)
from kubenb.cache.keys import (
    NAMESPACE_INDEX,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_index_func,
)
from kubenb.cache.shared_informer import InformerStateError
from kubenb.cache.transforms import LAST_APPLIED_CONFIGURATION, StripManagedFields
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.server import EmbeddedServer
from tests.helpers import Kubectl, needs_kubectl, wait_until
from tests.realapi import files

# -- the function ------------------------------------------------------------------------------


def realapi_pods() -> list[dict[str, Any]]:
    """Every pod in the real kube-apiserver responses (lists and single objects)."""
    pods = []
    for path in files("*.json", recursive=True):
        body = json.loads(path.read_text()).get("response", {}).get("body")
        if not isinstance(body, dict):
            continue
        if body.get("kind") == "PodList":
            pods.extend(body["items"])
        elif body.get("kind") == "Pod":
            pods.append(body)
    return pods


def without(obj: dict[str, Any], *paths: tuple[str, ...]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    for path in paths:
        node = out
        for part in path[:-1]:
            node = node[part]
        node.pop(path[-1], None)
    return out


def test_real_pods_lose_managed_fields_and_nothing_else() -> None:
    pods = realapi_pods()
    assert len(pods) >= 10 and all("managedFields" in p["metadata"] for p in pods)
    strip = transform_strip_managed_fields()
    for pod in pods:
        before = copy.deepcopy(pod)
        slim = strip(pod)
        assert slim == without(before, ("metadata", "managedFields"))
        assert list(slim) == list(before)  # key order kept, metadata where it was
        assert list(slim["metadata"]) == [k for k in before["metadata"] if k != "managedFields"]
        assert pod == before, "the transform changed the object it was given"
        assert slim["spec"] is pod["spec"] and slim["status"] is pod["status"]  # shared


def test_the_function_itself_is_the_default_transform() -> None:
    pod = realapi_pods()[0]
    assert transform_strip_managed_fields(pod) == transform_strip_managed_fields()(pod)
    assert "managedFields" not in transform_strip_managed_fields(pod)["metadata"]
    made = transform_strip_managed_fields(strip_last_applied_configuration=True)
    assert isinstance(made, StripManagedFields)
    assert made == StripManagedFields(True) != transform_strip_managed_fields()
    assert repr(made) == "transform_strip_managed_fields(strip_last_applied_configuration=True)"
    assert repr(transform_strip_managed_fields()) == "transform_strip_managed_fields()"


def applied(pod: dict[str, Any], **annotations: str) -> dict[str, Any]:
    """`pod` as `kubectl apply` leaves it: its manifest in the last-applied annotation."""
    out = copy.deepcopy(pod)
    manifest = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": pod["metadata"]["name"], "namespace": pod["metadata"]["namespace"]},
        "spec": pod["spec"]})
    out["metadata"]["annotations"] = {**annotations, LAST_APPLIED_CONFIGURATION: manifest}
    return out


def test_last_applied_configuration_only_when_asked() -> None:
    pod = applied(realapi_pods()[0], team="a")
    kept = transform_strip_managed_fields(pod)
    assert kept["metadata"]["annotations"] == pod["metadata"]["annotations"]
    slim = transform_strip_managed_fields(strip_last_applied_configuration=True)(pod)
    assert slim["metadata"]["annotations"] == {"team": "a"}
    assert LAST_APPLIED_CONFIGURATION in pod["metadata"]["annotations"]  # not changed
    # the only annotation: no annotations at all, as the server would send the object
    alone = applied(realapi_pods()[0])
    alone_slim = transform_strip_managed_fields(strip_last_applied_configuration=True)(alone)
    assert "annotations" not in alone_slim["metadata"]
    # an object without managedFields but with the annotation is still slimmed
    no_fields = without(alone, ("metadata", "managedFields"))
    assert "annotations" not in StripManagedFields(True)(no_fields)["metadata"]


@pytest.mark.parametrize("obj", [
    None, "ns/name", ExplicitKey("ns/name"), 42, ["a"], {}, {"metadata": None},
    {"metadata": "x"}, {"metadata": {"name": "a", "namespace": "ns"}},
    {"kind": "Pod", "metadata": {"name": "a", "annotations": {"x": "y"}}},
])
def test_anything_without_the_fields_is_returned_as_it_is(obj: Any) -> None:
    for strip in (transform_strip_managed_fields(),
                  transform_strip_managed_fields(strip_last_applied_configuration=True)):
        assert strip(obj) is obj


def test_tombstones_are_returned_as_they_are() -> None:
    pod = realapi_pods()[0]
    tombstone = DeletedFinalStateUnknown("kubenb-fixtures/web-pod", pod)
    assert transform_strip_managed_fields(tombstone) is tombstone
    assert tombstone.obj is pod and "managedFields" in pod["metadata"]


def test_dict_subclasses_keep_their_type() -> None:
    class Obj(dict):  # type: ignore[type-arg]
        pass

    pod = Obj(realapi_pods()[0])
    pod["metadata"] = Obj(pod["metadata"])
    slim = transform_strip_managed_fields(pod)
    assert type(slim) is Obj and type(slim["metadata"]) is Obj
    assert "managedFields" not in slim["metadata"] and "managedFields" in pod["metadata"]


def test_delta_fifo_transforms_once_and_tombstones_carry_the_stripped_object() -> None:
    indexer = new_indexer(deletion_handling_meta_namespace_key_func,
                          {NAMESPACE_INDEX: meta_namespace_index_func})
    seen: list[Any] = []

    def strip(obj: Any) -> Any:
        seen.append(obj)
        return transform_strip_managed_fields(obj)

    fifo = DeltaFIFO(known_objects=indexer, emit_delta_type_replaced=True, transformer=strip)
    pods = realapi_pods()[:4]
    fifo.replace(pods, "1")
    while not fifo.is_empty():
        for delta in fifo.pop(lambda deltas, initial: None):
            indexer.add(delta.object)
    assert len(indexer) == 4 and not any("managedFields" in o["metadata"]
                                         for o in indexer.list())
    fifo.replace(pods[:3], "2")  # the fourth vanished: a tombstone for it
    deltas = [d for _ in range(4) for d in fifo.pop(lambda deltas, initial: None)]
    tombstones = [d.object for d in deltas if d.type is DeltaType.DELETED]
    assert len(tombstones) == 1 and isinstance(tombstones[0], DeletedFinalStateUnknown)
    key = tombstones[0].key
    assert tombstones[0].obj is indexer.get_by_key(key)  # the cached, stripped object
    assert len(seen) == 4 + 3  # once per listed object; never a tombstone


# -- informers over HTTP -----------------------------------------------------------------------


@pytest.fixture
def dynamic(server: EmbeddedServer) -> Iterator[DynamicClient]:
    client = DynamicClient(load_config(server.kubeconfig_path))
    client.resource("v1", "namespaces").create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    yield client
    client.rest.close()


def pod(name: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


class Recorder:
    """Every object the handler was given, by kind of event."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.adds: list[Any] = []
        self.updates: list[tuple[Any, Any]] = []
        self.deletes: list[Any] = []

    def handler(self) -> ResourceEventHandlerFuncs:
        def on_add(obj: Any) -> None:
            with self.lock:
                self.adds.append(obj)

        def on_update(old: Any, new: Any) -> None:
            with self.lock:
                self.updates.append((old, new))

        def on_delete(obj: Any) -> None:
            with self.lock:
                self.deletes.append(obj)

        return ResourceEventHandlerFuncs(on_add=on_add, on_update=on_update,
                                         on_delete=on_delete)

    def everything(self) -> list[Any]:
        with self.lock:
            return [*self.adds, *(o for pair in self.updates for o in pair), *self.deletes]


def test_informer_caches_and_delivers_stripped_objects(dynamic: DynamicClient) -> None:
    pods = dynamic.resource("v1", "pods")
    pods.namespace("default").create(pod("web-1", app="web"))
    pods.namespace("default").create(pod("db-1", app="db"))
    pods.namespace("other").create(pod("web-2", "other", app="web"))
    assert "managedFields" in pods.namespace("default").get("web-1")["metadata"]
    informer = SharedIndexInformer(
        ListWatch.from_client(pods, namespace=""),
        indexers={NAMESPACE_INDEX: meta_namespace_index_func},
        transform=transform_strip_managed_fields())
    recorder = Recorder()
    informer.add_event_handler(recorder.handler())
    informer.start()
    try:
        assert informer.wait_for_cache_sync(timeout=30)
        pods.namespace("default").patch("web-1", {"metadata": {"labels": {"tier": "front"}}})
        pods.namespace("other").delete("web-2")
        wait_until(lambda: len(recorder.updates) == 1 and len(recorder.deletes) == 1,
                   timeout=30, what="the update and the delete")
        indexer = informer.get_indexer()
        assert sorted(indexer.list_keys()) == ["default/db-1", "default/web-1"]
        cached = indexer.get_by_key("default/web-1")
        live = pods.namespace("default").get("web-1")
        assert "managedFields" in live["metadata"]
        # (the cached one came from a watch event, with kind and apiVersion; listed items
        # carry neither, as a real server lists them)
        assert without(cached, ("kind",), ("apiVersion",)) == without(
            live, ("metadata", "managedFields"), ("kind",), ("apiVersion",))
        assert cached["metadata"]["labels"] == {"app": "web", "tier": "front"}
        assert [o["metadata"]["name"] for o in indexer.by_index(NAMESPACE_INDEX, "default")
                ] != [] and indexer.index_keys(NAMESPACE_INDEX, "other") == []
        assert all("managedFields" not in o["metadata"] for o in recorder.everything())
        assert len(recorder.adds) == 3
    finally:
        informer.stop()


def test_set_transform_before_start_and_not_after(dynamic: DynamicClient) -> None:
    pods = dynamic.resource("v1", "pods").namespace("default")
    pods.create(pod("web-1"))
    informer = SharedIndexInformer(ListWatch.from_client(pods))
    informer.set_transform(transform_strip_managed_fields)  # the bare function works too
    informer.start()
    try:
        assert informer.wait_for_cache_sync(timeout=30)
        (cached,) = informer.get_indexer().list()
        assert cached["metadata"]["name"] == "web-1" and "managedFields" not in cached["metadata"]
        with pytest.raises(InformerStateError, match="informer has already started"):
            informer.set_transform(None)
    finally:
        informer.stop()


def test_an_update_from_the_stripped_cache_keeps_the_servers_managed_fields(
        dynamic: DynamicClient) -> None:
    """Why stripping is safe for read-modify-write code: a PUT without managedFields
    leaves the server's in place."""
    pods = dynamic.resource("v1", "pods").namespace("default")
    pods.create(pod("web-1"))
    before = pods.get("web-1")["metadata"]["managedFields"]
    informer = SharedIndexInformer(ListWatch.from_client(pods),
                                   transform=transform_strip_managed_fields())
    informer.start()
    try:
        assert informer.wait_for_cache_sync(timeout=30)
        cached = informer.get_indexer().get_by_key("default/web-1")
        changed = copy.deepcopy(cached)
        changed["metadata"]["labels"] = {"tier": "front"}
        updated = pods.update(changed)
    finally:
        informer.stop()
    assert updated["metadata"]["labels"] == {"tier": "front"}
    managers = [e["manager"] for e in updated["metadata"]["managedFields"]]
    assert managers and {e["manager"] for e in before} <= set(managers)


def test_factory_transform_option_and_listers(dynamic: DynamicClient) -> None:
    pods = dynamic.resource("v1", "pods")
    pods.namespace("default").create(pod("web-1", app="web"))
    pods.namespace("default").create(pod("db-1", app="db"))
    pods.namespace("other").create(pod("web-2", "other", app="web"))
    dynamic.resource("v1", "configmaps").namespace("default").create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
         "data": {"k": "v"}})
    factory = SharedInformerFactory(dynamic, transform=transform_strip_managed_fields())
    try:
        pod_informer = factory.core().v1().pods()
        lister = pod_informer.lister()
        keep_all = factory.for_resource("v1", "configmaps", transform=lambda obj: obj)
        factory.start()
        assert all(factory.wait_for_cache_sync(timeout=30).values())
        assert pod_informer.informer().get_indexer().get_indexers().keys() == {NAMESPACE_INDEX}
        web = lister.list("app=web")
        assert sorted(p["metadata"]["name"] for p in web) == ["web-1", "web-2"]
        assert [p["metadata"]["name"] for p in lister.pods("other").list()] == ["web-2"]
        assert lister.pods("default").get("db-1")["metadata"]["labels"] == {"app": "db"}
        cached = pod_informer.informer().get_indexer().list()
        assert len(cached) == 3 and not any("managedFields" in p["metadata"] for p in cached)
        # for_resource's own transform wins over the factory's
        (cm,) = keep_all.lister().list()
        assert "managedFields" in cm["metadata"]
    finally:
        factory.shutdown()


@pytest.mark.slow
@needs_kubectl
def test_kubectl_applied_objects_keep_the_annotation_unless_asked(
        server: EmbeddedServer, dynamic: DynamicClient, tmp_path: Path) -> None:
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n"
                        "  namespace: default\n  annotations:\n    team: a\ndata:\n  k: v\n")
    Kubectl(server.kubeconfig_path, tmp_path / "cache")("apply", "-f", str(manifest))
    live = dynamic.resource("v1", "configmaps").namespace("default").get("applied")
    assert LAST_APPLIED_CONFIGURATION in live["metadata"]["annotations"]
    assert "managedFields" in live["metadata"]
    caches = {}
    for strip_annotation in (False, True):
        informer = SharedIndexInformer(
            ListWatch.from_client(dynamic.resource("v1", "configmaps"), namespace="default"),
            transform=transform_strip_managed_fields(
                strip_last_applied_configuration=strip_annotation))
        informer.start()
        try:
            assert informer.wait_for_cache_sync(timeout=30)
            caches[strip_annotation] = informer.get_indexer().get_by_key("default/applied")
        finally:
            informer.stop()
    # (listed items carry no kind or apiVersion, as a real server lists them)
    live = without(live, ("kind",), ("apiVersion",))
    assert caches[False] == without(live, ("metadata", "managedFields"))
    assert caches[True] == without(live, ("metadata", "managedFields"),
                                   ("metadata", "annotations", LAST_APPLIED_CONFIGURATION))
    assert caches[True]["metadata"]["annotations"] == {"team": "a"}
