"""/openapi/v2: one Swagger 2.0 document of every served kind, as JSON; the protobuf form
client-go asks for is a 406, and kubectl apply, reading v3, never needs it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api

PROTOBUF_V2 = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


def test_swagger_document_names_every_kind_and_resolves_every_reference(api: Api) -> None:
    resp = api.get("/openapi/v2", headers={"Accept": "application/json"})
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/json"
    assert resp.headers["Etag"].startswith('"') and "Accept" in resp.headers["Vary"]
    doc = resp.json()
    assert doc["swagger"] == "2.0"
    definitions = doc["definitions"]
    pod = definitions["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [
        {"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["spec"] == {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}
    for ref in json.dumps(doc).split('"$ref": "')[1:]:
        target = ref.split('"', 1)[0]
        assert target.startswith("#/definitions/") and target[14:] in definitions
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["x-kubernetes-action"] == "patch"
    assert "application/strategic-merge-patch+json" in patch["consumes"]
    listing = doc["paths"]["/api/v1/namespaces/{namespace}/configmaps"]["get"]
    assert listing["x-kubernetes-group-version-kind"]["kind"] == "ConfigMap"
    again = api.get("/openapi/v2", headers={"If-None-Match": resp.headers["Etag"]})
    assert again.status_code == 304 and again.content == b""


def test_protobuf_only_is_not_acceptable(api: Api) -> None:
    resp = api.get("/openapi/v2", headers={"Accept": PROTOBUF_V2})
    assert resp.status_code == 406
    body = resp.json()
    assert (body["kind"], body["reason"]) == ("Status", "NotAcceptable")
    assert "application/json" in body["message"]
    fallback = api.get("/openapi/v2", headers={"Accept": f"{PROTOBUF_V2}, application/json"})
    assert fallback.status_code == 200


def test_v3_patch_operations_name_the_patch_types(api: Api) -> None:
    index = api.get("/openapi/v3").json()
    doc = api.get(index["paths"]["api/v1"]["serverRelativeURL"]).json()
    patch = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
    assert "application/strategic-merge-patch+json" in patch["requestBody"]["content"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_apply_twice_reads_only_openapi_v3(server: EmbeddedServer) -> None:
    manifest = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "applied"}, "data": {"a": "1"}})
    for data in (manifest, manifest.replace('"1"', '"2"')):
        out = subprocess.run(["kubectl", "--kubeconfig", server.kubeconfig_path, "apply",
                              "-f", "-", "-v=6"], input=data, capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        assert "/openapi/v3" in out.stderr and "/openapi/v2" not in out.stderr
    assert server.registry.storage.get("configmaps", "default", "applied")["data"] == {"a": "2"}
