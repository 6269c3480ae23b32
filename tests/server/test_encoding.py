"""Request bodies the server refuses as the real one does: nesting deeper than 200 levels
(a 400, never a 500 with a traceback) on every path that decodes a body, and Content-Types
it cannot parse or does not support (a 415)."""

from __future__ import annotations

import json
import logging

import pytest
import requests

from tests.server.conftest import Api
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"


def _nested(depth: int) -> str:
    """JSON text of `depth` objects each inside the last (too deep for json.dumps)."""
    return '{"a":' * depth + '"x"' + "}" * depth


def _configmap(name: str, extra: str = "{}") -> str:
    return ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' + name + '"},'
            '"data":{"k":"v"},"extra":' + extra + "}")


def _send(api: Api, method: str, path: str, text: str, content_type: str = "",
          **params: str) -> requests.Response:
    headers = {"Content-Type": content_type} if content_type else {}
    return api.request(method, path, data=text.encode(), headers=headers, params=params)


def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert noisy == [], [r.getMessage()[:200] for r in noisy]


@pytest.mark.parametrize("depth", [300, 480, 2000, 50_000])
def test_a_body_nested_too_deeply_is_a_400_not_a_500_with_a_traceback(
        api: Api, depth: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb")
    resp = _send(api, "POST", CM, _configmap("deep", _nested(depth)))
    body = assert_status_like(resp, "errors/malformed-json-400.json", compare_message=False)
    assert body["message"].startswith(
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
        "version/kind; json parse error: exceeded max depth: objects and arrays nested more "
        "than 200 levels deep"), body["message"]
    _quiet(caplog)
    assert api.get(f"{CM}/deep").status_code == 404


def test_every_body_path_checks_the_depth(api: Api, caplog: pytest.LogCaptureFixture
                                            ) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb")
    deep = _nested(1000)
    deep_yaml = "extra: " + "[" * 1000 + "]" * 1000
    created = _send(api, "POST", CM, _configmap("ok", _nested(150)))
    assert created.status_code == 201  # deep, but within the limit: stored and served
    assert api.get(f"{CM}/ok", headers={"Accept": "application/yaml"}).status_code == 200
    merge, strategic = "application/merge-patch+json", "application/strategic-merge-patch+json"
    json_patch, apply = "application/json-patch+json", "application/apply-patch+yaml"
    answers = {
        "merge patch": _send(api, "PATCH", f"{CM}/ok", '{"extra":' + deep + "}", merge),
        "strategic patch": _send(api, "PATCH", f"{CM}/ok", '{"extra":' + deep + "}", strategic),
        "json patch": _send(api, "PATCH", f"{CM}/ok",
                            '[{"op":"add","path":"/extra","value":' + deep + "}]", json_patch),
        "apply": _send(api, "PATCH", f"{CM}/ok", _configmap("ok", deep), apply,
                       fieldManager="m"),
        "apply as YAML": _send(api, "PATCH", f"{CM}/ok", deep_yaml, apply, fieldManager="m"),
        "update": _send(api, "PUT", f"{CM}/ok", _configmap("ok", deep)),
        "YAML create": _send(api, "POST", CM, deep_yaml, "application/yaml"),
        "delete options": _send(api, "DELETE", f"{CM}/ok", '{"extra":' + deep + "}"),
    }
    for what, resp in answers.items():
        assert resp.status_code == 400, (what, resp.status_code, resp.text[:300])
        assert "exceeded max depth" in resp.json()["message"], what
    # a JSON patch whose result, not its body, is too deep: 150 levels added at 150 deep
    path = "/extra" + "/a" * 150
    resp = _send(api, "PATCH", f"{CM}/ok",
                 '[{"op":"add","path":"' + path + '","value":' + _nested(150) + "}]", json_patch)
    assert resp.status_code == 400 and "exceeded max depth" in resp.json()["message"]
    assert api.get(f"{CM}/ok").json()["metadata"]["resourceVersion"] == created.json()[
        "metadata"]["resourceVersion"]
    _quiet(caplog)


@pytest.mark.parametrize("content_type", [";;;", ";", "/json", "application/", "application/json;;",
                                          "application/json; charset", "application/json x",
                                          "application/json; a=1; a=2", "text/plain"])
def test_an_unparseable_or_unsupported_content_type_is_a_415(api: Api,
                                                                content_type: str) -> None:
    resp = _send(api, "POST", CM, _configmap("cm"), content_type)
    assert_status_like(resp, "errors/post-unsupported-content-type-415.json")
    resp = _send(api, "PUT", f"{CM}/cm", _configmap("cm"), content_type)
    assert_status_like(resp, "errors/post-unsupported-content-type-415.json")
    assert api.get(f"{CM}/cm").status_code == 404


@pytest.mark.parametrize("content_type", ["", "application/json", "Application/JSON",
                                          "application/json;", "application/json ; charset=utf-8",
                                          'application/json; charset="utf-8"'])
def test_content_types_the_real_server_accepts_are_accepted(api: Api,
                                                            content_type: str) -> None:
    resp = _send(api, "POST", CM, _configmap("cm"), content_type)
    assert resp.status_code == 201, resp.text


def test_a_delete_body_with_a_bad_content_type_is_a_415(api: Api) -> None:
    api.create_cm("cm")
    resp = api.request("DELETE", f"{CM}/cm", data=json.dumps({"gracePeriodSeconds": 0}),
                       headers={"Content-Type": ";;;"})
    assert resp.status_code == 415
    resp = api.request("DELETE", f"{CM}/cm", data=json.dumps({"gracePeriodSeconds": 0}),
                       headers={"Content-Type": "application/json"})
    assert resp.status_code == 200



def test_bodies_are_written_as_go_writes_them() -> None:
    """Compact UTF-8, keys in stored order, Go's HTML-safe escapes (also in ?pretty)."""
    from kubenb.server.encoding import dumps, dumps_pretty

    obj = {"b": "<x> & y\u2028z\u2029", "a": "é ✓", "n": [1, 2.5, None, True], "t": "\t\x01"}
    assert dumps(obj) == (b'{"b":"\\u003cx\\u003e \\u0026 y\\u2028z\\u2029","a":"'
                          + "é ✓".encode() + b'","n":[1,2.5,null,true],"t":"\\t\\u0001"}\n')
    assert json.loads(dumps(obj)) == obj
    pretty = dumps_pretty(obj)
    assert pretty.startswith(b'{\n  "b": "\\u003cx\\u003e \\u0026') and json.loads(pretty) == obj
