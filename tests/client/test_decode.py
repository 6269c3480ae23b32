"""decode_json returns exactly what json.loads returns, or raises what it raises.

msgspec decodes; json.loads takes over wherever msgspec refuses. Checked on every real
API server response in the fixtures, on generated documents (integers of any size,
floats, any text), on damaged documents, and on the cases where the two decoders
are known to differ.
"""

from __future__ import annotations

import gc
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.jsondecode import decode_json, gc_paused, loads
from tests import realapi

json_values = st.recursive(
    st.none() | st.booleans() | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30)


def outcome(decode, data: bytes | str) -> tuple[str, object]:
    """('ok', repr of the value) or ('error', type and message)."""
    try:
        return "ok", repr(decode(data))
    except (ValueError, RecursionError) as exc:
        return "error", f"{type(exc).__name__}: {exc}"


@settings(max_examples=100)
@given(value=json_values, ensure_ascii=st.booleans(), spaces=st.sampled_from(["", " ", "\n\t"]))
def test_generated_documents_decode_to_what_json_loads_gives(
        value: object, ensure_ascii: bool, spaces: str) -> None:
    text = spaces + json.dumps(value, ensure_ascii=ensure_ascii) + spaces
    for data in (text, text.encode()):
        assert outcome(decode_json, data) == outcome(json.loads, data)


@settings(max_examples=100)
@given(value=json_values, cut=st.integers(min_value=0, max_value=200),
       junk=st.binary(max_size=3))
def test_damaged_documents_fail_or_decode_as_json_loads_does(
        value: object, cut: int, junk: bytes) -> None:
    data = json.dumps(value).encode()
    for damaged in (data[:cut], data[:cut] + junk + data[cut:], data + junk):
        assert outcome(decode_json, damaged) == outcome(json.loads, damaged)


@pytest.mark.parametrize("data", [
    b'{"n": 123456789012345678901234567890}',       # beyond 64 bits: an exact int
    b'{"n": -9223372036854775809}',
    b'{"n": 18446744073709551616}',
    b'{"a": NaN, "b": Infinity, "c": -Infinity}',  # json's extensions (msgspec refuses)
    b'{"f": 1e400}',                                # beyond the double range: inf
    b'{"s": "\\ud800"}',                            # a lone surrogate escape
    b'\xef\xbb\xbf{"bom": true}',                   # UTF-8 with a byte order mark
    '{"utf16": 1}'.encode("utf-16"),
    b'{"x": "\xff"}',                               # not UTF-8
    b'{"a": 1} trailing',
    b'{"a": 1, "a": 2}',                            # duplicate keys: the last wins
    b'{"f": 5e-324, "g": 2.2250738585072011e-308, "h": -0.0}',
    b'',
    b'[' * 999 + b']' * 999,                       # too deep for both
])
def test_where_the_decoders_differ_json_loads_decides(data: bytes) -> None:
    assert outcome(decode_json, data) == outcome(json.loads, data)


def test_big_integers_stay_integers() -> None:
    value = decode_json(b'{"n": 123456789012345678901234567890, "f": 1.5}')
    assert value == {"n": 123456789012345678901234567890, "f": 1.5}
    assert type(value["n"]) is int and math.isclose(value["f"], 1.5)


def test_every_real_api_server_response_decodes_as_json_loads_does() -> None:
    files = [p for p in realapi.files("*", recursive=True) if p.suffix in (".json", ".jsonl", "")]
    documents = 0
    for path in files:
        data = path.read_bytes()
        lines = data.splitlines() if b"\n{" in data else [data]  # watch streams: a line each
        for line in lines:
            if line.strip():
                assert outcome(decode_json, line) == outcome(json.loads, line), path
                documents += 1
    assert documents > 50


def test_large_documents_decode_with_the_collector_paused_and_restored() -> None:
    items = [{"metadata": {"name": f"pod-{i}"}, "spec": {"n": [i] * 5}} for i in range(3000)]
    data = json.dumps({"items": items}).encode()
    assert len(data) > 64 * 1024
    was = gc.isenabled()
    assert loads(data) == json.loads(data)
    assert gc.isenabled() == was
    with pytest.raises(ValueError):
        loads(data[:-1])
    assert gc.isenabled() == was
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled() == was
