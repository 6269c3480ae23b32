"""List continue tokens: the opaque `continue` a paged list hands out and takes back.

A token names the resourceVersion the first page was read at and the key to resume
after, shaped like the apiserver's (base64url JSON, no padding), so a client sees the
same kind of string it gets from a cluster. The list path issues and checks them; the
fault switches expire them on purpose.
"""

from __future__ import annotations

import base64
import binascii
import json

from kubenb.server import errors

__all__ = ["CONTINUE_EXPIRED", "decode_continue", "encode_continue"]

CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list."
)
"""The apiserver's 410 Gone message for a continue token older than its history."""


def encode_continue(rv: int, start: str) -> str:
    """An opaque continue token, shaped like the apiserver's (base64url JSON, no padding)."""
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start},
                     separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    """(rv, start key) of a continue token; 400 BadRequest if it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        if data.get("v") != "meta.k8s.io/v1":
            raise ValueError("unknown version")
        rv, start = int(data["rv"]), str(data["start"])
    except (ValueError, TypeError, KeyError, AttributeError, binascii.Error,
            UnicodeDecodeError) as exc:
        raise errors.bad_request(
            f"invalid continue token: continue key is not valid: {exc}") from None
    return rv, start
