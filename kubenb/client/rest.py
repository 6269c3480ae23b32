"""RESTClient: HTTP verbs against an API server, JSON in and out, Status errors raised.

client-go's `rest.RESTClient` over one pooled `requests.Session`. What it adds to
`requests`: the server's `Status` turned into `ApiError` subclasses; bounded retries
with backoff on 429 and 5xx (honouring `Retry-After`) for safe verbs; one retry after
a 401 when the credentials can be refreshed (exec plugins, rotated token files); and
large JSON decoded with the garbage collector paused. Every failure is a kubenb error
that names the request (verb, resource, namespace, selectors): `ApiError` subclasses
for error answers, `ServerConnectionError` / `ServerTLSError` / `ServerTimeoutError`
(still `requests` exceptions, the original as `__cause__`) when the server was not
reached, `InvalidResponseError` for a body that does not decode. A password in the
server URL is sent as basic auth and never kept in a URL, so no message shows it.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

import requests

from kubenb.client.abort import sleep_unless_aborted
from kubenb.client.auth import BasicAuth
from kubenb.client.request_log import observe_request
from kubenb.client.round_trip import RoundTripper
from kubenb.client.transport import environment_proxies
from kubenb.client.transport import user_agent as transport_user_agent
from kubenb.clock import Clock, RealClock
from kubenb.errors import (
    InvalidResponseError,
    RequestInfo,
    ServerConnectionError,
    ServerTimeoutError,
    ServerTLSError,
    api_error_from_status,
)
from kubenb.jsondecode import loads
from kubenb.redact import redact_text, redact_url, split_url_credentials

__all__ = [
    "BODY_PIECE",
    "JSON",
    "PATCH_TYPES",
    "RESTClient",
    "decode_response",
    "describe_request",
    "error_from_response",
]

log = logging.getLogger(__name__)

JSON = "application/json"
PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_RETRY_CODES = frozenset({429, 500, 502, 503, 504})


class RESTClient:
    """Verbs against one API server described by a `Config`.

    `max_retries` bounds the retries of one call; the delay is the server's
    `Retry-After` (capped at `max_retry_after`) or an exponential backoff with
    jitter from `retry_backoff`. Waits go through `clock`, so tests step them.
    """

    def __init__(self, config: Any, *, max_retries: int = 3, retry_backoff: float = 0.1,
                 max_retry_after: float = 30.0, clock: Clock | None = None,
                 user_agent: str | None = None) -> None:
        self.config = config
        # The URL requests go to has no user:password part: those are sent as basic auth
        # (when no other credentials are configured), so no response URL, exception or
        # repr that quotes a request URL can carry the password. A `Config` has already
        # done this; a config-like object of another kind may not have.
        self.server, url_credentials = split_url_credentials(str(config.server).rstrip("/"))
        self._url_auth = BasicAuth(*url_credentials) if url_credentials else None
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.max_retry_after = max_retry_after
        self.clock = clock or RealClock()
        self.user_agent = user_agent or transport_user_agent()
        self.timeout = getattr(config, "timeout", (10, 60))
        self._session: requests.Session | None = None
        self._round_tripper: RoundTripper | None = None
        self._session_lock = threading.Lock()
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"RESTClient(server={redact_url(self.server)!r})"

    @property
    def session(self) -> requests.Session:
        """The pooled session, made on first use from the config's TLS and proxy settings."""
        with self._session_lock:
            if self._session is None:
                self._make_session_locked()
            return self._session  # type: ignore[return-value]

    def _make_session_locked(self) -> None:
        session = self.config.new_session()
        self._session = session
        self._round_tripper = RoundTripper.for_session(
            session, self.server,
            proxied=bool(getattr(self.config, "proxy_url", None)
                         or environment_proxies(self.server)),
            rotating_cert=getattr(getattr(self.config, "auth", None), "cert_files",
                                  None) is not None)

    def _sender(self) -> tuple[requests.Session, RoundTripper | None]:
        with self._session_lock:
            if self._session is None:
                self._make_session_locked()
            return self._session, self._round_tripper  # type: ignore[return-value]

    def close(self) -> None:
        """Close every pooled connection (watches included)."""
        with self._session_lock:
            round_tripper, self._round_tripper = self._round_tripper, None
            session, self._session = self._session, None
        if round_tripper is not None:
            round_tripper.close()
        if session is not None:
            session.close()

    def __enter__(self) -> RESTClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the one request path ------------------------------------------------------

    def request(self, method: str, path: str, *, params: Mapping[str, str] | None = None,
                body: Any = None, content_type: str = JSON, accept: str = JSON,
                stream: bool = False, timeout: Any = None) -> requests.Response:
        """Send one request and return the response; a status >= 400 raises `ApiError`.

        `body` is JSON-encoded unless it is already bytes. Retries follow the class
        docstring; a streamed response is returned unread.
        """
        method = method.upper()
        observe_request(method, path, params)
        data = None if body is None else (
            body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode())
        url = self.server + path
        safe = method in _SAFE_METHODS
        refreshed = False
        attempt = 0
        while True:
            headers = {"Accept": accept, "User-Agent": self.user_agent}
            if data is not None:
                headers["Content-Type"] = content_type
            auth = getattr(self.config, "auth", None)
            if auth is not None:
                auth.apply(headers)
            if self._url_auth is not None and "Authorization" not in headers:
                self._url_auth.apply(headers)
            session, round_tripper = self._sender()
            try:
                if round_tripper is not None and not stream and round_tripper.fits():
                    resp = round_tripper.send(method, path, params=params, body=data,
                                              headers=headers, timeout=timeout or self.timeout)
                else:
                    resp = session.request(method, url, params=params, data=data,
                                           headers=headers, stream=True,
                                           timeout=timeout or self.timeout)
                if not stream:
                    _read_body(resp)
            except requests.exceptions.SSLError as err:
                # A certificate that does not verify will not verify on a retry either.
                raise self._connection_error(err, method, path, params) from err
            except requests.ConnectionError as err:
                if not safe or attempt >= self.max_retries:
                    raise self._connection_error(err, method, path, params) from err
                self._wait(attempt, None, f"{method} {path}: connection failed")
                attempt += 1
                continue
            except (requests.Timeout, requests.exceptions.ChunkedEncodingError) as err:
                raise self._connection_error(err, method, path, params) from err
            code = resp.status_code
            if code < 400:
                return resp
            if code == 401 and auth is not None and not refreshed:
                refreshed = True
                if auth.refresh_after_unauthorized():
                    resp.close()
                    continue
            retry_after = _retry_after(resp)
            retriable = code in _RETRY_CODES and (safe or (code == 429 and retry_after is not None))
            if retriable and attempt < self.max_retries:
                resp.close()
                self._wait(attempt, retry_after, f"{method} {path}: {code}")
                attempt += 1
                continue
            raise error_from_response(resp, describe_request(method, path, params))

    def _connection_error(self, err: Exception, method: str, path: str,
                          params: Mapping[str, str] | None) -> Exception:
        """The kubenb error for a request that never got an answer, naming the server."""
        server = redact_url(self.server)
        info = describe_request(method, path, params)
        reason = _connection_reason(err)
        if isinstance(err, requests.exceptions.SSLError):
            return ServerTLSError(
                f"TLS handshake with the API server at {server} failed ({info}): {reason}; "
                f"check certificate-authority(-data), tls-server-name and "
                f"insecure-skip-tls-verify of the cluster in the kubeconfig", server, info)
        if isinstance(err, requests.ConnectionError):
            return ServerConnectionError(
                f"cannot connect to the API server at {server} ({info}): {reason}",
                server, info)
        if isinstance(err, requests.Timeout):
            return ServerTimeoutError(
                f"the API server at {server} did not answer in time ({info}): {reason}",
                server, info)
        return ServerConnectionError(
            f"the connection to the API server at {server} broke ({info}): {reason}",
            server, info)

    def _wait(self, attempt: int, retry_after: float | None, why: str) -> None:
        if retry_after is not None:
            delay = min(retry_after, self.max_retry_after)
        else:
            base = self.retry_backoff * (2 ** attempt)
            delay = base + self._random.uniform(0, base)
        log.debug("retrying in %.2fs after %s", delay, why)
        sleep_unless_aborted(self.clock, delay)

    # -- verbs -----------------------------------------------------------------------

    def get(self, path: str, params: Mapping[str, str] | None = None,
            accept: str = JSON) -> Any:
        """GET and decode the JSON body."""
        return decode_response(self.request("GET", path, params=params, accept=accept),
                               "GET", path, params)

    def post(self, path: str, body: Any, params: Mapping[str, str] | None = None) -> Any:
        return decode_response(self.request("POST", path, params=params, body=body),
                               "POST", path, params)

    def put(self, path: str, body: Any, params: Mapping[str, str] | None = None) -> Any:
        return decode_response(self.request("PUT", path, params=params, body=body),
                               "PUT", path, params)

    def patch(self, path: str, body: Any, patch_type: str = "merge",
              params: Mapping[str, str] | None = None) -> Any:
        """PATCH with `patch_type` "merge", "json", "strategic" or "apply" (or a content type)."""
        content_type = PATCH_TYPES.get(patch_type, patch_type)
        if content_type not in PATCH_TYPES.values():
            raise ValueError(f"unknown patch type {patch_type!r}; use one of "
                             f"{', '.join(PATCH_TYPES)}")
        return decode_response(self.request("PATCH", path, params=params, body=body,
                                            content_type=content_type), "PATCH", path, params)

    def delete(self, path: str, body: Any = None,
               params: Mapping[str, str] | None = None) -> Any:
        return decode_response(self.request("DELETE", path, params=params, body=body),
                               "DELETE", path, params)

    def watch(self, path: str, params: Mapping[str, str], *,
              read_timeout: float | None = None) -> Any:
        """Open a watch (GET with `watch=true`) and return a `Watch` over its events.

        `read_timeout` bounds the silence between two reads: a watch that sends
        nothing for that long ends (see `Watch.end_reason`), which is how a hung
        connection is noticed.
        """
        from kubenb.client.watch import Watch

        query = dict(params)
        query["watch"] = "true"
        connect = self.timeout[0] if isinstance(self.timeout, tuple) else self.timeout
        resp = self.request("GET", path, params=query, stream=True,
                            timeout=(connect, read_timeout))
        return Watch(resp)


#: How much of a body one read takes (see `_read_body`).
BODY_PIECE = 1 << 20


def _read_body(resp: requests.Response) -> None:
    """Read the whole body into `resp.content`, 1 MiB at a time into one buffer.

    requests' own reading (`stream=False`) takes 10 KiB pieces and joins them at the
    end: for a 416 MB list of 100k pods, 4.7-6.6 s against 1.1-1.3 s this way, with
    twice the memory and twice the page faults (docs/client.md). Errors are requests'
    own, raised where `stream=False` would raise them. A response of the client's own
    connections (`RoundTripper`) comes with its body read.
    """
    if resp._content is not False:  # type: ignore[attr-defined]  # read already
        return
    body = bytearray()
    for piece in resp.iter_content(BODY_PIECE):
        body += piece
    # What the `content` property sets after reading. A bytearray, not bytes: bytes()
    # would copy the whole body once more; every reader of `content` (json, text,
    # msgspec, iter_content) takes either.
    resp._content = body  # type: ignore[assignment]


def _retry_after(resp: requests.Response) -> float | None:
    value = resp.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def decode_response(resp: requests.Response, method: str = "GET", path: str = "",
                    params: Mapping[str, str] | None = None) -> Any:
    """The decoded JSON body (None when empty; the text when it is not JSON).

    JSON that does not parse raises `InvalidResponseError` naming the request; its
    text is not quoted (a cut-off object may hold a Secret's data)."""
    content = resp.content
    if not content:
        return None
    if "json" not in resp.headers.get("Content-Type", JSON):
        return content.decode("utf-8", "replace")
    try:
        return loads(content)
    except ValueError as err:
        info = describe_request(method, path or resp.request.path_url, params)
        raise InvalidResponseError(
            f"{info}: the server's answer ({len(content)} bytes of "
            f"{resp.headers.get('Content-Type', JSON)}) is not valid JSON: "
            f"{_json_problem(err)}", info) from None


def _json_problem(err: ValueError) -> str:
    """Where the JSON broke, without the document (json's errors quote none of it)."""
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} at line {err.lineno}, column {err.colno}"
    return type(err).__name__


_ERRNO = re.compile(r"\[Errno -?\d+\] [^\"')(]+")
_CERT = re.compile(r"certificate verify failed[^\"()]*")
_TLS = re.compile(r"\[SSL[^\]]*\][^\"'()]*")


def _connection_reason(err: BaseException) -> str:
    """The useful part of a requests/urllib3 error ("[Errno 111] Connection refused",
    "certificate verify failed: ..."), without pool and object reprs."""
    text = str(err)
    tls_first = isinstance(err, requests.exceptions.SSLError)
    for pattern in (_CERT, _TLS, _ERRNO) if tls_first else (_ERRNO, _CERT, _TLS):
        found = pattern.search(text)
        if found:
            return redact_text(found.group(0).strip().rstrip(":.'"))
    if isinstance(err, requests.exceptions.ConnectTimeout):
        return "timed out while connecting"
    if isinstance(err, requests.Timeout):
        return "timed out waiting for the answer"
    if isinstance(err, requests.exceptions.ProxyError):
        return "the proxy refused or failed the connection"
    if isinstance(err, requests.exceptions.ChunkedEncodingError):
        return "the connection closed in the middle of the answer"
    return type(err).__name__


_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}


def describe_request(method: str, path: str,
                     params: Mapping[str, str] | None = None) -> RequestInfo:
    """What a request asks for, read from its path the way the API server reads it
    (apiserver's RequestInfoFactory): /api/v1/namespaces/ns/pods/name/log is a get of
    the log subresource of pod "name" in "ns"; /version is just GET /version."""
    method = method.upper()
    params = params or {}
    clean = path.split("?", 1)[0]
    segments = [unquote(s) for s in clean.strip("/").split("/") if s]
    if len(segments) >= 2 and segments[0] == "api":
        group, version, rest = "", segments[1], segments[2:]
    elif len(segments) >= 3 and segments[0] == "apis":
        group, version, rest = segments[1], segments[2], segments[3:]
    else:
        return RequestInfo(method, clean)
    if not rest:
        return RequestInfo(method, clean)
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
        else:
            namespace = ""  # the Namespace object itself, or its status / finalize
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else ""
    subresource = "/".join(rest[2:])
    if method == "GET":
        watching = str(params.get("watch", "")).lower() in ("true", "1")
        verb = "watch" if watching else "get" if name else "list"
    elif method == "DELETE":
        verb = "delete" if name else "deletecollection"
    else:
        verb = _VERBS.get(method, method.lower())
    return RequestInfo(verb, clean, group=group, version=version, resource=resource,
                       subresource=subresource, namespace=namespace, name=name,
                       label_selector=str(params.get("labelSelector", "") or ""),
                       field_selector=str(params.get("fieldSelector", "") or ""))


def error_from_response(resp: requests.Response,
                        request: RequestInfo | None = None) -> Exception:
    """The `ApiError` for a failed response, from its Status body when it has one; it
    keeps the server's message and names the request that failed."""
    text = resp.text
    body = None
    if "json" in resp.headers.get("Content-Type", ""):
        try:
            body = json.loads(text)
        except ValueError:
            body = None
    err = api_error_from_status(resp.status_code, body, text)
    if not err.message:
        err.message = f"{resp.request.method} {redact_url(str(resp.url))}: {resp.reason}"
    if request is None and resp.request is not None and resp.request.method:
        request = describe_request(resp.request.method, resp.request.path_url or "")
    err.request_info = request
    return err
