"""What the simulated kubelet's containers wrote: one log per container attempt.

A real kubelet keeps each container's output in a file under /var/log/pods, the current
attempt's and the one before it (what `kubectl logs --previous` reads), and serves them
on its own port with the options of `PodLogOptions` (follow, previous, timestamps,
tailLines, limitBytes, sinceSeconds, sinceTime). `ContainerLog` is one such file, kept in
memory and bounded; `LogOptions` parses those options from a query and `LogOptions.read`
yields the bytes a reader gets, following the log while its container runs.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kubenb.errors import KubenbError
from kubenb.timeutil import parse_time

__all__ = ["MAX_LOG_BYTES", "ContainerLog", "LogLine", "LogOptions", "LogOptionsError"]

#: Bytes kept per container attempt; the oldest lines go first (a kubelet rotates at 10 MiB).
MAX_LOG_BYTES = 1 << 20

_FOLLOW_POLL = 0.25  # real seconds between looks at `stopped()` while following


class LogOptionsError(KubenbError):
    """A log query the kubelet cannot answer (a bad number, or options that exclude
    each other)."""


@dataclass(frozen=True)
class LogLine:
    """One line a container wrote, with the wall-clock time it was written."""

    time: float
    text: bytes  # ends with a newline


def _rfc3339_nano(t: float) -> str:
    seconds = int(t)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + \
        f".{int((t - seconds) * 1e9):09d}Z"


class ContainerLog:
    """The output of one container attempt: append-only, bounded, followable."""

    def __init__(self, max_bytes: int = MAX_LOG_BYTES) -> None:
        self._cond = threading.Condition()
        self._lines: deque[LogLine] = deque()
        self._first = 0  # absolute index of _lines[0] (lines dropped before it)
        self._bytes = 0
        self._max = max_bytes
        self._closed = False

    def __repr__(self) -> str:
        with self._cond:
            return (f"ContainerLog({self._first + len(self._lines)} lines, "
                    f"{'closed' if self._closed else 'open'})")

    def write(self, text: str) -> None:
        """Append `text`, one line per line of it (a missing last newline is added)."""
        now = time.time()
        lines = [LogLine(now, (part + "\n").encode()) for part in str(text).split("\n")]
        with self._cond:
            for line in lines:
                self._lines.append(line)
                self._bytes += len(line.text)
            while self._bytes > self._max and len(self._lines) > 1:
                self._bytes -= len(self._lines.popleft().text)
                self._first += 1
            self._cond.notify_all()

    def close(self) -> None:
        """The container ended: followers read what is left and stop."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        with self._cond:
            return self._closed

    def lines(self) -> list[LogLine]:
        """Every line still kept."""
        with self._cond:
            return list(self._lines)

    def text(self) -> str:
        """Everything kept, as one string (for notebooks and tests)."""
        return b"".join(line.text for line in self.lines()).decode(errors="replace")

    def after(self, seen: int, timeout: float) -> tuple[list[LogLine], int, bool]:
        """Lines after absolute index `seen` (waiting up to `timeout` real seconds for
        some): (lines, the new `seen`, whether the log is closed)."""
        with self._cond:
            if self._first + len(self._lines) <= seen and not self._closed:
                self._cond.wait(timeout)
            start = max(seen - self._first, 0)
            new = list(self._lines)[start:]
            return new, self._first + len(self._lines), self._closed

    def end(self) -> int:
        """The absolute index after the last line."""
        with self._cond:
            return self._first + len(self._lines)


def _int(params: dict[str, str], name: str, minimum: int) -> int | None:
    raw = params.get(name)
    if raw in (None, ""):
        return None
    try:
        value = int(raw)
    except ValueError:
        raise LogOptionsError(f"{name}: invalid value {raw!r}: must be an integer") from None
    if value < minimum:
        raise LogOptionsError(f"{name}: invalid value {value}: must be "
                              f"{'greater than 0' if minimum else 'zero or more'}")
    return value


def _bool(params: dict[str, str], name: str) -> bool:
    raw = (params.get(name) or "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise LogOptionsError(f"{name}: invalid value {params.get(name)!r}: must be true or "
                              "false")
    return raw in ("true", "1")


@dataclass(frozen=True)
class LogOptions:
    """`PodLogOptions`: which part of a log to read, and how."""

    follow: bool = False
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    since_seconds: int | None = None
    since_time: float | None = None

    @classmethod
    def from_query(cls, params: dict[str, str]) -> LogOptions:
        """The options of a `pods/log` (or kubelet `containerLogs`) query string."""
        since_time = None
        if params.get("sinceTime"):
            since_time = parse_time(params["sinceTime"])
            if since_time is None:
                raise LogOptionsError(f"sinceTime: invalid value {params['sinceTime']!r}: "
                                      "must be an RFC 3339 time")
        options = cls(follow=_bool(params, "follow"), previous=_bool(params, "previous"),
                      timestamps=_bool(params, "timestamps"),
                      tail_lines=_int(params, "tailLines", 0),
                      limit_bytes=_int(params, "limitBytes", 1),
                      since_seconds=_int(params, "sinceSeconds", 1), since_time=since_time)
        if options.since_seconds is not None and options.since_time is not None:
            raise LogOptionsError("sinceSeconds and sinceTime: at most one of them may be "
                                  "given")
        return options

    def read(self, log: ContainerLog, stopped: Callable[[], bool] = lambda: False
             ) -> Iterator[bytes]:
        """The bytes a reader gets, as they come: what is kept (after `since`, the last
        `tail_lines`), then, when following, each new line until the log closes,
        `stopped()` answers True or `limit_bytes` is reached."""
        since = self.since_time
        if self.since_seconds is not None:
            since = time.time() - self.since_seconds
        seen = log.end()
        kept = [line for line in log.lines() if since is None or line.time >= since]
        if self.tail_lines is not None:
            kept = kept[len(kept) - self.tail_lines:] if self.tail_lines else []
        left = self.limit_bytes
        batch = kept
        while True:
            for line in batch:
                data = line.text
                if self.timestamps:
                    data = _rfc3339_nano(line.time).encode() + b" " + data
                if left is not None:
                    data = data[:left]
                    left -= len(data)
                yield data
                if left is not None and left <= 0:
                    return
            if not self.follow or stopped():
                return
            batch, seen, closed = log.after(seen, _FOLLOW_POLL)
            if closed and not batch:
                return
