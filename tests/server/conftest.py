"""Fixtures for the embedded API server tests: a fresh server per test, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from kubenb.server import EmbeddedServer
from tests.realapi import REALAPI


class Api:
    """A tiny requests wrapper bound to one server URL (and optional token)."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, **kw: Any) -> requests.Response:
        kw.setdefault("timeout", 10)
        return self.session.request(method, self.url + path, **kw)

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any, **kw: Any) -> requests.Response:
        return self.request("POST", path, json=body, **kw)

    def put(self, path: str, body: Any, **kw: Any) -> requests.Response:
        return self.request("PUT", path, json=body, **kw)

    def patch(self, path: str, body: Any, content_type: str = "application/merge-patch+json",
              **kw: Any) -> requests.Response:
        return self.request("PATCH", path, data=json.dumps(body),
                            headers={"Content-Type": content_type}, **kw)

    def delete(self, path: str, **kw: Any) -> requests.Response:
        return self.request("DELETE", path, **kw)

    def create_cm(self, name: str, ns: str = "default", labels: dict[str, str] | None = None,
                  data: dict[str, str] | None = None) -> dict[str, Any]:
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "labels": labels or {}}, "data": data or {}}
        resp = self.post(f"/api/v1/namespaces/{ns}/configmaps", body)
        assert resp.status_code == 201, resp.text
        return resp.json()

    def close(self) -> None:
        self.session.close()


@pytest.fixture
def api(server: EmbeddedServer) -> Iterator[Api]:
    client = Api(server.url)
    try:
        yield client
    finally:
        client.close()


def realapi(name: str) -> dict[str, Any]:
    """One captured exchange from the real kube-apiserver fixtures."""
    return json.loads((REALAPI / name).read_text())


def fixture_body(name: str) -> Any:
    return realapi(name)["response"]["body"]


def watch_lines(resp: requests.Response) -> list[dict[str, Any]]:
    """Decode a whole (finite) watch response, one event per line."""
    return [json.loads(line) for line in resp.iter_lines() if line]


def port_of(server: EmbeddedServer) -> int:
    """The TCP port a started server listens on."""
    port = urlsplit(server.url).port
    assert port is not None
    return port


def raw_get(path: str) -> bytes:
    """One GET request as bytes, for raw-socket clients (the connection closes after it)."""
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
            "Connection: close\r\n\r\n").encode()
