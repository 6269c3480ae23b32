"""DynamicClient: every verb on any resource, CRDs included; plain dicts in and out.

client-go's `dynamic` package: `client.resource("apps/v1", "deployments")
.namespace("ns").get("web")`. Paths are built from the group version, resource,
namespace and subresource exactly as the API server lays them out; there is no
model class anywhere, so what comes back is what the server sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from kubenb.client.options import ListOptions
from kubenb.client.pager import ListPager, PageInfo, check_list
from kubenb.client.rest import RESTClient, decode_response, describe_request
from kubenb.client.watch import Watch
from kubenb.labels import selector_string
from kubenb.redact import redact_url

__all__ = [
    "DynamicClient",
    "ResourceClient",
]


class ResourceClient:
    """One resource (optionally in one namespace) of one group version."""

    def __init__(self, rest: RESTClient, api_version: str, resource: str,
                 namespace: str | None = None) -> None:
        if not resource or "/" in resource:
            raise ValueError(f"resource must be a plural name like 'pods', got {resource!r}")
        self.rest = rest
        self.api_version = api_version
        self.resource = resource
        self.namespace_name = namespace
        prefix = "/api/" if "/" not in api_version else "/apis/"
        self._base = prefix + api_version

    def __repr__(self) -> str:
        where = f", namespace={self.namespace_name!r}" if self.namespace_name else ""
        return f"ResourceClient({self.api_version!r}, {self.resource!r}{where})"

    def namespace(self, namespace: str | None) -> ResourceClient:
        """The same resource in `namespace` (None: all namespaces / cluster scope)."""
        return ResourceClient(self.rest, self.api_version, self.resource, namespace)

    # -- paths -----------------------------------------------------------------------

    def path(self, name: str | None = None, subresource: str | None = None,
             namespace: str | None = None) -> str:
        """The URL path of the collection, of one object, or of a subresource."""
        ns = namespace if namespace is not None else self.namespace_name
        parts = [self._base]
        if ns:
            parts.append(f"namespaces/{quote(ns, safe='')}")
        parts.append(self.resource)
        if name is not None:
            if not name:
                raise ValueError(f"{self.resource}: an object name is required")
            parts.append(quote(name, safe=""))
            if subresource:
                parts.append(subresource)
        return "/".join(parts)

    def _object_namespace(self, obj: dict[str, Any]) -> str | None:
        """The client's namespace, else the object's own metadata.namespace."""
        if self.namespace_name:
            return self.namespace_name
        return (obj.get("metadata") or {}).get("namespace") or None

    @staticmethod
    def _name_of(obj: dict[str, Any]) -> str:
        name = (obj.get("metadata") or {}).get("name")
        if not name:
            raise ValueError("the object has no metadata.name")
        return name

    # -- read ------------------------------------------------------------------------

    def get(self, name: str, subresource: str | None = None,
            resource_version: str | None = None) -> dict[str, Any]:
        params = {"resourceVersion": resource_version} if resource_version else None
        return self.rest.get(self.path(name, subresource), params)

    def list(self, label_selector: Any = None, field_selector: Any = None,
             limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None,
             resource_version_match: str | None = None,
             timeout_seconds: int | None = None) -> dict[str, Any]:
        """One List response (one page when `limit` is set): `items` and `metadata`."""
        return self.list_with_options(ListOptions(
            label_selector=selector_string(label_selector),
            field_selector=selector_string(field_selector),
            limit=limit or 0, continue_=continue_ or "", resource_version=resource_version or "",
            resource_version_match=resource_version_match or "",
            timeout_seconds=timeout_seconds))

    def list_with_options(self, options: ListOptions) -> dict[str, Any]:
        """`list` taking a `ListOptions` (what ListWatch and ListPager call).

        A 200 answer that is not a List raises `InvalidResponseError` naming the request
        and describing what came instead."""
        path, params = self.path(), options.to_params()
        resp = self.rest.request("GET", path, params=params)
        body = decode_response(resp, "GET", path, params)
        return check_list(body, describe_request("GET", path, params),
                          resp.headers.get("Content-Type", ""))

    def list_all(self, label_selector: Any = None, field_selector: Any = None,
                 page_size: int = 500, resource_version: str | None = None,
                 on_page: Callable[[PageInfo], None] | None = None) -> dict[str, Any]:
        """Every page through `ListPager`, merged into one List."""
        pager = ListPager(self.list_with_options, page_size=page_size)
        result, _ = pager.list(ListOptions(
            label_selector=selector_string(label_selector),
            field_selector=selector_string(field_selector),
            resource_version=resource_version or ""), on_page=on_page)
        return result

    def watch(self, resource_version: str | None = None, label_selector: Any = None,
              field_selector: Any = None, timeout_seconds: int | None = None,
              allow_watch_bookmarks: bool = False, send_initial_events: bool | None = None,
              resource_version_match: str | None = None,
              read_timeout: float | None = None) -> Watch:
        """Open a watch; iterate the returned `Watch` for `WatchEvent`s, `stop()` it to end."""
        if send_initial_events and not resource_version_match:
            resource_version_match = "NotOlderThan"
        return self.watch_with_options(ListOptions(
            label_selector=selector_string(label_selector),
            field_selector=selector_string(field_selector),
            resource_version=resource_version or "",
            resource_version_match=resource_version_match or "",
            timeout_seconds=timeout_seconds, allow_watch_bookmarks=allow_watch_bookmarks,
            send_initial_events=send_initial_events), read_timeout=read_timeout)

    def watch_with_options(self, options: ListOptions,
                           read_timeout: float | None = None) -> Watch:
        return self.rest.watch(self.path(), options.to_params(), read_timeout=read_timeout)

    # -- write -----------------------------------------------------------------------

    def create(self, obj: dict[str, Any], dry_run: bool = False,
               field_manager: str | None = None) -> dict[str, Any]:
        path = self.path(namespace=self._object_namespace(obj))
        return self.rest.post(path, obj, _write_params(dry_run, field_manager))

    def update(self, obj: dict[str, Any], dry_run: bool = False,
               field_manager: str | None = None) -> dict[str, Any]:
        """PUT the whole object; a stale metadata.resourceVersion gives `Conflict`."""
        path = self.path(self._name_of(obj), namespace=self._object_namespace(obj))
        return self.rest.put(path, obj, _write_params(dry_run, field_manager))

    def update_status(self, obj: dict[str, Any], dry_run: bool = False) -> dict[str, Any]:
        path = self.path(self._name_of(obj), "status", namespace=self._object_namespace(obj))
        return self.rest.put(path, obj, _write_params(dry_run, None))

    def patch(self, name: str, body: Any, patch_type: str = "merge",
              field_manager: str | None = None, force: bool | None = None,
              subresource: str | None = None, dry_run: bool = False) -> dict[str, Any]:
        """Patch with "merge", "json", "strategic" or "apply" (server-side apply:
        `field_manager` is required, `force=True` takes over conflicting fields)."""
        if patch_type == "apply" and not field_manager:
            raise ValueError("server-side apply needs a field_manager")
        params = _write_params(dry_run, field_manager)
        if force is not None:
            params["force"] = "true" if force else "false"
        return self.rest.patch(self.path(name, subresource), body, patch_type, params)

    def apply(self, obj: dict[str, Any], field_manager: str, force: bool = False,
              dry_run: bool = False) -> dict[str, Any]:
        """Server-side apply of a whole object (creates it when missing)."""
        path = self.path(self._name_of(obj), namespace=self._object_namespace(obj))
        params = _write_params(dry_run, field_manager)
        params["force"] = "true" if force else "false"
        return self.rest.patch(path, obj, "apply", params)

    def delete(self, name: str, propagation_policy: str | None = None,
               grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None,
               dry_run: bool = False) -> dict[str, Any]:
        """Delete; returns the Status, or the object when finalizers keep it for now."""
        return self.rest.delete(self.path(name), _delete_options(
            propagation_policy, grace_period_seconds, preconditions, dry_run))

    def delete_collection(self, label_selector: Any = None, field_selector: Any = None,
                          propagation_policy: str | None = None) -> dict[str, Any]:
        params = ListOptions(label_selector=selector_string(label_selector),
                             field_selector=selector_string(field_selector)).to_params()
        return self.rest.delete(self.path(), _delete_options(propagation_policy, None, None,
                                                             False), params)


def _write_params(dry_run: bool, field_manager: str | None) -> dict[str, str]:
    params: dict[str, str] = {}
    if dry_run:
        params["dryRun"] = "All"
    if field_manager:
        params["fieldManager"] = field_manager
    return params


def _delete_options(propagation_policy: str | None, grace_period_seconds: int | None,
                    preconditions: dict[str, str] | None, dry_run: bool) -> dict[str, Any] | None:
    body: dict[str, Any] = {}
    if propagation_policy:
        body["propagationPolicy"] = propagation_policy
    if grace_period_seconds is not None:
        body["gracePeriodSeconds"] = grace_period_seconds
    if preconditions:
        body["preconditions"] = preconditions
    if dry_run:
        body["dryRun"] = ["All"]
    if not body:
        return None
    return {"apiVersion": "v1", "kind": "DeleteOptions", **body}


class DynamicClient:
    """Entry point: `DynamicClient(config_or_rest).resource("apps/v1", "deployments")`."""

    def __init__(self, config_or_rest: Any) -> None:
        self.rest = (config_or_rest if isinstance(config_or_rest, RESTClient)
                     else RESTClient(config_or_rest))

    def __repr__(self) -> str:
        return f"DynamicClient(server={redact_url(self.rest.server)!r})"

    def resource(self, api_version: str, resource: str) -> ResourceClient:
        return ResourceClient(self.rest, api_version, resource)
