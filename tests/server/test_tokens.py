"""ServiceAccount tokens: TokenRequest, the JWT's claims, TokenReview, and bearer
authentication with them, compared with a real v1.32 server (tests/fixtures/realapi_auth);
expiry is stepped with a FakeClock."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from typing import Any

import kubernetes
import pytest
import requests

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api
from tests.server.realapi_auth import NS, ROBOT, SA_PATH, TOKEN_PATH, World, real, real_body
from tests.server.realapi_auth import world as world  # the fixture

REVIEW = "/apis/authentication.k8s.io/v1/tokenreviews"


def _decode(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    def part(text: str) -> dict[str, Any]:
        return dict(json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))))

    header, claims, _ = token.split(".")
    return part(header), part(claims)


def test_token_request_answers_as_the_real_server(world: World) -> None:
    resp = world.admin.post(TOKEN_PATH, real("tokenrequest-201")["request"]["body"])
    expected = real_body("tokenrequest-201")
    body = resp.json()
    assert resp.status_code == 201
    assert list(body) == list(expected)
    assert list(body["metadata"]) == list(real("tokenrequest-201")["response"]["body"][
        "metadata"])  # name, namespace, creationTimestamp, managedFields
    assert body["spec"] == expected["spec"]  # audiences and expiry defaulted, no bound object
    assert list(body["status"]) == ["token", "expirationTimestamp"]
    header, claims = _decode(body["status"]["token"])
    real_token = real("token-claims")
    assert list(header) == list(real_token["header"]) and header["alg"] == "RS256"
    assert list(claims) == list(real_token["claims"])
    assert list(claims["kubernetes.io"]) == list(real_token["claims"]["kubernetes.io"])
    assert claims["sub"] == ROBOT and claims["iss"] == real_token["claims"]["iss"]
    assert claims["exp"] - claims["iat"] == 3600 and claims["nbf"] == claims["iat"]
    sa = world.admin.get(f"{SA_PATH}/robot").json()
    assert claims["kubernetes.io"]["serviceaccount"] == {"name": "robot",
                                                         "uid": sa["metadata"]["uid"]}


def test_a_pod_bound_token_names_the_pod_and_its_node(world: World) -> None:
    exchange = real("tokenrequest-pod-bound-201")
    resp = world.admin.post(TOKEN_PATH, exchange["request"]["body"])
    assert resp.status_code == 201, resp.text
    assert resp.json()["spec"] == exchange["response"]["body"]["spec"]
    _, claims = _decode(resp.json()["status"]["token"])
    pod = world.admin.get(f"/api/v1/namespaces/{NS}/pods/worker").json()
    assert claims["aud"] == ["vault"] and claims["exp"] - claims["iat"] == 7200
    assert claims["kubernetes.io"]["pod"] == {"name": "worker", "uid": pod["metadata"]["uid"]}
    assert claims["kubernetes.io"]["node"] == {"name": "node-1"}  # no such Node: no uid
    review = world.admin.post(REVIEW, {"spec": {"token": resp.json()["status"]["token"],
                                                "audiences": ["vault"]}}).json()["status"]
    expected = real_body("tokenreview-pod-bound-201")["status"]
    assert list(review) == list(expected)
    assert list(review["user"]["extra"]) == list(expected["user"]["extra"])
    assert review["user"]["extra"]["authentication.kubernetes.io/pod-uid"] == [
        pod["metadata"]["uid"]]


@pytest.mark.parametrize("name", ["tokenrequest-too-short-422", "tokenrequest-missing-pod-404",
                                  "tokenrequest-pod-uid-mismatch-409",
                                  "tokenrequest-bad-kind-400", "tokenrequest-missing-sa-404"])
def test_bad_token_requests_get_the_real_errors(world: World, name: str) -> None:
    exchange = real(name)
    resp = world.admin.post(exchange["request"]["path"], exchange["request"]["body"])
    assert resp.status_code == exchange["response"]["status"]
    assert resp.json() == exchange["response"]["body"]


def test_a_pod_of_another_service_account_cannot_hold_its_token(world: World) -> None:
    world.admin.post(f"/api/v1/namespaces/{NS}/pods", {"metadata": {"name": "other"}, "spec": {
        "containers": [{"name": "c", "image": "busybox"}]}})
    resp = world.admin.post(TOKEN_PATH, {"spec": {"boundObjectRef": {
        "kind": "Pod", "apiVersion": "v1", "name": "other"}}})
    assert resp.status_code == 400
    assert resp.json()["message"] == ('cannot bind token for serviceaccount "robot" to pod '
                                      "running with different serviceaccount name.")


@pytest.mark.parametrize("name", ["tokenreview-valid-201", "tokenreview-wrong-audience-201",
                                  "tokenreview-garbage-201"])
def test_token_reviews_answer_as_the_real_server(world: World, name: str) -> None:
    exchange = real(name)
    spec = dict(exchange["request"]["body"]["spec"])
    if spec["token"] == "<redacted>":
        bound = name != "tokenreview-valid-201"
        spec["token"] = world.token({"audiences": ["vault"], "expirationSeconds": 7200,
                                     "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                                        "name": "worker"}} if bound else None)
    status = world.admin.post(REVIEW, {"spec": spec}).json()["status"]
    expected = exchange["response"]["body"]["status"]
    assert list(status) == list(expected)
    if "error" in expected:
        assert status["error"] == expected["error"]
    else:
        assert status["user"]["username"] == ROBOT
        assert status["user"]["groups"] == expected["user"]["groups"]
        assert status["audiences"] == expected["audiences"]


def test_a_token_dies_with_its_pod_and_its_service_account(world: World) -> None:
    bound = world.token({"audiences": ["vault"], "boundObjectRef": {
        "kind": "Pod", "apiVersion": "v1", "name": "worker"}})
    plain = world.token()
    robot = world.as_token(plain)
    try:
        assert robot.get(f"/api/v1/namespaces/{NS}/pods").status_code == 200
        world.admin.delete(f"/api/v1/namespaces/{NS}/pods/worker?gracePeriodSeconds=0")
        review = world.admin.post(REVIEW, {"spec": {"token": bound, "audiences": ["vault"]}})
        assert review.json()["status"] == real_body("tokenreview-pod-deleted-201")["status"]
        assert robot.get(f"/api/v1/namespaces/{NS}/pods").status_code == 200  # not bound
        world.admin.delete(f"{SA_PATH}/robot")
        review = world.admin.post(REVIEW, {"spec": {"token": plain}})
        assert review.json()["status"] == real_body("tokenreview-sa-deleted-201")["status"]
        gone = robot.get(f"/api/v1/namespaces/{NS}/pods")
        assert gone.status_code == 401 and gone.json() == real_body("deleted-sa-token-401")
        world.admin.post(SA_PATH, {"metadata": {"name": "robot"}})  # same name, new uid
        again = world.admin.post(REVIEW, {"spec": {"token": plain}}).json()["status"]
        assert again["error"].startswith("[invalid bearer token, service account UID (")
    finally:
        robot.close()


def test_tokens_expire_on_the_servers_clock(world: World) -> None:
    token = world.token({"expirationSeconds": 600})
    robot = world.as_token(token)
    try:
        assert robot.get(f"/api/v1/namespaces/{NS}/configmaps").status_code == 200
        world.clock.step(599)
        assert robot.get(f"/api/v1/namespaces/{NS}/configmaps").status_code == 200
        world.clock.step(2)
        assert robot.get(f"/api/v1/namespaces/{NS}/configmaps").status_code == 401
        status = world.admin.post(REVIEW, {"spec": {"token": token}}).json()["status"]
        assert status["error"] == "[invalid bearer token, service account token has expired]"
    finally:
        robot.close()


def test_a_forged_or_foreign_token_is_a_401(world: World) -> None:
    token = world.token()
    head, body, sig = token.split(".")
    claims = _decode(token)[1]
    claims["sub"] = "system:serviceaccount:kube-system:admin"
    forged = ".".join([head, base64.urlsafe_b64encode(json.dumps(claims).encode())
                       .rstrip(b"=").decode(), sig])
    unsigned = ".".join([base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode(),
                         body, ""])
    with EmbeddedServer() as other:
        foreign = Api(other.url)
        try:
            foreign.post("/api/v1/namespaces", {"metadata": {"name": NS}})
            foreign.post(SA_PATH, {"metadata": {"name": "robot"}})
            stranger = foreign.post(TOKEN_PATH, {"spec": {}}).json()["status"]["token"]
        finally:
            foreign.close()
    for bad in (forged, unsigned, stranger, token[:-4]):
        api = world.as_token(bad)
        try:
            resp = api.get(f"/api/v1/namespaces/{NS}/pods")
            assert resp.status_code == 401 and bad not in resp.text
        finally:
            api.close()


def test_whoami_with_a_token_is_the_service_account(world: World) -> None:
    robot = world.as_token(world.token())
    try:
        review = robot.post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                            {"kind": "SelfSubjectReview",
                             "apiVersion": "authentication.k8s.io/v1"}).json()
        expected = real_body("selfsubjectreview-sa-201")
        assert list(review) == list(expected)
        info = review["status"]["userInfo"]
        assert list(info) == list(expected["status"]["userInfo"])
        assert info["username"] == ROBOT and info["extra"][
            "authentication.kubernetes.io/credential-id"][0].startswith("JTI=")
    finally:
        robot.close()


def test_the_official_client_uses_a_token_and_the_jwks_verifies_it(world: World) -> None:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    token = world.token()
    config = kubernetes.client.Configuration()
    config.host = world.server.url
    config.api_key = {"authorization": f"Bearer {token}"}
    with kubernetes.client.ApiClient(config) as client:
        core = kubernetes.client.CoreV1Api(client)
        assert core.list_namespaced_pod(NS).items[0].metadata.name == "worker"
        with pytest.raises(kubernetes.client.ApiException) as denied:
            core.list_node()
        assert denied.value.status == 403
    discovery = requests.get(world.server.url + "/.well-known/openid-configuration",
                             timeout=10).json()
    assert discovery["issuer"] == "https://kubernetes.default.svc.cluster.local"
    keys = requests.get(world.server.url + "/openid/v1/jwks", timeout=10).json()["keys"]
    head, body, sig = token.split(".")
    jwk = next(k for k in keys if k["kid"] == _decode(token)[0]["kid"])

    def number(text: str) -> int:
        return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")

    public = rsa.RSAPublicNumbers(number(jwk["e"]), number(jwk["n"])).public_key()
    public.verify(base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4)),
                  f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_create_token_and_use_it(world: World) -> None:
    kubeconfig = world.server.kubeconfig_path
    made = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "create", "token", "robot",
                           "-n", NS], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert _decode(token)[1]["sub"] == ROBOT
    robot = Api(world.server.url, token=token)
    try:
        assert robot.get(f"/api/v1/namespaces/{NS}/pods").status_code == 200
    finally:
        robot.close()
