"""A chunked HTTP/1.1 body read straight from the connection, every waiting chunk at once.

A kube-apiserver flushes each watch event as its own HTTP chunk (over TLS, its own
record). `http.client` decodes chunks one at a time in Python, with a `readline` for
each size line and several layers of calls around every read: about 20 µs an event,
a quarter of what decoding the event itself costs, and one wake-up of the informer's
other threads per event. This reader takes over the body once the headers are read:
it decodes the chunk framing itself over whole reads, and before it returns it also
takes what the socket already holds (a zero-timeout `select`, and the TLS layer's
own buffer), so a consumer that fell behind gets every waiting event in one batch,
up to `MAX_BATCH` bytes: a server that sends faster than the consumer decodes keeps the
socket full, and the batch must end somewhere for events to flow. Once the buffered
reader that read the headers has handed over what it held, the socket is read
directly.

`from_response` uses it only where it is exact: a chunked body nobody has read yet,
with no content coding (urllib3 would have to decompress it). Anything else keeps
the response's own reader (`Watch` falls back to it).
"""

from __future__ import annotations

import select
import socket
from typing import Any

import requests

from kubenb.errors import ChunkedFramingError

__all__ = [
    "MAX_BATCH",
    "MAX_SIZE_LINE",
    "READ_SIZE",
    "ChunkedBodyReader",
    "ChunkedFramingError",
]

#: The most bytes one read asks for: below glibc's mmap threshold (128 KiB), so the
#: buffer of every read is not a fresh mapping (a TLS read returns one 16 KiB record
#: at most anyway).
READ_SIZE = 64 * 1024
#: A batch stops growing once this many bytes were read: when the server sends faster than
#: the consumer decodes, the socket never runs dry, and without a bound one `read()`
#: took a whole 210 MB stream before the first event was handed over.
MAX_BATCH = 256 * 1024
#: The longest chunk-size line (with extensions) accepted; more is not HTTP/1.1 framing.
MAX_SIZE_LINE = 4096
_HEX_DIGITS = b"0123456789abcdefABCDEF"


class ChunkedBodyReader:
    """Payload bytes of a chunked body, one batch per `read()` (see the module)."""

    def __init__(self, fp: Any, sock: socket.socket) -> None:
        self._fp = fp  # the connection's buffered reader, positioned at the body
        self._sock = sock
        # The first read drains what the buffered reader already holds (at most its
        # buffer, well under READ_SIZE); from then on the socket is read directly, past
        # two layers of Python calls (`SocketIO`, the buffer) that added nothing.
        self._recv = fp.read1
        self._direct = False
        self._pending = getattr(sock, "pending", None)  # TLS: plaintext already decrypted
        self._poll = None
        if hasattr(select, "poll"):
            self._poll = select.poll()
            self._poll.register(sock, select.POLLIN)
        self._buf = b""
        self._left = 0  # payload bytes of the current chunk still to come
        self._crlf = False  # the CRLF after a chunk's payload is still to come
        self._trailers = False  # the last chunk was read; trailer lines follow
        self.done = False
        self._eof = False

    @property
    def sock(self) -> socket.socket:
        """The connection this reader reads (what a stop from another thread shuts down)."""
        return self._sock

    @classmethod
    def from_response(cls, response: requests.Response) -> ChunkedBodyReader | None:
        """A reader for `response`'s body, or None where it would not be exact."""
        http_response = getattr(response.raw, "_fp", None)
        if (not getattr(http_response, "chunked", False)
                or getattr(http_response, "chunk_left", 0) is not None
                or getattr(response.raw, "_fp_bytes_read", 1) != 0
                or response.headers.get("Content-Encoding", "identity").lower()
                not in ("", "identity")):
            return None
        fp = getattr(http_response, "fp", None)
        sock = getattr(getattr(fp, "raw", None), "_sock", None)
        if fp is None or not hasattr(fp, "read1") or not isinstance(sock, socket.socket):
            return None
        return cls(fp, sock)

    def read(self) -> list[bytes]:
        """The payload of every chunk that arrived, up to about `MAX_BATCH` bytes read,
        at least one byte, one piece a chunk (a chunk cut by the end of a read comes in
        pieces); [] once the body ended. Blocks (up to the socket's timeout) only when
        nothing waits. Pieces, not one joined buffer: a consumer of lines takes a chunk
        that is one whole line as it is, not joined and split again (`Watch`)."""
        payload: list[bytes] = []
        size = 0
        while not self.done:
            data = b"" if self._eof else self._recv(READ_SIZE)
            if data and not self._direct:
                self._recv, self._direct = self._sock.recv, True
            if not data:
                if payload:  # hand over what came before the end; raise on the next read
                    self._eof = True
                    break
                if self._buf or self._left or self._crlf:
                    raise ChunkedFramingError("the connection closed in the middle of a chunk")
                raise ConnectionResetError("the connection closed before the last chunk")
            self._parse(self._buf + data if self._buf else data, payload)
            size += len(data)
            if payload and (size >= MAX_BATCH or not self._waiting()):
                break
        return payload

    def _waiting(self) -> bool:
        """Whether more of the body can be read now without blocking. When that cannot
        be told, False: what came is handed over now, never held for the next event."""
        if self._pending is not None and self._pending():
            return True
        try:
            if self._poll is not None:  # poll: no limit on descriptor numbers
                return bool(self._poll.poll(0))
            return bool(select.select([self._sock], [], [], 0)[0])
        except (OSError, ValueError):  # closed meanwhile: the next read says how
            return False

    def _parse(self, data: bytes, payload: list[bytes]) -> None:
        pos, end = 0, len(data)
        while pos < end:
            if not (self._left or self._crlf or self._trailers):
                # The common case, one whole chunk in hand (a server flushes each watch
                # event as one chunk, so a read usually holds whole ones): in one step.
                eol = data.find(b"\r\n", pos, pos + MAX_SIZE_LINE)
                if eol > pos:
                    size_text = data[pos:eol]
                    if not size_text.strip(_HEX_DIGITS):
                        start = eol + 2
                        stop = start + int(size_text, 16)
                        if start < stop and data[stop:stop + 2] == b"\r\n":
                            payload.append(data[start:stop])
                            pos = stop + 2
                            continue
            if self._left:
                take = min(self._left, end - pos)
                payload.append(data[pos:pos + take])
                pos += take
                self._left -= take
                if self._left:
                    break
                self._crlf = True
                continue
            if self._crlf:
                if end - pos < 2:
                    break
                if data[pos:pos + 2] != b"\r\n":
                    raise ChunkedFramingError(
                        f"a chunk is not followed by CRLF (got {data[pos:pos + 2]!r})")
                pos += 2
                self._crlf = False
                continue
            eol = data.find(b"\r\n", pos)
            if eol < 0:
                if end - pos > MAX_SIZE_LINE:
                    raise ChunkedFramingError("a chunk-size line longer than "
                                              f"{MAX_SIZE_LINE} bytes")
                break
            line = data[pos:eol]
            pos = eol + 2
            if self._trailers:
                if not line:  # the empty line that ends the body
                    self.done = True
                    self._buf = b""
                    return
                continue  # a trailer field: nothing a watch uses
            size_text = line.split(b";", 1)[0].strip(b" \t")
            if not size_text or size_text.strip(_HEX_DIGITS):
                raise ChunkedFramingError(f"invalid chunk size {line[:40]!r}")
            size = int(size_text, 16)
            if size == 0:
                self._trailers = True
            else:
                self._left = size
        self._buf = data[pos:] if pos < end else b""
