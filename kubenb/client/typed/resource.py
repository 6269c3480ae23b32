"""Typed resource clients: client-go's `PodInterface`, `DeploymentInterface`, ... over dicts.

One class per resource is generated from its `ResourceInfo` (verbs and subresources as
discovery lists them), so a resource gets exactly the methods client-go generates for
it: `delete_collection` only where `deletecollection` is served, `update_status` only
with a status subresource, `get_scale`/`update_scale` only with a scale subresource.
Every method delegates to a `ResourceClient` (dict in, dict out) and carries a
docstring naming its Go twin, so `help()` and tab completion in a notebook show both.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from kubenb.client.discovery import ResourceInfo
from kubenb.client.dynamic import ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.client.typed.names import (
    go_group_accessor,
    go_plural,
    go_type,
    group_accessor,
    group_package,
    lower_camel,
    resource_accessor,
)
from kubenb.client.watch import Watch
from kubenb.errors import NamespaceRequiredError

__all__ = ["NamespaceRequiredError", "TypedClient", "method_names", "typed_client_class"]


class TypedClient:
    """Base of the generated per-resource clients; see the module docstring."""

    info: ClassVar[ResourceInfo]
    go_accessor: ClassVar[str]  # "CoreV1().Pods(namespace)"
    __slots__ = ("namespace", "resource_client")

    def __init__(self, rest: RESTClient, namespace: str = "") -> None:
        info = self.info
        self.namespace = namespace if info.namespaced else ""
        self.resource_client = ResourceClient(rest, info.api_version, info.resource,
                                              self.namespace or None)

    def __repr__(self) -> str:
        where = (f"in {self.namespace!r}" if self.namespace
                 else "in all namespaces" if self.info.namespaced else "cluster-scoped")
        return f"<{type(self).__name__} {self.info.group_resource} {where}>"

    def _client(self, verb: str) -> ResourceClient:
        """The ResourceClient, once a verb on one object has a namespace to go to."""
        if self.info.namespaced and not self.namespace:
            info = self.info
            accessor = f"{group_accessor(info.group, info.version)}().{resource_accessor(info)}"
            raise NamespaceRequiredError(
                f"{info.group_resource}: {verb} needs a namespace, but this client is for all "
                f"namespaces ({accessor}() with no namespace serves only list, watch and "
                f"delete_collection); use {accessor}(\"<namespace>\")")
        return self.resource_client

    def _typed(self, obj: dict[str, Any]) -> dict[str, Any]:
        """`obj` with apiVersion and kind filled in when missing, as Go's encoder does."""
        if not isinstance(obj, dict):
            raise TypeError(f"{self.info.group_resource}: expected the object as a dict, "
                            f"got {type(obj).__name__}")
        return {"apiVersion": self.info.api_version, "kind": self.info.kind, **obj}


def _name_of(info: ResourceInfo, obj: dict[str, Any]) -> str:
    name = (obj.get("metadata") or {}).get("name") if isinstance(obj, dict) else None
    if not name:
        raise ValueError(f"{info.group_resource}: the object has no metadata.name")
    return name


def _write_params(dry_run: bool, field_manager: str | None) -> dict[str, str]:
    params: dict[str, str] = {}
    if dry_run:
        params["dryRun"] = "All"
    if field_manager:
        params["fieldManager"] = field_manager
    return params


# -- the verbs (each becomes a method of every class whose resource serves it) --------------


def _get(self: TypedClient, name: str, resource_version: str | None = None) -> dict[str, Any]:
    return self._client("get").get(name, resource_version=resource_version)


def _list(self: TypedClient, label_selector: Any = None, field_selector: Any = None,
          limit: int | None = None, continue_: str | None = None,
          resource_version: str | None = None, resource_version_match: str | None = None,
          timeout_seconds: int | None = None) -> dict[str, Any]:
    return self.resource_client.list(
        label_selector=label_selector, field_selector=field_selector, limit=limit,
        continue_=continue_, resource_version=resource_version,
        resource_version_match=resource_version_match, timeout_seconds=timeout_seconds)


def _watch(self: TypedClient, resource_version: str | None = None, label_selector: Any = None,
           field_selector: Any = None, timeout_seconds: int | None = None,
           allow_watch_bookmarks: bool = False, send_initial_events: bool | None = None,
           resource_version_match: str | None = None,
           read_timeout: float | None = None) -> Watch:
    return self.resource_client.watch(
        resource_version=resource_version, label_selector=label_selector,
        field_selector=field_selector, timeout_seconds=timeout_seconds,
        allow_watch_bookmarks=allow_watch_bookmarks, send_initial_events=send_initial_events,
        resource_version_match=resource_version_match, read_timeout=read_timeout)


def _create(self: TypedClient, obj: dict[str, Any], dry_run: bool = False,
            field_manager: str | None = None) -> dict[str, Any]:
    return self._client("create").create(self._typed(obj), dry_run=dry_run,
                                         field_manager=field_manager)


def _update(self: TypedClient, obj: dict[str, Any], dry_run: bool = False,
            field_manager: str | None = None) -> dict[str, Any]:
    return self._client("update").update(self._typed(obj), dry_run=dry_run,
                                         field_manager=field_manager)


def _update_status(self: TypedClient, obj: dict[str, Any], dry_run: bool = False) -> dict[str, Any]:
    return self._client("update_status").update_status(self._typed(obj), dry_run=dry_run)


def _patch(self: TypedClient, name: str, body: Any, patch_type: str = "merge",
           field_manager: str | None = None, force: bool | None = None,
           subresource: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    return self._client("patch").patch(name, body, patch_type=patch_type,
                                       field_manager=field_manager, force=force,
                                       subresource=subresource, dry_run=dry_run)


def _apply(self: TypedClient, obj: dict[str, Any], field_manager: str, force: bool = False,
           dry_run: bool = False) -> dict[str, Any]:
    return self._client("apply").apply(self._typed(obj), field_manager=field_manager,
                                       force=force, dry_run=dry_run)


def _apply_status(self: TypedClient, obj: dict[str, Any], field_manager: str, force: bool = False,
                  dry_run: bool = False) -> dict[str, Any]:
    return self._client("apply_status").patch(
        _name_of(self.info, obj), self._typed(obj), patch_type="apply",
        field_manager=field_manager, force=force, subresource="status", dry_run=dry_run)


def _delete(self: TypedClient, name: str, propagation_policy: str | None = None,
            grace_period_seconds: int | None = None,
            preconditions: dict[str, str] | None = None, dry_run: bool = False) -> dict[str, Any]:
    return self._client("delete").delete(
        name, propagation_policy=propagation_policy, grace_period_seconds=grace_period_seconds,
        preconditions=preconditions, dry_run=dry_run)


def _delete_collection(self: TypedClient, label_selector: Any = None,
                       field_selector: Any = None,
                       propagation_policy: str | None = None) -> dict[str, Any]:
    return self.resource_client.delete_collection(
        label_selector=label_selector, field_selector=field_selector,
        propagation_policy=propagation_policy)


def _get_scale(self: TypedClient, name: str) -> dict[str, Any]:
    return self._client("get_scale").get(name, subresource="scale")


def _update_scale(self: TypedClient, name: str, scale: dict[str, Any], dry_run: bool = False,
                  field_manager: str | None = None) -> dict[str, Any]:
    client = self._client("update_scale")
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale", **scale}
    return client.rest.put(client.path(name, "scale"), body,
                           _write_params(dry_run, field_manager))


# -- what each method is in Go ---------------------------------------------------------------

_CTX = "ctx context.Context"
_SCALE = "*autoscalingv1.Scale"


class _Verb:
    """One generated method: its implementation, Go name, Go signature and summary."""

    __slots__ = ("go_signature", "impl", "needs", "summary")

    def __init__(self, impl: Callable[..., Any], needs: tuple[str, str | None],
                 go_signature: str, summary: str) -> None:
        self.impl = impl
        self.needs = needs  # (discovery verb, subresource or None)
        self.go_signature = go_signature
        self.summary = summary


_VERBS: dict[str, _Verb] = {
    "get": _Verb(_get, ("get", None),
                 "Get({ctx}, name string, opts metav1.GetOptions) ({T}, error)",
                 "The {kind} `name`, as the server sent it; raises `NotFound` when absent."),
    "list": _Verb(_list, ("list", None),
                  "List({ctx}, opts metav1.ListOptions) ({T}List, error)",
                  "One List of {kind} objects (one page when `limit` is set): `items` and "
                  "`metadata`."),
    "watch": _Verb(_watch, ("watch", None),
                   "Watch({ctx}, opts metav1.ListOptions) (watch.Interface, error)",
                   "Open a watch; iterate the `Watch` for `WatchEvent`s, `stop()` it to end."),
    "create": _Verb(_create, ("create", None),
                    "Create({ctx}, {var} {T}, opts metav1.CreateOptions) ({T}, error)",
                    "Create a {kind} (apiVersion and kind are filled in when missing)."),
    "update": _Verb(_update, ("update", None),
                    "Update({ctx}, {var} {T}, opts metav1.UpdateOptions) ({T}, error)",
                    "PUT the whole {kind}; a stale metadata.resourceVersion raises `Conflict`."),
    "update_status": _Verb(
        _update_status, ("update", "status"),
        "UpdateStatus({ctx}, {var} {T}, opts metav1.UpdateOptions) ({T}, error)",
        "PUT the {kind}'s status subresource (only .status changes)."),
    "patch": _Verb(
        _patch, ("patch", None),
        "Patch({ctx}, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, "
        "subresources ...string) ({T}, error)",
        'Patch the {kind} `name` with a "merge", "json", "strategic" or "apply" patch.'),
    "apply": _Verb(
        _apply, ("patch", None),
        "Apply({ctx}, {var} *applyconfigurations{pkg}.{kind}ApplyConfiguration, "
        "opts metav1.ApplyOptions) ({T}, error)",
        "Server-side apply of a whole {kind} as `field_manager` (creates it when missing)."),
    "apply_status": _Verb(
        _apply_status, ("patch", "status"),
        "ApplyStatus({ctx}, {var} *applyconfigurations{pkg}.{kind}ApplyConfiguration, "
        "opts metav1.ApplyOptions) ({T}, error)",
        "Server-side apply of the {kind}'s status as `field_manager`."),
    "delete": _Verb(
        _delete, ("delete", None),
        "Delete({ctx}, name string, opts metav1.DeleteOptions) error",
        "Delete the {kind} `name`; returns the Status, or the object while finalizers or a "
        "grace period keep it."),
    "delete_collection": _Verb(
        _delete_collection, ("deletecollection", None),
        "DeleteCollection({ctx}, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error",
        "Delete every {kind} matching the selectors (in all namespaces when this client has "
        "none)."),
    "get_scale": _Verb(
        _get_scale, ("get", "scale"),
        "GetScale({ctx}, {var}Name string, options metav1.GetOptions) (" + _SCALE + ", error)",
        "The autoscaling/v1 Scale of the {kind} `name`."),
    "update_scale": _Verb(
        _update_scale, ("update", "scale"),
        "UpdateScale({ctx}, {var}Name string, scale " + _SCALE
        + ", opts metav1.UpdateOptions) (" + _SCALE + ", error)",
        "PUT a Scale (e.g. the one `get_scale` returned, with spec.replicas changed); a stale "
        "metadata.resourceVersion raises `Conflict`."),
}


def method_names(info: ResourceInfo) -> list[str]:
    """The methods a resource's typed client has, in a fixed order."""
    return [name for name, verb in _VERBS.items()
            if verb.needs[0] in info.verbs
            and (verb.needs[1] is None or verb.needs[1] in info.subresources)]


def go_accessor(info: ResourceInfo) -> str:
    """`CoreV1().Pods(namespace)`, `CoreV1().Nodes()`."""
    arg = "namespace" if info.namespaced else ""
    return f"{go_group_accessor(info.group, info.version)}().{go_plural(info)}({arg})"


def _method(info: ResourceInfo, name: str, verb: _Verb, owner: str) -> Callable[..., Any]:
    fields = {"ctx": _CTX, "T": go_type(info), "var": lower_camel(info.kind),
              "kind": info.kind, "pkg": group_package(info.group) + info.version}
    go_call = verb.go_signature.format(**fields)

    @functools.wraps(verb.impl)
    def method(self: TypedClient, *args: Any, **kwargs: Any) -> Any:
        return verb.impl(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"{owner}.{name}"
    method.__doc__ = f"{verb.summary.format(**fields)}\n\nGo: {go_accessor(info)}.{go_call}"
    return method


_LOCK = threading.Lock()
_CLASSES: dict[tuple[Any, ...], type[TypedClient]] = {}


def typed_client_class(info: ResourceInfo) -> type[TypedClient]:
    """The generated client class of one resource (made once, then shared)."""
    key = (info.group, info.version, info.resource, info.kind, info.namespaced, info.verbs,
           info.subresources)
    with _LOCK:
        cls = _CLASSES.get(key)
        if cls is None:
            cls = _CLASSES[key] = _make_class(info)
        return cls


def _make_class(info: ResourceInfo) -> type[TypedClient]:
    name = f"{info.kind}Interface"
    names = method_names(info)
    where = "one namespace (or all, for list and watch)" if info.namespaced else "the cluster"
    doc = (f"The {info.group_resource} of {where}: client-go's typed "
           f"`{group_package(info.group)}{info.version}.{name}`, dicts in and out.\n\n"
           f"Go: {go_accessor(info)}\nMethods: {', '.join(names) or '(none served)'}")
    namespace: dict[str, Any] = {"__slots__": (), "__doc__": doc, "__module__": __name__,
                                 "info": info, "go_accessor": go_accessor(info)}
    for method in names:
        namespace[method] = _method(info, method, _VERBS[method], name)
    return type(name, (TypedClient,), namespace)
