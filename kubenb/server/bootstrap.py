"""What kube-apiserver itself puts in a new cluster, written when the server starts.

A real apiserver creates, besides the four system namespaces (see rest.SYSTEM_NAMESPACES):

- the `default/kubernetes` Service (cluster IP 10.96.0.1, port 443) with an Endpoints and
  an EndpointSlice pointing at the apiserver itself, kept current by its reconciler;
- the PriorityClasses `system-node-critical` and `system-cluster-critical`;
- the bootstrap RBAC roles and bindings: `cluster-admin` bound to the group
  `system:masters`, `admin`, `edit`, `view` (aggregated), `system:basic-user`,
  `system:discovery`, `system:public-info-viewer`, the controllers' roles, ...

kubenb writes all three as the real server does. The RBAC defaults are the objects a real
v1.32 server made (default_rbac.json, captured from one: tests/fixtures/realapi_auth),
created when missing; the aggregated roles carry the rules kube-controller-manager had
aggregated into them.
What kube-controller-manager adds to every namespace (a `default` ServiceAccount and the
`kube-root-ca.crt` ConfigMap) is the cluster's controllers' work, not the API server's.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import uuid
from pathlib import Path
from typing import Any

from kubenb.jsoncopy import json_copy
from kubenb.jsondecode import decode_json
from kubenb.server import errors
from kubenb.server.admission import KUBERNETES_SERVICE_IP, SYSTEM_PRIORITY_CLASSES
from kubenb.server.apply import Manager
from kubenb.server.encoding import now_rfc3339
from kubenb.server.registry import Registry

__all__ = ["STORED_DEFAULT_RBAC", "default_rbac", "ensure_cluster_objects", "make_default_rbac",
           "stored_default_rbac", "unstamped"]

_APISERVER = Manager("kube-apiserver")


def _ip(host: str) -> str:
    """The address endpoints name (a hostname is reached on loopback)."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return "127.0.0.1"


def _put(registry: Registry, group: str, plural: str, namespace: str, body: dict[str, Any]
         ) -> None:
    """Create `body`, or make the stored object say the same (a restart on a new port)."""
    version = "v1"
    rtype = registry.types.lookup(group, version, plural)
    assert rtype is not None
    name = body["metadata"]["name"]
    try:
        current = registry.get(rtype, namespace, name)
    except errors.StatusError:
        registry.create(rtype, namespace, body, manager=_APISERVER)
        return
    updated = dict(current, **{k: v for k, v in body.items() if k != "metadata"})
    registry.update(rtype, namespace, name, updated, manager=_APISERVER)


def _kubernetes_service(registry: Registry, host: str, port: int, tls: bool) -> None:
    """The `default/kubernetes` Service, Endpoints and EndpointSlice: the API server's own
    address (`host:port`) behind cluster IP 10.96.0.1, port 443."""
    scheme = "https" if tls else "http"  # the real port name is https; say what is served
    ip = _ip(host)
    _put(registry, "", "services", "default", {
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"ports": [{"name": scheme, "protocol": "TCP", "port": 443,
                            "targetPort": port}],
                 "clusterIP": KUBERNETES_SERVICE_IP, "clusterIPs": [KUBERNETES_SERVICE_IP],
                 "type": "ClusterIP", "sessionAffinity": "None"}})
    _put(registry, "", "endpoints", "default", {
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
        "subsets": [{"addresses": [{"ip": ip}],
                     "ports": [{"name": scheme, "port": port, "protocol": "TCP"}]}]})
    _put(registry, "discovery.k8s.io", "endpointslices", "default", {
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"kubernetes.io/service-name": "kubernetes"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
        "ports": [{"name": scheme, "protocol": "TCP", "port": port}]})


def _system_priority_classes(registry: Registry) -> None:
    """The two PriorityClasses every cluster has (pods may name them)."""
    for name, value in SYSTEM_PRIORITY_CLASSES.items():
        what = "nodes" if name == "system-node-critical" else "the cluster"
        _put(registry, "scheduling.k8s.io", "priorityclasses", "", {
            "metadata": {"name": name}, "value": value,
            "description": f"For pods {what} cannot work without.", "globalDefault": False})


@functools.lru_cache(maxsize=1)
def default_rbac() -> tuple[dict[str, Any], ...]:
    """The bootstrap RBAC objects of kube-apiserver v1.32 (read once)."""
    path = Path(__file__).with_name("default_rbac.json")
    return tuple(json.loads(path.read_text(encoding="utf-8")))


_RBAC_PLURALS = {"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings",
                 "Role": "roles", "RoleBinding": "rolebindings"}


Made = tuple[str, str, str, dict[str, Any]]  # storage key, namespace, name, object

#: default_rbac.json's objects as the registry makes them (defaults, managed fields), with
#: "" where each server stamps its own uid, creationTimestamp, resourceVersion and
#: managed fields' time. Making them through the registry takes ~60 ms, a third of a
#: cluster's start; tests/server/test_bootstrap.py checks this file against
#: `make_default_rbac` (and rewrites it with `python -m tests.server.test_bootstrap`).
STORED_DEFAULT_RBAC = Path(__file__).with_name("default_rbac_stored.json")


def make_default_rbac(registry: Registry) -> list[Made]:
    """Create every bootstrap RBAC object `registry` does not hold yet, the registry's own
    way; returns them as made."""
    group = "rbac.authorization.k8s.io"
    made = []
    for obj in default_rbac():
        rtype = registry.types.lookup(group, "v1", _RBAC_PLURALS[obj["kind"]])
        assert rtype is not None
        meta = obj["metadata"]
        namespace = meta.get("namespace", "")
        if registry.storage.get(rtype.key, namespace, meta["name"]) is not None:
            continue
        body = {k: json.loads(json.dumps(v)) for k, v in obj.items() if k != "kind"}
        created = registry.create(rtype, namespace, body, manager=_APISERVER)
        made.append((rtype.key, namespace, meta["name"], json.loads(json.dumps(created))))
    return made


def unstamped(made: Made) -> Made:
    """`made` with "" for what each server stamps anew (see STORED_DEFAULT_RBAC)."""
    key, namespace, name, obj = made
    obj = json.loads(json.dumps(obj))
    meta = obj["metadata"]
    meta["uid"] = meta["creationTimestamp"] = meta["resourceVersion"] = ""
    for entry in meta.get("managedFields") or []:
        entry["time"] = ""
    return key, namespace, name, obj


@functools.lru_cache(maxsize=1)
def stored_default_rbac() -> tuple[Made, ...]:
    """STORED_DEFAULT_RBAC, read once."""
    rows = decode_json(STORED_DEFAULT_RBAC.read_bytes())
    return tuple((key, namespace, name, obj) for key, namespace, name, obj in rows)


def _default_rbac(registry: Registry) -> None:
    """Every bootstrap Role, ClusterRole and binding that is not stored yet: copies of
    the stored ones, each with its own uid and time (what the registry would make)."""
    storage = registry.storage
    stamp = now_rfc3339()
    for key, namespace, name, made in stored_default_rbac():
        if storage.get(key, namespace, name) is None:
            obj = json_copy(made)
            meta = obj["metadata"]
            meta["uid"], meta["creationTimestamp"] = str(uuid.uuid4()), stamp
            for entry in meta.get("managedFields") or []:
                entry["time"] = stamp
            storage.put(key, namespace, name, obj)


def ensure_cluster_objects(registry: Registry, host: str, port: int, tls: bool) -> None:
    """Everything above, created once and brought up to date on every start."""
    _system_priority_classes(registry)
    _default_rbac(registry)
    _kubernetes_service(registry, host, port, tls)
