"""kubenb.printers.core: the core group's columns, pods' status and restarts above all."""

from __future__ import annotations

from typing import Any

from kubenb.printers import POD_PRINTER, parse_time, printer_for, table_row
from tests.printers.support import META, NOW, cells


def POD(pod: dict[str, Any], now: float) -> list[Any]:
    return POD_PRINTER.cells(pod, now)


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
    row = table_row(POD_PRINTER, done, now)
    assert row["conditions"] == [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                  "message": "The pod has completed successfully."}]


def test_services_secrets_and_service_accounts() -> None:
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


def test_persistent_volumes_and_claims() -> None:
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


def test_endpoints() -> None:
    subsets = {"subsets": [
        {"addresses": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}],
         "ports": [{"port": 80}, {"port": 443}]}]}
    assert cells("Endpoints", "", subsets)[1] == "10.0.0.1:80,[fd00::1]:80,10.0.0.1:443 + 1 more..."
    headless = {"subsets": [{"addresses": [{"ip": "10.0.0.7"}]}]}
    assert cells("Endpoints", "", headless)[1:] == ["10.0.0.7", "10s"]
    assert cells("Endpoints", "", {})[1] == "<none>"


def test_resource_quota() -> None:
    quota = {"status": {"hard": {"requests.cpu": "2", "limits.memory": "2Gi", "pods": "10",
                                 "limits.cpu": "4000m"},
                        "used": {"requests.cpu": "500m", "pods": "3"}}}
    assert cells("ResourceQuota", "", quota) == [
        "x", "10s", "pods: 3/10, requests.cpu: 500m/2", "limits.cpu: 0/4, limits.memory: 0/2Gi"]


def test_replication_controllers_pod_templates_and_component_statuses() -> None:
    rc = {"spec": {"replicas": 3, "selector": {"app": "a"}, "template": {"spec": {
        "containers": [{"name": "c", "image": "i"}]}}}, "status": {"replicas": 2}}
    assert cells("ReplicationController", "", rc) == ["x", 3, 2, 0, "10s", "c", "i", "app=a"]
    template = {"template": {"metadata": {"labels": {"app": "t"}}, "spec": {
        "containers": [{"name": "c", "image": "i"}]}}}
    assert cells("PodTemplate", "", template) == ["x", "c", "i", "app=t"]
    healthy = {"conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]}
    assert cells("ComponentStatus", "", healthy) == ["x", "Healthy", "ok", ""]
