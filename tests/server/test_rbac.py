"""RBAC: what a ServiceAccount may do, the 403 it gets otherwise, access reviews,
impersonation and the bootstrap roles, compared with a real v1.32 server
(tests/fixtures/realapi_auth)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from kubenb.server.authentication import ADMIN, UserInfo
from kubenb.server.rbac import Rule
from kubenb.server.request_info import Attributes, request_attributes
from tests.server.conftest import Api
from tests.server.realapi_auth import (
    NS,
    RBAC,
    ROBOT,
    World,
    real,
    real_body,
    without_managed_fields,
)
from tests.server.realapi_auth import world as world  # the fixture

AUTHZ = "/apis/authorization.k8s.io/v1"


@pytest.fixture
def robot(world: World) -> Iterator[Api]:
    api = world.as_token(world.token())
    try:
        yield api
    finally:
        api.close()


@pytest.mark.parametrize("name", ["forbidden-list-cluster-403", "forbidden-get-named-403",
                                  "forbidden-create-403", "forbidden-subresource-403",
                                  "forbidden-group-403", "forbidden-path-403",
                                  "forbidden-impersonate-403"])
def test_a_denied_request_gets_the_real_403(world: World, robot: Api, name: str) -> None:
    exchange = real(name)
    request = exchange["request"]
    headers = {k: v for k, v in request["headers"].items() if k != "Authorization"}
    resp = robot.request(request["method"], request["path"], json=request["body"],
                         headers=headers)
    assert resp.status_code == 403
    assert resp.json() == exchange["response"]["body"]


def test_what_view_allows_passes(robot: Api) -> None:
    assert robot.get(f"/api/v1/namespaces/{NS}/pods").status_code == 200
    assert robot.get(f"/api/v1/namespaces/{NS}/pods/worker/log").status_code != 403
    assert robot.get("/apis/apps/v1/namespaces/kubenb-auth/deployments").status_code == 200
    assert robot.get("/api").status_code == 200  # system:discovery, for every user
    assert robot.get("/version").status_code == 200
    assert robot.get(f"/api/v1/namespaces/{NS}/secrets").status_code == 403  # not in view


def test_bindings_take_effect_as_they_change(world: World, robot: Api) -> None:
    cms = "/api/v1/namespaces/default/configmaps"
    assert robot.get(cms).status_code == 403
    role = {"metadata": {"name": "cm-reader"}, "rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"],
         "resourceNames": []}]}
    assert world.admin.post(f"{RBAC}/namespaces/default/roles", role).status_code == 201
    binding = {"metadata": {"name": "robot-reads"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                           "name": "cm-reader"},
               "subjects": [{"kind": "Group", "name": f"system:serviceaccounts:{NS}"}]}
    assert world.admin.post(f"{RBAC}/namespaces/default/rolebindings",
                            binding).status_code == 201
    assert robot.get(cms).status_code == 200
    assert robot.get(cms, params={"watch": "true", "timeoutSeconds": "1"}).status_code == 403
    world.admin.delete(f"{RBAC}/namespaces/default/roles/cm-reader")
    denied = robot.get(cms)
    assert denied.status_code == 403  # the binding names a role that is gone: RBAC says so
    assert denied.json()["message"] == (
        f'configmaps is forbidden: User "{ROBOT}" cannot list resource "configmaps" in API '
        'group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io '
        '"cm-reader" not found')
    world.admin.post(f"{RBAC}/clusterrolebindings", {
        "metadata": {"name": "robot-edits"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "edit"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": NS}]})
    created = robot.post(cms, {"metadata": {"name": "by-robot"}})
    assert created.status_code == 201, created.text
    assert robot.get("/api/v1/nodes").status_code == 403  # edit is namespaced work only


def test_an_aggregated_cluster_role_gathers_the_labelled_roles(world: World,
                                                              robot: Api) -> None:
    world.admin.post(f"{RBAC}/clusterroles", {
        "metadata": {"name": "monitoring"},
        "aggregationRule": {"clusterRoleSelectors": [
            {"matchLabels": {"example.com/aggregate-to-monitoring": "true"}}]},
        "rules": []})
    world.admin.post(f"{RBAC}/clusterrolebindings", {
        "metadata": {"name": "robot-monitors"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "monitoring"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": NS}]})
    assert robot.get("/api/v1/nodes").status_code == 403
    world.admin.post(f"{RBAC}/clusterroles", {
        "metadata": {"name": "node-reader",
                     "labels": {"example.com/aggregate-to-monitoring": "true"}},
        "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}]})
    assert robot.get("/api/v1/nodes").status_code == 200


def test_the_bootstrap_roles_are_the_real_servers(world: World) -> None:
    roles = world.admin.get(f"{RBAC}/clusterroles").json()["items"]
    names = {r["metadata"]["name"] for r in roles}
    assert {"cluster-admin", "admin", "edit", "view", "system:basic-user", "system:discovery",
            "system:public-info-viewer", "system:service-account-issuer-discovery",
            "system:aggregate-to-view"} <= names
    assert not [n for n in names if "openshift" in n]
    captured = {r["metadata"]["name"]: r for r in real("bootstrap-rbac")["clusterroles"]}
    view = next(r for r in roles if r["metadata"]["name"] == "view")
    assert view["rules"] == captured["view"]["rules"]
    assert view["aggregationRule"] == captured["view"]["aggregationRule"]
    bindings = world.admin.get(f"{RBAC}/clusterrolebindings").json()["items"]
    admin = next(b for b in bindings if b["metadata"]["name"] == "cluster-admin")
    assert admin["subjects"] == [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io",
                                  "name": "system:masters"}]


@pytest.mark.parametrize("name", ["sar-allowed-201", "sar-denied-201", "sar-nonresource-201"])
def test_subject_access_reviews_answer_as_the_real_server(world: World, name: str) -> None:
    exchange = real(name)
    resp = world.admin.post(exchange["request"]["path"], exchange["request"]["body"])
    assert resp.status_code == 201
    body, expected = without_managed_fields(resp.json()), real_body(name)
    if name == "sar-nonresource-201":
        # Two bindings allow it; which one a real server names depends on its cache's
        # (map) order, so only the form of the reason is compared.
        reason = body["status"].pop("reason")
        expected["status"].pop("reason")
        assert reason.startswith("RBAC: allowed by ClusterRoleBinding \"system:")
    assert body == expected


@pytest.mark.parametrize("name", ["sar-allowed-201", "tokenreview-garbage-201"])
def test_reviews_record_their_field_manager(world: World, name: str) -> None:
    exchange = real(name)
    resp = world.admin.post(exchange["request"]["path"], exchange["request"]["body"],
                            headers={"User-Agent": "python-requests/2.32"})
    expected = exchange["response"]["body"]["metadata"]["managedFields"]
    got = resp.json()["metadata"]["managedFields"]
    assert [dict(e, time="") for e in got] == [dict(e, time="") for e in expected]


def test_self_subject_reviews_as_the_service_account(robot: Api) -> None:
    exchange = real("ssar-sa-201")
    resp = robot.post(exchange["request"]["path"], exchange["request"]["body"])
    assert without_managed_fields(resp.json()) == real_body("ssar-sa-201")
    rules = robot.post(f"{AUTHZ}/selfsubjectrulesreviews", {"spec": {"namespace": NS}}).json()
    expected = real_body("ssrr-sa-201")
    assert list(rules) == list(expected) and rules["spec"] == expected["spec"]

    def as_set(entries: list[dict[str, list[str]]]) -> set[str]:
        return {repr(sorted((k, tuple(v)) for k, v in e.items())) for e in entries}

    # The capture's server carries OpenShift's system:openshift:public-info-viewer
    # (/.well-known); kubenb's bootstrap roles are upstream's.
    carried = {"verbs": ["get"], "nonResourceURLs": ["/.well-known", "/.well-known/*"]}
    expected["status"]["nonResourceRules"].remove(carried)
    for key in ("resourceRules", "nonResourceRules"):
        assert as_set(rules["status"][key]) == as_set(expected["status"][key]), key



def test_rules_review_of_the_administrator(world: World) -> None:
    mine = world.admin.post(f"{AUTHZ}/selfsubjectrulesreviews",
                            {"spec": {"namespace": NS}}).json()["status"]
    expected = real_body("ssrr-admin-201")["status"]
    assert {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]} in mine["resourceRules"]
    assert sorted(map(repr, mine["resourceRules"])) == sorted(map(repr,
                                                                  expected["resourceRules"]))
    expected["nonResourceRules"].remove({"verbs": ["get"], "nonResourceURLs": [
        "/.well-known", "/.well-known/*"]})  # OpenShift's carry, as above
    assert sorted(map(repr, mine["nonResourceRules"])) == sorted(
        map(repr, expected["nonResourceRules"]))


def test_impersonation_is_allowed_to_those_who_may(world: World, robot: Api) -> None:
    exchange = real("impersonate-sa-whoami-201")
    resp = world.admin.post(exchange["request"]["path"], exchange["request"]["body"],
                            headers=exchange["request"]["headers"])
    assert resp.json()["status"] == exchange["response"]["body"]["status"]
    as_robot = world.admin.get("/api/v1/nodes", headers={"Impersonate-User": ROBOT})
    assert as_robot.status_code == 403 and ROBOT in as_robot.json()["message"]
    groups_only = real("impersonate-group-without-user")
    resp = world.admin.get(groups_only["request"]["path"],
                           headers=groups_only["request"]["headers"])
    assert resp.status_code == 500 and resp.text == groups_only["response"]["body"]
    world.admin.post(f"{RBAC}/clusterroles", {"metadata": {"name": "impersonate-jane"}, "rules": [
        {"apiGroups": [""], "resources": ["users"], "verbs": ["impersonate"],
         "resourceNames": ["jane"]}]})
    world.admin.post(f"{RBAC}/clusterrolebindings", {
        "metadata": {"name": "robot-is-jane"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "impersonate-jane"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": NS}]})
    whoami = robot.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", {},
                        headers={"Impersonate-User": "jane"}).json()
    assert whoami["status"]["userInfo"] == {"username": "jane",
                                            "groups": ["system:authenticated"]}
    group = robot.get("/version", headers={"Impersonate-User": "jane",
                                           "Impersonate-Group": "admins"})
    assert group.status_code == 403
    assert group.json()["message"].startswith('groups "admins" is forbidden')


def test_rules_match_as_rbac_does() -> None:
    logs = Attributes("get", True, "", "v1", "pods", "log", "ns", "p")
    assert Rule(("get",), ("",), ("pods/log",)).allows(logs)
    assert Rule(("get",), ("",), ("*/log",)).allows(logs)
    assert not Rule(("get",), ("",), ("pods",)).allows(logs)
    assert Rule(("*",), ("*",), ("*",)).allows(logs)
    assert not Rule(("get",), ("",), ("pods/log",), ("q",)).allows(logs)
    path = Attributes("get", False, path="/apis/apps/v1")
    assert Rule(("get",), non_resource_urls=("/apis/*",)).allows(path)
    assert not Rule(("get",), non_resource_urls=("/api",)).allows(path)
    assert ADMIN.privileged and not UserInfo("jane", groups=("devs",)).privileged


@pytest.mark.parametrize(("method", "path", "params", "expected"), [
    ("GET", "/api/v1/namespaces/ns/pods", {}, ("list", "", "pods", "", "ns", "")),
    ("GET", "/api/v1/namespaces/ns/pods", {"watch": "true"}, ("watch", "", "pods", "", "ns",
                                                               "")),
    ("GET", "/api/v1/watch/namespaces/ns/pods", {}, ("watch", "", "pods", "", "ns", "")),
    ("DELETE", "/apis/apps/v1/namespaces/ns/deployments", {},
     ("deletecollection", "apps", "deployments", "", "ns", "")),
    ("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/scale", {},
     ("patch", "apps", "deployments", "scale", "ns", "d")),
    ("GET", "/api/v1/namespaces/team", {}, ("get", "", "namespaces", "", "team", "team")),
    ("PUT", "/api/v1/namespaces/team/finalize", {},
     ("update", "", "namespaces", "finalize", "team", "team")),
    ("POST", "/api/v1/nodes", {}, ("create", "", "nodes", "", "", "")),
])
def test_request_attributes_as_the_apiserver_reads_them(
        method: str, path: str, params: dict[str, str],
        expected: tuple[str, str, str, str, str, str]) -> None:
    attrs = request_attributes(method, path, params)
    assert attrs.resource_request
    assert (attrs.verb, attrs.api_group, attrs.resource, attrs.subresource, attrs.namespace,
            attrs.name) == expected
    assert not request_attributes("GET", "/apis/apps/v1", {}).resource_request
    assert request_attributes("GET", "/version", {}).verb == "get"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_auth_can_i_as_a_service_account(world: World) -> None:
    def can_i(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["kubectl", "--kubeconfig", world.server.kubeconfig_path, "auth",
                               "can-i", *args, f"--as={ROBOT}", "-n", NS],
                              capture_output=True, text=True, timeout=60)

    assert can_i("list", "pods").stdout.strip() == "yes"
    denied = can_i("delete", "pods")
    assert denied.returncode == 1 and denied.stdout.strip() == "no"
    listed = can_i("--list").stdout
    assert "selfsubjectaccessreviews.authorization.k8s.io" in listed
    assert "pods " in listed and "[get list watch]" in listed
    assert "secrets" not in listed
