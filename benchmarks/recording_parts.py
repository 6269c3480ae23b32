"""Where recording's cost goes in a firehose: the recorder taken apart, step by step.

`python -m benchmarks.recording_parts [EVENTS] [ROUNDS]` watches the same stream as
`--only recording` (pod updates, one chunk per event, as fast as the replay process
sends them) to a handler, interleaved, with recorders that each do one step more than
the one before:

- tap only: the Watch's lines are tapped, nothing is queued;
- queued: every line is queued for the writer, which drops each batch;
- framed, to /dev/null: framed and joined as for the file, written where nothing is kept;
- unframed, to a file: the lines joined as they are and written (no framing);
- framed, to tmpfs: the real writer (plain lines) into /dev/shm, memory, no disk;
- plain lines: the real writer into a file beside the stream;
- gzip: the default (level 1, 5% compression budget).

It prints, for each, the median and spread of its wall-clock ratio against the informer
not recorded (and the best against the best, as the benchmark table reads), the
process's CPU time per event and the writer thread's share. No target: it explains
the `--only recording` rows (docs/recording.md, "What recording costs").
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path
from typing import Any

from benchmarks.bench_recording import PODS, RecorderFactory, firehose, interleaved
from kubenb.recording import Recorder

_TMPFS_FILE = f"kubenb-recording-parts-{os.getpid()}.jsonl"


class _TapOnly(Recorder):
    """Taps the Watch's lines but queues nothing."""

    def record_raw_event(self, index: int, line: bytes) -> None:
        return None


class _QueuedOnly(Recorder):
    """Queues every line; the writer drops each batch it takes."""

    def _write(self, sink: Any, batch: list[Any]) -> bool:
        return True


class _Unframed(Recorder):
    """Writes the queued lines joined as they are: the write without the framing."""

    def _write(self, sink: Any, batch: list[Any]) -> bool:
        sink.write(b"\n".join(batch[2::3]))
        return True


def paths(folder: Path, tmpfs: Path | None = None) -> dict[str, RecorderFactory]:
    """The steps, in order, writing into `folder` (and into `tmpfs`, if it is given
    and writable, for the in-memory step)."""
    found: dict[str, RecorderFactory] = {
        "not recorded": lambda: None,
        "tap only": lambda: _TapOnly(folder / "tap", [PODS], compresslevel=0),
        "queued": lambda: _QueuedOnly(folder / "queued", [PODS], compresslevel=0),
        "framed, to /dev/null": lambda: Recorder(os.devnull, [PODS], compresslevel=0),
        "unframed, to a file": lambda: _Unframed(folder / "unframed", [PODS],
                                                 compresslevel=0),
    }
    if tmpfs is not None and tmpfs.is_dir() and os.access(tmpfs, os.W_OK):
        found["framed, to tmpfs"] = lambda: Recorder(tmpfs / _TMPFS_FILE, [PODS],
                                                     compresslevel=0)
    found["plain lines"] = lambda: Recorder(folder / "plain.jsonl", [PODS], compresslevel=0)
    found["gzip"] = lambda: Recorder(folder / "gzip.jsonl.gz", [PODS])
    return found


def report(events: int, rounds: int) -> list[str]:
    """One line per path (see the module's docstring)."""
    tmpfs = Path("/dev/shm")
    try:
        with firehose(events) as (tmp, _stream, dynamic):
            runs = interleaved(dynamic, events, rounds, paths(tmp, tmpfs))
    finally:
        (tmpfs / _TMPFS_FILE).unlink(missing_ok=True)
    base = runs["not recorded"]
    lines = []
    for name, times in runs.items():
        ratios = [b[0] / t[0] for t, b in zip(times, base, strict=True)]
        best = min(b[0] for b in base) / min(t[0] for t in times)
        cpu = statistics.median(t[1] for t in times) / events * 1e6
        writer = statistics.median(t[2] for t in times) / events * 1e6
        lines.append(f"{name:22} median {statistics.median(ratios):.2f}x "
                     f"({min(ratios):.2f}x-{max(ratios):.2f}x), best {best:.2f}x; "
                     f"CPU {cpu:.1f} µs an event, writer {writer:.1f} µs")
    return lines


def main(argv: list[str]) -> int:
    events = int(argv[0]) if argv else 30_000
    rounds = int(argv[1]) if len(argv) > 1 else 8
    print(f"recording, step by step: {events} pod updates to a handler, {rounds} "
          "interleaved rounds, against the informer not recorded")
    for line in report(events, rounds):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
