"""Bearer-token authentication: the right token passes, with the scheme in any case as the
real server reads it; anything else is a 401 that never echoes the token."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import requests

from kubenb.server import EmbeddedServer
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"


def test_bearer_token_auth() -> None:
    with EmbeddedServer(token="tok-123") as srv:
        assert requests.get(srv.url + "/healthz", timeout=5).status_code == 200
        assert requests.get(srv.url + "/version", timeout=5).status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            resp = requests.get(srv.url + CM, headers=headers, timeout=5)
            assert_status_like(resp, "errors/invalid-token-401.json")
            assert "tok-123" not in resp.text
        ok = requests.get(srv.url + CM, headers={"Authorization": "Bearer tok-123"}, timeout=5)
        assert ok.status_code == 200


@pytest.mark.parametrize(("header", "status"), [
    ("", 200), ("Basic s3cret-token", 200), ("Bearer", 200), ("bearer  wrong", 200),
    ("Bearer wrong", 401), ("Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln", 401)])
@pytest.mark.parametrize("path", ["/version", "/healthz", "/readyz"])
def test_a_wrong_token_is_a_401_even_where_anonymous_requests_pass(
        token_server: EmbeddedServer, path: str, header: str, status: int) -> None:
    # as a real v1.32 server answers: a bearer token that fails authentication is never
    # downgraded to system:anonymous (kr8s checks a bad token with GET /version)
    resp = requests.get(token_server.url + path, headers={"Authorization": header},
                        timeout=10)
    assert resp.status_code == status, resp.text
    if status == 401:
        assert_status_like(resp, "errors/invalid-token-401.json")


@pytest.fixture
def token_server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(token="s3cret-token") as srv:
        yield srv


@pytest.mark.parametrize("header", ["Bearer s3cret-token", "bearer s3cret-token",
                                    "BEARER s3cret-token", "bEaReR s3cret-token",
                                    "Bearer s3cret-token  ", "Bearer s3cret-token extra"])
def test_the_bearer_scheme_is_case_insensitive_like_the_real_server(
        token_server: EmbeddedServer, header: str) -> None:
    resp = requests.get(token_server.url + CM, headers={"Authorization": header}, timeout=10)
    assert resp.status_code == 200, resp.text


@pytest.mark.parametrize("header", ["Bearer wrong", "bearer wrong", "Basic s3cret-token",
                                    "Bearer  s3cret-token", "Bearer", "s3cret-token",
                                    "Bearers3cret-token", ""])
def test_any_other_authorization_is_a_401_that_never_echoes_the_token(
        token_server: EmbeddedServer, header: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb")
    resp = requests.get(token_server.url + CM, headers={"Authorization": header}, timeout=10)
    assert_status_like(resp, "errors/invalid-token-401.json")
    assert "s3cret" not in resp.text
    assert not any("s3cret" in r.getMessage() for r in caplog.records)

