"""TLS: the throwaway CA, the user's own certificate, and real clients over HTTPS."""

from __future__ import annotations

import base64
import json
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import kubernetes
import pytest
import requests
import trustme
import yaml

from kubenb.server import EmbeddedServer, tls
from kubenb.server import server as server_module
from tests.helpers import assert_no_new_threads, wait_until

CM = "/api/v1/namespaces/default/configmaps"
TOKEN = "tls-t0ken-s3cret"


@pytest.fixture
def tls_server() -> Iterator[EmbeddedServer]:
    srv = EmbeddedServer(tls=True, token=TOKEN, bookmark_interval=0.2)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _session(srv: EmbeddedServer) -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # else REQUESTS_CA_BUNDLE from the environment wins over verify
    session.verify = srv.ca_path
    session.headers["Authorization"] = f"Bearer {TOKEN}"
    return session


def _peer_names(srv: EmbeddedServer, server_hostname: str) -> list[tuple[str, str]]:
    """Connect with the CA and check `server_hostname`; return the certificate's SANs."""
    assert srv.ca_pem is not None
    ctx = ssl.create_default_context(cadata=srv.ca_pem.decode())
    port = int(srv.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, \
            ctx.wrap_socket(raw, server_hostname=server_hostname) as conn:
        return list(conn.getpeercert()["subjectAltName"])


def test_https_url_ca_and_kubeconfig(tls_server: EmbeddedServer) -> None:
    assert tls_server.url.startswith("https://127.0.0.1:")
    assert tls_server.tls and tls_server.ca_pem and tls_server.ca_pem.startswith(
        b"-----BEGIN CERTIFICATE-----")
    assert Path(tls_server.ca_path or "").read_bytes() == tls_server.ca_pem
    config = yaml.safe_load(Path(tls_server.kubeconfig_path).read_text())
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == tls_server.url
    assert base64.b64decode(cluster["certificate-authority-data"]) == tls_server.ca_pem
    assert "insecure-skip-tls-verify" not in cluster
    with _session(tls_server) as session:
        assert session.get(tls_server.url + "/readyz", timeout=5).text == "ok"
        created = session.post(tls_server.url + CM, json={"metadata": {"name": "c"}},
                               timeout=5)
        assert created.status_code == 201
        unauth = requests.get(tls_server.url + CM, verify=tls_server.ca_path, timeout=5)
        assert unauth.status_code == 401 and TOKEN not in unauth.text
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(tls_server.url + "/readyz", timeout=5)  # not trusted without the CA
    assert TOKEN not in repr(tls_server)


def test_certificate_names_loopback_localhost_and_kubernetes_local(
        tls_server: EmbeddedServer) -> None:
    for name in ("127.0.0.1", "localhost", "kubernetes.local"):
        sans = _peer_names(tls_server, name)
        assert ("IP Address", "127.0.0.1") in sans
        assert {("DNS", "localhost"), ("DNS", "kubernetes.local")} <= set(sans)
    with pytest.raises(ssl.SSLCertVerificationError):
        _peer_names(tls_server, "example.com")


@pytest.mark.parametrize("backend", tls.BACKENDS)
def test_each_certificate_backend_serves(backend: str, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    if backend == "openssl" and shutil.which("openssl") is None:
        pytest.skip("no openssl command line")
    if backend == "cryptography":
        pytest.importorskip("cryptography")
    monkeypatch.setattr(server_module, "generate_self_signed",
                        lambda names: tls.generate_self_signed(names, backends=(backend,)))
    with EmbeddedServer(tls=True) as srv:
        assert repr(srv).endswith(f"tls={backend})")
        ctx = ssl.create_default_context(cafile=srv.ca_path)
        ctx.verify_flags |= ssl.VERIFY_X509_STRICT  # what Python 3.13 checks by default
        port = int(srv.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, \
                ctx.wrap_socket(raw, server_hostname="kubernetes.local") as conn:
            conn.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := conn.recv(65536):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200 OK")
        assert b'"gitVersion"' in reply


def test_no_certificate_backend_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(names: object) -> tls.CertBundle:
        raise ImportError("not installed")

    monkeypatch.setattr(tls, "_MAKERS", dict.fromkeys(tls.BACKENDS, missing))
    with pytest.raises(tls.TLSSetupError, match="pip install trustme") as caught:
        EmbeddedServer(tls=True)
    assert "openssl" in str(caught.value) and "tls=(certfile, keyfile)" in str(caught.value)
    with pytest.raises(tls.TLSSetupError, match="unknown certificate backend"):
        tls.generate_self_signed(backends=("gpg",))


def test_users_own_certificate_with_and_without_tls_ca(tmp_path: Path) -> None:
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    cert, key, ca_file = tmp_path / "tls.crt", tmp_path / "tls.key", tmp_path / "ca.crt"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    ca.cert_pem.write_to_path(str(ca_file))
    with EmbeddedServer(tls=(str(cert), str(key)), tls_ca=ca_file) as srv:
        assert srv.ca_pem == ca_file.read_bytes()
        assert requests.get(srv.url + "/api/v1/namespaces", verify=srv.ca_path,
                            timeout=5).status_code == 200
        config = yaml.safe_load(Path(srv.kubeconfig_path).read_text())
        assert "certificate-authority-data" in config["clusters"][0]["cluster"]
    with EmbeddedServer(tls=(cert, key)) as srv:  # trust left to the system store
        assert srv.ca_pem is None and srv.ca_path is None
        config = yaml.safe_load(Path(srv.kubeconfig_path).read_text())
        assert config["clusters"][0]["cluster"] == {"server": srv.url}
        assert requests.get(srv.url + "/version", verify=str(ca_file),
                            timeout=5).status_code == 200


def test_bad_certificate_files_name_the_file_not_the_key(tmp_path: Path) -> None:
    key = tmp_path / "tls.key"
    key.write_text("-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n"
                   "-----END PRIVATE KEY-----\n")
    with pytest.raises(tls.TLSSetupError, match="cannot read the TLS certificate file"):
        EmbeddedServer(tls=(tmp_path / "missing.crt", key))
    not_pem = tmp_path / "tls.crt"
    not_pem.write_text("hello")
    with pytest.raises(tls.TLSSetupError, match="no PEM certificate"):
        EmbeddedServer(tls=(not_pem, key))
    other = trustme.CA().issue_cert("localhost")
    other.cert_chain_pems[0].write_to_path(str(not_pem))
    with pytest.raises(tls.TLSSetupError, match="do not load") as caught:
        EmbeddedServer(tls=(not_pem, key))
    assert str(key) in str(caught.value) and "c2VjcmV0" not in str(caught.value)
    with pytest.raises(tls.TLSSetupError, match="tls_ca"):
        EmbeddedServer(tls_ca=not_pem)
    assert "PRIVATE" not in repr(tls.generate_self_signed())


@pytest.mark.slow
def test_kubectl_over_tls_with_token(tls_server: EmbeddedServer) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    with _session(tls_server) as session:
        session.post(tls_server.url + CM, json={"metadata": {"name": "over-tls"}}, timeout=5)
    out = subprocess.run(["kubectl", "--kubeconfig", tls_server.kubeconfig_path, "get", "ns"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "kube-system" in out.stdout
    out = subprocess.run(["kubectl", "--kubeconfig", tls_server.kubeconfig_path, "get", "cm",
                          "-o", "name"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "configmap/over-tls" in out.stdout.split()


def test_official_client_over_tls_with_token(tls_server: EmbeddedServer) -> None:
    client = kubernetes.config.new_client_from_config(config_file=tls_server.kubeconfig_path)
    try:
        core = kubernetes.client.CoreV1Api(client)
        names = [ns.metadata.name for ns in core.list_namespace().items]
        assert {"default", "kube-system"} <= set(names)
        core.create_namespaced_config_map("default", {"metadata": {"name": "from-client"}})
        assert core.read_namespaced_config_map("from-client", "default").metadata.uid
    finally:
        client.close()


def test_watch_over_tls_stays_open_and_notices_a_gone_client(
        tls_server: EmbeddedServer) -> None:
    with _session(tls_server) as session:
        watch = session.get(tls_server.url + CM, params={"watch": "true"}, stream=True,
                            timeout=10)
        lines = watch.iter_lines()
        wait_until(lambda: tls_server.storage.watch_count == 1, what="the watch to open")
        for i in range(3):  # a connected, silent client is not taken for gone
            session.post(tls_server.url + CM, json={"metadata": {"name": f"ev{i}"}}, timeout=5)
            event = json.loads(next(line for line in lines if line))
            assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", f"ev{i}")
            assert tls_server.storage.watch_count == 1
        watch.close()
    wait_until(lambda: tls_server.storage.watch_count == 0, what="the server to see it go")


def test_plain_http_to_a_tls_port_fails_cleanly_and_stop_joins(tls_server: EmbeddedServer
                                                               ) -> None:
    before = set(threading.enumerate())
    plain = tls_server.url.replace("https://", "http://")
    answer = requests.get(plain + "/readyz", timeout=5)  # what Go's server answers
    assert answer.status_code == 400
    assert answer.text == "Client sent an HTTP request to an HTTPS server.\n"
    with socket.create_connection(("127.0.0.1", int(plain.rsplit(":", 1)[1])), timeout=5):
        pass  # connect and hang up without a handshake
    with _session(tls_server) as session:
        assert session.get(tls_server.url + "/readyz", timeout=5).status_code == 200
    tls_server.stop()
    assert_no_new_threads(before)


@pytest.mark.slow
def test_tls_without_token_needs_no_prompt() -> None:
    with EmbeddedServer(tls=True) as srv:
        config = yaml.safe_load(Path(srv.kubeconfig_path).read_text())
        assert "token" not in config["users"][0]["user"]
        if shutil.which("kubectl"):
            out = subprocess.run(["kubectl", "--kubeconfig", srv.kubeconfig_path, "get", "ns",
                                  "-o", "name"], capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
            assert out.returncode == 0, out.stderr  # no "Please enter Username"
            assert "namespace/default" in out.stdout.split()
        client = kubernetes.config.new_client_from_config(config_file=srv.kubeconfig_path)
        try:
            assert kubernetes.client.CoreV1Api(client).list_namespace().items
        finally:
            client.close()


def _tls_connection(srv: EmbeddedServer) -> ssl.SSLSocket:
    ctx = ssl.create_default_context(cafile=srv.ca_path)
    raw = socket.create_connection(("127.0.0.1", int(srv.url.rsplit(":", 1)[1])), timeout=5)
    # suppress_ragged_eofs=False: a close without close_notify raises SSLEOFError.
    return ctx.wrap_socket(raw, server_hostname="localhost", suppress_ragged_eofs=False)


def _read_response(conn: ssl.SSLSocket) -> bytes:
    head = b""
    while b"\r\n\r\n" not in head:
        head += conn.recv(4096)
    headers, _, body = head.partition(b"\r\n\r\n")
    length = int(headers.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += conn.recv(4096)
    return headers


def test_a_closed_keep_alive_connection_gets_the_servers_close_notify(
        tls_server: EmbeddedServer) -> None:
    conn = _tls_connection(tls_server)
    conn.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
    assert _read_response(conn).startswith(b"HTTP/1.1 200 OK")
    # unwrap() sends the client's close_notify and returns only once the server's arrives
    # (a server that just closes the socket makes it raise SSLEOFError instead).
    plain = conn.unwrap()
    plain.close()


def test_connection_close_ends_with_close_notify_not_a_truncation(
        tls_server: EmbeddedServer) -> None:
    with _tls_connection(tls_server) as conn:
        conn.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := conn.recv(4096):  # b"" only after close_notify; else SSLEOFError
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 200 OK") and reply.endswith(b"}\n")


def test_a_tls_hello_on_the_plain_port_gets_a_plain_text_400(server: EmbeddedServer) -> None:
    ctx = ssl.create_default_context()
    outgoing, incoming = ssl.MemoryBIO(), ssl.MemoryBIO()
    hello = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        hello.do_handshake()
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        raw.sendall(outgoing.read())
        reply = b""
        while chunk := raw.recv(4096):
            reply += chunk
    assert reply == (b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     b"Connection: close\r\n\r\n400 Bad Request")  # as Go's server, no HTML
