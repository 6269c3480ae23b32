"""A list's JSON from the items kept encoded (kubenb.server.list_items) is byte for byte
the JSON of the list built and encoded whole, whatever was written, read or selected
before; and kubectl and the official client read it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubenb.server import EmbeddedServer, list_items
from kubenb.server.encoding import dumps
from kubenb.server.list_items import RECENT_LISTS, ListItemCache, RawItems, dumps_list
from kubenb.server.registry import Registry
from kubenb.server.resources import ResourceType
from tests.helpers import Kubectl, needs_kubectl

NAMES = [f"cm-{i}" for i in range(6)]
SPACES = ["default", "kube-public"]
# values that the Go escapes touch, and plain ones
VALUES = ["plain", "<b>&amp;</b>", "line\u2028sep\u2029end", "ünïcödé", ""]


def _both(registry: Registry, rtype: ResourceType, namespace: str | None,
          params: dict[str, str]) -> bytes:
    whole = dumps(registry.list(rtype, namespace, dict(params)))
    spliced = dumps_list(registry.list(rtype, namespace, dict(params), encoded_items=True))
    assert spliced == whole
    return spliced


operations = st.lists(st.tuples(
    st.sampled_from(["create", "update", "delete", "list"]),
    st.sampled_from(SPACES), st.sampled_from(NAMES), st.sampled_from(VALUES),
    st.sampled_from([{}, {"labelSelector": "tier=web"}, {"limit": "2"},
                     {"fieldSelector": "metadata.name=cm-1"}, {"resourceVersion": "0"}])),
    min_size=1, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_a_spliced_list_is_the_list_encoded_whole(ops: list[tuple[Any, ...]]) -> None:
    with EmbeddedServer() as server:
        registry = server.registry
        rtype = server.types.lookup("", "v1", "configmaps")
        assert rtype is not None
        versions: list[int] = []
        for verb, space, name, value, params in ops:
            body = {"metadata": {"name": name, "labels": {"tier": "web" if value else "db"}},
                    "data": {"k": value}}
            if verb == "create" and registry.storage.get("configmaps", space, name) is None:
                registry.create(rtype, space, body)
            elif verb == "update" and registry.storage.get("configmaps", space, name):
                registry.update(rtype, space, name, body)
            elif verb == "delete" and registry.storage.get("configmaps", space, name):
                registry.delete(rtype, space, name, {})
            for namespace in (space, None):
                listed = json.loads(_both(registry, rtype, namespace, params))
                versions.append(int(listed["metadata"]["resourceVersion"]))
                token = listed["metadata"].get("continue")
                if token:  # the next page too
                    _both(registry, rtype, namespace, {**params, "continue": token})
        if versions:  # an older state, read back through the history (Exact)
            _both(registry, rtype, None, {"resourceVersion": str(min(versions)),
                                          "resourceVersionMatch": "Exact"})


def test_the_cache_starts_a_resource_over_once_it_holds_mostly_old_versions() -> None:
    cache = ListItemCache()
    objects = [{"metadata": {"name": f"o{i}", "resourceVersion": "1"}} for i in range(10)]
    first = cache.raw_items("configmaps", objects, lambda: 10)
    assert cache.raw_items("configmaps", objects, lambda: 10) == first
    for round_ in range(2, 40):  # every object replaced, round after round
        objects = [{"metadata": {"name": f"o{i}", "resourceVersion": str(round_)}}
                   for i in range(10)]
        cache.raw_items("configmaps", objects, lambda: 10)
    assert cache.size("configmaps") <= 2 * 10 + 64


def test_the_same_objects_listed_again_give_the_same_items_joined_once() -> None:
    cache = ListItemCache()
    objects = [{"metadata": {"name": f"o{i}"}, "data": {"k": "v"}} for i in range(5)]
    first = cache.raw_items("configmaps", objects, lambda: 5)
    assert type(first) is RawItems
    doc = {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {}, "items": first}
    assert dumps_list(doc) == dumps({**doc, "items": [json.loads(bytes(r)) for r in first]})
    again = cache.raw_items("configmaps", list(objects), lambda: 5)
    assert again is first and again.joined() is first.joined()  # joined once, kept
    changed = [*objects[:4], {"metadata": {"name": "o4"}, "data": {"k": "new"}}]
    assert cache.raw_items("configmaps", changed, lambda: 5) is not first
    assert cache.raw_items("configmaps", objects[:3], lambda: 5) is not first  # a page


def test_only_the_most_recent_lists_are_kept_whole() -> None:
    cache = ListItemCache()
    objects = [{"metadata": {"name": f"o{i}"}} for i in range(RECENT_LISTS + 2)]
    lists = [cache.raw_items("configmaps", [obj], lambda: len(objects)) for obj in objects]
    assert cache.raw_items("configmaps", [objects[-1]], lambda: 0) is lists[-1]
    assert cache.raw_items("configmaps", [objects[0]], lambda: 0) is not lists[0]
    cache.forget("configmaps")
    assert cache.raw_items("configmaps", [objects[-1]], lambda: 0) is not lists[-1]


def test_a_large_list_does_not_keep_its_joined_items(monkeypatch: Any) -> None:
    monkeypatch.setattr(list_items, "JOINED_AT_MOST", 100)
    cache = ListItemCache()
    objects = [{"metadata": {"name": f"object-{i}"}} for i in range(20)]
    items = cache.raw_items("configmaps", objects, lambda: 20)
    assert items.joined() == items.joined() and items.joined() is not items.joined()


def test_a_custom_resource_list_is_encoded_whole() -> None:
    """Unstructured lists keep kind/apiVersion on items and sort keys: not spliced."""
    doc = {"apiVersion": "example.com/v1", "items": [{"kind": "Foo"}], "kind": "FooList",
           "metadata": {"continue": "", "resourceVersion": "3"}}
    assert dumps_list(doc) == dumps(doc)


@needs_kubectl
def test_kubectl_and_the_official_client_read_a_spliced_list(tmp_path: Any) -> None:
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config

    with EmbeddedServer() as server:
        api = k8s_client.CoreV1Api(
            k8s_config.new_client_from_config(str(server.kubeconfig_path)))
        for i in range(3):
            api.create_namespaced_config_map("default", {
                "metadata": {"name": f"spliced-{i}"}, "data": {"k": "<v&>"}})
        kubectl = Kubectl(server.kubeconfig_path, tmp_path / "cache")
        names = kubectl("get", "configmaps", "-o",
                        "jsonpath={.items[*].metadata.name}").stdout
        assert {"spliced-0", "spliced-1", "spliced-2"} <= set(names.split())
        listed = api.list_namespaced_config_map("default")
        assert {cm.metadata.name: cm.data["k"] for cm in listed.items
                if cm.metadata.name.startswith("spliced-")} == {
            f"spliced-{i}": "<v&>" for i in range(3)}
        api.api_client.close()
