"""Samples: what the live views read from an informer, a workqueue or a controller.

Every function here runs on a view's poll thread and makes only thread-safe reads
(`stats()`, `metrics()`, a workqueue's `snapshot()`), and bounds what it copies, so
sampling a deep queue stays cheap. The views render the samples later, on the
publisher thread. Anything with the methods the views call is accepted (a kubenb
workqueue or Controller, or a look-alike); what it lacks is left out of its sample.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from kubenb.workqueue.interface import Interface
from kubenb.workqueue.queue import QueueSnapshot

if TYPE_CHECKING:
    from kubenb.cache.shared_informer import SharedIndexInformer

__all__ = [
    "MAX_LISTED",
    "controller_of",
    "handler_owner",
    "informer_sample",
    "is_controller",
    "processing_items",
    "queue_detail",
    "queue_of",
    "queue_snapshot",
    "workqueue_sample",
]

#: How many keys a sample lists by name (FIFO keys, workqueue keys, index values);
#: counts are always exact.
MAX_LISTED = 50

#: How many delta-type lookups a sample may make in a deep FIFO.
MAX_FIFO_KEYS = 500


def _fifo_types(queue: Any) -> dict[str, int]:
    """How many deltas of each type wait in the queue (DeltaFIFO or RealFIFO)."""
    types: Counter[str] = Counter()
    entries = getattr(queue, "entries", None)
    if callable(entries):  # RealFIFO: one delta per entry
        for delta in entries()[:MAX_FIFO_KEYS]:
            types[str(delta.type)] += 1
        return dict(types)
    for key in queue.list_keys()[:MAX_FIFO_KEYS]:
        for delta in queue.get_by_key(key) or ():
            types[str(delta.type)] += 1
    return dict(types)


def _fifo_queued(queue: Any, controller: Any) -> list[tuple[str, list[str]]]:
    """The first keys waiting in the FIFO, each with its delta types, oldest first;
    an item a paused loop has popped and holds comes first."""
    out: list[tuple[str, list[str]]] = []
    held = controller.held() if hasattr(controller, "held") else None
    if held:
        out.append((str(queue.key_of(held)), [str(d.type) for d in held]))
    for key in queue.list_keys()[:MAX_LISTED]:
        out.append((str(key), [str(d.type) for d in queue.get_by_key(key) or ()]))
    return out[:MAX_LISTED]


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _handler_name(listener: Any) -> str:
    handler = getattr(listener, "handler", None)
    name = getattr(handler, "name", None)
    if isinstance(name, str) and name:
        return name
    if isinstance(name, str):  # ResourceEventHandlerFuncs of lambdas only
        return "unnamed (lambdas; name= names it)"
    if handler is None:
        return "handler"
    if type(handler).__repr__ is not object.__repr__:  # a handler that says what it is
        return _short(repr(handler), 60)
    return type(handler).__name__


def handler_owner(listener: Any) -> str:
    """Whose a registered handler is: "view" (kubenb.reactive / kubenb.widgets feed
    their views with one), "controller" (a kubenb.controller Controller's), else
    "yours" (one the notebook added)."""
    handler = getattr(listener, "handler", None)
    module = type(handler).__module__ or ""
    inner = getattr(handler, "handler", None)  # a filtering wrapper: whose it wraps
    if module == "kubenb.cache.handlers" and inner is not None:
        module = type(inner).__module__ or ""
    if module.startswith(("kubenb.reactive", "kubenb.widgets")):
        return "view"
    if module.startswith("kubenb.controller"):
        return "controller"
    return "yours"


def _index_values(indexer: Any, names: list[str]) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for name in names:
        try:
            values = sorted(indexer.list_index_func_values(name))
        except Exception:  # an index being added while we read: next sample
            continue
        out[name] = [(str(v), len(indexer.index_keys(name, v))) for v in values[:MAX_LISTED]]
    return out


def informer_sample(informer: SharedIndexInformer, detail: bool = False
                    ) -> dict[str, dict[str, Any]]:
    """The reflector/fifo/indexer/handlers counters of a SharedIndexInformer, from its
    `stats()` (thread-safe reads only). With `detail`, also what the inspectors list:
    the FIFO's queued keys, the index values, each handler's numbers, the loop state."""
    stats = informer.stats()
    reflector = stats.get("reflector") or {}
    controller = informer.get_controller()
    queue = controller.queue if controller is not None else None
    listeners = stats.get("listeners") or []
    lists = int(reflector.get("lists", 0))
    indexer = informer.get_indexer()
    indexes = sorted(indexer.get_indexers()) if hasattr(indexer, "get_indexers") else []
    events = {k[len("events_"):]: int(v) for k, v in reflector.items()
              if k.startswith("events_") and k != "events_dropped_wrong_type"}
    sample: dict[str, dict[str, Any]] = {
        "reflector": {
            "state": reflector.get("state", "new"),
            "resource_version": reflector.get("resource_version", ""),
            "lists": lists,
            "relists": max(lists - 1, 0),
            "gone": int(reflector.get("gone", 0)),
            "watches": int(reflector.get("watches", 0)),
            "events": sum(v for k, v in events.items() if k != "bookmark"),
            "bookmarks": events.get("bookmark", 0),
            "objects_listed": int(reflector.get("objects_listed", 0)),
            "resyncs": int(reflector.get("resyncs", 0)),
            "errors": int(reflector.get("errors", 0)) + int(reflector.get("watch_errors", 0)),
            "last_error": reflector.get("last_error", ""),
        },
        "fifo": {
            "depth": int(stats.get("queue_depth", 0)),
            "popped": int(stats.get("deltas_popped", 0)),
            "process_errors": int(stats.get("process_errors", 0)),
            "types": _fifo_types(queue) if queue is not None else {},
            "kind": stats.get("queue_kind", ""),
        },
        "indexer": {"items": int(stats.get("objects", 0)), "index_count": len(indexes),
                    "indexes": indexes},
        "handlers": {
            "listeners": len(listeners),
            "calls": sum(int(s.get("adds", 0)) + int(s.get("updates", 0))
                         + int(s.get("deletes", 0)) for s in listeners),
            "errors": int(stats.get("handler_errors", 0)),
            "backlog": sum(int(s.get("pending", 0)) for s in listeners),
        },
    }
    processor = getattr(informer, "processor", None)
    registered = processor.listeners() if processor is not None else []
    sample["handlers"]["views"] = sum(handler_owner(h) == "view" for h in registered)
    paused = bool(controller is not None and controller.is_paused())
    held = controller.held() if controller is not None else None
    state = ("stopped" if stats.get("stopped") else "new" if controller is None
             else "paused" if paused else "running")
    sample["informer"] = {
        "state": state, "synced": bool(stats.get("synced")),
        "popped": sample["fifo"]["popped"], "process_errors": sample["fifo"]["process_errors"],
        "held": queue.key_of(held) if held and queue is not None else None,
        "steps": int(getattr(controller, "steps", 0) or 0),
    }
    sample["api"] = {"endpoint": getattr(informer.list_watcher, "description", "") or
                     getattr(informer, "name", ""),
                     "resource_version": sample["reflector"]["resource_version"]}
    if detail:
        sample["fifo"]["queued"] = (_fifo_queued(queue, controller)
                                    if queue is not None else [])
        sample["indexer"]["index_values"] = _index_values(indexer, indexes)
        handler_list = []
        for listener in registered:
            s = listener.stats()
            handler_list.append({"name": s.get("name", ""), "handler": _handler_name(listener),
                                 "owner": handler_owner(listener),
                                 "adds": int(s.get("adds", 0)),
                                 "updates": int(s.get("updates", 0)),
                                 "deletes": int(s.get("deletes", 0)),
                                 "errors": int(s.get("handler_errors", 0)),
                                 "backlog": int(s.get("pending", 0)),
                                 "busy": bool(s.get("busy")),
                                 "synced": bool(s.get("has_synced"))})
        sample["handlers"]["handler_list"] = handler_list
    return sample


def is_controller(source: Any) -> bool:
    """Whether `source` is a `kubenb.controller.Controller` (not a bare workqueue)."""
    return callable(getattr(source, "reconcile", None)) and hasattr(source, "recent_errors")


def queue_of(source: Any) -> Interface | None:
    """The workqueue of a workqueue (itself) or of a controller (its current queue,
    None before it made one; never makes one as a side effect)."""
    if is_controller(source):
        return source.current_queue
    return source


def controller_of(source: Any) -> Any:
    return source if is_controller(source) else None


def processing_items(queue: Interface) -> list[Any]:
    """The items a workqueue has handed out and not yet marked done ([] for anything
    that is not a kubenb workqueue)."""
    snapshot = getattr(queue, "processing_items", None)
    return list(snapshot()) if snapshot is not None else []


def workqueue_sample(source: Any) -> dict[str, Any]:
    """Depth, processing, adds, retries (and the full metrics) of a workqueue, or of a
    `kubenb.controller` Controller (its queue, and its active workers)."""
    metrics = source.metrics()
    queue_metrics = getattr(metrics, "queue", metrics)
    if hasattr(metrics, "active_workers"):  # a controller runner
        queue = queue_of(source)
        processing = int(metrics.active_workers)
        items = processing_items(queue) if queue is not None else []
    else:
        items = processing_items(source)
        processing = len(items)
    if queue_metrics is None:
        return {"depth": 0, "processing": processing, "adds": 0, "retries": 0,
                "items": items, "metrics": None}
    return {"depth": int(queue_metrics.depth), "processing": processing,
            "adds": int(queue_metrics.adds), "retries": int(queue_metrics.retries),
            "items": items, "metrics": queue_metrics}


def queue_snapshot(queue: Interface, limit: int | None = MAX_LISTED) -> QueueSnapshot | None:
    """`queue.snapshot(limit)` of a kubenb workqueue; None for a queue without one."""
    snapshot = getattr(queue, "snapshot", None)
    return snapshot(limit=limit) if callable(snapshot) else None


def queue_detail(queue: Interface) -> dict[str, Any]:
    """What a workqueue holds now, for the inspector: the keys ready to be handed out
    (in order, when `ordered`), the keys processing, the keys re-added while
    processing (`redo`: queued again on done), and the keys waiting for a retry with
    the clock seconds until they are due, and their requeue counts. From one
    `snapshot()` of at most MAX_LISTED keys a list; a queue without one gives what
    `processing_items()` tells.
    """
    out: dict[str, Any] = {"ready": [], "processing": [], "redo": [], "waiting": [],
                           "waiting_count": 0, "now": None, "requeues": {}}
    look = queue_snapshot(queue)
    if look is None:
        out["processing"] = [str(i) for i in processing_items(queue)][:MAX_LISTED]
        return out
    out["ordered"] = look.ordered  # keys leave the ready list in this order
    out["ready"] = list(look.queued)
    out["processing"] = list(look.processing)
    out["redo"] = [p for p in out["processing"] if p in look.redo]
    out["now"] = look.now
    out["waiting_count"] = look.waiting_count
    out["waiting"] = [(item, ready_at - look.now) for item, ready_at in look.waiting]
    limiter = getattr(queue, "rate_limiter", None)
    if limiter is not None:
        keys = {*out["ready"], *out["processing"], *(i for i, _ in out["waiting"])}
        requeues = {}
        for key in keys:
            try:
                n = int(limiter.num_requeues(key))
            except Exception:
                continue
            if n:
                requeues[key] = n
        out["requeues"] = requeues
    return out
