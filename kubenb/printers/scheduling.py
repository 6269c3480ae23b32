"""scheduling.k8s.io's printer: PriorityClasses."""

from __future__ import annotations

from typing import Any

from kubenb.printers.table import (
    AGE_COLUMN,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    name_column,
    object_age,
    object_name,
)

__all__ = ["PRIORITYCLASS_PRINTER"]


def _priority_class_cells(pc: Obj, now: float) -> list[Any]:
    return [object_name(pc), as_int(pc.get("value")), pc.get("globalDefault") is True,
            object_age(pc, now), as_str(pc.get("preemptionPolicy"))]


PRIORITYCLASS_PRINTER = TablePrinter((
    name_column(),
    Column("Value", "integer", description=(
        "value represents the integer value of this priority class. This is the actual "
        "priority that pods receive when they have the name of this class in their pod spec.")),
    Column("Global-Default", "boolean", description=(
        "globalDefault specifies whether this PriorityClass should be considered as the "
        "default priority for pods that do not have any priority class. Only one PriorityClass "
        "can be marked as `globalDefault`. However, if more than one PriorityClasses exists "
        "with their `globalDefault` field set to true, the smallest value of such global "
        "default PriorityClasses will be used as the default priority.")),
    AGE_COLUMN,
    Column("PreemptionPolicy", description=(
        "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
        "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.")),
), _priority_class_cells)
