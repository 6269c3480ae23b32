"""Keeping one informer's threads on one CPU (opt-in: `cpu_affinity=True`).

Under CPython's GIL an informer's threads (the Reflector, the process loop, each
listener) never run Python code at the same time: they take turns. Left to the kernel,
they take turns on different CPUs, so each hand-off wakes a thread on another CPU and
moves the event's objects to that CPU's caches. Kept on one CPU they lose no
parallelism they had, and a watch event costs less CPU. docs/informers.md ("One CPU
per informer") has the figures.

Opt-in because affinity is inherited: a thread or a process a handler starts (a
`subprocess.run` of kubectl, a thread pool) would share the informer's single CPU.
Linux only (elsewhere the option is accepted and does nothing), and never with a
free-threaded CPython, whose threads do run at once.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sys
from collections.abc import Iterator

__all__ = ["CpuAffinity", "choose_cpu", "pin_current_thread", "pinned"]

log = logging.getLogger(__name__)

#: What `cpu_affinity=` takes: None or False (the kernel decides, the default), True
#: (kubenb picks a CPU, informers in turn over the allowed ones) or a CPU number.
CpuAffinity = bool | int | None

_turns = itertools.count()


def _gil_enabled() -> bool:
    check = getattr(sys, "_is_gil_enabled", None)  # Python 3.13+
    return True if check is None else bool(check())


def choose_cpu(cpu_affinity: CpuAffinity) -> int | None:
    """The CPU an informer's threads are to share, or None to leave them alone.

    Raises ValueError for a CPU this process may not run on, TypeError for anything
    that is neither a bool, an int nor None."""
    if cpu_affinity is None or cpu_affinity is False:
        return None
    if not isinstance(cpu_affinity, int):
        raise TypeError(f"cpu_affinity must be None, True, False or a CPU number, "
                        f"not {cpu_affinity!r}")
    if not hasattr(os, "sched_setaffinity"):
        return None  # not Linux: nothing to pin with
    allowed = sorted(os.sched_getaffinity(0))
    if cpu_affinity is True:
        if len(allowed) < 2 or not _gil_enabled():
            return None  # nowhere else to run, or threads that truly run at once
        return allowed[next(_turns) % len(allowed)]
    if cpu_affinity not in allowed:
        raise ValueError(f"cpu_affinity={cpu_affinity}: this process may run only on "
                         f"CPUs {allowed}")
    return cpu_affinity


def pin_current_thread(cpu: int | None) -> set[int] | None:
    """Move the calling thread (and the threads it starts from now on) to `cpu`;
    returns its previous CPUs, or None when nothing changed."""
    if cpu is None:
        return None
    before = os.sched_getaffinity(0)  # on Linux, 0 is the calling thread
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError as err:  # e.g. the CPU went offline, or a cgroup changed meanwhile
        log.warning("cannot keep this thread on CPU %d: %s", cpu, err)
        return None
    return before


@contextlib.contextmanager
def pinned(cpu: int | None) -> Iterator[None]:
    """Run the block on `cpu`, then give the thread back its own CPUs: the informer's
    `run` may be called on a thread the caller owns."""
    before = pin_current_thread(cpu)
    try:
        yield
    finally:
        if before is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before)
