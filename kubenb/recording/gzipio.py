"""gzip members from many small buffers (a frame, the server's own line, a newline).

`stored_member` wraps them in uncompressed ("stored") deflate blocks, whose headers go
in between: no copy, the CRC the only pass over the bytes. `compressed_member` runs
zlib, without the GIL. The recorder hands each one buffer of 256 KiB (its framed
lines), and writes the result with `os.writev`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

Buffer = bytes | bytearray | memoryview

#: A gzip member's header: deflate, no name, no time, "unknown" OS (RFC 1952).
_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LAST_BLOCK = b"\x01\x00\x00\xff\xff"  # an empty stored block marked final
_BLOCK_MAX = 0xFFFF  # a stored block holds at most this many bytes
_block_header = struct.Struct("<BHH").pack
_trailer = struct.Struct("<II").pack


def compressed_member(buffers: Sequence[Buffer], level: int) -> bytes:
    """`buffers` joined, as one complete gzip member (zlib runs without the GIL)."""
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    return z.compress(buffers[0] if len(buffers) == 1 else b"".join(buffers)) + z.flush()


def stored_member(buffers: Sequence[Buffer]) -> list[Buffer]:
    """`buffers` as one complete gzip member of stored blocks, itself a list of
    buffers (the same ones, in order, with block headers between them)."""
    out: list[Buffer] = [_HEADER]
    block: list[Buffer] = []
    block_len = crc = total = 0
    crc32 = zlib.crc32

    def close_block() -> None:
        out.append(_block_header(0, block_len, block_len ^ 0xFFFF))
        out.extend(block)

    for buf in buffers:
        n = len(buf)
        if not n:
            continue
        crc = crc32(buf, crc)
        total += n
        if block_len + n <= _BLOCK_MAX:
            block.append(buf)
            block_len += n
            continue
        if block:
            close_block()
        view = memoryview(buf)
        while n > _BLOCK_MAX:  # a buffer larger than a block: split it
            out.append(_block_header(0, _BLOCK_MAX, 0))
            out.append(view[:_BLOCK_MAX])
            view, n = view[_BLOCK_MAX:], n - _BLOCK_MAX
        block, block_len = [view if n < len(buf) else buf], n
    if block:
        close_block()
    out.append(_LAST_BLOCK)
    out.append(_trailer(crc, total & 0xFFFFFFFF))
    return out
