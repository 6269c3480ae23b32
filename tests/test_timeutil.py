"""kubenb.timeutil: RFC 3339 timestamps read as kube-apiserver writes them, and
apimachinery's human durations, the AGE kubectl shows."""

from __future__ import annotations

import email.utils
import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubenb import timeutil
from kubenb.timeutil import age, format_time, http_date, human_duration, parse_time


@pytest.mark.parametrize("seconds,text", [
    (-5, "<invalid>"), (-1.5, "0s"), (0, "0s"), (9.9, "9s"), (119, "119s"), (120, "2m"),
    (182, "3m2s"), (599, "9m59s"), (600, "10m"), (179 * 60, "179m"), (3 * 3600, "3h"),
    (3 * 3600 + 25 * 60, "3h25m"), (8 * 3600, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"),
    (50 * 3600, "2d2h"), (8 * 86400, "8d"), (729 * 86400, "729d"), (730 * 86400, "2y"),
    (731 * 86400, "2y1d"), (8 * 365 * 86400, "8y"),
])
def test_human_duration_matches_apimachinery(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


def test_parse_time_handles_rfc3339_micro_and_offsets() -> None:
    base = parse_time("2026-11-22T11:43:39Z")
    assert base is not None
    assert parse_time("2026-11-22T11:43:39.250000Z") == pytest.approx(base + 0.25)
    assert parse_time("2026-11-22T12:43:39+01:00") == base
    assert parse_time("yesterday") is None and parse_time(None) is None
    assert age(None, base) == "<unknown>"
    assert age("2026-11-22T11:43:39Z", base + 3600 * 5) == "5h"


def _reference_parse_time(text: str) -> float | None:
    """The plain datetime reading of an RFC 3339 stamp that parse_time must agree with."""
    match = timeutil._RFC3339.match(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        stamp = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:
        return None
    zone = match.group(8)
    offset = 0
    if zone not in ("Z", "z"):
        offset = (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return stamp.timestamp() - offset + (float(match.group(7)) if match.group(7) else 0.0)


_STAMPS = st.builds(
    lambda y, mo, d, h, mi, s, frac, zone, sep, pad: (
        f"{pad}{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:{s:02d}{frac}{zone}{pad}"),
    st.integers(1, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 25),
    st.integers(0, 61), st.integers(0, 61),
    st.sampled_from(["", ".5", ".000001", ".123456789", ".999999"]),
    st.sampled_from(["Z", "z", "+01:00", "-05:30", "+14:00", "-00:00", "+99:99", "", "+0100"]),
    st.sampled_from(["T", "t", " ", "_"]), st.sampled_from(["", " ", "\n"]))


@given(st.lists(_STAMPS, min_size=1, max_size=20))
def test_parse_time_agrees_with_datetime_also_when_remembered(stamps: list[str]) -> None:
    # Twice each: the second answer comes from the memo and must be the same.
    for text in stamps + stamps:
        assert parse_time(text) == _reference_parse_time(text), text


def test_parse_time_rejects_impossible_instants() -> None:
    for text in ("2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z",
                 "2026-11-22T11:60:00Z", "2026-11-22T11:43:60Z", "2026-11-22T11:43:39",
                 "2026-11-22", ""):
        assert parse_time(text) is None, text
    assert parse_time("2024-02-29T00:00:00Z") == datetime(
        2024, 2, 29, tzinfo=timezone.utc).timestamp()


def test_parse_time_stays_right_when_its_memo_is_full() -> None:
    limit = timeutil._parse_rfc3339.cache_info().maxsize
    assert limit is not None
    start = datetime(2026, 11, 22, tzinfo=timezone.utc)
    stamps = [start + timedelta(seconds=second) for second in range(limit + 10)]
    for stamp in stamps + stamps[:10]:  # the first ten were dropped from the memo by then
        assert parse_time(stamp.strftime("%Y-%m-%dT%H:%M:%SZ")) == stamp.timestamp()
        assert timeutil._parse_rfc3339.cache_info().currsize <= limit


def test_format_time_writes_whole_seconds_in_utc_and_reads_back() -> None:
    stamp = parse_time("2026-01-01T01:03:02.75+01:00")
    assert stamp is not None
    assert format_time(stamp) == "2026-01-01T00:03:02Z"  # metav1.Time drops the fraction
    assert parse_time(format_time(stamp)) == stamp - 0.75


def test_formatted_seconds_follow_the_stamp_within_and_across_seconds() -> None:
    """The text kept for the last second formatted is used only within that second."""
    base = parse_time("2026-01-01T00:03:02Z")
    assert base is not None
    for stamp in (base, base + 0.5, base + 0.999, base + 1, base - 0.25, base + 86400.5):
        expected = datetime.fromtimestamp(math.floor(stamp), timezone.utc)
        assert format_time(stamp) == expected.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert http_date(stamp) == email.utils.formatdate(math.floor(stamp), usegmt=True)
    assert http_date(base) == "Thu, 01 Jan 2026 00:03:02 GMT"
