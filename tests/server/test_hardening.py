"""The server under load and bad input: connection storms, watchers that stop reading,
bodies nested too deeply, unparseable Content-Types, and the Authorization scheme's case.

Every test talks to the server over real sockets (raw ones where the point is what a
client that misbehaves does); waits are event-based with generous deadlines.
"""

from __future__ import annotations

import contextlib
import json
import logging
import selectors
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.server import EmbeddedServer
from kubenb.server.handlers import ApiHandler
from kubenb.server.http import KubeHTTPServer
from kubenb.server.server import ServerConfigError
from tests.helpers import assert_no_new_threads, wait_until
from tests.server.conftest import Api
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"
STORM = 200


def _somaxconn() -> int:
    with contextlib.suppress(OSError, ValueError):
        return int(Path("/proc/sys/net/core/somaxconn").read_text())
    return socket.SOMAXCONN


def _port(server: EmbeddedServer) -> int:
    port = urlsplit(server.url).port
    assert port is not None
    return port


def _get(path: str) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
            "Connection: close\r\n\r\n").encode()


def _storm(port: int, path: str, n: int, deadline: float = 60.0) -> dict[int, bytes]:
    """Open `n` connections at once (non-blocking connects, all issued before any
    answer is read), send one GET on each as its handshake completes and read every
    answer to its end; returns the answers received before `deadline` (seconds)."""
    sel = selectors.DefaultSelector()
    received: dict[int, list[bytes]] = {}
    answers: dict[int, bytes] = {}
    socks = []
    try:
        for i in range(n):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            socks.append(sock)
            sel.register(sock, selectors.EVENT_WRITE, i)
        request = _get(path)

        def step() -> bool:
            for key, events in sel.select(0.2):
                sock, i = key.fileobj, key.data
                assert isinstance(sock, socket.socket)
                if events & selectors.EVENT_WRITE:
                    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                    sock.sendall(request)
                    received[i] = []
                    sel.modify(sock, selectors.EVENT_READ, i)
                    continue
                data = sock.recv(65536)
                if data:
                    received[i].append(data)
                else:
                    answers[i] = b"".join(received[i])
                    sel.unregister(sock)
            return len(answers) == n

        with contextlib.suppress(AssertionError):
            wait_until(step, deadline, what=f"{n} answers")
        return answers
    finally:
        sel.close()
        for sock in socks:
            sock.close()


# -- A. the listen backlog ----------------------------------------------------------------


def test_a_the_listen_backlog_holds_200_connections_the_accept_loop_has_not_taken() -> None:
    """With the standard library's backlog of 5, connections beyond the sixth wait for
    SYN retransmits (1 s, 3 s, 7 s ...) while the accept loop is busy; a server-sized
    backlog completes all 200 handshakes before a single one is accepted."""
    if _somaxconn() < STORM:
        pytest.skip(f"net.core.somaxconn is {_somaxconn()}, below {STORM}")
    before = set(threading.enumerate())
    holder = EmbeddedServer()  # never started: lends its storage and registry
    app = ApiHandler(holder.storage, holder.types, holder.registry, threading.Event())
    httpd = KubeHTTPServer(("127.0.0.1", 0), app)
    port = httpd.server_address[1]
    sel = selectors.DefaultSelector()
    socks: list[socket.socket] = []
    serving = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                               name="kubenb-test-serve")
    try:
        for _ in range(STORM):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            sel.register(sock, selectors.EVENT_WRITE)
            socks.append(sock)
        connected: set[socket.socket] = set()

        def handshakes_done() -> bool:
            for key, _ in sel.select(0.05):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                connected.add(sock)
                sel.unregister(sock)
            return len(connected) == STORM

        wait_until(handshakes_done, 20.0, what=f"{STORM} handshakes with accept() not running")
        serving.start()
        for sock in socks:
            sock.setblocking(True)
            sock.settimeout(30)
            sock.sendall(_get("/healthz"))
        for sock in socks:
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"\r\n\r\nok")
    finally:
        sel.close()
        for sock in socks:
            sock.close()
        if serving.is_alive():
            httpd.shutdown()
            serving.join(10)
        httpd.close_connections()
        assert httpd.join_connections(10) == []
        httpd.server_close()
    assert_no_new_threads(before)


def test_a_a_storm_of_200_simultaneous_connections_is_all_answered(
        server: EmbeddedServer) -> None:
    server.seed_objects(3, kind="configmaps")
    answers = _storm(_port(server), CM, STORM)
    assert len(answers) == STORM
    for answer in answers.values():
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 "), head
        assert len(json.loads(body)["items"]) == 3


# -- B. watchers that stop reading -----------------------------------------------------------

BOUND = 256 * 1024
BLOB = "x" * (16 * 1024)


class LineWatcher:
    """A well-behaved watch client on a thread: reads every event, records each RV, and
    returns once it sees the configmap named `last`."""

    def __init__(self, url: str, rv: str, last: str) -> None:
        self.rvs: list[int] = []
        self.error: BaseException | None = None
        self._args = (url, rv, last)
        self.thread = threading.Thread(target=self._run, name="test-line-watcher")
        self.thread.start()

    def _run(self) -> None:
        url, rv, last = self._args
        try:
            with requests.get(url, params={"watch": "true", "resourceVersion": rv},
                              stream=True, timeout=60) as resp:
                for line in resp.iter_lines():
                    if not line:
                        continue
                    obj = json.loads(line)["object"]
                    self.rvs.append(int(obj["metadata"]["resourceVersion"]))
                    if obj["metadata"]["name"] == last:
                        return
        except BaseException as exc:  # reported by the test
            self.error = exc


def _stuck_watch(port: int, rv: str) -> socket.socket:
    """A watch client that sends its request and never reads a byte (tiny receive
    buffer, so the kernel holds little for it)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(_get(f"{CM}?watch=true&resourceVersion={rv}").replace(
        b"Connection: close\r\n", b""))
    return sock


def _put_blob(server: EmbeddedServer, name: str, i: int) -> int:
    rtype = server.types.lookup("", "v1", "configmaps")
    assert rtype is not None
    body = {"metadata": {"name": name}, "data": {"blob": BLOB, "i": str(i)}}
    if server.storage.get("configmaps", "default", name) is None:
        obj = server.registry.create(rtype, "default", body)
    else:
        obj = server.registry.update(rtype, "default", name, body)
    return int(obj["metadata"]["resourceVersion"])


def test_b_a_watcher_that_never_reads_is_closed_its_buffer_bounded_in_bytes(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kubenb.server")
    before = set(threading.enumerate())
    with EmbeddedServer(max_watch_buffer_bytes=BOUND, history_window=100) as server:
        assert server.watch_stats()["max_buffer_bytes"] == BOUND
        rv = str(server.storage.resource_version)
        stuck = _stuck_watch(_port(server), rv)
        wait_until(lambda: server.watch_stats()["open"] == 1, 10, what="stuck watch open")
        good = LineWatcher(server.url + CM, rv, "last")
        wait_until(lambda: server.watch_stats()["open"] == 2, 10, what="good watch open")
        written: list[int] = []
        peak = 0
        for i in range(3000):  # 48 MiB at most; the stuck watcher goes long before
            written.append(_put_blob(server, f"cm-{i % 8}", i))
            stats = server.watch_stats()
            peak = max([peak, *stats["buffered_bytes"]])
            if stats["closed_behind"]:
                break
            if i % 8 == 7:  # the good watcher keeps up: wait for it every 8 events
                wait_until(lambda: len(good.rvs) >= len(written) or good.error is not None,
                           30, what="good watcher caught up")
        assert server.watch_stats()["closed_behind"] == 1, "the stuck watcher was never cut"
        assert peak <= BOUND
        # the stuck watcher's connection is gone (its thread unblocked and ended)...
        wait_until(lambda: server.watch_stats()["open"] == 1, 10, what="stuck watch closed")
        stuck.settimeout(30)
        with contextlib.suppress(ConnectionResetError):
            while stuck.recv(65536):
                pass  # what the kernel still held, then the end of the connection
        stuck.close()
        # ... and the good one never noticed: every event, in order, on one connection
        written.append(_put_blob(server, "last", 0))
        good.thread.join(30)
        assert good.error is None and not good.thread.is_alive()
        assert good.rvs == written
    closes = [r for r in caplog.records if "fell behind" in r.getMessage()]
    assert len(closes) == 1 and closes[0].levelno == logging.INFO
    assert "configmaps" in closes[0].getMessage()
    assert "max_watch_buffer_bytes" in closes[0].getMessage()
    assert_no_new_threads(before)


def test_b_the_byte_bound_is_configurable_and_checked() -> None:
    assert EmbeddedServer().watch_stats()["max_buffer_bytes"] == 32 * 1024 * 1024
    assert EmbeddedServer(max_watch_buffer_bytes=0).watch_stats()["max_buffer_bytes"] == 0
    with pytest.raises(ServerConfigError, match="max_watch_buffer_bytes=-1"):
        EmbeddedServer(max_watch_buffer_bytes=-1)


def test_b_an_informer_cut_off_for_falling_behind_resumes_and_converges() -> None:
    with EmbeddedServer(max_watch_buffer_bytes=BOUND, history_window=100_000) as server:
        configmaps = DynamicClient(load_config(server.kubeconfig_path)).resource(
            "v1", "configmaps").namespace("default")
        for i in range(3):
            _put_blob(server, f"cm-{i}", i)
        hold = threading.Event()
        release = threading.Event()
        held = threading.Event()

        def transform(obj: Any) -> Any:
            """Runs on the reflector's thread: while held, the informer reads nothing."""
            if hold.is_set() and not release.is_set():
                held.set()
                release.wait(60)
            return obj

        informer = SharedIndexInformer(ListWatch.from_client(configmaps), None, 0.0,
                                       transform=transform)
        informer.start()
        try:
            wait_until(informer.has_synced, 10, what="informer sync")
            reflector = informer.get_controller().reflector
            hold.set()
            _put_blob(server, "cm-0", -1)
            wait_until(held.is_set, 10, what="the informer held in its transform")
            for i in range(4000):  # 64 MiB at most
                _put_blob(server, f"cm-{i % 50}", i)
                if server.watch_stats()["closed_behind"]:
                    break
            assert server.watch_stats()["closed_behind"] == 1
            release.set()
            wait_until(lambda: reflector.stats().get("resumes", 0) >= 1, 30, what="resume")
            _put_blob(server, "after", 0)

            def converged() -> bool:
                listed = configmaps.list()["items"]
                want = {f"default/{o['metadata']['name']}": o["metadata"]["resourceVersion"]
                        for o in listed}
                have = {key: informer.get_indexer().get_by_key(key)["metadata"][
                    "resourceVersion"] for key in informer.get_indexer().list_keys()}
                return have == want

            wait_until(converged, 30, what="cache converged")
            assert reflector.stats()["lists"] == 1  # resumed from its RV: no relist
        finally:
            release.set()
            informer.stop()


# -- C. bad input ---------------------------------------------------------------------------


def _nested(depth: int) -> str:
    """JSON text of `depth` objects each inside the last (too deep for json.dumps)."""
    return '{"a":' * depth + '"x"' + "}" * depth


def _configmap(name: str, extra: str = "{}") -> str:
    return ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' + name + '"},'
            '"data":{"k":"v"},"extra":' + extra + "}")


def _send(api: Api, method: str, path: str, text: str, content_type: str = "",
          **params: str) -> requests.Response:
    headers = {"Content-Type": content_type} if content_type else {}
    return api.request(method, path, data=text.encode(), headers=headers, params=params)


def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert noisy == [], [r.getMessage()[:200] for r in noisy]


@pytest.mark.parametrize("depth", [300, 480, 2000, 50_000])
def test_c_a_body_nested_too_deeply_is_a_400_not_a_500_with_a_traceback(
        api: Api, depth: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb")
    resp = _send(api, "POST", CM, _configmap("deep", _nested(depth)))
    body = assert_status_like(resp, "errors/malformed-json-400.json", compare_message=False)
    assert body["message"].startswith(
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
        "version/kind; json parse error: exceeded max depth: objects and arrays nested more "
        "than 200 levels deep"), body["message"]
    _quiet(caplog)
    assert api.get(f"{CM}/deep").status_code == 404


def test_c_every_body_path_checks_the_depth(api: Api, caplog: pytest.LogCaptureFixture
                                            ) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb")
    deep = _nested(1000)
    deep_yaml = "extra: " + "[" * 1000 + "]" * 1000
    created = _send(api, "POST", CM, _configmap("ok", _nested(150)))
    assert created.status_code == 201  # deep, but within the limit: stored and served
    assert api.get(f"{CM}/ok", headers={"Accept": "application/yaml"}).status_code == 200
    merge, strategic = "application/merge-patch+json", "application/strategic-merge-patch+json"
    json_patch, apply = "application/json-patch+json", "application/apply-patch+yaml"
    answers = {
        "merge patch": _send(api, "PATCH", f"{CM}/ok", '{"extra":' + deep + "}", merge),
        "strategic patch": _send(api, "PATCH", f"{CM}/ok", '{"extra":' + deep + "}", strategic),
        "json patch": _send(api, "PATCH", f"{CM}/ok",
                            '[{"op":"add","path":"/extra","value":' + deep + "}]", json_patch),
        "apply": _send(api, "PATCH", f"{CM}/ok", _configmap("ok", deep), apply,
                       fieldManager="m"),
        "apply as YAML": _send(api, "PATCH", f"{CM}/ok", deep_yaml, apply, fieldManager="m"),
        "update": _send(api, "PUT", f"{CM}/ok", _configmap("ok", deep)),
        "YAML create": _send(api, "POST", CM, deep_yaml, "application/yaml"),
        "delete options": _send(api, "DELETE", f"{CM}/ok", '{"extra":' + deep + "}"),
    }
    for what, resp in answers.items():
        assert resp.status_code == 400, (what, resp.status_code, resp.text[:300])
        assert "exceeded max depth" in resp.json()["message"], what
    # a JSON patch whose result, not its body, is too deep: 150 levels added at 150 deep
    path = "/extra" + "/a" * 150
    resp = _send(api, "PATCH", f"{CM}/ok",
                 '[{"op":"add","path":"' + path + '","value":' + _nested(150) + "}]", json_patch)
    assert resp.status_code == 400 and "exceeded max depth" in resp.json()["message"]
    assert api.get(f"{CM}/ok").json()["metadata"]["resourceVersion"] == created.json()[
        "metadata"]["resourceVersion"]
    _quiet(caplog)


@pytest.mark.parametrize("content_type", [";;;", ";", "/json", "application/", "application/json;;",
                                          "application/json; charset", "application/json x",
                                          "application/json; a=1; a=2", "text/plain"])
def test_c_an_unparseable_or_unsupported_content_type_is_a_415(api: Api,
                                                                content_type: str) -> None:
    resp = _send(api, "POST", CM, _configmap("cm"), content_type)
    assert_status_like(resp, "errors/post-unsupported-content-type-415.json")
    resp = _send(api, "PUT", f"{CM}/cm", _configmap("cm"), content_type)
    assert_status_like(resp, "errors/post-unsupported-content-type-415.json")
    assert api.get(f"{CM}/cm").status_code == 404


@pytest.mark.parametrize("content_type", ["", "application/json", "Application/JSON",
                                          "application/json;", "application/json ; charset=utf-8",
                                          'application/json; charset="utf-8"'])
def test_c_content_types_the_real_server_accepts_still_work(api: Api,
                                                            content_type: str) -> None:
    resp = _send(api, "POST", CM, _configmap("cm"), content_type)
    assert resp.status_code == 201, resp.text


def test_c_a_delete_body_with_a_bad_content_type_is_a_415(api: Api) -> None:
    api.create_cm("cm")
    resp = api.request("DELETE", f"{CM}/cm", data=json.dumps({"gracePeriodSeconds": 0}),
                       headers={"Content-Type": ";;;"})
    assert resp.status_code == 415
    resp = api.request("DELETE", f"{CM}/cm", data=json.dumps({"gracePeriodSeconds": 0}),
                       headers={"Content-Type": "application/json"})
    assert resp.status_code == 200


# -- D. the Authorization scheme -------------------------------------------------------------


@pytest.fixture
def token_server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(token="s3cret-token") as srv:
        yield srv


@pytest.mark.parametrize("header", ["Bearer s3cret-token", "bearer s3cret-token",
                                    "BEARER s3cret-token", "bEaReR s3cret-token",
                                    "Bearer s3cret-token  ", "Bearer s3cret-token extra"])
def test_d_the_bearer_scheme_is_case_insensitive_like_the_real_server(
        token_server: EmbeddedServer, header: str) -> None:
    resp = requests.get(token_server.url + CM, headers={"Authorization": header}, timeout=10)
    assert resp.status_code == 200, resp.text


@pytest.mark.parametrize("header", ["Bearer wrong", "bearer wrong", "Basic s3cret-token",
                                    "Bearer  s3cret-token", "Bearer", "s3cret-token",
                                    "Bearers3cret-token", ""])
def test_d_anything_else_is_still_401_and_never_echoes_the_token(
        token_server: EmbeddedServer, header: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb")
    resp = requests.get(token_server.url + CM, headers={"Authorization": header}, timeout=10)
    assert_status_like(resp, "errors/invalid-token-401.json")
    assert "s3cret" not in resp.text
    assert not any("s3cret" in r.getMessage() for r in caplog.records)
