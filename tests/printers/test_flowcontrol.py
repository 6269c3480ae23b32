"""kubenb.printers.flowcontrol: FlowSchemas in matching order, and priority levels' queues."""

from __future__ import annotations

from kubenb.printers import printer_for, to_table
from tests.printers.support import NOW, cells


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
