"""`kubectl get <kind>` and `-o wide` for the kinds beyond pods and deployments: the
columns kubectl prints come from the server's Tables (kubenb.printers), so these run
the real kubectl 1.32 against one embedded server holding one object of each kind."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubenb.server import EmbeddedServer
from tests.helpers import Kubectl, needs_kubectl

pytestmark = [needs_kubectl, pytest.mark.slow]  # a kubectl process per call

NS = {"namespace": "default"}
TEMPLATE = {"spec": {"restartPolicy": "Never",
                     "containers": [{"name": "pi", "image": "perl:5.34"}]}}
RBAC = "rbac.authorization.k8s.io"
CSR = base64.b64encode(b"-----BEGIN CERTIFICATE REQUEST-----\n...\n").decode()

OBJECTS = [
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", **NS},
     "spec": {"template": TEMPLATE}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly", **NS},
     "spec": {"schedule": "0 3 * * *", "timeZone": "Etc/UTC",
              "jobTemplate": {"spec": {"template": TEMPLATE}}}},
    {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "old", **NS},
     "spec": {"replicas": 2, "selector": {"app": "old"}, "template": {
         "metadata": {"labels": {"app": "old"}},
         "spec": {"containers": [{"name": "a", "image": "nginx"}]}}}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "nginx"},
     "spec": {"controller": "k8s.io/ingress-nginx", "parameters": {
         "apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "lb"}}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web", **NS},
     "spec": {"ingressClassName": "nginx", "tls": [{"hosts": ["a.example.com"]}],
              "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}]}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
     "metadata": {"name": "deny", **NS}, "spec": {"podSelector": {"matchLabels": {"app": "db"}}}},
    {"apiVersion": f"{RBAC}/v1", "kind": "Role", "metadata": {"name": "reader", **NS},
     "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]},
    {"apiVersion": f"{RBAC}/v1", "kind": "RoleBinding", "metadata": {"name": "read-pods", **NS},
     "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "reader"},
     "subjects": [{"kind": "User", "name": "jane", "apiGroup": RBAC},
                  {"kind": "Group", "name": "devs", "apiGroup": RBAC},
                  {"kind": "ServiceAccount", "name": "builder", "namespace": "default"}]},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {
        "name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
     "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer",
     "allowVolumeExpansion": True},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
     "metadata": {"name": "hostpath.csi.k8s.io"},
     "spec": {"attachRequired": False, "podInfoOnMount": True,
              "volumeLifecycleModes": ["Persistent", "Ephemeral"]}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
     "metadata": {"name": "cap-1", **NS}, "storageClassName": "fast", "capacity": "1.5Gi"},
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
     "spec": {"capacity": {"storage": "1024Mi"}, "accessModes": ["ReadWriteOnce"],
              "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "fast",
              "hostPath": {"path": "/data"}, "claimRef": {"namespace": "default",
                                                          "name": "data"}}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", **NS},
     "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
              "resources": {"requests": {"storage": "1Gi"}}}},
    {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
     "metadata": {"name": "web", **NS},
     "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
              "minReplicas": 2, "maxReplicas": 10, "metrics": [
                  {"type": "Resource", "resource": {"name": "cpu", "target": {
                      "type": "Utilization", "averageUtilization": 60}}}]}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", **NS},
     "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
     "value": 1000},
    {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "lock", **NS},
     "spec": {"holderIdentity": "kernel-1"}},
    {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
     "metadata": {"name": "web-abc", **NS}, "addressType": "IPv4",
     "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
     "endpoints": [{"addresses": [f"10.0.0.{i}"]} for i in range(1, 5)]},
    {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute", **NS},
     "spec": {"hard": {"pods": "10"}}},
    {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", **NS},
     "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}},
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
     "metadata": {"name": "check"},
     "webhooks": [{"name": "check.example.com",
                   "clientConfig": {"url": "https://example.com/check"},
                   "sideEffects": "None", "admissionReviewVersions": ["v1"]}]},
    {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "gvisor"},
     "handler": "runsc"},
    {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
     "metadata": {"name": "batch"},
     "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 10, "limitResponse": {
         "type": "Queue", "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 20}}}}},
    {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
     "metadata": {"name": "aa-late"},
     "spec": {"priorityLevelConfiguration": {"name": "batch"}, "matchingPrecedence": 9000}},
    {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
     "metadata": {"name": "zz-batch"},
     "spec": {"priorityLevelConfiguration": {"name": "batch"}, "matchingPrecedence": 500,
              "distinguisherMethod": {"type": "ByUser"}}},
    {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
     "metadata": {"name": "jane"},
     "spec": {"request": CSR, "signerName": "kubernetes.io/kube-apiserver-client",
              "expirationSeconds": 86400, "usages": ["client auth"]}},
]

# kubectl get <resource> [-o wide]: the header, then the first row without its AGE cell
# (AGE moves with the clock). "" marks an empty cell, as kubectl leaves it blank.
EXPECTED = {
    "jobs": (["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], ["pi", "Running", "0/1", ""],
             ["CONTAINERS", "IMAGES", "SELECTOR"], ["pi", "perl:5.34", "<controller-uid>"]),
    "cronjobs": (["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
                 ["nightly", "0 3 * * *", "Etc/UTC", "False", "0", "<none>"],
                 ["CONTAINERS", "IMAGES", "SELECTOR"], ["pi", "perl:5.34", "<none>"]),
    "replicationcontrollers": (["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
                               ["old", "2", "0", "0"], ["CONTAINERS", "IMAGES", "SELECTOR"],
                               ["a", "nginx", "app=old"]),
    "ingressclasses": (["NAME", "CONTROLLER", "PARAMETERS", "AGE"],
                       ["nginx", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/lb"],
                       [], []),
    "ingresses": (["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
                  ["web", "nginx", "a.example.com,b.example.com", "", "80, 443"], [], []),
    "networkpolicies": (["NAME", "POD-SELECTOR", "AGE"], ["deny", "app=db"], [], []),
    "roles": (["NAME", "CREATED AT"], ["reader"], [], []),  # no printer in Go either
    "rolebindings": (["NAME", "ROLE", "AGE"], ["read-pods", "Role/reader"],
                     ["USERS", "GROUPS", "SERVICEACCOUNTS"], ["jane", "devs", "default/builder"]),
    "storageclasses": (["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
                        "ALLOWVOLUMEEXPANSION", "AGE"],
                       ["fast (default)", "kubernetes.io/no-provisioner", "Delete",
                        "WaitForFirstConsumer", "true"], [], []),
    "csidrivers": (["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY",
                    "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"],
                   ["hostpath.csi.k8s.io", "false", "true", "false", "<unset>", "false",
                    "Persistent,Ephemeral"], [], []),
    "csistoragecapacities": (["NAME", "STORAGECLASSNAME", "CAPACITY"],
                             ["cap-1", "fast", "1536Mi"], [], []),
    "persistentvolumes": (["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS",
                           "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"],
                          ["pv-1", "1Gi", "RWO", "Retain", "Pending", "default/data", "fast",
                           "<unset>", ""], ["VOLUMEMODE"], ["Filesystem"]),
    "persistentvolumeclaims": (["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES",
                                "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"],
                               ["data", "Pending", "", "", "", "fast", "<unset>"],
                               ["VOLUMEMODE"], ["Filesystem"]),
    "horizontalpodautoscalers": (["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS",
                                  "REPLICAS", "AGE"],
                                 ["web", "Deployment/web", "cpu: <unknown>/60%", "2", "10", "0"],
                                 [], []),
    "poddisruptionbudgets": (["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE",
                              "ALLOWED DISRUPTIONS", "AGE"], ["web", "50%", "N/A", "0"], [], []),
    "leases": (["NAME", "HOLDER", "AGE"], ["lock", "kernel-1"], [], []),
    # no quota controller fills status.hard and status.used, so both are empty
    "resourcequotas": (["NAME", "AGE", "REQUEST", "LIMIT"], ["compute", "", ""], [], []),
    "limitranges": (["NAME", "CREATED AT"], ["limits"], [], []),
    "validatingwebhookconfigurations": (["NAME", "WEBHOOKS", "AGE"], ["check", "1"], [], []),
    "runtimeclasses": (["NAME", "HANDLER", "AGE"], ["gvisor", "runsc"], [], []),
    "prioritylevelconfigurations": (["NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES",
                                     "HANDSIZE", "QUEUELENGTHLIMIT", "AGE"],
                                    ["batch", "Limited", "10", "16", "4", "20"], [], []),
    "flowschemas": (["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD",
                     "AGE", "MISSINGPL"], ["zz-batch", "batch", "500", "ByUser", "?"], [], []),
    "certificatesigningrequests": (["NAME", "AGE", "SIGNERNAME", "REQUESTOR",
                                    "REQUESTEDDURATION", "CONDITION"],
                                   ["jane", "kubernetes.io/kube-apiserver-client",
                                    "kubenb-admin", "24h", "Pending"], [], []),
}


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubectl]:
    """One bare server for the module (no controller changes what kubectl reads), holding
    one object of each kind, created by kubectl itself."""
    with EmbeddedServer() as server:
        k = Kubectl(server.kubeconfig_path, Path(tmp_path_factory.mktemp("kube-cache")))
        created = k("create", "-f", "-", stdin="\n".join(json.dumps(o) for o in OBJECTS))
        assert created.stdout.count(" created") == len(OBJECTS)
        yield k


def columns(line: str, header: str) -> list[str]:
    """Cut a kubectl output line at the header's column starts (cells may hold spaces)."""
    starts = [m.start() for m in re.finditer(r"(?:(?<=  )|^)\S", header)]
    ends = [*starts[1:], None]
    return [line[a:b].strip() for a, b in zip(starts, ends, strict=True)]


def table(kubectl: Kubectl, resource: str, *flags: str) -> tuple[list[str], list[list[str]]]:
    lines = kubectl("get", resource, *flags).stdout.rstrip("\n").splitlines()
    head = columns(lines[0], lines[0])
    return head, [columns(line, lines[0]) for line in lines[1:]]


@pytest.mark.parametrize("resource", list(EXPECTED))
def test_kubectl_get_prints_kube_apiservers_columns(kubectl: Kubectl, resource: str) -> None:
    head, cells, wide_head, wide_cells = EXPECTED[resource]
    got_head, rows = table(kubectl, resource)
    assert got_head == head
    mine = [r for r in rows if r[0] == cells[0]]
    assert len(mine) == 1, rows
    without_age = [c for h, c in zip(got_head, mine[0], strict=True)
                   if h not in ("AGE", "CREATED AT")]
    assert without_age == cells
    got_wide, wide_rows = table(kubectl, resource, "-o", "wide")
    assert got_wide == head + wide_head
    row = next(r for r in wide_rows if r[0] == cells[0])
    extra = row[len(head):]
    if resource == "jobs":  # the selector names the Job's generated controller-uid
        assert extra[2].startswith("batch.kubernetes.io/controller-uid=")
        extra[2] = "<controller-uid>"
    assert extra == wide_cells


def test_flow_schemas_are_listed_by_precedence(kubectl: Kubectl) -> None:
    _, rows = table(kubectl, "flowschemas")
    # 500 before 9000: neither by name nor in the order they were created
    assert [r[0] for r in rows] == ["zz-batch", "aa-late"]


def test_csr_condition_follows_approval(kubectl: Kubectl) -> None:
    joe = {**OBJECTS[-1], "metadata": {"name": "joe"}}
    kubectl("create", "-f", "-", stdin=json.dumps(joe))
    kubectl("certificate", "approve", "joe")
    _, rows = table(kubectl, "csr")
    assert next(r for r in rows if r[0] == "joe")[-1] == "Approved"


def test_endpointslices_and_endpoints_abbreviate_long_lists(kubectl: Kubectl) -> None:
    head, rows = table(kubectl, "endpointslices")
    assert head == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert next(r for r in rows if r[0] == "web-abc")[1:4] == [
        "IPv4", "80", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more..."]
    head, rows = table(kubectl, "endpoints")
    assert head == ["NAME", "ENDPOINTS", "AGE"]
    assert next(r for r in rows if r[0] == "kubernetes")[1].startswith("127.0.0.1:")
