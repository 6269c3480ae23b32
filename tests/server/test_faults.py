"""The fault switches, each observed by a real client over real HTTP."""

from __future__ import annotations

import base64
import json
import random
import threading
from collections.abc import Iterator

import kubernetes
import pytest
import requests

from kubenb.errors import KubenbError
from kubenb.server import EmbeddedServer
from kubenb.server.faults import FaultConfigError, request_info
from tests.helpers import wait_until
from tests.server.conftest import REALAPI, Api, fixture_body

CM = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def kube(server: EmbeddedServer) -> Iterator[kubernetes.client.CoreV1Api]:
    """The official client, configured from the server's kubeconfig."""
    client = kubernetes.config.new_client_from_config(config_file=server.kubeconfig_path)
    try:
        yield kubernetes.client.CoreV1Api(client)
    finally:
        client.close()


def _decode_token(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


# -- fail() ------------------------------------------------------------------------------


def test_w5_fail_429_has_retry_after_header_and_status_details(server: EmbeddedServer,
                                                            api: Api) -> None:
    server.faults.fail(verb="list", code=429, retry_after=3)
    resp = api.get(CM)
    assert resp.status_code == 429
    assert resp.headers["Retry-After"] == "3"
    assert resp.headers["Content-Type"] == "application/json"
    body = resp.json()
    assert list(body) == ["kind", "apiVersion", "metadata", "status", "message", "reason",
                          "details", "code"]
    assert body["reason"] == "TooManyRequests" and body["code"] == 429
    assert body["status"] == "Failure"
    assert body["details"] == {"retryAfterSeconds": 3}
    api.create_cm("still-works")  # other verbs are untouched
    assert api.get(f"{CM}/still-works").status_code == 200


def test_fail_429_seen_by_the_official_client(server: EmbeddedServer) -> None:
    config = kubernetes.client.Configuration()
    kubernetes.config.load_kube_config(config_file=server.kubeconfig_path,
                                       client_configuration=config)
    config.retries = False  # urllib3 would otherwise honour Retry-After and try again
    with kubernetes.client.ApiClient(config) as client:
        kube = kubernetes.client.CoreV1Api(client)
        server.faults.fail(verb="list", code=429, retry_after=2, resource="configmaps")
        with pytest.raises(kubernetes.client.ApiException) as caught:
            kube.list_namespaced_config_map("default")
        assert caught.value.status == 429
        assert caught.value.headers["Retry-After"] == "2"
        assert json.loads(caught.value.body)["details"]["retryAfterSeconds"] == 2
        assert kube.list_namespace().items  # another resource: not failed


def test_official_client_retries_after_a_429_and_succeeds(
        server: EmbeddedServer, kube: kubernetes.client.CoreV1Api) -> None:
    """urllib3 reads the Retry-After the server sent, retries, and the call succeeds."""
    rule = server.faults.fail(verb="list", code=429, retry_after=1, count=1)
    assert kube.list_namespaced_config_map("default").items == []
    assert rule.injected == 1 and server.faults.stats()["failed_429"] == 1


def test_w5_fail_500_is_an_internal_error_status(server: EmbeddedServer, api: Api) -> None:
    server.faults.fail(verb="create", code=500)
    resp = api.post(CM, {"metadata": {"name": "x"}})
    assert resp.status_code == 500
    body = resp.json()
    assert body["reason"] == "InternalError" and body["code"] == 500
    assert body["message"].startswith("Internal error occurred: ")
    assert body["details"]["causes"][0]["message"] in body["message"]
    assert "Retry-After" not in resp.headers
    assert api.get(f"{CM}/x").status_code == 404  # the create really did not happen


def test_discovery_health_and_version_are_never_failed(server: EmbeddedServer,
                                                       api: Api) -> None:
    server.faults.fail(code=500)  # every verb, every resource
    server.faults.latency(30)
    for path in ("/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version",
                 "/healthz", "/readyz", "/livez", "/openapi/v3"):
        assert api.get(path).status_code == 200, path
    assert server.faults.stats()["delayed"] == 0
    server.faults.latency(0)
    assert api.get(CM).status_code == 500
    assert server.faults.stats()["failed"] == 1


def _watch_status(api: Api) -> int:
    with api.get(CM, params={"watch": "true"}, stream=True) as resp:
        return resp.status_code


def test_fail_every_verb_is_derived_like_the_handler(server: EmbeddedServer, api: Api) -> None:
    calls = {
        "get": lambda: api.get(f"{CM}/a"),
        "list": lambda: api.get(CM),
        "watch": lambda: _watch_status(api),
        "create": lambda: api.post(CM, {"metadata": {"name": "b"}}),
        "update": lambda: api.put(f"{CM}/a", {"metadata": {"name": "a"}}),
        "patch": lambda: api.patch(f"{CM}/a", {"data": {"k": "v"}}),
        "delete": lambda: api.delete(f"{CM}/a"),
        "deletecollection": lambda: api.delete(CM),
    }
    for verb in calls:
        server.faults.clear()
        if api.get(f"{CM}/a").status_code == 404:
            api.create_cm("a")
        api.delete(f"{CM}/b")
        server.faults.fail(verb=verb, code=429)
        for other, call in calls.items():
            result = call()
            status = result if isinstance(result, int) else result.status_code
            assert (status == 429) == (other == verb), (verb, other, status)
    assert server.faults.stats()["failed_by_verb"] == {v: 1 for v in calls}


def test_request_info_matches_the_apiserver_verbs() -> None:
    cases = [
        ("GET", "/api/v1/namespaces/ns/pods", {}, ("list", "pods", "", "ns")),
        ("GET", "/api/v1/namespaces/ns/pods", {"watch": "true"}, ("watch", "pods", "", "ns")),
        ("GET", "/api/v1/pods", {"watch": "1"}, ("watch", "pods", "", None)),
        ("GET", "/api/v1/namespaces/ns/pods/p/status", {}, ("get", "pods", "status", "ns")),
        ("GET", "/api/v1/namespaces/ns", {}, ("get", "namespaces", "", None)),
        ("PUT", "/api/v1/namespaces/ns/status", {}, ("update", "namespaces", "status", None)),
        ("POST", "/apis/apps/v1/namespaces/ns/deployments", {}, ("create", "deployments", "",
                                                                 "ns")),
        ("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/scale", {},
         ("patch", "deployments", "scale", "ns")),
        ("DELETE", "/api/v1/nodes/n1", {}, ("delete", "nodes", "", None)),
        ("DELETE", "/api/v1/namespaces/ns/configmaps", {}, ("deletecollection", "configmaps",
                                                            "", "ns")),
    ]
    for method, path, params, (verb, resource, sub, ns) in cases:
        info = request_info(method, path, params)
        assert info is not None, path
        assert (info.verb, info.resource, info.subresource, info.namespace) == (
            verb, resource, sub, ns), (method, path)
    for path in ("/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version",
                 "/healthz", "/openapi/v3/api/v1", "/metrics"):
        assert request_info("GET", path, {}) is None, path


def test_fail_fraction_is_repeatable_from_the_seed(server: EmbeddedServer, api: Api) -> None:
    rule = server.faults.fail(verb="list", fraction=0.3, code=500, seed=7)
    seen = [api.get(CM).status_code == 500 for _ in range(40)]
    rng = random.Random(7)
    assert seen == [rng.random() < 0.3 for _ in range(40)]
    assert 0 < sum(seen) < 40
    assert rule.injected == sum(seen) == server.faults.stats()["failed_500"]


def test_fail_count_and_resource_filters(server: EmbeddedServer, api: Api) -> None:
    server.faults.fail(verb="create", count=2, resource="configmaps")
    server.faults.fail(verb="list", resource="deployments.apps", code=429)
    statuses = [api.post(CM, {"metadata": {"name": f"c{i}"}}).status_code for i in range(3)]
    assert statuses == [500, 500, 201]
    assert api.post(PODS, {"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "image": "i"}]}}).status_code == 201
    assert api.get("/apis/apps/v1/namespaces/default/deployments").status_code == 429
    assert api.get("/apis/apps/v1/namespaces/default/replicasets").status_code == 200
    server.faults.fail(verb="update", resource="pods/status")
    pod = api.get(f"{PODS}/p").json()
    assert api.put(f"{PODS}/p/status", pod).status_code == 500
    assert api.put(f"{PODS}/p", pod).status_code == 200
    assert len(server.faults.rules()) == 3
    server.faults.clear()
    assert server.faults.rules() == []
    assert api.get("/apis/apps/v1/namespaces/default/deployments").status_code == 200


def test_fail_watch_answers_before_the_stream_starts(server: EmbeddedServer, api: Api) -> None:
    server.faults.fail(verb="watch", code=429, retry_after=1, count=1)
    first = api.get(CM, params={"watch": "true", "timeoutSeconds": "1"})
    assert first.status_code == 429 and first.json()["reason"] == "TooManyRequests"
    assert _watch_status(api) == 200


def test_token_auth_comes_before_faults() -> None:
    with EmbeddedServer(token="t") as srv:
        srv.faults.fail(code=500)
        assert requests.get(srv.url + CM, timeout=5).status_code == 401
        assert requests.get(srv.url + CM, headers={"Authorization": "Bearer t"},
                            timeout=5).status_code == 500


def test_bad_switch_arguments_raise_clear_errors(server: EmbeddedServer) -> None:
    with pytest.raises(FaultConfigError, match="verb must be one of"):
        server.faults.fail(verb="lsit")
    with pytest.raises(FaultConfigError, match="fraction"):
        server.faults.fail(fraction=1.5)
    with pytest.raises(FaultConfigError, match="500, 429 or 403"):
        server.faults.fail(code=503)
    with pytest.raises(KubenbError, match="seconds"):
        server.faults.latency(-1)
    with pytest.raises(FaultConfigError, match="verb"):
        server.faults.latency(1, verb="nope")


def test_concurrent_requests_count_every_injected_failure(server: EmbeddedServer) -> None:
    server.faults.fail(verb="get", fraction=0.5, seed=1)
    codes: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        with requests.Session() as session:
            for _ in range(20):
                code = session.get(server.url + "/api/v1/namespaces/default",
                                   timeout=10).status_code
                with lock:
                    codes.append(code)

    threads = [threading.Thread(target=worker, name=f"test-worker-{i}") for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(codes) == 80 and set(codes) <= {200, 500}
    assert codes.count(500) == server.faults.stats()["failed"] > 0


# -- latency ------------------------------------------------------------------------------


def test_latency_delays_only_the_chosen_verb(server: EmbeddedServer, api: Api) -> None:
    """A GET held by a 60 s latency stays held while a LIST answers at once; switching the
    latency off lets later GETs through undelayed (no clock read: the held request is the
    proof)."""
    api.create_cm("a")
    server.faults.latency(60, verb="get")
    held: list[int] = []
    caller = threading.Thread(
        target=lambda: held.append(api.get(f"{CM}/a", timeout=90).status_code),
        name="test-delayed-caller")
    caller.start()
    wait_until(lambda: server.faults.stats()["delayed"] == 1, what="the GET to be delayed")
    assert api.get(CM).status_code == 200  # a list: not delayed
    assert caller.is_alive() and held == []
    stats = server.faults.stats()
    assert stats["delayed"] == 1 and stats["delay_seconds"] == pytest.approx(60)
    server.faults.latency(0, verb="get")
    assert api.get(f"{CM}/a").status_code == 200  # a new GET: not delayed
    server.faults.release()
    caller.join(10)
    assert held == [200] and server.faults.stats()["delayed"] == 1


def test_latency_for_all_verbs_and_clear_wakes_delayed_requests(server: EmbeddedServer,
                                                                api: Api) -> None:
    server.faults.latency(60)
    result: list[int] = []
    caller = threading.Thread(target=lambda: result.append(api.get(CM, timeout=90).status_code),
                              name="test-delayed-caller")
    caller.start()
    wait_until(lambda: server.faults.stats()["delayed"] == 1, what="the request to be delayed")
    server.faults.clear()
    caller.join(10)
    assert result == [200]


def test_stop_wakes_requests_sleeping_in_latency() -> None:
    srv = EmbeddedServer().start()
    srv.faults.latency(60)
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(requests.get(srv.url + CM, timeout=90).status_code)
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as err:
            # the stopping server may close it unanswered, or cut the body short (CI saw
            # the headers of the woken answer go out and then the connection close)
            outcome.append(err)

    caller = threading.Thread(target=call, name="test-delayed-caller")
    caller.start()
    wait_until(lambda: srv.faults.stats()["delayed"] == 1, what="the request to be delayed")
    srv.stop()
    caller.join(30)  # the latency is 60 s: only stop() can have woken it this soon
    assert not caller.is_alive() and len(outcome) == 1


# -- drop watches, compact ----------------------------------------------------------------


def test_drop_watches_ends_the_stream(server: EmbeddedServer, api: Api) -> None:
    with api.get(CM, params={"watch": "true"}, stream=True) as watch:
        assert watch.status_code == 200
        wait_until(lambda: server.storage.watch_count == 1, what="the watch to open")
        assert server.faults.drop_watches() == 1
        assert list(watch.iter_lines()) == []  # the server ended the response
    assert server.faults.stats()["watches_dropped"] == 1
    assert server.drop_watches() == 0  # the old name still works


def test_w4_compact_makes_a_resume_get_an_error_410_event(server: EmbeddedServer,
                                                       api: Api) -> None:
    rv = api.create_cm("a")["metadata"]["resourceVersion"]
    api.patch(f"{CM}/a", {"data": {"k": "v"}})
    compacted = server.faults.compact()
    with api.get(CM, params={"watch": "true", "resourceVersion": rv}, stream=True) as watch:
        events = [json.loads(line) for line in watch.iter_lines() if line]
    real = json.loads((REALAPI / "watch/too-old-resourceversion-410.jsonl").read_text())
    assert [e["type"] for e in events] == ["ERROR"]
    status = events[0]["object"]
    assert list(status) == list(real["object"])
    assert status["code"] == 410 and status["reason"] == "Expired"
    assert status["message"] == f"too old resource version: {rv} ({compacted})"
    exact = api.get(CM, params={"resourceVersion": rv, "resourceVersionMatch": "Exact"})
    assert exact.status_code == 410
    assert exact.json() == fixture_body("errors/list-exact-resourceversion-compacted-410.json")
    assert server.faults.stats()["compactions"] == 1


def test_compact_seen_by_the_official_client_watch(server: EmbeddedServer, api: Api,
                                                   kube: kubernetes.client.CoreV1Api) -> None:
    rv = api.create_cm("a")["metadata"]["resourceVersion"]
    api.create_cm("b")
    server.compact()
    stream = kubernetes.watch.Watch().stream(kube.list_namespaced_config_map, "default",
                                             resource_version=rv, timeout_seconds=2)
    with pytest.raises(kubernetes.client.ApiException) as caught:
        list(stream)
    assert caught.value.status == 410


# -- expire continue tokens -----------------------------------------------------------------


def test_w6_expired_continue_token_gets_410_like_the_real_server(server: EmbeddedServer,
                                                              api: Api) -> None:
    for name in ("cm-1", "cm-2", "cm-3"):
        api.create_cm(name)
    page = api.get(CM, params={"limit": "1"}).json()
    token = page["metadata"]["continue"]
    server.faults.expire_continue_tokens()
    resp = api.get(CM, params={"limit": "1", "continue": token})
    real = fixture_body("lists/continue-expired-410.json")
    assert resp.status_code == 410
    body = resp.json()
    assert list(body) == list(real)
    assert {k: body[k] for k in ("status", "message", "reason", "code")} == {
        k: real[k] for k in ("status", "message", "reason", "code")}
    fresh = _decode_token(body["metadata"]["continue"])
    assert fresh["rv"] == -1 and fresh["start"] == _decode_token(token)["start"]
    rest = api.get(CM, params={"continue": body["metadata"]["continue"]})  # inconsistent go-on
    assert rest.status_code == 200
    assert [c["metadata"]["name"] for c in rest.json()["items"]] == ["cm-2", "cm-3"]
    assert server.faults.stats()["continue_expired"] == 1


def test_tokens_issued_after_the_expiry_work(server: EmbeddedServer, api: Api) -> None:
    for name in ("a", "b"):
        api.create_cm(name)
    server.faults.expire_continue_tokens()  # no write follows: the RV still moves on
    page = api.get(CM, params={"limit": "1"}).json()
    nxt = api.get(CM, params={"limit": "1", "continue": page["metadata"]["continue"]})
    assert nxt.status_code == 200
    assert [c["metadata"]["name"] for c in nxt.json()["items"]] == ["b"]
    assert api.get(CM, params={"continue": "garbage"}).status_code == 400  # registry answers


def test_expired_continue_seen_by_the_official_client(server: EmbeddedServer, api: Api,
                                                      kube: kubernetes.client.CoreV1Api
                                                      ) -> None:
    for name in ("a", "b"):
        api.create_cm(name)
    token = kube.list_namespaced_config_map("default", limit=1).metadata._continue
    server.faults.expire_continue_tokens()
    with pytest.raises(kubernetes.client.ApiException) as caught:
        kube.list_namespaced_config_map("default", limit=1, _continue=token)
    assert caught.value.status == 410
    assert json.loads(caught.value.body)["reason"] == "Expired"


def test_a_403_fault_is_worded_as_rbac_words_a_denial() -> None:
    """The real server's 403 (fixture errors/impersonated-user-forbidden-403), for the user
    the rule names, the verb and the scope of each request."""
    with EmbeddedServer() as server:
        api = Api(server.url)
        rule = server.faults.fail(verb="list", code=403, resource="pods", user="jane")
        response = api.get("/api/v1/namespaces/kubenb-fixtures/pods")
        assert response.status_code == 403
        assert response.json() == fixture_body("errors/impersonated-user-forbidden-403.json")
        cluster_wide = api.get("/api/v1/pods").json()
        assert cluster_wide["message"] == ('pods is forbidden: User "jane" cannot list '
                                           'resource "pods" in API group "" at the '
                                           'cluster scope')
        assert api.get("/api/v1/namespaces/default/configmaps").status_code == 200
        assert rule.injected == 2 and server.faults.stats()["failed_403"] == 2
