"""node.k8s.io's printer: RuntimeClasses."""

from __future__ import annotations

from typing import Any

from kubenb.printers.table import (
    AGE_COLUMN,
    Column,
    Obj,
    TablePrinter,
    as_str,
    name_column,
    object_age,
    object_name,
)

__all__ = ["RUNTIMECLASS_PRINTER"]


def _runtime_class_cells(rc: Obj, now: float) -> list[Any]:
    return [object_name(rc), as_str(rc.get("handler")), object_age(rc, now)]


RUNTIMECLASS_PRINTER = TablePrinter((
    name_column(),
    Column("Handler", description=""),
    AGE_COLUMN,
), _runtime_class_cells)
