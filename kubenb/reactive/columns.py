"""LiveFrame columns: what each row shows, computed from one object dict.

A column is a dotted path (`"status.phase"`), a JSONPath-like path with list access
(`"spec.containers[*].image"`, `"status.conditions[?(@.type=='Ready')].status"`,
`"metadata.labels['app.kubernetes.io/name']"`), or a callable taking the object. A
path with `[*]` gives a tuple of every value it reaches (hashable, so `groupby` and
`value_counts` work; `DataFrame.explode` makes one row per value); any other path
gives its first value, or None when the object lacks it. Paths never raise.

The default columns are `kubectl get`'s, from `kubenb.printers` (so a LiveFrame, the
embedded server's Tables and kubectl agree): NAME, READY, STATUS, RESTARTS, AGE for
pods, a CRD's additionalPrinterColumns for custom resources. AGE-like columns are
kept as timestamps and shown as the time since (a `Timedelta`) when a snapshot is
taken, so they never go stale between events.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubenb import printers
from kubenb.errors import ColumnError
from kubenb.jsonpath import parse_jsonpath
from kubenb.timeutil import parse_time

__all__ = [
    "Column",
    "ColumnError",
    "ColumnSet",
    "build_columns",
    "crd_printer_columns",
    "default_columns",
    "path_column",
]

log = logging.getLogger("kubenb.reactive.columns")

Getter = Callable[[Any], Any]


@dataclass(frozen=True)
class Column:
    """One column: a name and how to get its value from an object.

    With `age=True` the getter returns epoch seconds (or None) and snapshots show the
    time since then as a `Timedelta`.
    """

    name: str
    get: Getter = field(compare=False)
    age: bool = False
    source: str = ""

    def __repr__(self) -> str:
        return f"Column({self.name!r}, {self.source or _describe(self.get)}" + (
            ", age=True)" if self.age else ")")


def _describe(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def _key_getter(keys: tuple[str, ...]) -> Getter:
    def get(obj: Any) -> Any:
        for key in keys:
            if not isinstance(obj, dict):
                return None
            obj = obj.get(key)
        return obj

    return get


def _to_jsonpath(path: str) -> str:
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if not text.startswith((".", "[")):
        text = "." + text
    return text


def path_getter(path: str) -> Getter:
    """The getter of a path spec (see the module docstring); ColumnError when the path
    cannot be parsed, saying where."""
    if not path.strip(" .{}"):
        raise ColumnError(f"path {path!r} is empty: give a field, e.g. 'status.phase'")
    try:
        parsed = parse_jsonpath(_to_jsonpath(path))
    except ValueError as err:
        raise ColumnError(f"path {path!r}: {err}") from None
    steps = parsed.steps
    if all(op == "key" for op, _ in steps):
        return _key_getter(tuple(arg for _, arg in steps))
    many = any(op == "all" for op, _ in steps)
    find = parsed.find
    if many:
        return lambda obj: tuple(find(obj))

    def first(obj: Any) -> Any:
        found = find(obj)
        return found[0] if found else None

    return first


def path_column(path: str, name: str | None = None) -> Column:
    """A column from a path spec, named after the path unless `name` is given."""
    if not isinstance(path, str):
        raise ColumnError(f"column {name!r}: a path must be a string, got {type(path).__name__}")
    return Column(name or path, path_getter(path), source=path)


def _safe(column: Column) -> Getter:
    """The getter, turning an exception into None (logged once per column)."""
    getter = column.get
    warned = [False]

    def get(obj: Any) -> Any:
        try:
            return getter(obj)
        except Exception as exc:
            if not warned[0]:
                warned[0] = True
                log.warning("column %r: %s raised %s: %s; the cell is None (logged once)",
                            column.name, column.source or _describe(getter),
                            type(exc).__name__, exc)
            return None

    return get


class _Part:
    """Computes some consecutive values of a row in one go."""

    names: tuple[str, ...] = ()
    ages: tuple[bool, ...] = ()

    def values(self, obj: Any, now: float) -> tuple[Any, ...]:  # pragma: no cover
        raise NotImplementedError


class _ColumnPart(_Part):
    def __init__(self, column: Column) -> None:
        self.column = column
        self.names = (column.name,)
        self.ages = (column.age,)
        self._get = _safe(column)

    def values(self, obj: Any, now: float) -> tuple[Any, ...]:
        return (self._get(obj),)


class _PrinterPart(_Part):
    """kubectl's columns of a kind: the printer runs once per object; AGE-like columns
    are replaced by their timestamp."""

    def __init__(self, printer: printers.TablePrinter, indexes: Sequence[int],
                 timestamps: Mapping[int, Getter]) -> None:
        self.printer = printer
        self.indexes = tuple(indexes)
        self.timestamps = dict(timestamps)
        self.names = tuple(printer.columns[i].name.upper() for i in self.indexes)
        self.ages = tuple(i in self.timestamps for i in self.indexes)
        self._warned = False

    def values(self, obj: Any, now: float) -> tuple[Any, ...]:
        try:
            cells = self.printer.cells(obj, now)
        except Exception as exc:
            if not self._warned:
                self._warned = True
                log.warning("default columns: the printer raised %s: %s; cells are None "
                            "(logged once)", type(exc).__name__, exc)
            cells = [None] * len(self.printer.columns)
        out = []
        for i in self.indexes:
            stamp = self.timestamps.get(i)
            out.append(parse_time(stamp(obj)) if stamp is not None else cells[i])
        return tuple(out)


class ColumnSet:
    """The columns of a frame, in order, and `row(obj, now)` computing all of them."""

    def __init__(self, parts: Sequence[_Part]) -> None:
        self._parts = tuple(parts)
        names: list[str] = []
        ages: list[bool] = []
        for part in self._parts:
            names.extend(part.names)
            ages.extend(part.ages)
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ColumnError(f"column {name!r} is given twice; column names must be unique")
            seen.add(name)
        self.names: tuple[str, ...] = tuple(names)
        self.ages: tuple[bool, ...] = tuple(ages)
        if len(self._parts) == 1:
            self.row = self._parts[0].values  # type: ignore[method-assign]

    def row(self, obj: Any, now: float) -> tuple[Any, ...]:
        """Every column's value for `obj` (`now`: epoch seconds, for printer cells that
        mention time, like RESTARTS' "(5m ago)")."""
        out: tuple[Any, ...] = ()
        for part in self._parts:
            out += part.values(obj, now)
        return out

    def __add__(self, other: ColumnSet) -> ColumnSet:
        return ColumnSet(self._parts + other._parts)

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"ColumnSet({list(self.names)})"


def crd_printer_columns(crd: Mapping[str, Any], version: str | None = None) -> list[dict[str, Any]]:
    """The additionalPrinterColumns of a CRD version (`version`, else the storage
    version, else the first served one); [] when it declares none."""
    versions = [v for v in (crd.get("spec") or {}).get("versions") or [] if isinstance(v, dict)]
    chosen = None
    if version is not None:
        chosen = next((v for v in versions if v.get("name") == version), None)
        if chosen is None:
            name = (crd.get("metadata") or {}).get("name", "?")
            known = [v.get("name") for v in versions]
            raise ColumnError(f"CRD {name} has no version {version!r} (it has {known})")
    chosen = chosen or next((v for v in versions if v.get("storage")), None) or next(
        (v for v in versions if v.get("served")), None)
    return list((chosen or {}).get("additionalPrinterColumns") or [])


def default_columns(kind: str | None = None, group: str = "", *,
                    printer_columns: Sequence[Mapping[str, Any]] | None = None,
                    with_namespace: bool = False, wide: bool = False) -> ColumnSet:
    """`kubectl get`'s columns for `kind` in `group`, or, with `printer_columns`, a
    custom resource's (its CRD's additionalPrinterColumns; [] gives NAME and AGE).
    `with_namespace` adds NAMESPACE first (as `-A` does); `wide` adds `-o wide`'s."""
    timestamps: dict[int, Getter] = {}
    if printer_columns is not None:
        specs = [dict(s) for s in printer_columns] or [dict(s) for s in
                                                      printers.DEFAULT_CR_COLUMNS]
        try:
            printer = printers.custom_resource_printer(specs)
        except ValueError as err:
            raise ColumnError(f"additionalPrinterColumns: {err}") from None
        for i, spec in enumerate(specs, start=1):  # column 0 is the name
            if spec.get("type") == "date":
                timestamps[i] = path_getter(str(spec.get("jsonPath", "")))
    else:
        printer = printers.printer_for(kind or "", group)
        for i, column in enumerate(printer.columns):
            if column.name == "Age":
                timestamps[i] = path_getter("metadata.creationTimestamp")
    indexes = [i for i, c in enumerate(printer.columns) if wide or c.priority == 0]
    parts: list[_Part] = []
    if with_namespace:
        parts.append(_ColumnPart(Column("NAMESPACE", _key_getter(("metadata", "namespace")),
                                        source="metadata.namespace")))
    parts.append(_PrinterPart(printer, indexes, timestamps))
    return ColumnSet(parts)


def _callable_name(fn: Any, where: str) -> str:
    name = getattr(fn, "__name__", "")
    if not name or name == "<lambda>":
        raise ColumnError(f"{where}: a lambda has no name to use as a column name; give "
                          "columns as a dict, {'NAME': fn}, or a (name, fn) pair")
    return name


def _one(spec: Any, name: str | None, where: str) -> Column:
    if isinstance(spec, Column):
        return spec if name is None or name == spec.name else Column(name, spec.get, spec.age,
                                                                     spec.source)
    if isinstance(spec, str):
        try:
            return path_column(spec, name)
        except ColumnError as err:
            raise ColumnError(f"{where}: {err}") from None
    if callable(spec):
        return Column(name or _callable_name(spec, where), spec, source=_describe(spec))
    raise ColumnError(f"{where}: expected a path like 'status.phase', a callable or a "
                      f"Column, got {type(spec).__name__}")


def _parts(spec: Any) -> list[_Part]:
    if isinstance(spec, ColumnSet):
        return list(spec._parts)
    if isinstance(spec, (str, Column)) or callable(spec):
        spec = [spec]
    if isinstance(spec, Mapping):
        items: Iterable[Any] = list(spec.items())
        pairs = True
    elif isinstance(spec, Iterable):
        items = list(spec)
        pairs = False
    else:
        raise ColumnError(f"columns= must be a list, a dict or None, got {type(spec).__name__}")
    parts: list[_Part] = []
    for index, item in enumerate(items):
        where = f"column {index}"
        if pairs or (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            name, inner = item
            if not isinstance(name, str) or not name:
                raise ColumnError(f"{where}: a column name must be a non-empty string, got "
                                  f"{name!r}")
            parts.append(_ColumnPart(_one(inner, name, f"column {name!r}")))
        else:
            parts.append(_ColumnPart(_one(item, None, where)))
    return parts


def build_columns(columns: Any = None, *, kind: str | None = None, group: str = "",
                  printer_columns: Sequence[Mapping[str, Any]] | None = None,
                  with_namespace: bool = False, wide: bool = False,
                  extra_columns: Any = None) -> ColumnSet:
    """A ColumnSet from what a user typed: None (the kind's defaults), a list of paths,
    callables, `(name, spec)` pairs and Columns, or a dict name -> spec. `extra_columns`
    (same forms) are appended, e.g. to the defaults."""
    if columns is None:
        result = default_columns(kind, group, printer_columns=printer_columns,
                                 with_namespace=with_namespace, wide=wide)
    else:
        result = ColumnSet(_parts(columns))
    if extra_columns is not None:
        result = result + ColumnSet(_parts(extra_columns))
    if not result.names:
        raise ColumnError("columns= gave no columns; use None for the kind's defaults")
    return result
