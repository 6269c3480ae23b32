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
from collections.abc import Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

__all__ = ["RequestBuffer", "RequestLog", "RequestRecord", "observe_request",
           "record_requests"]


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


class RequestBuffer(list[RequestRecord]):
    """A bare list of records, for a recorder that takes them after each unit of work:
    a controller's worker thread keeps one active for its whole life and takes what
    each reconcile left (no per-reconcile set-up, so a reconcile that makes no request
    costs nothing here)."""

    add = list.append

    def take(self) -> list[RequestRecord]:
        """What was recorded since the last take, in order; the buffer is emptied."""
        if not self:
            return []
        taken = self[:]
        self.clear()
        return taken


_ACTIVE: ContextVar[RequestLog | RequestBuffer | None] = ContextVar(
    "kubenb_request_log", default=None)


class record_requests:
    """`with record_requests(log):` records the requests this thread makes inside the
    block into `log`. A class rather than a generator: a controller enters one around
    every reconcile, and this costs a fifth of what @contextmanager does."""

    __slots__ = ("_log", "_token")

    def __init__(self, log: Any) -> None:
        self._log = log
        self._token: Token[Any] | None = None

    def __enter__(self) -> Any:
        self._token = _ACTIVE.set(self._log)
        return self._log

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _ACTIVE.reset(self._token)
            self._token = None


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
