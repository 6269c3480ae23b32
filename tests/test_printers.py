"""kubenb.printers: kubectl's columns as pure functions, checked cell for cell against the
Tables a real kube-apiserver 1.32 sent (fixtures/realapi/table), at the capture's time."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def _reference_parse_time(text: str) -> float | None:
    """The plain datetime reading of an RFC 3339 stamp that parse_time must agree with."""
    match = printers._RFC3339.match(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        stamp = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:
        return None
    zone = match.group(8)
    offset = 0
    if zone not in ("Z", "z"):
        offset = (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return stamp.timestamp() - offset + (float(match.group(7)) if match.group(7) else 0.0)


_STAMPS = st.builds(
    lambda y, mo, d, h, mi, s, frac, zone, sep, pad: (
        f"{pad}{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:{s:02d}{frac}{zone}{pad}"),
    st.integers(1, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 25),
    st.integers(0, 61), st.integers(0, 61),
    st.sampled_from(["", ".5", ".000001", ".123456789", ".999999"]),
    st.sampled_from(["Z", "z", "+01:00", "-05:30", "+14:00", "-00:00", "+99:99", "", "+0100"]),
    st.sampled_from(["T", "t", " ", "_"]), st.sampled_from(["", " ", "\n"]))


@given(st.lists(_STAMPS, min_size=1, max_size=20))
def test_parse_time_agrees_with_datetime_also_when_remembered(stamps: list[str]) -> None:
    # Twice each: the second answer comes from the memo and must be the same.
    for text in stamps + stamps:
        assert parse_time(text) == _reference_parse_time(text), text


def test_parse_time_rejects_impossible_instants() -> None:
    for text in ("2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z",
                 "2026-11-22T11:60:00Z", "2026-11-22T11:43:60Z", "2026-11-22T11:43:39",
                 "2026-11-22", ""):
        assert parse_time(text) is None, text
    assert parse_time("2024-02-29T00:00:00Z") == datetime(
        2024, 2, 29, tzinfo=timezone.utc).timestamp()


def test_parse_time_stays_right_when_its_memo_is_full() -> None:
    limit = printers._parse_rfc3339.cache_info().maxsize
    assert limit is not None
    start = datetime(2026, 11, 22, tzinfo=timezone.utc)
    stamps = [start + timedelta(seconds=second) for second in range(limit + 10)]
    for stamp in stamps + stamps[:10]:  # the first ten were dropped from the memo by then
        assert parse_time(stamp.strftime("%Y-%m-%dT%H:%M:%SZ")) == stamp.timestamp()
        assert printers._parse_rfc3339.cache_info().currsize <= limit


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


# -- the kinds kube-apiserver 1.32 prints beyond the ones with fixtures ---------------------------
# Columns and cells follow pkg/printers/internalversion/printers.go of v1.32 (kubectl shows
# them through server-side Tables; tests/server/test_kubectl_printers.py runs kubectl).

NOW = 1767225610.0  # 2026-01-01T00:00:10Z
META = {"name": "x", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"}


def cells(kind: str, group: str, obj: dict[str, Any]) -> list[Any]:
    return printer_for(kind, group).cells({"metadata": dict(META), **obj}, NOW)


@pytest.mark.parametrize("text,expected", [
    ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1.5Gi", "1536Mi"), ("0.5Ki", "512"), ("1536", "1536"),
    ("1000", "1k"), ("1024", "1024"), ("100", "100"), ("0.5", "500m"), ("2000m", "2"),
    ("1500m", "1500m"), ("100M", "100M"), ("1e3", "1e3"), ("12e6", "12e6"), ("0", "0"),
    ("0.1m", "100u"), ("0.0000000001", "1n"), ("-1", "-1"), ("1E", "1E"), (2, "2"),
    ("1.0001Gi", "1073849198182400u"), ("not a quantity", "not a quantity"),
])
def test_quantity_string_is_apimachinerys_canonical_form(text: Any, expected: str) -> None:
    assert printers.quantity_string(text) == expected


KUBECTL_HEADERS = {  # (kind, group): the column names, wide ones included, in order
    ("Job", "batch"): ["Name", "Status", "Completions", "Duration", "Age", "Containers",
                       "Images", "Selector"],
    ("CronJob", "batch"): ["Name", "Schedule", "Timezone", "Suspend", "Active",
                           "Last Schedule", "Age", "Containers", "Images", "Selector"],
    ("ReplicationController", ""): ["Name", "Desired", "Current", "Ready", "Age",
                                    "Containers", "Images", "Selector"],
    ("Ingress", "networking.k8s.io"): ["Name", "Class", "Hosts", "Address", "Ports", "Age"],
    ("IngressClass", "networking.k8s.io"): ["Name", "Controller", "Parameters", "Age"],
    ("NetworkPolicy", "networking.k8s.io"): ["Name", "Pod-Selector", "Age"],
    ("RoleBinding", "rbac.authorization.k8s.io"): ["Name", "Role", "Age", "Users", "Groups",
                                                   "ServiceAccounts"],
    ("ClusterRoleBinding", "rbac.authorization.k8s.io"): ["Name", "Role", "Age", "Users",
                                                          "Groups", "ServiceAccounts"],
    ("CertificateSigningRequest", "certificates.k8s.io"): [
        "Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"],
    ("APIService", "apiregistration.k8s.io"): ["Name", "Service", "Available", "Age"],
    ("StorageClass", "storage.k8s.io"): ["Name", "Provisioner", "ReclaimPolicy",
                                         "VolumeBindingMode", "AllowVolumeExpansion", "Age"],
    ("CSIDriver", "storage.k8s.io"): ["Name", "AttachRequired", "PodInfoOnMount",
                                      "StorageCapacity", "TokenRequests", "RequiresRepublish",
                                      "Modes", "Age"],
    ("CSINode", "storage.k8s.io"): ["Name", "Drivers", "Age"],
    ("CSIStorageCapacity", "storage.k8s.io"): ["Name", "StorageClassName", "Capacity"],
    ("VolumeAttachment", "storage.k8s.io"): ["Name", "Attacher", "PV", "Node", "Attached",
                                             "Age"],
    ("PersistentVolume", ""): ["Name", "Capacity", "Access Modes", "Reclaim Policy", "Status",
                               "Claim", "StorageClass", "VolumeAttributesClass", "Reason",
                               "Age", "VolumeMode"],
    ("PersistentVolumeClaim", ""): ["Name", "Status", "Volume", "Capacity", "Access Modes",
                                    "StorageClass", "VolumeAttributesClass", "Age",
                                    "VolumeMode"],
    ("HorizontalPodAutoscaler", "autoscaling"): ["Name", "Reference", "Targets", "MinPods",
                                                 "MaxPods", "Replicas", "Age"],
    ("PodDisruptionBudget", "policy"): ["Name", "Min Available", "Max Unavailable",
                                        "Allowed Disruptions", "Age"],
    ("PriorityClass", "scheduling.k8s.io"): ["Name", "Value", "Global-Default", "Age",
                                             "PreemptionPolicy"],
    ("EndpointSlice", "discovery.k8s.io"): ["Name", "AddressType", "Ports", "Endpoints",
                                            "Age"],
    ("Endpoints", ""): ["Name", "Endpoints", "Age"],
    ("ResourceQuota", ""): ["Name", "Age", "Request", "Limit"],
    ("MutatingWebhookConfiguration", "admissionregistration.k8s.io"): ["Name", "Webhooks",
                                                                       "Age"],
    ("ValidatingWebhookConfiguration", "admissionregistration.k8s.io"): ["Name", "Webhooks",
                                                                         "Age"],
    ("ValidatingAdmissionPolicy", "admissionregistration.k8s.io"): [
        "Name", "Validations", "ParamKind", "Age"],
    ("ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io"): [
        "Name", "PolicyName", "ParamRef", "Age"],
    ("RuntimeClass", "node.k8s.io"): ["Name", "Handler", "Age"],
    ("FlowSchema", "flowcontrol.apiserver.k8s.io"): [
        "Name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age",
        "MissingPL"],
    ("PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io"): [
        "Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize", "QueueLengthLimit",
        "Age"],
    ("ControllerRevision", "apps"): ["Name", "Controller", "Revision", "Age"],
    ("PodTemplate", ""): ["Name", "Containers", "Images", "Pod Labels"],
    ("ComponentStatus", ""): ["Name", "Status", "Message", "Error"],
}


@pytest.mark.parametrize("kind,group", list(KUBECTL_HEADERS))
def test_more_kinds_have_kube_apiservers_columns(kind: str, group: str) -> None:
    printer = printer_for(kind, group)
    assert printer is not DEFAULT_PRINTER
    assert printer.column_names() == KUBECTL_HEADERS[(kind, group)]
    first = printer.columns[0]
    assert (first.format, first.description) == ("name", printers._NAME_DOC)
    assert all(c.type in ("string", "integer", "boolean") for c in printer.columns)
    plural = next(p for (g, p), k in printers.BUILTIN_RESOURCES.items()
                  if k == kind and g == group)
    assert printers.kind_for_resource(plural, group) == kind
    row = printer.cells({"metadata": dict(META)}, NOW)  # a bare object prints, too
    assert len(row) == len(printer.columns)


def test_kinds_without_a_printer_in_kube_apiserver_keep_name_and_created_at() -> None:
    for kind, group in [("Role", "rbac.authorization.k8s.io"), ("LimitRange", ""),
                        ("ClusterRole", "rbac.authorization.k8s.io")]:
        assert printer_for(kind, group) is DEFAULT_PRINTER


def test_column_types_priorities_and_descriptions_follow_the_go_definitions() -> None:
    cron = printer_for("CronJob", "batch")
    assert [(c.name, c.type, c.priority) for c in cron.columns if c.type != "string"] == [
        ("Suspend", "boolean", 0), ("Active", "integer", 0)]
    assert cron.columns[1].description == (
        "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.")
    assert printer_for("Job", "batch").column_names(wide=False) == [
        "Name", "Status", "Completions", "Duration", "Age"]
    pc = printer_for("PriorityClass", "scheduling.k8s.io")
    assert pc.column_names(wide=False)[-1] == "PreemptionPolicy"  # priority 0 in Go too
    rq = printer_for("VolumeAttachment", "storage.k8s.io").columns[1]
    assert (rq.name, rq.format) == ("Attacher", "name")
    handler = printer_for("RuntimeClass", "node.k8s.io").columns[1]
    assert handler.description == ""  # Go reads ObjectMeta's doc of "handler": none
    csr = printer_for("CertificateSigningRequest", "certificates.k8s.io").columns[3]
    assert csr.description == "Base64-encoded PKCS#10 CSR data"  # Go's (odd) pick


def test_job_status_completions_and_duration() -> None:
    template = {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}
    job = {"spec": {"completions": 3, "template": template,
                    "selector": {"matchLabels": {"job-name": "x"}}},
           "status": {"succeeded": 2, "startTime": "2026-01-01T00:00:02Z"}}
    assert cells("Job", "batch", job) == ["x", "Running", "2/3", "8s", "10s", "pi", "perl",
                                          "job-name=x"]
    done = {"spec": {"parallelism": 4}, "status": {
        "succeeded": 1, "startTime": "2026-01-01T00:00:00Z",
        "completionTime": "2026-01-01T00:00:05Z",
        "conditions": [{"type": "Complete", "status": "True"}]}}
    assert cells("Job", "batch", done)[1:4] == ["Complete", "1/1 of 4", "5s"]
    for conditions, status in [([{"type": "Failed", "status": "True"}], "Failed"),
                               ([{"type": "Suspended", "status": "True"}], "Suspended"),
                               ([{"type": "FailureTarget", "status": "True"}],
                                "FailureTarget"),
                               ([{"type": "Complete", "status": "False"}], "Running")]:
        assert cells("Job", "batch", {"status": {"conditions": conditions}})[1:4] == [
            status, "0/1", ""]
    deleting = {"metadata": {**META, "deletionTimestamp": "2026-01-01T00:00:09Z"}}
    assert printer_for("Job", "batch").cells(deleting, NOW)[1] == "Terminating"


def test_cronjob_cells() -> None:
    cron = {"spec": {"schedule": "*/5 * * * *", "suspend": True, "jobTemplate": {"spec": {
        "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}},
            "status": {"active": [{"name": "a"}, {"name": "b"}],
                       "lastScheduleTime": "2026-01-01T00:00:07Z"}}
    assert cells("CronJob", "batch", cron) == [
        "x", "*/5 * * * *", "<none>", "True", 2, "3s", "10s", "c", "busybox", "<none>"]
    assert cells("CronJob", "batch", {"spec": {"timeZone": "Etc/UTC"}})[2:6] == [
        "Etc/UTC", "<unset>", 0, "<none>"]


def test_hpa_targets_as_kubectl_shows_them() -> None:
    ref = {"kind": "Deployment", "name": "web"}
    v2 = {"apiVersion": "autoscaling/v2", "spec": {
        "scaleTargetRef": ref, "minReplicas": 2, "maxReplicas": 10, "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": 60}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {
                "type": "AverageValue", "averageValue": "1024Mi"}}},
            {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {
                "type": "AverageValue", "averageValue": "1k"}}}]},
          "status": {"currentReplicas": 3, "currentMetrics": [
              {"type": "Resource", "resource": {"name": "cpu", "current": {
                  "averageUtilization": 42, "averageValue": "120m"}}}]}}
    assert cells("HorizontalPodAutoscaler", "autoscaling", v2) == [
        "x", "Deployment/web", "cpu: 42%/60%, memory: <unknown>/1Gi + 1 more...", "2", 10, 3,
        "10s"]
    others = {"spec": {"metrics": [
        {"type": "External", "external": {"target": {"averageValue": "30"}}},
        {"type": "Object", "object": {"target": {"value": "2k"}}}]},
        "status": {"currentMetrics": [
            {"type": "External", "external": {"current": {"averageValue": "25"}}},
            {"type": "Object", "object": {"current": {"value": "1500"}}}]}}
    assert cells("HorizontalPodAutoscaler", "autoscaling", others)[2:4] == [
        "25/30 (avg), 1500/2k", "<unset>"]
    v1 = {"apiVersion": "autoscaling/v1", "spec": {
        "scaleTargetRef": ref, "maxReplicas": 4, "targetCPUUtilizationPercentage": 50},
          "status": {"currentCPUUtilizationPercentage": 12}}
    assert cells("HorizontalPodAutoscaler", "autoscaling", v1)[2] == "cpu: 12%/50%"
    v1_default = {"apiVersion": "autoscaling/v1", "spec": {"scaleTargetRef": ref}}
    assert cells("HorizontalPodAutoscaler", "autoscaling", v1_default)[2] == (
        "cpu: <unknown>/80%")  # autoscaling/v1's implicit default, as the conversion adds
    no_metrics = {"apiVersion": "autoscaling/v2", "spec": {"metrics": []}}
    assert cells("HorizontalPodAutoscaler", "autoscaling", no_metrics)[2] == "<none>"


def test_volume_claims_and_classes() -> None:
    pv = {"metadata": {**META, "annotations": {
        "volume.beta.kubernetes.io/storage-class": "beta"}},
          "spec": {"capacity": {"storage": "1.5Gi"}, "accessModes": [
              "ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce", "ReadWriteOncePod"],
                   "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "fast",
                   "claimRef": {"namespace": "ns", "name": "data"}, "volumeMode": "Block"},
          "status": {"phase": "Bound"}}
    assert printer_for("PersistentVolume").cells(pv, NOW) == [
        "x", "1536Mi", "RWO,RWX,RWOP", "Delete", "Bound", "ns/data", "beta", "<unset>", "",
        "10s", "Block"]
    pending = {"spec": {"resources": {"requests": {"storage": "5Gi"}},
                        "storageClassName": "fast"}, "status": {"phase": "Pending"}}
    assert cells("PersistentVolumeClaim", "", pending) == [
        "x", "Pending", "", "", "", "fast", "<unset>", "10s", "<unset>"]
    bound = {"metadata": {**META, "deletionTimestamp": "2026-01-01T00:00:09Z"},
             "spec": {"volumeName": "pv-1", "volumeAttributesClassName": "gold"},
             "status": {"phase": "Bound", "capacity": {"storage": "1000M"},
                        "accessModes": ["ReadOnlyMany"]}}
    assert printer_for("PersistentVolumeClaim").cells(bound, NOW)[:7] == [
        "x", "Terminating", "pv-1", "1G", "ROX", "", "gold"]
    sc = {"metadata": {**META, "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": "p"}
    assert printer_for("StorageClass", "storage.k8s.io").cells(sc, NOW) == [
        "x (default)", "p", "Delete", "Immediate", False, "10s"]
    driver = {"spec": {"tokenRequests": [{"audience": "a"}, {"audience": "b"}],
                       "storageCapacity": True}}
    assert cells("CSIDriver", "storage.k8s.io", driver) == [
        "x", True, False, True, "a,b", False, "<none>", "10s"]
    assert cells("CSIStorageCapacity", "storage.k8s.io", {}) == ["x", "", "<unset>"]
    attachment = {"spec": {"attacher": "csi.x", "nodeName": "n1", "source": {
        "persistentVolumeName": "pv-1"}}, "status": {"attached": True}}
    assert cells("VolumeAttachment", "storage.k8s.io", attachment) == [
        "x", "csi.x", "pv-1", "n1", True, "10s"]


def test_network_kinds() -> None:
    rules = [{"host": f"h{i}.example.com"} for i in range(4)]
    ingress = {"spec": {"rules": rules, "tls": [{}]}, "status": {"loadBalancer": {
        "ingress": [{"ip": "10.0.0.2"}, {"hostname": "lb.example.com"}, {"ip": "10.0.0.2"}]}}}
    assert cells("Ingress", "networking.k8s.io", ingress) == [
        "x", "<none>", "h0.example.com,h1.example.com,h2.example.com + 1 more...",
        "10.0.0.2,lb.example.com", "80, 443", "10s"]
    assert cells("Ingress", "networking.k8s.io", {"spec": {"rules": [{}]}})[2:5] == [
        "*", "", "80"]
    params = {"spec": {"controller": "c", "parameters": {"kind": "P", "name": "n"}}}
    assert cells("IngressClass", "networking.k8s.io", params)[1:3] == ["c", "P/n"]
    assert cells("NetworkPolicy", "networking.k8s.io", {"spec": {"podSelector": {}}})[1] == (
        "<none>")
    subsets = {"subsets": [
        {"addresses": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}],
         "ports": [{"port": 80}, {"port": 443}]}]}
    assert cells("Endpoints", "", subsets)[1] == "10.0.0.1:80,[fd00::1]:80,10.0.0.1:443 + 1 more..."
    headless = {"subsets": [{"addresses": [{"ip": "10.0.0.7"}]}]}
    assert cells("Endpoints", "", headless)[1:] == ["10.0.0.7", "10s"]
    assert cells("Endpoints", "", {})[1] == "<none>"
    eps = {"addressType": "IPv4", "ports": [{"port": 80}, {"name": "dns"}, {}],
           "endpoints": [{"addresses": ["10.0.0.1", "10.0.0.2"]}]}
    assert cells("EndpointSlice", "discovery.k8s.io", eps) == [
        "x", "IPv4", "80,dns,*", "10.0.0.1,10.0.0.2", "10s"]
    assert cells("EndpointSlice", "discovery.k8s.io", {})[2:4] == ["<unset>", "<unset>"]


def test_rbac_certificates_and_apiservices() -> None:
    binding = {"roleRef": {"kind": "ClusterRole", "name": "view"}, "subjects": [
        {"kind": "User", "name": "jane"}, {"kind": "User", "name": "joe"},
        {"kind": "Group", "name": "devs"},
        {"kind": "ServiceAccount", "name": "ci", "namespace": "build"}]}
    assert cells("RoleBinding", "rbac.authorization.k8s.io", binding) == [
        "x", "ClusterRole/view", "10s", "jane, joe", "devs", "build/ci"]
    csr = {"spec": {"signerName": "kubernetes.io/kubelet-serving", "username": "system:node:a",
                    "expirationSeconds": 3600},
           "status": {"conditions": [{"type": "Approved"}, {"type": "Failed"}],
                      "certificate": "LS0t"}}
    assert cells("CertificateSigningRequest", "certificates.k8s.io", csr) == [
        "x", "10s", "kubernetes.io/kubelet-serving", "system:node:a", "60m",
        "Approved,Failed,Issued"]
    assert cells("CertificateSigningRequest", "certificates.k8s.io", {
        "status": {"conditions": [{"type": "Approved"}, {"type": "Denied"}]}})[2:] == [
        "<none>", "", "<none>", "Denied"]
    local = {"status": {"conditions": [{"type": "Available", "status": "True"}]}}
    assert cells("APIService", "apiregistration.k8s.io", local) == ["x", "Local", "True",
                                                                    "10s"]
    remote = {"spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
              "status": {"conditions": [{"type": "Available", "status": "False",
                                         "reason": "MissingEndpoints"}]}}
    assert cells("APIService", "apiregistration.k8s.io", remote)[1:3] == [
        "kube-system/metrics-server", "False (MissingEndpoints)"]
    assert cells("APIService", "apiregistration.k8s.io", {})[2] == "Unknown"


def test_policy_quota_scheduling_and_admission() -> None:
    assert cells("PodDisruptionBudget", "policy", {
        "spec": {"maxUnavailable": 1}, "status": {"disruptionsAllowed": 2}}) == [
        "x", "N/A", "1", 2, "10s"]
    quota = {"status": {"hard": {"requests.cpu": "2", "limits.memory": "2Gi", "pods": "10",
                                 "limits.cpu": "4000m"},
                        "used": {"requests.cpu": "500m", "pods": "3"}}}
    assert cells("ResourceQuota", "", quota) == [
        "x", "10s", "pods: 3/10, requests.cpu: 500m/2", "limits.cpu: 0/4, limits.memory: 0/2Gi"]
    assert cells("PriorityClass", "scheduling.k8s.io", {
        "value": 1000, "globalDefault": True, "preemptionPolicy": "Never"}) == [
        "x", 1000, True, "10s", "Never"]
    assert cells("RuntimeClass", "node.k8s.io", {"handler": "runsc"}) == ["x", "runsc", "10s"]
    hooks = {"webhooks": [{"name": "a"}, {"name": "b"}]}
    assert cells("ValidatingWebhookConfiguration", "admissionregistration.k8s.io",
                 hooks) == ["x", 2, "10s"]
    policy = {"spec": {"validations": [{"expression": "true"}],
                       "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}}
    assert cells("ValidatingAdmissionPolicy", "admissionregistration.k8s.io", policy) == [
        "x", 1, "v1/ConfigMap", "10s"]
    group = "admissionregistration.k8s.io"
    for ref, text in [(None, "<unset>"), ({"name": "p"}, "*/p"),
                      ({"name": "p", "namespace": "ns"}, "ns/p"),
                      ({"selector": {"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
                          {"key": "k", "operator": "In", "values": ["v", "w"]}]}},
                       "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},"
                       "MatchExpressions:[]LabelSelectorRequirement{"
                       "LabelSelectorRequirement{Key:k,Operator:In,Values:[v w],},},}")]:
        spec = {"policyName": "pol", **({"paramRef": ref} if ref else {})}
        assert cells("ValidatingAdmissionPolicyBinding", group, {"spec": spec})[1:3] == [
            "pol", text]


def test_flowcontrol_sorts_flow_schemas_and_prints_levels() -> None:
    group = "flowcontrol.apiserver.k8s.io"
    schemas = [{"metadata": {"name": name}, "spec": {
        "matchingPrecedence": precedence, "priorityLevelConfiguration": {"name": "pl"}}}
        for name, precedence in [("b", 500), ("z", 100), ("a", 500)]]
    schemas[0]["spec"]["distinguisherMethod"] = {"type": "ByUser"}
    schemas[1]["status"] = {"conditions": [{"type": "Dangling", "status": "False"}]}
    table = to_table(printer_for("FlowSchema", group), schemas, NOW)
    assert [r["cells"][:4] + r["cells"][5:] for r in table["rows"]] == [
        ["z", "pl", 100, "<none>", "False"], ["a", "pl", 500, "<none>", "?"],
        ["b", "pl", 500, "ByUser", "?"]]
    limited = {"spec": {"type": "Limited", "limited": {"limitResponse": {
        "type": "Queue", "queuing": {"queues": 16}}}}}
    assert cells("PriorityLevelConfiguration", group, limited) == [
        "x", "Limited", 30, 16, 8, 50, "10s"]
    assert cells("PriorityLevelConfiguration", group, {"spec": {"type": "Exempt"}}) == [
        "x", "Exempt", "<none>", "<none>", "<none>", "<none>", "10s"]


def test_core_and_apps_leftovers() -> None:
    rc = {"spec": {"replicas": 3, "selector": {"app": "a"}, "template": {"spec": {
        "containers": [{"name": "c", "image": "i"}]}}}, "status": {"replicas": 2}}
    assert cells("ReplicationController", "", rc) == ["x", 3, 2, 0, "10s", "c", "i", "app=a"]
    owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
             "controller": True}
    revision = {"metadata": {**META, "ownerReferences": [owner]}, "revision": 4}
    assert printer_for("ControllerRevision", "apps").cells(revision, NOW) == [
        "x", "statefulset.apps/web", 4, "10s"]
    assert cells("ControllerRevision", "apps", {})[1] == "<none>"
    template = {"template": {"metadata": {"labels": {"app": "t"}}, "spec": {
        "containers": [{"name": "c", "image": "i"}]}}}
    assert cells("PodTemplate", "", template) == ["x", "c", "i", "app=t"]
    healthy = {"conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]}
    assert cells("ComponentStatus", "", healthy) == ["x", "Healthy", "ok", ""]
