"""Server-side dry run (`?dryRun=All`): every write is checked and answered as for real,
but nothing is stored, no resourceVersion is taken and no watch event is sent. Compared
with the real kube-apiserver's answers in fixtures/realapi/writes/*dryrun*.json."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.client.rest import RESTClient
from kubenb.server import EmbeddedServer
from tests.helpers import needs_kubectl
from tests.server.conftest import Api, fixture_body, realapi

DRY = {"dryRun": "All"}
CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
SMP = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"



def deployment(name: str = "web") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                         "containers": [{"name": "app", "image": "nginx:1.27.2"},
                                        {"name": "sidecar", "image": "busybox:1.36"}]}}}}


def first_event_after(api: Api, path: str, rv: str) -> dict[str, Any]:
    """The first watch event after `rv` (read off the stream, which is then closed)."""
    with api.get(path, params={"watch": "true", "resourceVersion": rv,
                               "timeoutSeconds": "5"}, stream=True) as resp:
        for line in resp.iter_lines():
            if line:
                return json.loads(line)
    raise AssertionError("the watch ended without an event")


def unchanged(server: EmbeddedServer, api: Api, path: str) -> Callable[[], None]:
    """Snapshot the store's revision and an object; the returned check asserts both held."""
    rv = server.storage.resource_version
    before = api.get(path).json()

    def check() -> None:
        assert server.storage.resource_version == rv
        assert api.get(path).json() == before

    return check


# -- create --------------------------------------------------------------------------------


def test_dry_run_create_answers_201_with_the_real_metadata_and_stores_nothing(
        server: EmbeddedServer, api: Api) -> None:
    exchange = realapi("writes/dryrun-create.json")
    want = exchange["response"]["body"]
    body = dict(exchange["request"]["body"], metadata={"name": "dry-run-cm"})
    rv = server.storage.resource_version
    resp = api.post(CMS, body, params=DRY, headers={"User-Agent": "kubenb-fixture-capture/1.0"})
    assert resp.status_code == exchange["response"]["status"] == 201
    got = resp.json()
    assert list(got) == list(want)
    assert list(got["metadata"]) == list(want["metadata"])  # uid, creationTimestamp, no RV
    assert "resourceVersion" not in got["metadata"]
    assert got["data"] == want["data"]
    entry = got["metadata"]["managedFields"][0]
    assert {k: v for k, v in entry.items() if k != "time"} == {
        k: v for k, v in want["metadata"]["managedFields"][0].items() if k != "time"}
    assert server.storage.resource_version == rv
    missing = api.get(f"{CMS}/dry-run-cm")
    gone = fixture_body("writes/dryrun-then-get-404.json")
    assert missing.status_code == 404
    assert missing.json()["message"] == gone["message"]
    assert missing.json()["details"] == gone["details"]


def test_dry_run_create_still_conflicts_validates_and_needs_the_namespace(
        server: EmbeddedServer, api: Api) -> None:
    api.create_cm("taken", data={"a": "1"})
    check = unchanged(server, api, f"{CMS}/taken")
    clash = api.post(CMS, {"metadata": {"name": "taken"}, "data": {"a": "2"}}, params=DRY)
    assert clash.status_code == 409 and clash.json()["reason"] == "AlreadyExists"
    bad = api.post(CMS, {"metadata": {"name": "Bad_Name"}}, params=DRY)
    assert bad.status_code == 422 and bad.json()["reason"] == "Invalid"
    assert bad.json()["details"]["causes"][0]["field"] == "metadata.name"
    nowhere = api.post("/api/v1/namespaces/nope/configmaps", {"metadata": {"name": "x"}},
                       params=DRY)
    assert nowhere.status_code == 404
    check()


def test_dry_run_create_with_generate_name_picks_a_name_it_does_not_keep(
        server: EmbeddedServer, api: Api) -> None:
    resp = api.post(DEPLOYS, {**deployment(), "metadata": {"generateName": "web-"}},
                    params=DRY)
    assert resp.status_code == 201
    meta = resp.json()["metadata"]
    assert meta["name"].startswith("web-") and len(meta["name"]) == 9
    assert meta["generation"] == 1 and "resourceVersion" not in meta
    assert resp.json()["spec"]["replicas"] == 3
    assert api.get(DEPLOYS).json()["items"] == []


# -- no watch event, no revision -------------------------------------------------------------


def test_dry_run_writes_send_no_watch_event_and_take_no_revision(
        server: EmbeddedServer, api: Api) -> None:
    api.create_cm("kept", data={"a": "1"})
    rv = str(server.storage.resource_version)
    kept = f"{CMS}/kept"
    answers = [
        api.post(CMS, {"metadata": {"name": "ghost"}}, params=DRY),
        api.put(kept, {"metadata": {"name": "kept"}, "data": {"a": "2"}}, params=DRY),
        api.patch(kept, {"data": {"b": "3"}}, params=DRY),
        api.patch(kept, [{"op": "add", "path": "/data/c", "value": "4"}],
                  "application/json-patch+json", params=DRY),
        api.patch(kept, {"data": {"d": "5"}}, SMP, params=DRY),
        api.request("PATCH", kept, data="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept"
                    "\ndata:\n  e: '6'\n", headers={"Content-Type": APPLY},
                    params={**DRY, "fieldManager": "me"}),
        api.delete(kept, params=DRY),
        api.delete(CMS, params=DRY),
    ]
    assert [a.status_code for a in answers] == [201, 200, 200, 200, 200, 200, 200, 200]
    assert str(server.storage.resource_version) == rv
    api.create_cm("marker")
    event = first_event_after(api, CMS, rv)
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "marker")
    assert api.get(kept).json()["data"] == {"a": "1"}


# -- update and patch ----------------------------------------------------------------------------


def test_dry_run_put_answers_the_new_object_at_the_old_resource_version(
        server: EmbeddedServer, api: Api) -> None:
    created = api.create_cm("cm", data={"a": "1"})
    check = unchanged(server, api, f"{CMS}/cm")
    body = {"metadata": {"name": "cm", "resourceVersion": created["metadata"]["resourceVersion"]},
            "data": {"a": "2"}}
    resp = api.put(f"{CMS}/cm", body, params=DRY)
    assert resp.status_code == 200
    assert resp.json()["data"] == {"a": "2"}
    assert resp.json()["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    stale = api.put(f"{CMS}/cm", dict(body, metadata={"name": "cm", "resourceVersion": "1"}),
                    params=DRY)
    assert stale.status_code == 409 and stale.json()["reason"] == "Conflict"
    check()


def test_dry_run_merge_patch_replaces_containers_in_the_answer_only(
        server: EmbeddedServer, api: Api) -> None:
    exchange = realapi("writes/merge-patch-deployment-containers-dryrun.json")
    assert exchange["request"]["query_params"] == DRY
    created = api.post(DEPLOYS, deployment()).json()
    check = unchanged(server, api, f"{DEPLOYS}/web")
    resp = api.patch(f"{DEPLOYS}/web", exchange["request"]["body"], params=DRY)
    assert resp.status_code == exchange["response"]["status"] == 200
    got, want = resp.json(), exchange["response"]["body"]
    assert list(got)[:3] == list(want)[:3] == ["kind", "apiVersion", "metadata"]
    names = [c["name"] for c in got["spec"]["template"]["spec"]["containers"]]
    assert names == [c["name"] for c in want["spec"]["template"]["spec"]["containers"]]
    assert names == ["app"]
    # as on the real server: generation moves on, the resourceVersion does not
    assert got["metadata"]["generation"] == created["metadata"]["generation"] + 1
    assert got["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    check()


def test_dry_run_strategic_merge_patch_delete_directive_is_not_persisted(
        server: EmbeddedServer, api: Api) -> None:
    exchange = realapi("writes/strategic-merge-patch-delete-directive-dryrun.json")
    api.post(DEPLOYS, deployment())
    check = unchanged(server, api, f"{DEPLOYS}/web")
    resp = api.patch(f"{DEPLOYS}/web", exchange["request"]["body"], SMP, params=DRY)
    assert resp.status_code == exchange["response"]["status"] == 200
    want = exchange["response"]["body"]["spec"]["template"]["spec"]["containers"]
    got = resp.json()["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in got] == [c["name"] for c in want] == ["app"]
    check()
    stored = api.get(f"{DEPLOYS}/web").json()["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in stored] == ["app", "sidecar"]


def test_dry_run_status_and_scale_writes_store_nothing(server: EmbeddedServer, api: Api) -> None:
    api.post(DEPLOYS, deployment())
    check = unchanged(server, api, f"{DEPLOYS}/web")
    status = api.patch(f"{DEPLOYS}/web/status", {"status": {"replicas": 3}}, params=DRY)
    assert status.status_code == 200 and status.json()["status"]["replicas"] == 3
    scaled = api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": 7}}, params=DRY)
    assert scaled.status_code == 200
    assert (scaled.json()["kind"], scaled.json()["spec"]["replicas"]) == ("Scale", 7)
    put = api.put(f"{DEPLOYS}/web/scale", {"apiVersion": "autoscaling/v1", "kind": "Scale",
                                           "metadata": {"name": "web"},
                                           "spec": {"replicas": 5}}, params=DRY)
    assert put.status_code == 200 and put.json()["spec"]["replicas"] == 5
    negative = api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": -1}}, params=DRY)
    assert negative.status_code == 422
    check()
    assert api.get(f"{DEPLOYS}/web").json()["spec"]["replicas"] == 3


def test_dry_run_server_side_apply_creates_and_updates_nothing(
        server: EmbeddedServer, api: Api) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k: {}\n"
    params = {**DRY, "fieldManager": "team-a"}
    first = api.request("PATCH", f"{CMS}/applied", data=manifest.format("v1"),
                        headers={"Content-Type": APPLY}, params=params)
    assert first.status_code == 201
    assert "resourceVersion" not in first.json()["metadata"]
    assert first.json()["metadata"]["managedFields"][0]["operation"] == "Apply"
    assert api.get(f"{CMS}/applied").status_code == 404
    api.request("PATCH", f"{CMS}/applied", data=manifest.format("v1"),
                headers={"Content-Type": APPLY}, params={"fieldManager": "team-a"})
    check = unchanged(server, api, f"{CMS}/applied")
    again = api.request("PATCH", f"{CMS}/applied", data=manifest.format("v2"),
                        headers={"Content-Type": APPLY}, params=params)
    assert again.status_code == 200 and again.json()["data"] == {"k": "v2"}
    clash = api.request("PATCH", f"{CMS}/applied", data=manifest.format("v3"),
                        headers={"Content-Type": APPLY},
                        params={**DRY, "fieldManager": "team-b"})
    assert clash.status_code == 409
    check()


# -- delete ------------------------------------------------------------------------------------


def test_dry_run_delete_answers_the_real_status_and_keeps_the_object(
        server: EmbeddedServer, api: Api) -> None:
    want = fixture_body("writes/dryrun-delete.json")
    created = api.create_cm("cm-1")
    check = unchanged(server, api, f"{CMS}/cm-1")
    resp = api.delete(f"{CMS}/cm-1", params=DRY)
    assert resp.status_code == 200
    got = resp.json()
    assert list(got) == list(want)
    assert {k: v for k, v in got.items() if k != "details"} == {
        k: v for k, v in want.items() if k != "details"}
    assert got["details"] == {"name": "cm-1", "kind": "configmaps",
                              "uid": created["metadata"]["uid"]}
    check()
    missing = api.delete(f"{CMS}/nope", params=DRY)
    assert missing.status_code == 404


def test_dry_run_delete_options_body_pod_and_finalizers(server: EmbeddedServer, api: Api) -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    assert api.post("/api/v1/namespaces/default/pods", pod).status_code == 201
    check_pod = unchanged(server, api, "/api/v1/namespaces/default/pods/p")
    options = {"apiVersion": "v1", "kind": "DeleteOptions", "dryRun": ["All"]}
    shown = api.request("DELETE", "/api/v1/namespaces/default/pods/p", json=options)
    assert shown.status_code == 200
    assert shown.json()["metadata"]["deletionTimestamp"]
    check_pod()
    held = {"metadata": {"name": "held", "finalizers": ["kubenb.io/hold"]}}
    assert api.post(CMS, held).status_code == 201
    check_held = unchanged(server, api, f"{CMS}/held")
    marked = api.delete(f"{CMS}/held", params=DRY)
    assert marked.status_code == 200
    assert marked.json()["metadata"]["deletionTimestamp"]
    check_held()
    assert "deletionTimestamp" not in api.get(f"{CMS}/held").json()["metadata"]


def test_dry_run_namespace_delete_is_terminating_in_the_answer_only(
        server: EmbeddedServer, api: Api) -> None:
    assert api.post("/api/v1/namespaces", {"metadata": {"name": "shop"}}).status_code == 201
    api.create_cm("inside", ns="shop")
    check = unchanged(server, api, "/api/v1/namespaces/shop")
    resp = api.delete("/api/v1/namespaces/shop", params=DRY)
    assert resp.status_code == 200
    assert resp.json()["status"] == {"phase": "Terminating"}
    check()
    assert api.get("/api/v1/namespaces/shop/configmaps/inside").status_code == 200


def test_dry_run_delete_collection_lists_what_it_would_delete(
        server: EmbeddedServer, api: Api) -> None:
    api.create_cm("a", labels={"app": "x"})
    api.create_cm("b", labels={"app": "x"})
    api.create_cm("c", labels={"app": "y"})
    rv = server.storage.resource_version
    resp = api.delete(CMS, params={**DRY, "labelSelector": "app=x"})
    assert resp.status_code == 200
    assert resp.json()["kind"] == "ConfigMapList"
    assert [i["metadata"]["name"] for i in resp.json()["items"]] == ["a", "b"]
    assert server.storage.resource_version == rv
    assert len(api.get(CMS).json()["items"]) == 3


def test_dry_run_crd_create_serves_nothing(server: EmbeddedServer, api: Api) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gadgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                        "openAPIV3Schema": {"type": "object",
                                            "x-kubernetes-preserve-unknown-fields": True}}}]}}
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    rv = server.storage.resource_version
    resp = api.post(crds, crd, params=DRY)
    assert resp.status_code == 201
    assert "resourceVersion" not in resp.json()["metadata"]
    assert server.storage.resource_version == rv
    assert api.get(f"{crds}/gadgets.example.com").status_code == 404
    assert api.get("/apis/example.com/v1/namespaces/default/gadgets").status_code == 404


# -- bad values -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "kind"), [
    ("POST", CMS, "CreateOptions"),
    ("PUT", f"{CMS}/cm", "UpdateOptions"),
    ("PATCH", f"{CMS}/cm", "PatchOptions"),
    ("DELETE", f"{CMS}/cm", "DeleteOptions"),
    ("DELETE", CMS, "DeleteOptions"),
])
def test_dry_run_values_other_than_all_are_rejected_as_apimachinery_does(
        server: EmbeddedServer, api: Api, method: str, path: str, kind: str) -> None:
    api.create_cm("cm", data={"a": "1"})
    check = unchanged(server, api, f"{CMS}/cm")
    body = {"metadata": {"name": "cm"}, "data": {"a": "2"}}
    headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else {}
    resp = api.request(method, path, json=None if method == "DELETE" else body,
                       headers=headers, params={"dryRun": "true"})
    assert resp.status_code == 422
    message = 'Unsupported value: []string{"true"}: supported values: "All"'
    assert resp.json()["message"] == f'{kind}.meta.k8s.io "" is invalid: dryRun: {message}'
    assert resp.json()["details"] == {"group": "meta.k8s.io", "kind": kind, "causes": [
        {"reason": "FieldValueNotSupported", "message": message, "field": "dryRun"}]}
    check()


def test_dry_run_bad_value_in_delete_options_body(server: EmbeddedServer, api: Api) -> None:
    api.create_cm("cm")
    resp = api.request("DELETE", f"{CMS}/cm", json={"dryRun": ["All", "Nope"]})
    assert resp.status_code == 422
    assert resp.json()["details"]["causes"][0]["message"] == (
        'Unsupported value: []string{"All", "Nope"}: supported values: "All"')
    assert api.get(f"{CMS}/cm").status_code == 200


# -- clients -----------------------------------------------------------------------------------


def test_kubenb_resource_client_dry_run_round_trip(server: EmbeddedServer, api: Api) -> None:
    client = RESTClient(load_config(str(server.kubeconfig_path)))
    try:
        cms = DynamicClient(client).resource("v1", "configmaps").namespace("default")
        made = cms.create({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "dc"}, "data": {"a": "1"}}, dry_run=True)
        assert made["metadata"]["uid"] and "resourceVersion" not in made["metadata"]
        assert api.get(f"{CMS}/dc").status_code == 404
        api.create_cm("dc", data={"a": "1"})
        check = unchanged(server, api, f"{CMS}/dc")
        assert cms.patch("dc", {"data": {"a": "2"}}, dry_run=True)["data"] == {"a": "2"}
        assert cms.delete("dc", dry_run=True)["status"] == "Success"
        check()
    finally:
        client.close()


def test_official_client_dry_run_create(server: EmbeddedServer, api: Api) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    api_client = kubernetes.config.new_client_from_config(str(server.kubeconfig_path))
    try:
        core = kubernetes.client.CoreV1Api(api_client)
        body = kubernetes.client.V1ConfigMap(metadata=kubernetes.client.V1ObjectMeta(name="oc"),
                                             data={"a": "1"})
        made = core.create_namespaced_config_map("default", body, dry_run="All")
        assert made.metadata.uid and made.metadata.resource_version is None
        assert api.get(f"{CMS}/oc").status_code == 404
    finally:
        api_client.close()


def kubectl(server: EmbeddedServer, cache: Path, *args: str, stdin: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["kubectl", "--kubeconfig", server.kubeconfig_path,
                           "--cache-dir", str(cache), *args],
                          capture_output=True, text=True, input=stdin, timeout=30)
    assert done.returncode == 0, done.stderr
    return done


MANIFEST = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  color: {}
"""


@pytest.mark.slow
@needs_kubectl
def test_kubectl_apply_and_create_dry_run_server_store_nothing(
        server: EmbeddedServer, api: Api, tmp_path: Path) -> None:
    cache = tmp_path / "kube-cache"
    rv = server.storage.resource_version
    out = kubectl(server, cache, "apply", "--dry-run=server", "-f", "-",
                  stdin=MANIFEST.format("blue"))
    assert out.stdout.strip() == "configmap/settings created (server dry run)"
    out = kubectl(server, cache, "create", "--dry-run=server", "-o", "json", "-f", "-",
                  stdin=MANIFEST.format("blue"))
    assert json.loads(out.stdout)["data"] == {"color": "blue"}
    assert server.storage.resource_version == rv
    assert api.get(f"{CMS}/settings").status_code == 404
    kubectl(server, cache, "apply", "-f", "-", stdin=MANIFEST.format("blue"))
    check = unchanged(server, api, f"{CMS}/settings")
    out = kubectl(server, cache, "apply", "--dry-run=server", "-o", "json", "-f", "-",
                  stdin=MANIFEST.format("red"))
    assert json.loads(out.stdout)["data"] == {"color": "red"}
    out = kubectl(server, cache, "apply", "--server-side", "--force-conflicts",
                  "--dry-run=server", "-f", "-", stdin=MANIFEST.format("green"))
    assert "serverside-applied (server dry run)" in out.stdout
    check()


@pytest.mark.slow
@needs_kubectl
def test_kubectl_delete_dry_run_server_keeps_the_object(
        server: EmbeddedServer, api: Api, tmp_path: Path) -> None:
    api.create_cm("settings", data={"color": "blue"})
    check = unchanged(server, api, f"{CMS}/settings")
    out = kubectl(server, tmp_path / "kube-cache", "delete", "configmap", "settings",
                  "--dry-run=server")
    assert out.stdout.strip() == 'configmap "settings" deleted (server dry run)'
    check()

