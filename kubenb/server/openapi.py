"""A minimal OpenAPI v3 surface: enough for kubectl to see that every type supports
server-side field validation (so `kubectl create -f` validates on the server instead of
downloading full schemas). Schemas themselves are not published.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kubenb.server.resources import ResourceRegistry, ResourceType

_QUERY_PARAMS = ("dryRun", "fieldManager", "fieldValidation", "force")


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _object_path(rtype: ResourceType) -> str:
    base = "/" + _gv_path(rtype.group, rtype.version)
    if rtype.namespaced:
        return f"{base}/namespaces/{{namespace}}/{rtype.plural}/{{name}}"
    return f"{base}/{rtype.plural}/{{name}}"


def group_version_doc(registry: ResourceRegistry, group: str, version: str
                      ) -> dict[str, Any] | None:
    """The OpenAPI v3 document of one group-version, or None if it is not served."""
    types = registry.in_group_version(group, version)
    if not types:
        return None
    params = [{"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
              for name in _QUERY_PARAMS]
    paths: dict[str, Any] = {}
    for rtype in types:
        gvk = {"group": rtype.group, "version": rtype.version, "kind": rtype.kind}
        operation = {"operationId": f"patch{rtype.kind}", "parameters": params,
                     "responses": {"200": {"description": "OK"}},
                     "x-kubernetes-action": "patch",
                     "x-kubernetes-group-version-kind": gvk}
        paths[_object_path(rtype)] = {"patch": operation}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes (kubenb)", "version": "v1.32.0"},
            "paths": paths, "components": {"schemas": {}}}


def _digest(doc: dict[str, Any]) -> str:
    return hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest().upper()


def index_doc(registry: ResourceRegistry) -> dict[str, Any]:
    """GET /openapi/v3: each group-version's document URL, with a content hash."""
    paths: dict[str, Any] = {}
    for group, versions in sorted(registry.group_versions().items()):
        for version in versions:
            doc = group_version_doc(registry, group, version)
            assert doc is not None
            gv_path = _gv_path(group, version)
            paths[gv_path] = {"serverRelativeURL": f"/openapi/v3/{gv_path}?hash={_digest(doc)}"}
    return {"paths": paths}
