"""Boolean query parameters, read as the apiserver reads them.

The official Python client 36 sends `?watch=True` (Python's spelling): a watch, not a
list. The apiserver decodes `watch`, `allowWatchBookmarks`, `sendInitialEvents` and
`force` with apimachinery's query conversion: "0" and "false" in any case are false,
anything else (an empty value too) is true, and no value is an error.
`pretty` is read with Go's strconv.ParseBool, and a value it does not know means false.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from kubenb.server import EmbeddedServer
from kubenb.server.params import bool_param, go_parse_bool
from tests.helpers import wait_until
from tests.server.conftest import Api

CM = "/api/v1/namespaces/default/configmaps"
# Go's strconv.ParseBool spellings, and what apimachinery's conversion adds to "true"
TRUE = ["1", "t", "T", "TRUE", "true", "True"]
FALSE = ["0", "FALSE", "false", "False", "fAlSe"]
ALSO_TRUE = ["f", "F", "yes", "on", ""]  # not "0"/"false": true for the apiserver


def test_the_helper_is_apimachinerys_query_conversion() -> None:
    for value in TRUE + ALSO_TRUE:
        assert bool_param({"watch": value}, "watch") is True, value
    for value in FALSE:
        assert bool_param({"watch": value}, "watch") is False, value
    assert bool_param({}, "watch") is None


def test_pretty_uses_gos_parse_bool() -> None:
    assert [go_parse_bool(v) for v in TRUE] == [True] * 6
    assert [go_parse_bool(v) for v in ["0", "f", "F", "FALSE", "false", "False"]] == [False] * 6
    assert [go_parse_bool(v) for v in ["yes", "", "tRUE", " true"]] == [None] * 4


def _get_raw(api: Api, query: str, **kw: Any) -> requests.Response:
    """A GET with the query string exactly as given (no re-encoding)."""
    return api.session.get(f"{api.url}{CM}?{query}", timeout=10, **kw)


def _first_line(resp: requests.Response) -> dict[str, Any]:
    try:
        for line in resp.iter_lines():
            if line:
                return json.loads(line)
    finally:
        resp.close()
    raise AssertionError("the watch ended without an event")


@pytest.mark.parametrize("value", TRUE + ALSO_TRUE)
def test_every_true_spelling_of_watch_watches(api: Api, value: str) -> None:
    api.create_cm("a")
    resp = _get_raw(api, f"watch={value}", stream=True)
    assert resp.status_code == 200
    assert resp.headers.get("Transfer-Encoding") == "chunked"
    event = _first_line(resp)
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "a")


@pytest.mark.parametrize("value", FALSE)
def test_every_false_spelling_of_watch_lists(api: Api, value: str) -> None:
    api.create_cm("a")
    resp = _get_raw(api, f"watch={value}")
    assert resp.status_code == 200 and resp.json()["kind"] == "ConfigMapList"


def test_what_the_official_client_36_sends(api: Api) -> None:
    """It hands `watch=True` (a Python bool) to urllib3, which writes "True"."""
    api.create_cm("a")
    resp = api.get(CM, params={"watch": True, "allowWatchBookmarks": True,
                               "timeoutSeconds": 5}, stream=True)
    assert "watch=True" in resp.url
    assert _first_line(resp)["type"] == "ADDED"


def _events(resp: requests.Response, until: str | None = None) -> list[dict[str, Any]]:
    """Every event of a watch, or those up to the first of type `until`."""
    out = []
    with resp:
        for line in resp.iter_lines():
            if line:
                out.append(json.loads(line))
                if out[-1]["type"] == until:
                    break
    return out


@pytest.mark.parametrize("value", ["True", "1", "T", "yes"])
def test_allow_watch_bookmarks_true_spellings(api: Api, value: str) -> None:
    events = _events(_get_raw(api, f"watch=1&allowWatchBookmarks={value}&timeoutSeconds=30",
                              stream=True), until="BOOKMARK")
    assert events[-1]["type"] == "BOOKMARK"


@pytest.mark.parametrize("value", ["False", "0", "FALSE"])
def test_allow_watch_bookmarks_false_spellings(api: Api, value: str) -> None:
    # the fixture's server sends bookmarks every 0.2 s to those who allow them
    events = _events(_get_raw(api, f"watch=1&allowWatchBookmarks={value}&timeoutSeconds=1",
                              stream=True))
    assert [e for e in events if e["type"] == "BOOKMARK"] == []


@pytest.mark.parametrize("value", ["True", "t", "1"])
def test_send_initial_events_true_spellings(api: Api, value: str) -> None:
    api.create_cm("a")
    query = (f"watch=True&sendInitialEvents={value}&resourceVersionMatch=NotOlderThan"
             "&allowWatchBookmarks=True&timeoutSeconds=30")
    events = _events(_get_raw(api, query, stream=True), until="BOOKMARK")
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
    annotations = events[-1]["object"]["metadata"]["annotations"]
    assert annotations["k8s.io/initial-events-end"] == "true"


@pytest.mark.parametrize("value", ["False", "0"])
def test_send_initial_events_false_spellings(api: Api, server: EmbeddedServer,
                                             value: str) -> None:
    api.create_cm("before")
    rv = api.get(CM).json()["metadata"]["resourceVersion"]
    query = (f"watch=True&sendInitialEvents={value}&resourceVersionMatch=NotOlderThan"
             f"&resourceVersion={rv}&timeoutSeconds=30")
    resp = _get_raw(api, query, stream=True)
    assert resp.status_code == 200, resp.text
    wait_until(lambda: server.storage.watch_count == 1, what="watch open")
    api.create_cm("after")
    event = _first_line(resp)
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "after")


def _apply(api: Api, manager: str, value: str, force: str | None) -> requests.Response:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
            "data": {"k": value}}
    query = f"fieldManager={manager}" + (f"&force={force}" if force is not None else "")
    return api.session.patch(f"{api.url}{CM}/cm?{query}", data=json.dumps(body), timeout=10,
                             headers={"Content-Type": "application/apply-patch+yaml"})


@pytest.mark.parametrize("force", ["True", "true", "1", "T", "yes", "maybe"])
def test_server_side_apply_force_true_spellings_take_the_field(api: Api, force: str) -> None:
    assert _apply(api, "first", "1", None).status_code == 201
    resp = _apply(api, "second", "2", force)
    assert resp.status_code == 200, resp.text
    assert resp.json()["data"] == {"k": "2"}


@pytest.mark.parametrize("force", ["False", "false", "0", None])
def test_server_side_apply_force_false_spellings_conflict(api: Api, force: str | None
                                                          ) -> None:
    assert _apply(api, "first", "1", None).status_code == 201
    resp = _apply(api, "second", "2", force)
    assert resp.status_code == 409 and resp.json()["reason"] == "Conflict"


@pytest.mark.parametrize("value", TRUE)
def test_pretty_true_spellings_indent_the_answer(api: Api, value: str) -> None:
    created = api.create_cm("a")
    resp = api.session.get(f"{api.url}{CM}/a?pretty={value}", timeout=10)
    assert resp.text == json.dumps(created, indent=2)  # like json.MarshalIndent: no newline
    missing = api.session.get(f"{api.url}{CM}/nope?pretty={value}", timeout=10)
    assert missing.status_code == 404 and missing.text.startswith('{\n  "kind": "Status"')


@pytest.mark.parametrize("value", ["0", "false", "False", "yes", ""])
def test_pretty_false_or_unknown_spellings_leave_it_compact(api: Api, value: str) -> None:
    created = api.create_cm("a")
    resp = api.session.get(f"{api.url}{CM}/a?pretty={value}", timeout=10)
    assert resp.content == json.dumps(created, separators=(",", ":")).encode() + b"\n"


def test_the_fault_switches_see_watch_true_as_a_watch(api: Api, server: EmbeddedServer
                                                      ) -> None:
    server.faults.fail(verb="watch", code=500)
    assert _get_raw(api, "watch=True").status_code == 500
    assert _get_raw(api, "watch=False").status_code == 200


# -- the official client ----------------------------------------------------------------------

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, watch  # noqa: E402


@pytest.fixture
def core(server: EmbeddedServer) -> Iterator[Any]:
    api_client = config.new_client_from_config(config_file=server.kubeconfig_path)
    try:
        yield client.CoreV1Api(api_client)
    finally:
        api_client.close()


def test_official_watch_stream_against_the_embedded_server(core: Any, server: EmbeddedServer
                                                           ) -> None:
    core.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="first")))
    seen: list[tuple[str, str]] = []
    w = watch.Watch()

    def run() -> None:
        for event in w.stream(core.list_namespaced_config_map, "default",
                              allow_watch_bookmarks=True, timeout_seconds=30):
            if event["type"] == "BOOKMARK":
                continue
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 2:
                w.stop()

    thread = threading.Thread(target=run)
    thread.start()
    wait_until(lambda: len(seen) == 1, 10, what="the initial ADDED")
    core.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="second")))
    thread.join(30)
    assert not thread.is_alive()
    assert seen == [("ADDED", "first"), ("ADDED", "second")]
