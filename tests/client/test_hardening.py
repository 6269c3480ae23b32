"""Hostile inputs to the client (issue 17): what a user sees, and what never leaks.

- a password in the server URL is in no repr and no message (6);
- a token that cannot travel in a header is refused where it is obtained (7);
- a 200 answer that is not a List is an error naming the request, never a str (8);
- a refused connection or a wrong CA is a kubenb error naming the server (redacted);
- an ApiError keeps the server's message and names the request that failed.

Everything goes over real HTTP: the embedded server, or a scripted raw server for
answers no API server would give.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import trustme

from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import Config, config_from_dict, load_config
from kubenb.client.discovery import DiscoveryClient, RESTMapper
from kubenb.client.dynamic import DynamicClient
from kubenb.client.options import ListOptions
from kubenb.client.pager import ListPager
from kubenb.client.rest import RESTClient, describe_request
from kubenb.client.typed import Clientset
from kubenb.errors import (
    BadRequest,
    InvalidResponseError,
    KubeConfigError,
    KubenbError,
    NotFound,
    ServerConnectionError,
    ServerTLSError,
)
from kubenb.server import EmbeddedServer
from tests.client.conftest import SleepRecordingClock, configmap
from tests.client.test_auth import FakePlugin
from tests.helpers import assert_no_new_threads, wait_until

SECRET = "s3cr3t-pw"


@pytest.fixture
def threads_checked() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before)


def _kubeconfig(server: str, user: dict[str, Any] | None = None,
                cluster: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "current-context": "t",
        "clusters": [{"name": "dev", "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": "alice", "user": user or {}}],
        "contexts": [{"name": "t", "context": {"cluster": "dev", "user": "alice"}}],
    }


def _clean(*texts: object) -> None:
    for text in texts:
        assert SECRET not in str(text), text
        assert SECRET not in repr(text), text


# -- a scripted raw server ------------------------------------------------------------------


Answer = tuple[int, str, bytes]  # status, content type, body


@contextmanager
def scripted_server(answer: Callable[[str, dict[str, str]], Answer]
                    ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A real HTTP server on loopback answering each GET with `answer(path, query)`;
    yields its URL and the requests it saw (path, query, headers)."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            seen.append({"path": parts.path, "query": query, "headers": dict(self.headers)})
            status, content_type, body = answer(parts.path, query)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")  # no handler thread outlives the test
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _json(doc: Any, status: int = 200) -> Answer:
    return status, "application/json", json.dumps(doc).encode()


def _rest(url: str) -> RESTClient:
    return RESTClient(Config(server=url), clock=SleepRecordingClock())


# -- 6: a password in the server URL ----------------------------------------------------------


def test_password_in_the_server_url_is_in_no_repr(server: EmbeddedServer,
                                                  threads_checked: None) -> None:
    url = server.url.replace("http://", f"http://admin:{SECRET}@")
    config = config_from_dict(_kubeconfig(url))
    assert config.server == url  # the config keeps what the kubeconfig says
    rest = RESTClient(config)
    try:
        discovery = DiscoveryClient(rest)
        mapper = RESTMapper(discovery)
        dynamic = DynamicClient(rest)
        clientset = Clientset(rest, discovery=discovery)
        assert rest.get("/version")["major"] == "1"  # and it still works
        assert mapper.resource_for("cm").resource == "configmaps"
        cms = dynamic.resource("v1", "configmaps").namespace("default")
        watch = cms.watch(timeout_seconds=1)
        try:
            _clean(config, rest, discovery, mapper, dynamic, clientset, watch, cms)
        finally:
            watch.stop()
        for thing in (rest, discovery, mapper, dynamic):
            assert "127.0.0.1" in repr(thing)
    finally:
        rest.close()


def test_password_in_the_server_url_is_sent_as_basic_auth_only() -> None:
    with scripted_server(lambda path, query: _json({"major": "1"})) as (url, seen):
        rest = _rest(url.replace("http://", f"http://admin:{SECRET}@"))
        try:
            response = rest.request("GET", "/version")
            _clean(response.url, response.request.url, rest)
        finally:
            rest.close()
    sent = seen[0]["headers"]["Authorization"]
    assert base64.b64decode(sent.removeprefix("Basic ")) == f"admin:{SECRET}".encode()


def test_password_in_the_server_url_is_not_in_error_messages() -> None:
    def answer(path: str, query: dict[str, str]) -> Answer:
        return 404, "text/plain", b""  # no Status body: the message names the URL

    with scripted_server(answer) as (url, _):
        rest = _rest(url.replace("http://", f"http://admin:{SECRET}@"))
        try:
            with pytest.raises(NotFound) as info:
                rest.get("/api/v1/namespaces/default/configmaps/x")
        finally:
            rest.close()
    _clean(info.value, info.value.message)
    assert "127.0.0.1" in info.value.message


# -- connection failures ---------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_refused_connection_is_a_kubenb_error_naming_the_server(threads_checked: None) -> None:
    port = _closed_port()
    clock = SleepRecordingClock()
    rest = RESTClient(Config(server=f"http://admin:{SECRET}@127.0.0.1:{port}"), clock=clock,
                      max_retries=2)
    try:
        with pytest.raises(ServerConnectionError) as info:
            rest.get("/api/v1/namespaces/default/configmaps")
    finally:
        rest.close()
    err = info.value
    text = str(err)
    assert isinstance(err, KubenbError)
    assert isinstance(err, requests.ConnectionError)  # what retry loops already catch
    assert isinstance(err.__cause__, requests.ConnectionError)
    assert not isinstance(err.__cause__, KubenbError)
    assert f"at http://127.0.0.1:{port} (" in text  # the credentials never make it here
    assert "Connection refused" in text
    assert 'list v1 configmaps in namespace "default"' in text
    assert "HTTPConnectionPool" not in text  # requests' pool reprs are left out
    assert len(clock.slept) == 2  # a refused GET is still retried, boundedly
    _clean(err)


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
    config = config_from_dict(_kubeconfig(
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


# -- 7: tokens that cannot be sent ----------------------------------------------------------


@pytest.mark.parametrize(("token", "what"), [
    ("s3cr3t-pw\nX-Injected: yes", "a line break"),
    ("s3cr3t-pw\r\n", None),  # trailing whitespace is trimmed, as before
    ("s3cr3t-pw-\u20ac", "a non-ASCII character"),
    ("s3cr3t-pw-\u00e9", "a non-ASCII character"),
    ("s3cr3t-pw\x00x", "a control character"),
    ("s3cr3t pw", "a space"),
])
def test_kubeconfig_token_that_cannot_be_a_header_is_refused_at_load(token: str,
                                                                     what: str | None) -> None:
    doc = _kubeconfig("https://k.example", {"token": token})
    if what is None:
        assert config_from_dict(doc).auth_kind == "token"
        return
    with pytest.raises(KubeConfigError) as info:
        config_from_dict(doc, source="kc.yaml")
    text = str(info.value)
    assert text.startswith("kc.yaml: users[0].user.token (user 'alice'): ")
    assert what in text
    assert "s3cr3t" not in text and "s3cr3t" not in repr(info.value)


def test_token_file_with_a_line_break_is_refused_when_read(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("s3cr3t-pw\nsecond line\n")
    with pytest.raises(KubeConfigError) as info:
        config_from_dict(_kubeconfig("https://k.example", {"tokenFile": str(path)}),
                         source="kc.yaml")
    text = str(info.value)
    assert "users[0].user.tokenFile (user 'alice')" in text and str(path) in text
    assert "a line break" in text and "s3cr3t" not in text


def test_rotated_token_file_with_a_bad_token_keeps_the_last_good_one(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from kubenb.client.auth import TokenFileAuth
    from kubenb.clock import FakeClock

    path = tmp_path / "token"
    path.write_text("s3cr3t-good")
    clock = FakeClock()
    auth = TokenFileAuth(path, clock)
    path.write_text("s3cr3t-bad\u20ac-and-longer")
    clock.step(5)
    headers: dict[str, str] = {}
    with caplog.at_level(logging.WARNING, logger="kubenb"):
        auth.apply(headers)
    assert headers["Authorization"] == "Bearer s3cr3t-good"
    assert any("non-ASCII" in r.getMessage() for r in caplog.records)
    assert all("s3cr3t" not in r.getMessage() for r in caplog.records)


def test_exec_plugin_token_with_a_line_break_is_refused_when_obtained(
        server: EmbeddedServer, tmp_path: Path, threads_checked: None) -> None:
    plugin = FakePlugin(tmp_path).set(fixed_token="s3cr3t-exec\nInjected: 1")
    config = config_from_dict(_kubeconfig(server.url, {"exec": plugin.exec_config()}),
                              source="kc.yaml")
    rest = RESTClient(config)
    try:
        with pytest.raises(KubeConfigError) as info:
            rest.get("/version")
    finally:
        rest.close()
    text = str(info.value)
    assert "kc.yaml: users[0].user.exec" in text and "status.token" in text
    assert "a line break" in text and "s3cr3t" not in text


# -- 8: a 200 that is not a List ----------------------------------------------------------------

GOOD_ITEM = {"kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}

NOT_A_LIST: list[tuple[str, Answer, str]] = [
    ("html", (200, "text/html; charset=utf-8",
              b"<html><body><h1>Welcome to nginx!</h1></body></html>"),
     "text/html text '<html><body><h1>Welcome to nginx!"),
    ("items-a-string", _json({"kind": "ConfigMapList", "metadata": {}, "items": "abc"}),
     "a List whose items is a string, not an array"),
    ("metadata-a-string", _json({"kind": "ConfigMapList", "metadata": "x", "items": []}),
     "a List whose metadata is a string, not an object"),
    ("item-a-string", _json({"kind": "ConfigMapList", "items": [GOOD_ITEM, "b"]}),
     "a List whose items[1] is a string, not an object"),
    ("json-number", _json(42), "the JSON number 42, not a List"),
    ("json-string", _json("hello there"), "a JSON string 'hello there', not a List"),
    ("json-null", _json(None), "JSON null, not a List"),
    ("json-array", _json([GOOD_ITEM]), "a JSON array of 1 element, not a List"),
    ("a-secret", _json({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "db"},
                        "data": {"password": base64.b64encode(SECRET.encode()).decode()}}),
     "a JSON object of kind 'Secret' with keys [apiVersion, data, kind, metadata], "
     "not a List (no items)"),
    ("not-json", (200, "application/json", b'{"kind": "ConfigMapList", "items": [{"data": '
                                           b'{"password": "s3cr3t-pw"'),
     "is not valid JSON"),
]


@pytest.fixture(params=NOT_A_LIST, ids=[case[0] for case in NOT_A_LIST])
def not_a_list(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    _, answer, expected = request.param
    with scripted_server(lambda path, query: answer) as (url, _):
        yield url, expected


def _check_not_a_list(err: InvalidResponseError, expected: str) -> None:
    text = str(err)
    assert expected in text, text
    assert "s3cr3t" not in text and "czNjcjN0" not in text  # nor its base64
    assert isinstance(err, KubenbError) and isinstance(err, ValueError)


def test_dynamic_list_of_a_non_list_raises_naming_the_request(not_a_list: tuple[str, str]
                                                              ) -> None:
    url, expected = not_a_list
    rest = _rest(url)
    try:
        cms = DynamicClient(rest).resource("v1", "configmaps").namespace("default")
        with pytest.raises(InvalidResponseError) as info:
            cms.list(label_selector="app=web")
    finally:
        rest.close()
    _check_not_a_list(info.value, expected)
    assert str(info.value).startswith(
        'list v1 configmaps in namespace "default" with labelSelector "app=web": ')
    assert info.value.request_info is not None and info.value.request_info.verb == "list"


def test_pager_and_typed_list_of_a_non_list_raise(not_a_list: tuple[str, str]) -> None:
    url, expected = not_a_list
    rest = _rest(url)
    try:
        cms = DynamicClient(rest).resource("v1", "configmaps").namespace("default")
        with pytest.raises(InvalidResponseError) as paged:
            cms.list_all()
        _check_not_a_list(paged.value, expected)
        with pytest.raises(InvalidResponseError) as pages:
            list(ListPager(cms.list_with_options).items())
        _check_not_a_list(pages.value, expected)
        typed = Clientset(rest).core_v1().config_maps("default")
        with pytest.raises(InvalidResponseError) as by_type:
            typed.list()
        _check_not_a_list(by_type.value, expected)
    finally:
        rest.close()


@pytest.mark.parametrize("page", ["<html>", {"items": "abc"}, {"metadata": "x", "items": []},
                                  {"kind": "Status"}, 7])
def test_pager_checks_pages_from_any_list_function(page: Any) -> None:
    def list_func(options: ListOptions) -> Any:
        return page

    with pytest.raises(InvalidResponseError, match=r"^list \(page 1\): the server answered"):
        ListPager(list_func).list()
    with pytest.raises(InvalidResponseError, match=r"not a List|not an array|not an object"):
        list(ListPager(list_func).pages())


def test_a_list_with_null_items_or_no_metadata_is_still_a_list() -> None:
    with scripted_server(lambda path, query: _json({"kind": "ConfigMapList", "items": None})
                         ) as (url, _):
        rest = _rest(url)
        try:
            cms = DynamicClient(rest).resource("v1", "configmaps")
            assert cms.list()["items"] is None
            assert cms.list_all()["items"] == []
        finally:
            rest.close()


def test_discovery_of_a_server_that_is_not_an_api_server_says_what_came() -> None:
    page = (200, "text/html", b"<!doctype html><title>Sign in</title>")
    with scripted_server(lambda path, query: page) as (url, _):
        rest = _rest(url)
        try:
            with pytest.raises(InvalidResponseError) as info:
                RESTMapper(DiscoveryClient(rest)).resource_for("pods")
        finally:
            rest.close()
    assert str(info.value) == (
        "GET /api: the server answered with text/html text '<!doctype html><title>Sign "
        "in</title>', not a discovery document (is the server URL that of an API server?)")


def test_informer_keeps_its_cache_when_a_relist_is_not_a_list(
        caplog: pytest.LogCaptureFixture, threads_checked: None) -> None:
    """The first list fills the cache; the watch closes at once, so the Reflector
    lists again, and this time a proxy answers with a JSON object that is not a List.
    Before the fix the pager took it for an empty List and the informer deleted every
    object; now the list fails, the error reaches the watch error handler and the stats,
    and the cache keeps what it had."""
    items = [{"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": n, "namespace": "default", "resourceVersion": "5"}}
             for n in ("a", "b")]
    lists: list[int] = []

    def answer(path: str, query: dict[str, str]) -> Answer:
        if query.get("watch") == "true":
            return 200, "application/json", b""  # the watch ends at once
        lists.append(1)
        if len(lists) == 1:
            return _json({"kind": "ConfigMapList", "apiVersion": "v1",
                          "metadata": {"resourceVersion": "5"}, "items": items})
        return _json({"ok": True, "message": "maintenance"})

    errors: list[BaseException] = []
    with scripted_server(answer) as (url, _):
        rest = _rest(url)
        cms = DynamicClient(rest).resource("v1", "configmaps")
        informer = SharedIndexInformer(ListWatch.from_client(cms), name="hostile")
        informer.set_watch_error_handler(lambda reflector, err: errors.append(err))
        deleted: list[Any] = []

        class Handler:
            def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
                pass

            def on_update(self, old: Any, new: Any) -> None:
                pass

            def on_delete(self, obj: Any) -> None:
                deleted.append(obj)

        informer.add_event_handler(Handler())
        informer.start()
        try:
            wait_until(lambda: deleted or any(isinstance(e.__cause__, InvalidResponseError)
                                              for e in errors), timeout=30,
                       what="the bad relist to reach the watch error handler")
            assert deleted == []
            assert sorted(informer.get_indexer().list_keys()) == ["default/a", "default/b"]
            stats = informer.stats()["reflector"]
            assert "not a List" in stats["last_error"]
            assert "list v1 configmaps" in stats["last_error"]
        finally:
            informer.stop()
            rest.close()


# -- errors name the request ------------------------------------------------------------------


def test_bad_selector_error_keeps_the_servers_message_and_names_the_request(
        dynamic: DynamicClient) -> None:
    cms = dynamic.resource("v1", "configmaps").namespace("default")
    with pytest.raises(BadRequest) as info:
        cms.list(label_selector="a in (")
    err = info.value
    assert (err.status, err.code, err.reason) == (400, 400, "BadRequest")
    assert err.message.startswith("unable to parse requirement")  # the server's own
    assert str(err) == (f"400 BadRequest: {err.message} "
                        '(list v1 configmaps in namespace "default" with labelSelector "a in (")')
    assert err.request_info is not None
    assert (err.request_info.verb, err.request_info.resource, err.request_info.namespace,
            err.request_info.label_selector) == ("list", "configmaps", "default", "a in (")


def test_unknown_resource_404_names_the_resource(dynamic: DynamicClient) -> None:
    with pytest.raises(NotFound) as info:
        dynamic.resource("v1", "podz").list()
    assert str(info.value) == ("404 NotFound: the server could not find the requested "
                               "resource (list v1 podz)")
    with pytest.raises(NotFound) as group:
        dynamic.resource("nope.example.com/v1", "things").namespace("ns").list(
            field_selector="metadata.name=x")
    assert str(group.value).endswith(
        '(list nope.example.com/v1 things in namespace "ns" with fieldSelector '
        '"metadata.name=x")')


def test_object_errors_name_verb_object_and_subresource(dynamic: DynamicClient) -> None:
    cms = dynamic.resource("v1", "configmaps").namespace("default")
    with pytest.raises(NotFound) as missing:
        cms.get("nope")
    assert missing.value.message == 'configmaps "nope" not found'
    assert str(missing.value).endswith('(get v1 configmaps "nope" in namespace "default")')
    cms.create(configmap("twice"))
    with pytest.raises(KubenbError) as again:
        cms.create(configmap("twice"))
    assert str(again.value).endswith('(create v1 configmaps in namespace "default")')
    deployments = dynamic.resource("apps/v1", "deployments").namespace("default")
    with pytest.raises(NotFound) as scale:
        deployments.get("web", subresource="scale")
    assert str(scale.value).endswith(
        '(get apps/v1 deployments/scale "web" in namespace "default")')


@pytest.mark.parametrize(("method", "path", "params", "expected"), [
    ("GET", "/api/v1/pods", None, "list v1 pods"),
    ("GET", "/api/v1/pods", {"watch": "true"}, "watch v1 pods"),
    ("GET", "/api/v1/namespaces/kube-system", None, 'get v1 namespaces "kube-system"'),
    ("PUT", "/api/v1/namespaces/x/finalize", None, 'update v1 namespaces/finalize "x"'),
    ("GET", "/api/v1/namespaces/ns/pods/p/log", None, 'get v1 pods/log "p" in namespace "ns"'),
    ("DELETE", "/apis/apps/v1/namespaces/ns/deployments", {"labelSelector": "a=b"},
     'deletecollection apps/v1 deployments in namespace "ns" with labelSelector "a=b"'),
    ("DELETE", "/apis/apps/v1/namespaces/ns/deployments/d", None,
     'delete apps/v1 deployments "d" in namespace "ns"'),
    ("PATCH", "/api/v1/nodes/n%2F1/status", None, 'patch v1 nodes/status "n/1"'),
    ("POST", "/api/v1/namespaces/ns/configmaps", None,
     'create v1 configmaps in namespace "ns"'),
    ("GET", "/version", None, "GET /version"),
    ("GET", "/apis", None, "GET /apis"),
    ("GET", "/api/v1", None, "GET /api/v1"),
])
def test_describe_request_reads_paths_like_the_api_server(
        method: str, path: str, params: dict[str, str] | None, expected: str) -> None:
    assert str(describe_request(method, path, params)) == expected
