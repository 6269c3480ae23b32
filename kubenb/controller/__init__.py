"""Reconcile loops for prototyping controllers in a notebook, ported 1:1 to Go later.

`Controller` (runner.py) runs `reconcile(key)` over keys from informers through a
rate-limited workqueue (sample-controller's shape), built from `enqueue` (events to
keys), `owners` (owner references), `result` (what a reconcile returns), `gate`
(pause/step/resume), `leadership` and `metrics`; `record` writes Events as client-go's
recorder does (`events_cache` correlates them); `leaderelection` lets two kernels act
as two replicas; `retry_on_conflict` is client-go's `retry.RetryOnConflict`; `samples`
holds complete controllers to read and port.
"""

from kubenb.controller.enqueue import enqueue_key, enqueue_owner
from kubenb.controller.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElectionConfigError,
    LeaderElectionRecord,
    LeaderElector,
    LeaseLock,
)
from kubenb.controller.metrics import ControllerMetrics
from kubenb.controller.owners import controller_of
from kubenb.controller.record import (
    EventBroadcaster,
    EventRecorder,
    EventRecordError,
    EventSink,
    EventSource,
    FakeRecorder,
    get_reference,
)
from kubenb.controller.result import Result
from kubenb.controller.retry import (
    DEFAULT_BACKOFF,
    DEFAULT_RETRY,
    Backoff,
    on_error,
    retry_on_conflict,
)
from kubenb.controller.runner import Controller, ControllerStateError, IdleTimeout

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_RETRY",
    "Backoff",
    "Controller",
    "ControllerMetrics",
    "ControllerStateError",
    "EventBroadcaster",
    "EventRecordError",
    "EventRecorder",
    "EventSink",
    "EventSource",
    "FakeRecorder",
    "IdleTimeout",
    "LeaderCallbacks",
    "LeaderElectionConfig",
    "LeaderElectionConfigError",
    "LeaderElectionRecord",
    "LeaderElector",
    "LeaseLock",
    "Result",
    "controller_of",
    "enqueue_key",
    "enqueue_owner",
    "get_reference",
    "on_error",
    "retry_on_conflict",
]
