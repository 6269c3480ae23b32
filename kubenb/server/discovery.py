"""Discovery documents (/api, /apis, /apis/{g}, /apis/{g}/{v}, /version), built from the
resource registry and shaped like kube-apiserver 1.32's (see fixtures/realapi/discovery).
"""

from __future__ import annotations

from typing import Any

from kubenb.server.resources import ResourceRegistry, ResourceType

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

_SCALE = {"group": "autoscaling", "version": "v1", "kind": "Scale"}


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


def _resource_entries(rtype: ResourceType) -> list[dict[str, Any]]:
    main: dict[str, Any] = {"name": rtype.plural, "singularName": rtype.singular,
                            "namespaced": rtype.namespaced, "kind": rtype.kind,
                            "verbs": list(rtype.verbs)}
    if rtype.short_names:
        main["shortNames"] = list(rtype.short_names)
    if rtype.categories:
        main["categories"] = list(rtype.categories)
    entries = [main]
    for sub in sorted(rtype.subresources):
        entry: dict[str, Any] = {"name": f"{rtype.plural}/{sub}", "singularName": "",
                                 "namespaced": rtype.namespaced}
        if sub == "scale":
            entry.update(_SCALE)
        else:
            entry["kind"] = rtype.kind
        entry["verbs"] = ["get", "patch", "update"]
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
