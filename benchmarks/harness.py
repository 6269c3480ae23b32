"""Timing and reporting shared by every benchmark.

Each benchmark times kubenb and a baseline doing the same work in the same process,
interleaved, and reports throughput and the ratio kubenb / baseline, so machine
speed cancels out. The best of several rounds is kept (least disturbed by noise), and
each round's own ratio too: where those spread widely, the machine (not the code)
moved between rounds, and one best figure would hide it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Result:
    """One row of the table: kubenb against a baseline on the same work."""

    name: str
    ops: int
    kubenb_seconds: float
    baseline_name: str
    baseline_seconds: float
    target_ratio: float | None = None
    #: kubenb's ratio in each round, against the baseline's time in the same round.
    round_ratios: tuple[float, ...] = ()

    @property
    def kubenb_rate(self) -> float:
        return self.ops / self.kubenb_seconds

    @property
    def baseline_rate(self) -> float:
        return self.ops / self.baseline_seconds

    @property
    def ratio(self) -> float:
        """kubenb throughput as a fraction of the baseline's (higher is better)."""
        return self.baseline_seconds / self.kubenb_seconds

    @property
    def meets_target(self) -> bool | None:
        return None if self.target_ratio is None else self.ratio >= self.target_ratio


def best_time(work: Callable[[], object], rounds: int) -> float:
    """The fastest of `rounds` runs of `work`, in seconds (GC collected before each).

    A `work` that returns a float has timed itself (e.g. first to last watch event,
    leaving out its setup): that figure is used instead of the call's duration."""
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        timed = work()
        took = time.perf_counter() - start
        best = min(best, timed if isinstance(timed, float) else took)
    return best


def compare(
    name: str,
    ops: int,
    kubenb: Callable[[], object],
    baseline_name: str,
    baseline: Callable[[], object],
    rounds: int,
    target_ratio: float | None = None,
) -> Result:
    """Time kubenb and the baseline, alternating round by round."""
    k_times, b_times = [], []
    for _ in range(rounds):
        k_times.append(best_time(kubenb, 1))
        b_times.append(best_time(baseline, 1))
    return Result(name, ops, min(k_times), baseline_name, min(b_times), target_ratio,
                  tuple(b / k for k, b in zip(k_times, b_times, strict=True)))


def _ratio_text(ratio: float) -> str:
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def _spread_text(result: Result) -> str:
    if len(result.round_ratios) < 2:
        return "-"
    return (f"{_ratio_text(min(result.round_ratios))}-"
            f"{_ratio_text(max(result.round_ratios))}")


def format_table(results: list[Result]) -> str:
    """A plain-text table, one row per comparison."""
    header = ("benchmark", "kubenb ops/s", "baseline", "baseline ops/s", "ratio", "rounds",
              "target")
    rows = [header]
    for r in results:
        target = "-" if r.target_ratio is None else f">= {r.target_ratio:.2f}x"
        if r.meets_target is not None:
            target += " ok" if r.meets_target else " MISSED"
        rows.append(
            (
                r.name,
                f"{r.kubenb_rate:,.0f}",
                r.baseline_name,
                f"{r.baseline_rate:,.0f}",
                _ratio_text(r.ratio),
                _spread_text(r),
                target,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
