"""kubenb.printers.autoscaling: an HPA's targets as kubectl shows them, v1 and v2 alike."""

from __future__ import annotations

from tests.printers.support import cells


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
