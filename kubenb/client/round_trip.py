"""One request on the session's own connection pool, without requests' per-call work.

`requests.Session.request` rebuilds everything per call: it merges session settings
and cookies, re-reads the proxy environment, parses and re-quotes the URL, looks the
TLS pool up again and copies the answer's cookies into a jar. For a client that sends
thousands of small requests to one server with one TLS setup, that is most of the
CPU of a request (about 470 µs of CPU per get against 190 µs for the same urllib3 pool
used directly, docs/client.md "Speed"). client-go does this work once: a `rest.Config`
becomes one `http.Transport`, and the proxy environment is read once per process.

A `RoundTripper` does the same with the session it is given: it asks the session's
adapter once for the pool that matches the session's TLS settings (CA, client
certificate, `tls-server-name`; the pool's connections are the abortable ones of
`kubenb.client.abort`), and then sends each request on that pool. The answer is a
`requests.Response`, as from the session. A session it cannot stand in for gets
`None` from `for_session`, and its requests keep going through requests: a proxy
applies to the server, an exec plugin hands out client certificates (they rotate),
hooks or another adapter are mounted, or requests is too old to name the pool.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlencode, urlsplit

import requests
import urllib3
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers, requote_uri
from urllib3.exceptions import (
    ClosedPoolError,
    ConnectTimeoutError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)
from urllib3.exceptions import SSLError as Urllib3SSLError

from kubenb.client.transport import KubeHTTPAdapter, system_trust

__all__ = ["RoundTripper"]


class RoundTripper:
    """Sends requests to one server on the pool the session would use for it."""

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
        self._pool: Any = None

    @classmethod
    def for_session(cls, session: requests.Session, server: str, *,
                    proxied: bool, rotating_cert: bool) -> RoundTripper | None:
        """A RoundTripper for `session`'s requests to `server`, or None when the session
        must send them itself (see the module docstring). `proxied`: a proxy applies
        to `server`; `rotating_cert`: client certificates come from an exec plugin."""
        adapter = session.get_adapter(server)
        if (proxied or rotating_cert or session.proxies
                or type(adapter) is not KubeHTTPAdapter
                or not hasattr(adapter, "get_connection_with_tls_context")
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
        return (not session.proxies and not session.hooks.get("response")
                and not session.cookies
                and session.get_adapter(self._server) is self._adapter
                and (session.verify, session.cert, session.auth) == self._settings)

    def _resolve_pool(self) -> Any:
        """The pool the adapter picks for this server and TLS setup (once; again only
        if the pool manager dropped it)."""
        with self._lock:
            if self._pool is None or self._pool.pool is None:
                probe = requests.PreparedRequest()
                probe.prepare(method="GET", url=self._server + "/")
                pool = self._adapter.get_connection_with_tls_context(
                    probe, self._verify, proxies=None, cert=self._cert)
                self._adapter.cert_verify(pool, probe.url, self._verify, self._cert)
                self._pool = pool
            return self._pool

    def send(self, method: str, path: str, *, params: Any = None, body: bytes | None = None,
             headers: dict[str, str], timeout: Any) -> requests.Response:
        """Send one request and return its response, the body unread (as `stream=True`).

        Errors are the ones `Session.request` raises for the same failure
        (`requests.ConnectionError`, `requests.exceptions.SSLError`, `ConnectTimeout`,
        `ReadTimeout`), so callers handle both paths alike."""
        target = self._prefix + path
        if params:
            target += ("&" if "?" in target else "?") + urlencode(params, doseq=True)
        target = requote_uri(target)
        sent = {**self._session.headers, **headers}
        urllib3_timeout = _timeout(timeout)
        for attempt in (1, 2):
            pool = self._resolve_pool()
            try:
                raw = pool.urlopen(method, target, body=body, headers=sent, redirect=False,
                                   assert_same_host=False, retries=False,
                                   preload_content=False, decode_content=False,
                                   timeout=urllib3_timeout)
                break
            except ClosedPoolError:
                if attempt == 2:
                    raise requests.ConnectionError("the connection pool was closed") from None
            except Urllib3SSLError as err:
                raise requests.exceptions.SSLError(err) from err
            except NewConnectionError as err:
                raise requests.ConnectionError(err) from err
            except ConnectTimeoutError as err:
                raise requests.ConnectTimeout(err) from err
            except ReadTimeoutError as err:
                raise requests.ReadTimeout(err) from err
            except (ProtocolError, OSError, urllib3.exceptions.HTTPError) as err:
                raise requests.ConnectionError(err) from err
        response = requests.Response()
        response.status_code = raw.status
        response.headers = CaseInsensitiveDict(raw.headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = raw
        response.reason = raw.reason
        response.url = self._origin + target
        response.connection = self._adapter
        request = requests.PreparedRequest()
        request.method = method
        request.url = response.url
        request.headers = CaseInsensitiveDict(sent)
        response.request = request
        return response


def _timeout(timeout: Any) -> urllib3.Timeout:
    if isinstance(timeout, tuple):
        connect, read = timeout
        return urllib3.Timeout(connect=connect, read=read)
    if isinstance(timeout, urllib3.Timeout):
        return timeout
    return urllib3.Timeout(connect=timeout, read=timeout)
