"""Server-side apply and managedFields (fixtures/realapi/writes/server-side-apply-*,
errors/server-side-apply-*, writes/merge-patch-other-manager), and applied configurations
with empty maps and lists."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.jsoncopy import json_copy
from kubenb.server.apply import Manager, decode_fields, encode_fields, path_string, track_update
from tests.server.conftest import Api, fixture_body, realapi

CMS = "/api/v1/namespaces/default/configmaps"
APPLY = "application/apply-patch+yaml"


def apply(api: Api, path: str, yaml_text: str, **params: str) -> Any:
    return api.request("PATCH", path, data=yaml_text.encode(),
                       headers={"Content-Type": APPLY}, params=params)


def request_text(name: str) -> str:
    return realapi(name)["request"]["body"]


def managers(obj: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m["manager"], m["operation"], m["fieldsV1"])
            for m in obj["metadata"].get("managedFields", [])]


def real_managers(name: str) -> list[tuple[str, str, dict[str, Any]]]:
    return managers(fixture_body(name))


def test_the_captured_apply_sequence(api: Api) -> None:
    path = f"{CMS}/applied-config"
    created = apply(api, path, request_text("writes/server-side-apply-create.json"),
                    fieldManager="kubenb-apply")
    assert created.status_code == 201, created.text
    real = fixture_body("writes/server-side-apply-create.json")
    assert list(created.json()["metadata"]) == list(real["metadata"])
    assert created.json()["data"] == real["data"]
    assert managers(created.json()) == real_managers("writes/server-side-apply-create.json")
    entry = created.json()["metadata"]["managedFields"][0]
    assert list(entry) == list(real["metadata"]["managedFields"][0])

    updated = apply(api, path, request_text("writes/server-side-apply-update.json"),
                    fieldManager="kubenb-apply")
    assert updated.status_code == 200
    assert updated.json()["data"] == fixture_body("writes/server-side-apply-update.json")[
        "data"]  # key1 was only kubenb-apply's: removed
    assert managers(updated.json()) == real_managers("writes/server-side-apply-update.json")

    patched = api.patch(path, {"data": {"patched-by": "kubenb-patcher"}},
                        params={"fieldManager": "kubenb-patcher"})
    assert patched.status_code == 200
    assert managers(patched.json()) == real_managers("writes/merge-patch-other-manager.json")

    conflict_text = request_text("errors/server-side-apply-conflict-409.json")
    conflict = apply(api, path, conflict_text, fieldManager="other-applier")
    assert conflict.status_code == 409
    assert conflict.json() == fixture_body("errors/server-side-apply-conflict-409.json")

    forced = apply(api, path, conflict_text, fieldManager="other-applier", force="true")
    assert forced.status_code == 200, forced.text
    assert forced.json()["data"] == fixture_body("writes/server-side-apply-force.json")["data"]
    assert managers(forced.json()) == real_managers("writes/server-side-apply-force.json")

    missing = apply(api, path, conflict_text)
    assert missing.status_code == 422
    assert missing.json() == fixture_body("errors/server-side-apply-no-fieldmanager.json")


def test_noop_apply_keeps_the_resource_version(api: Api) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\ndata:\n  a: '1'\n"
    first = apply(api, f"{CMS}/same", text, fieldManager="me").json()
    again = apply(api, f"{CMS}/same", text, fieldManager="me")
    assert again.status_code == 200
    assert again.json()["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_shared_ownership_and_update_managers(api: Api) -> None:
    api.post(CMS, {"metadata": {"name": "shared"}, "data": {"a": "1", "b": "2"}},
             params={"fieldManager": "creator"})
    same_value = apply(api, f"{CMS}/shared", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                       "  name: shared\ndata:\n  a: '1'\n", fieldManager="applier")
    assert same_value.status_code == 200  # same value: co-owned, no conflict
    owners = {m[0]: m[2] for m in managers(same_value.json())}
    assert owners["applier"] == {"f:data": {"f:a": {}}}
    assert owners["creator"] == {"f:data": {".": {}, "f:a": {}, "f:b": {}}}
    changed = apply(api, f"{CMS}/shared", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                    "  name: shared\ndata:\n  b: '3'\n", fieldManager="applier")
    assert changed.status_code == 409
    assert changed.json()["details"]["causes"] == [{
        "reason": "FieldManagerConflict", "message": 'conflict with "creator" using v1',
        "field": ".data.b"}]


def test_apply_to_deployments_merges_containers_by_name(api: Api) -> None:
    path = "/apis/apps/v1/namespaces/default/deployments/web"
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "nginx:1.27"}
      - {name: sidecar, image: busybox}
"""
    created = apply(api, path, text, fieldManager="kubectl")
    assert created.status_code == 201, created.text
    fields = created.json()["metadata"]["managedFields"][0]["fieldsV1"]
    containers = fields["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert containers['k:{"name":"app"}'] == {".": {}, "f:image": {}, "f:name": {}}
    assert api.patch(f"{path}/scale", {"spec": {"replicas": 5}},
                     params={"fieldManager": "hpa"}).status_code == 200
    reapply = apply(api, path, text.replace("nginx:1.27", "nginx:1.28"), fieldManager="kubectl")
    assert reapply.status_code == 409
    assert reapply.json()["message"] == ('Apply failed with 1 conflict: conflict with "hpa" '
                                         'with subresource "scale" using apps/v1: '
                                         ".spec.replicas")
    slim = text.replace("  replicas: 2\n", "").replace(
        "      - {name: sidecar, image: busybox}\n", "")
    dropped = apply(api, path, slim, fieldManager="kubectl")
    assert dropped.status_code == 200, dropped.text
    spec = dropped.json()["spec"]
    assert [c["name"] for c in spec["template"]["spec"]["containers"]] == ["app"]
    assert spec["replicas"] == 5  # owned by the scaler, kept


def test_apply_to_custom_resources_and_status(api: Api) -> None:
    crd = realapi("objects/crd-create.json")["request"]["body"]
    assert api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    crd).status_code == 201
    path = "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos/applied"
    text = ("apiVersion: samplecontroller.k8s.io/v1alpha1\nkind: Foo\nmetadata:\n"
            "  name: applied\nspec:\n  deploymentName: d\n  replicas: 1\n"
            "status:\n  availableReplicas: 9\n")
    created = apply(api, path, text, fieldManager="me")
    assert created.status_code == 201, created.text
    assert "status" not in created.json()  # the main resource ignores status
    status = apply(api, f"{path}/status", text, fieldManager="controller")
    assert status.status_code == 200, status.text
    assert status.json()["status"] == {"availableReplicas": 9}
    entries = {(m["manager"], m.get("subresource", "")): m["fieldsV1"]
               for m in status.json()["metadata"]["managedFields"]}
    assert entries[("controller", "status")] == {"f:status": {"f:availableReplicas": {}}}
    assert entries[("me", "")] == {"f:spec": {"f:deploymentName": {}, "f:replicas": {}}}
    assert apply(api, path.replace("applied", "nope") + "/status", text.replace(
        "applied", "nope"), fieldManager="x").status_code == 404


@pytest.mark.parametrize("body,params,status,needle", [
    ("apiVersion: v1\nmetadata:\n  name: x\n", {"fieldManager": "m"}, 400, "Kind"),
    ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n", {"fieldManager": "m"}, 400,
     "Secret"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n", {"fieldManager": "m"}, 400,
     "does not match"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: other\n",
     {"fieldManager": "m"}, 400, "namespace"),
    ("- just\n- a list\n", {"fieldManager": "m"}, 400, "object"),
    ("a: [unclosed\n", {"fieldManager": "m"}, 400, "YAML"),
])
def test_bad_apply_requests(api: Api, body: str, params: dict[str, str], status: int,
                            needle: str) -> None:
    resp = apply(api, f"{CMS}/x", body, **params)
    assert resp.status_code == status, resp.text
    assert needle in resp.json()["message"]


def test_force_is_only_for_apply_and_updates_track_managers(api: Api) -> None:
    api.create_cm("cm", data={"a": "1"})
    forced = api.patch(f"{CMS}/cm", {"data": {"a": "2"}}, params={"force": "true"})
    assert forced.status_code == 422
    assert forced.json()["details"]["causes"][0]["field"] == "force"
    created = api.get(f"{CMS}/cm").json()
    # create_cm sends `labels: {}`: an empty omitempty map, which the typed object (and so
    # managedFields) does not hold, as Go's decoding and encoding leave it out
    assert managers(created) == [("python-requests", "Update",
                                  {"f:data": {".": {}, "f:a": {}}})]
    put = api.put(f"{CMS}/cm", dict(created, data={"b": "2"}),
                  headers={"User-Agent": "editor/1.0"})
    assert put.status_code == 200
    # Entries of one operation are ordered by time, then manager: the two updates share a
    # second unless the clock ticked over between them.
    times = {m["manager"]: m["time"] for m in put.json()["metadata"]["managedFields"]}
    expected = sorted([("editor", {"f:data": {"f:b": {}}}),
                       ("python-requests", {"f:data": {}})],
                      key=lambda entry: (times[entry[0]], entry[0]))
    assert [(m, f) for m, _, f in managers(put.json())] == expected
    reset = api.put(f"{CMS}/cm", dict(put.json(), metadata=dict(
        put.json()["metadata"], managedFields=[{}])))
    assert "managedFields" not in reset.json()["metadata"]


def test_field_paths_round_trip() -> None:
    tree = {"f:data": {".": {}, "f:a": {}},
            "f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}}}}}
    paths = decode_fields(tree)
    assert ("f:data",) in paths and ("f:data", "f:a") in paths
    assert encode_fields(paths) == tree
    assert path_string(("f:spec", "f:containers", 'k:{"name":"app"}', "f:image")) == (
        '.spec.containers[name="app"].image')
    assert path_string(("f:ports", 'k:{"containerPort":80,"protocol":"TCP"}')) == (
        '.ports[containerPort=80,protocol="TCP"]')
    assert Manager("m").identity() == ("m", "Update", "")


# -- empty maps and lists in an applied configuration ----------------------------------------
# An applier that applied `data: {}` (or `env: []`) owns that field as a whole; a later apply
# that fills it keeps the new contents and the applier's managedFields, as a real
# kube-apiserver does.

DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"


def apply_ok(api: Api, path: str, text: str, manager: str = "applier", **params: str) -> Any:
    """Apply as `manager`; the object the server answers with (a 200 or a 201)."""
    resp = apply(api, path, text, fieldManager=manager, **params)
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
    apply_ok(api, f"{CMS}/cm", CM.format(data="{}"))
    after = apply_ok(api, f"{CMS}/cm", CM.format(data='{b: "2"}'))
    assert after["data"] == {"b": "2"}
    assert owned(after) == {"f:data": {"f:b": {}}}
    assert api.get(f"{CMS}/cm").json()["data"] == {"b": "2"}


def test_a_filled_map_then_an_empty_one_removes_what_was_applied(api: Api) -> None:
    apply_ok(api, f"{CMS}/cm", CM.format(data='{a: "1"}'))
    after = apply_ok(api, f"{CMS}/cm", CM.format(data="{}"))
    assert "a" not in (after.get("data") or {})
    assert "f:data" in owned(after)


def test_applying_the_same_empty_map_twice_is_a_no_op(api: Api) -> None:
    first = apply_ok(api, f"{CMS}/cm", CM.format(data="{}"))
    again = apply_ok(api, f"{CMS}/cm", CM.format(data="{}"))
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_empty_labels_then_labels(api: Api) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: {labels}\n"
    apply_ok(api, f"{CMS}/cm", text.format(labels="{}"))
    after = apply_ok(api, f"{CMS}/cm", text.format(labels="{app: web}"))
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
    apply_ok(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**dict(values, **{field: empty})))
    after = apply_ok(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**dict(values, **{field: filled})))
    container = after["spec"]["template"]["spec"]["containers"][0]
    assert container[field] == expected
    assert after["metadata"].get("managedFields"), "the applier's ownership was dropped"


def test_empty_nested_map_in_a_template_then_filled(api: Api) -> None:
    values = {"annotations": "{}", "env": "[]", "ports": "[]"}
    apply_ok(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**values))
    after = apply_ok(api, f"{DEPLOYS}/web", DEPLOYMENT.format(**dict(values, annotations="{x: y}")))
    assert after["spec"]["template"]["metadata"]["annotations"] == {"x": "y"}
    tree = owned(after)["f:spec"]["f:template"]["f:metadata"]
    assert tree["f:annotations"] == {"f:x": {}}


def test_another_managers_keys_survive_an_applier_that_filled_an_empty_map(api: Api) -> None:
    apply_ok(api, f"{CMS}/cm", CM.format(data="{}"))
    patched = api.patch(f"{CMS}/cm", {"data": {"other": "x"}}, params={"fieldManager": "editor"})
    assert patched.status_code == 200
    after = apply_ok(api, f"{CMS}/cm", CM.format(data='{b: "2"}'))
    assert after["data"] == {"b": "2", "other": "x"}


_LABEL = st.text("abcxyz-./", min_size=1, max_size=12)
_CONTAINER = st.fixed_dictionaries(
    {"name": st.text("abc", min_size=1, max_size=3), "image": st.text("xyz:1", max_size=6)},
    optional={"ports": st.lists(st.fixed_dictionaries(
                  {"containerPort": st.integers(1, 9), "protocol": st.sampled_from(["TCP", "UDP"])},
                  optional={"name": st.text("pq", max_size=2)}), max_size=3),
              "env": st.lists(st.fixed_dictionaries(
                  {"name": st.text("EF", min_size=1, max_size=2)},
                  optional={"value": st.text("v", max_size=2)}), max_size=3),
              "args": st.lists(st.text("-a", max_size=2), max_size=3)})


@st.composite
def _created_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A body as a create sends it: a fixture object without its managedFields, or a
    generated ConfigMap or Pod (maps, keyed lists with duplicates, sets, nulls)."""
    meta = draw(st.fixed_dictionaries({"name": st.just("x")}, optional={
        "labels": st.dictionaries(_LABEL, _LABEL, max_size=3),
        "annotations": st.dictionaries(_LABEL, st.text(max_size=3), max_size=2),
        "finalizers": st.lists(_LABEL, max_size=2)}))
    kind = draw(st.sampled_from(["fixture", "ConfigMap", "Pod"]))
    if kind == "fixture":
        body = json_copy(fixture_body(draw(st.sampled_from(_CREATED_FIXTURES))))
        body["metadata"].pop("managedFields", None)
        return body
    if kind == "ConfigMap":
        data = draw(st.one_of(st.none(), st.dictionaries(_LABEL, st.text(max_size=3),
                                                         max_size=4)))
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
    spec = {"containers": draw(st.lists(_CONTAINER, min_size=1, max_size=3)),
            "nodeSelector": draw(st.dictionaries(_LABEL, _LABEL, max_size=2))}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


_CREATED_FIXTURES = [f"objects/{name}-create.json" for name in (
    "configmap", "deployment", "pod", "service", "secret", "node", "lease", "crd", "foo")]


@settings(max_examples=200, deadline=None)
@given(_created_objects())
def test_a_created_objects_managed_fields_are_those_of_an_update_from_nothing(
        obj: dict[str, Any]) -> None:
    """A create with no managedFields of its own gets the fields an update from an empty
    object gets (whose fields are then checked against the object, path by path), in the
    same order: a create builds its FieldsV1 in one walk, an update from path sets."""
    manager = Manager("creator", "Update")
    created = track_update(None, obj, manager, "v1", "2026-01-01T00:00:00Z")
    updated = track_update({}, obj, manager, "v1", "2026-01-01T00:00:00Z")
    assert json.dumps(created) == json.dumps(updated)
