"""Errors the server answers with, as `v1 Status` objects shaped like the real apiserver's.

Handlers raise `StatusError`; the HTTP layer turns it into a JSON Status with the same
code. Messages and `details` follow the captured kube-apiserver 1.32 responses.
"""

from __future__ import annotations

from typing import Any

from kubenb.errors import ApiError, api_error_from_status

__all__ = [
    "StatusError",
    "already_exists",
    "as_api_error",
    "bad_request",
    "cause",
    "conflict",
    "expired",
    "forbidden",
    "internal_error",
    "invalid",
    "invalid_list_options",
    "method_not_allowed",
    "namespace_terminating",
    "not_found",
    "resource_not_found",
    "status_body",
    "success_status",
    "too_large",
    "too_large_resource_version",
    "unauthorized",
    "unsupported_media_type",
]


class StatusError(Exception):
    """An error response: `.code` is the HTTP status, `.status` the Status body.

    Internal to the server: HTTP answers it as a Status, and the server's Python entry
    points (`seed_objects`, `Churn.step`) raise `as_api_error(err)` instead, the same
    `kubenb.errors.ApiError` a client gets for that Status."""

    def __init__(self, status: dict[str, Any]) -> None:
        self.status = status
        self.code = int(status.get("code", 500))
        super().__init__(status.get("message", ""))


def as_api_error(err: StatusError) -> ApiError:
    """The `ApiError` (NotFound, Conflict, Invalid, ...) a client would get for `err`."""
    return api_error_from_status(err.code, err.status)


def status_body(
    code: int,
    reason: str,
    message: str,
    details: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A failure Status dict in the apiserver's key order (details only when given)."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": metadata or {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def _err(code: int, reason: str, message: str, details: dict[str, Any] | None = None,
         metadata: dict[str, Any] | None = None) -> StatusError:
    return StatusError(status_body(code, reason, message, details, metadata))


def success_status(name: str, plural: str, uid: str, group: str = "") -> dict[str, Any]:
    """What DELETE answers for resources that do not return the deleted object."""
    details: dict[str, Any] = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = plural
    details["uid"] = uid
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": details}


def _details(name: str, plural: str, group: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = plural
    return details


def _qualified(plural: str, group: str) -> str:
    return f"{plural}.{group}" if group else plural


def not_found(plural: str, name: str, group: str = "") -> StatusError:
    """404 for a missing object (or a missing namespace, with plural "namespaces")."""
    return _err(404, "NotFound", f'{_qualified(plural, group)} "{name}" not found',
                _details(name, plural, group))


def namespace_terminating(plural: str, name: str, namespace: str, group: str = ""
                          ) -> StatusError:
    """403 for a create in a namespace being deleted (NamespaceLifecycle admission), with
    the `NamespaceTerminating` cause controllers look for."""
    what = f'{_qualified(plural, group)} "{name}"' if name else _qualified(plural, group)
    details = _details(name, plural, group)
    details["causes"] = [cause("NamespaceTerminating", "metadata.namespace",
                               f"namespace {namespace} is being terminated")]
    return _err(403, "Forbidden", f"{what} is forbidden: unable to create new content in "
                f"namespace {namespace} because it is being terminated", details)


def resource_not_found() -> StatusError:
    """404 for an unknown resource inside a known group-version."""
    return _err(404, "NotFound", "the server could not find the requested resource", {})


def already_exists(plural: str, name: str, group: str = "") -> StatusError:
    """409 AlreadyExists for a create of an existing name."""
    return _err(409, "AlreadyExists", f'{_qualified(plural, group)} "{name}" already exists',
                _details(name, plural, group))


def conflict(plural: str, name: str, group: str = "", why: str = "") -> StatusError:
    """409 Conflict: optimistic concurrency failed (stale resourceVersion)."""
    why = why or ("the object has been modified; please apply your changes to the latest "
                  "version and try again")
    return _err(409, "Conflict",
                f'Operation cannot be fulfilled on {_qualified(plural, group)} "{name}": {why}',
                _details(name, plural, group))


def bad_request(message: str) -> StatusError:
    """400 BadRequest (no details, like the real server)."""
    return _err(400, "BadRequest", message)


def invalid(kind: str, name: str, causes: list[dict[str, str]], group: str = "") -> StatusError:
    """422 Invalid with one cause per bad field: `{"reason","message","field"}`."""
    parts = [f"{c['field']}: {c['message']}" for c in causes]
    text = parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    qualified = f"{kind}.{group}" if group else kind
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = causes
    return _err(422, "Invalid", f'{qualified} "{name}" is invalid: {text}', details)


def invalid_list_options(causes: list[dict[str, str]]) -> StatusError:
    """422 for bad ListOptions (resourceVersionMatch / sendInitialEvents combinations)."""
    return invalid("ListOptions", "", causes, group="meta.k8s.io")


def cause(reason: str, field: str, message: str) -> dict[str, str]:
    """One `details.causes` entry in the server's key order."""
    return {"reason": reason, "message": message, "field": field}


def method_not_allowed() -> StatusError:
    """405 for a verb the resource path does not support."""
    return _err(405, "MethodNotAllowed",
                "the server does not allow this method on the requested resource", {})


def unsupported_media_type(message: str = "415: Unsupported Media Type",
                           details: dict[str, Any] | None = None) -> StatusError:
    """415 for a body or patch type the server cannot decode."""
    if details is None and message.startswith("415:"):
        details = {}  # the patch handler's bare 415 carries empty details
    return _err(415, "UnsupportedMediaType", message, details)


def too_large(limit: int) -> StatusError:
    """413 for request bodies over the apiserver's 3 MiB limit."""
    return _err(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


def expired(message: str, metadata: dict[str, Any] | None = None) -> StatusError:
    """410 Expired (resourceVersion or continue token older than the kept history)."""
    return _err(410, "Expired", message, metadata=metadata)


def too_large_resource_version(requested: int, current: int) -> StatusError:
    """504 for a list at a resourceVersion the server has not reached."""
    return _err(504, "Timeout",
                f"Timeout: Too large resource version: {requested}, current: {current}",
                {"causes": [{"reason": "ResourceVersionTooLarge",
                             "message": "Too large resource version"}],
                 "retryAfterSeconds": 1})


def unauthorized() -> StatusError:
    """401 for a missing or wrong bearer token."""
    return _err(401, "Unauthorized", "Unauthorized")


def forbidden(resource: str, group: str, name: str, message: str) -> StatusError:
    """403 as apierrors.NewForbidden writes it: `pods "x" is forbidden: ...`, or
    `forbidden: ...` for a request on no resource (a path)."""
    qualified = _qualified(resource, group) if resource else ""
    if not qualified:
        text = f"forbidden: {message}"
    elif name:
        text = f'{qualified} "{name}" is forbidden: {message}'
    else:
        text = f"{qualified} is forbidden: {message}"
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    if resource:
        details["kind"] = resource
    return _err(403, "Forbidden", text, details)


def internal_error(message: str = "an error on the server has prevented the request "
                   "from succeeding") -> StatusError:
    """500 InternalError; never carries a traceback."""
    return _err(500, "InternalError", f"Internal error occurred: {message}",
                {"causes": [{"message": message}]})
