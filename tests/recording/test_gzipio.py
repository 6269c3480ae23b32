"""gzip members of one chunk: byte-exact, whatever its size (block boundaries too)."""

from __future__ import annotations

import gzip
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.recording.gzipio import compressed_member, stored_member

sizes = st.sampled_from([0, 1, 2, 100, 4096, 65534, 65535, 65536, 70000, 140000,
                         262144, 400000])


def _chunk(n: int, kind: str) -> bytes | bytearray | memoryview:
    data = os.urandom(n)
    if kind == "view":
        return memoryview(b"x" + data)[1:]
    return bytearray(data) if kind == "bytearray" else data


@given(sizes, st.sampled_from(["bytes", "bytearray", "view"]))
@settings(max_examples=60, deadline=None)
def test_a_stored_member_is_gzip_of_the_chunk(n: int, kind: str) -> None:
    chunk = _chunk(n, kind)
    member = b"".join(bytes(b) for b in stored_member(chunk))
    assert gzip.decompress(member) == bytes(chunk)
    assert len(member) < n + 20 + 5 * (n // 65535 + 2)


@given(sizes, st.sampled_from(["bytes", "bytearray", "view"]))
@settings(max_examples=20, deadline=None)
def test_a_compressed_member_is_gzip_of_the_chunk(n: int, kind: str) -> None:
    chunk = _chunk(n, kind)
    assert gzip.decompress(compressed_member(chunk, 1)) == bytes(chunk)


def test_members_follow_one_another_in_one_file() -> None:
    chunks = [os.urandom(n) for n in (10, 70000, 0, 3)]
    raw = b"".join(bytes(b) for b in stored_member(chunks[0]))
    raw += compressed_member(chunks[1], 6)
    raw += b"".join(bytes(b) for b in stored_member(chunks[2]))
    raw += compressed_member(chunks[3], 1)
    assert gzip.decompress(raw) == b"".join(chunks)
