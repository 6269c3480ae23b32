"""The machinery of kubectl's columns: `Column`, `TablePrinter` and the Table object.

kube-apiserver answers `as=Table` requests with the columns its printers define for each
kind (`pkg/printers/internalversion`); the modules beside this one hold those printers,
one per API group, each kind's cell function beside its printer. What they share is
here: the column and printer types, the cell helpers that read optional fields of any
shape without raising (a cell shows "" or 0 or "<none>" for what is missing, as Go's
zero values do), the label formatting kubectl prints, and `to_table`, which builds the
`meta.k8s.io/v1` Table dict. Nothing here imports the server: give a printer a dict and
a `now` (epoch seconds, so tests and notebooks can pin time) and get cells back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubenb.meta import nested_field
from kubenb.quantity import quantity_string
from kubenb.timeutil import age

__all__ = [
    "AGE_COLUMN",
    "AGE_DOC",
    "CONTAINERS_DOC",
    "IMAGES_DOC",
    "NAME_DOC",
    "NONE",
    "UNKNOWN",
    "Cells",
    "Column",
    "Conditions",
    "Obj",
    "TablePrinter",
    "as_int",
    "as_str",
    "containers_and_images",
    "dicts",
    "format_label_selector",
    "format_labels",
    "label_selector_string",
    "name_column",
    "object_age",
    "object_name",
    "partial_object_metadata",
    "quantity_or",
    "spec_replicas",
    "table_row",
    "template_containers",
    "to_table",
]

Obj = dict[str, Any]
"""An object as decoded from the wire: printers read plain dicts, never models."""

NONE = "<none>"
UNKNOWN = "<unknown>"

NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)

AGE_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

CONTAINERS_DOC = "Names of each container in the template."
IMAGES_DOC = "Images referenced by each container in the template."


@dataclass(frozen=True)
class Column:
    """One `TableColumnDefinition`; priority 1 columns only show with `-o wide`."""

    name: str
    type: str = "string"
    format: str = ""
    description: str = ""
    priority: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The wire shape, keys in the apiserver's order."""
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": self.description, "priority": self.priority}


def name_column(priority: int = 0) -> Column:
    """The Name column every printer has; an Event's is priority 1 (`-o wide` only)."""
    return Column("Name", "string", "name", NAME_DOC, priority)


AGE_COLUMN = Column("Age", description=AGE_DOC)

Cells = Callable[[Obj, float], list[Any]]
Conditions = Callable[[Obj], list[dict[str, str]]]


@dataclass(frozen=True)
class TablePrinter:
    """The columns of one kind and how to compute one object's cells (and row conditions)."""

    columns: tuple[Column, ...]
    cells: Cells
    conditions: Conditions | None = field(default=None, compare=False)
    order: Callable[[Obj], Any] | None = field(default=None, compare=False)
    """A sort key for the rows of a list, for the kinds whose Go list printer sorts."""

    def column_names(self, wide: bool = True) -> list[str]:
        """Column headers; without `wide`, only the priority-0 ones kubectl shows by default."""
        return [c.name for c in self.columns if wide or c.priority == 0]

    def row(self, obj: Obj, now: float) -> list[Any]:
        """The cells of `obj` (all columns, wide ones included, as the server sends them)."""
        return self.cells(obj, now)


# -- cell helpers: a malformed or missing field shows as Go's zero value, never raises ------


def dicts(value: Any) -> list[dict[str, Any]]:
    """The dict items of a list field (none when the field is not a list)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def as_int(value: Any) -> int:
    """A number field as Go's int (truncated), 0 when it is not a number."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return int(value)
    return 0


def as_str(value: Any) -> str:
    """A string field, "" when it is not a string."""
    return value if isinstance(value, str) else ""


def object_name(obj: Obj) -> str:
    """The Name cell: metadata.name, "" when unset."""
    return as_str(nested_field(obj, "metadata", "name"))


def object_age(obj: Obj, now: float) -> str:
    """The Age cell: how long before `now` the object was created."""
    return age(nested_field(obj, "metadata", "creationTimestamp"), now)


# -- labels ---------------------------------------------------------------------------------


def format_labels(labels: Any) -> str:
    """`labels.FormatLabels`: sorted `k=v` pairs, "<none>" when empty."""
    if not isinstance(labels, dict) or not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_label_selector(selector: Any) -> str:
    """`metav1.FormatLabelSelector` of a LabelSelector dict ("<none>" if it selects all)."""
    text = label_selector_string(selector)
    return text or NONE


def label_selector_string(selector: Any) -> str:
    """A LabelSelector dict as a selector string (`LabelSelectorAsSelector(...).String()`)."""
    if not isinstance(selector, dict):
        return ""
    parts: list[tuple[str, str]] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        parts.append((str(key), f"{key}={value}"))
    for expr in dicts(selector.get("matchExpressions")):
        key = str(expr.get("key", ""))
        op = str(expr.get("operator", ""))
        values = sorted(str(v) for v in expr.get("values") or [])
        if op == "In":
            parts.append((key, f"{key} in ({','.join(values)})"))
        elif op == "NotIn":
            parts.append((key, f"{key} notin ({','.join(values)})"))
        elif op == "Exists":
            parts.append((key, key))
        elif op == "DoesNotExist":
            parts.append((key, f"!{key}"))
    return ",".join(text for _, text in sorted(parts))


def containers_and_images(containers: Any) -> tuple[str, str]:
    """The Containers and Images cells of a workload: comma-separated, in order."""
    items = dicts(containers)
    return (",".join(as_str(c.get("name")) for c in items),
            ",".join(as_str(c.get("image")) for c in items))


def template_containers(obj: Obj) -> Any:
    """spec.template.spec.containers, where a workload's pod template keeps them."""
    return nested_field(obj, "spec", "template", "spec", "containers")


def spec_replicas(obj: Obj) -> int:
    """spec.replicas of a workload, read as the API defaults it."""
    value = nested_field(obj, "spec", "replicas")
    return 1 if value is None else as_int(value)  # the API defaults spec.replicas to 1


def quantity_or(value: Any, missing: str) -> str:
    """A quantity cell, or `missing` ("<unset>", "<nil>") when there is no quantity."""
    return missing if value is None else quantity_string(value)


# -- the Table object -----------------------------------------------------------------------


def partial_object_metadata(obj: Obj, api_version: str = "meta.k8s.io/v1") -> Obj:
    """`PartialObjectMetadata` of an object: its metadata, nothing else."""
    return {"kind": "PartialObjectMetadata", "apiVersion": api_version,
            "metadata": obj.get("metadata") or {}}


def table_row(printer: TablePrinter, obj: Obj, now: float, include_object: str = "Metadata",
              api_version: str = "meta.k8s.io/v1") -> Obj:
    """One `TableRow`: cells, conditions when the printer has some, and the object."""
    row: Obj = {"cells": printer.cells(obj, now)}
    if printer.conditions is not None:
        conditions = printer.conditions(obj)
        if conditions:
            row["conditions"] = conditions
    if include_object == "None":
        row["object"] = None
    elif include_object == "Object":
        row["object"] = obj
    else:
        row["object"] = partial_object_metadata(obj, api_version)
    return row


def to_table(printer: TablePrinter, objects: Iterable[Obj], now: float,
             list_meta: dict[str, Any] | None = None, include_object: str = "Metadata",
             api_version: str = "meta.k8s.io/v1", with_columns: bool = True) -> Obj:
    """A `meta.k8s.io/v1` Table (the shape `kubectl get` asks for with `as=Table`).

    `include_object` is the TableOptions value: "Metadata" (default, PartialObjectMetadata
    rows), "Object" (the whole object) or "None". `with_columns=False` gives the
    `columnDefinitions: null` of watch events after the first.
    """
    return {"kind": "Table", "apiVersion": api_version, "metadata": dict(list_meta or {}),
            "columnDefinitions": [c.to_dict() for c in printer.columns] if with_columns
            else None,
            "rows": [table_row(printer, obj, now, include_object, api_version)
                     for obj in (sorted(objects, key=printer.order) if printer.order
                                 else objects)]}
