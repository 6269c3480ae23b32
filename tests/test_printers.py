"""kubenb.printers: kubectl's columns as pure functions, checked cell for cell against the
Tables a real kube-apiserver 1.32 sent (fixtures/realapi/table), at the capture's time."""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from kubenb import printers
from kubenb.printers import (
    DEFAULT_PRINTER,
    custom_resource_printer,
    human_duration,
    parse_jsonpath,
    parse_time,
    printer_for,
    to_table,
)
from tests.realapi import REALAPI


def exchange(name: str) -> dict[str, Any]:
    return json.loads((REALAPI / name).read_text())


def captured_at(ex: dict[str, Any]) -> float:
    """The server's Date header: the `now` its AGE cells were computed against."""
    return parsedate_to_datetime(ex["response"]["headers"]["Date"]).timestamp()


FOO_COLUMNS = exchange("objects/crd-create.json")["request"]["body"]["spec"]["versions"][0][
    "additionalPrinterColumns"]


def printer_of(obj: dict[str, Any]) -> printers.TablePrinter:
    if obj["kind"] == "Foo":
        return custom_resource_printer(FOO_COLUMNS)
    group = obj["apiVersion"].split("/")[0] if "/" in obj["apiVersion"] else ""
    return printer_for(obj["kind"], group)


@pytest.mark.parametrize("seconds,text", [
    (-5, "<invalid>"), (-1.5, "0s"), (0, "0s"), (9.9, "9s"), (119, "119s"), (120, "2m"),
    (182, "3m2s"), (599, "9m59s"), (600, "10m"), (179 * 60, "179m"), (3 * 3600, "3h"),
    (3 * 3600 + 25 * 60, "3h25m"), (8 * 3600, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"),
    (50 * 3600, "2d2h"), (8 * 86400, "8d"), (729 * 86400, "729d"), (730 * 86400, "2y"),
    (731 * 86400, "2y1d"), (8 * 365 * 86400, "8y"),
])
def test_human_duration_matches_apimachinery(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


def test_parse_time_handles_rfc3339_micro_and_offsets() -> None:
    base = parse_time("2026-11-22T11:43:39Z")
    assert base is not None
    assert parse_time("2026-11-22T11:43:39.250000Z") == pytest.approx(base + 0.25)
    assert parse_time("2026-11-22T12:43:39+01:00") == base
    assert parse_time("yesterday") is None and parse_time(None) is None
    assert printers.age(None, base) == "<unknown>"
    assert printers.age("2026-11-22T11:43:39Z", base + 3600 * 5) == "5h"


@pytest.mark.parametrize("name", ["pods", "deployments", "configmaps", "events", "foos"])
def test_cells_match_the_real_servers_table(name: str) -> None:
    ex = exchange(f"table/{name}-include-object.json")
    table = ex["response"]["body"]
    now = captured_at(ex)
    assert table["rows"], "the fixture has rows to compare"
    for row in table["rows"]:
        printer = printer_of(row["object"])
        assert printer.cells(row["object"], now) == row["cells"]
        assert [c.to_dict() for c in printer.columns] == table["columnDefinitions"]


def test_namespace_and_node_columns_match() -> None:
    for name, kind in (("namespaces", "Namespace"), ("nodes", "Node")):
        table = exchange(f"table/{name}.json")["response"]["body"]
        assert [c.to_dict() for c in printer_for(kind).columns] == table["columnDefinitions"]
    node_ex = exchange("objects/node-create.json")
    node = node_ex["response"]["body"]
    cells = printer_for("Node").cells(node, captured_at(node_ex) + 1)
    assert cells == exchange("table/nodes.json")["response"]["body"]["rows"][0]["cells"]


def test_pod_status_reasons_restarts_and_row_conditions() -> None:
    now = parse_time("2026-01-01T01:00:00Z")
    assert now is not None
    pod = {"metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"},
           "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1",
                    "readinessGates": [{"conditionType": "x/ready"}]},
           "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.7"}],
                      "conditions": [{"type": "x/ready", "status": "True"}],
                      "containerStatuses": [
                          {"name": "a", "ready": True, "restartCount": 2,
                           "state": {"running": {}},
                           "lastState": {"terminated": {"finishedAt": "2026-01-01T00:55:00Z"}}},
                          {"name": "b", "ready": False, "restartCount": 0,
                           "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}
    assert POD(pod, now) == ["p", "1/2", "CrashLoopBackOff", "2 (5m ago)", "60m",
                             "10.0.0.7", "n1", "<none>", "1/1"]
    init = {"metadata": {"name": "i"}, "spec": {"initContainers": [{"name": "x"}, {"name": "y"}],
                                                 "containers": [{"name": "a"}]},
            "status": {"phase": "Pending", "initContainerStatuses": [
                {"name": "x", "state": {"terminated": {"exitCode": 0}}},
                {"name": "y", "state": {"waiting": {"reason": "PodInitializing"}}}]}}
    assert POD(init, now)[1:3] == ["0/1", "Init:1/2"]
    gone = {"metadata": {"name": "t", "deletionTimestamp": "2026-01-01T00:00:00Z"},
            "status": {"phase": "Running"}}
    assert POD(gone, now)[2] == "Terminating"
    done = {"metadata": {"name": "d"}, "status": {"phase": "Succeeded"}}
    row = printers.table_row(printers.POD_PRINTER, done, now)
    assert row["conditions"] == [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                  "message": "The pod has completed successfully."}]


def POD(pod: dict[str, Any], now: float) -> list[Any]:
    return printers.POD_PRINTER.cells(pod, now)


def test_other_builtin_kinds() -> None:
    now = parse_time("2026-01-01T00:00:10Z")
    assert now is not None
    meta = {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"}
    svc = {"metadata": meta, "spec": {"type": "NodePort", "clusterIPs": ["10.0.0.9"],
                                      "ports": [{"port": 80, "nodePort": 30080,
                                                 "protocol": "TCP"}, {"port": 53,
                                                                      "protocol": "UDP"}],
                                      "selector": {"b": "2", "a": "1"}}}
    assert printer_for("Service").cells(svc, now) == [
        "x", "NodePort", "10.0.0.9", "<none>", "80:30080/TCP,53/UDP", "10s", "a=1,b=2"]
    lb = {"metadata": meta, "spec": {"type": "LoadBalancer"}}
    assert printer_for("Service").cells(lb, now)[2:4] == ["<none>", "<pending>"]
    secret = {"metadata": meta, "type": "Opaque", "data": {"a": "eA==", "b": "eQ=="}}
    assert printer_for("Secret").cells(secret, now) == ["x", "Opaque", 2, "10s"]
    sa = {"metadata": meta, "secrets": [{"name": "t"}]}
    assert printer_for("ServiceAccount").cells(sa, now) == ["x", 1, "10s"]
    template = {"spec": {"containers": [{"name": "a", "image": "i:1"}, {"name": "b",
                                                                         "image": "j:2"}]}}
    rs = {"metadata": meta, "spec": {"replicas": 3, "template": template,
                                     "selector": {"matchLabels": {"app": "w"}}},
          "status": {"replicas": 2, "readyReplicas": 1}}
    assert printer_for("ReplicaSet", "apps").cells(rs, now) == [
        "x", 3, 2, 1, "10s", "a,b", "i:1,j:2", "app=w"]
    sts = {"metadata": meta, "spec": {"template": template}, "status": {"readyReplicas": 1}}
    assert printer_for("StatefulSet", "apps").cells(sts, now) == [
        "x", "1/1", "10s", "a,b", "i:1,j:2"]
    ds = {"metadata": meta, "spec": {"template": {"spec": {"nodeSelector": {"os": "linux"}}},
                                     "selector": {"matchExpressions": [
                                         {"key": "tier", "operator": "In",
                                          "values": ["b", "a"]}]}},
          "status": {"desiredNumberScheduled": 3, "numberReady": 2}}
    assert printer_for("DaemonSet", "apps").cells(ds, now) == [
        "x", 3, 0, 2, 0, 0, "os=linux", "10s", "", "", "tier in (a,b)"]
    assert printer_for("CustomResourceDefinition", "apiextensions.k8s.io") is DEFAULT_PRINTER
    assert DEFAULT_PRINTER.cells({"metadata": meta}, now) == ["x", "2026-01-01T00:00:00Z"]
    assert [c.name for c in DEFAULT_PRINTER.columns] == ["Name", "Created At"]
    assert printer_for("Deployment", "apps").column_names(wide=False) == [
        "Name", "Ready", "Up-to-date", "Available", "Age"]


def test_jsonpath_subset() -> None:
    obj = {"spec": {"replicas": 2, "a.b": "dotted"},
           "status": {"conditions": [{"type": "Synced", "status": "False"},
                                     {"type": "Ready", "status": "True"}]},
           "items": [1, 2, 3]}
    assert parse_jsonpath(".spec.replicas").find(obj) == [2]
    assert parse_jsonpath("{.spec.replicas}").find(obj) == [2]
    assert parse_jsonpath(".spec['a.b']").find(obj) == ["dotted"]
    assert parse_jsonpath(r".spec.a\.b").find(obj) == ["dotted"]
    assert parse_jsonpath('.status.conditions[?(@.type=="Ready")].status').find(obj) == ["True"]
    assert parse_jsonpath('.status.conditions[?(@.type!="Ready")].type').find(obj) == [
        "Synced"]
    assert parse_jsonpath(".items[1]").find(obj) == [2]
    assert parse_jsonpath(".items[-1]").find(obj) == [3]
    assert parse_jsonpath(".items[*]").find(obj) == [1, 2, 3]
    assert parse_jsonpath(".spec.missing").find(obj) == []
    for bad in ("spec.replicas", ".spec..x", ".items[", ".items[?(@.a ~ 1)]"):
        with pytest.raises(ValueError, match="JSONPath"):
            parse_jsonpath(bad)


def test_custom_resource_columns_types_and_defaults() -> None:
    now = parse_time("2026-01-01T00:01:00Z")
    assert now is not None
    printer = custom_resource_printer([
        {"name": "Ready", "type": "string",
         "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1},
        {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio"},
        {"name": "Paused", "type": "boolean", "jsonPath": ".spec.paused"},
        {"name": "Size", "type": "string", "jsonPath": ".spec.size",
         "description": "how big", "format": "byte"},
        {"name": "Since", "type": "date", "jsonPath": ".status.since"},
    ])
    obj = {"metadata": {"name": "c"},
           "spec": {"replicas": 2.0, "ratio": 1, "paused": True, "size": 5},
           "status": {"conditions": [{"type": "Ready", "status": "True"}],
                      "since": "2026-01-01T00:00:00Z"}}
    assert printer.cells(obj, now) == ["c", "True", 2, 1.0, True, "5", "60s"]
    assert printer.cells({"metadata": {"name": "e"}}, now) == ["e", None, None, None, None,
                                                                None, None]
    assert printer.cells({"metadata": {"name": "d"}, "status": {"since": "soon"}},
                         now)[-1] == "<invalid>"
    cols = [c.to_dict() for c in printer.columns]
    assert cols[2]["priority"] == 1 and cols[5]["format"] == "byte"
    assert cols[5]["description"] == "how big"
    assert cols[1]["description"] == (printers.CRD_COLUMN_DOC
                                      + '.status.conditions[?(@.type=="Ready")].status')
    default = custom_resource_printer(None)
    assert [c.name for c in default.columns] == ["Name", "Age"]
    assert default.cells({"metadata": {"name": "z", "creationTimestamp":
                                       "2026-01-01T00:00:30Z"}}, now) == ["z", "30s"]


@pytest.mark.parametrize("include,expected_kind", [
    ("Metadata", "PartialObjectMetadata"), ("Object", "ConfigMap"), ("None", None)])
def test_to_table_shapes_like_the_fixture(include: str, expected_kind: str | None) -> None:
    suffix = {"Metadata": "", "Object": "-include-object", "None": "-include-none"}[include]
    ex = exchange(f"table/configmaps{suffix}.json")
    real = ex["response"]["body"]
    objects = exchange("table/configmaps-include-object.json")["response"]["body"]["rows"]
    table = to_table(printer_for("ConfigMap"), [r["object"] for r in objects], captured_at(ex),
                     real["metadata"], include)
    assert table == real
    kinds = [(r["object"] or {}).get("kind") for r in table["rows"]]
    assert set(kinds) == {expected_kind}
    first_only = to_table(printer_for("ConfigMap"), [], 0, {}, with_columns=False)
    assert first_only["columnDefinitions"] is None and first_only["rows"] == []
