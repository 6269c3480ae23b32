"""Server-side apply with empty maps and lists in the applied configuration.

An applier that once applied `data: {}` (or `env: []`) owns that field as a whole; a later
apply that fills it must keep the new contents and the applier's managedFields, as a real
kube-apiserver does. (Before the fix, the old whole-field ownership was "no longer applied"
and the field was pruned with everything the new configuration put in it.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Api

CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
APPLY = "application/apply-patch+yaml"


def apply(api: Api, path: str, text: str, manager: str = "applier", **params: str) -> Any:
    resp = api.request("PATCH", path, data=text.encode(), headers={"Content-Type": APPLY},
                       params={"fieldManager": manager, **params})
    assert resp.status_code in (200, 201), resp.text
    return resp.json()


def owned(obj: dict[str, Any], manager: str = "applier") -> dict[str, Any]:
    """The FieldsV1 tree of `manager`'s Apply entry ({} if it has none)."""
    for entry in obj["metadata"].get("managedFields") or []:
        if entry["manager"] == manager and entry["operation"] == "Apply":
            return entry["fieldsV1"]
    return {}


CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data: {data}
"""


def test_an_empty_map_then_a_filled_one_keeps_the_new_keys(api: Api) -> None:
    apply(api, f"{CMS}/cm", CM.format(data="{}"))
    after = apply(api, f"{CMS}/cm", CM.format(data='{b: "2"}'))
    assert after["data"] == {"b": "2"}
    assert owned(after) == {"f:data": {"f:b": {}}}
    assert api.get(f"{CMS}/cm").json()["data"] == {"b": "2"}


def test_a_filled_map_then_an_empty_one_removes_what_was_applied(api: Api) -> None:
    apply(api, f"{CMS}/cm", CM.format(data='{a: "1"}'))
    after = apply(api, f"{CMS}/cm", CM.format(data="{}"))
    assert "a" not in (after.get("data") or {})
    assert "f:data" in owned(after)


def test_applying_the_same_empty_map_twice_is_a_no_op(api: Api) -> None:
    first = apply(api, f"{CMS}/cm", CM.format(data="{}"))
    again = apply(api, f"{CMS}/cm", CM.format(data="{}"))
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_empty_labels_then_labels(api: Api) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: {labels}\n"
    apply(api, f"{CMS}/cm", text.format(labels="{}"))
    after = apply(api, f"{CMS}/cm", text.format(labels="{app: web}"))
    assert after["metadata"]["labels"] == {"app": "web"}
    assert owned(after) == {"f:metadata": {"f:labels": {"f:app": {}}}}


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
      annotations: {annotations}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        env: {env}
        ports: {ports}
"""


@pytest.mark.parametrize(("field", "empty", "filled", "expected"), [
    ("env", "[]", "[{name: MODE, value: fast}]", [{"name": "MODE", "value": "fast"}]),
    ("ports", "[]", "[{containerPort: 8080}]", [{"containerPort": 8080, "protocol": "TCP"}]),
])
def test_an_empty_keyed_list_then_items(api: Api, field: str, empty: str, filled: str,
                                        expected: list[dict[str, Any]]) -> None:
    values = {"annotations": "{a: b}", "env": "[]", "ports": "[]"}
    apply(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**dict(values, **{field: empty})))
    after = apply(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**dict(values, **{field: filled})))
    container = after["spec"]["template"]["spec"]["containers"][0]
    assert container[field] == expected
    assert after["metadata"].get("managedFields"), "the applier's ownership was dropped"


def test_empty_nested_map_in_a_template_then_filled(api: Api) -> None:
    values = {"annotations": "{}", "env": "[]", "ports": "[]"}
    apply(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**values))
    after = apply(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**dict(values, annotations="{x: y}")))
    assert after["spec"]["template"]["metadata"]["annotations"] == {"x": "y"}
    tree = owned(after)["f:spec"]["f:template"]["f:metadata"]
    assert tree["f:annotations"] == {"f:x": {}}


def test_another_managers_keys_survive_an_applier_that_filled_an_empty_map(api: Api) -> None:
    apply(api, f"{CMS}/cm", CM.format(data="{}"))
    patched = api.patch(f"{CMS}/cm", {"data": {"other": "x"}}, params={"fieldManager": "editor"})
    assert patched.status_code == 200
    after = apply(api, f"{CMS}/cm", CM.format(data='{b: "2"}'))
    assert after["data"] == {"b": "2", "other": "x"}
