"""kubectl 1.32 against the embedded server: the columns it prints (server-side Tables),
`get -w`, CRDs and their short names, multi-document create/apply, server-side apply,
`kubectl scale` and `api-resources`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubenb.server import EmbeddedServer
from tests.helpers import Kubectl, needs_kubectl, wait_until
from tests.server.conftest import Api

pytestmark = [needs_kubectl, pytest.mark.slow]  # a kubectl process per call

MANIFEST = """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: app, image: "nginx:1.27"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  color: blue
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
"""

GADGET = """\
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g1, namespace: shop}
spec: {size: 3, color: red}
"""


@pytest.fixture
def kubectl(server: EmbeddedServer, tmp_path: Path) -> Kubectl:
    return Kubectl(server.kubeconfig_path, tmp_path / "kube-cache")


def rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_get_pods_prints_kubectl_columns_and_wide(kubectl: Kubectl, api: Api) -> None:
    pod = {"metadata": {"name": "web-1"},
           "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}
    assert api.post("/api/v1/namespaces/default/pods", pod).status_code == 201
    out = rows(kubectl("get", "pods").stdout)
    assert out[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert out[1][:4] == ["web-1", "0/2", "Pending", "0"]
    header = kubectl("get", "pods", "-o", "wide").stdout.splitlines()[0]
    assert header.split()[:9] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                  "NOMINATED", "NODE"]
    assert "READINESS GATES" in header
    ns = rows(kubectl("get", "namespaces").stdout)
    assert ns[0] == ["NAME", "STATUS", "AGE"] and ns[1][:2] == ["default", "Active"]


def test_get_watch_shows_a_change(kubectl: Kubectl, server: EmbeddedServer, api: Api) -> None:
    api.create_cm("before")
    proc = kubectl.popen("get", "configmaps", "-w", "--request-timeout=2s")
    try:
        wait_until(lambda: server.storage.watch_count > 0, 10, "kubectl's watch")
        api.create_cm("during", data={"a": "1", "b": "2"})
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    table = rows(out)
    assert table[0] == ["NAME", "DATA", "AGE"]
    assert [r[:2] for r in table[1:]] == [["before", "0"], ["during", "2"]], err


def test_multi_document_create_then_crs_by_short_name(kubectl: Kubectl) -> None:
    created = kubectl("create", "-f", "-", stdin=MANIFEST).stdout
    assert "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created" in (
        created)
    assert "deployment.apps/web created" in created
    kubectl("apply", "-f", "-", stdin=GADGET)
    out = rows(kubectl("get", "gd", "-n", "shop").stdout)
    assert out[0] == ["NAME", "SIZE", "AGE"] and out[1][:2] == ["g1", "3"]
    wide = rows(kubectl("get", "gadgets", "-n", "shop", "-o", "wide").stdout)
    assert wide[0] == ["NAME", "SIZE", "COLOR", "AGE"] and wide[1][:3] == ["g1", "3", "red"]
    crds = rows(kubectl("get", "crd").stdout)
    assert crds[0] == ["NAME", "CREATED", "AT"] and crds[1][0] == "gadgets.example.com"
    everything = kubectl("get", "all", "-n", "shop").stdout
    assert "deployment.apps/web" in everything
    resources = {r[0]: r for r in rows(kubectl("api-resources").stdout)[1:]}
    assert resources["gadgets"][1:] == ["gd", "example.com/v1", "true", "Gadget"]
    kubectl("scale", "gadget", "g1", "-n", "shop", "--replicas=5")
    got = json.loads(kubectl("get", "gd", "g1", "-n", "shop", "-o", "json").stdout)
    assert got["spec"]["size"] == 5
    kubectl("delete", "crd", "gadgets.example.com")
    gone = kubectl("get", "gadgets.v1.example.com", "-n", "shop", ok=False)
    assert gone.returncode != 0


def test_apply_is_idempotent_and_reports_changes(kubectl: Kubectl) -> None:
    first = kubectl("apply", "-f", "-", stdin=MANIFEST).stdout
    assert "namespace/shop created" in first and "configmap/settings created" in first
    again = kubectl("apply", "-f", "-", stdin=MANIFEST).stdout
    assert "configmap/settings unchanged" in again
    changed = kubectl("apply", "-f", "-", stdin=MANIFEST.replace("blue", "green")).stdout
    assert "configmap/settings configured" in changed
    data = json.loads(kubectl("get", "cm", "settings", "-n", "shop", "-o", "json").stdout)
    assert data["data"] == {"color": "green"}


def test_server_side_apply_and_conflicts(kubectl: Kubectl) -> None:
    out = kubectl("apply", "--server-side", "-f", "-", stdin=MANIFEST).stdout
    assert "configmap/settings serverside-applied" in out
    cm = json.loads(kubectl("get", "cm", "settings", "-n", "shop", "-o", "json",
                            "--show-managed-fields").stdout)
    entry = cm["metadata"]["managedFields"][0]
    assert (entry["manager"], entry["operation"]) == ("kubectl", "Apply")
    assert entry["fieldsV1"] == {"f:data": {"f:color": {}}}
    other = MANIFEST.split("---\n")[2].replace("blue", "red")
    clash = kubectl("apply", "--server-side", "--field-manager=other", "-f", "-", stdin=other,
                    ok=False)
    assert clash.returncode != 0
    assert 'conflict with "kubectl": .data.color' in clash.stderr
    kubectl("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-",
            stdin=other)
    data = json.loads(kubectl("get", "cm", "settings", "-n", "shop", "-o", "json").stdout)
    assert data["data"] == {"color": "red"}


def test_scale_deployment(kubectl: Kubectl) -> None:
    kubectl("create", "-f", "-", stdin=MANIFEST)
    assert "deployment.apps/web scaled" in kubectl("scale", "deployment", "web", "-n", "shop",
                                                   "--replicas=4").stdout
    out = rows(kubectl("get", "deploy", "-n", "shop").stdout)
    assert out[0] == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert out[1][:2] == ["web", "0/4"]
    wide = rows(kubectl("get", "deploy", "-n", "shop", "-o", "wide").stdout)
    assert wide[0][5:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert wide[1][5:] == ["app", "nginx:1.27", "app=web"]


def test_imperative_creates_send_protobuf(kubectl: Kubectl, api: Api) -> None:
    kubectl("create", "namespace", "team")
    kubectl("create", "configmap", "cfg", "-n", "team", "--from-literal=a=1",
            "--from-literal=b=2")
    kubectl("create", "secret", "generic", "pw", "-n", "team", "--from-literal=pw=hunter2")
    kubectl("create", "serviceaccount", "robot", "-n", "team")
    cfg = api.get("/api/v1/namespaces/team/configmaps/cfg").json()
    assert cfg["data"] == {"a": "1", "b": "2"}
    assert cfg["metadata"]["managedFields"][0]["manager"] == "kubectl-create"
    secret = api.get("/api/v1/namespaces/team/secrets/pw").json()
    assert secret["data"] == {"pw": "aHVudGVyMg=="} and secret["type"] == "Opaque"
    assert api.get("/api/v1/namespaces/team/serviceaccounts/robot").status_code == 200
    assert api.get("/api/v1/namespaces/team").json()["status"] == {"phase": "Active"}
    kubectl("create", "deployment", "d", "-n", "team", "--image=nginx")  # every built-in kind
    deployment = api.get("/apis/apps/v1/namespaces/team/deployments/d").json()
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"


def test_protobuf_decoding_directly(api: Api) -> None:
    from kubenb.server.protobuf import ProtobufError, decode, frame

    meta = [(1, "wire"), (3, "default"), (11, [(1, "app"), (2, "web")]), (14, "a/b")]
    body = frame("v1", "ConfigMap", [(1, meta), (2, [(1, "k"), (2, "v")]),
                                     (3, [(1, "raw"), (2, b"\x00\xff")]), (4, False)])
    assert decode(body) == {"apiVersion": "v1", "kind": "ConfigMap",
                            # a zero metav1.Time is written as null, as Go's JSON does
                            "metadata": {"name": "wire", "namespace": "default",
                                         "creationTimestamp": None,
                                         "labels": {"app": "web"}, "finalizers": ["a/b"]},
                            "data": {"k": "v"}, "binaryData": {"raw": "AP8="},
                            "immutable": False}
    scale = decode(frame("autoscaling/v1", "Scale", [(1, [(1, "web")]), (2, [(1, 3)])]))
    assert scale["spec"] == {"replicas": 3}
    for bad in (b"not protobuf", b"k8s\x00\x0a\xff"):
        with pytest.raises(ProtobufError):
            decode(bad)
    posted = api.request("POST", "/api/v1/namespaces/default/configmaps", data=body,
                         headers={"Content-Type": "application/vnd.kubernetes.protobuf",
                                  "Accept": "application/vnd.kubernetes.protobuf,"
                                            "application/json"})
    assert posted.status_code == 201 and posted.headers["Content-Type"] == "application/json"
    assert posted.json()["data"] == {"k": "v"}
    garbage = api.request("POST", "/api/v1/namespaces/default/configmaps",
                          data=b"k8s\x00\x0a\xff",
                          headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert garbage.status_code == 400 and "protobuf" in garbage.json()["message"]
