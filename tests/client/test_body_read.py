"""Whole bodies are read 1 MiB at a time into one buffer (`kubenb.client.rest._read_body`).

Bodies of several MiB, as lists of many objects are, must come back byte for byte
whatever their framing (a length, gzip, many small chunks), and one cut short must
still fail as a lost connection naming the server, as it did when requests read it.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubenb.client.config import config_from_dict
from kubenb.client.dynamic import ResourceClient
from kubenb.client.rest import BODY_PIECE, RESTClient
from kubenb.errors import ServerConnectionError
from tests.client.conftest import configmap
from tests.client.rawserver import answering_server, json_answer

BIG = {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"},
       "items": [configmap(f"cm-{i}", payload="x" * 100_000 + str(i)) for i in range(30)]}
BIG_BYTES = json.dumps(BIG).encode()


@contextmanager
def body_server() -> Iterator[str]:
    """/length, /gzip and /chunked send BIG_BYTES; /cut promises it and sends a third."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if self.path == "/chunked":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for at in range(0, len(BIG_BYTES), 7_919):  # odd-sized chunks
                    piece = BIG_BYTES[at:at + 7_919]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
                return
            body = gzip.compress(BIG_BYTES) if self.path == "/gzip" else BIG_BYTES
            if self.path == "/gzip":
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            if self.path == "/cut":
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body[:len(body) // 3] if self.path == "/cut" else body)
            if self.path == "/cut":
                self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _rest(url: str) -> RESTClient:
    return RESTClient(config_from_dict({
        "clusters": [{"name": "c", "cluster": {"server": url}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x"}), max_retries=0)


def test_the_bodies_are_bigger_than_one_read() -> None:
    assert len(BIG_BYTES) > 2 * BODY_PIECE


@pytest.mark.parametrize("path", ["/length", "/gzip", "/chunked"])
def test_a_body_of_several_reads_comes_back_whole(path: str) -> None:
    with body_server() as url, _rest(url) as rest:
        assert rest.get(path) == BIG
        resp = rest.request("GET", path)
        assert bytes(resp.content) == BIG_BYTES and resp.json() == BIG


def test_a_body_cut_short_is_a_lost_connection_naming_the_server() -> None:
    with body_server() as url, _rest(url) as rest:
        with pytest.raises(ServerConnectionError, match=r"127\.0\.0\.1") as caught:
            rest.get("/cut")
        assert "GET /cut" in str(caught.value)


def test_a_list_of_several_mib_from_the_embedded_server(configmaps: ResourceClient) -> None:
    for item in BIG["items"][:24]:
        configmaps.create(item)
    listed = configmaps.list()
    assert len(json.dumps(listed)) > 2 * BODY_PIECE
    assert sorted((cm["metadata"]["name"], cm["data"]) for cm in listed["items"]) == sorted(
        (cm["metadata"]["name"], cm["data"]) for cm in BIG["items"][:24])


def test_a_read_body_gives_its_connection_back() -> None:
    """Twenty gets one after the other travel on one kept-alive connection."""
    with (answering_server(lambda path, query: json_answer({"items": []}),
                           keep_alive=True) as (url, seen),
          _rest(url) as rest):
        for _ in range(20):
            rest.get("/api/v1/namespaces/default/configmaps")
    assert len(seen) == 20
    assert len({request["client_port"] for request in seen}) == 1
