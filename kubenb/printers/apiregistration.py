"""apiregistration.k8s.io's printer: APIServices, as kube-aggregator prints them."""

from __future__ import annotations

from typing import Any

from kubenb.meta import nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    Column,
    Obj,
    TablePrinter,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
)

__all__ = ["APISERVICE_PRINTER"]


def _apiservice_cells(service: Obj, now: float) -> list[Any]:
    ref = nested_field(service, "spec", "service")
    where = (f"{as_str(ref.get('namespace'))}/{as_str(ref.get('name'))}"
             if isinstance(ref, dict) else "Local")
    available = "Unknown"
    for cond in dicts(nested_field(service, "status", "conditions")):
        if cond.get("type") == "Available":
            status = as_str(cond.get("status"))
            available = f"{status} ({cond['reason']})" if status != "True" and cond.get(
                "reason") else status
            break
    return [object_name(service), where, available, object_age(service, now)]


APISERVICE_PRINTER = TablePrinter((
    name_column(),
    Column("Service", description="The reference to the service that hosts this API endpoint."),
    Column("Available", description="Whether this service is available."),
    AGE_COLUMN,
), _apiservice_cells)
"""kube-aggregator's table for APIServices (its own convertor, not printers.go)."""
