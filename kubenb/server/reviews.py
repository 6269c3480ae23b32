"""What the embedded server answers without storing: bindings, evictions, component
statuses, and the subresources that would reach a kubelet.

kube-apiserver has subresources that act on a pod (`binding` schedules it, `eviction`
deletes it) and some that are proxied to the node's kubelet (`log`, `exec`, `attach`,
`portforward`, `proxy`). The embedded server runs no container runtime, so `exec`,
`attach` and `port-forward` get a 400 Status that says so, and `proxy` a 503; a GET of
`log` goes to the pod's node's kubelet (kubenb.server.pod_logs), and only other verbs
reach here. The questions about identity and access (reviews, TokenRequest) are
kubenb.server.access_reviews'.
"""

from __future__ import annotations

import copy
from typing import Any

from kubenb.server import errors
from kubenb.server.apply import Manager
from kubenb.server.patch import MERGE_PATCH
from kubenb.server.registry import Registry
from kubenb.server.resources import ResourceType

__all__ = ["SUBRESOURCES", "serve"]

Obj = dict[str, Any]

SUBRESOURCES = ("attach", "binding", "ephemeralcontainers", "eviction", "exec", "log",
                "portforward", "proxy", "finalize", "approval")
"""The subresources answered here (status and scale are the generic registry's)."""

_NO_RUNTIME = ("the kubenb embedded API server has no container runtime: no kubelet runs "
              "containers for its pods")
_RUNTIME_VERBS = {"log": "read the logs of", "exec": "exec into", "attach": "attach to",
                  "portforward": "forward ports to"}


def serve(registry: Registry, rtype: ResourceType, namespace: str, name: str,
          subresource: str, method: str, body: Any, params: dict[str, str],
          manager: Manager) -> tuple[int, Obj]:
    """(HTTP status, answer) for a virtual resource or one of SUBRESOURCES."""
    if not rtype.stored:
        return _virtual(registry, rtype, namespace, name, method, body)
    if subresource in _RUNTIME_VERBS:
        return _runtime(registry, rtype, namespace, name, subresource, method, params)
    if subresource == "proxy":
        registry.get(rtype, namespace, name)  # 404 first, as the real server
        raise errors.StatusError(errors.status_body(
            503, "ServiceUnavailable",
            f'cannot proxy to {rtype.singular} "{name}": nothing listens behind it ('
            f"{_NO_RUNTIME}, and no network)"))
    handler = {"binding": _binding_sub, "eviction": _eviction,
               "ephemeralcontainers": _ephemeral, "finalize": _finalize,
               "approval": _approval}[subresource]
    return handler(registry, rtype, namespace, name, method, body, manager)


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _require(method: str, *allowed: str) -> None:
    if method not in allowed:
        raise errors.method_not_allowed()


def _meta(body: Any) -> Obj:
    meta = dict(body.get("metadata") or {}) if isinstance(body, dict) else {}
    meta.setdefault("creationTimestamp", None)
    return meta


def _object(body: Any, kind: str) -> Obj:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise errors.bad_request(f"the object provided is unrecognized (must be of type "
                                 f"{kind}): expected an object")
    sent = body.get("kind")
    if sent and sent != kind:
        raise errors.bad_request(f'{sent} in version "{body.get("apiVersion", "")}" cannot be '
                                 f"handled as a {kind}")
    return body


# -- reviews and other virtual resources -------------------------------------------------------


def _virtual(registry: Registry, rtype: ResourceType, namespace: str, name: str, method: str,
             body: Any) -> tuple[int, Obj]:
    if rtype.kind == "ComponentStatus":
        _require(method, "GET")
        if name:  # nothing to report: no scheduler, controller-manager or etcd of its own
            raise errors.not_found(rtype.plural, name)
        return 200, {"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {},
                     "items": []}
    _require(method, "POST")
    if name:
        raise errors.method_not_allowed()
    obj = _object(body, rtype.kind)
    if rtype.kind == "Binding":
        _bind(registry, namespace, str((obj.get("metadata") or {}).get("name") or ""), obj)
        return 201, _success(201)
    raise errors.method_not_allowed()


def _success(code: int) -> Obj:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "code": code}


# -- pod subresources ----------------------------------------------------------------------------


def _pods(registry: Registry) -> ResourceType:
    pods = registry.types.lookup("", "v1", "pods")
    assert pods is not None
    return pods


def _bind(registry: Registry, namespace: str, name: str, binding: Obj) -> None:
    """Schedule a pod: set spec.nodeName once (what a scheduler's Binding does)."""
    target = _as_dict(binding.get("target"))
    node = target.get("name")
    if not node:
        raise errors.invalid("Binding", name, [errors.cause(
            "FieldValueRequired", "target.name", "Required value")])
    pods = _pods(registry)
    with registry.storage.lock:
        pod = registry.get(pods, namespace, name)
        current = (pod.get("spec") or {}).get("nodeName")
        if current:
            raise errors.conflict("pods/binding", name, "",
                                  f'pod {name} is already assigned to node "{current}"')
        registry.patch(pods, namespace, name, MERGE_PATCH, {"spec": {"nodeName": node}},
                       manager=Manager("kube-apiserver"))


def _binding_sub(registry: Registry, rtype: ResourceType, namespace: str, name: str,
                 method: str, body: Any, manager: Manager) -> tuple[int, Obj]:
    _require(method, "POST")
    binding = _object(body, "Binding")
    sent = (binding.get("metadata") or {}).get("name")
    if sent and sent != name:
        raise errors.bad_request(f"the name of the object ({sent}) does not match the name "
                                 f"on the URL ({name})")
    _bind(registry, namespace, name, binding)
    return 201, _success(201)


def _eviction(registry: Registry, rtype: ResourceType, namespace: str, name: str,
              method: str, body: Any, manager: Manager) -> tuple[int, Obj]:
    """Delete the pod (PodDisruptionBudgets are not consulted: no controller keeps their
    status, so every budget would read zero disruptions allowed)."""
    _require(method, "POST")
    eviction = _object(body, "Eviction")
    options = _as_dict(eviction.get("deleteOptions"))
    registry.delete(rtype, namespace, name, options)
    return 201, _success(201)


def _runtime(registry: Registry, rtype: ResourceType, namespace: str, name: str,
             subresource: str, method: str, params: dict[str, str]) -> tuple[int, Obj]:
    _require(method, "GET", "POST")
    pod = registry.get(rtype, namespace, name)
    spec = pod.get("spec") or {}
    containers = [c.get("name") for key in ("containers", "initContainers",
                                            "ephemeralContainers")
                  for c in spec.get(key) or [] if isinstance(c, dict)]
    wanted = params.get("container")
    if wanted and wanted not in containers:
        raise errors.bad_request(f"container {wanted} is not valid for pod {name}")
    raise errors.bad_request(f'cannot {_RUNTIME_VERBS[subresource]} pod "{name}": '
                             f"{_NO_RUNTIME}")


def _incoming(registry: Registry, rtype: ResourceType, namespace: str, name: str,
              method: str, body: Any) -> tuple[Obj, Obj]:
    """(stored object, the object the request asks for) of a PUT or PATCH."""
    _require(method, "GET", "PUT", "PATCH")
    old = registry.get(rtype, namespace, name)
    if method == "PATCH":
        patch_type, patch = body  # the registry's patcher: same errors as a PATCH
        return old, Registry._patched(rtype, copy.deepcopy(old), patch_type, patch)
    if method == "PUT":
        return old, _object(body, rtype.kind)
    return old, old


def _ephemeral(registry: Registry, rtype: ResourceType, namespace: str, name: str,
               method: str, body: Any, manager: Manager) -> tuple[int, Obj]:
    """Only spec.ephemeralContainers changes through this subresource."""
    old, new = _incoming(registry, rtype, namespace, name, method, body)
    if method == "GET":
        return 200, old
    wanted = (new.get("spec") or {}).get("ephemeralContainers")
    updated = copy.deepcopy(old)
    updated["spec"]["ephemeralContainers"] = wanted or []
    if not wanted:
        updated["spec"].pop("ephemeralContainers")
    return 200, registry.update(rtype, namespace, name, updated, manager=manager)


def _finalize(registry: Registry, rtype: ResourceType, namespace: str, name: str,
              method: str, body: Any, manager: Manager) -> tuple[int, Obj]:
    """Only spec.finalizers changes (what the namespace controller writes last)."""
    _require(method, "PUT")
    old, new = _incoming(registry, rtype, namespace, name, method, body)
    updated = copy.deepcopy(old)
    updated["spec"] = dict(updated.get("spec") or {},
                           finalizers=list((new.get("spec") or {}).get("finalizers") or []))
    return 200, registry.update(rtype, namespace, name, updated, manager=manager)


def _approval(registry: Registry, rtype: ResourceType, namespace: str, name: str,
              method: str, body: Any, manager: Manager) -> tuple[int, Obj]:
    """Only status.conditions changes: Approved or Denied (`kubectl certificate approve`)."""
    old, new = _incoming(registry, rtype, namespace, name, method, body)
    if method == "GET":
        return 200, old
    conditions = (new.get("status") or {}).get("conditions")
    status = dict(old.get("status") or {})
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    updated = dict(copy.deepcopy(old), status=status)
    return 200, registry.update(rtype, namespace, name, updated, "status", manager)
