"""LiveFrame columns: paths, list access, callables, errors, and kubectl's defaults checked
cell for cell against a real kube-apiserver 1.32's Tables (fixtures/realapi/table)."""

from __future__ import annotations

import json
import logging
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from kubenb.printers import parse_time
from kubenb.reactive.columns import (
    Column,
    ColumnError,
    build_columns,
    crd_printer_columns,
    default_columns,
    path_column,
)
from tests.realapi import REALAPI

POD = {
    "metadata": {"name": "web-0", "namespace": "shop",
                 "labels": {"app.kubernetes.io/name": "web", "tier": "front"},
                 "creationTimestamp": "2026-11-22T11:00:00Z"},
    "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "nginx:1.27"},
                                              {"name": "log", "image": "busybox:1.36"}]},
    "status": {"phase": "Running",
               "conditions": [{"type": "PodScheduled", "status": "True"},
                              {"type": "Ready", "status": "False"}]},
}


def exchange(name: str) -> dict[str, Any]:
    return json.loads((REALAPI / name).read_text())


def captured_at(ex: dict[str, Any]) -> float:
    return parsedate_to_datetime(ex["response"]["headers"]["Date"]).timestamp()


@pytest.mark.parametrize(("path", "value"), [
    ("status.phase", "Running"),
    (".status.phase", "Running"),
    ("{.spec.nodeName}", "n1"),
    ("spec.containers[0].image", "nginx:1.27"),
    ("spec.containers[-1].name", "log"),
    ("spec.containers[*].image", ("nginx:1.27", "busybox:1.36")),
    ("status.conditions[?(@.type=='Ready')].status", "False"),
    ("metadata.labels['app.kubernetes.io/name']", "web"),
    ("metadata.labels.tier", "front"),
    ("status.podIP", None),
    ("spec.containers[5].image", None),
    ("spec.volumes[*].name", ()),
    ("metadata.name.deeper", None),
])
def test_paths_reach_fields_lists_filters_and_never_raise(path: str, value: Any) -> None:
    column = path_column(path)
    assert column.name == path
    assert column.get(POD) == value
    assert column.get({}) in (None, ())


@pytest.mark.parametrize(("path", "where"), [
    ("status..phase", "recursive descent"),
    ("spec.containers[", "unclosed"),
    ("spec.containers[?(@.x ~ 1)]", "unsupported"),
    ("", "empty"),
])
def test_a_bad_path_says_which_and_why(path: str, where: str) -> None:
    with pytest.raises(ColumnError, match=where) as info:
        build_columns({"BAD": path})
    assert "BAD" in str(info.value) and isinstance(info.value, ValueError)


def test_columns_from_lists_dicts_pairs_and_callables() -> None:
    def images(obj: dict[str, Any]) -> int:
        return len(obj["spec"]["containers"])

    columns = build_columns(["status.phase", ("NODE", "spec.nodeName"), images,
                             Column("READY?", lambda o: False)])
    assert columns.names == ("status.phase", "NODE", "images", "READY?")
    assert columns.row(POD, 0.0) == ("Running", "n1", 2, False)
    named = build_columns({"PHASE": "status.phase", "N": lambda o: o["metadata"]["name"]})
    assert named.row(POD, 0.0) == ("Running", "web-0")
    assert build_columns("status.phase").names == ("status.phase",)


def test_column_spec_errors_name_the_column() -> None:
    with pytest.raises(ColumnError, match="lambda has no name"):
        build_columns([lambda o: 1])
    with pytest.raises(ColumnError, match="given twice"):
        build_columns(["status.phase", ("status.phase", "spec.nodeName")])
    with pytest.raises(ColumnError, match=r"column 1: expected a path .* got int"):
        build_columns(["status.phase", 42])
    with pytest.raises(ColumnError, match="gave no columns"):
        build_columns([])
    with pytest.raises(ColumnError, match="must be a list, a dict or None"):
        build_columns(3.5)


def test_a_callable_that_raises_gives_none_and_is_logged_once(
        caplog: pytest.LogCaptureFixture) -> None:
    columns = build_columns({"BOOM": lambda o: o["nope"]})
    with caplog.at_level(logging.WARNING, logger="kubenb.reactive.columns"):
        assert columns.row(POD, 0.0) == (None,)
        assert columns.row(POD, 0.0) == (None,)
    assert caplog.text.count("BOOM") == 1 and "KeyError" in caplog.text


@pytest.mark.parametrize("name", ["pods", "deployments", "configmaps", "events"])
def test_default_columns_match_the_real_servers_table(name: str) -> None:
    """Every default cell equals the real server's, except AGE, which is kept as the
    creation time (shown as time since when a snapshot is taken)."""
    ex = exchange(f"table/{name}-include-object.json")
    table = ex["response"]["body"]
    now = captured_at(ex)
    shown = [i for i, c in enumerate(table["columnDefinitions"]) if c["priority"] == 0]
    for row in table["rows"]:
        obj = row["object"]
        group = obj["apiVersion"].split("/")[0] if "/" in obj["apiVersion"] else ""
        columns = default_columns(obj["kind"], group)
        assert columns.names == tuple(table["columnDefinitions"][i]["name"].upper()
                                      for i in shown)
        values = columns.row(obj, now)
        for value, i, age in zip(values, shown, columns.ages, strict=True):
            if age:
                assert value == parse_time(obj["metadata"]["creationTimestamp"])
            else:
                assert value == row["cells"][i]


def test_crd_columns_are_its_additional_printer_columns() -> None:
    crd = exchange("objects/crd-create.json")["request"]["body"]
    printer_columns = crd_printer_columns(crd)
    ex = exchange("table/foos-include-object.json")
    table = ex["response"]["body"]
    columns = default_columns("Foo", "example.com", printer_columns=printer_columns)
    assert columns.names == ("NAME", "DEPLOYMENT", "REPLICAS", "AVAILABLE", "AGE")
    assert columns.ages == (False, False, False, False, True)
    for row in table["rows"]:
        values = columns.row(row["object"], captured_at(ex))
        assert list(values[:4]) == row["cells"][:4]
        assert values[4] == parse_time(row["object"]["metadata"]["creationTimestamp"])
    no_columns = default_columns("Bar", "example.com", printer_columns=[])
    assert no_columns.names == ("NAME", "AGE")
    with pytest.raises(ColumnError, match="has no version 'v9'"):
        crd_printer_columns(crd, "v9")


def test_namespace_wide_and_extra_columns() -> None:
    narrow = default_columns("Pod")
    assert narrow.names == ("NAME", "READY", "STATUS", "RESTARTS", "AGE")
    wide = build_columns(None, kind="Pod", with_namespace=True, wide=True,
                         extra_columns={"IMAGES": "spec.containers[*].image"})
    assert wide.names == ("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP",
                          "NODE", "NOMINATED NODE", "READINESS GATES", "IMAGES")
    row = wide.row(POD, parse_time("2026-11-22T11:05:00Z") or 0.0)
    assert row[:4] == ("shop", "web-0", "0/2", "Running")
    assert row[-1] == ("nginx:1.27", "busybox:1.36")
    unknown = default_columns("Widget", "example.com")  # no printer: kubectl's generic table
    assert unknown.names[0] == "NAME"
