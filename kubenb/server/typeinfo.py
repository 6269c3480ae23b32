"""The built-in API types' wire shape (kubenb.server.k8s_types), parsed once, for the three
places that need it: decoding protobuf bodies, writing JSON keys in the apiserver's order,
and publishing OpenAPI v3 schemas.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from kubenb.server import k8s_types

__all__ = [
    "FieldInfo",
    "StructInfo",
    "drop_omitted",
    "kind_struct",
    "kinds",
    "order_object",
    "ordered",
    "struct",
]

# package id of k8s_types -> API group
_GROUPS: dict[str, str] = {
    "core": "", "apps": "apps", "batch": "batch", "autoscaling": "autoscaling",
    "networking": "networking.k8s.io", "rbac": "rbac.authorization.k8s.io", "policy": "policy",
    "storage": "storage.k8s.io", "scheduling": "scheduling.k8s.io",
    "coordination": "coordination.k8s.io", "discovery": "discovery.k8s.io",
    "events": "events.k8s.io", "node": "node.k8s.io", "certificates": "certificates.k8s.io",
    "authentication": "authentication.k8s.io", "authorization": "authorization.k8s.io",
    "admissionregistration": "admissionregistration.k8s.io",
    "flowcontrol": "flowcontrol.apiserver.k8s.io", "apiregistration": "apiregistration.k8s.io",
    "meta": "meta.k8s.io",
}
_STRUCT_TYPES = ("t", "m", "q", "d", "io", "raw", "fv1")  # Go structs with their own JSON


@dataclass(frozen=True)
class FieldInfo:
    """One field of a struct: its JSON name, protobuf number, type and markers."""

    name: str  # "" for an inline (embedded) struct
    number: int
    type: str  # "s", "@core/v1.Container", "[]@core/v1.EnvVar", "{}q", ...
    pointer: bool = False
    omitempty: bool = False
    inline: bool = False
    list_type: str = ""  # atomic, set, map
    map_keys: tuple[str, ...] = ()
    atomic: bool = False  # +mapType=atomic / +structType=atomic on the field
    patch_strategy: str = ""
    patch_merge_key: str = ""

    # derived from `type` once (these are read for every key of every written object)
    is_list: bool = field(init=False)
    is_map: bool = field(init=False)
    element: str = field(init=False)  # the type of the value, or of each item / map value
    ref: str | None = field(init=False)  # the struct the values are (None for scalars)
    struct_like: bool = field(init=False)  # a Go struct value: JSON never omits it
    can_omit: bool = field(init=False)  # omitempty and not a struct: zero values omitted

    def __post_init__(self) -> None:
        is_list, is_map = self.type.startswith("[]"), self.type.startswith("{}")
        element = self.type[2:] if is_list or is_map else self.type
        ref = element[1:] if element.startswith("@") else None
        struct_like = not self.pointer and not is_list and not is_map and (
            ref is not None or self.type in _STRUCT_TYPES)
        for name, value in (("is_list", is_list), ("is_map", is_map), ("element", element),
                            ("ref", ref), ("struct_like", struct_like),
                            ("can_omit", self.omitempty and not struct_like)):
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class StructInfo:
    """A Go struct: its fields in Go order (the order JSON keys are written in)."""

    id: str  # "core/v1.PodSpec"
    atomic: bool
    fields: tuple[FieldInfo, ...]

    @property
    def name(self) -> str:
        return self.id.rsplit(".", 1)[1]

    @functools.cached_property
    def by_number(self) -> dict[int, FieldInfo]:
        return {f.number: f for f in self.fields}

    @functools.cached_property
    def json_fields(self) -> dict[str, FieldInfo]:
        """JSON name -> field, with inline structs' fields flattened in."""
        out: dict[str, FieldInfo] = {}
        for f in self.fields:
            if f.inline and f.ref:
                out.update(struct(f.ref).json_fields)
            else:
                out[f.name] = f
        return out

    @functools.cached_property
    def position(self) -> dict[str, int]:
        """JSON key -> its place in json_order."""
        return {key: i for i, key in enumerate(self.json_order)}

    @functools.cached_property
    def json_order(self) -> tuple[str, ...]:
        """JSON keys in the order the apiserver writes them (apiVersion, kind first)."""
        order: list[str] = []
        for f in self.fields:
            if f.inline and f.ref:
                order += struct(f.ref).json_order
            else:
                order.append(f.name)
        return tuple(order)


def _field(token: str) -> FieldInfo:
    parts = token.split(":", 3)
    name, number, kind = parts[0], int(parts[1]), parts[2]
    flags = parts[3].split(",") if len(parts) > 3 else []
    values = dict(f.split("=", 1) for f in flags if "=" in f)
    return FieldInfo(
        name="" if name == "-" else name, number=number, type=kind, pointer="p" in flags,
        omitempty="o" in flags, inline="n" in flags, list_type=values.get("L", ""),
        map_keys=tuple(values["M"].split("+")) if "M" in values else (),
        atomic=values.get("T") == "atomic", patch_strategy=values.get("P", ""),
        patch_merge_key=values.get("K", ""))


class _Structs(dict[str, StructInfo]):
    """Every struct of the table by id, each parsed the first time it is asked for: a
    cluster touches a few dozen of the table's structs, and parsing all of them cost a
    process's first cluster about 15 ms of its start."""

    def __init__(self, lines: dict[str, str]) -> None:
        super().__init__()
        self._lines = lines

    def __missing__(self, sid: str) -> StructInfo:
        head, *tokens = self._lines[sid].split()
        info = StructInfo(sid, head.endswith("!"), tuple(_field(t) for t in tokens))
        self[sid] = info  # two threads parsing one struct at once store equal values
        return info


@functools.lru_cache(maxsize=1)
def _structs() -> _Structs:
    """The table's structs by id (see `_Structs`)."""
    lines: list[str] = []
    for line in k8s_types.TABLE.strip().splitlines():
        if line.startswith("  ") and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return _Structs({line.split(None, 1)[0].rstrip("!"): line for line in lines})


def struct(sid: str) -> StructInfo:
    return _structs()[sid]


def _group_version(package: str) -> tuple[str, str]:
    name, _, version = package.partition("/")
    return _GROUPS.get(name, name), version


@functools.lru_cache(maxsize=1)
def _kind_ids() -> dict[tuple[str, str, str], str]:
    """(group, version, kind) -> the kind's struct id, for every built-in kind."""
    out = {}
    for sid in k8s_types.KINDS.split():
        package, _, kind = sid.rpartition(".")
        group, version = _group_version(package)
        out[(group, version, kind)] = sid
    return out


def kinds() -> dict[tuple[str, str, str], StructInfo]:
    """(group, version, kind) -> the kind's struct, for every built-in kind in the table."""
    return {key: struct(sid) for key, sid in _kind_ids().items()}


def kind_struct(group: str, version: str, kind: str) -> StructInfo | None:
    """The struct of a built-in kind (None for custom resources and unknown kinds)."""
    sid = _kind_ids().get((group, version, kind))
    return None if sid is None else struct(sid)


#: (struct id, an object's keys in order) -> what `ordered` does with them: the known
#: keys in Go order with their fields, and whether unknown keys follow. Objects of a kind
#: come with few key sets, and working one out (membership, a sort) cost as much as the
#: rest of `ordered`. Cleared when full rather than evicted one at a time.
_PLANS: dict[tuple[str, tuple[str, ...]], tuple[tuple[tuple[str, FieldInfo], ...], bool]] = {}
_PLANS_MAX = 4096


def _plan(info: StructInfo, keys: tuple[str, ...]
          ) -> tuple[tuple[tuple[str, FieldInfo], ...], bool]:
    fields = info.json_fields
    known = [k for k in keys if k in fields]
    if len(known) > 1:
        known.sort(key=info.position.__getitem__)
    plan = (tuple((k, fields[k]) for k in known), len(known) != len(keys))
    if len(_PLANS) >= _PLANS_MAX:
        _PLANS.clear()
    _PLANS[(info.id, keys)] = plan
    return plan


def ordered(value: Any, info: StructInfo | None) -> Any:
    """`value` as the apiserver's JSON encoding of the typed object writes it: keys in Go
    struct order, recursively (unknown keys keep their place at the end), map keys sorted,
    `omitempty` fields holding a zero value left out."""
    if info is None or not isinstance(value, dict):
        return value
    keys = tuple(value)
    plan = _PLANS.get((info.id, keys))
    known, has_unknown = plan if plan is not None else _plan(info, keys)
    everything = _structs()
    out = {}
    for key, f in known:
        item = value[key]
        # resourceVersion "" is kept: a placeholder storage fills in, in its place
        if f.can_omit and key != "resourceVersion" and _omitted(f, item):
            continue
        ref = f.ref
        if ref is None:
            if f.is_map and isinstance(item, dict) and len(item) > 1:
                item = {k: item[k] for k in sorted(item)}  # Go writes map keys sorted
        elif f.is_list:
            if isinstance(item, list):
                inner = everything[ref]
                item = [ordered(v, inner) for v in item]
        elif f.is_map:
            if isinstance(item, dict):
                inner = everything[ref]
                item = {k: ordered(item[k], inner) for k in sorted(item)}
        else:
            item = ordered(item, everything[ref])
        out[key] = item
    if has_unknown:
        fields = info.json_fields
        for key, item in value.items():
            if key not in fields:
                out[key] = item
    return out


def _omitted(f: FieldInfo, value: Any) -> bool:
    """Whether Go's encoding/json leaves this field out of the typed object's JSON: an
    `omitempty` field holding its zero value (a struct never is; a set pointer never is)."""
    if not f.can_omit:
        return False
    if value is None:
        return True
    if f.pointer:
        return False
    if isinstance(value, (list, dict)):
        return not value
    return value in ("", 0, False) and not isinstance(value, float)


def drop_omitted(value: Any, info: StructInfo | None) -> None:
    """Remove, in place and recursively, what `_omitted` says Go would not write: what a
    typed object holds after the apiserver decoded it (before managedFields are computed
    or an update is compared with the stored object)."""
    if info is None or not isinstance(value, dict):
        return
    keys = tuple(value)
    plan = _PLANS.get((info.id, keys))
    known, _ = plan if plan is not None else _plan(info, keys)
    for key, f in known:
        item = value[key]
        if f.can_omit and key != "resourceVersion" and _omitted(f, item):
            del value[key]
            continue
        ref = f.ref
        if ref is None:
            continue
        inner = struct(ref)
        if f.is_list and isinstance(item, list):
            for element in item:
                drop_omitted(element, inner)
        elif f.is_map and isinstance(item, dict):
            for element in item.values():
                drop_omitted(element, inner)
        else:
            drop_omitted(item, inner)


def order_object(group: str, version: str, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    """A built-in object with kind, apiVersion, metadata first, then Go order."""
    info = kind_struct(group, version, kind)
    if info is None:
        return obj
    head: dict[str, Any] = {k: obj[k] for k in ("kind", "apiVersion") if k in obj}
    body = ordered({k: v for k, v in obj.items() if k not in head}, info)
    head.update(body)
    return head
