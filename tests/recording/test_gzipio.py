"""gzip members made from many buffers: byte-exact, whatever the buffer sizes."""

from __future__ import annotations

import gzip
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.recording.gzipio import compressed_member, stored_member

sizes = st.lists(st.sampled_from([0, 1, 2, 100, 4096, 65534, 65535, 65536, 70000, 140000]),
                 max_size=8)


def _buffers(lengths: list[int], views: bool) -> list[bytes | memoryview]:
    made = [os.urandom(n) for n in lengths]
    return [memoryview(b"x" + b)[1:] if views else b for b in made]


@given(sizes, st.booleans())
@settings(max_examples=60, deadline=None)
def test_a_stored_member_is_gzip_of_the_buffers_joined(lengths: list[int],
                                                       views: bool) -> None:
    buffers = _buffers(lengths, views)
    member = b"".join(bytes(b) for b in stored_member(buffers))
    assert gzip.decompress(member) == b"".join(bytes(b) for b in buffers)
    assert len(member) < sum(lengths) + 20 + 5 * (sum(lengths) // 65535 + len(lengths) + 1)


@given(sizes)
@settings(max_examples=20, deadline=None)
def test_a_compressed_member_is_gzip_of_the_buffers_joined(lengths: list[int]) -> None:
    buffers = _buffers(lengths, False)
    assert gzip.decompress(compressed_member(buffers, 1)) == b"".join(buffers)
