"""A request's header block, read without the `email` package.

`http.server` hands the header lines to `email.parser`, built for mail: a feed parser,
a policy object per header, and a linear scan with one policy call per field on every
`get`. For a small request (a get of one object) that was about a sixth of the
server's CPU. The block is read here into `RequestHeaders`: each field in order, names
matched case-insensitively, repeated fields kept (`get_all`), as `email.message.Message`
answers the same questions. The limits are http.client's (lines of 64 KiB, 100 fields);
a field line with no colon is refused, as Go's server refuses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

__all__ = ["MAX_FIELDS", "MAX_LINE", "HeaderBlockError", "RequestHeaders", "read_headers"]

#: The longest header line, and the most fields, a request may send.
MAX_LINE = 65536
MAX_FIELDS = 100


class HeaderBlockError(Exception):
    """A header block the server refuses: `status` is what to answer (431 for one too
    large, 400 for a malformed line), the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RequestHeaders:
    """A request's header fields: `get`, `get_all`, `items`, `in` and iteration over the
    names, matched case-insensitively (what the handlers ask of `email.message.Message`)."""

    __slots__ = ("_fields", "_first")

    def __init__(self, fields: list[tuple[str, str]]) -> None:
        self._fields = fields
        first: dict[str, str] = {}
        for name, value in fields:
            first.setdefault(name.lower(), value)
        self._first = first

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._first.get(name.lower(), default)

    def __getitem__(self, name: str) -> str | None:
        return self._first.get(name.lower())  # None when missing, as Message answers

    def get_all(self, name: str, failobj: list[str] | None = None) -> list[str] | None:
        key = name.lower()
        found = [value for field, value in self._fields if field.lower() == key]
        return found or failobj

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._first

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def keys(self) -> list[str]:
        return [name for name, _ in self._fields]

    def items(self) -> list[tuple[str, str]]:
        return list(self._fields)

    def __str__(self) -> str:
        return "".join(f"{name}: {value}\r\n" for name, value in self._fields) + "\r\n"

    def __repr__(self) -> str:
        return f"RequestHeaders({[name for name, _ in self._fields]!r})"


class _Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def read_headers(rfile: _Lines) -> RequestHeaders:
    """Read header lines up to the blank line that ends them. A line starting with a
    space or tab continues the field before it (obsolete folding, joined with a space).
    Raises `HeaderBlockError`."""
    fields: list[tuple[str, str]] = []
    while True:
        line = rfile.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise HeaderBlockError(431, "Line too long")
        if line in (b"\r\n", b"\n", b""):
            return RequestHeaders(fields)
        text = line.decode("iso-8859-1")
        if text[0] in " \t" and fields:
            name, value = fields[-1]
            fields[-1] = (name, f"{value} {text.strip()}")
            continue
        name, colon, value = text.partition(":")
        if not colon or not name or name != name.strip():
            raise HeaderBlockError(400, f"malformed header line {text.rstrip()[:80]!r}")
        fields.append((name, value.strip()))
        if len(fields) > MAX_FIELDS:
            raise HeaderBlockError(431, "Too many headers")
