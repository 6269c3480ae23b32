"""Object keys and tombstones (client-go `tools/cache/store.go`, `object-names.go`).

A cache is a map from key to object: "namespace/name" for namespaced objects,
"name" for cluster-scoped ones. A `DeletedFinalStateUnknown` tombstone stands in
for an object whose deletion was missed while a watch was down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubenb.errors import KeyFuncError

__all__ = [
    "NAMESPACE_INDEX",
    "DeletedFinalStateUnknown",
    "ExplicitKey",
    "IndexFunc",
    "KeyFunc",
    "deletion_handling_meta_namespace_key_func",
    "index_func_to_key_func_adapter",
    "meta_namespace_index_func",
    "meta_namespace_key_func",
    "split_meta_namespace_key",
]

KeyFunc = Callable[[Any], str]
IndexFunc = Callable[[Any], list[str]]

#: Name of the index `meta_namespace_index_func` is registered under.
NAMESPACE_INDEX = "namespace"


class ExplicitKey(str):
    """A string that is already a key; key functions pass it through unchanged."""

    __slots__ = ()


@dataclass(frozen=True)
class DeletedFinalStateUnknown:
    """A tombstone: `key` was deleted while we were not watching; `obj` is its last
    known state (possibly stale, possibly None)."""

    key: str
    obj: Any


def _metadata(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        raise KeyFuncError(obj, f"object has no meta: {type(obj).__name__}")
    return meta


def meta_namespace_key_func(obj: Any) -> str:
    """Return "<namespace>/<name>", or "<name>" for an object with no namespace."""
    if isinstance(obj, ExplicitKey):
        return str(obj)
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    meta = _metadata(obj)
    name = meta.get("name")
    if not name:
        raise KeyFuncError(obj, "object has no metadata.name")
    if not isinstance(name, str):
        raise KeyFuncError(obj, f"metadata.name is a {type(name).__name__}, not a string")
    ns = meta.get("namespace")
    return f"{ns}/{name}" if ns else name


def deletion_handling_meta_namespace_key_func(obj: Any) -> str:
    """Like `meta_namespace_key_func`, reading a tombstone's key without its object."""
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    return meta_namespace_key_func(obj)


def split_meta_namespace_key(key: str) -> tuple[str, str]:
    """Split "ns/name" into ("ns", "name") and "name" into ("", "name").

    More than one "/" is not a key kubenb makes and raises ValueError.
    """
    parts = key.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f'unexpected key format: "{key}"')


def meta_namespace_index_func(obj: Any) -> list[str]:
    """Index objects by namespace ("" for cluster-scoped ones)."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    meta = _metadata(obj)
    return [meta.get("namespace") or ""]


def index_func_to_key_func_adapter(index_func: IndexFunc) -> KeyFunc:
    """Use an index function that yields exactly one value as a key function."""

    def key_func(obj: Any) -> str:
        values = index_func(obj)
        if len(values) > 1:
            raise KeyFuncError(obj, f"too many keys: {values}")
        if not values:
            raise KeyFuncError(obj, "unexpected empty indexKeys")
        return values[0]

    return key_func
