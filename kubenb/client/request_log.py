"""Which requests a piece of code made: the seam `kubenb port` derives RBAC from.

`with record_requests(log):` makes every request this thread sends through a
`RESTClient` land in `log` as a `RequestRecord` (verb, group, resource, subresource,
namespace, name), read from the path the way the API server's authorizer reads it.
The recording is per thread (a context variable): a controller records what its
reconcile asked for without also catching its informers' lists and watches or another
notebook cell's requests. Nothing is recorded, and nothing costs more than one lookup,
when no log is active.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["RequestLog", "RequestRecord", "observe_request", "record_requests"]


@dataclass(frozen=True, order=True)
class RequestRecord:
    """One request as RBAC sees it; `namespace` is "" for cluster scope."""

    verb: str
    group: str
    version: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""


class RequestLog:
    """Request records, kept in order (up to `limit`) and counted without a limit."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._records: list[RequestRecord] = []
        self._counts: dict[RequestRecord, int] = {}

    def __repr__(self) -> str:
        return f"RequestLog({len(self._counts)} distinct request(s))"

    def __len__(self) -> int:
        with self._lock:
            return sum(self._counts.values())

    def add(self, record: RequestRecord) -> None:
        with self._lock:
            self._counts[record] = self._counts.get(record, 0) + 1
            if len(self._records) < self.limit:
                self._records.append(record)

    def records(self) -> list[RequestRecord]:
        """The requests in the order they were made (the first `limit` of them)."""
        with self._lock:
            return list(self._records)

    def counts(self) -> dict[RequestRecord, int]:
        """Every distinct request and how often it was made."""
        with self._lock:
            return dict(self._counts)

    def clear(self) -> None:
        with self._lock:
            self._records.clear()
            self._counts.clear()


_ACTIVE: ContextVar[RequestLog | None] = ContextVar("kubenb_request_log", default=None)


@contextmanager
def record_requests(log: RequestLog) -> Iterator[RequestLog]:
    """Record the requests this thread makes inside the block into `log`."""
    token = _ACTIVE.set(log)
    try:
        yield log
    finally:
        _ACTIVE.reset(token)


def observe_request(method: str, path: str, params: Mapping[str, str] | None = None) -> None:
    """Called by `RESTClient.request` for every request: records it if a log is active."""
    log = _ACTIVE.get()
    if log is None:
        return
    from kubenb.client.rest import describe_request  # rest imports this module

    info = describe_request(method, path, params)
    if not info.resource:
        return  # /version, discovery: not resources RBAC grants by resource
    log.add(RequestRecord(info.verb, info.group, info.version, info.resource,
                          info.subresource, info.namespace, info.name))
