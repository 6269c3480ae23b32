"""Kubernetes timestamps: RFC 3339 parsing and apimachinery's human durations.

A ground-floor module (standard library only): the API server reads metav1.Time from
requests with it, and the printers, LiveFrame and widgets turn timestamps into the
AGE kubectl shows. Time is epoch seconds (floats) throughout, and `now` is always a
parameter, so tests and notebooks can pin it.

- `parse_time(text)`: metav1.Time or MicroTime as epoch seconds, None when it is not one.
- `human_duration(seconds)`: apimachinery's `duration.HumanDuration` ("5s", "3m2s", "2d").
- `age(timestamp, now)`: `translateTimestampSince`, "<unknown>" for a missing time.
- `format_time(stamp)`: epoch seconds as metav1.Time writes them ("2026-01-01T00:03:02Z").
- `http_date(stamp)`: epoch seconds as an HTTP Date header ("Thu, 01 Jan 2026 00:03:02 GMT").
"""

from __future__ import annotations

import email.utils
import functools
import math
import re
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

__all__ = ["age", "format_time", "http_date", "human_duration", "now_rfc3339", "parse_time"]

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}:\d{2})$")


def parse_time(text: Any) -> float | None:
    """An RFC 3339 timestamp (metav1.Time or MicroTime) as epoch seconds, or None."""
    if not isinstance(text, str):
        return None
    return _parse_rfc3339(text)


# A table or LiveFrame row parses the same few timestamps again and again (a pod's
# creationTimestamp twice per row, and again at every update of the pod): remembered,
# a parse is a cache lookup instead of ~6 µs, a fifth of a Pod row. The strings kept
# are the objects' own; 32k of them are a few MB at most.
@functools.lru_cache(maxsize=1 << 15)
def _parse_rfc3339(text: str) -> float | None:
    stripped = text.strip()
    match = _RFC3339.match(stripped)
    if match is None:
        return None
    midnight = _midnight(stripped[:10])
    if midnight is None:
        return None
    _, _, _, hour, minute, second, fraction, zone = match.groups()
    hours, minutes, seconds = int(hour), int(minute), int(second)
    if hours > 23 or minutes > 59 or seconds > 59:
        return None  # what datetime() refuses (no leap second either)
    offset = 0
    if zone != "Z" and zone != "z":
        offset = int(zone[1:3]) * 3600 + int(zone[4:6]) * 60
        if zone[0] == "-":
            offset = -offset
    # Whole seconds first, the fraction last: one rounding, as datetime's reading gives.
    stamp = midnight + (hours * 3600 + minutes * 60 + seconds - offset)
    return stamp + float(fraction) if fraction else stamp


class _EachSecond:
    """Whole epoch seconds formatted by `format`, the last second's text kept: a server
    writes many objects, and answers many requests, within one second. The (second,
    text) pair is replaced whole, so threads read it safely."""

    def __init__(self, format: Callable[[int], str]) -> None:
        self._format = format
        self._last: tuple[int | None, str] = (None, "")

    def __call__(self, stamp: float) -> str:
        second = math.floor(stamp)
        last, text = self._last
        if second != last:
            text = self._format(second)
            self._last = (second, text)
        return text


_METAV1_TIME = _EachSecond(
    lambda second: datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
_HTTP_DATE = _EachSecond(lambda second: email.utils.formatdate(second, usegmt=True))


def format_time(stamp: float) -> str:
    """metav1.Time's wire form of epoch seconds: RFC 3339 in UTC, whole seconds."""
    return _METAV1_TIME(stamp)


def http_date(stamp: float) -> str:
    """An HTTP Date header's value for epoch seconds (RFC 7231 IMF-fixdate)."""
    return _HTTP_DATE(stamp)


def now_rfc3339() -> str:
    """The wall-clock time as the API writes it (`metav1.Now()`): whole seconds, UTC, `Z`."""
    return format_time(time.time())


@functools.lru_cache(maxsize=1024)
def _midnight(date: str) -> float | None:
    """Epoch seconds of midnight UTC of "YYYY-MM-DD"; None when there is no such day."""
    try:
        return datetime(int(date[:4]), int(date[5:7]), int(date[8:10]),
                        tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None  # 2023-02-29, month 13


def human_duration(seconds: float) -> str:
    """apimachinery's `duration.HumanDuration`: short, coarser as it grows ("3m2s", "4h")."""
    whole = int(seconds)  # Go's int(d.Seconds()) truncates toward zero
    if whole < -1:
        return "<invalid>"  # more than the tolerated 2 s of clock skew
    if whole < 0:
        return "0s"
    if whole < 60 * 2:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


def age(timestamp: Any, now: float) -> str:
    """`translateTimestampSince`: "<unknown>" for a missing time, else a human duration."""
    stamp = parse_time(timestamp)
    if stamp is None:
        return "<unknown>"
    return human_duration(now - stamp)
