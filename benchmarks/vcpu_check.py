"""Do this machine's CPUs slow each other down? A control for reading the watch rows.

`python -m benchmarks.vcpu_check` runs one thread that decodes pod watch events with
`json.loads` and keeps them in a dict (the raw minimum's work, plus a cache), pinned to
one CPU, alternately alone and while another process spins on a second CPU. On bare
metal the two times match. On a VM whose vCPUs share a physical core, or a busy host,
the neighbour can make the same work slower, by an amount that changes from minute to
minute (docs/performance.md, "Machine checks").

Why: the raw minimum is one thread; an informer's threads run on both CPUs. When an
informer run is slow, this row (`python -m benchmarks --only informer` prints it beside
the watch rows) tells whether the machine's CPUs were slowing each other in that run,
or whether it was the informer's threads sharing data across the CPUs' caches (what
the pinned row removes). Linux only (CPU affinity).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Result

SPIN = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass\n"


def decode_and_keep(lines: list[bytes]) -> float:
    """Seconds per event for one pass of decoding every line and keeping its object
    (the collector off during the pass: its timing is not what this checks)."""
    kept: dict[str, object] = {}
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for line in lines:
            obj = json.loads(line)["object"]
            kept[obj["metadata"]["name"]] = obj
        return (time.perf_counter() - start) / len(lines)
    finally:
        if was_enabled:
            gc.enable()


def check(lines: list[bytes], rounds: int = 6) -> tuple[list[float], list[float]]:
    """Per-event times alone and beside a spinning CPU, interleaved round by round."""
    mine = os.sched_getaffinity(0)
    cpus = sorted(mine)
    if len(cpus) < 2:
        raise SystemExit("vcpu_check needs two CPUs")
    os.sched_setaffinity(0, {cpus[0]})
    alone: list[float] = []
    beside: list[float] = []
    try:
        for _ in range(rounds):
            alone.append(decode_and_keep(lines))
            spinner = subprocess.Popen([sys.executable, "-c", SPIN, str(cpus[1])])
            try:
                time.sleep(0.2)  # let it start spinning
                beside.append(decode_and_keep(lines))
            finally:
                spinner.kill()
                spinner.wait()
    finally:
        os.sched_setaffinity(0, mine)
    return alone, beside


def result(lines: list[bytes], rounds: int) -> Result:
    """The check as a benchmark row (best of rounds, as every row): ratio below 1 is
    the slowdown a busy neighbour CPU causes on this machine, during this run."""
    alone, beside = check(lines, rounds)
    return Result("machine check, no kubenb code: decode+keep on one CPU, other CPU busy",
                  len(lines), min(beside) * len(lines), "the same, other CPU idle",
                  min(alone) * len(lines))


def main(events: int = 20_000) -> None:
    from benchmarks.bench_informer import make_stream

    with tempfile.TemporaryDirectory(prefix="kubenb-vcpu-") as tmp:
        stream = Path(tmp) / "stream.jsonl"
        make_stream(stream, events)
        lines = stream.read_bytes().splitlines()
    alone, beside = check(lines)
    us = [round(t * 1e6, 1) for t in alone], [round(t * 1e6, 1) for t in beside]
    print(f"decode and keep, one CPU, other CPU idle: {us[0]} µs/event")
    print(f"decode and keep, one CPU, other CPU busy: {us[1]} µs/event")
    ratio = statistics.median(beside) / statistics.median(alone)
    print(f"median slowdown from a busy neighbour: {ratio:.2f}x")


if __name__ == "__main__":
    main()
