"""Field ownership (`metadata.managedFields`) and server-side apply, simplified honestly.

The real apiserver runs structured-merge-diff over typed schemas. Here ownership is a
set of field paths per manager, computed from plain dicts:

- A path is a tuple of FieldsV1 elements: `f:<field>` for a map key, `k:{"name":"app"}`
  for an item of a list merged by key (containers by name, ports by containerPort and
  protocol, ...). Every other list is atomic: one path owns the whole list.
- An *Update* (POST, PUT, a merge/JSON/strategic patch) gives its manager the paths whose
  values it added or changed and takes them from every other manager; it never conflicts.
- An *Apply* (PATCH `application/apply-patch+yaml`) makes its manager own exactly the
  paths of the applied configuration. Setting a field another manager owns to a different
  value is a 409 Conflict unless `force=true`, which moves ownership. Fields the applier
  owned before, no longer applies and nobody else owns are removed from the object.
- Paths that no longer exist in the object are dropped from every manager; managers left
  with nothing are dropped.

Simplified: no schemas, so lists are keyed only by the built-in merge keys below (custom
resources' lists are atomic); FieldsV1 marks a map with "." when an Update created it,
which differs from the real server for a few struct-typed fields; conflicts are found on
leaf fields only; the applied configuration is not defaulted before it is compared.

One concept, past the usual length of a module: the path sets, their FieldsV1 encoding
and the two operations that update them are one algorithm and change together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kubenb.meta import dict_field
from kubenb.server import errors, typeinfo

__all__ = [
    "APPLY",
    "UPDATE",
    "Manager",
    "decode_fields",
    "encode_fields",
    "path_string",
    "server_side_apply",
    "track_update",
]

Obj = dict[str, Any]
Path = tuple[str, ...]

APPLY = "Apply"
UPDATE = "Update"

# The list fields merged by key (SSA's `listMapKeys`); composite keys in order.
_LIST_KEYS: dict[str, tuple[str, ...]] = {
    "containers": ("name",), "initContainers": ("name",), "ephemeralContainers": ("name",),
    "env": ("name",), "volumes": ("name",), "volumeMounts": ("mountPath",),
    "volumeDevices": ("devicePath",), "imagePullSecrets": ("name",),
    "conditions": ("type",), "hostAliases": ("ip",), "ownerReferences": ("uid",),
    "ports": ("containerPort", "protocol"),
}
_SERVICE_PORT_KEYS = ("port", "protocol")
_UNMARKED_LISTS = ("containers", "initContainers")  # required fields: FieldsV1 has no "."
_META_IGNORED = ("name", "namespace", "uid", "resourceVersion", "generation",
                 "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                 "managedFields", "selfLink")


@dataclass(frozen=True)
class Manager:
    """Who is writing: the fieldManager, the operation and the subresource."""

    name: str
    operation: str = UPDATE
    subresource: str = ""

    def identity(self) -> tuple[str, str, str]:
        return (self.name, self.operation, self.subresource)


@dataclass
class _Entry:
    manager: str
    operation: str
    api_version: str
    time: str
    subresource: str
    paths: set[Path]

    def identity(self) -> tuple[str, str, str]:
        return (self.manager, self.operation, self.subresource)

    def describe(self) -> str:
        """The manager as conflict messages name it (the apiserver's `printManager`)."""
        text = json.dumps(self.manager)
        if self.subresource:
            text += f" with subresource {json.dumps(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text


# -- list keys and path elements ----------------------------------------------------------


def _list_key(field: str, items: list[Any], kind: str, custom: bool) -> tuple[str, ...] | None:
    if custom or not items or not all(isinstance(i, dict) for i in items):
        return None
    keys = _SERVICE_PORT_KEYS if field == "ports" and kind == "Service" else _LIST_KEYS.get(
        field)
    if keys is None or not all(keys[0] in item for item in items):
        return None
    return keys


def _item_element(item: dict[str, Any], keys: tuple[str, ...]) -> str:
    key = {k: item[k] for k in keys if k in item}
    return "k:" + json.dumps(key, separators=(",", ":"), sort_keys=True)


def _find_item(items: list[Any], element: str) -> int | None:
    try:
        wanted = json.loads(element[2:])
    except ValueError:
        return None
    for index, item in enumerate(items):
        if isinstance(item, dict) and all(item.get(k) == v for k, v in wanted.items()):
            return index
    return None


def path_string(path: Path) -> str:
    """A path as structured-merge-diff prints it: `.spec.containers[name="app"].image`."""
    out = []
    for element in path:
        if element.startswith("f:"):
            out.append("." + element[2:])
        elif element.startswith("k:"):
            try:
                key = json.loads(element[2:])
                out.append("[" + ",".join(f"{k}={json.dumps(v)}" for k, v in key.items())
                           + "]")
            except ValueError:
                out.append(f"[{element[2:]}]")
        elif element.startswith("v:"):
            out.append(f"[={element[2:]}]")
        elif element.startswith("i:"):
            out.append(f"[{element[2:]}]")
    return "".join(out)


# -- paths of values -----------------------------------------------------------------------


class _Ctx:
    def __init__(self, kind: str, custom: bool, api_version: str = "") -> None:
        self.kind = kind
        self.custom = custom
        group, _, version = api_version.rpartition("/")
        self.root = (None if custom else typeinfo.kind_struct(group, version, kind))


class _T:
    """What a value is, as far as the built-in types' table knows (kubenb.server.typeinfo):
    the field holding it, the struct it is, and whether the kind's zero object has it (Go
    writes non-pointer structs and non-omitempty fields even when zero, so an Update that
    creates an object does not add those nodes: FieldsV1 gives them no ".").

    A plain class with slots, never changed once made: one is made per field walked, and
    a frozen dataclass's checked attribute setting made that a third of a create's
    managedFields."""

    __slots__ = ("field", "name", "struct", "zero")

    def __init__(self, name: str = "", field: typeinfo.FieldInfo | None = None,
                 struct: typeinfo.StructInfo | None = None, zero: bool = False) -> None:
        self.name = name
        self.field = field
        self.struct = struct
        self.zero = zero

    @property
    def typed(self) -> bool:
        return self.field is not None or self.struct is not None

    @property
    def atomic(self) -> bool:
        """A struct or map owned as a whole (+structType=atomic, +mapType=atomic)."""
        return bool((self.field is not None and self.field.atomic and not self.field.is_list)
                    or (self.struct is not None and self.struct.atomic))


def _root(ctx: _Ctx) -> _T:
    return _T(struct=ctx.root, zero=True) if ctx.root is not None else _T()


def _child(t: _T, key: str) -> _T:
    """The value at `key` of a struct or map value `t`."""
    if t.struct is not None:
        f = t.struct.json_fields.get(key)
        if f is None:
            return _T(key)
        ref = f.ref if not f.is_list and not f.is_map else None
        zero = t.zero and not f.pointer and (f.struct_like or not f.omitempty)
        return _T(key, f, typeinfo.struct(ref) if ref else None, zero)
    if t.field is not None and t.field.is_map:
        ref = t.field.ref
        return _T(key, None, typeinfo.struct(ref) if ref else None)
    return _T(key)


def _item(t: _T) -> _T:
    """A list item of list value `t`."""
    ref = t.field.ref if t.field is not None else None
    return _T("", None, typeinfo.struct(ref) if ref else None)


def _mark(t: _T) -> bool:
    """Whether an added map or list node is itself owned ("." in FieldsV1)."""
    if t.field is not None:
        return not t.zero
    return t.name not in _UNMARKED_LISTS


def _list_mode(t: _T, items: list[Any], ctx: _Ctx) -> tuple[str, tuple[str, ...]]:
    """("map", keys) for a list merged by key, ("set", ()) for a set, else ("atomic", ())."""
    f = t.field
    if f is not None and f.is_list:
        if not items:
            return "atomic", ()
        if f.list_type == "set":
            return "set", ()
        if f.list_type == "map" and f.map_keys and all(
                isinstance(i, dict) and f.map_keys[0] in i for i in items):
            return "map", f.map_keys
        return "atomic", ()
    keys = _list_key(t.name, items, ctx.kind, ctx.custom)
    return ("atomic", ()) if keys is None else ("map", keys)


def _set_element(value: Any) -> str:
    return "v:" + json.dumps(value, separators=(",", ":"), sort_keys=True)


def _all_paths(value: Any, prefix: Path, ctx: _Ctx, mark: bool, t: _T) -> set[Path]:
    """Every path of a value an Update added (maps marked with "." when `mark`)."""
    if value is None and t.typed:
        return set()  # a null is the zero value Go writes: nobody owns it
    if isinstance(value, dict):
        if not value or t.atomic:
            return {prefix}
        out = {prefix} if mark else set()
        for key, child in value.items():
            ct = _child(t, key)
            out |= _all_paths(child, (*prefix, f"f:{key}"), ctx, _mark(ct), ct)
        return out
    if isinstance(value, list):
        mode, keys = _list_mode(t, value, ctx)
        if mode == "atomic":
            return {prefix}
        out = {prefix} if mark else set()
        if mode == "set":
            return out | {(*prefix, _set_element(i)) for i in value}
        item_t = _item(t)
        for item in value:
            item_path = (*prefix, _item_element(item, keys))
            out.add(item_path)
            if item_t.atomic:
                continue
            for key, child in item.items():
                ct = _child(item_t, key)
                out |= _all_paths(child, (*item_path, f"f:{key}"), ctx, _mark(ct), ct)
        return out
    return {prefix}


def _config_paths(value: Any, prefix: Path, ctx: _Ctx, t: _T) -> set[Path]:
    """The paths an applied configuration sets: its leaves and its keyed list items."""
    if isinstance(value, dict):
        if not value or t.atomic:
            return {prefix}
        out: set[Path] = set()
        for key, child in value.items():
            out |= _config_paths(child, (*prefix, f"f:{key}"), ctx, _child(t, key))
        return out
    if isinstance(value, list):
        mode, keys = _list_mode(t, value, ctx)
        if mode == "atomic":
            return {prefix}
        if mode == "set":
            return {(*prefix, _set_element(i)) for i in value}
        out = set()
        item_t = _item(t)
        for item in value:
            item_path = (*prefix, _item_element(item, keys))
            out.add(item_path)
            if item_t.atomic:
                continue
            for key, child in item.items():
                out |= _config_paths(child, (*item_path, f"f:{key}"), ctx, _child(item_t, key))
        return out
    return {prefix}


def _diff(old: Any, new: Any, prefix: Path, ctx: _Ctx, t: _T, mark: bool,
          changed: set[Path]) -> None:
    """Collect the paths an Update added or changed going from `old` to `new`."""
    if isinstance(old, dict) and isinstance(new, dict) and not t.atomic:
        for key, child in new.items():
            path = (*prefix, f"f:{key}")
            ct = _child(t, key)
            if key not in old:
                changed |= _all_paths(child, path, ctx, _mark(ct), ct)
            else:
                _diff(old[key], child, path, ctx, ct, _mark(ct), changed)
        return
    if isinstance(old, list) and isinstance(new, list):
        mode, keys = _list_mode(t, old + new, ctx)
        if mode == "set":
            changed |= {(*prefix, _set_element(i)) for i in new if i not in old}
            return
        if mode == "map":
            item_t = _item(t)
            before = {_item_element(i, keys): i for i in old}
            for item in new:
                element = _item_element(item, keys)
                item_path = (*prefix, element)
                if element not in before or (item_t.atomic and before[element] != item):
                    changed.add(item_path)
                    if item_t.atomic:
                        continue
                    for key, child in item.items():
                        ct = _child(item_t, key)
                        changed |= _all_paths(child, (*item_path, f"f:{key}"), ctx, _mark(ct),
                                              ct)
                elif not item_t.atomic:
                    _diff(before[element], item, item_path, ctx, item_t, True, changed)
            return
    if old != new:
        changed |= _all_paths(new, prefix, ctx, mark, t)


def _owned_view(obj: Obj) -> Obj:
    """The part of an object fields are tracked in (no apiVersion/kind, no server metadata)."""
    out = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    meta = dict_field(obj, "metadata")
    tracked = {k: v for k, v in meta.items() if k not in _META_IGNORED}
    if tracked:
        out["metadata"] = tracked
    return out


def _top_paths(old: Obj | None, new: Obj, ctx: _Ctx) -> set[Path]:
    changed: set[Path] = set()
    before = _owned_view(old) if old is not None else {}
    root = _root(ctx)
    for key, value in _owned_view(new).items():
        t = _child(root, key)
        if t.field is not None:
            mark = not t.zero  # typed: the kind's zero object has metadata, spec, status
        else:  # custom resources and untyped kinds: every top-level field but these
            mark = key != "metadata" and (ctx.custom or key not in ("spec", "status"))
        path: Path = (f"f:{key}",)
        if key not in before:
            changed |= _all_paths(value, path, ctx, mark, t)
        else:
            _diff(before[key], value, path, ctx, t, mark, changed)
    return changed


# -- lookups in objects ---------------------------------------------------------------------


def _lookup(obj: Any, path: Path) -> tuple[bool, Any]:
    node = obj
    for element in path:
        if element.startswith("f:") and isinstance(node, dict) and element[2:] in node:
            node = node[element[2:]]
        elif element.startswith("k:") and isinstance(node, list):
            index = _find_item(node, element)
            if index is None:
                return False, None
            node = node[index]
        elif element.startswith("v:") and isinstance(node, list):
            value = _set_value(element)
            if value not in node:
                return False, None
            node = value
        else:
            return False, None
    return True, node


def _set_value(element: str) -> Any:
    try:
        return json.loads(element[2:])
    except ValueError:
        return None


def _remove(obj: Any, path: Path) -> None:
    found, parent = _lookup(obj, path[:-1])
    if not found:
        return
    last = path[-1]
    if last.startswith("f:") and isinstance(parent, dict):
        parent.pop(last[2:], None)
    elif last.startswith("k:") and isinstance(parent, list):
        index = _find_item(parent, last)
        if index is not None:
            del parent[index]
    elif last.startswith("v:") and isinstance(parent, list):
        value = _set_value(last)
        if value in parent:
            parent.remove(value)


# -- managedFields encoding -----------------------------------------------------------------


def encode_fields(paths: Iterable[Path]) -> dict[str, Any]:
    """A path set as a FieldsV1 tree ("." marks a node that is itself owned)."""
    root: dict[str, Any] = {}
    members: set[Path] = set(paths)
    for path in sorted(members):
        node = root
        for element in path:
            node = node.setdefault(element, {})

    def mark(node: dict[str, Any], prefix: Path) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if node and prefix in members:
            out["."] = {}
        for element in sorted(node):
            out[element] = mark(node[element], (*prefix, element))
        return out
    return mark(root, ())


def decode_fields(tree: Any, prefix: Path = ()) -> set[Path]:
    """The path set of a FieldsV1 tree (malformed parts are ignored)."""
    out: set[Path] = set()
    if not isinstance(tree, dict):
        return out
    for element, child in tree.items():
        if element == ".":
            if prefix:
                out.add(prefix)
            continue
        path = (*prefix, str(element))
        if isinstance(child, dict) and child:
            out |= decode_fields(child, path)
        else:
            out.add(path)
    return out


def _entries(managed: Any) -> list[_Entry]:
    out = []
    for raw in managed if isinstance(managed, list) else []:
        if not isinstance(raw, dict) or (not raw.get("manager") and not raw.get("operation")):
            continue
        out.append(_Entry(str(raw.get("manager", "")), str(raw.get("operation", UPDATE)),
                          str(raw.get("apiVersion", "")), str(raw.get("time", "")),
                          str(raw.get("subresource", "")), decode_fields(raw.get("fieldsV1"))))
    return out


def _encode(entries: list[_Entry]) -> list[dict[str, Any]]:
    kept = [e for e in entries if e.paths]
    kept.sort(key=lambda e: (e.operation, e.time, e.manager, e.api_version, e.subresource))
    return [_managed_entry(e.manager, e.operation, e.api_version, e.time, e.subresource,
                           encode_fields(e.paths)) for e in kept]


def _managed_entry(manager: str, operation: str, api_version: str, time: str,
                   subresource: str, fields: dict[str, Any]) -> dict[str, Any]:
    """One managedFields entry, its keys in the order the apiserver writes them."""
    raw: dict[str, Any] = {"manager": manager, "operation": operation,
                           "apiVersion": api_version, "time": time, "fieldsType": "FieldsV1",
                           "fieldsV1": fields}
    if subresource:
        raw["subresource"] = subresource
    return raw


def _existing(value: Any, prefix: Path, ctx: _Ctx, t: _T, out: set[Path]) -> None:
    """Every path that resolves in `value` (maps and keyed list items, recursively)."""
    if isinstance(value, dict):
        if t.atomic:
            return
        for key, child in value.items():
            path = (*prefix, f"f:{key}")
            out.add(path)
            _existing(child, path, ctx, _child(t, key), out)
    elif isinstance(value, list):
        mode, keys = _list_mode(t, value, ctx)
        if mode == "set":
            out.update((*prefix, _set_element(i)) for i in value)
        elif mode == "map":
            item_t = _item(t)
            for item in value:
                path = (*prefix, _item_element(item, keys))
                out.add(path)
                _existing(item, path, ctx, item_t, out)


def _prune(entries: list[_Entry], obj: Obj, ctx: _Ctx) -> None:
    view = _owned_view(obj)
    existing: set[Path] = set()
    _existing(view, (), ctx, _root(ctx), existing)
    for entry in entries:
        gone = entry.paths - existing
        if gone:  # paths outside this model (sets, indexes) are checked one by one
            entry.paths -= {p for p in gone if not _lookup(view, p)[0]}


def _entry_for(entries: list[_Entry], manager: Manager, api_version: str, now: str) -> _Entry:
    for entry in entries:
        if entry.identity() == manager.identity():
            entry.time = now
            entry.api_version = api_version
            return entry
    entry = _Entry(manager.name, manager.operation, api_version, now, manager.subresource,
                   set())
    entries.append(entry)
    return entry


# -- the two operations ------------------------------------------------------------------------


def track_update(old: Obj | None, new: Obj, manager: Manager, api_version: str, now: str,
                 base: Any = None, custom: bool = False) -> list[dict[str, Any]]:
    """managedFields after an Update by `manager` from `old` (None: a create) to `new`.

    `base` is the managedFields to start from (default: `old`'s); a request that sends
    its own managedFields (e.g. `[]` to reset them) passes those.
    """
    if base is None:
        base = (old or {}).get("metadata", {}).get("managedFields")
    entries = _entries(base)
    # A create that brings no managedFields: its one entry holds paths taken from `new`,
    # which all resolve in it; nothing to prune.
    fresh = old is None and not entries
    ctx = _Ctx(str(new.get("kind", "")), custom, str(new.get("apiVersion", "")))
    if fresh:
        tree = _fresh_fields(new, ctx)
        if tree is not None:
            return _encode_fresh(tree, manager, api_version, now)
    changed = _top_paths(old, new, ctx)
    if changed:
        mine = _entry_for(entries, manager, api_version, now)
        for entry in entries:
            if entry is not mine:
                entry.paths -= changed
        mine.paths |= changed
    if not fresh:
        _prune(entries, new, ctx)
    return _encode(entries)


class _Unusual(Exception):
    """A create the direct FieldsV1 build leaves to the path sets (duplicate list keys)."""


def _fresh_fields(new: Obj, ctx: _Ctx) -> dict[str, Any] | None:
    """The FieldsV1 of a create's one entry, built in one walk: what
    `encode_fields(_top_paths(None, new, ctx))` gives, without a path set (on a create
    that was a tenth of the server's CPU); None when it has to be that."""
    root = _root(ctx)
    nodes: dict[str, dict[str, Any]] = {}
    try:
        for key, value in _owned_view(new).items():
            t = _child(root, key)
            if t.field is not None:
                mark = not t.zero
            else:
                mark = key != "metadata" and (ctx.custom or key not in ("spec", "status"))
            node = _fresh_node(value, ctx, mark, t)
            if node is not None:
                nodes[f"f:{key}"] = node
    except _Unusual:
        return None
    return {element: nodes[element] for element in sorted(nodes)}


def _fresh_node(value: Any, ctx: _Ctx, mark: bool, t: _T) -> dict[str, Any] | None:
    """The FieldsV1 node of a value a create added (`_all_paths` as a tree: "." first on
    an owned node with children, then the children in sorted order); None: no path."""
    if value is None and t.typed:
        return None
    children: dict[str, dict[str, Any]] = {}
    if isinstance(value, dict):
        if not value or t.atomic:
            return {}
        for key, child in value.items():
            ct = _child(t, key)
            node = _fresh_node(child, ctx, _mark(ct), ct)
            if node is not None:
                children[f"f:{key}"] = node
    elif isinstance(value, list):
        mode, keys = _list_mode(t, value, ctx)
        if mode == "atomic":
            return {}
        if mode == "set":
            for item in value:
                children[_set_element(item)] = {}
        else:
            item_t = _item(t)
            for item in value:
                element = _item_element(item, keys)
                if element in children:
                    raise _Unusual(element)  # two items, one key: their paths merge
                item_children: dict[str, dict[str, Any]] = {}
                if not item_t.atomic:
                    for key, child in item.items():
                        ct = _child(item_t, key)
                        node = _fresh_node(child, ctx, _mark(ct), ct)
                        if node is not None:
                            item_children[f"f:{key}"] = node
                children[element] = _tree_node(item_children, True)
    else:
        return {}
    if not children:
        return {} if mark else None
    return _tree_node(children, mark)


def _tree_node(children: dict[str, dict[str, Any]], owned: bool) -> dict[str, Any]:
    out: dict[str, Any] = {".": {}} if owned and children else {}
    for element in sorted(children):
        out[element] = children[element]
    return out


def _encode_fresh(tree: dict[str, Any], manager: Manager, api_version: str,
                  now: str) -> list[dict[str, Any]]:
    """`_encode` of a create's one entry (none when the create owns no field)."""
    if not tree:
        return []
    return [_managed_entry(manager.name, manager.operation, api_version, now,
                           manager.subresource, tree)]


def _ancestors(paths: Iterable[Path]) -> set[Path]:
    """Every proper prefix of every path (the maps and list items that contain them)."""
    return {path[:i] for path in paths for i in range(1, len(path))}


def _conflict_error(conflicts: list[tuple[_Entry, Path]]) -> errors.StatusError:
    conflicts.sort(key=lambda c: (c[0].describe(), path_string(c[1])))
    causes = [errors.cause("FieldManagerConflict", path_string(path),
                           f"conflict with {entry.describe()}") for entry, path in conflicts]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        message = (f"Apply failed with 1 conflict: conflict with {entry.describe()}: "
                   f"{path_string(path)}")
    else:
        by_manager: dict[str, list[str]] = {}
        for entry, path in conflicts:
            by_manager.setdefault(entry.describe(), []).append(path_string(path))
        lines = []
        for name in sorted(by_manager):
            lines.append(f"conflicts with {name}:")
            lines += [f"- {p}" for p in by_manager[name]]
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return errors.StatusError(errors.status_body(409, "Conflict", message, {"causes": causes}))


def server_side_apply(live: Obj | None, config: Obj, manager: Manager, api_version: str,
                      now: str, merge: Callable[[Obj, Obj], Obj], force: bool = False,
                      custom: bool = False) -> tuple[Obj, list[dict[str, Any]]]:
    """Apply `config` onto `live` (None: create): the merged object and its managedFields.

    `merge(live, config)` is the patch semantics of the type (strategic merge for built-in
    kinds, JSON merge for custom resources). Raises a 409 StatusError on conflicts.
    """
    ctx = _Ctx(str(config.get("kind", "")), custom, str(config.get("apiVersion", "")))
    applied = set()
    root = _root(ctx)
    for key, value in _owned_view(config).items():
        applied |= _config_paths(value, (f"f:{key}",), ctx, _child(root, key))
    entries = _entries((live or {}).get("metadata", {}).get("managedFields"))
    mine = _entry_for(entries, manager, api_version, now)
    merged = merge(live, config) if live is not None else config
    if live is not None:
        before, after = _owned_view(live), _owned_view(merged)
        conflicts = []
        for path in applied:
            if not path[-1].startswith("f:"):
                continue
            had, old_value = _lookup(before, path)
            has, new_value = _lookup(after, path)
            if not had or (has and new_value == old_value):
                continue
            for entry in entries:
                if entry is not mine and path in entry.paths:
                    conflicts.append((entry, path))
        if conflicts and not force:
            raise _conflict_error(conflicts)
        for entry, path in conflicts:
            entry.paths.discard(path)
        others = set().union(*(e.paths for e in entries if e is not mine))
        # A path is still applied when the configuration sets something inside it (`data:
        # {}` then `data: {b: "2"}`: `.data` was owned whole, now `.data.b` is), and is
        # kept when another manager owns something inside it.
        kept = _ancestors(applied) | _ancestors(others)
        for path in sorted(mine.paths - applied - others - kept, key=len):
            _remove(merged, path)  # shortest first: a dropped list item goes whole
    mine.paths = applied
    _prune(entries, merged, ctx)
    return merged, _encode(entries)
