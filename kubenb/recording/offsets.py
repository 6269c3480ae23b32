"""Times within a recording: seconds since it started, written as "mm:ss.mmm".

A user names an instant of a recording the way a video player shows it ("02:13",
"1:02:13.5"); entries, actions and progress lines print it the same way.
"""

from __future__ import annotations

import re

from kubenb.errors import RecordingError

__all__ = ["format_offset", "parse_offset"]

_OFFSET = re.compile(r"^\s*(?:(\d+):)?(\d+):(\d+(?:\.\d*)?)\s*$")


def parse_offset(text: str) -> float:
    """ "02:13" -> 133.0, "1:02:13.5" -> 3733.5, "75" / "75.5" -> seconds."""
    match = _OFFSET.match(text)
    if match:
        hours, minutes, seconds = match.groups()
        return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    try:
        return float(text)
    except ValueError:
        raise RecordingError(f"not a time: {text!r} (give 'mm:ss', 'hh:mm:ss' or seconds)"
                             ) from None


def format_offset(seconds: float) -> str:
    """133.25 -> "02:13.250" (hours only when needed)."""
    minutes, secs = divmod(max(seconds, 0.0), 60.0)
    hours, minutes = divmod(int(minutes), 60)
    text = f"{minutes:02d}:{secs:06.3f}"
    return f"{hours}:{text}" if hours else text
