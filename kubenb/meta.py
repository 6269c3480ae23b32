"""Helpers over plain object dicts, as decoded from the wire.

Objects in kubenb are the dicts `json.loads` produced (client-go's unstructured);
these read their metadata without copying anything.
"""

from __future__ import annotations

from typing import Any

__all__ = ["has_meta", "labels", "name", "namespace", "nested_field", "resource_version", "uid"]


def dict_field(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """`obj[key]` when it is a dict, else a new empty one: reads a field that may be
    missing or malformed (null, a string) without a check at every step."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def nested_field(obj: Any, *fields: str) -> Any:
    """The value at `obj[f0][f1]...`, or None where a step is missing or not a dict.

    apimachinery's `unstructured.NestedFieldNoCopy`, without its found flag and error:
    table cells and traits read optional fields of any shape, and None is what they show
    for all three cases. The value is the object's own, not a copy.
    """
    for field in fields:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(field)
    return obj


def has_meta(obj: Any) -> bool:
    """True when `obj` is a mapping with a `metadata` mapping."""
    return isinstance(obj, dict) and isinstance(obj.get("metadata"), dict)


def _metadata(obj: Any) -> dict[str, Any]:
    if not has_meta(obj):
        raise TypeError(f"object has no meta: {type(obj).__name__}")
    return obj["metadata"]


def name(obj: Any) -> str:
    """metadata.name, or "" when unset."""
    return _metadata(obj).get("name") or ""


def namespace(obj: Any) -> str:
    """metadata.namespace, or "" for cluster-scoped objects."""
    return _metadata(obj).get("namespace") or ""


def resource_version(obj: Any) -> str:
    """metadata.resourceVersion, or ""."""
    return _metadata(obj).get("resourceVersion") or ""


def uid(obj: Any) -> str:
    """metadata.uid, or ""."""
    return _metadata(obj).get("uid") or ""


def labels(obj: Any) -> dict[str, str]:
    """metadata.labels, or an empty dict (never None)."""
    return _metadata(obj).get("labels") or {}
