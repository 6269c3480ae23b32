"""Redaction: what a recording must not keep, replaced before a line is written.

A recording is a file people share, so by default a Secret's `stringData` values (and
its `kubectl.kubernetes.io/last-applied-configuration` annotation, which holds the same
data) are replaced by "<redacted>", and its `data` values by that marker in base64
("PHJlZGFjdGVkPg=="): `data` must stay base64, or a replayed Secret would be invalid
(a client decoding it would fail). The keys stay, so a reader still sees which keys a
Secret has. Any other field can be named: `"spec.template"`,
`"metadata.annotations.example\\.com/token"` (a backslash keeps a dot inside a key),
or a tuple of keys; its value is replaced by "<redacted>" (the field stays). A path
that meets a list applies to every element (`"spec.containers.env"` redacts the env of
every container).

Objects are never changed in place: the informer keeps the original, the file gets a
copy with the named values replaced.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

from kubenb.recording.format import RecordingError, ResourceSpec

__all__ = [
    "LAST_APPLIED",
    "REDACTED",
    "REDACTED_BASE64",
    "FieldPath",
    "Redactor",
    "parse_field_path",
]

REDACTED = "<redacted>"
#: What a Secret's `data` values become: REDACTED in base64, so the data stays valid.
REDACTED_BASE64 = base64.b64encode(REDACTED.encode()).decode()
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
FieldPath = tuple[str, ...]
_SECRET_PATHS: tuple[tuple[FieldPath, str], ...] = (
    (("data",), REDACTED_BASE64), (("stringData",), REDACTED),
    (("metadata", "annotations", LAST_APPLIED), REDACTED))


def parse_field_path(path: str | Sequence[str]) -> FieldPath:
    """`"a.b\\.c"` -> ("a", "b.c"); a sequence of keys is taken as it is."""
    if isinstance(path, str):
        parts: list[str] = []
        current = ""
        escaped = False
        for ch in path:
            if escaped:
                current += ch
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == ".":
                parts.append(current)
                current = ""
            else:
                current += ch
        parts.append(current)
        keys: tuple[str, ...] = tuple(parts)
    else:
        keys = tuple(str(k) for k in path)
    if not keys or any(not k for k in keys):
        raise RecordingError(f"cannot redact {path!r}: a field path is keys joined by dots, "
                             "like 'spec.template' (use '\\.' for a dot inside a key)")
    return keys


def _replace(value: Any, path: FieldPath, whole_values: bool, marker: str = REDACTED) -> Any:
    """`value` with what `path` names replaced by `marker` (a copy along the path)."""
    if isinstance(value, list):
        changed = False
        out = []
        for item in value:
            new = _replace(item, path, whole_values, marker)
            changed = changed or new is not item
            out.append(new)
        return out if changed else value
    if not isinstance(value, dict) or path[0] not in value:
        return value
    head, rest = path[0], path[1:]
    inner = value[head]
    if rest:
        new = _replace(inner, rest, whole_values, marker)
        if new is inner:
            return value
    elif not whole_values and isinstance(inner, dict):
        new = {k: marker for k in inner}  # keep the keys of a Secret's data
    else:
        new = marker
    return {**value, head: new}


class Redactor:
    """Replaces Secret values (unless `secrets=False`) and the values of the named
    `fields` by markers; the fields themselves stay."""

    def __init__(self, fields: Sequence[str | Sequence[str]] = (), secrets: bool = True) -> None:
        self.fields: tuple[FieldPath, ...] = tuple(parse_field_path(f) for f in fields)
        self.secrets = secrets

    def describe(self) -> dict[str, Any]:
        """What the header says about redaction."""
        return {"secrets": self.secrets, "marker": REDACTED, "data_marker": REDACTED_BASE64,
                "fields": [".".join(k.replace(".", "\\.") for k in f) for f in self.fields]}

    def for_resource(self, spec: ResourceSpec) -> Callable[[Any], Any] | None:
        """The redaction for one recorded resource, or None when it has nothing to do."""
        secret = self.secrets and spec.resource == "secrets" and spec.group == ""
        if not (secret or self.fields):
            return None
        fields = self.fields

        def redact(obj: Any) -> Any:
            if secret or (self.secrets and isinstance(obj, dict) and obj.get("kind") == "Secret"):
                for path, marker in _SECRET_PATHS:
                    obj = _replace(obj, path, whole_values=False, marker=marker)
            for path in fields:
                obj = _replace(obj, path, whole_values=True)
            return obj

        return redact
