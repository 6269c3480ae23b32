"""RESTClient: HTTP verbs against an API server, JSON in and out, Status errors raised.

client-go's `rest.RESTClient` over one pooled `requests.Session`. What it adds to
`requests`: the server's `Status` turned into `ApiError` subclasses; bounded retries
with backoff on 429 and 5xx (honouring `Retry-After`) for safe verbs; one retry after
a 401 when the credentials can be refreshed (exec plugins, rotated token files); and
large JSON decoded with the garbage collector paused.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import Mapping
from typing import Any

import requests

from kubenb.client.decode import loads
from kubenb.clock import Clock, RealClock
from kubenb.errors import api_error_from_status

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


def _user_agent() -> str:
    from kubenb import __version__

    return f"kubenb/{__version__}"


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
        self.server = str(config.server).rstrip("/")
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.max_retry_after = max_retry_after
        self.clock = clock or RealClock()
        self.user_agent = user_agent or _user_agent()
        self.timeout = getattr(config, "timeout", (10, 60))
        self._session: requests.Session | None = None
        self._session_lock = threading.Lock()
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"RESTClient(server={self.server!r})"

    @property
    def session(self) -> requests.Session:
        """The pooled session, made on first use from the config's TLS and proxy settings."""
        with self._session_lock:
            if self._session is None:
                self._session = self.config.new_session()
            return self._session

    def close(self) -> None:
        """Close every pooled connection (watches included)."""
        with self._session_lock:
            session, self._session = self._session, None
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
            try:
                resp = self.session.request(method, url, params=params, data=data,
                                            headers=headers, stream=stream,
                                            timeout=timeout or self.timeout)
            except requests.ConnectionError:
                if not safe or attempt >= self.max_retries:
                    raise
                self._wait(attempt, None, f"{method} {path}: connection failed")
                attempt += 1
                continue
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
            raise error_from_response(resp)

    def _wait(self, attempt: int, retry_after: float | None, why: str) -> None:
        if retry_after is not None:
            delay = min(retry_after, self.max_retry_after)
        else:
            base = self.retry_backoff * (2 ** attempt)
            delay = base + self._random.uniform(0, base)
        log.debug("retrying in %.2fs after %s", delay, why)
        self.clock.sleep(delay)

    # -- verbs -----------------------------------------------------------------------

    def get(self, path: str, params: Mapping[str, str] | None = None,
            accept: str = JSON) -> Any:
        """GET and decode the JSON body."""
        return _decode(self.request("GET", path, params=params, accept=accept))

    def post(self, path: str, body: Any, params: Mapping[str, str] | None = None) -> Any:
        return _decode(self.request("POST", path, params=params, body=body))

    def put(self, path: str, body: Any, params: Mapping[str, str] | None = None) -> Any:
        return _decode(self.request("PUT", path, params=params, body=body))

    def patch(self, path: str, body: Any, patch_type: str = "merge",
              params: Mapping[str, str] | None = None) -> Any:
        """PATCH with `patch_type` "merge", "json", "strategic" or "apply" (or a content type)."""
        content_type = PATCH_TYPES.get(patch_type, patch_type)
        if content_type not in PATCH_TYPES.values():
            raise ValueError(f"unknown patch type {patch_type!r}; use one of "
                             f"{', '.join(PATCH_TYPES)}")
        return _decode(self.request("PATCH", path, params=params, body=body,
                                    content_type=content_type))

    def delete(self, path: str, body: Any = None,
               params: Mapping[str, str] | None = None) -> Any:
        return _decode(self.request("DELETE", path, params=params, body=body))

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


def _retry_after(resp: requests.Response) -> float | None:
    value = resp.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _decode(resp: requests.Response) -> Any:
    content = resp.content
    if not content:
        return None
    if "json" not in resp.headers.get("Content-Type", JSON):
        return content.decode("utf-8", "replace")
    return loads(content)


def error_from_response(resp: requests.Response) -> Exception:
    """The `ApiError` for a failed response, from its Status body when it has one."""
    text = resp.text
    body = None
    if "json" in resp.headers.get("Content-Type", ""):
        try:
            body = json.loads(text)
        except ValueError:
            body = None
    err = api_error_from_status(resp.status_code, body, text)
    if not err.message:
        err.message = f"{resp.request.method} {resp.url}: {resp.reason}"
    return err
