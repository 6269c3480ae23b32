"""Request routing and dispatch: a parsed request in, a Response or a WatchStream out.

Kept free of sockets so every branch can be reasoned about (and tested) as plain
data; `kubenb.server.http` does the HTTP side with the standard library's server.
"""

from __future__ import annotations

import hmac
import logging
import threading
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from kubenb.server import discovery, errors, openapi
from kubenb.server.encoding import dumps, dumps_yaml, loads_body
from kubenb.server.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH
from kubenb.server.resources import ResourceRegistry, ResourceType
from kubenb.server.rest import Registry
from kubenb.server.storage import Storage
from kubenb.server.watch import WatchStream

log = logging.getLogger(__name__)

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
MAX_BODY = 3 * 1024 * 1024
PUBLIC_PATHS = ("/healthz", "/livez", "/readyz", "/version")
_BODY_TYPES = ("application/json", "application/yaml", "application/x-yaml", "text/yaml")
_PATCH_TYPES = (MERGE_PATCH, JSON_PATCH, STRATEGIC_PATCH)


@dataclass
class Request:
    """What the HTTP layer hands over: method, path, decoded query, headers, raw body."""

    method: str
    path: str
    params: dict[str, str]
    headers: Message | dict[str, str]
    body: bytes = b""

    def header(self, name: str) -> str:
        value = self.headers.get(name)
        return value or ""


@dataclass
class Response:
    """A complete (non-streaming) response."""

    status: int
    body: bytes
    content_type: str = JSON
    headers: list[tuple[str, str]] = field(default_factory=list)


class NotFoundPage(Exception):
    """A path outside the API: the plain-text 404 the real server sends."""


@dataclass
class _Route:
    rtype: ResourceType
    namespace: str | None  # None: all namespaces (or cluster-scoped)
    name: str = ""
    subresource: str = ""


def status_response(err: errors.StatusError) -> Response:
    """A StatusError as its JSON Status response."""
    return Response(err.code, dumps(err.status))


class ApiHandler:
    """Answers API requests against one storage and resource registry."""

    def __init__(self, storage: Storage, types: ResourceRegistry, registry: Registry,
                 stop: threading.Event, token: str | None = None,
                 bookmark_interval: float = 60.0, server_address: str = "") -> None:
        self.storage = storage
        self.types = types
        self.registry = registry
        self.stop = stop
        self._token = token
        self.bookmark_interval = bookmark_interval
        self.server_address = server_address

    # -- entry point -------------------------------------------------------------

    def handle(self, request: Request) -> Response | WatchStream:
        """Route and answer; never raises (a bug becomes a 500 Status, not a traceback)."""
        try:
            self._authenticate(request)
            return self._dispatch(request)
        except errors.StatusError as err:
            return status_response(err)
        except NotFoundPage:
            return Response(404, b"404 page not found\n", TEXT)
        except Exception:
            log.exception("kubenb server: unexpected error answering %s %s",
                          request.method, request.path)
            return status_response(errors.internal_error())

    def _authenticate(self, request: Request) -> None:
        if self._token is None or request.path.rstrip("/") in PUBLIC_PATHS:
            return
        given = request.header("Authorization")
        expected = f"Bearer {self._token}"
        if not hmac.compare_digest(given.encode(), expected.encode()):
            raise errors.unauthorized()

    def _encode(self, request: Request, obj: Any, status: int = 200) -> Response:
        accept = request.header("Accept")
        if "application/yaml" in accept and "application/json" not in accept:
            return Response(status, dumps_yaml(obj), "application/yaml")
        return Response(status, dumps(obj))

    # -- routing -------------------------------------------------------------------

    def _dispatch(self, request: Request) -> Response | WatchStream:
        path = request.path.rstrip("/") or "/"
        parts = [p for p in path.split("/") if p]
        if path in ("/healthz", "/livez", "/readyz") or (
                len(parts) == 2 and parts[0] in ("healthz", "livez", "readyz")):
            return Response(200, b"ok", TEXT)
        if path == "/version":
            return self._encode(request, discovery.VERSION_INFO)
        if parts[:2] == ["openapi", "v3"]:
            return self._openapi(request, parts[2:])
        if not parts or parts[0] not in ("api", "apis"):
            raise NotFoundPage()
        if parts[0] == "api":
            if len(parts) == 1:
                return self._encode(request, discovery.api_versions(self.server_address))
            group, version, rest = "", parts[1], parts[2:]
        else:
            if len(parts) == 1:
                return self._encode(request, discovery.api_group_list(self.types))
            if len(parts) == 2:
                doc = discovery.api_group(self.types, parts[1])
                if doc is None:
                    raise NotFoundPage()
                return self._encode(request, doc)
            group, version, rest = parts[1], parts[2], parts[3:]
        if not self.types.in_group_version(group, version):
            raise NotFoundPage()
        if not rest:
            doc = discovery.api_resource_list(self.types, group, version)
            return self._encode(request, doc)
        route = self._route(group, version, rest)
        return self._serve(request, route)

    def _openapi(self, request: Request, rest: list[str]) -> Response:
        if not rest:
            return self._encode(request, openapi.index_doc(self.types))
        doc = None
        if rest[0] == "api" and len(rest) == 2:
            doc = openapi.group_version_doc(self.types, "", rest[1])
        elif rest[0] == "apis" and len(rest) == 3:
            doc = openapi.group_version_doc(self.types, rest[1], rest[2])
        if doc is None:
            raise NotFoundPage()
        return self._encode(request, doc)

    def _route(self, group: str, version: str, rest: list[str]) -> _Route:
        if rest[0] == "namespaces" and len(rest) >= 3:
            rtype = self.types.lookup(group, version, rest[2])
            if rtype is not None and rtype.namespaced:
                if len(rest) > 5:
                    raise errors.resource_not_found()
                route = _Route(rtype, rest[1], *rest[3:5])
                return self._check_sub(route)
        rtype = self.types.lookup(group, version, rest[0])
        if rtype is None or len(rest) > 3 or (rtype.namespaced and len(rest) > 1):
            raise errors.resource_not_found()
        return self._check_sub(_Route(rtype, None, *rest[1:3]))

    @staticmethod
    def _check_sub(route: _Route) -> _Route:
        if route.subresource and route.subresource not in route.rtype.subresources:
            raise errors.resource_not_found()
        if route.subresource == "scale":
            raise errors.resource_not_found()  # not served yet
        return route

    # -- verbs ---------------------------------------------------------------------

    def _serve(self, request: Request, route: _Route) -> Response | WatchStream:
        method = request.method
        rtype = route.rtype
        ns = route.namespace or ""
        if not route.name:
            if method == "GET":
                if request.params.get("watch", "") in ("true", "1"):
                    self._require(rtype, "watch")
                    return WatchStream(self.storage, rtype, route.namespace, request.params,
                                       self.bookmark_interval, self.stop)
                self._require(rtype, "list")
                return self._encode(request, self.registry.list(rtype, route.namespace,
                                                                request.params))
            if method == "POST":
                if rtype.namespaced and route.namespace is None:
                    raise errors.method_not_allowed()
                self._require(rtype, "create")
                body = self._body(request, rtype)
                return self._encode(request, self.registry.create(rtype, ns, body), 201)
            if method == "DELETE":
                self._require(rtype, "deletecollection")
                options = self._delete_options(request)
                return self._encode(request, self.registry.delete_collection(
                    rtype, route.namespace, request.params, options))
            raise errors.method_not_allowed()
        if method == "GET":
            return self._encode(request, self.registry.get(rtype, ns, route.name))
        if method == "PUT":
            self._require(rtype, "update")
            body = self._body(request, rtype)
            return self._encode(request, self.registry.update(rtype, ns, route.name, body,
                                                              route.subresource))
        if method == "PATCH":
            self._require(rtype, "patch")
            patch_type = request.header("Content-Type").split(";")[0].strip()
            if patch_type == APPLY_PATCH or patch_type not in _PATCH_TYPES:
                raise errors.unsupported_media_type()
            try:
                patch = loads_body(request.body, JSON)
            except ValueError as exc:
                raise errors.bad_request(f"error decoding patch: {exc}") from None
            return self._encode(request, self.registry.patch(
                rtype, ns, route.name, patch_type, patch, route.subresource))
        if method == "DELETE" and not route.subresource:
            self._require(rtype, "delete")
            options = self._delete_options(request)
            return self._encode(request, self.registry.delete(rtype, ns, route.name, options))
        raise errors.method_not_allowed()

    @staticmethod
    def _require(rtype: ResourceType, verb: str) -> None:
        if verb not in rtype.verbs:
            raise errors.method_not_allowed()

    @staticmethod
    def _body(request: Request, rtype: ResourceType) -> Any:
        content_type = request.header("Content-Type").split(";")[0].strip() or JSON
        if content_type not in _BODY_TYPES:
            raise errors.unsupported_media_type(
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json, application/yaml, "
                "application/vnd.kubernetes.protobuf")
        try:
            return loads_body(request.body, content_type)
        except ValueError as exc:
            text = request.body[:30].decode("utf-8", "replace")
            raise errors.bad_request(
                f"the object provided is unrecognized (must be of type {rtype.kind}): "
                f"couldn't get version/kind; json parse error: {exc} ({text} ...)") from None

    @staticmethod
    def _delete_options(request: Request) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if request.body.strip():
            try:
                decoded = loads_body(request.body, JSON)
            except ValueError as exc:
                raise errors.bad_request(f"error decoding DeleteOptions: {exc}") from None
            if isinstance(decoded, dict):
                options = decoded
        for key in ("propagationPolicy", "gracePeriodSeconds", "dryRun"):
            if key in request.params:
                options[key] = request.params[key]
        return options
