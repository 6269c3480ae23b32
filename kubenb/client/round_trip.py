"""One request on a connection kept by the client itself, without requests' per-call work.

`requests.Session.request` rebuilds everything per call: it merges session settings
and cookies, re-reads the proxy environment, parses and re-quotes the URL, looks the
TLS pool up again and copies the answer's cookies into a jar; under it, urllib3 and
http.client add their own layers. For a client that sends thousands of small requests
to one server with one TLS setup, that is most of the CPU of a request (about 470 µs
of CPU per get, against about 100 µs here: docs/client.md "Speed"). client-go does
this work once: a `rest.Config` becomes one `http.Transport`, and the proxy
environment is read once per process.

A `RoundTripper` does the same with the session it is given: it reads the session's
TLS settings once (CA, client certificate, `tls-server-name` from its adapter), keeps
its own kept-alive connections to the server (`kubenb.client.http1`, whose
connections `kubenb.client.abort`'s scopes can shut down like the session's), and
sends each request on them. The answer is a `requests.Response` with its body read, as
from the session. A session it cannot stand in for gets `None` from `for_session`, and
its requests keep going through requests: a proxy applies to the server, an exec
plugin hands out client certificates (they rotate), hooks or another adapter are
mounted.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlencode, urlsplit

import requests
import urllib3
from requests.structures import CaseInsensitiveDict
from requests.utils import (
    DEFAULT_CA_BUNDLE_PATH,
    extract_zipped_paths,
    get_encoding_from_headers,
    requote_uri,
)

from kubenb.client.http1 import ConnectionPool, tls_context
from kubenb.client.transport import POOL_MAXSIZE, KubeHTTPAdapter, system_trust

__all__ = ["RoundTripper"]


class RoundTripper:
    """Sends requests to one server on connections of its own, with the session's TLS."""

    def __init__(self, session: requests.Session, server: str, verify: Any,
                 cert: Any) -> None:
        self._session = session
        self._server = server.rstrip("/")
        split = urlsplit(self._server)
        self._origin = f"{split.scheme}://{split.netloc}"
        self._prefix = split.path.rstrip("/")
        self._verify = verify
        self._cert = cert
        self._adapter: Any = session.get_adapter(self._server)  # a KubeHTTPAdapter
        # what the session was made with: a caller who changes any of it later gets
        # requests' own path (fits())
        self._settings = (session.verify, session.cert, session.auth)
        self._lock = threading.Lock()
        self._pool: ConnectionPool | None = None
        self._closed = False

    @classmethod
    def for_session(cls, session: requests.Session, server: str, *,
                    proxied: bool, rotating_cert: bool) -> RoundTripper | None:
        """A RoundTripper for `session`'s requests to `server`, or None when the session
        must send them itself (see the module docstring). `proxied`: a proxy applies
        to `server`; `rotating_cert`: client certificates come from an exec plugin."""
        adapter = session.get_adapter(server)
        if (proxied or rotating_cert or session.proxies
                or type(adapter) is not KubeHTTPAdapter
                or urlsplit(server).scheme.lower() not in ("http", "https")
                or any(session.hooks.get(name) for name in session.hooks)):
            return None
        verify = session.verify
        if verify is True:  # as KubeSession.merge_environment_settings reads it
            verify = system_trust() or True
        return cls(session, server, verify, session.cert)

    def fits(self) -> bool:
        """Whether the session is still one this can stand in for: a caller may mount
        another adapter, add hooks, proxies or cookies, or change its TLS settings or
        auth on `client.session` at any time."""
        session = self._session
        return (not self._closed and not session.proxies
                and not session.hooks.get("response")
                and not session.cookies
                and session.get_adapter(self._server) is self._adapter
                and (session.verify, session.cert, session.auth) == self._settings)

    def close(self) -> None:
        """Close the kept-alive connections (a request in flight closes its own when it
        ends); later requests go through the session."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def _connection_pool(self) -> ConnectionPool:
        """The pool, made on first use (loading CA and client certificate files then,
        as requests does on its first request)."""
        with self._lock:
            if self._pool is None:
                split = urlsplit(self._server)
                secure = split.scheme.lower() == "https"
                tls = None
                if secure:
                    try:
                        tls = tls_context(self._verify, self._cert,
                                          extract_zipped_paths(DEFAULT_CA_BUNDLE_PATH))
                    except OSError as err:  # a CA or key file that can't be read
                        raise requests.exceptions.SSLError(err) from err
                name = getattr(self._adapter, "tls_server_name", None)
                self._pool = ConnectionPool(split.hostname or "", split.port or
                                            (443 if secure else 80), tls,
                                            server_hostname=name, maxsize=POOL_MAXSIZE)
            return self._pool

    def send(self, method: str, path: str, *, params: Any = None, body: bytes | None = None,
             headers: dict[str, str], timeout: Any) -> requests.Response:
        """Send one request and return its response, the body read.

        Errors are the ones `Session.request` raises for the same failure
        (`requests.ConnectionError`, `requests.exceptions.SSLError`, `ConnectTimeout`,
        `ReadTimeout`, `ChunkedEncodingError` for an answer cut short), so callers
        handle both paths alike."""
        target = self._prefix + path
        if params:
            target += ("&" if "?" in target else "?") + urlencode(params, doseq=True)
        target = requote_uri(target)
        sent = {**self._session.headers, **headers}
        connect_timeout, read_timeout = _timeouts(timeout)
        answer = self._connection_pool().request(method, target, sent, body,
                                                 connect_timeout, read_timeout)
        response = requests.Response()
        response.status_code = answer.status
        response.headers = CaseInsensitiveDict(answer.headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.reason = answer.reason
        response.url = self._origin + target
        response.connection = self._adapter
        response._content = answer.body
        response._content_consumed = True
        request = requests.PreparedRequest()
        request.method = method
        request.url = response.url
        request.headers = CaseInsensitiveDict(sent)
        response.request = request
        return response


def _timeouts(timeout: Any) -> tuple[float | None, float | None]:
    """(connect, read) seconds from what requests takes: a number, a pair or a
    urllib3 `Timeout`."""
    if isinstance(timeout, tuple):
        connect, read = timeout
        return connect, read
    if isinstance(timeout, urllib3.Timeout):
        return timeout.connect_timeout, timeout.read_timeout  # type: ignore[return-value]
    return timeout, timeout
