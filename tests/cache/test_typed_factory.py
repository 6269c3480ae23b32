"""Typed informer accessors and listers (`factory.core().v1().pods()`) over real HTTP.

They share the factory's informers with `for_resource`, and their listers have exactly
client-go's shapes: `PodLister.list(selector)` / `.pods(namespace)`,
`PodNamespaceLister.list(selector)` / `.get(name)`, `NodeLister.list` / `.get`, with
a miss raising the server's `NotFound` (spec J97-J99).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.keys import NAMESPACE_INDEX
from kubenb.cache.selectors import parse_label_selector
from kubenb.cache.typed_factory import (
    GROUP_INFORMERS,
    NamespaceTypedLister,
    TypedInformer,
    TypedLister,
)
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.client.typed import Clientset
from kubenb.clock import FakeClock
from kubenb.errors import NotFound
from kubenb.server import EmbeddedServer
from tests.helpers import wait_until


@pytest.fixture
def dynamic(server: EmbeddedServer) -> Iterator[DynamicClient]:
    client = DynamicClient(load_config(server.kubeconfig_path))
    try:
        yield client
    finally:
        client.rest.close()


@pytest.fixture
def clientset(dynamic: DynamicClient) -> Clientset:
    return Clientset(dynamic.rest)


@pytest.fixture
def factory(dynamic: DynamicClient) -> Iterator[SharedInformerFactory]:
    made = SharedInformerFactory(dynamic, clock=FakeClock())
    try:
        yield made
    finally:
        made.shutdown()


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def names(objs: list[Any]) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objs)


def public(obj: Any) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n))}


def synced(factory: SharedInformerFactory) -> None:
    factory.start()
    assert all(factory.wait_for_cache_sync(timeout=5).values())


# -- shapes, names and docstrings --------------------------------------------------------------


def test_group_accessors_are_methods_of_the_factory_class() -> None:
    groups = dir(SharedInformerFactory)  # completion before any request
    for name in ("core", "apps", "coordination", "apiextensions", "rbac", "batch",
                 "autoscaling", "networking", "storage", "events", "discovery"):
        assert name in groups and name in GROUP_INFORMERS
    # groups with nothing to watch (reviews are create-only) have no informers, as in Go
    assert "authentication" not in groups and "authorization" not in groups
    assert "factory.Core()" in SharedInformerFactory.core.__doc__
    assert "for_resource" in groups  # the generic path is still there


def test_accessors_name_their_go_twins(factory: SharedInformerFactory) -> None:
    core = factory.core()
    assert public(core) == {"v1"}
    assert set(public(factory.autoscaling())) == {"v1", "v2"}
    v1 = core.v1()
    assert {"pods", "config_maps", "nodes", "namespaces", "secrets", "services",
            "endpoints", "events"} <= public(v1)
    assert "bindings" not in public(v1)  # create only: nothing to list or watch
    assert "component_statuses" not in public(v1)  # get and list, but no watch
    assert "factory.Core().V1().Pods() corev1informers.PodInformer" in v1.pods.__doc__
    pods = v1.pods()
    assert isinstance(pods, TypedInformer) and type(pods).__name__ == "PodInformer"
    assert public(pods) == {"informer", "lister"}
    assert pods.informer.__doc__.endswith(
        "Go: corev1informers.PodInformer.Informer() cache.SharedIndexInformer")
    assert pods.lister.__doc__.endswith(
        "Go: corev1informers.PodInformer.Lister() corev1listers.PodLister")
    assert "namespace" in inspect.signature(v1.pods).parameters
    assert list(inspect.signature(v1.nodes).parameters) == []  # cluster-scoped
    deployments = factory.apps().v1().deployments()
    assert type(deployments).__name__ == "DeploymentInformer"
    assert "appsv1informers.DeploymentInformer" in type(deployments).__doc__
    crds = factory.apiextensions().v1().custom_resource_definitions()
    assert type(crds.lister()).__name__ == "CustomResourceDefinitionLister"
    assert "leases" in public(factory.coordination().v1())


def test_listers_have_exactly_client_go_shapes(factory: SharedInformerFactory) -> None:
    pods = factory.core().v1().pods().lister()
    assert isinstance(pods, TypedLister) and type(pods).__name__ == "PodLister"
    assert public(pods) == {"list", "pods"}  # PodLister: List, Pods(namespace)
    in_ns = pods.pods("default")
    assert isinstance(in_ns, NamespaceTypedLister)
    assert type(in_ns).__name__ == "PodNamespaceLister"
    assert public(in_ns) == {"list", "get"}  # PodNamespaceLister: List, Get
    assert repr(in_ns) == "<PodNamespaceLister pods in 'default'>"
    nodes = factory.core().v1().nodes().lister()
    assert type(nodes).__name__ == "NodeLister"
    assert public(nodes) == {"list", "get"}  # NodeLister: List, Get
    config_maps = factory.core().v1().config_maps().lister()
    assert public(config_maps) == {"list", "config_maps"}
    assert "corev1listers.ConfigMapLister.ConfigMaps(namespace string)" in (
        config_maps.config_maps.__doc__)
    assert in_ns.get.__doc__.endswith(
        "Go: corev1listers.PodNamespaceLister.Get(name string) (*corev1.Pod, error)")
    assert pods.list.__doc__.endswith(
        "Go: corev1listers.PodLister.List(selector labels.Selector) ([]*corev1.Pod, error)")


# -- sharing with for_resource -----------------------------------------------------------------


def test_typed_accessors_share_the_factory_informers(factory: SharedInformerFactory) -> None:
    pods = factory.core().v1().pods()
    assert pods.informer() is factory.core().v1().pods().informer()
    assert pods.informer() is factory.for_resource("v1", "pods").informer()
    in_default = factory.core().v1().pods(namespace="default").informer()
    assert in_default is factory.for_resource("v1", "pods", namespace="default").informer()
    assert in_default is not pods.informer()
    deployments = factory.apps().v1().deployments().informer()
    assert deployments is factory.for_resource("apps/v1", "deployments").informer()
    assert NAMESPACE_INDEX in pods.informer().get_indexer().get_indexers()
    assert len(factory.informers()) == 3


# -- listers over a live cache (spec J) ---------------------------------------------------------


def test_j097_typed_lister_list_filters_by_label_selector(
        factory: SharedInformerFactory, clientset: Clientset) -> None:
    pods = factory.core().v1().pods()
    lister = pods.lister()  # registers the informer, like Go's Lister()
    synced(factory)
    for i in range(4):
        clientset.core_v1().pods("default").create(pod(f"p{i}", tier="web" if i % 2 else "db"))
    wait_until(lambda: len(lister.list()) == 4, what="4 pods in the cache")
    assert names(lister.list("tier=web")) == ["p1", "p3"]
    assert names(lister.list({"tier": "db"})) == ["p0", "p2"]
    assert names(lister.list(parse_label_selector("tier in (web, db),tier!=db"))) == ["p1", "p3"]
    assert lister.list("tier=none") == []
    assert names(lister.list(None)) == ["p0", "p1", "p2", "p3"]


def test_j098_typed_namespace_lister_lists_one_namespace(
        factory: SharedInformerFactory, clientset: Clientset) -> None:
    clientset.core_v1().namespaces().create({"metadata": {"name": "other"}})
    for namespace in ("default", "other"):
        clientset.core_v1().config_maps(namespace).create(
            {"metadata": {"name": "settings", "labels": {"ns": namespace}}})
    clientset.core_v1().config_maps("other").create({"metadata": {"name": "extra"}})
    lister = factory.core().v1().config_maps().lister()
    synced(factory)
    assert names(lister.config_maps("other").list()) == ["extra", "settings"]
    assert names(lister.config_maps("default").list("ns=default")) == ["settings"]
    assert lister.config_maps("default").list("ns=other") == []
    assert len([o for o in lister.list() if o["metadata"]["name"] == "settings"]) == 2


def test_j099_typed_lister_get_and_not_found(factory: SharedInformerFactory,
                                             clientset: Clientset) -> None:
    clientset.core_v1().pods("default").create(pod("web"))
    clientset.core_v1().nodes().create({"metadata": {"name": "node-1"}})
    clientset.apps_v1().deployments("default").create({
        "metadata": {"name": "api"},
        "spec": {"selector": {"matchLabels": {"app": "api"}},
                 "template": {"metadata": {"labels": {"app": "api"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    pods = factory.core().v1().pods().lister()
    nodes = factory.core().v1().nodes().lister()
    deployments = factory.apps().v1().deployments().lister()
    synced(factory)
    assert pods.pods("default").get("web")["metadata"]["name"] == "web"
    assert nodes.get("node-1")["metadata"]["name"] == "node-1"
    assert deployments.deployments("default").get("api")["spec"]["replicas"] == 1
    with pytest.raises(NotFound) as missing_pod:
        pods.pods("other").get("web")  # the namespace lister keys by "other/web"
    assert missing_pod.value.status == 404 and missing_pod.value.reason == "NotFound"
    assert str(missing_pod.value.message) == 'pods "web" not found'
    with pytest.raises(NotFound) as missing_deploy:
        deployments.deployments("default").get("nope")
    assert missing_deploy.value.message == 'deployments.apps "nope" not found'
    assert missing_deploy.value.body["details"] == {"name": "nope", "group": "apps",
                                                    "kind": "deployments"}
    with pytest.raises(NotFound, match='nodes "node-2" not found'):
        nodes.get("node-2")


def test_lister_follows_the_watch(factory: SharedInformerFactory,
                                  clientset: Clientset) -> None:
    informer = factory.core().v1().secrets(namespace="default")
    lister = informer.lister()
    synced(factory)
    secrets = clientset.core_v1().secrets("default")
    secrets.create({"metadata": {"name": "token"}, "data": {"k": "dg=="}})
    wait_until(lambda: lister.secrets("default").list() != [], what="the secret to arrive")
    secrets.delete("token")
    wait_until(lambda: lister.secrets("default").list() == [], what="the secret to go")
    with pytest.raises(NotFound):
        lister.secrets("default").get("token")


def test_crd_and_lease_informers(factory: SharedInformerFactory, clientset: Clientset,
                                 server: EmbeddedServer) -> None:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    clientset.apiextensions_v1().custom_resource_definitions().create({
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "gadgets", "kind": "Gadget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": schema}]}})
    crds = factory.apiextensions().v1().custom_resource_definitions().lister()
    gadgets = factory.for_resource("example.com/v1", "gadgets")  # CRs: the generic path
    served = {r.resource for r in Clientset(clientset.rest).discovery().server_resources()}
    leases = factory.coordination().v1().leases().lister() if "leases" in served else None
    synced(factory)
    assert crds.get("gadgets.example.com")["spec"]["names"]["kind"] == "Gadget"
    clientset.rest.post("/apis/example.com/v1/namespaces/default/gadgets",
                        {"apiVersion": "example.com/v1", "kind": "Gadget",
                         "metadata": {"name": "g1"}})
    wait_until(lambda: gadgets.lister().list() != [], what="the gadget to arrive")
    assert gadgets.lister().by_namespace("default").get("g1")["metadata"]["name"] == "g1"
    if leases is None:
        pytest.skip("the embedded server does not serve leases")
    clientset.coordination_v1().leases("kube-system").create(
        {"metadata": {"name": "leader"}, "spec": {"holderIdentity": "me"}})
    wait_until(lambda: leases.leases("kube-system").list() != [], what="the lease to arrive")
    assert leases.leases("kube-system").get("leader")["spec"]["holderIdentity"] == "me"
