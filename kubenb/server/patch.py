"""PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic merge.

Strategic merge is the common subset kubectl relies on: maps merge recursively, and
lists of objects with a merge key (`name`, or a port/IP key) merge item by item, with
the `$patch: delete` / `$patch: replace` directives. Everything else replaces.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "APPLY_PATCH",
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_PATCH",
    "PatchError",
    "PatchFormatError",
    "json_patch",
    "merge_patch",
    "strategic_merge_patch",
]

MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

# Merge keys of list fields kubectl users touch most (from the types' patchMergeKey tags).
_MERGE_KEYS: dict[str, str] = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "env": "name", "volumes": "name", "volumeMounts": "mountPath", "ports": "containerPort",
    "imagePullSecrets": "name", "tolerations": "key", "conditions": "type",
    "hostAliases": "ip", "volumeDevices": "devicePath", "ownerReferences": "uid",
}
_SERVICE_PORT_KEY = "port"


class PatchError(Exception):
    """The patch could not be applied (a failed `test`, a missing path, a bad op).

    Internal, as PatchFormatError: the registry answers it as 422 Invalid."""


class PatchFormatError(Exception):
    """The patch body itself is malformed (not the right JSON shape); answered 400."""


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: maps merge, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _index(container: list[Any], token: str, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"invalid array index {token!r}")
    idx = int(token)
    if idx > len(container) or (idx == len(container) and not allow_end):
        raise PatchError(f"array index {idx} out of bounds")
    return idx


def _parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict):
            if token not in node:
                raise PatchError(f"missing path element {token!r}")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, allow_end=False)]
        else:
            raise PatchError(f"cannot traverse into {token!r}")
    return node


def _get(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        return doc
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError(f"missing path element {last!r}")
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(parent, last, allow_end=False)]
    raise PatchError("path does not exist")


def _remove(doc: Any, tokens: list[str]) -> Any:
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError(f"missing path element {last!r}")
        return parent.pop(last)
    if isinstance(parent, list):
        return parent.pop(_index(parent, last, allow_end=False))
    raise PatchError("path does not exist")


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, allow_end=True), value)
    else:
        raise PatchError("path does not exist")
    return doc


def json_patch(target: Any, operations: Any) -> Any:
    """RFC 6902 on a deep copy of `target`; raises PatchError or PatchFormatError."""
    if not isinstance(operations, list):
        raise PatchFormatError("json patch must be a list of operations")
    doc = copy.deepcopy(target)
    for op in operations:
        if not isinstance(op, dict) or not isinstance(op.get("op"), str) or not isinstance(
                op.get("path"), str):
            raise PatchFormatError("each json patch operation needs 'op' and 'path'")
        kind = op["op"]
        tokens = _pointer(op["path"])
        if kind in ("add", "replace", "test") and "value" not in op:
            raise PatchFormatError(f"json patch '{kind}' needs a 'value'")
        if kind == "add":
            doc = _add(doc, tokens, copy.deepcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, tokens)
        elif kind == "replace":
            _get(doc, tokens)
            if tokens:
                _remove(doc, tokens)
            doc = _add(doc, tokens, copy.deepcopy(op["value"]))
        elif kind in ("move", "copy"):
            if not isinstance(op.get("from"), str):
                raise PatchFormatError(f"json patch '{kind}' needs 'from'")
            source = _pointer(op["from"])
            value = _remove(doc, source) if kind == "move" else copy.deepcopy(_get(doc, source))
            doc = _add(doc, tokens, value)
        elif kind == "test":
            if _get(doc, tokens) != op["value"]:
                raise PatchError(f"test failed at {op['path']!r}")
        else:
            raise PatchFormatError(f"unknown json patch op {kind!r}")
    return doc


def _merge_key(field: str, items: list[Any], kind: str) -> str | None:
    if field == "ports" and kind == "Service":
        return _SERVICE_PORT_KEY
    key = _MERGE_KEYS.get(field)
    if key and all(isinstance(i, dict) for i in items):
        return key
    return None


def strategic_merge_patch(target: Any, patch: Any, kind: str = "", field: str = "") -> Any:
    """Strategic merge for the common list merge keys; other fields as merge patch."""
    if isinstance(patch, dict):
        if patch.get("$patch") == "replace":
            return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
        result = dict(target) if isinstance(target, dict) else {}
        for key, value in patch.items():
            if key.startswith("$"):
                continue
            if value is None:
                result.pop(key, None)
            elif isinstance(value, list) and isinstance(result.get(key), list):
                result[key] = _merge_list(result[key], value, kind, key)
            else:
                result[key] = strategic_merge_patch(result.get(key), value, kind, key)
        return result
    if isinstance(patch, list):
        return [strategic_merge_patch(None, item, kind, field) for item in patch
                if not (isinstance(item, dict) and item.get("$patch") == "delete")]
    return copy.deepcopy(patch)


def _merge_list(current: list[Any], patch: list[Any], kind: str, field: str) -> list[Any]:
    key = _merge_key(field, current + patch, kind)
    if key is None:
        return [strategic_merge_patch(None, item, kind, field) for item in patch]
    merged = list(current)
    for item in patch:
        if item.get("$patch") == "replace":
            return [strategic_merge_patch(None, i, kind, field) for i in patch
                    if i.get("$patch") != "replace"]
        positions = [i for i, cur in enumerate(merged) if cur.get(key) == item.get(key)]
        if item.get("$patch") == "delete":
            merged = [cur for cur in merged if cur.get(key) != item.get(key)]
        elif positions:
            merged[positions[0]] = strategic_merge_patch(merged[positions[0]], item, kind, field)
        else:
            merged.append(strategic_merge_patch(None, item, kind, field))
    return merged
