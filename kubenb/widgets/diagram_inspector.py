"""The informer diagram's inspectors: what a click on a box shows under the picture.

Each box has its contents now (the FIFO's queued keys and delta types, the indexes, each
handler's backlog, the workqueue's keys with requeue counts and next retry, the last
items processed) and its recent activity: the counter changes `ACTIVITY_LABELS` names,
recorded by the widget between samples. HTML from one sample, so it is tested without a
widget.
"""

from __future__ import annotations

from typing import Any

from kubenb.widgets._html import esc, fmt_seconds
from kubenb.widgets.diagram_svg import BOXES, LOWER
from kubenb.widgets.stepper import StepResult

__all__ = ["ACTIVITY_LABELS", "inspector_html"]

#: Counter changes recorded in each box's activity list: (field, label).
ACTIVITY_LABELS = {
    "reflector": (("state", "state"), ("lists", "lists"), ("relists", "relists"),
                  ("gone", "410 Gone"), ("watches", "watches"), ("events", "watch events"),
                  ("errors", "errors")),
    "fifo": (("depth", "depth"), ("popped", "popped"), ("process_errors", "process errors")),
    "informer": (("state", "process loop"), ("steps", "steps")),
    "store": (("items", "objects"),),
    "indexer": (("items", "items"), ("index_count", "indexes")),
    "handlers": (("listeners", "handlers"), ("calls", "calls"), ("errors", "errors"),
                 ("backlog", "backlog")),
    "workqueue": (("depth", "depth"), ("processing", "processing"), ("adds", "adds"),
                  ("retries", "retries"), ("delayed", "waiting for a retry")),
    "process": (("done", "processed"), ("errors", "errors")),
    "api": (),
}


# -- inspectors --------------------------------------------------------------------------------


def _kv_table(rows: list[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><td style='padding-right:12px;color:#546e7a'>{esc(k)}</td>"
                   f"<td>{esc(v)}</td></tr>" for k, v in rows)
    return f'<table class="kubenb-inspector-counters">{body}</table>'


def _list_table(css: str, columns: list[str], rows: list[list[Any]], empty: str) -> str:
    if not rows:
        return f'<div class="{css}"><i>{esc(empty)}</i></div>'
    head = "".join(f"<th style='text-align:left;padding-right:12px'>{esc(c)}</th>"
                   for c in columns)
    body = "".join("<tr class='kubenb-inspector-row'>" + "".join(
        f"<td style='padding-right:12px'>{esc(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _more(shown: int, total: int) -> str:
    return f"<div><i>first {shown} of {total}</i></div>" if total > shown else ""


def inspector_html(box: str, sample: dict[str, Any], activity: list[str], *,
                   last_step: StepResult | None = None, recent: list[tuple[str, str, str]]
                   | None = None, store_keys: list[str] | None = None,
                   lower: bool = True) -> str:
    """What a click on `box` shows: its contents now, then its recent activity."""
    title = dict(BOXES)[box]
    v = sample.get(box) or {}
    parts: list[str] = []
    if box in LOWER and not lower:
        parts.append("<i>No workqueue attached: InformerDiagram(informer, workqueue=queue "
                     "or controller) lights this half.</i>")
    elif box == "api":
        r = sample.get("reflector") or {}
        parts.append(_kv_table([("list & watch of", v.get("endpoint", "")),
                                ("last resourceVersion", v.get("resource_version", "")),
                                ("reflector state", r.get("state", "")),
                                ("last error", r.get("last_error") or "none")]))
    elif box == "reflector":
        parts.append(_kv_table([(label, v.get(field, 0)) for field, label in ACTIVITY_LABELS[box]]
                               + [("objects listed", v.get("objects_listed", 0)),
                                  ("bookmarks", v.get("bookmarks", 0)),
                                  ("last resourceVersion", v.get("resource_version", "")),
                                  ("last error", v.get("last_error") or "none")]))
    elif box == "fifo":
        queued = v.get("queued") or []
        state = (sample.get("informer") or {}).get("state", "")
        parts.append(_kv_table([("queue", v.get("kind", "")), ("process loop", state),
                                ("keys queued", v.get("depth", 0)),
                                ("popped so far", v.get("popped", 0))]))
        parts.append("<div><b>queued keys</b> (oldest first; a key's deltas wait together)"
                     "</div>")
        held = (sample.get("informer") or {}).get("held")
        rows = [[k + ("  (popped, held by the pause)" if i == 0 and held == k else ""),
                 ", ".join(types)] for i, (k, types) in enumerate(queued)]
        parts.append(_list_table("kubenb-inspector-fifo-keys", ["key", "deltas"], rows,
                                 "nothing queued"))
        parts.append(_more(len(rows), int(v.get("depth", 0)) + (1 if held else 0)))
    elif box == "informer":
        if last_step is not None:
            parts.append(f"<div><b>last step</b>: applied {esc(last_step.key)} (before, after "
                         "and diff under the buttons)</div>")
        parts.append(_kv_table([("process loop", v.get("state", "")),
                                ("synced", v.get("synced", False)),
                                ("deltas popped", v.get("popped", 0)),
                                ("process errors", v.get("process_errors", 0)),
                                ("held by the pause", v.get("held") or "nothing"),
                                ("steps", v.get("steps", 0))]))
    elif box == "store":
        keys = store_keys or []
        items = int((sample.get("indexer") or {}).get("items", 0))
        parts.append(f"<div>{items} objects, keyed by namespace/name</div>")
        parts.append(_list_table("kubenb-inspector-store-keys", ["key"],
                                 [[k] for k in keys], "empty"))
        parts.append(_more(len(keys), items))
    elif box == "indexer":
        values = v.get("index_values") or {}
        parts.append(f"<div>{int(v.get('items', 0))} objects, {len(values)} indexes "
                     "(index name -> value -> how many keys)</div>")
        for name, pairs in sorted(values.items()):
            parts.append(f"<div><b>index {esc(name)}</b></div>")
            parts.append(_list_table(f"kubenb-inspector-index kubenb-inspector-index-{esc(name)}",
                                     ["value", "keys"], [[a, n] for a, n in pairs], "no values"))
    elif box == "handlers":
        rows = [[h["handler"], h.get("owner", ""), h["adds"], h["updates"], h["deletes"],
                 h["backlog"], "yes" if h["busy"] else "", h["errors"],
                 "yes" if h["synced"] else "no"]
                for h in v.get("handler_list") or []]
        parts.append(_list_table("kubenb-inspector-handlers",
                                 ["handler", "whose", "adds", "updates", "deletes", "backlog",
                                  "busy", "errors", "synced"], rows, "no handler registered"))
    elif box == "workqueue":
        d = v.get("detail") or {}
        requeues = d.get("requeues") or {}
        parts.append(_kv_table([("queued (ready)", v.get("depth", 0)),
                                ("processing", v.get("processing", 0)),
                                ("waiting for a retry", v.get("delayed", 0)),
                                ("adds", v.get("adds", 0)), ("retries", v.get("retries", 0))]))
        parts.append("<div><b>ready keys</b> (handed out in this order)</div>")
        parts.append(_list_table("kubenb-inspector-wq-ready", ["key", "requeues"],
                                 [[k, requeues.get(k, 0)] for k in d.get("ready") or []],
                                 "none"))
        parts.append("<div><b>processing</b> (a key is never in two workers)</div>")
        redo = set(d.get("redo") or [])
        parts.append(_list_table("kubenb-inspector-wq-processing", ["key", "requeues", "note"],
                                 [[k, requeues.get(k, 0),
                                   "added again: queued on done()" if k in redo else ""]
                                  for k in d.get("processing") or []], "none"))
        parts.append("<div><b>waiting for a retry</b> (add_rate_limited / add_after)</div>")
        parts.append(_list_table("kubenb-inspector-wq-waiting",
                                 ["key", "requeues", "next retry in"],
                                 [[k, requeues.get(k, 0),
                                   fmt_seconds(max(wait, 0.0)) if wait is not None else "?"]
                                  for k, wait in d.get("waiting") or []], "none"))
    elif box == "process":
        parts.append(_kv_table([("processed", v.get("done", 0)), ("errors", v.get("errors", 0)),
                                ("processing now", ", ".join(map(str, v.get("in_flight") or []))
                                 or "nothing")]))
        parts.append("<div><b>last items processed</b> (newest first; a worker's keys are "
                     "seen by comparing samples of the queue, so a key added and processed "
                     "between two samples is counted, not listed)</div>")
        parts.append(_list_table("kubenb-inspector-processed", ["time", "key", "outcome"],
                                 [list(r) for r in recent or []], "none yet"))
        errors = v.get("recent_errors") or []
        if errors:
            parts.append("<div><b>recent errors</b></div>")
            parts.append(_list_table("kubenb-inspector-errors", ["key", "error"],
                                     [list(e) for e in errors[::-1]], ""))
    lines = "".join(f"<li>{esc(line)}</li>" for line in activity[::-1]) or \
        "<li>no activity yet</li>"
    parts.append(f'<div class="kubenb-activity kubenb-activity-{box}"><b>recent activity</b>'
                 f"<ul>{lines}</ul></div>")
    return (f'<div class="kubenb-inspector kubenb-inspector-{box}" style="font-size:12px;'
            f'padding:4px"><b style="font-size:13px">{esc(title)}</b>{"".join(parts)}</div>')
