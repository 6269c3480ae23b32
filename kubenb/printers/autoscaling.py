"""autoscaling's printer: HorizontalPodAutoscalers, v1 and v2 objects alike."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    NONE,
    UNKNOWN,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
    quantity_or,
)
from kubenb.quantity import quantity_string

__all__ = ["HPA_PRINTER"]


def _hpa_metrics(hpa: Obj) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Spec metrics and current metrics as autoscaling/v2 has them; an autoscaling/v1
    object's CPU target (80% when it names none) converted as the apiserver does."""
    spec = dict_field(hpa, "spec")
    status = dict_field(hpa, "status")
    v1 = as_str(hpa.get("apiVersion")) == "autoscaling/v1" or (
        "metrics" not in spec and "targetCPUUtilizationPercentage" in spec)
    if not v1:
        return dicts(spec.get("metrics")), dicts(status.get("currentMetrics"))
    target = spec.get("targetCPUUtilizationPercentage")
    metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 80 if target is None else target}}}]
    current = status.get("currentCPUUtilizationPercentage")
    statuses = [] if current is None else [{"type": "Resource", "resource": {
        "name": "cpu", "current": {"averageUtilization": current}}}]
    return metrics, statuses


def _hpa_targets(hpa: Obj) -> str:
    """Go's formatHPAMetrics: "cpu: 40%/80%", at most two, then "+ N more..."."""
    specs, statuses = _hpa_metrics(hpa)
    if not specs:
        return NONE
    shown: list[str] = []
    for index, spec in enumerate(specs):
        status = statuses[index] if index < len(statuses) else {}
        kind = spec.get("type")
        if kind in ("External", "Object"):
            key = "external" if kind == "External" else "object"
            target = dict_field(dict_field(spec, key), "target")
            current = dict_field(dict_field(status, key), "current") if isinstance(
                status.get(key), dict) else None
            if target.get("averageValue") is not None:
                now_text = UNKNOWN if current is None or current.get(
                    "averageValue") is None else quantity_string(current["averageValue"])
                shown.append(f"{now_text}/{quantity_string(target['averageValue'])} (avg)")
            else:
                now_text = UNKNOWN if current is None else quantity_or(
                    current.get("value"), "<nil>")
                shown.append(f"{now_text}/{quantity_or(target.get('value'), '<nil>')}")
        elif kind == "Pods":
            target = dict_field(dict_field(spec, "pods"), "target")
            current = status.get("pods")
            now_text = UNKNOWN if not isinstance(current, dict) else quantity_or(
                nested_field(current, "current", "averageValue"), "<nil>")
            shown.append(f"{now_text}/{quantity_or(target.get('averageValue'), '<nil>')}")
        elif kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            source = dict_field(spec, key)
            target = dict_field(source, "target")
            current = status.get(key)
            name = as_str(source.get("name"))
            if target.get("averageValue") is not None:
                now_text = UNKNOWN if not isinstance(current, dict) else quantity_or(
                    nested_field(current, "current", "averageValue"), "<nil>")
                shown.append(f"{name}: {now_text}/{quantity_string(target['averageValue'])}")
            else:
                utilization = nested_field(current, "current", "averageUtilization") if isinstance(
                    current, dict) else None
                now_text = UNKNOWN if utilization is None else f"{as_int(utilization)}%"
                want = target.get("averageUtilization")
                want_text = "<auto>" if want is None else f"{as_int(want)}%"
                shown.append(f"{name}: {now_text}/{want_text}")
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:2])
    return f"{text} + {len(shown) - 2} more..." if len(shown) > 2 else text


def _hpa_cells(hpa: Obj, now: float) -> list[Any]:
    spec = dict_field(hpa, "spec")
    ref = dict_field(spec, "scaleTargetRef")
    minimum = spec.get("minReplicas")
    return [object_name(hpa), f"{as_str(ref.get('kind'))}/{as_str(ref.get('name'))}",
            _hpa_targets(hpa), "<unset>" if minimum is None else str(as_int(minimum)),
            as_int(spec.get("maxReplicas")),
            as_int(nested_field(hpa, "status", "currentReplicas")), object_age(hpa, now)]


HPA_PRINTER = TablePrinter((
    name_column(),
    Column("Reference", description=(
        "scaleTargetRef points to the target resource to scale, and is used to the pods for "
        "which metrics should be collected, as well as to actually change the replica count.")),
    Column("Targets", description=(
        "metrics contains the specifications for which to use to calculate the desired replica "
        "count (the maximum replica count across all metrics will be used).  The desired "
        "replica count is calculated multiplying the ratio between the target value and the "
        "current value by the current number of pods.  Ergo, metrics used must decrease as the "
        "pod count is increased, and vice-versa.  See the individual metric source types for "
        "more information about how each type of metric must respond.")),
    Column("MinPods", description=(
        "minReplicas is the lower limit for the number of replicas to which the autoscaler can "
        "scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha "
        "feature gate HPAScaleToZero is enabled and at least one Object or External metric is "
        "configured.  Scaling is active as long as at least one metric value is available.")),
    Column("MaxPods", description=(
        "maxReplicas is the upper limit for the number of replicas to which the autoscaler can "
        "scale up. It cannot be less that minReplicas.")),
    Column("Replicas", description=(
        "currentReplicas is current number of replicas of pods managed by this autoscaler, as "
        "last seen by the autoscaler.")),
    AGE_COLUMN,
), _hpa_cells)
