"""RESTClient over real HTTP: Status errors, retries with Retry-After, User-Agent."""

from __future__ import annotations

import pytest

from kubenb.client.dynamic import ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Invalid,
    NotFound,
    ServerError,
    TooManyRequests,
    api_error_from_status,
    is_too_large_resource_version,
)
from kubenb.server import EmbeddedServer
from tests.client.conftest import SleepRecordingClock, configmap


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
