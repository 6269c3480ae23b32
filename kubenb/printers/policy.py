"""policy/v1's printer: PodDisruptionBudgets."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    Column,
    Obj,
    TablePrinter,
    as_int,
    name_column,
    object_age,
    object_name,
)
from kubenb.quantity import int_or_string

__all__ = ["PDB_PRINTER"]


def _pdb_cells(pdb: Obj, now: float) -> list[Any]:
    spec = dict_field(pdb, "spec")
    minimum, maximum = spec.get("minAvailable"), spec.get("maxUnavailable")
    return [object_name(pdb), "N/A" if minimum is None else int_or_string(minimum),
            "N/A" if maximum is None else int_or_string(maximum),
            as_int(nested_field(pdb, "status", "disruptionsAllowed")), object_age(pdb, now)]


PDB_PRINTER = TablePrinter((
    name_column(),
    Column("Min Available", description="The minimum number of pods that must be available."),
    Column("Max Unavailable", description=(
        "The maximum number of pods that may be unavailable.")),
    Column("Allowed Disruptions", "integer", description=(
        "Calculated number of pods that may be disrupted at this time.")),
    AGE_COLUMN,
), _pdb_cells)
