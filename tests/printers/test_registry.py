"""kubenb.printers.registry: which printer each kind gets, checked cell for cell against
the Tables a real kube-apiserver 1.32 sent (fixtures/realapi/table), at the capture's time.

Columns and cells follow pkg/printers/internalversion/printers.go of v1.32 (kubectl shows
them through server-side Tables; tests/server/test_kubectl_printers.py runs kubectl).
"""

from __future__ import annotations

import pytest

from kubenb.printers import BUILTIN_RESOURCES, DEFAULT_PRINTER, kind_for_resource, printer_for
from kubenb.printers.table import NAME_DOC
from tests.printers.support import META, NOW, captured_at, exchange, printer_of


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


def test_every_other_type_gets_name_and_created_at() -> None:
    meta = {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"}
    assert printer_for("CustomResourceDefinition", "apiextensions.k8s.io") is DEFAULT_PRINTER
    assert DEFAULT_PRINTER.cells({"metadata": meta}, NOW) == ["x", "2026-01-01T00:00:00Z"]
    assert [c.name for c in DEFAULT_PRINTER.columns] == ["Name", "Created At"]


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
    assert (first.format, first.description) == ("name", NAME_DOC)
    assert all(c.type in ("string", "integer", "boolean") for c in printer.columns)
    plural = next(p for (g, p), k in BUILTIN_RESOURCES.items() if k == kind and g == group)
    assert kind_for_resource(plural, group) == kind
    row = printer.cells({"metadata": dict(META)}, NOW)  # a bare object prints, too
    assert len(row) == len(printer.columns)


def test_kinds_without_a_printer_in_kube_apiserver_keep_name_and_created_at() -> None:
    for kind, group in [("Role", "rbac.authorization.k8s.io"), ("LimitRange", ""),
                        ("ClusterRole", "rbac.authorization.k8s.io")]:
        assert printer_for(kind, group) is DEFAULT_PRINTER


def test_every_builtin_resource_names_a_kind_with_a_printer() -> None:
    for (group, _), kind in BUILTIN_RESOURCES.items():
        assert printer_for(kind, group) is not DEFAULT_PRINTER, (group, kind)
    assert kind_for_resource("roles", "rbac.authorization.k8s.io") is None


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
