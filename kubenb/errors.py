"""Errors a kubenb user can meet, each saying what was wrong and where.

Go returns errors; Python raises them. The classes mirror client-go and
apimachinery names (`KeyError` -> `KeyFuncError`, `ErrFIFOClosed` ->
`FIFOClosedError`, `ErrRequeue` -> `RequeueError`, `StatusError` -> `ApiError`).

Every exception kubenb raises on purpose is defined here, so one `except KubenbError`
catches them all, and the modules that raise them re-export them where they always
offered them (`kubenb.cache.reflector.ListError` is this module's `ListError`). A class
also derives from the builtin a caller would expect (in brackets), so code written
against `ValueError` or `requests.ConnectionError` keeps working:

    KubenbError
    │   # talking to an API server (kubenb.client)
    ├── KubeConfigError
    ├── ServerConnectionError (requests.ConnectionError)
    │   └── ServerTLSError (requests.SSLError)
    ├── ServerTimeoutError (requests.Timeout)
    ├── RequestAborted
    ├── InvalidResponseError (ValueError)
    ├── WatchDecodeError (ValueError)
    ├── ChunkedFramingError (ValueError)
    ├── NamespaceRequiredError (ValueError)
    ├── NoResourceMatchError (LookupError)
    │   # what the API server answered
    ├── ApiError
    │   ├── BadRequest (400)
    │   ├── Unauthorized (401)
    │   ├── Forbidden (403)
    │   ├── NotFound (404)
    │   ├── AlreadyExists (409)
    │   ├── Conflict (409)
    │   ├── Gone (410)
    │   ├── Invalid (422)
    │   ├── TooManyRequests (429)
    │   └── ServerError (5xx)
    │   # stores, queues and informers (kubenb.cache)
    ├── KeyFuncError (KeyError)
    ├── IndexNotFoundError (KeyError)
    ├── IndexFuncError (RuntimeError)
    ├── IndexConflictError (ValueError)
    ├── ZeroLengthDeltasError (ValueError)
    ├── FIFOClosedError
    ├── QueueIdleError
    ├── RequeueError
    ├── ListError
    ├── VeryShortWatchError
    ├── InformerStateError
    ├── CacheSyncTimeout (TimeoutError)
    │   # selectors and JSONPath (the ground floor)
    ├── SelectorError (ValueError)
    ├── JSONPathError (ValueError)
    │   # controllers (kubenb.controller, kubenb.controllermanager)
    ├── ControllerStateError
    ├── IdleTimeout (TimeoutError)
    ├── EventRecordError (ValueError)
    ├── LeaderElectionConfigError (ValueError)
    ├── ControllerError
    │   # live views and recordings
    ├── PublisherError (ValueError)
    ├── ColumnError (ValueError)
    ├── RecordingError (ValueError)
    │   # porting a prototype to Go (kubenb.port)
    ├── PortError (ValueError)
    │   # the embedded API server's options (kubenb.server)
    ├── ServerConfigError (ValueError)
    ├── TLSSetupError (RuntimeError)
    ├── FaultConfigError (ValueError)
    └── ChurnConfigError (ValueError)

The ground floor imports only `kubenb.redact` (what an error may say about an object)
and `requests` (whose exception types the connection errors extend).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

from kubenb.redact import describe_object

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "CacheSyncTimeout",
    "ChunkedFramingError",
    "ChurnConfigError",
    "ColumnError",
    "Conflict",
    "ControllerError",
    "ControllerStateError",
    "EventRecordError",
    "FIFOClosedError",
    "FaultConfigError",
    "Forbidden",
    "Gone",
    "IdleTimeout",
    "IndexConflictError",
    "IndexFuncError",
    "IndexNotFoundError",
    "InformerStateError",
    "Invalid",
    "InvalidResponseError",
    "JSONPathError",
    "KeyFuncError",
    "KubeConfigError",
    "KubenbError",
    "LeaderElectionConfigError",
    "ListError",
    "NamespaceRequiredError",
    "NoResourceMatchError",
    "NotFound",
    "PortError",
    "PublisherError",
    "QueueIdleError",
    "RecordingError",
    "RequestAborted",
    "RequestInfo",
    "RequeueError",
    "SelectorError",
    "ServerConfigError",
    "ServerConnectionError",
    "ServerError",
    "ServerTLSError",
    "ServerTimeoutError",
    "TLSSetupError",
    "TooManyRequests",
    "Unauthorized",
    "VeryShortWatchError",
    "WatchDecodeError",
    "ZeroLengthDeltasError",
    "api_error_from_status",
    "is_too_large_resource_version",
]


class KubenbError(Exception):
    """Base of every error kubenb raises on purpose."""


class KeyFuncError(KubenbError, KeyError):
    """A key function could not make a key for an object (client-go's `KeyError`).

    The underlying reason is kept as `.err` and as `__cause__`, so `raise ... from`
    chains unwrap the way Go's `errors.Unwrap` does. The message (and `args`, hence
    the repr) names the object by kind, namespace and name only: the object is often
    malformed and may be a Secret, and this error is logged.
    """

    def __init__(self, obj: Any, err: BaseException | str) -> None:
        self.obj = obj
        self.err = err
        super().__init__(describe_object(obj), err)

    def __str__(self) -> str:
        return f"couldn't create key for object {describe_object(self.obj)}: {self.err}"


class ZeroLengthDeltasError(KubenbError, ValueError):
    """`DeltaFIFO.key_of` was given an empty Deltas list."""

    def __init__(self) -> None:
        super().__init__("0 length Deltas object; can't get key")


class IndexNotFoundError(KubenbError, KeyError):
    """An index name is not registered on the indexer."""

    def __init__(self, index_name: str) -> None:
        self.index_name = index_name
        super().__init__(index_name)

    def __str__(self) -> str:
        return f"Index with name {self.index_name} does not exist"


class IndexFuncError(KubenbError, RuntimeError):
    """An index function raised; the store was left unchanged (client-go panics)."""

    def __init__(self, key: str, index_name: str, err: BaseException) -> None:
        self.key = key
        self.index_name = index_name
        self.err = err
        super().__init__(
            f'unable to calculate an index entry for key "{key}" on index "{index_name}": {err}'
        )


class IndexConflictError(KubenbError, ValueError):
    """`add_indexers` was given names that are already registered."""

    def __init__(self, names: set[str]) -> None:
        self.names = set(names)
        super().__init__(f"indexer conflict: {sorted(self.names)}")


class SelectorError(KubenbError, ValueError):
    """A label or field selector could not be parsed or is invalid."""


class FIFOClosedError(KubenbError):
    """`pop` was called on a closed, empty queue (client-go's `ErrFIFOClosed`)."""

    def __init__(self, queue: str = "DeltaFIFO") -> None:
        super().__init__(f"{queue}: manipulating with closed queue")


class QueueIdleError(KubenbError):
    """`pop` on a queue whose consumer runs on demand (`consume_on_demand`) found it
    empty for the idle time: the consumer's thread ends, the next write starts another."""

    def __init__(self) -> None:
        super().__init__("queue stayed empty for its idle time; the next write starts "
                         "a new consumer")


class RequeueError(KubenbError):
    """Raised by a `pop` process function to put the popped item back (`ErrRequeue`).

    `err` is the error `pop` should raise afterwards, or None to return normally.
    """

    def __init__(self, err: BaseException | None = None) -> None:
        self.err = err
        super().__init__(
            str(err) if err is not None
            else "the popped item should be requeued without returning an error"
        )


class KubeConfigError(KubenbError):
    """A kubeconfig or in-cluster configuration is missing or invalid."""


@dataclass(frozen=True)
class RequestInfo:
    """What a failed request asked for, so its error can say so (the server's message
    alone, "the server could not find the requested resource", does not).

    `verb` is the Kubernetes verb (get, list, watch, create, update, patch, delete,
    deletecollection) for a resource path, else the HTTP method of a plain path."""

    verb: str
    path: str
    group: str = ""
    version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    label_selector: str = ""
    field_selector: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def __str__(self) -> str:
        if not self.resource:
            return f"{self.verb} {self.path}"
        what = self.resource + (f"/{self.subresource}" if self.subresource else "")
        text = f"{self.verb} {self.api_version} {what}"
        if self.name:
            text += f' "{self.name}"'
        if self.namespace:
            text += f' in namespace "{self.namespace}"'
        selectors = [f'{field} "{value}"' for field, value in (
            ("labelSelector", self.label_selector), ("fieldSelector", self.field_selector))
            if value]
        if selectors:
            text += " with " + " and ".join(selectors)
        return text


class ApiError(KubenbError):
    """An error Status returned by the API server.

    `.status` is the HTTP code, `.reason` the Status reason (e.g. "NotFound"),
    `.message` its message and `.body` the decoded Status (a dict) when there is one.
    `.request_info` (a `RequestInfo`, when the error came from a request) says what was
    asked; the message ends with it in parentheses, as kubectl's "(get pods foo)".
    """

    code: int = 0
    request_info: RequestInfo | None = None

    def __init__(
        self,
        status: int | None = None,
        reason: str = "",
        message: str = "",
        body: dict[str, Any] | None = None,
    ) -> None:
        self.status = self.code if status is None else status
        self.reason = reason
        self.message = message
        self.body = body
        super().__init__(self.status, reason, message)

    def __str__(self) -> str:
        parts = [f"{self.status}"]
        if self.reason:
            parts.append(self.reason)
        text = " ".join(parts)
        text = f"{text}: {self.message}" if self.message else text
        return f"{text} ({self.request_info})" if self.request_info is not None else text


class BadRequest(ApiError):
    code = 400


class Unauthorized(ApiError):
    code = 401


class Forbidden(ApiError):
    code = 403


class NotFound(ApiError):
    code = 404


class AlreadyExists(ApiError):
    code = 409


class Conflict(ApiError):
    code = 409


class Gone(ApiError):
    code = 410


class Invalid(ApiError):
    code = 422


class TooManyRequests(ApiError):
    code = 429


class ServerError(ApiError):
    code = 500


class InvalidResponseError(KubenbError, ValueError):
    """The server answered 200 with something other than what was asked for: HTML from a
    proxy instead of a List, a List whose `items` is not an array, JSON that does not
    parse. The message names the request and describes the answer without its values."""

    def __init__(self, message: str, request: RequestInfo | None = None) -> None:
        self.request_info = request
        super().__init__(message)


class ServerConnectionError(KubenbError, requests.ConnectionError):
    """The API server could not be reached (refused, no route, DNS, connect timeout).

    It is still a `requests.ConnectionError`, so code that retries those keeps working;
    the original exception is the `__cause__`. The message names the server URL with
    any password redacted."""

    def __init__(self, message: str, server: str = "",
                 request: RequestInfo | None = None) -> None:
        self.server = server
        self.request_info = request
        super().__init__(message)


class ServerTLSError(ServerConnectionError, requests.exceptions.SSLError):
    """The TLS handshake with the API server failed: most often its certificate is not
    signed by the kubeconfig's certificate authority, or not for that host name."""


class ServerTimeoutError(KubenbError, requests.Timeout):
    """The API server accepted the connection but did not answer in time."""

    def __init__(self, message: str, server: str = "",
                 request: RequestInfo | None = None) -> None:
        self.server = server
        self.request_info = request
        super().__init__(message)


class WatchDecodeError(KubenbError, ValueError):
    """A watch stream sent a frame that is not a valid watch event (client-go's decode error).

    The stream is abandoned; a Reflector treats this like any watch error and resumes.
    """


class NoResourceMatchError(KubenbError, LookupError):
    """The RESTMapper knows no resource by this name (client-go's `NoResourceMatchError`)."""

    def __init__(self, name: str, suggestions: list[str] | None = None) -> None:
        self.name = name
        self.suggestions = list(suggestions or [])
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f'the server doesn\'t have a resource type "{name}"{hint}')


class ListError(KubenbError):
    """The LIST of a ListAndWatch failed; `.err` is why (client-go's "failed to list")."""

    def __init__(self, description: str, err: BaseException) -> None:
        self.err = err
        super().__init__(f"failed to list {description}: {err}")


class VeryShortWatchError(KubenbError):
    """A watch closed within a second with no event: the server is not serving it."""


class InformerStateError(KubenbError):
    """An operation the informer's lifecycle forbids (e.g. a transform after start)."""


class CacheSyncTimeout(KubenbError, TimeoutError):
    """An informer did not finish its first list in time; the message says why if known."""


class RecordingError(KubenbError, ValueError):
    """A recording file (or a recording option) kubenb cannot use; says which and why."""


class NamespaceRequiredError(KubenbError, ValueError):
    """A verb on one object of a namespaced resource was called without a namespace
    (client-go's `Pods("")` would send it to a path the server does not serve)."""


class RequestAborted(KubenbError):
    """The request was aborted from another thread (its `AbortScope` was aborted)."""


class ChunkedFramingError(KubenbError, ValueError):
    """The body is not valid chunked transfer coding (RFC 9112, section 7.1)."""


class ControllerError(KubenbError):
    """A sync could not finish; the key is retried with backoff (the message says why)."""


class ServerConfigError(KubenbError, ValueError):
    """An EmbeddedServer argument out of range."""


class TLSSetupError(KubenbError, RuntimeError):
    """The server could not get a certificate or load the one it was given."""


class FaultConfigError(KubenbError, ValueError):
    """A fault switch was given an argument it cannot use."""


class ChurnConfigError(KubenbError, ValueError):
    """A churn or seed option the generator cannot use."""


class PortError(KubenbError, ValueError):
    """`kubenb port` cannot port this: a bad module path or client-go version, or a
    reconcile whose source cannot be read."""


class PublisherError(KubenbError, ValueError):
    """A publisher or channel option that cannot work (a rate <= 0, a sink that is not
    callable, a channel of a stopped publisher)."""


class ColumnError(KubenbError, ValueError):
    """A column spec LiveFrame cannot use; the message names the column and why."""


class JSONPathError(KubenbError, ValueError):
    """A JSONPath (a CRD's additionalPrinterColumns, a column spec) kubenb cannot parse;
    the message quotes it and says where it went wrong."""


class EventRecordError(KubenbError, ValueError):
    """An event could not be made: a bad type, or an object that cannot be referenced."""


class ControllerStateError(KubenbError):
    """An operation the controller's state forbids (e.g. `run()` twice)."""


class IdleTimeout(KubenbError, TimeoutError):
    """`run_until_idle` ran out of time; the message says what was still going on."""


class LeaderElectionConfigError(KubenbError, ValueError):
    """The leader election settings cannot work together (client-go's NewLeaderElector)."""


_BY_CODE: dict[int, type[ApiError]] = {
    400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
    410: Gone, 422: Invalid, 429: TooManyRequests,
}


def api_error_from_status(code: int, body: Any = None, text: str = "") -> ApiError:
    """The `ApiError` subclass for an HTTP code and a decoded Status body (apimachinery's
    `FromObject`): 409 AlreadyExists vs Conflict is told apart by the Status reason,
    every 5xx is a `ServerError`, and a body that is not a Status keeps the raw text."""
    is_status = (isinstance(body, dict) and body.get("kind") == "Status"
                 and body.get("apiVersion") in ("v1", "meta.k8s.io/v1"))
    status = body if is_status else None
    reason = str(status.get("reason", "")) if status else ""
    message = str(status.get("message", "")) if status else text.strip()[:1000]
    code = int(status.get("code") or code) if status else code
    if code == 409 and reason == "AlreadyExists":
        cls: type[ApiError] = AlreadyExists
    elif code >= 500:
        cls = ServerError
    else:
        cls = _BY_CODE.get(code, ApiError)
    return cls(code, reason, message, status)


def is_too_large_resource_version(err: BaseException) -> bool:
    """True for the "Too large resource version" errors a Reflector must relist after.

    Three shapes exist (newest first): a 504 Timeout whose causes include type
    `ResourceVersionTooLarge`; a cause message saying "Too large resource version";
    or that phrase in the Status message itself.
    """
    if not isinstance(err, ApiError) or err.reason != "Timeout":
        return False
    phrase = "Too large resource version"
    details = (err.body or {}).get("details") or {}
    for cause in details.get("causes") or []:
        if cause.get("type") == "ResourceVersionTooLarge" or phrase in str(cause.get("message")):
            return True
    return phrase in err.message

