"""Request routing and dispatch: a parsed request in, a Response or a WatchStream out.

Kept free of sockets so every branch can be reasoned about (and tested) as plain
data; `kubenb.server.http` does the HTTP side with the standard library's server.

One concept, past the usual length of a module: the dispatcher and the shaping of its
answers (Table, PartialObjectMetadata, pretty JSON, protobuf bodies) read the same
request.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from typing import TYPE_CHECKING, Any

from kubenb import printers
from kubenb.server import (
    access_reviews,
    discovery,
    errors,
    openapi,
    pod_logs,
    protobuf,
    reviews,
    webhooks,
)
from kubenb.server.apply import APPLY, Manager
from kubenb.server.authentication import (
    ADMIN,
    Authenticator,
    ImpersonationError,
    UserInfo,
    impersonation_requests,
)
from kubenb.server.encoding import (
    DISCOVERY,
    NOT_ACCEPTABLE,
    PARTIAL,
    TABLE,
    Output,
    dumps,
    dumps_line,
    dumps_pretty,
    dumps_yaml,
    encode,
    loads_body,
    negotiate,
    parse_media_type,
)
from kubenb.server.list_items import dumps_list
from kubenb.server.params import bool_param, go_parse_bool
from kubenb.server.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH
from kubenb.server.rbac import RBACAuthorizer, forbidden
from kubenb.server.registry import Registry, present
from kubenb.server.request_head import RequestHeaders
from kubenb.server.request_info import Attributes, request_attributes
from kubenb.server.resources import ResourceRegistry, ResourceType
from kubenb.server.storage import Storage
from kubenb.server.tokens import TokenIssuer
from kubenb.server.watch import WatchStream

if TYPE_CHECKING:
    from kubenb.server.faults import Faults

__all__ = ["MAX_BODY", "ApiHandler", "Request", "Response", "status_response"]

log = logging.getLogger(__name__)

_JSON = "application/json"
_TEXT = "text/plain; charset=utf-8"
MAX_BODY = 3 * 1024 * 1024
_PUBLIC_PATHS = ("/healthz", "/livez", "/readyz", "/version")
_BODY_TYPES = ("application/json", "application/yaml", "application/x-yaml", "text/yaml")
_UNKNOWN_BODY_FORMAT = ("the body of the request was in an unknown format - accepted media "
                        "types include: application/json, application/yaml, "
                        "application/vnd.kubernetes.protobuf")
_PATCH_TYPES = (MERGE_PATCH, JSON_PATCH, STRATEGIC_PATCH)
_INCLUDE_OBJECT = ("Metadata", "Object", "None")
_READ_SHAPES = (TABLE, PARTIAL)
_DRY_RUN_ALL = "All"  # the only dryRun value apimachinery accepts
_OPTIONS_KIND = {"POST": "CreateOptions", "PUT": "UpdateOptions", "PATCH": "PatchOptions",
                 "DELETE": "DeleteOptions"}


@dataclass
class Request:
    """What the HTTP layer hands over: method, path, decoded query, headers, raw body."""

    method: str
    path: str
    params: dict[str, str]
    headers: RequestHeaders | Message | dict[str, str]
    body: bytes = b""
    user: UserInfo = ADMIN  # who sent it, once authenticated (and impersonated)
    warnings: list[str] = field(default_factory=list)  # admission webhooks' warnings

    def header(self, name: str) -> str:
        value = self.headers.get(name)
        return value or ""


@dataclass
class Response:
    """A complete (non-streaming) response."""

    status: int
    body: bytes
    content_type: str = _JSON
    headers: list[tuple[str, str]] = field(default_factory=list)


class _NotFoundPage(Exception):
    """A path outside the API: the plain-text 404 the real server sends (internal: the
    dispatcher answers it)."""


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
                 bookmark_interval: float = 60.0, server_address: str = "",
                 faults: Faults | None = None, tokens: TokenIssuer | None = None) -> None:
        self.faults = faults  # the fault switches, asked first about every request
        self.storage = storage
        self.types = types
        self.registry = registry
        self.stop = stop
        self.authenticator = Authenticator(storage, tokens or TokenIssuer(), token,
                                           _PUBLIC_PATHS)
        self.authorizer = RBACAuthorizer(storage)
        self.webhooks = webhooks.Webhooks(storage)
        self.bookmark_interval = bookmark_interval
        self.server_address = server_address
        self._kubelet_token = token  # what the log proxy presents to a node's kubelet

    # -- entry point -------------------------------------------------------------

    def handle(self, request: Request) -> Response | WatchStream | pod_logs.LogStream:
        """Route and answer; never raises (a bug becomes a 500 Status, not a traceback)."""
        result = self._answer(request)
        if isinstance(result, Response) and _wants_pretty(request):
            result = _pretty(result)
        if request.warnings and isinstance(result, Response):
            # As kube-apiserver: one `Warning: 299 - "text"` per warning, on an answer
            # and on a denial alike.
            result.headers.extend(("Warning", _warning_header(w)) for w in request.warnings)
        return result

    def _answer(self, request: Request) -> Response | WatchStream | pod_logs.LogStream:
        try:
            self._authenticate(request)
            if not request.user.privileged:  # system:masters: no RBAC to ask
                self._authorize(request.user, request_attributes(
                    request.method, request.path, request.params))
            if self.faults is not None:
                injected = self.faults.intercept(request)
                if injected is not None:
                    return injected
            return self._dispatch(request)
        except errors.StatusError as err:
            return status_response(err)
        except _NotFoundPage:
            return Response(404, b"404 page not found\n", _TEXT)
        except ImpersonationError as exc:
            return Response(500, f'Internal Server Error: "{request.path}": {exc}\n'.encode(),
                            _TEXT)
        except RecursionError as exc:
            # Bodies are depth-checked on the way in, so this is a bug; its traceback
            # would be thousands of identical lines: one line says where it went round.
            frame = exc.__traceback__
            while frame is not None and frame.tb_next is not None:
                frame = frame.tb_next
            where = (f"{frame.tb_frame.f_code.co_filename}:{frame.tb_lineno}"
                     if frame is not None else "?")
            log.error("kubenb server: recursion too deep answering %s %s (at %s)",
                      request.method, request.path, where)
            return status_response(errors.internal_error())
        except Exception:
            log.exception("kubenb server: unexpected error answering %s %s",
                          request.method, request.path)
            return status_response(errors.internal_error())

    def _authenticate(self, request: Request) -> None:
        """Who sent `request` (kubenb.server.authentication), then whom it acts as: the
        `Impersonate-*` headers, each allowed by the authorizer first."""
        user = self.authenticator.authenticate(request.header("Authorization"), request.path)
        impersonation = impersonation_requests(request.headers)
        if impersonation is not None:
            wanted, asked = impersonation
            for want in asked:
                self._authorize(user, Attributes(
                    "impersonate", True, want.api_group, "", want.resource, want.subresource,
                    want.namespace, want.name))
            user = wanted
        request.user = user

    def _authorize(self, user: UserInfo, attrs: Attributes) -> None:
        decision = self.authorizer.authorize(user, attrs)
        if not decision.allowed:
            raise forbidden(user, attrs, decision.reason)

    def _encode(self, request: Request, obj: Any, status: int = 200) -> Response:
        accept = request.header("Accept")
        if "application/yaml" in accept and "application/json" not in accept:
            return Response(status, dumps_yaml(obj), "application/yaml")
        return Response(status, dumps(obj))

    # -- routing -------------------------------------------------------------------

    def _dispatch(self, request: Request) -> Response | WatchStream | pod_logs.LogStream:
        path = request.path.rstrip("/") or "/"
        parts = [p for p in path.split("/") if p]
        if path in ("/healthz", "/livez", "/readyz") or (
                len(parts) == 2 and parts[0] in ("healthz", "livez", "readyz")):
            return Response(200, b"ok", _TEXT)
        if path == "/version":
            return self._encode(request, discovery.VERSION_INFO)
        if parts[:2] == ["openapi", "v3"]:
            return self._openapi(request, parts[2:])
        if parts == ["openapi", "v2"]:
            return self._swagger(request)
        if path == "/.well-known/openid-configuration":
            return self._encode(request, self._openid_configuration())
        if path == "/openid/v1/jwks":
            return Response(200, dumps(self.authenticator.tokens.jwks()),
                            "application/jwk-set+json")
        if not parts or parts[0] not in ("api", "apis"):
            raise _NotFoundPage()
        if parts[0] == "api":
            if len(parts) == 1:
                return self._root_discovery(request, legacy=True)
            group, version, rest = "", parts[1], parts[2:]
        else:
            if len(parts) == 1:
                return self._root_discovery(request, legacy=False)
            if len(parts) == 2:
                doc = discovery.api_group(self.types, parts[1])
                if doc is None:
                    raise _NotFoundPage()
                return self._encode(request, doc)
            group, version, rest = parts[1], parts[2], parts[3:]
        if not self.types.serves(group, version):
            raise _NotFoundPage()
        if not rest:
            doc = discovery.api_resource_list(self.types, group, version)
            return self._encode(request, doc)
        route = self._route(group, version, rest)
        return self._serve(request, route)

    def _root_discovery(self, request: Request, legacy: bool) -> Response:
        """/api or /apis: aggregated discovery when the client asks for it, else legacy."""
        output = self._negotiate(request, (DISCOVERY,))
        if output.as_kind != DISCOVERY:
            doc = (discovery.api_versions(self.server_address) if legacy
                   else discovery.api_group_list(self.types))
            return Response(200, encode(output, doc), _content_type(output))
        body = encode(output, discovery.aggregated_discovery(self.types, legacy, output.version))
        tag = discovery.etag(body)
        headers = [("Cache-Control", "public"), ("Etag", tag), ("Vary", "Accept")]
        if request.header("If-None-Match") == tag:
            return Response(304, b"", discovery.aggregated_content_type(output.version), headers)
        return Response(200, body, discovery.aggregated_content_type(output.version), headers)

    def _openapi(self, request: Request, rest: list[str]) -> Response:
        if not rest:
            return self._encode(request, openapi.index_doc(self.types))
        doc = None
        if rest[0] == "api" and len(rest) == 2:
            doc = openapi.group_version_doc(self.types, "", rest[1])
        elif rest[0] == "apis" and len(rest) == 3:
            doc = openapi.group_version_doc(self.types, rest[1], rest[2])
        if doc is None:
            raise _NotFoundPage()
        return self._encode(request, doc)

    def _openid_configuration(self) -> dict[str, Any]:
        """Service account issuer discovery: where the keys that verify tokens are."""
        tokens = self.authenticator.tokens
        return {"issuer": tokens.issuer,
                "jwks_uri": f"https://{self.server_address}/openid/v1/jwks",
                "response_types_supported": ["id_token"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": [tokens.algorithm]}

    def _swagger(self, request: Request) -> Response:
        """/openapi/v2 as JSON. The protobuf form (what client-go's OpenAPISchema asks for,
        and nothing else) is not made here: 406, and kubectl goes on without it."""
        accept = request.header("Accept")
        if accept and not any(media in accept for media in ("application/json", "*/*")):
            raise errors.StatusError(errors.status_body(
                406, "NotAcceptable", "only the following media types are accepted: "
                "application/json (kubenb serves no protobuf OpenAPI v2 document)"))
        body = dumps(openapi.swagger_doc(self.types, discovery.VERSION_INFO["gitVersion"]))
        tag = discovery.etag(body)
        headers = [("Etag", tag), ("Vary", "Accept-Encoding"), ("Vary", "Accept")]
        if request.header("If-None-Match") == tag:
            return Response(304, b"", _JSON, headers)
        return Response(200, body, _JSON, headers)

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
        return route

    # -- verbs ---------------------------------------------------------------------

    @staticmethod
    def _negotiate(request: Request, allowed: tuple[str, ...]) -> Output:
        output = negotiate(request.header("Accept"), allowed)
        if output is None:
            raise errors.StatusError(errors.status_body(406, "NotAcceptable", NOT_ACCEPTABLE))
        return output

    def _respond(self, request: Request, obj: Any, status: int = 200) -> Response:
        """A write's (or a subresource's) answer: the object as JSON or YAML."""
        output = self._negotiate(request, ())
        return Response(status, encode(output, obj), _content_type(output))

    def _serve(self, request: Request, route: _Route
               ) -> Response | WatchStream | pod_logs.LogStream:
        method = request.method
        rtype = route.rtype
        ns = route.namespace or ""
        if route.subresource == "log" and rtype.kind == "Pod" and method == "GET":
            token = self._kubelet_token
            authorization = f"Bearer {token}" if token is not None else None
            return pod_logs.open_log(self.registry, rtype, ns, route.name, request.params,
                                     authorization, self.stop)
        if rtype.kind in access_reviews.KINDS or route.subresource == "token":
            return self._access_answer(request, route)
        if not rtype.stored or route.subresource in reviews.SUBRESOURCES:
            return self._review_answer(request, route)
        if not route.name:
            if method == "GET":
                output = self._negotiate(request, _READ_SHAPES)
                include = self._include_object(request)
                if bool_param(request.params, "watch"):
                    self._require(rtype, "watch")
                    return self._watch(request, route, output, include)
                self._require(rtype, "list")
                plain = output.encoding == "json" and not output.as_kind
                listed = self.registry.list(rtype, route.namespace, request.params,
                                            encoded_items=plain)
                if plain:
                    return Response(200, dumps_list(listed), _content_type(output))
                return _shaped(output, _shape_list(output, rtype, listed, include))
            if method == "POST":
                if rtype.namespaced and route.namespace is None:
                    raise errors.method_not_allowed()
                self._require(rtype, "create")
                registry = self._writer(request)
                body = self._body(request, rtype)
                manager = self._manager(request)
                meta = body.get("metadata") if isinstance(body, dict) else None
                name = str(meta.get("name") or "") if isinstance(meta, dict) else ""
                created = self._admitted(
                    request, "CREATE", route, registry, name,
                    lambda reg, _: reg.create(rtype, ns, body, manager=manager),
                    lambda reg, mutated: reg.create(rtype, ns, mutated, manager=manager))
                return self._respond(request, created, 201)
            if method == "DELETE":
                self._require(rtype, "deletecollection")
                options = self._delete_options(request)
                return self._respond(request, self._writer(request, options).delete_collection(
                    rtype, route.namespace, request.params, options))
            raise errors.method_not_allowed()
        if route.subresource == "scale":
            return self._scale(request, route)
        if method == "GET":
            if route.subresource:
                return self._respond(request, self.registry.get(rtype, ns, route.name))
            output = self._negotiate(request, _READ_SHAPES)
            include = self._include_object(request)
            obj = self.registry.get(rtype, ns, route.name)
            return _shaped(output, _shape_object(output, rtype, obj, include))
        if method == "PUT":
            self._require(rtype, "update")
            registry = self._writer(request)
            body = self._body(request, rtype)
            manager = self._manager(request, subresource=route.subresource)

            def put(reg: Registry, mutated: Any) -> Any:
                return reg.update(rtype, ns, route.name, body if mutated is None else mutated,
                                  route.subresource, manager)

            return self._respond(request, self._admitted(request, "UPDATE", route, registry,
                                                         route.name, put, put))
        if method == "PATCH":
            self._require(rtype, "patch")
            patch_type = self._patch_type(request, rtype)
            registry = self._writer(request)
            if patch_type == APPLY_PATCH:
                return self._apply(request, route, registry)
            patch = self._patch_body(request)
            manager = self._manager(request, subresource=route.subresource)
            return self._respond(request, self._admitted(
                request, "UPDATE", route, registry, route.name,
                lambda reg, _: reg.patch(rtype, ns, route.name, patch_type, patch,
                                         route.subresource, manager),
                lambda reg, mutated: reg.update(rtype, ns, route.name, mutated,
                                                route.subresource, manager)))
        if method == "DELETE" and not route.subresource:
            self._require(rtype, "delete")
            options = self._delete_options(request)
            return self._respond(request, self._admitted(
                request, "DELETE", route, self._writer(request, options), route.name,
                lambda reg, _: reg.delete(rtype, ns, route.name, options), None, options))
        raise errors.method_not_allowed()

    def _admitted(self, request: Request, operation: str, route: _Route, writer: Registry,
                  name: str, write: webhooks.Write, rewrite: webhooks.Write | None,
                  options: dict[str, Any] | None = None) -> Any:
        """A write, once the admission webhooks (kubenb.server.webhooks) admit it."""
        attrs = webhooks.AdmissionAttributes(
            operation, route.rtype, route.namespace or "", name, request.user,
            route.subresource, writer.dry_run,
            {k: v for k, v in (options or {}).items() if k in ("propagationPolicy",
                                                                 "gracePeriodSeconds")},
            warnings=request.warnings)
        return webhooks.admitted_write(self.webhooks, self.registry, writer, attrs, write,
                                       rewrite)

    def _review_answer(self, request: Request, route: _Route) -> Response:
        """Reviews, bindings and the subresources kubenb.server.reviews answers."""
        body: Any = None
        if request.method == "PATCH":
            patch_type = self._patch_type(request, route.rtype)
            if patch_type == APPLY_PATCH:
                raise errors.unsupported_media_type()
            body = (patch_type, self._patch_body(request))
        elif request.method in ("POST", "PUT") and request.body.strip():
            body = self._body(request, route.rtype)
        code, obj = reviews.serve(
            self._writer(request), route.rtype, route.namespace or "", route.name,
            route.subresource, request.method, body, request.params,
            self._manager(request, subresource=route.subresource))
        return self._respond(request, obj, code)

    def _access_answer(self, request: Request, route: _Route) -> Response:
        """Reviews of identity and access, and TokenRequests (kubenb.server.access_reviews)."""
        if request.method != "POST" or (route.name and not route.subresource):
            raise errors.method_not_allowed()
        if route.rtype.kind == "ServiceAccount":
            self.registry.get(route.rtype, route.namespace or "", route.name)  # 404 first
        body = self._body(request, route.rtype) if request.body.strip() else None
        access = access_reviews.Access(request.user, self.authenticator, self.authorizer)
        manager = self._manager(request, subresource=route.subresource)
        if route.subresource == "token":
            code, obj = access_reviews.token_request(access, self.storage, route.namespace or "",
                                                     route.name, body, manager)
        else:
            code, obj = access_reviews.serve(access, route.rtype.kind,
                                             route.rtype.group_version, route.namespace or "",
                                             body, manager)
        return self._respond(request, obj, code)

    def _watch(self, request: Request, route: _Route, output: Output, include: str
               ) -> WatchStream:
        rtype = route.rtype
        args = (self.storage, rtype, route.namespace, request.params, self.bookmark_interval,
                self.stop)
        if not output.as_kind and rtype.version == rtype.stored_version:
            return WatchStream(*args)
        return _ShapedWatchStream(*args, shape=_watch_shaper(output, rtype, include))

    def _scale(self, request: Request, route: _Route) -> Response:
        rtype, ns, name = route.rtype, route.namespace or "", route.name
        if request.method == "GET":
            return self._respond(request, self.registry.get_scale(rtype, ns, name))
        manager = self._manager(request, subresource="scale")
        if request.method == "PUT":
            registry = self._writer(request)
            body = self._body(request, rtype)
            return self._respond(request, registry.update_scale(rtype, ns, name, body, manager))
        if request.method == "PATCH":
            patch_type = self._patch_type(request, rtype, scale=True)
            return self._respond(request, self._writer(request).patch_scale(
                rtype, ns, name, patch_type, self._patch_body(request), manager))
        raise errors.method_not_allowed()

    def _apply(self, request: Request, route: _Route, registry: Registry) -> Response:
        manager_name = request.params.get("fieldManager", "")
        if not manager_name:
            raise _patch_options_invalid("FieldValueRequired", "fieldManager",
                                         "Required value: is required for apply patch")
        force = bool(bool_param(request.params, "force"))
        try:
            config = loads_body(request.body, "application/yaml")
        except ValueError as exc:
            raise errors.bad_request(f"error decoding YAML: {exc}") from None
        manager = Manager(manager_name, APPLY, route.subresource)
        obj, created = registry.apply(route.rtype, route.namespace or "", route.name,
                                      config, manager, force, route.subresource)
        return self._respond(request, obj, 201 if created else 200)

    def _writer(self, request: Request, options: dict[str, Any] | None = None) -> Registry:
        """Where a write goes: the registry, or for `dryRun=All` (the query parameter, or
        DeleteOptions.dryRun) its view that answers as for real and stores nothing. Any
        other value is the 422 the apiserver's ValidateDryRun gives."""
        raw = (options if options is not None else request.params).get("dryRun")
        if raw is None:
            return self.registry
        values = raw if isinstance(raw, list) else [raw]
        if any(v != _DRY_RUN_ALL for v in values):
            given = ", ".join(json.dumps(str(v)) for v in values)
            raise _options_invalid(
                _OPTIONS_KIND.get(request.method, "CreateOptions"), "FieldValueNotSupported",
                "dryRun", f'Unsupported value: []string{{{given}}}: supported values: '
                f'"{_DRY_RUN_ALL}"')
        return self.registry.for_dry_run() if values else self.registry

    @staticmethod
    def _patch_type(request: Request, rtype: ResourceType, scale: bool = False) -> str:
        patch_type = request.header("Content-Type").split(";")[0].strip()
        if patch_type == STRATEGIC_PATCH and rtype.custom and not scale:
            raise errors.unsupported_media_type(
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json-patch+json, application/merge-patch+json, "
                "application/apply-patch+yaml")
        if patch_type not in _PATCH_TYPES and (patch_type != APPLY_PATCH or scale):
            raise errors.unsupported_media_type()
        if patch_type != APPLY_PATCH and "force" in request.params:
            raise _patch_options_invalid("FieldValueForbidden", "force",
                                         "Forbidden: may not be specified for non-apply patch")
        return patch_type

    @staticmethod
    def _patch_body(request: Request) -> Any:
        try:
            return loads_body(request.body, _JSON)
        except ValueError as exc:
            raise errors.bad_request(f"error decoding patch: {exc}") from None

    @staticmethod
    def _manager(request: Request, operation: str = "Update", subresource: str = ""
                 ) -> Manager:
        """The field manager of a write: `?fieldManager=`, else the User-Agent's product
        (what the apiserver does: "kubectl/v1.32.0 (...)" manages as "kubectl")."""
        name = request.params.get("fieldManager", "")
        if not name:
            name = request.header("User-Agent").split("/")[0].strip() or "unknown"
        if len(name) > 128:
            raise _patch_options_invalid("FieldValueTooLong", "fieldManager",
                                         "Too long: may not be more than 128 bytes")
        return Manager(name, operation, subresource)

    @staticmethod
    def _include_object(request: Request) -> str:
        value = request.params.get("includeObject", "")
        if value and value not in _INCLUDE_OBJECT:
            raise errors.bad_request(
                f'includeObject: Unsupported value: "{value}": supported values: "None", '
                '"Metadata", "Object"')
        return value or "Metadata"

    @staticmethod
    def _require(rtype: ResourceType, verb: str) -> None:
        if verb not in rtype.verbs:
            raise errors.method_not_allowed()

    @staticmethod
    def _body(request: Request, rtype: ResourceType) -> Any:
        content_type = _body_type(request)
        if content_type == protobuf.CONTENT_TYPE:
            return _protobuf_body(request.body, rtype)
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
            content_type = _body_type(request)
            try:
                decoded = loads_body(request.body, _JSON if content_type == protobuf.CONTENT_TYPE
                                     else content_type)
            except ValueError as exc:
                raise errors.bad_request(f"error decoding DeleteOptions: {exc}") from None
            if isinstance(decoded, dict):
                options = decoded
        for key in ("propagationPolicy", "gracePeriodSeconds", "dryRun"):
            if key in request.params:
                options[key] = request.params[key]
        return options


# -- shaping answers: Table, PartialObjectMetadata, version views ----------------------------


def _content_type(output: Output) -> str:
    return "application/yaml" if output.encoding == "yaml" else _JSON


def _body_type(request: Request) -> str:
    """The media type of a request body, negotiated as the apiserver does: none given is
    JSON; one Go's mime.ParseMediaType rejects (";;;") or one it cannot decode is 415."""
    header = request.header("Content-Type")
    if not header:
        return _JSON
    media = _body_media(header)
    if media is None:
        raise errors.unsupported_media_type(_UNKNOWN_BODY_FORMAT)
    return media


@functools.lru_cache(maxsize=64)
def _body_media(header: str) -> str | None:
    """The body media type a Content-Type names; None: one the server refuses. Kept per
    header: clients send the same one again and again."""
    try:
        media, _ = parse_media_type(header)
    except ValueError:
        return None
    if media not in _BODY_TYPES and media != protobuf.CONTENT_TYPE:
        return None
    return media


def _warning_header(text: str) -> str:
    """RFC 7234's warn-value as kube-apiserver writes it: code 299, agent "-", the text
    quoted with its quotes and backslashes escaped."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'


def _wants_pretty(request: Request) -> bool:
    """`?pretty=`, read as the apiserver reads it (Go's strconv.ParseBool; a value it
    does not know means not pretty)."""
    value = request.params.get("pretty")
    return bool(value and go_parse_bool(value))


def _pretty(response: Response) -> Response:
    """A JSON answer re-indented for `?pretty=true` (other answers are left as they are)."""
    if not response.body or not response.content_type.startswith(_JSON):
        return response
    try:
        obj = json.loads(response.body)
    except ValueError:
        return response
    return Response(response.status, dumps_pretty(obj), response.content_type,
                    response.headers)


def _shaped(output: Output, obj: Any) -> Response:
    return Response(200, encode(output, obj), _content_type(output))


def _full_item(rtype: ResourceType, item: dict[str, Any]) -> dict[str, Any]:
    """A list item with kind/apiVersion back in front (built-in list items have none)."""
    if "kind" in item and "apiVersion" in item:
        return item
    return {"kind": rtype.kind, "apiVersion": rtype.group_version, **item}


def _shape_list(output: Output, rtype: ResourceType, listed: dict[str, Any], include: str
                ) -> dict[str, Any]:
    if not output.as_kind:
        return listed
    meta = {k: v for k, v in (listed.get("metadata") or {}).items() if v != ""}
    items = [_full_item(rtype, i) for i in listed.get("items") or []]
    if output.as_kind == PARTIAL:
        return {"kind": "PartialObjectMetadataList", "apiVersion": output.api_version,
                "metadata": meta,
                "items": [printers.partial_object_metadata(i, output.api_version)
                          for i in items]}
    return printers.to_table(rtype.printer(), items, time.time(), meta, include,
                             output.api_version)


def _shape_object(output: Output, rtype: ResourceType, obj: dict[str, Any], include: str
                  ) -> dict[str, Any]:
    if output.as_kind == PARTIAL:
        return printers.partial_object_metadata(obj, output.api_version)
    if output.as_kind == TABLE:
        meta = {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
        return printers.to_table(rtype.printer(), [obj], time.time(), meta, include,
                                 output.api_version)
    return obj


def _protobuf_body(body: bytes, rtype: ResourceType) -> Any:
    """A protobuf request body (kubectl's imperative commands) as the JSON it stands for."""
    try:
        return protobuf.decode(body)
    except protobuf.UnsupportedKind as exc:
        raise errors.unsupported_media_type(
            f"the body of the request was in an unknown format - kubenb decodes "
            f"application/vnd.kubernetes.protobuf only for built-in kinds, not "
            f"{exc.kind} ({exc.api_version}); send application/json or application/yaml "
            "(with kubectl: a manifest and -f)") from None
    except protobuf.ProtobufError as exc:
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {rtype.kind}): "
            f"couldn't decode the protobuf body: {exc}") from None


def _patch_options_invalid(reason: str, field_name: str, message: str) -> errors.StatusError:
    return _options_invalid("PatchOptions", reason, field_name, message)


def _options_invalid(kind: str, reason: str, field_name: str, message: str
                     ) -> errors.StatusError:
    """The 422 for bad query options (CreateOptions, PatchOptions, ...), as the apiserver's
    handlers answer before they look at the body."""
    return errors.StatusError(errors.status_body(
        422, "Invalid", f'{kind}.meta.k8s.io "" is invalid: {field_name}: {message}',
        {"group": "meta.k8s.io", "kind": kind,
         "causes": [errors.cause(reason, field_name, message)]}))


_Shape = Callable[[str, dict[str, Any]], dict[str, Any]]


def _watch_shaper(output: Output, rtype: ResourceType, include: str) -> _Shape:
    """How each watch event's object is re-shaped (kubectl get -w asks for Table rows)."""
    printer = rtype.printer() if output.as_kind == TABLE else None
    first = [True]

    def shape(event_type: str, obj: dict[str, Any]) -> dict[str, Any]:
        obj = present(rtype, obj)
        if output.as_kind == PARTIAL:
            return printers.partial_object_metadata(obj, output.api_version)
        if printer is None:
            return obj
        meta = {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
        rows = [] if event_type == "BOOKMARK" else [obj]
        table = printers.to_table(printer, rows, time.time(), meta, include,
                                  output.api_version, with_columns=first[0] and bool(rows))
        if rows:
            first[0] = False
        return table

    return shape


class _ShapedWatchStream(WatchStream):
    """A watch whose event objects are re-shaped on the way out: Table rows (only the
    first event carries columnDefinitions), PartialObjectMetadata, or a custom resource
    seen through a version other than its storage version. ERROR events pass as they are.
    """

    def __init__(self, *args: Any, shape: _Shape, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shape = shape

    def reshape(self, chunk: bytes) -> bytes:
        lines = []
        for line in chunk.split(b"\n"):
            if not line:
                continue
            event = json.loads(line)
            if event.get("type") != "ERROR" and isinstance(event.get("object"), dict):
                event["object"] = self._shape(event["type"], event["object"])
            lines.append(b'{"type":' + json.dumps(event["type"]).encode() + b',"object":'
                         + dumps_line(event["object"]) + b"}\n")
        return b"".join(lines)
