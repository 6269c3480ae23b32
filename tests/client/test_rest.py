"""RESTClient over real HTTP: Status errors, retries with Retry-After, User-Agent, errors
that name the request and the server, and a password in the server URL that no repr or
message shows."""

from __future__ import annotations

import base64
import socket

import pytest
import requests

from kubenb.client.config import Config, config_from_dict
from kubenb.client.discovery import DiscoveryClient, RESTMapper
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.rest import RESTClient, describe_request
from kubenb.client.typed import Clientset
from kubenb.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Invalid,
    KubenbError,
    NotFound,
    ServerConnectionError,
    ServerError,
    TooManyRequests,
    api_error_from_status,
    is_too_large_resource_version,
)
from kubenb.server import EmbeddedServer
from tests.client.conftest import SleepRecordingClock, configmap, kubeconfig_doc, rest_for
from tests.client.rawserver import Answer, answering_server, json_answer


def test_user_agent_and_json(rest: RESTClient) -> None:
    resp = rest.request("GET", "/version")
    assert resp.request.headers["User-Agent"].startswith("kubenb/")
    assert rest.get("/version")["major"] == "1"


def test_status_errors_become_api_error_subclasses(configmaps: ResourceClient) -> None:
    with pytest.raises(NotFound) as missing:
        configmaps.get("nope")
    assert (missing.value.status, missing.value.reason) == (404, "NotFound")
    assert missing.value.message == 'configmaps "nope" not found'
    assert missing.value.body["kind"] == "Status"

    created = configmaps.create(configmap("twice"))
    with pytest.raises(AlreadyExists) as exists:
        configmaps.create(configmap("twice"))
    assert exists.value.status == 409 and exists.value.reason == "AlreadyExists"

    configmaps.patch("twice", {"data": {"a": "b"}})
    with pytest.raises(Conflict) as stale:
        configmaps.update(created)  # carries the old resourceVersion
    assert not isinstance(stale.value, AlreadyExists) and stale.value.reason == "Conflict"

    with pytest.raises(Invalid) as invalid:
        configmaps.create(configmap("Not_A_Name"))
    assert invalid.value.status == 422 and "Not_A_Name" in invalid.value.message

    with pytest.raises(BadRequest) as bad:
        configmaps.list(label_selector="a in (")
    assert bad.value.status == 400


def test_a_path_outside_the_api_keeps_the_text(rest: RESTClient) -> None:
    with pytest.raises(NotFound) as info:
        rest.get("/no/such/path")
    assert info.value.status == 404 and info.value.message


def test_error_mapping_for_codes_without_a_status() -> None:
    assert isinstance(api_error_from_status(503, None, "busy"), ServerError)
    assert isinstance(api_error_from_status(429, None, ""), TooManyRequests)
    err = api_error_from_status(418, None, "teapot")
    assert type(err) is ApiError and err.status == 418 and err.message == "teapot"
    too_large = api_error_from_status(504, {
        "kind": "Status", "apiVersion": "v1", "code": 504, "reason": "Timeout",
        "message": "Too large resource version: 10, current: 5",
        "details": {"causes": [{"type": "ResourceVersionTooLarge"}]}})
    assert is_too_large_resource_version(too_large)
    assert not is_too_large_resource_version(api_error_from_status(504, None, "slow"))


def test_429_with_retry_after_is_retried_for_reads(server: EmbeddedServer,
                                                   config: object) -> None:
    clock = SleepRecordingClock()
    rest = RESTClient(config, clock=clock, max_retries=5)
    try:
        server.faults.fail(verb="list", fraction=1.0, code=429, retry_after=2, count=2)
        listed = rest.get("/api/v1/namespaces/default/configmaps")
        assert listed["kind"] == "ConfigMapList"
        assert clock.slept == [2.0, 2.0]  # the server's Retry-After, twice
    finally:
        server.faults.clear()
        rest.close()


def test_5xx_retries_are_bounded_and_writes_are_not_retried(server: EmbeddedServer,
                                                            config: object) -> None:
    clock = SleepRecordingClock()
    rest = RESTClient(config, clock=clock, max_retries=2)
    try:
        server.faults.fail(verb="get", fraction=1.0, code=500)
        with pytest.raises(ServerError) as info:
            rest.get("/api/v1/namespaces/default")
        assert info.value.status == 500
        assert len(clock.slept) == 2  # bounded: two retries, then the error
        server.faults.clear()
        server.faults.fail(verb="create", fraction=1.0, code=500)
        clock.slept.clear()
        with pytest.raises(ServerError):
            rest.post("/api/v1/namespaces/default/configmaps", configmap("w"))
        assert clock.slept == []  # a POST that may have happened is never repeated
    finally:
        server.faults.clear()
        rest.close()


def test_patch_type_is_checked(rest: RESTClient) -> None:
    with pytest.raises(ValueError, match="unknown patch type"):
        rest.patch("/api/v1/namespaces/default/configmaps/x", {}, "yaml")


# -- a password in the server URL ------------------------------------------------------------------

SECRET = "s3cr3t-pw"


def _clean(*texts: object) -> None:
    for text in texts:
        assert SECRET not in str(text), text
        assert SECRET not in repr(text), text


def test_password_in_the_server_url_is_in_no_repr(server: EmbeddedServer,
                                                  threads_checked: None) -> None:
    url = server.url.replace("http://", f"http://admin:{SECRET}@")
    config = config_from_dict(kubeconfig_doc(url))
    assert config.server == server.url  # the password became basic auth, not address
    rest = RESTClient(config)
    try:
        discovery = DiscoveryClient(rest)
        mapper = RESTMapper(discovery)
        dynamic = DynamicClient(rest)
        clientset = Clientset(rest, discovery=discovery)
        assert rest.get("/version")["major"] == "1"  # and it still works
        assert mapper.resource_for("cm").resource == "configmaps"
        cms = dynamic.resource("v1", "configmaps").namespace("default")
        watch = cms.watch(timeout_seconds=1)
        try:
            _clean(config, rest, discovery, mapper, dynamic, clientset, watch, cms)
        finally:
            watch.stop()
        for thing in (rest, discovery, mapper, dynamic):
            assert "127.0.0.1" in repr(thing)
    finally:
        rest.close()


def test_password_in_the_server_url_is_sent_as_basic_auth_only() -> None:
    with answering_server(lambda path, query: json_answer({"major": "1"})) as (url, seen):
        rest = rest_for(url.replace("http://", f"http://admin:{SECRET}@"))
        try:
            response = rest.request("GET", "/version")
            _clean(response.url, response.request.url, rest)
        finally:
            rest.close()
    sent = seen[0]["headers"]["Authorization"]
    assert base64.b64decode(sent.removeprefix("Basic ")) == f"admin:{SECRET}".encode()


def test_password_in_the_server_url_is_not_in_error_messages() -> None:
    def answer(path: str, query: dict[str, str]) -> Answer:
        return 404, "text/plain", b""  # no Status body: the message names the URL

    with answering_server(answer) as (url, _):
        rest = rest_for(url.replace("http://", f"http://admin:{SECRET}@"))
        try:
            with pytest.raises(NotFound) as info:
                rest.get("/api/v1/namespaces/default/configmaps/x")
        finally:
            rest.close()
    _clean(info.value, info.value.message)
    assert "127.0.0.1" in info.value.message


# -- connection failures ---------------------------------------------------------------------------

def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_refused_connection_is_a_kubenb_error_naming_the_server(threads_checked: None) -> None:
    port = _closed_port()
    clock = SleepRecordingClock()
    rest = RESTClient(Config(server=f"http://admin:{SECRET}@127.0.0.1:{port}"), clock=clock,
                      max_retries=2)
    try:
        with pytest.raises(ServerConnectionError) as info:
            rest.get("/api/v1/namespaces/default/configmaps")
    finally:
        rest.close()
    err = info.value
    text = str(err)
    assert isinstance(err, KubenbError)
    assert isinstance(err, requests.ConnectionError)  # what retry loops already catch
    assert isinstance(err.__cause__, requests.ConnectionError)
    assert not isinstance(err.__cause__, KubenbError)
    assert f"at http://127.0.0.1:{port} (" in text  # the credentials never make it here
    assert "Connection refused" in text
    assert 'list v1 configmaps in namespace "default"' in text
    assert "HTTPConnectionPool" not in text  # requests' pool reprs are left out
    assert len(clock.slept) == 2  # a refused GET is still retried, boundedly
    _clean(err)


# -- errors name the request -----------------------------------------------------------------------

def test_bad_selector_error_keeps_the_servers_message_and_names_the_request(
        dynamic: DynamicClient) -> None:
    cms = dynamic.resource("v1", "configmaps").namespace("default")
    with pytest.raises(BadRequest) as info:
        cms.list(label_selector="a in (")
    err = info.value
    assert (err.status, err.code, err.reason) == (400, 400, "BadRequest")
    assert err.message.startswith("unable to parse requirement")  # the server's own
    assert str(err) == (f"400 BadRequest: {err.message} "
                        '(list v1 configmaps in namespace "default" with labelSelector "a in (")')
    assert err.request_info is not None
    assert (err.request_info.verb, err.request_info.resource, err.request_info.namespace,
            err.request_info.label_selector) == ("list", "configmaps", "default", "a in (")


def test_unknown_resource_404_names_the_resource(dynamic: DynamicClient) -> None:
    with pytest.raises(NotFound) as info:
        dynamic.resource("v1", "podz").list()
    assert str(info.value) == ("404 NotFound: the server could not find the requested "
                               "resource (list v1 podz)")
    with pytest.raises(NotFound) as group:
        dynamic.resource("nope.example.com/v1", "things").namespace("ns").list(
            field_selector="metadata.name=x")
    assert str(group.value).endswith(
        '(list nope.example.com/v1 things in namespace "ns" with fieldSelector '
        '"metadata.name=x")')


def test_object_errors_name_verb_object_and_subresource(dynamic: DynamicClient) -> None:
    cms = dynamic.resource("v1", "configmaps").namespace("default")
    with pytest.raises(NotFound) as missing:
        cms.get("nope")
    assert missing.value.message == 'configmaps "nope" not found'
    assert str(missing.value).endswith('(get v1 configmaps "nope" in namespace "default")')
    cms.create(configmap("twice"))
    with pytest.raises(KubenbError) as again:
        cms.create(configmap("twice"))
    assert str(again.value).endswith('(create v1 configmaps in namespace "default")')
    deployments = dynamic.resource("apps/v1", "deployments").namespace("default")
    with pytest.raises(NotFound) as scale:
        deployments.get("web", subresource="scale")
    assert str(scale.value).endswith(
        '(get apps/v1 deployments/scale "web" in namespace "default")')


@pytest.mark.parametrize(("method", "path", "params", "expected"), [
    ("GET", "/api/v1/pods", None, "list v1 pods"),
    ("GET", "/api/v1/pods", {"watch": "true"}, "watch v1 pods"),
    ("GET", "/api/v1/namespaces/kube-system", None, 'get v1 namespaces "kube-system"'),
    ("PUT", "/api/v1/namespaces/x/finalize", None, 'update v1 namespaces/finalize "x"'),
    ("GET", "/api/v1/namespaces/ns/pods/p/log", None, 'get v1 pods/log "p" in namespace "ns"'),
    ("DELETE", "/apis/apps/v1/namespaces/ns/deployments", {"labelSelector": "a=b"},
     'deletecollection apps/v1 deployments in namespace "ns" with labelSelector "a=b"'),
    ("DELETE", "/apis/apps/v1/namespaces/ns/deployments/d", None,
     'delete apps/v1 deployments "d" in namespace "ns"'),
    ("PATCH", "/api/v1/nodes/n%2F1/status", None, 'patch v1 nodes/status "n/1"'),
    ("POST", "/api/v1/namespaces/ns/configmaps", None,
     'create v1 configmaps in namespace "ns"'),
    ("GET", "/version", None, "GET /version"),
    ("GET", "/apis", None, "GET /apis"),
    ("GET", "/api/v1", None, "GET /api/v1"),
])
def test_describe_request_reads_paths_like_the_api_server(
        method: str, path: str, params: dict[str, str] | None, expected: str) -> None:
    assert str(describe_request(method, path, params)) == expected
