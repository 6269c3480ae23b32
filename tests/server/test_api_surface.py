"""What is served: every built-in resource of kube-apiserver v1.32, as its discovery lists
them (tests/fixtures/realapi/discovery), with reviews, subresources and OpenAPI schemas
that kubectl, the official `kubernetes` client and kubenb's own client use."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
import requests

from kubenb.server import EmbeddedServer
from tests.helpers import Kubectl, assert_no_new_threads, needs_kubectl
from tests.server.conftest import Api, fixture_body, realapi

V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
PODS = "/api/v1/namespaces/default/pods"
POD = {"metadata": {"name": "web", "labels": {"app": "web"}},
       "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


@pytest.fixture
def kubectl(server: EmbeddedServer, tmp_path: Path) -> Kubectl:
    return Kubectl(server.kubeconfig_path, tmp_path / "cache")


def without_crd_group(doc: dict[str, Any]) -> dict[str, Any]:
    """The real document without the sample CRD's group (a CRD the capture created)."""
    return dict(doc, items=[i for i in doc["items"]
                            if i["metadata"].get("name") != "samplecontroller.k8s.io"])


# -- discovery -------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "fixture"), [
    ("/api", "discovery/aggregated-api-v2.json"), ("/apis", "discovery/aggregated-apis-v2.json")])
def test_aggregated_discovery_is_the_real_servers(api: Api, path: str, fixture: str) -> None:
    ours = api.get(path, headers={"Accept": V2})
    assert ours.json() == without_crd_group(fixture_body(fixture))
    real_bytes = json.dumps(without_crd_group(fixture_body(fixture)), separators=(",", ":"))
    assert ours.content.decode().strip() == real_bytes  # the same bytes, in the same order


@pytest.mark.parametrize(("path", "fixture"), [
    ("/api/v1", "discovery/api-v1.json"), ("/apis/apps/v1", "discovery/apis-apps-v1.json")])
def test_legacy_resource_lists_are_the_real_servers(api: Api, path: str, fixture: str) -> None:
    real = fixture_body(fixture)
    for resource in real["resources"]:
        resource.pop("storageVersionHash", None)  # a hash of etcd's storage encoding: absent
    assert api.get(path).json() == real


@pytest.mark.slow
@needs_kubectl
def test_kubectl_gets_every_listable_resource(kubectl: Kubectl) -> None:
    names = kubectl("api-resources", "--verbs=list", "-o", "name").stdout.split()
    assert len(names) >= 50 and "jobs.batch" in names and "roles.rbac.authorization.k8s.io" in names
    listed = kubectl("get", ",".join(names), "-A", "-o", "name", ok=False)
    assert listed.returncode == 0, listed.stderr
    for resource in ("jobs", "cronjobs", "roles", "clusterroles", "rolebindings", "ingresses",
                     "networkpolicies", "replicationcontrollers", "csr", "storageclasses",
                     "csistoragecapacities", "apiservices", "ingressclasses", "pdb",
                     "priorityclasses", "endpointslices", "hpa", "cs"):
        assert kubectl("get", resource, "-A", ok=False).returncode == 0, resource


# -- reviews ------------------------------------------------------------------------------------


@pytest.mark.slow
@needs_kubectl
def test_kubectl_auth_whoami_and_can_i(kubectl: Kubectl) -> None:
    whoami = kubectl("auth", "whoami", "-o", "json").stdout
    review = json.loads(whoami)
    real = fixture_body("objects/selfsubjectreview.json")
    assert list(review) == list(real) and review["kind"] == "SelfSubjectReview"
    assert review["status"]["userInfo"]["groups"] == real["status"]["userInfo"]["groups"]
    assert kubectl("auth", "can-i", "create", "pods").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "delete", "nodes", "--all-namespaces").stdout.strip() == "yes"
    listed = kubectl("auth", "can-i", "--list").stdout
    assert "*.*" in listed


def test_access_reviews_with_the_official_client(server: EmbeddedServer) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    config = kubernetes.client.Configuration()
    config.host = server.url
    with kubernetes.client.ApiClient(config) as client:
        authz = kubernetes.client.AuthorizationV1Api(client)
        review = authz.create_self_subject_access_review({
            "spec": {"resourceAttributes": {"verb": "create", "resource": "pods",
                                            "namespace": "default"}}})
        assert review.status.allowed is True
        local = authz.create_namespaced_local_subject_access_review("default", {
            "spec": {"user": "bob", "resourceAttributes": {"verb": "get", "resource": "pods",
                                                          "namespace": "default"}}})
        assert local.status.allowed is False  # bob has no role (RBAC: kubenb.server.rbac)
        authn = kubernetes.client.AuthenticationV1Api(client)
        assert authn.create_self_subject_review({}).status.user_info.username == "kubenb-admin"


def test_an_access_review_needs_one_kind_of_attributes(api: Api) -> None:
    resp = api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                    {"apiVersion": "authorization.k8s.io/v1",
                     "kind": "SelfSubjectAccessReview", "spec": {}})
    assert resp.status_code == 422
    assert resp.json()["details"]["causes"][0]["field"] == "spec.resourceAttributes"
    listed = api.get("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
    assert listed.status_code == 405  # create is the only verb, as on the real server


def test_token_reviews_know_the_servers_token() -> None:
    with EmbeddedServer(token="s3cret") as server:
        api = Api(server.url, token="s3cret")
        try:
            path = "/apis/authentication.k8s.io/v1/tokenreviews"
            good = api.post(path, {"spec": {"token": "s3cret"}}).json()
            assert good["status"]["authenticated"] is True
            bad = api.post(path, {"spec": {"token": "guess"}}).json()
            assert bad["status"] == {"user": {}, "error": "invalid bearer token"}  # as real
        finally:
            api.close()


# -- pod subresources ---------------------------------------------------------------------------


@pytest.mark.slow
@needs_kubectl
def test_logs_exec_attach_say_there_is_no_container_runtime(kubectl: Kubectl,
                                                           api: Api) -> None:
    assert api.post(PODS, POD).status_code == 201
    for args in (["logs", "web"], ["exec", "web", "--", "ls"], ["attach", "web"]):
        done = kubectl(*args, ok=False)
        assert done.returncode != 0
        assert "has no container runtime" in done.stderr, (args, done.stderr)
    wrong = kubectl("logs", "web", "-c", "nope", ok=False)
    assert "container nope is not valid for pod web" in wrong.stderr
    missing = kubectl("logs", "ghost", ok=False)
    assert 'pods "ghost" not found' in missing.stderr


def test_log_and_proxy_statuses(api: Api) -> None:
    assert api.post(PODS, POD).status_code == 201
    log = api.get(f"{PODS}/web/log")
    assert log.status_code == 400 and log.json()["reason"] == "BadRequest"
    assert "no container runtime" in log.json()["message"]
    proxy = api.get(f"{PODS}/web/proxy")
    assert proxy.status_code == 503 and proxy.json()["reason"] == "ServiceUnavailable"
    assert api.get(f"{PODS}/ghost/log").status_code == 404


def test_binding_and_eviction(api: Api) -> None:
    assert api.post(PODS, POD).status_code == 201
    bound = api.post(f"{PODS}/web/binding", {"apiVersion": "v1", "kind": "Binding",
                                             "metadata": {"name": "web"},
                                             "target": {"kind": "Node", "name": "node-1"}})
    assert bound.status_code == 201 and bound.json()["status"] == "Success"
    assert api.get(f"{PODS}/web").json()["spec"]["nodeName"] == "node-1"
    again = api.post("/api/v1/namespaces/default/bindings", {
        "metadata": {"name": "web"}, "target": {"name": "node-2"}})
    assert again.status_code == 409 and "already assigned" in again.json()["message"]
    evicted = api.post(f"{PODS}/web/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                                "metadata": {"name": "web"}})
    assert evicted.status_code == 201
    # A bound pod is deleted gracefully: Terminating until its kubelet (none here) ends it.
    assert api.get(f"{PODS}/web").json()["metadata"]["deletionGracePeriodSeconds"] == 30
    evicted = api.post(f"{PODS}/web/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                                "metadata": {"name": "web"},
                                                "deleteOptions": {"gracePeriodSeconds": 0}})
    assert evicted.status_code == 201
    assert api.get(f"{PODS}/web").status_code == 404


def test_ephemeral_containers_change_nothing_else(api: Api) -> None:
    assert api.post(PODS, POD).status_code == 201
    pod = api.get(f"{PODS}/web/ephemeralcontainers").json()
    pod["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox"}]
    pod["spec"]["containers"][0]["image"] = "changed:1"  # ignored by this subresource
    updated = api.put(f"{PODS}/web/ephemeralcontainers", pod)
    assert updated.status_code == 200, updated.text
    spec = updated.json()["spec"]
    assert spec["ephemeralContainers"][0]["terminationMessagePolicy"] == "File"
    assert spec["containers"][0]["image"] == "nginx:1.27"


def test_csr_approval(api: Api) -> None:
    path = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
    created = api.post(path, {"metadata": {"name": "c"}, "spec": {
        "request": "dGVzdA==", "signerName": "kubernetes.io/kube-apiserver-client",
        "usages": ["client auth"]}}).json()
    assert created["spec"]["username"] == "kubenb-admin" and created["status"] == {}
    created["status"] = {"conditions": [{"type": "Approved", "status": "True",
                                         "reason": "Test", "message": "ok"}]}
    approved = api.put(f"{path}/c/approval", created).json()
    assert approved["status"]["conditions"][0]["type"] == "Approved"


def test_component_statuses_and_tokens(api: Api) -> None:
    listed = api.get("/api/v1/componentstatuses").json()
    assert listed["kind"] == "ComponentStatusList" and listed["items"] == []
    api.post("/api/v1/namespaces/default/serviceaccounts", {"metadata": {"name": "robot"}})
    token = api.post("/api/v1/namespaces/default/serviceaccounts/robot/token",
                     {"spec": {"audiences": ["x"]}})
    assert token.status_code == 201, token.text  # tests/server/test_tokens.py: the rest
    assert token.json()["spec"]["audiences"] == ["x"]


# -- OpenAPI and kubectl explain -----------------------------------------------------------------


@pytest.mark.slow
@needs_kubectl
def test_kubectl_explain(kubectl: Kubectl) -> None:
    spec = kubectl("explain", "pods.spec").stdout
    assert "containers\t<[]Container> -required-" in spec
    assert "restartPolicy\t<string>" in spec
    ports = kubectl("explain", "deployment.spec.template.spec.containers.ports").stdout
    assert "containerPort\t<integer> -required-" in ports
    assert "KIND:       Job" in kubectl("explain", "jobs").stdout
    assert "roleRef\t<RoleRef> -required-" in kubectl("explain", "rolebindings").stdout


def test_openapi_documents(api: Api) -> None:
    index = api.get("/openapi/v3").json()
    assert {"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/rbac.authorization.k8s.io/v1"
            } <= set(index["paths"])
    doc = api.get(index["paths"]["api/v1"]["serverRelativeURL"]).json()
    schemas = doc["components"]["schemas"]
    pod = schemas["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [
        {"group": "", "kind": "Pod", "version": "v1"}]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["items"] == {"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}
    for ref in json.dumps(doc).split('"$ref": "#/components/schemas/')[1:]:
        assert ref.split('"', 1)[0] in schemas  # every reference resolves


@pytest.mark.slow
@needs_kubectl
def test_client_side_apply_merges_lists_by_key(kubectl: Kubectl, api: Api) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
                    "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
                        {"name": "app", "image": "nginx:1.26",
                         "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
                        {"name": "side", "image": "busybox:1.36"}]}}}}
    kubectl("apply", "-f", "-", stdin=json.dumps(manifest))
    api.patch("/apis/apps/v1/namespaces/default/deployments/web",
              {"spec": {"template": {"metadata": {"annotations": {"by": "someone-else"}}}}})
    containers = manifest["spec"]["template"]["spec"]["containers"]
    containers[0]["image"] = "nginx:1.27"
    containers[0]["env"] = [{"name": "A", "value": "1"}]
    kubectl("apply", "-f", "-", stdin=json.dumps(manifest))
    got = api.get("/apis/apps/v1/namespaces/default/deployments/web").json()
    template = got["spec"]["template"]
    assert [c["image"] for c in template["spec"]["containers"]] == ["nginx:1.27", "busybox:1.36"]
    assert template["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]
    assert template["metadata"]["annotations"] == {"by": "someone-else"}


# -- Jobs, CronJobs, key order ---------------------------------------------------------------------


def test_jobs_and_cron_jobs(api: Api) -> None:
    job = api.post("/apis/batch/v1/namespaces/default/jobs", {"metadata": {"name": "j"}, "spec": {
        "template": {"spec": {"restartPolicy": "Never",
                              "containers": [{"name": "c", "image": "busybox"}]}}}})
    assert job.status_code == 201, job.text
    spec = job.json()["spec"]
    uid = job.json()["metadata"]["uid"]
    assert (spec["parallelism"], spec["completions"], spec["backoffLimit"]) == (1, 1, 6)
    assert spec["completionMode"] == "NonIndexed" and spec["suspend"] is False
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert spec["template"]["metadata"]["labels"]["job-name"] == "j"
    assert spec["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"
    always = api.post("/apis/batch/v1/namespaces/default/jobs", {"metadata": {"name": "k"},
                      "spec": {"template": {"spec": {"containers": [
                          {"name": "c", "image": "busybox"}]}}}})
    assert always.status_code == 422
    assert always.json()["details"]["causes"] == [{
        "reason": "FieldValueNotSupported", "field": "spec.template.spec.restartPolicy",
        "message": 'Unsupported value: "Always": supported values: "OnFailure", "Never"'}]
    cron = api.post("/apis/batch/v1/namespaces/default/cronjobs", {
        "metadata": {"name": "c"}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {
            "spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [
                {"name": "c", "image": "busybox:1.36"}]}}}}}}).json()
    assert cron["spec"]["concurrencyPolicy"] == "Allow"
    assert (cron["spec"]["successfulJobsHistoryLimit"], cron["spec"][
        "failedJobsHistoryLimit"]) == (3, 1)


def test_objects_come_back_in_the_real_servers_key_order(api: Api) -> None:
    exchange = realapi("objects/pod-create.json")
    body = json.loads(json.dumps(exchange["request"]["body"], sort_keys=True))  # scrambled
    created = api.post(PODS, body).json()
    real = exchange["response"]["body"]

    def keys(value: Any) -> Any:
        if isinstance(value, dict):
            return [(k, keys(v)) for k, v in value.items()
                    if k not in ("managedFields", "namespace")]
        if isinstance(value, list):
            return [keys(v) for v in value]
        return None

    assert keys(created) == keys(real)


def test_omitempty_zero_values_are_left_out_as_go_writes_them(api: Api) -> None:
    cm = api.post("/api/v1/namespaces/default/configmaps", {
        "metadata": {"name": "empty", "labels": {}, "annotations": {}}, "data": {}}).json()
    assert "data" not in cm and "labels" not in cm["metadata"]
    pod = api.post(PODS, dict(POD, spec=dict(POD["spec"], hostNetwork=False,
                                             nodeName=""))).json()
    assert "hostNetwork" not in pod["spec"] and "nodeName" not in pod["spec"]


# -- what a new cluster contains -------------------------------------------------------------------


def test_a_new_cluster_has_the_system_namespaces_and_the_kubernetes_service(
        server: EmbeddedServer, api: Api) -> None:
    names = [n["metadata"]["name"] for n in api.get("/api/v1/namespaces").json()["items"]]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
    svc = api.get("/api/v1/namespaces/default/services/kubernetes").json()
    port = int(server.url.rsplit(":", 1)[1])
    assert svc["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    assert svc["spec"]["clusterIP"] == "10.96.0.1" and svc["spec"]["type"] == "ClusterIP"
    assert svc["spec"]["ports"] == [{"name": "http", "protocol": "TCP", "port": 443,
                                     "targetPort": port}]
    endpoints = api.get("/api/v1/namespaces/default/endpoints/kubernetes").json()
    address = endpoints["subsets"][0]["addresses"][0]["ip"]
    served = endpoints["subsets"][0]["ports"][0]["port"]
    assert (address, served) == ("127.0.0.1", port)
    assert requests.get(f"http://{address}:{served}/version", timeout=10).json()["major"] == "1"
    path = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes"
    eps = api.get(path).json()
    assert eps["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert eps["endpoints"] == [{"addresses": [address], "conditions": {"ready": True}}]
    assert eps["ports"] == [{"name": "http", "protocol": "TCP", "port": port}]


def test_a_restart_on_another_port_moves_the_endpoints() -> None:
    server = EmbeddedServer()
    with server:
        first = int(server.url.rsplit(":", 1)[1])
    with server:
        api = Api(server.url)
        try:
            port = int(server.url.rsplit(":", 1)[1])
            endpoints = api.get("/api/v1/namespaces/default/endpoints/kubernetes").json()
            assert endpoints["subsets"][0]["ports"][0]["port"] == port
            if port != first:
                svc = api.get("/api/v1/namespaces/default/services/kubernetes").json()
                assert svc["spec"]["ports"][0]["targetPort"] == port
        finally:
            api.close()


def test_https_servers_name_the_port_https() -> None:
    with EmbeddedServer(tls=True) as server:
        resp = requests.get(f"{server.url}/api/v1/namespaces/default/services/kubernetes",
                            verify=server.ca_path, timeout=10)
        assert resp.json()["spec"]["ports"][0]["name"] == "https"


def test_system_priority_classes_and_cluster_admin(api: Api) -> None:
    classes = api.get("/apis/scheduling.k8s.io/v1/priorityclasses").json()["items"]
    assert {c["metadata"]["name"]: c["value"] for c in classes} == {
        "system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
    pod = api.post(PODS, dict(POD, spec=dict(POD["spec"],
                                             priorityClassName="system-node-critical")))
    assert pod.json()["spec"]["priority"] == 2000001000
    unknown = api.post(PODS, dict(POD, metadata={"name": "x"}, spec=dict(
        POD["spec"], priorityClassName="nope")))
    assert unknown.status_code == 403 and "no PriorityClass with name nope" in unknown.text
    binding = api.get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin")
    assert binding.json()["subjects"] == [{"kind": "Group", "apiGroup":
                                           "rbac.authorization.k8s.io",
                                           "name": "system:masters"}]


# -- lightkube, when installed (kr8s keeps a runner thread alive: checked by hand) ------------


def test_lightkube_sees_defaults_jobs_and_the_no_runtime_status(server: EmbeddedServer) -> None:
    lightkube = pytest.importorskip("lightkube")
    from lightkube.models.core_v1 import Container, PodSpec
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.batch_v1 import Job
    from lightkube.resources.core_v1 import Pod

    before = set(threading.enumerate())
    client = lightkube.Client(config=lightkube.KubeConfig.from_file(server.kubeconfig_path))
    pod = client.create(Pod(metadata=ObjectMeta(name="lk"), spec=PodSpec(
        containers=[Container(name="c", image="nginx")])), namespace="default")
    assert pod.spec.dnsPolicy == "ClusterFirst" and pod.status.qosClass == "BestEffort"
    assert list(client.list(Job, namespace="default")) == []
    with pytest.raises(lightkube.ApiError, match="no container runtime"):
        list(client.log("lk", namespace="default"))
    client.close()  # its keep-alive connection holds a server connection thread
    assert_no_new_threads(before)

