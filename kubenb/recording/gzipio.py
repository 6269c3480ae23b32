"""One chunk of the recorder's lines as a complete gzip member (RFC 1952).

`compressed_member` runs zlib; `stored_member` wraps the chunk in uncompressed
("stored") deflate blocks, whose headers go in between slices of it: no copy, one CRC
pass. Both make one call without the GIL over the whole chunk; the recorder writes
a stored member's few pieces with `os.writev`.
"""

from __future__ import annotations

import struct
import zlib

__all__ = [
    "Buffer",
    "compressed_member",
    "stored_member",
]

Buffer = bytes | bytearray | memoryview

#: A gzip member's header: deflate, no name, no time, "unknown" OS.
_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LAST_BLOCK = b"\x01\x00\x00\xff\xff"  # an empty stored block marked final
_BLOCK_MAX = 0xFFFF  # a stored block holds at most this many bytes
_block_header = struct.Struct("<BHH").pack
_trailer = struct.Struct("<II").pack


def compressed_member(data: Buffer, level: int) -> bytes:
    """`data` as one complete, compressed gzip member."""
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def stored_member(data: Buffer) -> list[Buffer]:
    """`data` as one complete gzip member of stored blocks: a list of buffers (block
    headers and slices of `data`) to write in order."""
    view = memoryview(data)
    out: list[Buffer] = [_HEADER]
    for start in range(0, len(view), _BLOCK_MAX):
        block = view[start:start + _BLOCK_MAX]
        out.append(_block_header(0, len(block), len(block) ^ 0xFFFF))
        out.append(block)
    out.append(_LAST_BLOCK)
    out.append(_trailer(zlib.crc32(view), len(view) & 0xFFFFFFFF))
    return out
