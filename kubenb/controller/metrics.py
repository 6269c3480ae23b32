"""A controller's numbers at one moment: what `Controller.metrics()` returns and a
monitor widget shows (controller-runtime's reconcile metrics, as one snapshot)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kubenb.workqueue.metrics import MetricsSnapshot, SummarySnapshot

__all__ = ["ControllerMetrics"]


@dataclass(frozen=True)
class ControllerMetrics:
    """A controller's numbers at one moment (what a monitor widget shows).

    `reconciles` counts every call; `successes`, `errors`, `requeues` (Result.requeue)
    and `requeues_after` (Result.requeue_after) split them by outcome; `dropped` counts
    keys given up after `max_retries`; `relist_requeues` counts the times a watched
    informer's relist queued every key again. `duration` summarizes reconcile durations on the
    controller's clock; `queue` is the workqueue's own snapshot. `leader` is None
    without leader election.
    """

    name: str
    workers: int
    active_workers: int
    running: bool
    leader: bool | None
    reconciles: int
    successes: int
    errors: int
    requeues: int
    requeues_after: int
    dropped: int
    duration: SummarySnapshot = field(default_factory=SummarySnapshot)
    queue: MetricsSnapshot | None = None
    last_error: str | None = None
    relist_requeues: int = 0

    def as_dict(self) -> dict[str, Any]:
        """One flat dict (a DataFrame row): `duration_p50`, `queue_depth`, ..."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if key == "queue":
                continue
            if isinstance(value, dict):
                out.update({f"{key}_{sub}": v for sub, v in value.items()})
            else:
                out[key] = value
        if self.queue is not None:
            out.update({f"queue_{k}": v for k, v in self.queue.as_dict().items()
                        if k not in ("name",)})
        return out
