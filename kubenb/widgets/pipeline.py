"""PipelineView: client-go's informer diagram, live, from the counters of each stage.

Reflector -> DeltaFIFO -> Indexer -> handlers -> workqueue, one box each, with the
numbers a teacher points at: the Reflector's state, last resourceVersion, relists
and 410s; the FIFO's depth and the delta types waiting in it; the Indexer's items
and indexes; the handlers' calls, errors and listener backlog; the workqueue's
depth, items processing and retries. Each box has a button that shows its recent
activity: the changes of its counters, timestamped, newest first.

Counters are sampled on a poll thread and rendered by the reactive publisher (see
`_feed.py`): nothing here runs on an informer thread.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import ipywidgets as widgets

from kubenb.clock import Clock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.widgets._feed import PolledView
from kubenb.widgets._html import counter, esc

__all__ = ["STAGES", "PipelineView", "informer_sample", "workqueue_sample"]

#: The boxes, in data-path order: (stage id, title).
STAGES = (("reflector", "Reflector"), ("fifo", "DeltaFIFO"), ("indexer", "Indexer"),
          ("handlers", "Handlers"), ("workqueue", "Workqueue"))

#: How many delta-type lookups a sample may make in a deep FIFO.
MAX_FIFO_KEYS = 500

_LABELS = {
    "reflector": (("state", "state"), ("resource_version", "last RV"), ("lists", "lists"),
                  ("relists", "relists"), ("gone", "410 Gone"), ("watches", "watches"),
                  ("events", "watch events"), ("errors", "errors")),
    "fifo": (("depth", "depth"), ("popped", "popped"), ("process_errors", "process errors")),
    "indexer": (("items", "items"), ("index_count", "indexes")),
    "handlers": (("listeners", "handlers"), ("calls", "calls"), ("errors", "errors"),
                 ("backlog", "backlog")),
    "workqueue": (("depth", "depth"), ("processing", "processing"), ("adds", "adds"),
                  ("retries", "retries")),
}


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


def informer_sample(informer: Any) -> dict[str, dict[str, Any]]:
    """The reflector/fifo/indexer/handlers counters of a SharedIndexInformer, from its
    `stats()` (thread-safe reads only)."""
    stats = informer.stats()
    reflector = stats.get("reflector") or {}
    controller = informer.get_controller()
    queue = controller.queue if controller is not None else None
    listeners = stats.get("listeners") or []
    lists = int(reflector.get("lists", 0))
    indexer = informer.get_indexer()
    indexes = sorted(indexer.get_indexers()) if hasattr(indexer, "get_indexers") else []
    return {
        "reflector": {
            "state": reflector.get("state", "new"),
            "resource_version": reflector.get("resource_version", ""),
            "lists": lists,
            "relists": max(lists - 1, 0),
            "gone": int(reflector.get("gone", 0)),
            "watches": int(reflector.get("watches", 0)),
            "events": sum(int(v) for k, v in reflector.items()
                          if k.startswith("events_") and k != "events_dropped_wrong_type"),
            "errors": int(reflector.get("errors", 0)) + int(reflector.get("watch_errors", 0)),
            "last_error": reflector.get("last_error", ""),
        },
        "fifo": {
            "depth": int(stats.get("queue_depth", 0)),
            "popped": int(stats.get("deltas_popped", 0)),
            "process_errors": int(stats.get("process_errors", 0)),
            "types": _fifo_types(queue) if queue is not None else {},
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


def processing_items(queue: Any) -> list[Any]:
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
        queue = getattr(source, "queue", None)
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


class PipelineView(PolledView):
    """The informer diagram, live (see the module docstring).

    `workqueue` is an optional workqueue or `kubenb.controller` Controller fed by the
    informer's handlers. `interval` is how often counters are sampled (clock seconds);
    `activity_size` bounds each box's recent-activity list.
    """

    def __init__(self, informer: Any, workqueue: Any = None, *, interval: float = 0.5,
                 activity_size: int = 50, publisher: Publisher | None = None,
                 rate: float = DEFAULT_RATE, clock: Clock | None = None, name: str = "",
                 poll: bool = True) -> None:
        if informer is None or not hasattr(informer, "stats"):
            raise KubenbError(f"PipelineView needs a SharedIndexInformer, got "
                              f"{type(informer).__name__}")
        if workqueue is not None and not hasattr(workqueue, "metrics"):
            raise KubenbError(f"PipelineView(workqueue=...): expected a workqueue or a "
                              f"controller with metrics(), got {type(workqueue).__name__}")
        self.informer = informer
        self.workqueue = workqueue
        self.stages = [s for s in STAGES if s[0] != "workqueue" or workqueue is not None]
        self.activity: dict[str, deque[str]] = {s: deque(maxlen=activity_size)
                                                for s, _ in self.stages}
        self.selected: str | None = None
        self.last_sample: dict[str, Any] = {}
        self._previous: dict[str, Any] | None = None
        self.boxes: dict[str, widgets.HTML] = {}
        self.buttons: dict[str, widgets.Button] = {}
        parts: list[Any] = []
        for i, (stage, title) in enumerate(self.stages):
            if i:
                arrow = widgets.HTML('<div class="kubenb-arrow" style="font-size:20px;'
                                     'padding:30px 2px">&#8594;</div>')
                arrow.add_class("kubenb-pipeline-arrow")
                parts.append(arrow)
            box = widgets.HTML(self._box_html(stage, title, {}))
            box.add_class("kubenb-stage-body")
            button = widgets.Button(description="activity", tooltip=f"recent {title} activity",
                                    layout=widgets.Layout(width="auto"))
            button.add_class("kubenb-stage-button")
            button.add_class(f"kubenb-stage-button-{stage}")
            button.on_click(lambda _b, stage=stage: self.select(stage))
            column = widgets.VBox([box, button], layout=widgets.Layout(
                border="1px solid #999", padding="4px", margin="2px", min_width="130px"))
            column.add_class("kubenb-stage")
            column.add_class(f"kubenb-stage-{stage}")
            self.boxes[stage] = box
            self.buttons[stage] = button
            parts.append(column)
        self.detail = widgets.HTML("")
        self.detail.add_class("kubenb-pipeline-activity")
        self.widget = widgets.VBox([widgets.HBox(parts), self.detail])
        self.widget.add_class("kubenb-pipeline")
        self._start_feed(interval=interval, publisher=publisher, rate=rate, clock=clock,
                         name=name, poll=poll)

    # -- sampling (poll thread) and rendering (publisher thread) ---------------------

    def _sample(self) -> dict[str, Any]:
        sample: dict[str, Any] = informer_sample(self.informer)
        if self.workqueue is not None:
            sample["workqueue"] = workqueue_sample(self.workqueue)
        sample["time"] = self.clock.now()
        return sample

    def _render(self, sample: dict[str, Any]) -> None:
        self._record_activity(sample)
        self.last_sample = sample
        for stage, title in self.stages:
            self.boxes[stage].value = self._box_html(stage, title, sample.get(stage, {}))
        if self.selected is not None:
            self.detail.value = self._activity_html(self.selected)

    def _record_activity(self, sample: dict[str, Any]) -> None:
        previous, self._previous = self._previous, sample
        stamp = f"t={sample['time']:.3f}"
        for stage, _ in self.stages:
            now = sample.get(stage, {})
            before = (previous or {}).get(stage, {})
            for field, label in _LABELS[stage]:
                old, new = before.get(field), now.get(field)
                if previous is None or old == new:
                    continue
                if isinstance(new, int) and isinstance(old, int):
                    self.activity[stage].append(f"{stamp} {label} {new - old:+d} (now {new})")
                else:
                    self.activity[stage].append(f"{stamp} {label}: {old} -> {new}")
            if stage == "reflector" and now.get("last_error") and \
                    now.get("last_error") != before.get("last_error"):
                self.activity[stage].append(f"{stamp} error: {now['last_error']}")

    def _box_html(self, stage: str, title: str, values: dict[str, Any]) -> str:
        rows = [counter(f"{stage}-{field.replace('_', '-')}", label, values.get(field))
                for field, label in _LABELS[stage]]
        if stage == "fifo":
            types = values.get("types") or {}
            text = ", ".join(f"{t} {n}" for t, n in sorted(types.items())) or "none"
            rows.append(f'<div class="kubenb-counter-row">queued types: <span class='
                        f'"kubenb-counter kubenb-counter-fifo-types">{esc(text)}</span></div>')
        if stage == "indexer" and values.get("indexes"):
            rows.append(f'<div class="kubenb-indexes">{esc(", ".join(values["indexes"]))}'
                        "</div>")
        return (f'<div class="kubenb-box kubenb-box-{stage}"><b>{esc(title)}</b>'
                f'{"".join(rows)}</div>')

    def _activity_html(self, stage: str) -> str:
        title = dict(self.stages)[stage]
        lines = list(self.activity[stage])[::-1]
        items = "".join(f"<li>{esc(line)}</li>" for line in lines) or "<li>no activity yet</li>"
        return (f'<div class="kubenb-activity kubenb-activity-{stage}"><b>{esc(title)}: '
                f"recent activity</b><ul>{items}</ul></div>")

    # -- interaction -------------------------------------------------------------------

    def select(self, stage: str | None) -> None:
        """Show the recent activity of `stage` under the diagram (None hides it); what a
        click on a box's button does."""
        if stage is not None and stage not in self.activity:
            raise KubenbError(f"PipelineView.select({stage!r}): no such box; the boxes are "
                              f"{', '.join(self.activity)}")
        self.selected = stage
        with self._render_lock:  # never interleave with a render
            self.detail.value = "" if stage is None else self._activity_html(stage)

    def counters(self, stage: str) -> dict[str, Any]:
        """The last rendered numbers of one box."""
        return dict(self.last_sample.get(stage, {}))

    def __repr__(self) -> str:
        return f"PipelineView({self.informer.name!r}, renders={self.renders})"
