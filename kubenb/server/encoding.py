"""Wire encoding: compact JSON as Go's encoding/json writes it, timestamps, YAML bodies.

The real API server sends one compact JSON line plus a newline and escapes `<`, `>`,
`&`, U+2028 and U+2029 inside strings; clients and byte-level fixtures see the same here.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import yaml

_GO_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def dumps(obj: Any) -> bytes:
    """Encode `obj` as Go would: compact, UTF-8, HTML-safe escapes, trailing newline."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in _GO_ESCAPES:
        if raw in text:
            text = text.replace(raw, escaped)
    return text.encode("utf-8") + b"\n"


def dumps_line(obj: Any) -> bytes:
    """Like `dumps` but without the trailing newline (for embedding in watch events)."""
    return dumps(obj)[:-1]


def dumps_yaml(obj: Any) -> bytes:
    """YAML body for `Accept: application/yaml`, keys in the order they were stored."""
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False).encode("utf-8")


def loads_body(body: bytes, content_type: str) -> Any:
    """Decode a request body; raises ValueError with a short reason on bad input."""
    if content_type in ("application/yaml", "application/x-yaml", "text/yaml"):
        try:
            return yaml.safe_load(body.decode("utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise ValueError(f"yaml parse error: {exc}") from None
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(body.strip()):
            raise ValueError("unexpected end of JSON input") from None
        raise ValueError(exc.msg) from None
    except UnicodeDecodeError as exc:
        raise ValueError(str(exc)) from None


def now_rfc3339() -> str:
    """Current time the way metav1.Time marshals it: second precision, UTC, `Z`."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
