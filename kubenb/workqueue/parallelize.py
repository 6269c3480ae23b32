"""Run independent pieces of work on a few threads (client-go's `workqueue.ParallelizeUntil`).

`parallelize_until(workers, pieces, f)` calls `f(p)` exactly once for every `p` in
`range(pieces)`, from at most `workers` threads, and returns when they have all
finished. Pieces are handed out in chunks of `chunk_size` consecutive indexes, so
cheap pieces do not pay for a hand-off each.

Errors. In Go a panicking piece crashes the process. Here an exception must neither be
lost nor leave threads behind, so: the first exception raised by any piece stops the
run (every worker stops before its next piece, so pieces not yet started are skipped;
pieces already running finish), all workers are joined, and then that first exception
is re-raised in the caller with its original traceback. Exceptions raised by other
pieces that were running at the same time are counted in a note on it (Python 3.11+),
not raised.
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import Callable

__all__ = ["DoWorkPieceFunc", "parallelize_until"]

#: The work for one piece, given its index in `range(pieces)`.
DoWorkPieceFunc = Callable[[int], object]


class _Run:
    """State shared by the workers of one `parallelize_until` call."""

    def __init__(self, pieces: int, chunk_size: int, stop: threading.Event | None) -> None:
        self.pieces = pieces
        self.chunk_size = chunk_size
        self.chunks = -(-pieces // chunk_size)
        self.stop = stop
        self.abort = threading.Event()
        self.lock = threading.Lock()
        self.next_chunk = 0
        self.error: BaseException | None = None
        self.more_errors = 0

    def take_chunk(self) -> range | None:
        """The next chunk's piece indexes, or None when all have been handed out."""
        with self.lock:
            if self.next_chunk >= self.chunks:
                return None
            chunk = self.next_chunk
            self.next_chunk += 1
        start = chunk * self.chunk_size
        return range(start, min(start + self.chunk_size, self.pieces))

    def stopped(self) -> bool:
        return self.abort.is_set() or (self.stop is not None and self.stop.is_set())

    def fail(self, exc: BaseException) -> None:
        with self.lock:
            if self.error is None:
                self.error = exc
            else:
                self.more_errors += 1
        self.abort.set()

    def work(self, do_work_piece: DoWorkPieceFunc) -> None:
        while (chunk := self.take_chunk()) is not None:
            for piece in chunk:
                if self.stopped():
                    return
                try:
                    do_work_piece(piece)
                except BaseException as exc:  # re-raised by the caller, never lost
                    self.fail(exc)
                    return


def _check_int(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"parallelize_until: {name} must be an int, got {value!r}")
    return int(value)


def parallelize_until(
    workers: int,
    pieces: int,
    do_work_piece: DoWorkPieceFunc,
    *,
    chunk_size: int = 1,
    stop: threading.Event | None = None,
) -> None:
    """Call `do_work_piece(p)` once for each `p` in `range(pieces)` on up to `workers` threads.

    Blocks until every worker thread has finished and been joined. `pieces == 0`
    returns at once. `chunk_size < 1` is treated as 1, and no more than
    `ceil(pieces / chunk_size)` threads are started. When `stop` is set, each worker
    stops before its next piece, so some pieces may never run. The first exception
    raised by a piece stops the run the same way and is re-raised here once all
    workers are done (see the module docstring).
    """
    workers = _check_int("workers", workers)
    pieces = _check_int("pieces", pieces)
    chunk_size = max(1, _check_int("chunk_size", chunk_size))
    if workers < 1:
        raise ValueError(f"parallelize_until: workers must be >= 1, got {workers}")
    if pieces < 0:
        raise ValueError(f"parallelize_until: pieces must be >= 0, got {pieces}")
    if not callable(do_work_piece):
        raise TypeError(f"parallelize_until: do_work_piece is not callable: {do_work_piece!r}")
    if pieces == 0:
        return

    run = _Run(pieces, chunk_size, stop)
    threads = [
        threading.Thread(
            target=run.work,
            args=(do_work_piece,),
            name=f"parallelize-worker-{i}",
            daemon=True,
        )
        for i in range(min(workers, run.chunks))
    ]
    started: list[threading.Thread] = []
    try:
        for thread in threads:
            thread.start()
            started.append(thread)
        for thread in started:
            thread.join()
    except BaseException:
        # Interrupted (e.g. KeyboardInterrupt) or a thread could not start: stop the
        # workers at their next piece and still leave no thread behind.
        run.abort.set()
        for thread in started:
            thread.join()
        raise

    if run.error is not None:
        error = run.error
        if run.more_errors and hasattr(error, "add_note"):
            error.add_note(
                f"parallelize_until: {run.more_errors} other piece(s) also raised; "
                "only the first exception is re-raised"
            )
        raise error
