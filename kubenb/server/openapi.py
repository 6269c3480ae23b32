"""OpenAPI for what the server serves: `/openapi/v3` (the index) and one document per
group-version, with a schema for every built-in kind so `kubectl explain pods.spec`
works, and the PATCH operations that tell kubectl every type validates fields on the
server (so `kubectl create -f` leaves validation to the server) and which patch types
it takes (so `kubectl apply` computes its strategic merge patch from v3 and does not
fall back to v2); `/openapi/v2`, the same schemas as one Swagger 2.0 document.

The schemas are generated from kubenb.server.k8s_types (the Go struct tags of k8s.io/api
v1.32): every field with its JSON name and type, in Go order; references between structs
as `allOf: [{$ref}]`, as the real documents write them; required fields (those Go always
writes); and the list and map markers clients act on (x-kubernetes-list-type, -list-map-keys,
-map-type, -patch-strategy, -patch-merge-key). Simplified: descriptions only for the kinds
themselves (the real ones are Kubernetes' documentation, not copied here), integers without
their int32/int64 format, no enums or defaults, and custom resources, CustomResourceDefinitions
and any kind missing from the table get a generic object schema (apiVersion, kind, metadata,
anything else).
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from kubenb.server import typeinfo
from kubenb.server.resources import ResourceRegistry, ResourceType

__all__ = ["group_version_doc", "index_doc", "swagger_doc"]

_QUERY_PARAMS = ("dryRun", "fieldManager", "fieldValidation", "force")
_REF = "#/components/schemas/"
_PACKAGES = {
    "meta/v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
    "apiregistration/v1": "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1",
}
_SPECIAL: dict[str, tuple[str, dict[str, Any]]] = {
    "q": ("io.k8s.apimachinery.pkg.api.resource.Quantity", {"type": "string"}),
    "t": ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", {"type": "string", "format": "date-time"}),
    "m": ("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
          {"type": "string", "format": "date-time"}),
    "io": ("io.k8s.apimachinery.pkg.util.intstr.IntOrString",
           {"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": True}),
    "raw": ("io.k8s.apimachinery.pkg.runtime.RawExtension", {"type": "object"}),
    "fv1": ("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", {"type": "object"}),
}
_SCALAR: dict[str, dict[str, Any]] = {
    "s": {"type": "string"}, "b": {"type": "boolean"}, "i": {"type": "integer"},
    "f": {"type": "number", "format": "double"}, "y": {"type": "string", "format": "byte"},
    "d": {"type": "string"},
}
_KIND_DOCS: dict[str, str] = {
    "Pod": "A Pod is a group of containers scheduled onto one node. (kubenb: the embedded "
           "server stores pods; no kubelet runs them.)",
    "Service": "A Service names a set of pods (its selector) and the ports they serve, behind "
               "one cluster IP.",
    "Deployment": "A Deployment keeps a number of identical pods, rolled out through "
                  "ReplicaSets.",
    "ReplicaSet": "A ReplicaSet keeps a number of pods matching its selector.",
    "StatefulSet": "A StatefulSet keeps pods with stable names and storage.",
    "DaemonSet": "A DaemonSet keeps one pod on each (selected) node.",
    "Job": "A Job runs pods until a number of them complete.",
    "CronJob": "A CronJob creates Jobs on a schedule.",
    "ConfigMap": "A ConfigMap holds configuration data (string and binary values by key).",
    "Secret": "A Secret holds sensitive data by key (base64 in JSON).",
    "Namespace": "A Namespace is a scope for names.",
    "Node": "A Node is a machine pods run on.",
    "ServiceAccount": "A ServiceAccount is an identity for processes in pods.",
    "Event": "An Event reports something that happened to an object.",
    "Lease": "A Lease is a time-bound claim (leader election, node heartbeats).",
    "Ingress": "An Ingress routes outside HTTP traffic to services.",
    "NetworkPolicy": "A NetworkPolicy says which traffic pods accept and send.",
    "Role": "A Role grants verbs on resources in one namespace.",
    "ClusterRole": "A ClusterRole grants verbs on resources cluster-wide.",
    "RoleBinding": "A RoleBinding grants a Role (or ClusterRole) to subjects in a namespace.",
    "ClusterRoleBinding": "A ClusterRoleBinding grants a ClusterRole to subjects everywhere.",
}


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _object_path(rtype: ResourceType) -> str:
    base = "/" + _gv_path(rtype.group, rtype.version)
    if rtype.namespaced:
        return f"{base}/namespaces/{{namespace}}/{rtype.plural}/{{name}}"
    return f"{base}/{rtype.plural}/{{name}}"


def _schema_name(sid: str) -> str:
    """The components/schemas name of a struct (`io.k8s.api.core.v1.Pod`)."""
    package, _, name = sid.rpartition(".")
    prefix = _PACKAGES.get(package, "io.k8s.api." + package.replace("/", "."))
    return f"{prefix}.{name}"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF + name}


def _type_schema(kind: str, wanted: set[str]) -> dict[str, Any]:
    """The schema of one value of a table type; structs are added to `wanted`."""
    if kind.startswith("[]"):
        return {"type": "array", "items": _type_schema(kind[2:], wanted)}
    if kind.startswith("{}"):
        return {"type": "object", "additionalProperties": _type_schema(kind[2:], wanted)}
    if kind.startswith("@"):
        wanted.add(kind[1:])
        return _ref(_schema_name(kind[1:]))
    if kind in _SPECIAL:
        return _ref(_SPECIAL[kind][0])
    return dict(_SCALAR[kind])


def _field_schema(f: typeinfo.FieldInfo, wanted: set[str]) -> dict[str, Any]:
    schema = _type_schema(f.type, wanted)
    if "$ref" in schema:  # as the real documents: a reference sits in allOf
        schema = {"allOf": [schema]}
        if not f.pointer:
            schema["default"] = {}
    if f.is_list:
        if f.list_type:
            schema["x-kubernetes-list-type"] = f.list_type
        if f.map_keys:
            schema["x-kubernetes-list-map-keys"] = list(f.map_keys)
    if f.atomic and not f.is_list:
        schema["x-kubernetes-map-type"] = "atomic"
    if f.patch_strategy:
        schema["x-kubernetes-patch-strategy"] = f.patch_strategy.replace("+", ",")
    if f.patch_merge_key:
        schema["x-kubernetes-patch-merge-key"] = f.patch_merge_key
    return schema


def _fields(info: typeinfo.StructInfo) -> list[typeinfo.FieldInfo]:
    out: list[typeinfo.FieldInfo] = []
    for f in info.fields:
        if f.inline and f.ref:
            out += _fields(typeinfo.struct(f.ref))
        else:
            out.append(f)
    return out


def _struct_schema(info: typeinfo.StructInfo, wanted: set[str],
                   kind: tuple[str, str, str] | None) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    if kind is not None:
        properties["apiVersion"] = {"type": "string"}
        properties["kind"] = {"type": "string"}
    for f in _fields(info):
        properties[f.name] = _field_schema(f, wanted)
    schema: dict[str, Any] = {}
    if kind is not None and kind[2] in _KIND_DOCS:
        schema["description"] = _KIND_DOCS[kind[2]]
    schema["type"] = "object"
    schema["properties"] = properties
    required = [f.name for f in _fields(info) if not f.omitempty and not f.pointer]
    if required:
        schema["required"] = required
    if info.atomic:
        schema["x-kubernetes-map-type"] = "atomic"
    if kind is not None:
        schema["x-kubernetes-group-version-kind"] = [
            {"group": kind[0], "kind": kind[2], "version": kind[1]}]
    return schema


def _generic_schema(rtype: ResourceType) -> dict[str, Any]:
    return {"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"allOf": [_ref(_schema_name("meta/v1.ObjectMeta"))], "default": {}}},
        "x-kubernetes-preserve-unknown-fields": True,
        "x-kubernetes-group-version-kind": [
            {"group": rtype.group, "kind": rtype.kind, "version": rtype.version}]}


def _kind_schema_name(rtype: ResourceType) -> str:
    """Where a served kind's schema is in its document."""
    info = None if rtype.custom else typeinfo.kind_struct(rtype.group, rtype.version,
                                                          rtype.kind)
    if info is not None:
        return _schema_name(info.id)
    group = rtype.group or "core"
    return ".".join(reversed(group.split("."))) + f".{rtype.version}.{rtype.kind}"


def _schemas(types: list[ResourceType]) -> dict[str, Any]:
    """components/schemas for the kinds of `types` and every struct they reach."""
    out: dict[str, Any] = {}
    wanted: set[str] = {"meta/v1.ObjectMeta"}
    done: set[str] = set()
    for rtype in types:
        info = None if rtype.custom else typeinfo.kind_struct(rtype.group, rtype.version,
                                                              rtype.kind)
        if info is None:
            out[_kind_schema_name(rtype)] = _generic_schema(rtype)
            continue
        out[_schema_name(info.id)] = _struct_schema(
            info, wanted, (rtype.group, rtype.version, rtype.kind))
        done.add(info.id)
    while wanted - done:
        sid = min(wanted - done)
        done.add(sid)
        out[_schema_name(sid)] = _struct_schema(typeinfo.struct(sid), wanted, None)
    for name, schema in _SPECIAL.values():
        out[name] = dict(schema)
    return dict(sorted(out.items()))


def group_version_doc(registry: ResourceRegistry, group: str, version: str
                      ) -> dict[str, Any] | None:
    """The OpenAPI v3 document of one group-version, or None if it is not served."""
    types = registry.in_group_version(group, version)
    if not types:
        return None
    return _document(tuple(types))


@functools.lru_cache(maxsize=64)
def _document(types: tuple[ResourceType, ...]) -> dict[str, Any]:
    params = [{"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
              for name in _QUERY_PARAMS]
    paths: dict[str, Any] = {}
    for rtype in types:
        if not rtype.stored:
            continue
        gvk = {"group": rtype.group, "version": rtype.version, "kind": rtype.kind}
        ok = {"200": {"description": "OK", "content": {"application/json": {
            "schema": _ref(_kind_schema_name(rtype))}}}}
        body_schema = {"schema": {"type": "object"}}
        operation = {"operationId": f"patch{rtype.kind}", "parameters": params,
                     "requestBody": {"content": dict.fromkeys(_patch_types(rtype), body_schema),
                                     "required": True},
                     "responses": ok, "x-kubernetes-action": "patch",
                     "x-kubernetes-group-version-kind": gvk}
        get = {"operationId": f"read{rtype.kind}", "responses": ok,
               "x-kubernetes-action": "get", "x-kubernetes-group-version-kind": gvk}
        paths[_object_path(rtype)] = {"get": get, "patch": operation}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes (kubenb)", "version": "v1.32.0"},
            "paths": paths, "components": {"schemas": _schemas(list(types))}}


def _patch_types(rtype: ResourceType) -> tuple[str, ...]:
    """The patch media types a PATCH of `rtype` takes (custom resources: no strategic)."""
    strategic = () if rtype.custom else ("application/strategic-merge-patch+json",)
    return ("application/apply-patch+yaml", "application/json-patch+json",
            "application/merge-patch+json", *strategic)


def _digest(doc: dict[str, Any]) -> str:
    return hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest().upper()


@functools.lru_cache(maxsize=64)
def _digest_of(types: tuple[ResourceType, ...]) -> str:
    return _digest(_document(types))


def index_doc(registry: ResourceRegistry) -> dict[str, Any]:
    """GET /openapi/v3: each group-version's document URL, with a content hash."""
    paths: dict[str, Any] = {}
    for group, versions in sorted(registry.group_versions().items()):
        for version in versions:
            types = tuple(registry.in_group_version(group, version))
            gv_path = _gv_path(group, version)
            paths[gv_path] = {"serverRelativeURL": f"/openapi/v3/{gv_path}?hash="
                                                   f"{_digest_of(types)}"}
    return {"paths": paths}


_V3_REF = "#/components/schemas/"
_V2_REF = "#/definitions/"


def _to_v2(schema: Any) -> Any:
    """A v3 schema as Swagger 2.0 writes it: references under #/definitions/, and a
    reference stands alone (v2 ignores anything beside `$ref`, so `allOf` goes)."""
    if isinstance(schema, list):
        return [_to_v2(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and "$ref" in all_of[0]:
        rest = {k: _to_v2(v) for k, v in schema.items() if k not in ("allOf", "default")}
        return {**rest, **_to_v2(all_of[0])}
    out = {k: _to_v2(v) for k, v in schema.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(_V3_REF):
        out["$ref"] = _V2_REF + ref[len(_V3_REF):]
    return out


def _v2_operations(rtype: ResourceType, action: str) -> dict[str, Any]:
    gvk = {"group": rtype.group, "kind": rtype.kind, "version": rtype.version}
    ok = {"200": {"description": "OK", "schema": {"$ref": _V2_REF + _kind_schema_name(rtype)}},
          "401": {"description": "Unauthorized"}}
    op: dict[str, Any] = {"operationId": f"{action}{rtype.kind}", "responses": ok,
                          "consumes": ["*/*"], "produces": ["application/json",
                                                            "application/yaml"],
                          "schemes": ["https"], "x-kubernetes-action": action,
                          "x-kubernetes-group-version-kind": gvk}
    if action == "patch":
        op["consumes"] = list(_patch_types(rtype))
    return op


@functools.lru_cache(maxsize=8)
def _swagger(types: tuple[ResourceType, ...], version: str) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for rtype in types:
        if not rtype.stored:
            continue
        item = _object_path(rtype)
        collection = item.rsplit("/", 1)[0]
        verbs = set(rtype.verbs)
        paths[collection] = {method: _v2_operations(rtype, action) for method, action, verb in (
            ("get", "list", "list"), ("post", "post", "create"),
            ("delete", "deletecollection", "deletecollection")) if verb in verbs}
        paths[item] = {method: _v2_operations(rtype, action) for method, action, verb in (
            ("get", "get", "get"), ("put", "put", "update"), ("patch", "patch", "patch"),
            ("delete", "delete", "delete")) if verb in verbs}
    definitions = {name: _to_v2(schema)
                   for name, schema in _schemas([t for t in types if t.stored]).items()}
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": version},
            "paths": dict(sorted(paths.items())), "definitions": definitions,
            "securityDefinitions": {"BearerToken": {
                "description": "Bearer Token authentication", "type": "apiKey",
                "name": "authorization", "in": "header"}},
            "security": [{"BearerToken": []}]}


def swagger_doc(registry: ResourceRegistry, version: str) -> dict[str, Any]:
    """GET /openapi/v2: every served kind's schema and operations in one Swagger 2.0
    document (`version` is the server's gitVersion, as the real document says)."""
    return _swagger(tuple(registry.types()), version)
