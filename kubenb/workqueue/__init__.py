"""client-go's util/workqueue: a de-duplicating, delaying, rate-limited work queue.

`Queue`, `DelayingQueue` and `RateLimitingQueue` are the queues; `Interface`,
`DelayingInterface` and `RateLimitingInterface` are their shapes as typing protocols,
for code that takes any queue; `QueueSnapshot` is what `snapshot()` returns.
"""

from kubenb.workqueue.delaying import DelayingQueue
from kubenb.workqueue.interface import DelayingInterface, Interface, RateLimitingInterface
from kubenb.workqueue.metrics import (
    InProcessMetricsProvider,
    MetricsProvider,
    MetricsSnapshot,
    NoopMetricsProvider,
    SummarySnapshot,
    get_provider,
    set_provider,
)
from kubenb.workqueue.parallelize import parallelize_until
from kubenb.workqueue.queue import Queue, QueueSnapshot
from kubenb.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)
from kubenb.workqueue.rate_limiting import RateLimitingQueue

__all__ = [
    "BucketRateLimiter",
    "DelayingInterface",
    "DelayingQueue",
    "InProcessMetricsProvider",
    "Interface",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "MetricsProvider",
    "MetricsSnapshot",
    "NoopMetricsProvider",
    "Queue",
    "QueueSnapshot",
    "RateLimiter",
    "RateLimitingInterface",
    "RateLimitingQueue",
    "SummarySnapshot",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
    "get_provider",
    "parallelize_until",
    "set_provider",
]
