"""The registry of resource types the server serves: names, scope, verbs, subresources.

Discovery, routing, storage keys and field selectors all read from here, so adding a
built-in type (or, later, a CRD's type) is one `ResourceType` in one place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
SUB_VERBS = ("get", "patch", "update")


def _get(obj: dict[str, Any], *path: str) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)  # type: ignore[assignment]
    return obj


def _pod_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {
        "spec.nodeName": str(_get(obj, "spec", "nodeName") or ""),
        "spec.restartPolicy": str(_get(obj, "spec", "restartPolicy") or ""),
        "spec.schedulerName": str(_get(obj, "spec", "schedulerName") or ""),
        "spec.serviceAccountName": str(_get(obj, "spec", "serviceAccountName") or ""),
        "spec.hostNetwork": "true" if _get(obj, "spec", "hostNetwork") else "false",
        "status.phase": str(_get(obj, "status", "phase") or ""),
        "status.podIP": str(_get(obj, "status", "podIP") or ""),
        "status.nominatedNodeName": str(_get(obj, "status", "nominatedNodeName") or ""),
    }


def _event_fields(obj: dict[str, Any]) -> dict[str, str]:
    involved = obj.get("involvedObject") or {}
    source = obj.get("source") or {}
    out = {f"involvedObject.{k}": str(involved.get(k) or "") for k in (
        "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")}
    out.update({"reason": str(obj.get("reason") or ""),
                "reportingComponent": str(obj.get("reportingComponent") or ""),
                "source": str(source.get("component") or ""),
                "type": str(obj.get("type") or "")})
    return out


def _secret_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"type": str(obj.get("type") or "")}


def _namespace_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"status.phase": str(_get(obj, "status", "phase") or "")}


def _node_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"spec.unschedulable": "true" if _get(obj, "spec", "unschedulable") else "false"}


def _replicas_fields(obj: dict[str, Any]) -> dict[str, str]:
    replicas = _get(obj, "status", "replicas")
    return {"status.replicas": str(replicas if replicas is not None else 0)}


@dataclass(frozen=True)
class ResourceType:
    """One served resource (a row of an APIResourceList plus what the server needs)."""

    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[str, ...] = ()  # "status", "scale"
    has_generation: bool = False  # spec/status types bump metadata.generation on spec change
    returns_deleted_object: bool = False  # DELETE answers with the object, not a Status
    extra_fields: Callable[[dict[str, Any]], dict[str, str]] | None = field(
        default=None, compare=False)

    @property
    def group_version(self) -> str:
        """`apps/v1`, or `v1` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """Storage key: `plural.group` (or `plural` in the core group)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        """The fields a fieldSelector may test on `obj` (apiserver's GetAttrs)."""
        meta = obj.get("metadata") or {}
        fields = {"metadata.name": str(meta.get("name") or "")}
        if self.namespaced:
            fields["metadata.namespace"] = str(meta.get("namespace") or "")
        if self.extra_fields is not None:
            fields.update(self.extra_fields(obj))
        return fields

    def selectable_fields(self) -> list[str]:
        """Field names a fieldSelector may use, in the order the 400 message lists them."""
        names = ["metadata.name", "metadata.namespace"]
        if self.extra_fields is not None:
            names += sorted(self.extra_fields({}))
        return names


def _core(plural: str, singular: str, kind: str, namespaced: bool = True,
          **kw: Any) -> ResourceType:
    return ResourceType("", "v1", plural, singular, kind, namespaced, **kw)


def _apps(plural: str, singular: str, kind: str, **kw: Any) -> ResourceType:
    return ResourceType("apps", "v1", plural, singular, kind, True, categories=("all",),
                        subresources=("scale", "status") if kind != "DaemonSet" else ("status",),
                        has_generation=True, extra_fields=_replicas_fields if kind in (
                            "ReplicaSet",) else None, **kw)


BUILTIN_TYPES: tuple[ResourceType, ...] = (
    _core("configmaps", "configmap", "ConfigMap", short_names=("cm",)),
    _core("events", "event", "Event", short_names=("ev",), extra_fields=_event_fields),
    _core("namespaces", "namespace", "Namespace", namespaced=False, short_names=("ns",),
          verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
          subresources=("status",), returns_deleted_object=True,
          extra_fields=_namespace_fields),
    _core("nodes", "node", "Node", namespaced=False, short_names=("no",),
          subresources=("status",), extra_fields=_node_fields),
    _core("pods", "pod", "Pod", short_names=("po",), categories=("all",),
          subresources=("status",), returns_deleted_object=True, extra_fields=_pod_fields),
    _core("secrets", "secret", "Secret", extra_fields=_secret_fields),
    _core("serviceaccounts", "serviceaccount", "ServiceAccount", short_names=("sa",)),
    _core("services", "service", "Service", short_names=("svc",), categories=("all",),
          subresources=("status",), returns_deleted_object=True),
    _apps("daemonsets", "daemonset", "DaemonSet", short_names=("ds",)),
    _apps("deployments", "deployment", "Deployment", short_names=("deploy",)),
    _apps("replicasets", "replicaset", "ReplicaSet", short_names=("rs",)),
    _apps("statefulsets", "statefulset", "StatefulSet", short_names=("sts",)),
    ResourceType("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                 "customresourcedefinition", "CustomResourceDefinition", False,
                 short_names=("crd", "crds"), categories=("api-extensions",),
                 subresources=("status",), has_generation=True),
)


class ResourceRegistry:
    """Thread-safe lookup of served types by group, version and plural."""

    def __init__(self, types: Iterable[ResourceType] = BUILTIN_TYPES) -> None:
        self._lock = threading.Lock()
        self._types: dict[tuple[str, str, str], ResourceType] = {}
        for rtype in types:
            self.add(rtype)

    def add(self, rtype: ResourceType) -> None:
        """Serve `rtype` (replacing a type of the same group/version/plural)."""
        with self._lock:
            self._types[(rtype.group, rtype.version, rtype.plural)] = rtype

    def remove(self, group: str, version: str, plural: str) -> None:
        """Stop serving a type (e.g. when its CRD is deleted)."""
        with self._lock:
            self._types.pop((group, version, plural), None)

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        """The type at `/apis/{group}/{version}/{plural}`, or None."""
        with self._lock:
            return self._types.get((group, version, plural))

    def by_key(self, key: str) -> ResourceType | None:
        """The type whose storage key is `key`."""
        with self._lock:
            for rtype in self._types.values():
                if rtype.key == key:
                    return rtype
        return None

    def types(self) -> list[ResourceType]:
        """All served types, sorted by group, version, plural."""
        with self._lock:
            return [self._types[k] for k in sorted(self._types)]

    def group_versions(self) -> dict[str, list[str]]:
        """Group name -> versions served ("" is the core group)."""
        out: dict[str, list[str]] = {}
        for rtype in self.types():
            versions = out.setdefault(rtype.group, [])
            if rtype.version not in versions:
                versions.append(rtype.version)
        return out

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        """The types of one group-version, sorted by plural as discovery lists them."""
        return [t for t in self.types() if t.group == group and t.version == version]
