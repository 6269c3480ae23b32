"""Decoding the protobuf request bodies kubectl's imperative commands send.

`kubectl create configmap|secret|namespace|serviceaccount` (and a `Scale` PUT) POST
`application/vnd.kubernetes.protobuf`: the bytes `k8s\\x00`, then a `runtime.Unknown`
envelope holding the TypeMeta and the object's own protobuf message. This module decodes
exactly those kinds, with the standard library, into the dict the JSON body would have
been; the server always answers JSON (kubectl accepts it). Other kinds raise
`UnsupportedKind`, so the server can say which kinds it can read.

Go's generated marshallers write zero values too (empty strings, 0, empty messages);
fields whose JSON form is `omitempty` are dropped when zero, as `encoding/json` would.
"""

from __future__ import annotations

import base64
from typing import Any

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"

Schema = dict[int, tuple[str, Any]]


class ProtobufError(ValueError):
    """The bytes are not a well-formed Kubernetes protobuf body."""


class UnsupportedKind(ProtobufError):
    """A well-formed body of a kind this decoder has no schema for."""

    def __init__(self, api_version: str, kind: str) -> None:
        self.api_version = api_version
        self.kind = kind
        super().__init__(f"{kind} ({api_version})")


# -- wire format ------------------------------------------------------------------------------


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise ProtobufError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ProtobufError("varint too long")


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value) of every field of one message, in order."""
    out = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise ProtobufError("truncated length-delimited field")
            value, pos = data[pos:pos + length], pos + length
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ProtobufError(f"unsupported wire type {wire}")
        if pos > len(data):
            raise ProtobufError("truncated field")
        out.append((number, wire, value))
    return out


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


# -- schemas (field number -> JSON name, type) ---------------------------------------------------

_OWNER_REF: Schema = {1: ("kind", "string"), 3: ("name", "string"), 4: ("uid", "string"),
                      5: ("apiVersion", "string"), 6: ("controller", "optbool"),
                      7: ("blockOwnerDeletion", "optbool")}
_OBJECT_META: Schema = {
    1: ("name", "string"), 2: ("generateName", "string"), 3: ("namespace", "string"),
    5: ("uid", "string"), 6: ("resourceVersion", "string"), 7: ("generation", "int"),
    11: ("labels", ("map", "string")), 12: ("annotations", ("map", "string")),
    13: ("ownerReferences", ("repeated", _OWNER_REF)),
    14: ("finalizers", ("repeated", "string")),
}
_OBJECT_REF: Schema = {1: ("kind", "string"), 2: ("namespace", "string"), 3: ("name", "string"),
                       4: ("uid", "string"), 5: ("apiVersion", "string"),
                       6: ("resourceVersion", "string"), 7: ("fieldPath", "string")}
_KINDS: dict[tuple[str, str], Schema] = {
    ("v1", "ConfigMap"): {1: ("metadata", _OBJECT_META), 2: ("data", ("map", "string")),
                          3: ("binaryData", ("map", "bytes")), 4: ("immutable", "optbool")},
    ("v1", "Secret"): {1: ("metadata", _OBJECT_META), 2: ("data", ("map", "bytes")),
                       3: ("type", "string"), 4: ("stringData", ("map", "string")),
                       5: ("immutable", "optbool")},
    ("v1", "Namespace"): {1: ("metadata", _OBJECT_META),
                          2: ("spec", {1: ("finalizers", ("repeated", "string"))}),
                          3: ("status", {1: ("phase", "string")})},
    ("v1", "ServiceAccount"): {
        1: ("metadata", _OBJECT_META), 2: ("secrets", ("repeated", _OBJECT_REF)),
        3: ("imagePullSecrets", ("repeated", {1: ("name", "string")})),
        4: ("automountServiceAccountToken", "optbool")},
    ("autoscaling/v1", "Scale"): {1: ("metadata", _OBJECT_META),
                                  2: ("spec", {1: ("replicas", "int")}),
                                  3: ("status", {1: ("replicas", "int"),
                                                 2: ("selector", "string")})},
}
SUPPORTED_KINDS = tuple(kind for _, kind in _KINDS)


def _scalar(kind: str, wire: int, value: Any) -> Any:
    if kind in ("string", "bytes"):
        if wire != 2:
            raise ProtobufError(f"expected a length-delimited {kind}")
        if kind == "bytes":
            return base64.b64encode(value).decode()
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtobufError("a string field is not UTF-8") from None
    if wire != 0:
        raise ProtobufError(f"expected a varint {kind}")
    if kind in ("bool", "optbool"):
        return bool(value)
    return _signed(value)


def _message(data: bytes, schema: Schema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pointers: set[str] = set()  # optional (pointer) fields: kept even when false
    for number, wire, value in _fields(data):
        if number not in schema:
            continue  # a field this decoder does not know: skipped, as unknown JSON keys
        name, kind = schema[number]
        if kind == "optbool":
            pointers.add(name)
        if isinstance(kind, dict):
            out[name] = _message(value, kind)
        elif isinstance(kind, tuple) and kind[0] == "map":
            entry = _message(value, {1: ("key", "string"), 2: ("value", kind[1])})
            out.setdefault(name, {})[entry.get("key", "")] = entry.get("value", "")
        elif isinstance(kind, tuple) and kind[0] == "repeated":
            item = (_message(value, kind[1]) if isinstance(kind[1], dict)
                    else _scalar(kind[1], wire, value))
            out.setdefault(name, []).append(item)
        else:
            out[name] = _scalar(kind, wire, value)
    return {k: v for k, v in out.items() if k in pointers or v not in ("", 0, False, {}, [])}


def decode(body: bytes) -> dict[str, Any]:
    """A `k8s\\x00`-framed protobuf body as the equivalent JSON object (a dict).

    Raises ProtobufError for malformed bytes and UnsupportedKind for kinds other than
    ConfigMap, Secret, Namespace, ServiceAccount (v1) and Scale (autoscaling/v1).
    """
    if not body.startswith(MAGIC):
        raise ProtobufError("missing the k8s\\x00 protobuf prefix")
    envelope = {number: value for number, wire, value in _fields(body[len(MAGIC):])
                if wire == 2}
    type_meta = _message(envelope.get(1, b""), {1: ("apiVersion", "string"),
                                                 2: ("kind", "string")})
    api_version = type_meta.get("apiVersion", "")
    kind = type_meta.get("kind", "")
    schema = _KINDS.get((api_version, kind))
    if schema is None:
        raise UnsupportedKind(api_version, kind)
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
    obj.update(_message(envelope.get(2, b""), schema))
    return obj


def frame(api_version: str, kind: str, fields: list[tuple[int, Any]]) -> bytes:
    """Encode a framed body from (field number, value) pairs: values are str, bytes, int,
    bool, or lists of pairs (nested messages). The inverse of `decode`, for showing (and
    testing) what is on the wire."""
    return MAGIC + _encode([(1, [(1, api_version), (2, kind)]), (2, fields)])


def _key(number: int, wire: int) -> bytes:
    return _varint_bytes(number << 3 | wire)


def _varint_bytes(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _encode(fields: list[tuple[int, Any]]) -> bytes:
    out = bytearray()
    for number, value in fields:
        if isinstance(value, (bool, int)):
            out += _key(number, 0) + _varint_bytes(int(value))
        else:
            raw = (value.encode() if isinstance(value, str) else value
                   if isinstance(value, bytes) else _encode(value))
            out += _key(number, 2) + _varint_bytes(len(raw)) + raw
    return bytes(out)
