"""Wire encoding: compact JSON as Go's encoding/json writes it, timestamps, YAML bodies.

The real API server sends one compact JSON line plus a newline and escapes `<`, `>`,
`&`, U+2028 and U+2029 inside strings; clients and byte-level fixtures see the same here.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec
import yaml

from kubenb.jsondecode import decode_json
from kubenb.timeutil import now_rfc3339

__all__ = [
    "DISCOVERY",
    "NOT_ACCEPTABLE",
    "PARTIAL",
    "TABLE",
    "Output",
    "TooDeepError",
    "check_depth",
    "dumps",
    "dumps_line",
    "dumps_pretty",
    "dumps_yaml",
    "encode",
    "loads_body",
    "negotiate",
    "now_rfc3339",
    "parse_media_type",
]

_GO_ESCAPES = (
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)

#: msgspec writes the compact UTF-8 JSON `json.dumps(separators=(",", ":"),
#: ensure_ascii=False)` writes, keys in insertion order, at a fraction of the cost: a list
#: response spent more than half its time in `json.dumps`. (Floats differ in one place
#: only: an exponent is written `1e20`, not `1e+20`.)
_ENCODER = msgspec.json.Encoder()


def dumps(obj: Any) -> bytes:
    """Encode `obj` as Go would: compact, UTF-8, HTML-safe escapes, trailing newline."""
    data = _ENCODER.encode(obj)
    for raw, escaped in _GO_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    return data + b"\n"


def dumps_line(obj: Any) -> bytes:
    """Like `dumps` but without the trailing newline (for embedding in watch events)."""
    return dumps(obj)[:-1]


def dumps_yaml(obj: Any) -> bytes:
    """YAML body for `Accept: application/yaml`, keys in the order they were stored."""
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False).encode("utf-8")


#: How deeply a request body may nest objects and arrays. The apiserver's JSON decoder
#: stops at 10000; kubenb's Python (deepcopy, merges, YAML output) recurses once or more per
#: level, so it stops far earlier, at a depth no real object comes near.
_MAX_DEPTH = 200
_DEPTH_MESSAGE = (f"exceeded max depth: objects and arrays nested more than {_MAX_DEPTH} "
                  "levels deep")


class TooDeepError(ValueError):
    """A body (or a patch's result) nests deeper than the apiserver's 200 levels.

    Internal: the handlers and the registry answer it as 400 BadRequest; it never leaves
    the server."""

    def __init__(self) -> None:
        super().__init__(_DEPTH_MESSAGE)


def check_depth(value: Any, limit: int = _MAX_DEPTH) -> None:
    """Raise TooDeepError if `value` nests dicts and lists more than `limit` deep
    (iteratively: a body too deep for recursion must not crash the check)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= limit:
                    raise TooDeepError()
                stack.append((child, depth + 1))


def loads_body(body: bytes, content_type: str) -> Any:
    """Decode a request body; raises ValueError with a short reason on bad input, and
    TooDeepError for one nested deeper than _MAX_DEPTH."""
    if content_type in ("application/yaml", "application/x-yaml", "text/yaml"):
        try:
            value = yaml.safe_load(body.decode("utf-8"))
        except RecursionError:
            raise TooDeepError() from None
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise ValueError(f"yaml parse error: {exc}") from None
        if isinstance(value, (dict, list)):
            check_depth(value)
        return value
    try:
        value = decode_json(body)  # json.loads's value, or its error, faster
    except RecursionError:
        raise TooDeepError() from None
    except json.JSONDecodeError as exc:
        if exc.pos >= len(body.strip()):
            raise ValueError("unexpected end of JSON input") from None
        raise ValueError(exc.msg) from None
    except UnicodeDecodeError as exc:
        raise ValueError(str(exc)) from None
    if isinstance(value, (dict, list)) and body.count(b"{") + body.count(b"[") > _MAX_DEPTH:
        check_depth(value)  # fewer brackets than the limit cannot nest deeper than it
    return value


def dumps_pretty(obj: Any) -> bytes:
    """`?pretty=true`: indented as Go's json.MarshalIndent(obj, "", "  ") writes it (the
    same escapes as `dumps`, and no trailing newline)."""
    data = json.dumps(obj, indent=2, ensure_ascii=False).encode("utf-8")
    for raw, escaped in _GO_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


# Go's mime token characters: printable ASCII but for the separators.
_TOKEN = re.compile("[" + re.escape("".join(
    chr(c) for c in range(0x21, 0x7F) if chr(c) not in '()<>@,;:\\"/[]?=')) + "]*")


def _token(text: str) -> tuple[str, str]:
    """Go's mime consumeToken: the leading token of `text` and the rest."""
    end = _TOKEN.match(text).end()  # type: ignore[union-attr]  # "*" always matches
    return text[:end], text[end:]


def _param_value(text: str) -> tuple[str, str] | None:
    """A parameter value (token or quoted string) and the rest; None if there is none."""
    if not text.startswith('"'):
        value, rest = _token(text)
        return (value, rest) if value else None
    out: list[str] = []
    i = 1
    while i < len(text):
        char = text[i]
        if char == '"':
            return "".join(out), text[i + 1:]
        if char == "\\" and i + 1 < len(text):
            i += 1
            char = text[i]
        out.append(char)
        i += 1
    return None


def parse_media_type(header: str) -> tuple[str, dict[str, str]]:
    """Go's `mime.ParseMediaType`, which the apiserver applies to a body's Content-Type:
    the lower-cased `type/subtype` and its parameters. Raises ValueError on anything it
    rejects (";;;", "application/", a parameter without a value, a repeated parameter);
    the apiserver answers those with 415, as it answers a type it cannot decode."""
    base, _, _ = header.partition(";")
    mime = base.strip().lower()
    kind, rest = _token(mime)
    if not kind:
        raise ValueError("mime: no media type")
    if rest:
        if not rest.startswith("/"):
            raise ValueError("mime: expected slash after first token")
        subtype, rest = _token(rest[1:])
        if not subtype:
            raise ValueError("mime: expected token after slash")
        if rest:
            raise ValueError("mime: unexpected content after media subtype")
    params: dict[str, str] = {}
    text = header[len(base):]
    while True:
        text = text.lstrip()
        if not text:
            break
        if text.strip() == ";":
            break  # a trailing semicolon is allowed
        if not text.startswith(";"):
            raise ValueError("mime: invalid media parameter")
        key, after = _token(text[1:].lstrip())
        key = key.lower()
        after = after.lstrip()
        if not key or not after.startswith("="):
            raise ValueError("mime: invalid media parameter")
        parsed = _param_value(after[1:].lstrip())
        if parsed is None:
            raise ValueError("mime: invalid media parameter")
        if key in params:
            raise ValueError("mime: duplicate parameter name")
        params[key], text = parsed
    return mime, params


@dataclass(frozen=True)
class _MediaType:
    """One entry of an Accept header: `application/json;as=Table;v=v1;g=meta.k8s.io`."""

    mime: str
    params: dict[str, str] = field(default_factory=dict, compare=False)

    def param(self, name: str) -> str:
        """A parameter's value ("" when absent); names are case-insensitive."""
        return self.params.get(name.lower(), "")

    @property
    def is_json(self) -> bool:
        """application/json, or a wildcard that JSON satisfies."""
        return self.mime in ("application/json", "application/*", "*/*")

    @property
    def is_yaml(self) -> bool:
        return self.mime == "application/yaml"


def _parse_accept(header: str) -> list[_MediaType]:
    """The Accept header's media types in the order given (q-values ignored, as kubectl and
    client-go list their preferences first-to-last and never weight them)."""
    out = []
    for part in header.split(","):
        pieces = [p.strip() for p in part.split(";")]
        if not pieces[0]:
            continue
        params = {}
        for piece in pieces[1:]:
            key, _, value = piece.partition("=")
            params[key.strip().lower()] = value.strip().strip('"')
        out.append(_MediaType(pieces[0].lower(), params))
    return out


# -- content negotiation: what shape an answer takes ------------------------------------------

TABLE = "Table"
PARTIAL = "PartialObjectMetadata"
DISCOVERY = "APIGroupDiscoveryList"
_META_VERSIONS = ("v1", "v1beta1")
_DISCOVERY_VERSIONS = ("v2", "v2beta1")
NOT_ACCEPTABLE = ("only the following media types are accepted: application/json, "
                  "application/yaml, application/vnd.kubernetes.protobuf")


@dataclass(frozen=True)
class Output:
    """The negotiated answer: `json` or `yaml`, optionally converted `as_kind` (Table,
    PartialObjectMetadata, APIGroupDiscoveryList) at `version` of its API group."""

    encoding: str = "json"
    as_kind: str = ""
    version: str = ""

    @property
    def api_version(self) -> str:
        group = "apidiscovery.k8s.io" if self.as_kind == DISCOVERY else "meta.k8s.io"
        return f"{group}/{self.version}"


@functools.lru_cache(maxsize=256)
def negotiate(accept: str, allowed: tuple[str, ...] = ()) -> Output | None:
    """The first entry of `accept` the endpoint can produce (None: nothing acceptable).

    `allowed` lists the conversions the endpoint supports; an entry asking for any other
    (`as=Table` on a discovery document, an unknown `v=`) is skipped, as the apiserver
    skips it, so a client's fallbacks (`...,application/json`) are honoured in order.
    Answers are kept (an Output is immutable): a client sends the same few Accept
    headers again and again, and parsing one cost every request a few microseconds.
    """
    entries = _parse_accept(accept)
    if not entries:
        return Output()
    for media in entries:
        if not (media.is_json or media.is_yaml):
            continue
        encoding = "yaml" if media.is_yaml else "json"
        as_kind = media.param("as")
        if not as_kind:
            return Output(encoding)
        if as_kind == "PartialObjectMetadataList":
            as_kind = PARTIAL
        if as_kind not in allowed:
            continue
        group, version = media.param("g"), media.param("v")
        if as_kind == DISCOVERY:
            if group == "apidiscovery.k8s.io" and version in _DISCOVERY_VERSIONS:
                return Output(encoding, as_kind, version)
        elif group == "meta.k8s.io" and version in _META_VERSIONS:
            return Output(encoding, as_kind, version)
    return None


def encode(output: Output, obj: Any) -> bytes:
    """The body bytes of `obj` in the negotiated encoding."""
    return dumps_yaml(obj) if output.encoding == "yaml" else dumps(obj)
