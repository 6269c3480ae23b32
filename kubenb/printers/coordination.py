"""coordination.k8s.io's printer: Leases."""

from __future__ import annotations

from typing import Any

from kubenb.meta import nested_field
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

__all__ = ["LEASE_PRINTER"]


def _lease_cells(obj: Obj, now: float) -> list[Any]:
    return [object_name(obj), as_str(nested_field(obj, "spec", "holderIdentity")),
            object_age(obj, now)]


LEASE_PRINTER = TablePrinter((
    name_column(),
    Column("Holder", description="holderIdentity contains the identity of the holder of a "
                                 "current lease. If Coordinated Leader Election is used, the "
                                 "holder identity must be equal to the elected "
                                 "LeaseCandidate.metadata.name field."),
    AGE_COLUMN,
), _lease_cells)
