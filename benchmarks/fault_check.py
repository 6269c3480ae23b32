"""Does a page fault cost more when a process takes more memory? A control for the
cost-per-pod sync row.

`python -m benchmarks.fault_check [small_mb large_mb]` maps fresh anonymous memory and
writes one byte to each 4 KiB page, so every page takes exactly one fault, at two
sizes, alternately; it reports the wall time per fault at each. No kubenb code runs.

Why: a sync decodes a list into fresh memory (6-8 page faults per pod at any size),
so its cost per pod stays flat from 10k to 100k pods only if a fault costs the same
whether the process takes 400 MB or 4 GB. On bare metal it does; on a VM it may not
(docs/performance.md, "Big lists and page faults", has the figures). When the
cost-per-pod row misses its target, this row, run beside it (`python -m benchmarks
--only sync`), says how much of that is the machine's memory rather than kubenb's work.
"""

from __future__ import annotations

import mmap
import sys
import time

from benchmarks.harness import Result

PAGE = mmap.PAGESIZE


def touch(megabytes: int) -> float:
    """Seconds per page fault for one pass over `megabytes` of fresh memory."""
    size = megabytes << 20
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        start = time.perf_counter()
        for offset in range(0, size, PAGE):
            memory[offset] = 1
        return (time.perf_counter() - start) / (size // PAGE)
    finally:
        memory.close()


def check(small_mb: int, large_mb: int, rounds: int = 2) -> tuple[list[float], list[float]]:
    """Per-fault times at each size, interleaved round by round."""
    small: list[float] = []
    large: list[float] = []
    for _ in range(rounds):
        small.append(touch(small_mb))
        large.append(touch(large_mb))
    return small, large


def result(small_mb: int, large_mb: int, rounds: int = 2) -> Result:
    """The check as a row: a ratio below 1 is how much more a fault costs in the
    larger process on this machine, during this run (1.0x: flat, as on bare metal)."""
    small, large = check(small_mb, large_mb, rounds)
    return Result(f"machine check, no kubenb code: page fault, {large_mb} MB vs {small_mb} MB "
                  "of fresh memory", 1, min(large), f"a fault with {small_mb} MB",
                  min(small), None, tuple(s / k for s, k in zip(small, large, strict=True)))


def main(argv: list[str]) -> None:
    small_mb, large_mb = (int(argv[0]), int(argv[1])) if len(argv) == 2 else (400, 4000)
    small, large = check(small_mb, large_mb, rounds=3)
    for name, times in ((f"{small_mb} MB", small), (f"{large_mb} MB", large)):
        print(f"{name}: " + ", ".join(f"{t * 1e6:.2f}" for t in times) + " µs per fault")


if __name__ == "__main__":
    main(sys.argv[1:])
