"""What kube-apiserver itself puts in a new cluster, written when the server starts.

A real apiserver creates, besides the four system namespaces (see rest.SYSTEM_NAMESPACES):

- the `default/kubernetes` Service (cluster IP 10.96.0.1, port 443) with an Endpoints and
  an EndpointSlice pointing at the apiserver itself, kept current by its reconciler;
- the PriorityClasses `system-node-critical` and `system-cluster-critical`;
- the bootstrap RBAC roles, among them `cluster-admin` bound to the group `system:masters`.

kubenb writes the first two as the real server does and, of the RBAC defaults, only
`cluster-admin` and its binding (roles are stored, not enforced: every request is allowed).
What kube-controller-manager adds to every namespace (a `default` ServiceAccount and the
`kube-root-ca.crt` ConfigMap) is the cluster's controllers' work, not the API server's.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kubenb.server import errors
from kubenb.server.admission import KUBERNETES_SERVICE_IP, SYSTEM_PRIORITY_CLASSES
from kubenb.server.apply import Manager
from kubenb.server.registry import Registry

__all__ = ["ensure_cluster_objects"]

_APISERVER = Manager("kube-apiserver")
_BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
_AUTOUPDATE = {"rbac.authorization.kubernetes.io/autoupdate": "true"}


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


def _cluster_admin(registry: Registry) -> None:
    """ClusterRole cluster-admin (everything) bound to the group system:masters."""
    group = "rbac.authorization.k8s.io"
    _put(registry, group, "clusterroles", "", {
        "metadata": {"name": "cluster-admin", "labels": _BOOTSTRAP_LABELS,
                     "annotations": _AUTOUPDATE},
        "rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                  {"verbs": ["*"], "nonResourceURLs": ["*"]}]})
    _put(registry, group, "clusterrolebindings", "", {
        "metadata": {"name": "cluster-admin", "labels": _BOOTSTRAP_LABELS,
                     "annotations": _AUTOUPDATE},
        "subjects": [{"kind": "Group", "apiGroup": group, "name": "system:masters"}],
        "roleRef": {"apiGroup": group, "kind": "ClusterRole", "name": "cluster-admin"}})


def ensure_cluster_objects(registry: Registry, host: str, port: int, tls: bool) -> None:
    """Everything above, created once and brought up to date on every start."""
    _system_priority_classes(registry)
    _cluster_admin(registry)
    _kubernetes_service(registry, host, port, tls)
