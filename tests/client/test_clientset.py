"""Clientset: client-go's typed accessors over real HTTP against the embedded server.

One parametrized test per (built-in resource the embedded server serves, verb its typed
client has); a scale round trip; typed and dynamic clients agreeing object for object;
the names, docstrings and `dir()` a notebook user sees; discovery adding what the
built-in table lacks.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kubenb
from kubenb.client.config import load_config
from kubenb.client.discovery import DiscoveryClient, ResourceInfo
from kubenb.client.dynamic import DynamicClient
from kubenb.client.rest import RESTClient
from kubenb.client.typed import (
    BUILTIN_RESOURCES,
    Clientset,
    NamespaceRequiredError,
    TypedClient,
    method_names,
    new_for_config,
)
from kubenb.client.typed.names import (
    go_group_accessor,
    go_plural,
    group_accessor,
    resource_accessor,
)
from kubenb.errors import BadRequest, Conflict, KubenbError, NotFound
from kubenb.server import EmbeddedServer
from kubenb.server.resources import BUILTIN_TYPES
from tests.helpers import wait_until
from tests.realapi import REALAPI

NS = "default"
BY_KEY = {(i.group, i.version, i.resource): i for i in BUILTIN_RESOURCES}


# -- one embedded server for the module; every test makes its own uniquely named objects --


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddedServer]:
    srv = EmbeddedServer(history_window=10_000)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def rest(server: EmbeddedServer) -> Iterator[RESTClient]:
    client = RESTClient(load_config(str(server.kubeconfig_path)))
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def clientset(rest: RESTClient) -> Clientset:
    return Clientset(rest, discovery=DiscoveryClient(rest))


@pytest.fixture(scope="module")
def dynamic(rest: RESTClient) -> DynamicClient:
    return DynamicClient(rest)


@pytest.fixture(scope="module")
def served(clientset: Clientset) -> set[tuple[str, str, str]]:
    return {(r.group, r.version, r.resource) for r in clientset.discovery().server_resources()}


_counter = itertools.count()


def unique(prefix: str = "t") -> str:
    """A fresh lowercase name (letters only, so it also makes a valid CRD plural)."""
    n = next(_counter)
    letters = ""
    while True:
        letters = chr(ord("a") + n % 26) + letters
        n //= 26
        if not n:
            break
    return f"{prefix}{letters}"


# -- what to create for each built-in resource -----------------------------------------------


def _workload(kind: str, labels: dict[str, str]) -> dict[str, Any]:
    pod_labels = {"app": "typed"}
    spec: dict[str, Any] = {
        "selector": {"matchLabels": pod_labels},
        "template": {"metadata": {"labels": pod_labels},
                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    if kind != "DaemonSet":
        spec["replicas"] = 1
    if kind == "StatefulSet":
        spec["serviceName"] = "typed"
    return {"spec": spec}


def _crd_body(name: str) -> dict[str, Any]:
    plural = name.split(".", 1)[0]
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {"spec": {"group": name.split(".", 1)[1], "scope": "Namespaced",
                     "names": {"plural": plural, "kind": plural.capitalize()},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": schema}]}}


BODIES: dict[str, Any] = {
    "ConfigMap": lambda name: {"data": {"k": "v"}},
    "Event": lambda name: {"involvedObject": {"kind": "Pod", "name": "p", "namespace": NS},
                           "reason": "Tested", "message": "m", "type": "Normal"},
    "Namespace": lambda name: {},
    "Node": lambda name: {},
    "Pod": lambda name: {"spec": {"containers": [{"name": "c", "image": "nginx"}]}},
    "Secret": lambda name: {"data": {"k": "dg=="}},
    "ServiceAccount": lambda name: {},
    "Service": lambda name: {"spec": {"ports": [{"port": 80}]}},
    "DaemonSet": lambda name: _workload("DaemonSet", {}),
    "Deployment": lambda name: _workload("Deployment", {}),
    "ReplicaSet": lambda name: _workload("ReplicaSet", {}),
    "StatefulSet": lambda name: _workload("StatefulSet", {}),
    "CustomResourceDefinition": _crd_body,
    "Lease": lambda name: {"spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}},
    "Endpoints": lambda name: {"subsets": [{"addresses": [{"ip": "10.0.0.1"}],
                                            "ports": [{"port": 80}]}]},
    "LimitRange": lambda name: {"spec": {"limits": [{"type": "Container",
                                                     "default": {"cpu": "100m"}}]}},
    "PersistentVolumeClaim": lambda name: {"spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    "PersistentVolume": lambda name: {"spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
        "hostPath": {"path": "/tmp/typed"}}},
    "PodTemplate": lambda name: {"template": _workload("Deployment", {})["spec"]["template"]},
    "ReplicationController": lambda name: {"spec": {
        "replicas": 1, "selector": {"app": "typed"},
        "template": _workload("Deployment", {})["spec"]["template"]}},
    "ResourceQuota": lambda name: {"spec": {"hard": {"pods": "10"}}},
    "APIService": lambda name: {"spec": {
        "group": "typed.example.com", "version": "v1", "groupPriorityMinimum": 1000,
        "versionPriority": 15, "service": {"namespace": NS, "name": "api"}}},
    "ControllerRevision": lambda name: {"revision": 1, "data": {"spec": {}}},
    "HorizontalPodAutoscaler": lambda name: {"spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1, "maxReplicas": 3}},
    "CronJob": lambda name: {"spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {
        "template": {"spec": {"restartPolicy": "OnFailure",
                              "containers": [{"name": "c", "image": "busybox"}]}}}}}},
    "Job": lambda name: {"spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}},
    "CertificateSigningRequest": lambda name: {"spec": {
        "request": "dHlwZWQ=", "signerName": "kubernetes.io/kube-apiserver-client",
        "usages": ["client auth"]}},
    "IngressClass": lambda name: {"spec": {"controller": "example.com/ingress"}},
    "Ingress": lambda name: {"spec": {"defaultBackend": {
        "service": {"name": "web", "port": {"number": 80}}}}},
    "NetworkPolicy": lambda name: {"spec": {"podSelector": {}}},
    "PodDisruptionBudget": lambda name: {"spec": {
        "minAvailable": 1, "selector": {"matchLabels": {"app": "typed"}}}},
    "ClusterRoleBinding": lambda name: {"roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "name": "alice"}]},
    "RoleBinding": lambda name: {"roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": NS}]},
    "ClusterRole": lambda name: {"rules": [{"apiGroups": [""], "resources": ["pods"],
                                            "verbs": ["get"]}]},
    "Role": lambda name: {"rules": [{"apiGroups": [""], "resources": ["pods"],
                                     "verbs": ["get"]}]},
    "CSIDriver": lambda name: {"spec": {}},
    "CSINode": lambda name: {"spec": {"drivers": []}},
    "CSIStorageCapacity": lambda name: {"storageClassName": "standard"},
    "StorageClass": lambda name: {"provisioner": "example.com/typed"},
    "VolumeAttachment": lambda name: {"spec": {
        "attacher": "example.com/typed", "nodeName": "n1",
        "source": {"persistentVolumeName": "pv1"}}},
    "MutatingWebhookConfiguration": lambda name: {"webhooks": []},
    "ValidatingWebhookConfiguration": lambda name: {"webhooks": []},
    "ValidatingAdmissionPolicy": lambda name: {"spec": {"validations": [
        {"expression": "true"}]}},
    "ValidatingAdmissionPolicyBinding": lambda name: {"spec": {
        "policyName": "typed", "validationActions": ["Deny"]}},
    "PriorityClass": lambda name: {"value": 1000},
    "RuntimeClass": lambda name: {"handler": "runc"},
    "EndpointSlice": lambda name: {"addressType": "IPv4",
                                   "endpoints": [{"addresses": ["10.0.0.1"]}]},
    "FlowSchema": lambda name: {"spec": {"priorityLevelConfiguration": {"name": "typed"}}},
    "PriorityLevelConfiguration": lambda name: {"spec": {"type": "Exempt", "exempt": {}}},
}

_CONDITION = {"type": "Tested", "status": "True", "reason": "Typed", "message": "m",
              "lastTransitionTime": "2024-01-01T00:00:00Z"}

# A status change each kind keeps through its /status subresource.
STATUS: dict[str, Any] = {
    "Namespace": lambda old: {"conditions": [{"type": "Tested", "status": "True"}]},
    "Node": lambda old: {"capacity": {"cpu": "4"}},
    "Pod": lambda old: {"phase": "Running"},
    "Service": lambda old: {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}},
    "DaemonSet": lambda old: {"observedGeneration": 1, "numberReady": 2},
    "Deployment": lambda old: {"observedGeneration": 1, "replicas": 2},
    "ReplicaSet": lambda old: {"observedGeneration": 1, "replicas": 2},
    "StatefulSet": lambda old: {"observedGeneration": 1, "replicas": 2},
    "CustomResourceDefinition": lambda old: {"conditions": [
        *(old.get("conditions") or []),
        {"type": "Tested", "status": "True", "reason": "Typed", "message": "m",
         "lastTransitionTime": "2024-01-01T00:00:00Z"}]},
    "PersistentVolumeClaim": lambda old: {"phase": "Bound"},
    "PersistentVolume": lambda old: {"phase": "Available"},
    "ReplicationController": lambda old: {"observedGeneration": 1, "replicas": 1},
    "ResourceQuota": lambda old: {"hard": {"pods": "10"}, "used": {"pods": "0"}},
    "APIService": lambda old: {"conditions": [dict(_CONDITION, type="Available")]},
    "HorizontalPodAutoscaler": lambda old: {"currentReplicas": 1, "desiredReplicas": 1},
    "CronJob": lambda old: {"lastScheduleTime": "2024-01-01T00:00:00Z"},
    "Job": lambda old: {"active": 1},
    "CertificateSigningRequest": lambda old: {"certificate": "dHlwZWQ="},
    "Ingress": lambda old: {"loadBalancer": {"ingress": [{"ip": "10.0.0.2"}]}},
    "PodDisruptionBudget": lambda old: {"disruptionsAllowed": 1, "currentHealthy": 1,
                                        "desiredHealthy": 1, "expectedPods": 1},
    "VolumeAttachment": lambda old: {"attached": True},
    "ValidatingAdmissionPolicy": lambda old: {"observedGeneration": 1},
    "FlowSchema": lambda old: {"conditions": [_CONDITION]},
    "PriorityLevelConfiguration": lambda old: {"conditions": [_CONDITION]},
}


def new_name(info: ResourceInfo) -> str:
    if info.kind == "CustomResourceDefinition":
        return f"{unique('w')}s.typed.example.com"
    return unique()


def sample(info: ResourceInfo, name: str, labels: dict[str, str]) -> dict[str, Any]:
    """A valid object of `info`'s kind, without apiVersion and kind (the client adds them)."""
    return {"metadata": {"name": name, "labels": dict(labels)}, **BODIES[info.kind](name)}


def typed(clientset: Clientset, info: ResourceInfo, namespace: str = NS) -> TypedClient:
    """clientset.<group>_<version>().<resource>(namespace) — as a user would type it."""
    group = getattr(clientset, group_accessor(info.group, info.version))()
    accessor = getattr(group, resource_accessor(info))
    return accessor(namespace) if info.namespaced else accessor()


def assert_has(actual: Any, wanted: Any) -> None:
    """`actual` holds `wanted`: dict keys recursively, list items by membership."""
    if isinstance(wanted, dict):
        assert isinstance(actual, dict), (actual, wanted)
        for key, value in wanted.items():
            assert key in actual, (key, actual)
            assert_has(actual[key], value)
    elif isinstance(wanted, list):
        assert isinstance(actual, list), (actual, wanted)
        for item in wanted:
            assert item in actual, (item, actual)
    else:
        assert actual == wanted


def settled(client: TypedClient, info: ResourceInfo, name: str) -> None:
    """Wait for what the server does after a create (a CRD's names become Established)."""
    if info.kind == "CustomResourceDefinition":
        wait_until(lambda: any(c["type"] == "Established" for c in (
            client.get(name).get("status") or {}).get("conditions") or ()),
            what=f"CRD {name} to be established")


def gone(client: TypedClient, name: str) -> bool:
    try:
        client.get(name)
    except NotFound:
        return True
    return False


# -- every verb of every built-in resource the embedded server serves ------------------------

# Stored resources (reviews and bindings are answered, not stored: tests/server/test_api_surface)
EMBEDDED_KEYS = [(t.group, t.version, t.plural) for t in BUILTIN_TYPES if t.stored]
EMBEDDED = [BY_KEY[key] for key in EMBEDDED_KEYS]
VERB_CASES = [pytest.param(info, verb, id=f"{info.group_resource}-{verb}")
              for info in EMBEDDED for verb in method_names(info)]


def test_the_built_in_table_covers_every_type_the_embedded_server_serves() -> None:
    for rtype in BUILTIN_TYPES:
        info = BY_KEY.get((rtype.group, rtype.version, rtype.plural))
        assert info is not None, f"{rtype.key} is missing from BUILTIN_RESOURCES"
        assert (info.kind, info.namespaced) == (rtype.kind, rtype.namespaced)
        assert set(rtype.verbs) <= set(info.verbs), rtype.key
        assert set(rtype.subresources) <= set(info.subresources), rtype.key


@pytest.mark.parametrize(("info", "verb"), VERB_CASES)
def test_verb_against_the_embedded_server(clientset: Clientset, served: set[Any],
                                          info: ResourceInfo, verb: str) -> None:
    if (info.group, info.version, info.resource) not in served:
        pytest.skip(f"the embedded server does not serve {info.group_resource} yet")
    VERB_TESTS[verb](clientset, info)


def _check_get(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    created = client.create(sample(info, name, {"verb": "get"}))
    got = client.get(name)
    assert got["metadata"]["uid"] == created["metadata"]["uid"]
    assert got["kind"] == info.kind and got["apiVersion"] == info.api_version
    with pytest.raises(NotFound):
        client.get(new_name(info))


def _check_list(cs: Clientset, info: ResourceInfo) -> None:
    client, label = typed(cs, info), unique("l")
    names = sorted(new_name(info) for _ in range(2))
    for name in names:
        client.create(sample(info, name, {"run": label}))
    listed = client.list(label_selector={"run": label})
    assert sorted(o["metadata"]["name"] for o in listed["items"]) == names
    assert listed["kind"] == f"{info.kind}List" and listed["metadata"]["resourceVersion"]
    if info.namespaced:  # namespace "" lists every namespace, like Go's Pods("")
        everywhere = typed(cs, info, "").list(label_selector=f"run={label}")
        assert len(everywhere["items"]) == 2
    page = client.list(label_selector={"run": label}, limit=1)
    assert len(page["items"]) == 1 and page["metadata"]["continue"]


def _check_watch(cs: Clientset, info: ResourceInfo) -> None:
    client, label, name = typed(cs, info), unique("l"), new_name(info)
    rv = client.list(label_selector={"run": label})["metadata"]["resourceVersion"]
    client.create(sample(info, name, {"run": label}))
    with client.watch(resource_version=rv, label_selector={"run": label},
                      timeout_seconds=5) as watch:
        event = next(iter(watch))
    assert event.type == "ADDED" and event.object["metadata"]["name"] == name


def _check_create(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    body = sample(info, name, {"verb": "create"})
    created = client.create(body)
    assert "apiVersion" not in body  # the caller's dict is not changed
    assert created["kind"] == info.kind and created["apiVersion"] == info.api_version
    assert created["metadata"]["name"] == name and created["metadata"]["uid"]
    if info.namespaced:
        assert created["metadata"]["namespace"] == NS


def _check_update(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    created = client.create(sample(info, name, {"verb": "update"}))
    changed = client.get(name)
    changed["metadata"]["labels"]["changed"] = "yes"
    updated = client.update(changed)
    assert updated["metadata"]["labels"]["changed"] == "yes"
    assert int(updated["metadata"]["resourceVersion"]) > int(
        created["metadata"]["resourceVersion"])
    with pytest.raises(Conflict):
        client.update(changed)  # its resourceVersion is stale now


def _check_update_status(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    client.create(sample(info, name, {"verb": "update-status"}))
    obj = client.get(name)
    change = STATUS[info.kind](obj.get("status") or {})
    obj["status"] = {**(obj.get("status") or {}), **change}
    updated = client.update_status(obj)
    assert_has(updated["status"], change)
    assert client.get(name)["status"] == updated["status"]


def _check_patch(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    client.create(sample(info, name, {"verb": "patch"}))
    patched = client.patch(name, {"metadata": {"labels": {"patched": "merge"}}})
    assert_has(patched["metadata"]["labels"], {"verb": "patch", "patched": "merge"})
    patched = client.patch(name, [{"op": "remove", "path": "/metadata/labels/verb"}],
                           patch_type="json")
    assert "verb" not in patched["metadata"]["labels"]
    assert patched["metadata"]["labels"]["patched"] == "merge"


def _check_apply(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    first = client.apply(sample(info, name, {"verb": "apply"}), field_manager="typed-test")
    assert_has(first["metadata"]["labels"], {"verb": "apply"})  # apply created it
    again = client.apply(sample(info, name, {"verb": "apply", "again": "yes"}),
                         field_manager="typed-test")
    assert_has(again["metadata"]["labels"], {"verb": "apply", "again": "yes"})
    assert again["metadata"]["uid"] == first["metadata"]["uid"]
    managers = {m["manager"] for m in again["metadata"]["managedFields"]}
    assert "typed-test" in managers


def _check_apply_status(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    created = client.create(sample(info, name, {"verb": "apply-status"}))
    change = STATUS[info.kind](created.get("status") or {})
    applied = client.apply_status({"metadata": {"name": name}, "status": change},
                                  field_manager="typed-status", force=True)
    assert_has(applied["status"], change)


def _check_delete(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    client.create(sample(info, name, {"verb": "delete"}))
    answer = client.delete(name)
    assert answer["kind"] in ("Status", info.kind)
    wait_until(lambda: gone(client, name), what=f"{info.group_resource} {name} to go")
    with pytest.raises(NotFound):
        client.delete(name)


def _check_delete_collection(cs: Clientset, info: ResourceInfo) -> None:
    client, label, keep = typed(cs, info), unique("l"), new_name(info)
    for _ in range(2):
        client.create(sample(info, new_name(info), {"run": label}))
    client.create(sample(info, keep, {"run": "kept"}))
    client.delete_collection(label_selector={"run": label})
    wait_until(lambda: not client.list(label_selector={"run": label})["items"],
               what="the collection to be deleted")
    assert client.get(keep)["metadata"]["name"] == keep


def _check_get_scale(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    created = client.create(sample(info, name, {"verb": "get-scale"}))
    scale = client.get_scale(name)
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["metadata"]["uid"] == created["metadata"]["uid"]
    assert scale["spec"] == {"replicas": 1}
    assert scale["status"]["selector"] == "app=typed"


def _check_update_scale(cs: Clientset, info: ResourceInfo) -> None:
    client, name = typed(cs, info), new_name(info)
    client.create(sample(info, name, {"verb": "update-scale"}))
    scale = client.get_scale(name)
    scale["spec"]["replicas"] = 4
    updated = client.update_scale(name, scale)
    assert updated["spec"] == {"replicas": 4}
    assert client.get(name)["spec"]["replicas"] == 4
    with pytest.raises(Conflict):
        client.update_scale(name, scale)  # the parent moved on: stale resourceVersion


VERB_TESTS = {
    "get": _check_get, "list": _check_list, "watch": _check_watch, "create": _check_create,
    "update": _check_update, "update_status": _check_update_status, "patch": _check_patch,
    "apply": _check_apply, "apply_status": _check_apply_status, "delete": _check_delete,
    "delete_collection": _check_delete_collection, "get_scale": _check_get_scale,
    "update_scale": _check_update_scale,
}


def test_every_generated_verb_has_a_test() -> None:
    assert {verb for _, verb in (case.values for case in VERB_CASES)} == set(VERB_TESTS)


# -- scale round trip, typed vs dynamic, namespaces -------------------------------------------


def test_scale_round_trip_of_a_deployment(clientset: Clientset) -> None:
    deployments = clientset.apps_v1().deployments(NS)
    deployments.create({"metadata": {"name": "scaled"}, **_workload("Deployment", {})})
    scale = deployments.get_scale("scaled")
    assert scale["spec"]["replicas"] == 1
    scale["spec"]["replicas"] = 5
    assert deployments.update_scale("scaled", scale)["spec"]["replicas"] == 5
    deployment = deployments.get("scaled")
    assert deployment["spec"]["replicas"] == 5
    assert deployment["metadata"]["generation"] == 2  # a spec change, as the server counts it
    again = deployments.get_scale("scaled")
    assert again["spec"]["replicas"] == 5
    assert again["metadata"]["resourceVersion"] == deployment["metadata"]["resourceVersion"]
    patched = deployments.patch("scaled", {"spec": {"replicas": 2}}, subresource="scale")
    assert patched["kind"] == "Scale" and patched["spec"]["replicas"] == 2
    assert deployments.get("scaled")["spec"]["replicas"] == 2


@pytest.mark.parametrize("info", EMBEDDED, ids=[i.group_resource for i in EMBEDDED])
def test_typed_and_dynamic_clients_return_the_same_objects(
        clientset: Clientset, dynamic: DynamicClient, served: set[Any],
        info: ResourceInfo) -> None:
    if (info.group, info.version, info.resource) not in served:
        pytest.skip(f"the embedded server does not serve {info.group_resource} yet")
    client, label, name = typed(clientset, info), unique("l"), new_name(info)
    same = dynamic.resource(info.api_version, info.resource)
    if info.namespaced:
        same = same.namespace(NS)
    created = client.create(sample(info, name, {"run": label}))
    settled(client, info, name)
    created = client.get(name)
    assert created == same.get(name)
    assert client.list(label_selector={"run": label}) == same.list(label_selector={"run": label})
    rv = created["metadata"]["resourceVersion"]
    assert client.patch(name, {"metadata": {"annotations": {"a": "1"}}}) == same.get(name)
    with client.watch(resource_version=rv, label_selector={"run": label},
                      timeout_seconds=5) as typed_watch:
        typed_event = next(iter(typed_watch))
    with same.watch(resource_version=rv, label_selector={"run": label},
                    timeout_seconds=5) as dynamic_watch:
        dynamic_event = next(iter(dynamic_watch))
    assert typed_event == dynamic_event and typed_event.type == "MODIFIED"
    if "scale" in info.subresources:
        assert client.get_scale(name) == same.get(name, subresource="scale")


def test_namespaced_verbs_need_a_namespace_but_list_spans_all(clientset: Clientset) -> None:
    clientset.core_v1().namespaces().create({"metadata": {"name": "typed-other"}})
    label = unique("l")
    for namespace in (NS, "typed-other"):
        clientset.core_v1().config_maps(namespace).create(
            {"metadata": {"name": "same-name", "labels": {"run": label}}})
    everywhere = clientset.core_v1().config_maps()
    assert repr(everywhere) == "<ConfigMapInterface configmaps in all namespaces>"
    items = everywhere.list(label_selector={"run": label})["items"]
    assert sorted(o["metadata"]["namespace"] for o in items) == [NS, "typed-other"]
    with pytest.raises(NamespaceRequiredError, match=r'config_maps\("<namespace>"\)') as err:
        everywhere.get("same-name")
    assert isinstance(err.value, KubenbError) and "get needs a namespace" in str(err.value)
    with pytest.raises(NamespaceRequiredError):
        everywhere.create({"metadata": {"name": "x", "namespace": NS}})
    everywhere.delete_collection(label_selector={"run": label})
    wait_until(lambda: not everywhere.list(label_selector={"run": label})["items"],
               what="configmaps in every namespace to be deleted")
    nodes = clientset.core_v1().nodes()  # cluster-scoped: no namespace argument at all
    assert repr(nodes) == "<NodeInterface nodes cluster-scoped>"
    assert "namespace" not in inspect.signature(clientset.core_v1().nodes).parameters


def test_a_wrong_body_is_rejected_with_a_clear_error(clientset: Clientset) -> None:
    with pytest.raises(TypeError, match="configmaps: expected the object as a dict"):
        clientset.core_v1().config_maps(NS).create("not a dict")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"pods: the object has no metadata\.name"):
        clientset.core_v1().pods(NS).apply_status({"status": {}}, field_manager="m")
    with pytest.raises(BadRequest, match='cannot be handled as a ConfigMap'):
        # a kind the caller wrote is sent as written, not replaced by the accessor's
        clientset.core_v1().config_maps(NS).create(
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "wrong-kind"}})


def test_leases_round_trip_when_served(clientset: Clientset, served: set[Any]) -> None:
    if ("coordination.k8s.io", "v1", "leases") not in served:
        pytest.skip("the embedded server does not serve leases")
    leases = clientset.coordination_v1().leases("kube-system")
    lease = leases.create({"metadata": {"name": "typed-leader"},
                           "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}})
    lease["spec"]["holderIdentity"] = "b"
    assert leases.update(lease)["spec"]["holderIdentity"] == "b"
    with pytest.raises(Conflict):
        leases.update(lease)  # what leader election relies on: one winner per version


# -- names, docstrings, dir(): what a notebook shows ---------------------------------------------


@pytest.mark.parametrize(("group", "version", "resource", "kind", "python", "go"), [
    ("", "v1", "configmaps", "ConfigMap", "config_maps", "ConfigMaps"),
    ("", "v1", "pods", "Pod", "pods", "Pods"),
    ("", "v1", "endpoints", "Endpoints", "endpoints", "Endpoints"),
    ("", "v1", "componentstatuses", "ComponentStatus", "component_statuses",
     "ComponentStatuses"),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
     "custom_resource_definitions", "CustomResourceDefinitions"),
    ("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", "network_policies",
     "NetworkPolicies"),
    ("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity",
     "csi_storage_capacities", "CSIStorageCapacities"),
    ("apiregistration.k8s.io", "v1", "apiservices", "APIService", "api_services", "APIServices"),
    ("networking.k8s.io", "v1beta1", "servicecidrs", "ServiceCIDR", "service_cidrs",
     "ServiceCIDRs"),
    ("example.com", "v1", "people", "Person", "people", "People"),
])
def test_accessor_names_follow_client_go(group: str, version: str, resource: str, kind: str,
                                         python: str, go: str) -> None:
    info = ResourceInfo(group, version, resource, kind, True)
    assert resource_accessor(info) == python
    assert go_plural(info) == go


@pytest.mark.parametrize(("group", "version", "python", "go"), [
    ("", "v1", "core_v1", "CoreV1"),
    ("apps", "v1", "apps_v1", "AppsV1"),
    ("coordination.k8s.io", "v1", "coordination_v1", "CoordinationV1"),
    ("apiextensions.k8s.io", "v1", "apiextensions_v1", "ApiextensionsV1"),
    ("rbac.authorization.k8s.io", "v1", "rbac_v1", "RbacV1"),
    ("flowcontrol.apiserver.k8s.io", "v1", "flowcontrol_v1", "FlowcontrolV1"),
    ("admissionregistration.k8s.io", "v1alpha1", "admissionregistration_v1alpha1",
     "AdmissionregistrationV1alpha1"),
    ("apiserverinternal.k8s.io", "v1alpha1", "internal_v1alpha1", "InternalV1alpha1"),
    ("sample-controller.k8s.io", "v1alpha1", "samplecontroller_v1alpha1",
     "SamplecontrollerV1alpha1"),
])
def test_group_accessor_names_follow_client_go(group: str, version: str, python: str,
                                               go: str) -> None:
    assert group_accessor(group, version) == python
    assert go_group_accessor(group, version) == go


def test_the_built_in_table_is_what_a_real_1_32_server_discovers() -> None:
    real = []
    for name in ("aggregated-api-v2.json", "aggregated-apis-v2.json"):
        body = json.loads((REALAPI / "discovery" / name).read_text())["response"]["body"]
        for group in body["items"]:
            for version in group["versions"]:
                for res in version["resources"]:
                    real.append((group["metadata"].get("name", ""), version["version"],
                                 res["resource"], res["responseKind"]["kind"],
                                 res["scope"] == "Namespaced", sorted(res["verbs"]),
                                 [s["subresource"] for s in res.get("subresources") or []]))
    ours = [(i.group, i.version, i.resource, i.kind, i.namespaced, sorted(i.verbs),
             list(i.subresources)) for i in BUILTIN_RESOURCES]
    assert ours == [r for r in real if r[0] != "samplecontroller.k8s.io"]  # the fixture's CRD


def test_dir_and_help_show_the_accessors_and_their_go_twins(clientset: Clientset) -> None:
    names = dir(Clientset)  # on the class: completion works before any request
    for accessor in ("core_v1", "apps_v1", "coordination_v1", "apiextensions_v1", "rbac_v1",
                     "batch_v1", "autoscaling_v2", "discovery"):
        assert accessor in names
    assert "CoreV1()" in Clientset.core_v1.__doc__
    core = clientset.core_v1()
    assert core is clientset.core_v1()  # one group client per clientset, like Go's
    assert {"pods", "config_maps", "nodes", "namespaces", "endpoints"} <= set(dir(core))
    assert "CoreV1().Pods(namespace)" in core.pods.__doc__
    assert "CoreV1().ConfigMaps(namespace)" in core.config_maps.__doc__
    assert core.rest_client() is clientset.rest
    pods = core.pods(NS)
    assert type(pods).__name__ == "PodInterface" and "CoreV1().Pods(namespace)" in type(
        pods).__doc__
    assert pods.get.__doc__.splitlines()[-1] == (
        "Go: CoreV1().Pods(namespace).Get(ctx context.Context, name string, "
        "opts metav1.GetOptions) (*corev1.Pod, error)")
    assert list(inspect.signature(pods.get).parameters) == ["name", "resource_version"]
    assert list(inspect.signature(pods.patch).parameters)[:3] == ["name", "body", "patch_type"]
    scale_doc = clientset.apps_v1().deployments(NS).update_scale.__doc__
    assert "AppsV1().Deployments(namespace).UpdateScale(" in scale_doc
    assert "*autoscalingv1.Scale" in scale_doc
    crds = clientset.apiextensions_v1().custom_resource_definitions()
    assert "ApiextensionsV1().CustomResourceDefinitions()" in crds.list.__doc__


def test_methods_are_only_the_verbs_the_resource_serves(clientset: Clientset) -> None:
    def methods(client: TypedClient) -> set[str]:
        return {n for n in dir(client) if callable(getattr(client, n)) and not n.startswith("_")}

    every = {"get", "list", "watch", "create", "update", "patch", "apply", "delete",
             "delete_collection"}
    assert methods(clientset.core_v1().config_maps(NS)) == every
    assert methods(clientset.core_v1().pods(NS)) == every | {"update_status", "apply_status"}
    assert methods(clientset.core_v1().namespaces()) == (
        every - {"delete_collection"}) | {"update_status", "apply_status"}
    assert methods(clientset.apps_v1().deployments(NS)) == every | {
        "update_status", "apply_status", "get_scale", "update_scale"}
    assert methods(clientset.authentication_v1().token_reviews()) == {"create"}
    assert methods(clientset.core_v1().component_statuses()) == {"get", "list"}


def test_cluster_clientset_is_made_once_over_the_cluster_connection(
        server: EmbeddedServer) -> None:
    with kubenb.connect(str(server.kubeconfig_path)) as cluster:
        assert cluster.clientset is cluster.clientset
        assert cluster.clientset.rest is cluster.rest
        assert cluster.clientset.discovery() is cluster.discovery
        cluster.clientset.core_v1().config_maps(NS).create({"metadata": {"name": "via-cluster"}})
        assert cluster.resource("cm").get("via-cluster")["kind"] == "ConfigMap"
    config = load_config(str(server.kubeconfig_path))
    made = new_for_config(config)
    try:
        assert made.core_v1().config_maps(NS).get("via-cluster")["metadata"]["name"] == (
            "via-cluster")
    finally:
        made.rest.close()


# -- what discovery adds ---------------------------------------------------------------------


def test_a_crd_group_appears_through_discovery(clientset: Clientset) -> None:
    crds = clientset.apiextensions_v1().custom_resource_definitions()
    for group in ("gadgets.example.com", "apps.example.com"):
        crds.create({"metadata": {"name": f"widgets.{group}"}, **_crd_body(f"widgets.{group}")})
    clientset.refresh()
    names = dir(clientset)
    assert "gadgets_v1" in names
    assert "apps_example_com_v1" in names  # apps_v1 is the built-in group's
    widgets = clientset.gadgets_v1().widgets(NS)
    assert "GadgetsV1().Widgets(namespace)" in widgets.create.__doc__
    created = widgets.create({"metadata": {"name": "w1"}, "spec": {"size": 3}})
    assert created["apiVersion"] == "gadgets.example.com/v1" and created["kind"] == "Widgets"
    assert [o["metadata"]["name"] for o in widgets.list()["items"]] == ["w1"]
    assert clientset.apps_example_com_v1().widgets(NS).list()["items"] == []
    with pytest.raises(AttributeError, match="no group accessor 'nosuch_v1'"):
        clientset.nosuch_v1  # noqa: B018


class StaticDiscovery:
    """A discovery stand-in answering from a list (no server: naming only)."""

    def __init__(self, resources: list[ResourceInfo], fail: bool = False) -> None:
        self.resources = resources
        self.fail = fail

    def server_resources(self) -> list[ResourceInfo]:
        if self.fail:
            raise KubenbError("discovery is down")
        return self.resources

    def invalidate(self) -> None:
        pass


def test_discovery_adds_new_groups_and_new_resources_of_built_in_groups(
        rest: RESTClient) -> None:
    extra = [ResourceInfo("apps", "v1", "widgets", "Widget", True, verbs=("get", "list")),
             ResourceInfo("resource.k8s.io", "v1beta1", "resourceclaims", "ResourceClaim",
                          True, verbs=("get", "list", "watch", "create"),
                          subresources=("status",)),
             *BUILTIN_RESOURCES[:3]]
    clientset = Clientset(rest, discovery=StaticDiscovery(extra))  # type: ignore[arg-type]
    assert "resource_v1beta1" in dir(clientset)
    claims = clientset.resource_v1beta1().resource_claims("ns")
    assert claims.resource_client.path() == "/apis/resource.k8s.io/v1beta1/namespaces/ns/" \
                                            "resourceclaims"
    assert "ResourceV1beta1().ResourceClaims(namespace)" in claims.get.__doc__
    assert not hasattr(claims, "update_status")  # no update verb served
    apps = clientset.apps_v1()
    assert "widgets" in dir(apps) and "deployments" in dir(apps)
    assert apps.widgets("ns").resource_client.path("w") == "/apis/apps/v1/namespaces/ns/widgets/w"
    offline = Clientset(rest, discovery=StaticDiscovery([], fail=True))  # type: ignore[arg-type]
    assert "core_v1" in dir(offline) and "widgets" not in dir(offline.apps_v1())


def test_porting_doc_lists_every_built_in_accessor() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "porting.md").read_text()
    for info in BUILTIN_RESOURCES:
        arg = "ns" if info.namespaced else ""
        row = (f"| `{group_accessor(info.group, info.version)}().{resource_accessor(info)}({arg})`"
               f" | `{go_group_accessor(info.group, info.version)}().{go_plural(info)}({arg})` |")
        assert row in doc, row
