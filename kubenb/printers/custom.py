"""The columns of custom resources: a CRD version's additionalPrinterColumns.

apiextensions-apiserver's table convertor: Name, then each column's JSONPath evaluated
on the object and the value shown as the column's type says (`cellForJSONValue`).
A column whose JSONPath is outside the supported subset raises ValueError here, as the
API server refuses such a CRD.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kubenb.jsonpath import parse_jsonpath
from kubenb.printers.table import Column, Obj, TablePrinter, name_column, object_name
from kubenb.timeutil import human_duration, parse_time

__all__ = ["CRD_COLUMN_DOC", "DEFAULT_CR_COLUMNS", "custom_resource_printer"]

CRD_COLUMN_DOC = "Custom resource definition column (in JSONPath format): "


def _cell_for(column_type: str, value: Any, now: float) -> Any:
    """The CRD table convertor's `cellForJSONValue` (strings via the JSONPath printer)."""
    if value is None:
        return None
    if column_type == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        return json.dumps(value, separators=(",", ":"))
    if column_type == "integer":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
        return None
    if column_type == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None
    if column_type == "boolean":
        return value if isinstance(value, bool) else None
    if column_type == "date":
        if not isinstance(value, str):
            return None
        stamp = parse_time(value)
        return "<invalid>" if stamp is None else human_duration(now - stamp)
    return None


DEFAULT_CR_COLUMNS: tuple[dict[str, Any], ...] = (
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},)
"""What a CRD version without additionalPrinterColumns shows besides the name."""


def custom_resource_printer(additional_printer_columns: Sequence[dict[str, Any]] | None
                            ) -> TablePrinter:
    """The table of a CRD version: Name, then its additionalPrinterColumns (default: Age)."""
    specs = list(additional_printer_columns or DEFAULT_CR_COLUMNS)
    columns = [name_column()]
    paths = []
    for spec in specs:
        json_path = str(spec.get("jsonPath", ""))
        paths.append((parse_jsonpath(json_path), str(spec.get("type", "string"))))
        columns.append(Column(str(spec.get("name", "")), str(spec.get("type", "string")),
                              str(spec.get("format", "")),
                              str(spec.get("description") or CRD_COLUMN_DOC + json_path),
                              int(spec.get("priority", 0) or 0)))

    def cells(obj: Obj, now: float) -> list[Any]:
        row: list[Any] = [object_name(obj)]
        for path, column_type in paths:
            found = path.find(obj)
            row.append(_cell_for(column_type, found[0], now) if found else None)
        return row

    return TablePrinter(tuple(columns), cells)
