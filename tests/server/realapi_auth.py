"""The identity-and-access fixtures (tests/fixtures/realapi_auth) and the same small world
they were captured in: namespace `kubenb-auth`, ServiceAccount `robot` with the ClusterRole
`view` bound there, and its pod `worker`, so answers compare with the real ones verbatim."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.server import EmbeddedServer
from tests.server.conftest import Api

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "realapi_auth"
NS = "kubenb-auth"
ROBOT = f"system:serviceaccount:{NS}:robot"
SA_PATH = f"/api/v1/namespaces/{NS}/serviceaccounts"
TOKEN_PATH = f"{SA_PATH}/robot/token"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


def real(name: str) -> dict[str, Any]:
    """One captured exchange (request and response)."""
    return dict(json.loads((FIXTURES / f"{name}.json").read_text()))


def without_managed_fields(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("metadata"), dict):
        body["metadata"].pop("managedFields", None)
    return body


def real_body(name: str) -> Any:
    """The captured answer, less its managedFields (their times differ; the entries are
    compared by test_rbac's test_reviews_record_their_field_manager)."""
    return without_managed_fields(real(name)["response"]["body"])


@dataclass
class World:
    server: EmbeddedServer
    clock: FakeClock
    admin: Api

    def token(self, spec: dict[str, Any] | None = None) -> str:
        resp = self.admin.post(TOKEN_PATH, {"apiVersion": "authentication.k8s.io/v1",
                                            "kind": "TokenRequest", "spec": spec or {}})
        assert resp.status_code == 201, resp.text
        return str(resp.json()["status"]["token"])

    def as_token(self, token: str) -> Api:
        return Api(self.server.url, token=token)


@pytest.fixture
def world() -> Iterator[World]:
    clock = FakeClock()
    with EmbeddedServer(clock=clock) as server:
        admin = Api(server.url)
        try:
            assert admin.post("/api/v1/namespaces", {"metadata": {"name": NS}}).status_code == 201
            assert admin.post(SA_PATH, {"metadata": {"name": "robot"}}).status_code == 201
            assert admin.post(f"{RBAC}/namespaces/{NS}/rolebindings", {
                "metadata": {"name": "robot-view"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                            "name": "view"},
                "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": NS}],
            }).status_code == 201
            assert admin.post(f"/api/v1/namespaces/{NS}/pods", {
                "metadata": {"name": "worker"}, "spec": {
                    "serviceAccountName": "robot", "nodeName": "node-1",
                    "containers": [{"name": "c", "image": "busybox"}]}}).status_code == 201
            yield World(server, clock, admin)
        finally:
            admin.close()
