"""Decoding the protobuf request bodies kubectl's imperative commands send.

`kubectl create deployment|service|job|configmap|secret|...`, `kubectl run`, `kubectl auth
can-i` and a `Scale` PUT send `application/vnd.kubernetes.protobuf`: the bytes `k8s\\x00`,
then a `runtime.Unknown` envelope holding the TypeMeta and the object's own protobuf
message. This module decodes every built-in kind, with the standard library, into the dict
kubectl's JSON body would have been; the server always answers JSON (kubectl accepts it).
Custom resources have no protobuf form: they raise `UnsupportedKind`.

The field numbers, JSON names and Go field kinds come from kubenb.server.k8s_types (the
struct tags of k8s.io/api v1.32). The result is what Go's encoding/json writes for the
decoded struct: pointer fields only when set, `omitempty` fields only when not zero, other
fields always (zero values included, a struct as its zero JSON, a zero Time as null), keys
in Go order. Packed and unpacked repeated varints are both read.
"""

from __future__ import annotations

import base64
import json
import struct
from datetime import datetime, timedelta, timezone
from typing import Any

from kubenb.server import typeinfo

__all__ = ["CONTENT_TYPE", "ProtobufError", "UnsupportedKind", "decode", "frame", "go_duration"]

_MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"


class ProtobufError(ValueError):
    """The bytes are not a well-formed Kubernetes protobuf body.

    Internal, as UnsupportedKind: the handlers answer them as 400 and 415."""


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


# -- messages, from kubenb.server.typeinfo (Go struct tags of k8s.io/api v1.32) -------------


def _text(wire: int, value: Any, what: str) -> str:
    if wire != 2:
        raise ProtobufError(f"expected a length-delimited {what}")
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError(f"a {what} is not UTF-8") from None


def _varint_of(wire: int, value: Any, what: str) -> int:
    if wire != 0:
        raise ProtobufError(f"expected a varint {what}")
    return int(value)


def _submessage(wire: int, value: Any, what: str) -> list[tuple[int, int, Any]]:
    if wire != 2:
        raise ProtobufError(f"expected a length-delimited {what}")
    return _fields(value)


def _time(parts: list[tuple[int, int, Any]], micro: bool) -> str | None:
    """metav1.Time / MicroTime (seconds, nanos) as their JSON; an empty message is null."""
    if not parts:
        return None
    values = {number: _signed(value) for number, wire, value in parts if wire == 0}
    seconds, nanos = values.get(1, 0), values.get(2, 0)
    stamp = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds)
    if micro:
        return stamp.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos // 1000:06d}Z"
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def go_duration(nanoseconds: int) -> str:
    """A duration as Go's time.Duration.String() writes it ("1h0m0s", "1.5s", "0s")."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    n = abs(nanoseconds)
    if n < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if n >= size:
                return sign + _fraction(n, size) + unit
    hours, rest = divmod(n, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = _fraction(rest, 1_000_000_000) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    if minutes:
        return f"{sign}{minutes}m{text}"
    return sign + text


def _fraction(value: int, unit: int) -> str:
    whole, rest = divmod(value, unit)
    if not rest:
        return str(whole)
    digits = str(rest).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def _scalar(kind: str, wire: int, value: Any) -> Any:
    """One wire value of a scalar or special type, as Go's JSON would write it."""
    if kind == "s":
        return _text(wire, value, "string")
    if kind == "y":
        if wire != 2:
            raise ProtobufError("expected length-delimited bytes")
        return base64.b64encode(value).decode()
    if kind == "b":
        return bool(_varint_of(wire, value, "bool"))
    if kind == "i":
        return _signed(_varint_of(wire, value, "integer"))
    if kind == "f":
        if wire == 1:
            return struct.unpack("<d", value)[0]
        if wire == 5:
            return struct.unpack("<f", value)[0]
        raise ProtobufError("expected a fixed-width float")
    parts = _submessage(wire, value, kind)
    if kind in ("t", "m"):
        return _time(parts, kind == "m")
    if kind == "q":  # resource.Quantity {string string = 1}
        return next((_text(w, v, "quantity") for n, w, v in parts if n == 1), "0")
    if kind == "d":  # metav1.Duration {int64 duration = 1}
        return go_duration(next((_signed(v) for n, w, v in parts if n == 1 and w == 0), 0))
    if kind == "io":  # intstr.IntOrString {type = 1, intVal = 2, strVal = 3}
        values: dict[int, Any] = {}
        for number, w, v in parts:
            values[number] = _signed(v) if w == 0 else _text(w, v, "string")
        return values.get(3, "") if values.get(1) == 1 else values.get(2, 0)
    if kind in ("raw", "fv1"):  # RawExtension / FieldsV1 {bytes raw = 1}: JSON inside
        raw = next((bytes(v) for n, w, v in parts if n == 1 and w == 2), b"")
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ProtobufError(f"a {kind} field does not hold JSON") from None
    raise ProtobufError(f"unknown field type {kind}")


_ZERO: dict[str, Any] = {"s": "", "b": False, "i": 0, "f": 0, "y": None, "q": "0", "t": None,
                         "m": None, "d": "0s", "io": 0, "raw": None, "fv1": None}


def _value(f: typeinfo.FieldInfo, wire: int, value: Any) -> Any:
    ref = f.ref
    if ref is not None:
        return _struct(_submessage(wire, value, ref), typeinfo.struct(ref))
    return _scalar(f.element, wire, value)


_MISSING = object()


def _emitted(f: typeinfo.FieldInfo, present: bool, value: Any) -> Any:
    """What encoding/json writes for a field (or _MISSING when it leaves it out)."""
    if f.pointer:
        return value if present else (_MISSING if f.omitempty else None)
    if f.struct_like:
        return value if present else _zero_of(f.type)  # omitempty does not omit a struct
    if f.is_list or f.is_map or f.type == "y":
        if present and value:
            return value
        return _MISSING if f.omitempty else (value if present else None)
    value = value if present else _ZERO.get(f.type)
    return _MISSING if f.omitempty and value in ("", 0, False) else value


def _struct(parts: list[tuple[int, int, Any]], info: typeinfo.StructInfo) -> dict[str, Any]:
    """One message as the JSON Go's encoding/json writes for the struct it decodes into:
    pointers only when set, omitempty fields only when not zero, every other field always
    (zero values included, structs as their zero JSON), keys in Go order."""
    decoded: dict[int, Any] = {}
    for number, wire, value in parts:
        f = info.by_number.get(number)
        if f is None:
            continue  # a field this table does not know: skipped, as unknown JSON keys
        if f.is_map:
            entry = {n: (w, v) for n, w, v in _submessage(wire, value, "map entry")}
            key = _text(*entry[1], "map key") if 1 in entry else ""
            item = _value(f, *entry[2]) if 2 in entry else _zero_of(f.element)
            decoded.setdefault(number, {})[key] = item
        elif f.is_list:
            items = decoded.setdefault(number, [])
            if wire == 2 and f.element in ("i", "b"):  # packed varints
                pos = 0
                while pos < len(value):
                    item, pos = _varint(value, pos)
                    items.append(_scalar(f.element, 0, item))
            else:
                items.append(_value(f, wire, value))
        else:
            decoded[number] = _value(f, wire, value)
    out: dict[str, Any] = {}
    for f in info.fields:
        if f.inline:
            ref = f.ref or ""
            out.update(decoded.get(f.number) or _struct([], typeinfo.struct(ref)))
            continue
        value = _emitted(f, f.number in decoded, decoded.get(f.number))
        if value is not _MISSING:
            out[f.name] = value
    return out


def _zero_of(kind: str) -> Any:
    if kind.startswith("@"):
        return _struct([], typeinfo.struct(kind[1:]))
    return _ZERO.get(kind)


def decode(body: bytes) -> dict[str, Any]:
    """A `k8s\\x00`-framed protobuf body as the JSON object kubectl would have sent.

    Raises ProtobufError for malformed bytes and UnsupportedKind for kinds that are not
    built in (custom resources have no protobuf encoding).
    """
    if not body.startswith(_MAGIC):
        raise ProtobufError("missing the k8s\\x00 protobuf prefix")
    envelope = {number: value for number, wire, value in _fields(body[len(_MAGIC):])
                if wire == 2}
    type_meta = {number: _text(wire, value, "string")
                 for number, wire, value in _fields(envelope.get(1, b"")) if wire == 2}
    api_version = type_meta.get(1, "")
    kind = type_meta.get(2, "")
    group, _, version = api_version.rpartition("/")
    info = typeinfo.kind_struct(group, version, kind)
    if info is None:
        raise UnsupportedKind(api_version, kind)
    obj: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
    obj.update(_struct(_fields(envelope.get(2, b"")), info))
    return obj


def frame(api_version: str, kind: str, fields: list[tuple[int, Any]]) -> bytes:
    """Encode a framed body from (field number, value) pairs: values are str, bytes, int,
    bool, or lists of pairs (nested messages). The inverse of `decode`, for showing (and
    testing) what is on the wire."""
    return _MAGIC + _encode([(1, [(1, api_version), (2, kind)]), (2, fields)])


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
