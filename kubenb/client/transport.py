"""The HTTP transport for a `Config`: a pooled `requests.Session` with the cluster's TLS.

client-go builds one `http.Transport` per TLS configuration; this is its twin over
requests. Three things need care that requests does not give for free:

- `requests` lets `REQUESTS_CA_BUNDLE` from the environment override `Session.verify`,
  which would silently replace the kubeconfig's CA. The session therefore does not trust
  the environment for TLS; it still honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and
  skips them for loopback hosts) as Go's `http.ProxyFromEnvironment` does.
- `tls-server-name` must reach urllib3's pools as `server_hostname` / `assert_hostname`,
  so SNI and certificate verification use that name rather than the URL's host.
- `ssl` only loads client certificates and CAs from files, so PEM data from a kubeconfig
  or an exec plugin is written to private temp files (0600, in a 0700 directory), which
  are removed when the process exits.
"""

from __future__ import annotations

import atexit
import hashlib
import ipaddress
import os
import shutil
import tempfile
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.utils import get_environ_proxies

from kubenb._version import __version__
from kubenb.client import abort
from kubenb.errors import KubeConfigError
from kubenb.redact import redact_url  # noqa: F401  (imported from here by older code)

if TYPE_CHECKING:
    from kubenb.client.config import Config

__all__ = ["KubeHTTPAdapter", "KubeSession", "new_session", "system_trust", "user_agent",
           "write_private_file"]

#: Connections kept per host: informers hold one long watch each, plus list/get traffic.
POOL_MAXSIZE = 32

# -- private files for PEM material ----------------------------------------------------

_files_lock = threading.Lock()
_files_dir: str | None = None
_files_by_digest: dict[str, str] = {}


def write_private_file(data: bytes, suffix: str = ".pem") -> str:
    """Write `data` to a file only this user can read and return its path.

    Identical data gives the same file, so loading a kubeconfig twice does not
    multiply key files. Everything is removed at interpreter exit."""
    global _files_dir
    digest = hashlib.sha256(data).hexdigest()
    with _files_lock:
        known = _files_by_digest.get(digest)
        if known is not None and os.path.exists(known):
            return known
        if _files_dir is None or not os.path.isdir(_files_dir):
            _files_dir = tempfile.mkdtemp(prefix="kubenb-tls-")  # mode 0700
            atexit.register(shutil.rmtree, _files_dir, True)
        path = os.path.join(_files_dir, f"{len(_files_by_digest)}{suffix}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        _files_by_digest[digest] = path
        return path


# -- the adapter and the session -------------------------------------------------------


class KubeHTTPAdapter(HTTPAdapter):
    """An HTTPAdapter that verifies the server as `tls_server_name` when one is given.

    urllib3 uses `server_hostname` for SNI and `assert_hostname` for the certificate
    check; both are pool settings, so they go into every pool manager, proxied or not."""

    __attrs__ = [*HTTPAdapter.__attrs__, "tls_server_name"]

    def __init__(self, tls_server_name: str | None = None, **kwargs: Any) -> None:
        self.tls_server_name = tls_server_name
        super().__init__(**kwargs)

    def _tls_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        name = getattr(self, "tls_server_name", None)
        if name:
            kwargs.setdefault("server_hostname", name)
            kwargs.setdefault("assert_hostname", name)
        return kwargs

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False,
                         **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **self._tls_kwargs(pool_kwargs))
        abort.install(self.poolmanager)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **self._tls_kwargs(proxy_kwargs))
        abort.install(manager)
        return manager


class KubeSession(requests.Session):
    """A Session that takes TLS settings from its Config, never from the environment.

    `trust_env` is off (so neither REQUESTS_CA_BUNDLE nor ~/.netrc apply); proxy
    variables are consulted here instead, per request URL, unless the kubeconfig set
    a `proxy-url`. With no CA in the kubeconfig, REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE
    still choose the "system" trust store, as SSL_CERT_FILE does for Go."""

    def __init__(self, config: Config | None = None) -> None:
        super().__init__()
        self.trust_env = False
        self._kube_config = config
        self._explicit_proxy = bool(config is not None and config.proxy_url)

    def merge_environment_settings(self, url: str, proxies: Any, stream: Any,
                                   verify: Any, cert: Any) -> dict[str, Any]:
        if url and not self._explicit_proxy and not proxies:
            proxies = environment_proxies(url)
        if verify is None and self.verify is True:
            verify = system_trust()
        if cert is None and self.cert is None and self._kube_config is not None:
            cert_files = getattr(self._kube_config.auth, "cert_files", None)
            if cert_files is not None:
                cert = cert_files()  # an exec plugin's client certificate, if it gave one
        return super().merge_environment_settings(url, proxies, stream, verify, cert)


class _ConfigAuth(requests.auth.AuthBase):
    """Sets the Authorization header from the Config's Auth unless the caller set one
    (like client-go's exec round tripper), so a bare `config.new_session()` is usable."""

    def __init__(self, auth: Any) -> None:
        self.auth = auth

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if "Authorization" not in request.headers:
            self.auth.apply(request.headers)
        return request

    def __repr__(self) -> str:
        return f"<auth {getattr(self.auth, 'kind', 'custom')}>"


def system_trust() -> str | None:
    """The CA bundle that stands for "the system's roots" when a kubeconfig names no CA:
    REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE, as SSL_CERT_FILE does for Go; None for
    requests' own default."""
    return os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or None


def environment_proxies(url: str) -> dict[str, str]:
    """The proxies HTTPS_PROXY / HTTP_PROXY / NO_PROXY give for `url`, like Go.

    Go never proxies localhost or loopback addresses from the environment, so a
    test server or `kubectl proxy` on 127.0.0.1 is reached directly."""
    host = urlsplit(url).hostname or ""
    if _is_loopback(host):
        return {}
    found = get_environ_proxies(url)
    return {scheme: proxy for scheme, proxy in found.items() if scheme in ("http", "https")}


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def user_agent() -> str:
    """`kubenb/<version>`, the User-Agent every request carries."""
    return f"kubenb/{__version__}"


def new_session(config: Config) -> requests.Session:
    """A pooled Session that talks to `config.server` with its TLS, proxy and auth."""
    session = KubeSession(config)
    session.headers["User-Agent"] = user_agent()
    if config.insecure_skip_tls_verify:
        session.verify = False
    elif config.ca_file:
        session.verify = config.ca_file
    else:
        session.verify = True
    if config.client_cert_file and config.client_key_file:
        session.cert = (config.client_cert_file, config.client_key_file)
    if config.proxy_url:
        _check_proxy_support(config.proxy_url, config.source)
        session.proxies = _proxies_for(config.proxy_url)
    if config.auth is not None:
        session.auth = _ConfigAuth(config.auth)
    adapter = KubeHTTPAdapter(tls_server_name=config.tls_server_name,
                              pool_connections=4, pool_maxsize=POOL_MAXSIZE)
    session.mount("https://", adapter)
    session.mount("http://", KubeHTTPAdapter(pool_connections=4, pool_maxsize=POOL_MAXSIZE))
    return session


def _proxies_for(proxy_url: str) -> dict[str, str]:
    return {"http": proxy_url, "https": proxy_url}


def _check_proxy_support(proxy_url: str, source: str) -> None:
    if urlsplit(proxy_url).scheme.lower().startswith("socks"):
        try:
            import socks  # noqa: F401  (PySocks, what requests needs for SOCKS)
        except ImportError:
            raise KubeConfigError(
                f"{source}: proxy-url uses SOCKS, which needs PySocks "
                f"(pip install 'requests[socks]')") from None

