"""The transport, over real TLS: CA from kubeconfig data, wrong CA, insecure, tls-server-name,
client certificates (mTLS) from files, data and exec plugins, proxies and the environment.

`TLSServer` is a tiny stdlib `http.server` wrapped in `ssl` on 127.0.0.1, with a throwaway
trustme CA; it records what each request carried (SNI, client certificate CN, headers).
"""

from __future__ import annotations

import base64
import http.server
import json
import logging
import os
import ssl
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import trustme

from kubenb.client.config import Config, config_from_dict, load_config, load_kube_config
from kubenb.client.rest import RESTClient
from kubenb.client.round_trip import RoundTripper
from kubenb.client.transport import (
    POOL_MAXSIZE,
    KubeHTTPAdapter,
    environment_proxies,
    new_session,
    redact_url,
    user_agent,
    write_private_file,
)
from kubenb.errors import KubeConfigError, ServerConnectionError, ServerTLSError
from kubenb.server import EmbeddedServer
from tests.client.conftest import SleepRecordingClock, kubeconfig_doc
from tests.client.test_auth import SECRET_MARK, FakePlugin

FIXTURES = Path(__file__).parent / "fixtures" / "kubeconfig"


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers every GET with 200 and a JSON body; remembers what it saw."""

    server: _RecordingServer

    def do_GET(self) -> None:
        seen: dict[str, Any] = {"path": self.path, "headers": dict(self.headers)}
        getpeercert = getattr(self.connection, "getpeercert", None)
        peer = getpeercert() if getpeercert else None
        if peer:
            subject = dict(pair[0] for pair in peer["subject"])
            seen["client_cn"] = subject.get("commonName")
        self.server.seen.append(seen)
        body = json.dumps({"kind": "Status", "ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _RecordingServer(http.server.HTTPServer):
    """One connection at a time (HTTP/1.0: each closes), TLS handshake per connection."""

    def __init__(self, context: ssl.SSLContext | None) -> None:
        self.context = context
        self.seen: list[dict[str, Any]] = []
        self.handshake_errors: list[str] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    def finish_request(self, request: Any, client_address: Any) -> None:
        request.settimeout(5)
        if self.context is None:
            super().finish_request(request, client_address)
            return
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as err:
            self.handshake_errors.append(type(err).__name__)
            return
        try:
            super().finish_request(tls, client_address)
        finally:
            tls.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up mid-request is part of the tests


class TLSServer:
    """An HTTPS (or, with no cert, HTTP) server on 127.0.0.1 in a named thread."""

    def __init__(self, cert: trustme.LeafCert | None, client_ca: trustme.CA | None = None):
        self.sni: list[str | None] = []
        context = None
        if cert is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            cert.configure_cert(context)
            if client_ca is not None:
                client_ca.configure_trust(context)
                context.verify_mode = ssl.CERT_REQUIRED
            context.sni_callback = lambda _sock, name, _ctx: self.sni.append(name)
        self.httpd = _RecordingServer(context)
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05},
                                       name="kubenb-test-tls-server", daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        scheme = "https" if self.httpd.context is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    @property
    def seen(self) -> list[dict[str, Any]]:
        return self.httpd.seen

    def __enter__(self) -> TLSServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture(autouse=True)
def no_secrets_in_logs(caplog: pytest.LogCaptureFixture):
    """Every log line any test here produces is checked for secrets."""
    caplog.set_level(logging.DEBUG, logger="kubenb")
    yield
    for phase in ("setup", "call"):
        for record in caplog.get_records(phase):
            assert SECRET_MARK not in record.getMessage(), record.getMessage()


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def server_cert(ca: trustme.CA) -> trustme.LeafCert:
    return ca.issue_cert("127.0.0.1", "localhost")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _kubeconfig(server: str, cluster: dict[str, Any] | None = None,
                user: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Config", "current-context": "t",
        "clusters": [{"name": "t", "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": "t", "user": user or {}}],
        "contexts": [{"name": "t", "context": {"cluster": "t", "user": "t"}}],
    }


def _via_session(config: Config, path: str) -> requests.Response:
    with config.new_session() as session:
        return session.get(config.server + path, timeout=5)


def _via_round_trip(config: Config, path: str) -> requests.Response:
    """What RESTClient sends a plain request with (the session's pool, used directly)."""
    with config.new_session() as session:
        sender = RoundTripper.for_session(
            session, config.server,
            proxied=bool(config.proxy_url or environment_proxies(config.server)),
            rotating_cert=getattr(config.auth, "cert_files", None) is not None)
        if sender is None:  # a proxy or an exec plugin's certificates: requests sends it
            return session.get(config.server + path, timeout=5)
        response = sender.send("GET", path, headers={}, timeout=5)
        response.content  # noqa: B018  (read it while the pool is open)
        return response


def _get(config: Config, path: str = "/version") -> requests.Response:
    """GET `path` both ways a kubenb client sends requests; they must agree, in the
    answer or in the error."""
    outcomes: list[Any] = []
    for send in (_via_session, _via_round_trip):
        try:
            outcomes.append(send(config, path))
        except Exception as err:  # compared below
            outcomes.append(err)
    by_session, by_round_trip = outcomes
    if isinstance(by_session, Exception):
        assert type(by_round_trip) is type(by_session), (by_session, by_round_trip)
        raise by_session
    assert not isinstance(by_round_trip, Exception), by_round_trip
    assert (by_round_trip.status_code, by_round_trip.content) == (
        by_session.status_code, by_session.content)
    return by_session


# -- server verification ----------------------------------------------------------------


def test_ca_from_kubeconfig_data_verifies_the_server(ca, server_cert, threads_checked):
    with TLSServer(server_cert) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes())}))
        assert config.ca_data == ca.cert_pem.bytes()
        assert stat.S_IMODE(os.stat(config.ca_file).st_mode) == 0o600
        response = _get(config)
        assert response.status_code == 200
        assert response.json()["ok"] is True
        assert srv.seen[0]["headers"]["User-Agent"] == user_agent()


def test_wrong_ca_fails_with_an_ssl_error(server_cert, threads_checked):
    other = trustme.CA()
    with TLSServer(server_cert) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority-data": _b64(other.cert_pem.bytes())}))
        with pytest.raises(requests.exceptions.SSLError):
            _get(config)
        assert srv.seen == []


def test_no_ca_means_system_roots_which_do_not_know_a_private_ca(server_cert, threads_checked,
                                                                 monkeypatch):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    with TLSServer(server_cert) as srv, pytest.raises(requests.exceptions.SSLError):
        _get(config_from_dict(_kubeconfig(srv.url)))


def test_insecure_skip_tls_verify_accepts_any_server_cert(server_cert, threads_checked):
    with TLSServer(server_cert) as srv:
        config = config_from_dict(_kubeconfig(srv.url, {"insecure-skip-tls-verify": True}))
        assert config.insecure_skip_tls_verify
        with pytest.warns(Warning):  # urllib3's InsecureRequestWarning, as it should be
            assert _get(config).status_code == 200


def test_tls_server_name_is_used_for_sni_and_verification(ca, threads_checked):
    cert = ca.issue_cert("kubernetes.local")  # not valid for 127.0.0.1
    with TLSServer(cert) as srv:
        plain = _kubeconfig(srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes())})
        with pytest.raises(requests.exceptions.SSLError):
            _get(config_from_dict(plain))
        named = _kubeconfig(srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes()),
                                      "tls-server-name": "kubernetes.local"})
        config = config_from_dict(named)
        assert config.tls_server_name == "kubernetes.local"
        assert _get(config).status_code == 200
        assert srv.sni[-1] == "kubernetes.local"


def test_tls_server_name_that_does_not_match_fails(ca, threads_checked):
    cert = ca.issue_cert("kubernetes.local")
    with TLSServer(cert) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes()),
                      "tls-server-name": "other.local"}))
        with pytest.raises(requests.exceptions.SSLError):
            _get(config)


def test_requests_ca_bundle_does_not_override_the_kubeconfig_ca(ca, server_cert, tmp_path,
                                                                monkeypatch, threads_checked):
    wrong = tmp_path / "wrong-ca.pem"
    wrong.write_bytes(trustme.CA().cert_pem.bytes())
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(wrong))
    good = tmp_path / "good-ca.pem"
    good.write_bytes(ca.cert_pem.bytes())
    with TLSServer(server_cert) as srv:
        # The trap: a plain requests.Session lets the environment replace its own CA.
        naive = requests.Session()
        naive.verify = str(good)
        with pytest.raises(requests.exceptions.SSLError):
            naive.get(srv.url, timeout=5)
        naive.close()
        config = config_from_dict(_kubeconfig(srv.url, {"certificate-authority": str(good)}))
        assert _get(config).status_code == 200


def test_requests_ca_bundle_is_the_system_trust_when_the_kubeconfig_has_no_ca(
        ca, server_cert, tmp_path, monkeypatch, threads_checked):
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(ca.cert_pem.bytes())
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    with TLSServer(server_cert) as srv:
        assert _get(config_from_dict(_kubeconfig(srv.url))).status_code == 200


# -- client certificates (mTLS) ------------------------------------------------------------


@pytest.fixture(scope="module")
def client_cert(ca: trustme.CA) -> trustme.LeafCert:
    return ca.issue_cert("client.example", common_name="kubenb-user")


def test_client_certificate_from_data(ca, server_cert, client_cert, threads_checked):
    with TLSServer(server_cert, client_ca=ca) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes())},
            {"client-certificate-data": _b64(client_cert.cert_chain_pems[0].bytes()),
             "client-key-data": _b64(client_cert.private_key_pem.bytes())}))
        assert config.auth_kind == "client-certificate"
        assert stat.S_IMODE(os.stat(config.client_key_file).st_mode) == 0o600
        assert _get(config).status_code == 200
        assert srv.seen[-1]["client_cn"] == "kubenb-user"


def test_client_certificate_from_files(ca, server_cert, client_cert, tmp_path, threads_checked):
    client_cert.cert_chain_pems[0].write_to_path(str(tmp_path / "client.crt"))
    client_cert.private_key_pem.write_to_path(str(tmp_path / "client.key"))
    ca.cert_pem.write_to_path(str(tmp_path / "ca.crt"))
    with TLSServer(server_cert, client_ca=ca) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority": str(tmp_path / "ca.crt")},
            {"client-certificate": str(tmp_path / "client.crt"),
             "client-key": str(tmp_path / "client.key")}))
        assert config.client_cert_file == str(tmp_path / "client.crt")
        assert _get(config).status_code == 200
        assert srv.seen[-1]["client_cn"] == "kubenb-user"


def test_server_requiring_a_client_cert_refuses_a_client_without_one(ca, server_cert,
                                                                      threads_checked):
    with TLSServer(server_cert, client_ca=ca) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes())}))
        with pytest.raises(requests.exceptions.ConnectionError):
            _get(config)
        assert srv.seen == []


def test_client_certificate_from_an_exec_plugin(ca, server_cert, tmp_path, threads_checked):
    plugin = FakePlugin(tmp_path)
    plugin.give_cert(ca.issue_cert("exec.example", common_name="exec-user"))
    plugin.set(token=False, cert=True)
    with TLSServer(server_cert, client_ca=ca) as srv:
        config = config_from_dict(_kubeconfig(
            srv.url, {"certificate-authority-data": _b64(ca.cert_pem.bytes())},
            {"exec": plugin.exec_config()}))
        assert _get(config).status_code == 200
        assert srv.seen[-1]["client_cn"] == "exec-user"
        assert "Authorization" not in srv.seen[-1]["headers"]


def test_kind_fixture_connects_with_its_inline_ca_and_client_cert(ca, server_cert, client_cert,
                                                                   tmp_path, threads_checked):
    with TLSServer(server_cert, client_ca=ca) as srv:
        text = (FIXTURES / "kind.yaml").read_text()
        for key, value in {
            "${CA_DATA}": _b64(ca.cert_pem.bytes()),
            "${PORT}": str(srv.port),
            "${CLIENT_CERT_DATA}": _b64(client_cert.cert_chain_pems[0].bytes()),
            "${CLIENT_KEY_DATA}": _b64(client_cert.private_key_pem.bytes()),
        }.items():
            text = text.replace(key, value)
        path = tmp_path / "kind.yaml"
        path.write_text(text)
        config = load_kube_config(path)
        assert config.server == f"https://127.0.0.1:{srv.port}"
        assert _get(config, "/api").status_code == 200
        assert srv.seen[-1]["client_cn"] == "kubenb-user"


# -- auth, pooling, user agent ---------------------------------------------------------


def test_session_sends_the_config_token_to_the_embedded_server(threads_checked):
    with EmbeddedServer(token="s3cr3t-srv-token") as server:
        url = f"{server.url}/api/v1/namespaces"
        with_token = config_from_dict(_kubeconfig(server.url, user={"token": "s3cr3t-srv-token"}))
        without = config_from_dict(_kubeconfig(server.url))
        assert _get(without, "/api/v1/namespaces").status_code == 401
        with with_token.new_session() as session:
            response = session.get(url, timeout=5)
        assert response.status_code == 200
        assert response.json()["kind"] == "NamespaceList"


def test_session_pools_enough_connections_for_many_watches():
    config = Config(server="https://127.0.0.1:6443")
    session = new_session(config)
    adapter = session.get_adapter("https://127.0.0.1:6443/api")
    assert isinstance(adapter, KubeHTTPAdapter)
    assert adapter._pool_maxsize == POOL_MAXSIZE >= 32
    assert session.trust_env is False
    assert session.headers["User-Agent"].startswith("kubenb/")
    session.close()


def test_user_agent_names_kubenb_and_its_version():
    import kubenb

    assert user_agent() == f"kubenb/{kubenb.__version__}"


def test_private_files_are_owner_only_and_deduplicated():
    first = write_private_file(b"-----BEGIN CERTIFICATE-----\nabc\n", ".crt")
    again = write_private_file(b"-----BEGIN CERTIFICATE-----\nabc\n", ".crt")
    assert first == again
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(first)).st_mode) == 0o700


# -- proxies ---------------------------------------------------------------------------


@pytest.fixture
def proxy():
    """A plain HTTP server standing in for a forward proxy: it records absolute URLs."""
    with TLSServer(None) as srv:
        yield srv


def test_proxy_url_sends_requests_through_the_proxy(proxy, threads_checked):
    config = config_from_dict(_kubeconfig("http://kube.invalid:6443",
                                          {"proxy-url": proxy.url}))
    assert config.proxy_url == proxy.url
    assert _get(config, "/api").status_code == 200
    assert proxy.seen[-1]["path"] == "http://kube.invalid:6443/api"


def test_proxy_url_wins_over_the_environment(proxy, monkeypatch, threads_checked):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    config = config_from_dict(_kubeconfig("http://kube.invalid:6443",
                                          {"proxy-url": proxy.url}))
    assert _get(config, "/api").status_code == 200
    assert proxy.seen[-1]["path"] == "http://kube.invalid:6443/api"


def test_environment_proxy_is_honoured_without_proxy_url(proxy, monkeypatch, threads_checked):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    config = config_from_dict(_kubeconfig("http://kube.invalid:6443"))
    assert _get(config, "/apis").status_code == 200
    assert proxy.seen[-1]["path"] == "http://kube.invalid:6443/apis"


def test_environment_proxy_is_skipped_for_loopback_like_go(proxy, monkeypatch, threads_checked):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with EmbeddedServer() as server:
        config = config_from_dict(_kubeconfig(server.url))
        assert _get(config, "/api").json()["kind"] == "APIVersions"
    assert proxy.seen == []
    assert environment_proxies("https://[::1]:6443/") == {}
    assert environment_proxies("https://localhost:6443/") == {}


def test_no_proxy_excludes_hosts(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", ".internal.example")
    monkeypatch.setenv("ALL_PROXY", "http://all.example:1")
    assert environment_proxies("https://api.internal.example:6443/") == {}
    assert environment_proxies("https://api.public.example:6443/") == {
        "https": "http://proxy.example:3128"}


def test_socks_proxy_without_pysocks_is_a_clear_error():
    try:
        import socks  # noqa: F401
    except ImportError:
        config = config_from_dict(_kubeconfig("https://k.example",
                                              {"proxy-url": "socks5://127.0.0.1:1080",
                                               "insecure-skip-tls-verify": True}))
        with pytest.raises(KubeConfigError, match="PySocks"):
            config.new_session()
    else:  # pragma: no cover - PySocks installed: the session is built
        pytest.skip("PySocks is installed")


def test_redact_url_hides_proxy_credentials():
    assert redact_url("http://user:s3cr3t@proxy.example:3128") == \
        "http://<redacted>@proxy.example:3128"
    assert redact_url("http://proxy.example:3128") == "http://proxy.example:3128"


def test_nothing_secret_in_session_reprs_or_logs(caplog, ca, client_cert):
    caplog.set_level(logging.DEBUG, logger="kubenb")
    config = config_from_dict(_kubeconfig(
        "https://k.example",
        {"certificate-authority-data": _b64(ca.cert_pem.bytes()),
         "proxy-url": "http://user:s3cr3t-proxy@proxy.example:3128"},
        {"token": "s3cr3t-tok"}))
    session = config.new_session()
    key_line = client_cert.private_key_pem.bytes().decode().splitlines()[1]
    for text in (repr(config), str(config), repr(config.auth), repr(session.auth),
                 caplog.text):
        assert SECRET_MARK not in text
        assert key_line not in text
    session.close()


# -- a CA that does not verify the server ----------------------------------------------------------

@pytest.fixture(scope="module")
def tls_server() -> Iterator[EmbeddedServer]:
    srv = EmbeddedServer(tls=True, token="s3cr3t-token-for-tls")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def test_wrong_ca_is_a_kubenb_tls_error_naming_the_server(tls_server: EmbeddedServer,
                                                          tmp_path: Path) -> None:
    other_ca = base64.b64encode(trustme.CA().cert_pem.bytes()).decode()
    config = config_from_dict(kubeconfig_doc(
        tls_server.url, {"token": "s3cr3t-token-for-tls"},
        {"certificate-authority-data": other_ca}))
    clock = SleepRecordingClock()
    rest = RESTClient(config, clock=clock)
    try:
        with pytest.raises(ServerTLSError) as info:
            rest.get("/version")
    finally:
        rest.close()
    err = info.value
    assert isinstance(err, ServerConnectionError)
    assert isinstance(err, requests.exceptions.SSLError)
    assert isinstance(err.__cause__, requests.exceptions.SSLError)
    assert tls_server.url in str(err)
    assert "certificate verify failed" in str(err)
    assert "certificate-authority" in str(err)  # where to look
    assert "GET /version" in str(err)
    assert clock.slept == []  # a certificate that does not verify is not retried
    assert "s3cr3t" not in str(err)


def test_right_ca_still_works(tls_server: EmbeddedServer) -> None:
    config = load_config(str(tls_server.kubeconfig_path))
    rest = RESTClient(config)
    try:
        assert rest.get("/version")["major"] == "1"
    finally:
        rest.close()
