"""Discovery documents (/api, /apis, /apis/{g}, /apis/{g}/{v}, /version), built from the
resource registry and shaped like kube-apiserver 1.32's (see fixtures/realapi/discovery).

Both forms are here: the legacy documents (one request per group-version) and aggregated
discovery (`apidiscovery.k8s.io/v2` APIGroupDiscoveryList: every group, version and
resource of /api or /apis in one answer), which kubectl 1.32 asks for first.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kubenb.server.resources import ResourceRegistry, ResourceType

__all__ = [
    "VERSION_INFO",
    "aggregated_content_type",
    "aggregated_discovery",
    "api_group",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "etag",
]

VERSION_INFO: dict[str, str] = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-kubenb",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.5",
    "compiler": "gc",
    "platform": "linux/amd64",
}

def api_versions(server_address: str) -> dict[str, Any]:
    """GET /api: the core group's APIVersions."""
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                            "serverAddress": server_address}]}


def _group_doc(name: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": gvs, "preferredVersion": gvs[0]}


def api_group_list(registry: ResourceRegistry) -> dict[str, Any]:
    """GET /apis: every non-core group (APIGroupList)."""
    groups = [_group_doc(name, versions)
              for name, versions in registry.group_versions().items() if name]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(registry: ResourceRegistry, group: str) -> dict[str, Any] | None:
    """GET /apis/{group}: one APIGroup, or None if the group is not served."""
    versions = registry.group_versions().get(group)
    if not group or not versions:
        return None
    return dict({"kind": "APIGroup", "apiVersion": "v1"}, **_group_doc(group, versions))


_SUBRESOURCES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "status": ("", "", "", ("get", "patch", "update")),
    "scale": ("autoscaling", "v1", "Scale", ("get", "patch", "update")),
    "attach": ("", "", "PodAttachOptions", ("create", "get")),
    "binding": ("", "", "Binding", ("create",)),
    "ephemeralcontainers": ("", "", "", ("get", "patch", "update")),
    "eviction": ("policy", "v1", "Eviction", ("create",)),
    "exec": ("", "", "PodExecOptions", ("create", "get")),
    "log": ("", "", "", ("get",)),
    "portforward": ("", "", "PodPortForwardOptions", ("create", "get")),
    "proxy": ("", "", "{}ProxyOptions", ("create", "delete", "get", "patch", "update")),
    "finalize": ("", "", "", ("update",)),
    "token": ("authentication.k8s.io", "v1", "TokenRequest", ("create",)),
    "approval": ("", "", "", ("get", "patch", "update")),
}
"""Subresource -> (group, version, kind, verbs) as discovery lists them; an empty kind is
the parent's, "{}" stands for the parent's kind, an empty group its own group."""


def _subresource_info(rtype: ResourceType, sub: str) -> tuple[str, str, str, tuple[str, ...]]:
    """(group, version, kind, verbs) of one subresource of `rtype`."""
    group, version, kind, verbs = _SUBRESOURCES.get(sub, ("", "", "", ("get", "patch",
                                                                         "update")))
    kind = kind.replace("{}", rtype.kind) if kind else rtype.kind
    return group, version, kind, verbs


def _resource_entries(rtype: ResourceType) -> list[dict[str, Any]]:
    main: dict[str, Any] = {"name": rtype.plural, "singularName": rtype.singular,
                            "namespaced": rtype.namespaced, "kind": rtype.kind,
                            "verbs": list(rtype.verbs)}
    if rtype.short_names:
        main["shortNames"] = list(rtype.short_names)
    if rtype.categories:
        main["categories"] = list(rtype.categories)
    entries = [main]
    for sub in rtype.subresources:
        group, version, kind, verbs = _subresource_info(rtype, sub)
        entry: dict[str, Any] = {"name": f"{rtype.plural}/{sub}", "singularName": "",
                                 "namespaced": rtype.namespaced}
        if group:
            entry.update(group=group, version=version)
        entry["kind"] = kind
        entry["verbs"] = list(verbs)
        entries.append(entry)
    return entries


def api_resource_list(registry: ResourceRegistry, group: str, version: str
                      ) -> dict[str, Any] | None:
    """GET /api/v1 or /apis/{g}/{v}: the APIResourceList, or None if not served."""
    types = registry.in_group_version(group, version)
    if not types:
        return None
    resources = [e for t in types for e in _resource_entries(t)]
    doc: dict[str, Any] = {"kind": "APIResourceList"}
    if group:
        doc["apiVersion"] = "v1"
    doc["groupVersion"] = f"{group}/{version}" if group else version
    doc["resources"] = resources
    return doc


# -- aggregated discovery (apidiscovery.k8s.io/v2, v2beta1) ------------------------------

def aggregated_content_type(version: str) -> str:
    """The Content-Type the server answers aggregated discovery with (echoes g, v, as)."""
    return f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"


def _response_kind(rtype: ResourceType, kind: str, group: str = "", version: str = ""
                   ) -> dict[str, str]:
    if rtype.custom and not group:
        group, version = rtype.group, rtype.version
    return {"group": group, "version": version, "kind": kind}


def _aggregated_resource(rtype: ResourceType) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": rtype.plural,
        "responseKind": _response_kind(rtype, rtype.kind),
        "scope": "Namespaced" if rtype.namespaced else "Cluster",
        "singularResource": rtype.singular,
        "verbs": list(rtype.verbs),
    }
    if rtype.short_names:
        entry["shortNames"] = list(rtype.short_names)
    if rtype.categories:
        entry["categories"] = list(rtype.categories)
    subs = []
    for sub in rtype.subresources:
        group, version, kind, verbs = _subresource_info(rtype, sub)
        subs.append({"subresource": sub,
                     "responseKind": _response_kind(rtype, kind, group, version),
                     "verbs": list(verbs)})
    if subs:
        entry["subresources"] = subs
    return entry


def _aggregated_group(registry: ResourceRegistry, group: str, versions: list[str]
                      ) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": group} if group else {}
    meta["creationTimestamp"] = None
    return {"metadata": meta, "versions": [
        {"version": version,
         "resources": [_aggregated_resource(t) for t in registry.in_group_version(group,
                                                                                  version)],
         "freshness": "Current"}
        for version in versions]}


def aggregated_discovery(registry: ResourceRegistry, legacy: bool, version: str = "v2"
                         ) -> dict[str, Any]:
    """APIGroupDiscoveryList of /api (`legacy`: the core group) or of /apis (all others)."""
    items = [_aggregated_group(registry, group, versions)
             for group, versions in registry.group_versions().items()
             if (group == "") == legacy]
    return {"kind": "APIGroupDiscoveryList", "apiVersion": f"apidiscovery.k8s.io/{version}",
            "metadata": {}, "items": items}


def etag(body: bytes) -> str:
    """The quoted ETag of a discovery document (a hash of its bytes, like the apiserver's)."""
    return '"' + hashlib.sha512(body).hexdigest().upper() + '"'
