"""Saying what something is without saying what it holds: URLs, objects, server answers.

kubenb's reprs, log lines and error messages must never carry a secret (a password in
a server URL, a token, a Secret's `data`). Everything that names a URL, an object or a
server's answer in such text goes through these helpers, so the rule lives in one place.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit

__all__ = [
    "REDACTED",
    "describe_body",
    "describe_object",
    "json_type",
    "redact_text",
    "redact_url",
    "split_url_credentials",
]

#: What stands where a secret was.
REDACTED = "<redacted>"

_USERINFO_IN_TEXT = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s'\"]*@")


def _netloc_without_userinfo(parts: SplitResult) -> str:
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    return host + (f":{port}" if port else "")


def redact_url(url: str) -> str:
    """`url` with any user:password part replaced by `<redacted>`, for messages and reprs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    if parts.username is None and parts.password is None:
        return url
    return parts._replace(netloc=f"{REDACTED}@{_netloc_without_userinfo(parts)}").geturl()


def split_url_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """(`url` without its user:password part, (user, password) or None).

    A client sends the credentials as basic auth (as Go's net/http does for a URL with
    userinfo) and keeps only the clean URL, so no response, exception or repr that
    quotes the request URL can show the password."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    clean = parts._replace(netloc=_netloc_without_userinfo(parts)).geturl()
    return clean, (unquote(parts.username or ""), unquote(parts.password or ""))


def redact_text(text: str) -> str:
    """`text` with the userinfo of every URL in it replaced by `<redacted>`."""
    return _USERINFO_IN_TEXT.sub(rf"\1{REDACTED}@", text)


def _string_or_type(value: Any, limit: int = 80) -> str | None:
    if not isinstance(value, str):
        return None
    return value if len(value) <= limit else value[: limit - 3] + "..."


def describe_object(obj: Any) -> str:
    """Which object this is (kind, namespace and name), never what it contains.

    `Secret "ns/db"`, `ConfigMap with no name in namespace "ns"`, `a dict with no
    metadata`, `a str`: enough to find the object, nothing of its data."""
    if not isinstance(obj, dict):
        return "None" if obj is None else f"a {type(obj).__name__}"
    kind = _string_or_type(obj.get("kind")) or "object"
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return f"a {kind} with no metadata" if kind != "object" else "a dict with no metadata"
    name = _string_or_type(meta.get("name"))
    namespace = _string_or_type(meta.get("namespace"))
    if name:
        return f'{kind} "{namespace}/{name}"' if namespace else f'{kind} "{name}"'
    where = f' in namespace "{namespace}"' if namespace else ""
    return f"{kind} with no name{where}"


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    flat = flat if len(flat) <= limit else flat[: limit - 3] + "..."
    return repr(redact_text(flat))


def describe_body(body: Any, content_type: str = "", limit: int = 60) -> str:
    """What a server sent, for an error saying it is not what was asked for.

    `body` is the decoded JSON, or the text of a non-JSON answer (`content_type` tells
    which). Text (HTML, a proxy's error page) is quoted as a short excerpt; JSON objects are
    described by kind and key names only, never their values (a misrouted answer may
    be a Secret); lists and scalars by type and size."""
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        media = content_type.split(";", 1)[0].strip()
        if "json" in media:
            return f"a JSON string {_excerpt(body, limit)}"
        what = f"{media} text" if media else "text"
        if not body.strip():
            return f"empty {what}"
        return f"{what} {_excerpt(body, limit)}"
    if body is None:
        return "JSON null"
    if isinstance(body, bool):
        return f"the JSON value {'true' if body else 'false'}"
    if isinstance(body, (int, float)):
        return f"the JSON number {body!r}"[: limit + 16]
    if isinstance(body, list):
        return f"a JSON array of {len(body)} element{'s' if len(body) != 1 else ''}"
    if isinstance(body, dict):
        kind = _string_or_type(body.get("kind"), 40)
        keys = sorted(str(k) for k in body)
        shown = ", ".join(keys[:8]) + (", ..." if len(keys) > 8 else "")
        head = f"a JSON object of kind {kind!r}" if kind else "a JSON object"
        return f"{head} with keys [{shown}]" if keys else f"{head} with no keys"
    return f"a {type(body).__name__}"


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type: object, array, string, number, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"
