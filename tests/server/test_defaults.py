"""Defaulting, admission, allocation and validation on writes, field by field against what a
real kube-apiserver v1.32 answered (tests/fixtures/realapi/objects/*-create.json,
errors/invalid-pod-multiple-causes-422.json), through requests, kubectl and the official
`kubernetes` client."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import pytest

from kubenb.server import EmbeddedServer
from kubenb.server.defaults import image_pull_policy
from tests.helpers import Kubectl, needs_kubectl
from tests.server.conftest import Api, fixture_body, realapi

NS = "/api/v1/namespaces/default"
CIDR = ipaddress.ip_network("10.96.0.0/12")
VOLATILE = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "namespace")


def stable(obj: Any) -> Any:
    """`obj` without what differs between any two servers (uids, times, allocated values)."""
    if isinstance(obj, dict):
        return {k: stable(v) for k, v in obj.items()
                if k not in (*VOLATILE, "clusterIP", "clusterIPs", "nodePort")}
    if isinstance(obj, list):
        return [stable(v) for v in obj]
    return obj


def create_like_fixture(api: Api, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """POST the fixture's request body here; (our answer, the real server's answer)."""
    exchange = realapi(f"objects/{name}")
    if exchange["request"]["body"]["kind"] != "Namespace":
        exchange = json.loads(json.dumps(exchange).replace(
            '"kubenb-fixtures"', '"default"').replace("/kubenb-fixtures/", "/default/"))
    resp = api.post(exchange["request"]["path"], exchange["request"]["body"],
                    headers={"User-Agent": exchange["request"]["headers"]["User-Agent"]})
    assert resp.status_code == exchange["response"]["status"], resp.text
    return resp.json(), exchange["response"]["body"]


@pytest.mark.parametrize("name", [
    "pod-create.json", "service-create.json", "service-nodeport-create.json",
    "deployment-create.json", "event-create.json", "secret-create.json",
    "configmap-create.json", "lease-create.json", "namespace-create.json"])
def test_created_objects_match_the_real_server_field_by_field(api: Api, name: str) -> None:
    ours, real = create_like_fixture(api, name)
    assert stable(ours) == stable(real)


@pytest.mark.parametrize("name", [
    "pod-create.json", "service-create.json", "service-nodeport-create.json",
    "deployment-create.json", "event-create.json", "secret-create.json", "node-create.json",
    "configmap-create.json", "lease-create.json", "namespace-create.json"])
def test_the_creators_managed_fields_are_the_real_servers(api: Api, name: str) -> None:
    """Defaults are the creator's; admission, allocation and the initial status are not;
    atomic structs and maps are owned whole; Go's zero object decides which maps get "."."""
    ours, real = create_like_fixture(api, name)
    assert [(m["manager"], m["operation"], m["fieldsV1"])
            for m in ours["metadata"]["managedFields"]] == [
        (m["manager"], m["operation"], m["fieldsV1"])
        for m in real["metadata"]["managedFields"]]


def test_a_pod_gets_the_defaults_admission_and_status_of_the_real_server(api: Api) -> None:
    pod, real = create_like_fixture(api, "pod-create.json")
    spec = pod["spec"]
    for field in ("restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy",
                  "securityContext", "schedulerName", "tolerations", "priority",
                  "enableServiceLinks", "preemptionPolicy"):
        assert spec[field] == real["spec"][field], field
    assert pod["status"] == real["status"] == {"phase": "Pending", "qosClass": "Burstable"}
    app = spec["containers"][0]
    assert app["livenessProbe"] == real["spec"]["containers"][0]["livenessProbe"]
    assert app["readinessProbe"]["httpGet"]["scheme"] == "HTTP"
    assert spec["volumes"][0]["configMap"]["defaultMode"] == 420
    # admission-set fields are not the creator's (objects/pod-create.json's managedFields)
    owned = pod["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
    real_owned = real["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
    assert sorted(owned) == sorted(real_owned)


def test_a_deployment_template_gets_pod_spec_defaults_but_not_pod_admission(api: Api) -> None:
    deployment, real = create_like_fixture(api, "deployment-create.json")
    template = deployment["spec"]["template"]
    assert template == real["spec"]["template"]
    assert template["metadata"]["creationTimestamp"] is None
    assert "tolerations" not in template["spec"] and "priority" not in template["spec"]
    assert deployment["spec"]["strategy"] == {
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert deployment["status"] == {}


def test_services_get_unique_cluster_ips_from_the_service_range(api: Api) -> None:
    ips = set()
    for i in range(40):
        svc = api.post(f"{NS}/services", {"metadata": {"name": f"s{i}"},
                                          "spec": {"ports": [{"port": 80}]}}).json()
        spec = svc["spec"]
        assert spec["clusterIPs"] == [spec["clusterIP"]]
        assert ipaddress.ip_address(spec["clusterIP"]) in CIDR
        ips.add(spec["clusterIP"])
        assert svc["status"] == {"loadBalancer": {}}
        assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert len(ips) == 40
    assert "10.96.0.1" not in ips  # the kubernetes Service's


def test_node_ports_are_allocated_kept_on_update_and_unique(api: Api) -> None:
    svc, _ = create_like_fixture(api, "service-nodeport-create.json")
    port = svc["spec"]["ports"][0]["nodePort"]
    assert 30000 <= port <= 32767 and svc["spec"]["externalTrafficPolicy"] == "Cluster"
    svc["spec"]["ports"][0].pop("nodePort")
    svc["spec"].pop("clusterIP")
    svc["spec"].pop("clusterIPs")
    updated = api.put(f"{NS}/services/web-nodeport", svc).json()
    assert updated["spec"]["ports"][0]["nodePort"] == port  # kept, as the real strategy does
    assert ipaddress.ip_address(updated["spec"]["clusterIP"]) in CIDR
    taken = api.post(f"{NS}/services", {"metadata": {"name": "other"}, "spec": {
        "type": "NodePort", "ports": [{"port": 80, "nodePort": port}]}})
    assert taken.status_code == 422 and "provided port is already allocated" in taken.text


def test_a_requested_cluster_ip_is_checked(api: Api) -> None:
    ok = api.post(f"{NS}/services", {"metadata": {"name": "dns"}, "spec": {
        "clusterIP": "10.96.0.10", "ports": [{"port": 53, "protocol": "UDP"}]}})
    assert ok.status_code == 201 and ok.json()["spec"]["clusterIPs"] == ["10.96.0.10"]
    again = api.post(f"{NS}/services", {"metadata": {"name": "dns2"}, "spec": {
        "clusterIP": "10.96.0.10", "ports": [{"port": 53}]}})
    assert again.status_code == 422 and "provided IP is already allocated" in again.text
    outside = api.post(f"{NS}/services", {"metadata": {"name": "far"}, "spec": {
        "clusterIP": "192.168.0.1", "ports": [{"port": 53}]}})
    assert outside.status_code == 422 and "not in the valid range" in outside.text
    moved = dict(ok.json())
    moved["spec"] = dict(moved["spec"], clusterIP="10.96.0.11", clusterIPs=["10.96.0.11"])
    assert api.put(f"{NS}/services/dns", moved).status_code == 422  # immutable
    headless = api.post(f"{NS}/services", {"metadata": {"name": "headless"}, "spec": {
        "clusterIP": "None", "selector": {"app": "x"}}}).json()
    assert headless["spec"]["clusterIPs"] == ["None"]
    external = api.post(f"{NS}/services", {"metadata": {"name": "ext"}, "spec": {
        "type": "ExternalName", "externalName": "example.com"}}).json()
    assert "clusterIP" not in external["spec"] and "ipFamilies" not in external["spec"]
    assert "internalTrafficPolicy" not in external["spec"]


def test_invalid_pod_answers_exactly_like_the_real_server(api: Api) -> None:
    exchange = realapi("errors/invalid-pod-multiple-causes-422.json")
    resp = api.post(f"{NS}/pods", exchange["request"]["body"])
    assert resp.status_code == 422
    assert resp.json() == exchange["response"]["body"]


@pytest.mark.parametrize(("container", "field", "reason"), [
    ({"image": "nginx"}, "spec.containers[0].name", "FieldValueRequired"),
    ({"name": "a"}, "spec.containers[0].image", "FieldValueRequired"),
    ({"name": "a", "image": "x", "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
     "spec.containers[0].volumeMounts[0].name", "FieldValueNotFound"),
    ({"name": "a", "image": "x", "imagePullPolicy": "Sometimes"},
     "spec.containers[0].imagePullPolicy", "FieldValueNotSupported"),
])
def test_bad_containers_are_422(api: Api, container: dict[str, Any], field: str,
                                reason: str) -> None:
    resp = api.post(f"{NS}/pods", {"metadata": {"name": "p"},
                                   "spec": {"containers": [container]}})
    assert resp.status_code == 422, resp.text
    causes = resp.json()["details"]["causes"]
    assert (causes[0]["field"], causes[0]["reason"]) == (field, reason)


def test_no_containers_and_bad_restart_policy(api: Api) -> None:
    resp = api.post(f"{NS}/pods", {"metadata": {"name": "p"},
                                   "spec": {"containers": [], "restartPolicy": "Sometimes"}})
    assert resp.status_code == 422
    assert resp.json()["message"] == (
        'Pod "p" is invalid: [spec.containers: Required value, spec.restartPolicy: Unsupported '
        'value: "Sometimes": supported values: "Always", "OnFailure", "Never"]')


def test_the_deployment_selector_is_immutable_as_on_the_real_server(api: Api) -> None:
    create_like_fixture(api, "deployment-create.json")
    exchange = realapi("errors/immutable-field-422.json")
    resp = api.patch("/apis/apps/v1/namespaces/default/deployments/web",
                     exchange["request"]["body"], "application/strategic-merge-patch+json")
    assert resp.status_code == 422
    assert resp.json() == exchange["response"]["body"]


def test_a_selector_that_does_not_match_the_template_is_422(api: Api) -> None:
    resp = api.post("/apis/apps/v1/namespaces/default/deployments", {
        "metadata": {"name": "d"}, "spec": {
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "b"}},
                         "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    assert resp.status_code == 422
    assert resp.json()["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "spec.template.metadata.labels",
        "message": 'Invalid value: map[string]string{"app":"b"}: `selector` does not match '
                   "template `labels`"}]


def test_a_config_map_over_one_mebibyte_is_422_like_the_real_server(api: Api) -> None:
    real = realapi("errors/configmap-too-long-422.json")["response"]["body"]
    resp = api.post(f"{NS}/configmaps", {"metadata": {"name": "quite-big"},
                                         "data": {"big": "x" * 1677721}})
    assert resp.status_code == 422 and resp.json() == real


@pytest.mark.parametrize(("image", "policy"), [
    ("nginx", "Always"), ("nginx:latest", "Always"), ("nginx:1.27", "IfNotPresent"),
    ("registry:5000/team/app", "Always"), ("registry:5000/team/app:v2", "IfNotPresent"),
    ("nginx@sha256:" + "a" * 64, "IfNotPresent")])
def test_image_pull_policy(image: str, policy: str) -> None:
    assert image_pull_policy(image) == policy


def test_secret_string_data_is_merged_into_data(api: Api) -> None:
    ours, real = create_like_fixture(api, "secret-create.json")
    assert "stringData" not in ours and ours["data"] == real["data"]


# -- real clients ----------------------------------------------------------------------------


@pytest.mark.slow
@needs_kubectl
def test_kubectl_apply_and_get_see_the_defaults(server: EmbeddedServer, tmp_path: Path) -> None:
    kubectl = Kubectl(server.kubeconfig_path, tmp_path / "cache")
    body = realapi("objects/pod-create.json")["request"]["body"]
    kubectl("apply", "-f", "-", stdin=json.dumps(body))
    got = json.loads(kubectl("get", "pod", "web-pod", "-o", "json").stdout)
    real = fixture_body("objects/pod-create.json")
    assert stable(got["spec"]) == stable(real["spec"])
    bad = kubectl("create", "-f", "-", ok=False, stdin=json.dumps(
        realapi("errors/invalid-pod-multiple-causes-422.json")["request"]["body"]))
    assert bad.returncode != 0
    assert 'The Pod "bad-pod" is invalid' in bad.stderr
    assert "spec.containers[0].image: Required value" in bad.stderr


def test_the_official_client_sees_the_defaults(server: EmbeddedServer) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    config = kubernetes.client.Configuration()
    config.host = server.url
    with kubernetes.client.ApiClient(config) as client:
        core = kubernetes.client.CoreV1Api(client)
        svc = core.create_namespaced_service("default", {
            "metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}})
        assert ipaddress.ip_address(svc.spec.cluster_ip) in CIDR
        assert svc.spec.session_affinity == "None" and svc.spec.ip_families == ["IPv4"]
        pod = core.create_namespaced_pod("default", {
            "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        assert pod.spec.containers[0].image_pull_policy == "Always"
        assert pod.status.qos_class == "BestEffort" and pod.spec.priority == 0
        with pytest.raises(kubernetes.client.ApiException) as raised:
            core.create_namespaced_pod("default", {
                "metadata": {"name": "q"}, "spec": {"containers": [{"name": "Bad Name",
                                                                      "image": "nginx"}]}})
        assert raised.value.status == 422
