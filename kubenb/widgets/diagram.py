"""InformerDiagram: client-go's controller-interaction picture, drawn live.

The picture every client-go tutorial starts from, as SVG, with the informer's own
numbers in it. Upper half (client-go): Reflector -(1) List & Watch- API server;
Reflector -(2) Add object-> DeltaFIFO -(3) Pop-> Informer -(4) Add object-> Indexer
-(5) Store object and key-> thread-safe store; Informer -(6) Dispatch event handler
functions-> Resource Event Handlers. Lower half (your controller): handlers -(7)
Enqueue object key-> Workqueue -(8) Get next key-> Process Item, which (9) gets the
object by key from the Indexer.

- Boxes carry live counts; an arrow lights up, with `+N`, when traffic crossed it
  since the previous picture (one publish interval).
- Click a box (or its button under the picture) for its inspector: the FIFO's
  queued keys and delta types, the indexes, each handler's backlog, the workqueue's
  keys with requeue counts and next retry, the last items processed.
- pause / step / resume drive the informer's process loop (`Controller.pause`,
  kubenb.cache.controller); "process next key" runs one processNextWorkItem on the
  workqueue (get, your `process_item(key)`, forget or add_rate_limited, done) when
  no worker takes keys itself; "clock +1s" steps a workqueue's FakeClock. With a
  kubenb Controller attached, pause workers / step worker / resume workers drive its
  gate (`Controller.pause`, `step(1)`, `resume`): a running controller's keys wait in
  the workqueue and its workers take them one step at a time.
- Without a workqueue the lower half is drawn greyed out.

Why plain ipywidgets: one `HTML` widget holds the SVG (one comm message per
picture, no frontend extension, no new dependency, and it renders anywhere
ipywidgets does: JupyterLab, Notebook 7, VS Code, Voila); real `Button`s carry the
clicks to Python. A click on a box in the picture presses that box's button (a
one-line `onclick`), so the picture is clickable and the buttons remain for
keyboards and for tests.

Counters are sampled on a poll thread and rendered by the reactive publisher (see
`_feed.py`): nothing here runs on an informer thread.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import ipywidgets as widgets

from kubenb.clock import Clock, FakeClock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.widgets._feed import PolledView, gone_reason
from kubenb.widgets._html import esc, fmt_seconds, wall_time
from kubenb.widgets._samples import (
    MAX_LISTED,
    controller_of,
    informer_sample,
    queue_detail,
    queue_of,
    workqueue_sample,
)
from kubenb.widgets.stepper import StepResult, apply_one, step_html
from kubenb.widgets.table import scrolling

__all__ = ["ARROWS", "BOXES", "InformerDiagram", "diagram_svg", "flow_totals"]

#: The boxes, upper half first: (id, title).
BOXES = (("api", "API server"), ("reflector", "Reflector"), ("fifo", "DeltaFIFO"),
         ("informer", "Informer"), ("store", "Thread-safe store"), ("indexer", "Indexer"),
         ("handlers", "Resource Event Handlers"), ("workqueue", "Workqueue"),
         ("process", "Process Item"))
LOWER = frozenset({"workqueue", "process"})
_SHORT = {"api": "API server", "store": "Store", "handlers": "Handlers", "fifo": "FIFO",
          "process": "Process Item"}

#: Where each box is drawn: x, y, width, height (the SVG is WIDTH x HEIGHT).
WIDTH, HEIGHT, DIVIDER = 920, 446, 306
GEOMETRY = {
    "api": (15, 40, 130, 84), "reflector": (235, 40, 165, 84), "fifo": (480, 40, 165, 84),
    "informer": (730, 40, 180, 84), "store": (15, 182, 125, 96),
    "indexer": (235, 182, 245, 96), "handlers": (730, 182, 180, 96),
    "process": (400, 338, 200, 92), "workqueue": (730, 338, 180, 92),
}

#: The numbered arrows: (id, label lines, x1, y1, x2, y2, label x, label y, anchor,
#: both ends). Labels follow client-go's picture.
ARROWS = (
    ("list_watch", ("(1) List & Watch",), 235, 82, 145, 82, 190, 74, "middle", True),
    ("add_object", ("(2) Add object",), 400, 82, 480, 82, 440, 74, "middle", False),
    ("pop", ("(3) Pop",), 645, 82, 730, 82, 687, 74, "middle", False),
    ("add_to_indexer", ("(4) Add object",), 740, 124, 480, 205, 598, 152, "end", False),
    ("store_key", ("(5) Store", "object & key"), 235, 230, 140, 230, 187, 222, "middle",
     False),
    ("dispatch", ("(6) Dispatch event", "handler functions"), 820, 124, 820, 182, 812, 148,
     "end", False),
    ("enqueue", ("(7) Enqueue", "object key"), 820, 278, 820, 338, 812, 304, "end", False),
    ("get_next", ("(8) Get next key",), 730, 384, 600, 384, 665, 376, "middle", False),
    ("get_by_key", ("(9) Get object", "by key"), 440, 338, 440, 278, 432, 304, "end", False),
)

_OK, _WARN, _BAD, _GREY, _LINE = "#2e7d32", "#b26a00", "#c62828", "#9e9e9e", "#607d8b"
_HOT, _SELECTED = "#e8590c", "#1565c0"
_STATE_COLOURS = {"watching": _OK, "running": _OK, "listing": _WARN, "new": _GREY,
                  "paused": _WARN, "backoff": _BAD, "stopped": _GREY}

#: Counter changes recorded in each box's activity list: (field, label).
_LABELS = {
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


# -- flows ---------------------------------------------------------------------------------


def flow_totals(sample: dict[str, Any]) -> dict[str, int]:
    """How much has crossed each arrow so far (totals; the picture shows the change
    between two samples). (1) lists, watches and events on the wire; (2) objects
    listed and watch events, each a delta queued; (3)-(5) items popped, each written
    to the Indexer; (6) handler calls; (7) workqueue adds; (8) keys taken by a
    worker; (9) keys processed."""
    r, f, h = (sample.get(k) or {} for k in ("reflector", "fifo", "handlers"))
    popped = int(f.get("popped", 0))
    out = {"list_watch": int(r.get("lists", 0)) + int(r.get("watches", 0))
           + int(r.get("events", 0)) + int(r.get("bookmarks", 0)),
           "add_object": int(r.get("objects_listed", 0)) + int(r.get("events", 0)),
           "pop": popped, "add_to_indexer": popped, "store_key": popped,
           "dispatch": int(h.get("calls", 0))}
    wq, p = sample.get("workqueue"), sample.get("process")
    if wq:
        out["enqueue"] = int(wq.get("adds", 0))
    if p:
        out["get_next"] = int(p.get("gets", 0))
        out["get_by_key"] = int(p.get("done", 0))
    return out


def _flows(sample: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, int]:
    if previous is None:
        return {}
    now, before = flow_totals(sample), flow_totals(previous)
    return {k: v - before[k] for k, v in now.items() if k in before and v > before[k]}


# -- the SVG -----------------------------------------------------------------------------------


def _counter(name: str, value: Any, shown: Any = None) -> str:
    text = value if shown is None else shown
    return (f'<tspan class="kubenb-counter kubenb-counter-{esc(name)}" data-value="{esc(value)}"'
            f' font-weight="bold">{esc(text)}</tspan>')


def _short(text: Any, n: int) -> str:
    s = str(text)
    return s if len(s) <= n else s[:n - 1] + "…"


def _box_lines(box: str, s: dict[str, Any], lit: bool) -> tuple[list[str], str, str]:
    """The text lines of one box (SVG tspans), its badge text and badge colour."""
    v = s.get(box) or {}
    c = _counter
    if box == "api":
        endpoint = str(v.get("endpoint", "")).replace(" in all namespaces", "")
        return [esc(_short(endpoint, 22)),
                "RV " + c("reflector-resource-version", v.get("resource_version", ""),
                          _short(v.get("resource_version", "") or "—", 14))], "", ""
    if box == "reflector":
        state = str(v.get("state", "new"))
        return ["lists " + c("reflector-lists", v.get("lists", 0)) + "  relists "
                + c("reflector-relists", v.get("relists", 0)),
                "410 Gone " + c("reflector-gone", v.get("gone", 0)) + "  watches "
                + c("reflector-watches", v.get("watches", 0)),
                "events " + c("reflector-events", v.get("events", 0)) + "  errors "
                + c("reflector-errors", v.get("errors", 0)),
                ], state, _STATE_COLOURS.get(state, _LINE)
    if box == "fifo":
        types = v.get("types") or {}
        text = ", ".join(f"{t} {n}" for t, n in sorted(types.items())) or "empty"
        paused = (s.get("informer") or {}).get("state") == "paused"
        return [c("fifo-depth", v.get("depth", 0)) + " keys queued",
                c("fifo-types", text, _short(text, 26)),
                "popped " + c("fifo-popped", v.get("popped", 0))], \
            ("paused" if paused else ""), _WARN
    if box == "informer":
        state = str(v.get("state", "new"))
        held = v.get("held")
        return ["process loop " + c("informer-state", state),
                "errors " + c("fifo-process-errors", v.get("process_errors", 0))
                + ("  synced" if v.get("synced") else "  syncing"),
                "steps " + c("informer-steps", v.get("steps", 0))
                + (("  holding " + esc(_short(held, 15))) if held else "")], \
            state, _STATE_COLOURS.get(state, _LINE)
    if box == "store":
        items = (s.get("indexer") or {}).get("items", 0)
        return [c("indexer-items", items) + " objects", "by namespace/name"], "", ""
    if box == "indexer":
        idx = v.get("indexes") or []
        return [c("indexer-index-count", v.get("index_count", 0)) + " indexes",
                esc(_short(", ".join(idx) or "none", 34)),
                "Listers and Process Item read here"], "", ""
    if box == "handlers":
        return [c("handlers-listeners", v.get("listeners", 0)) + " handlers  calls "
                + c("handlers-calls", v.get("calls", 0)),
                "backlog " + c("handlers-backlog", v.get("backlog", 0)) + "  errors "
                + c("handlers-errors", v.get("errors", 0)),
                "each on its own thread"], "", ""
    if not lit:
        return ["not attached"], "", ""
    if box == "workqueue":
        return [c("workqueue-depth", v.get("depth", 0)) + " queued  "
                + c("workqueue-processing", v.get("processing", 0)) + " processing",
                "retry later " + c("workqueue-delayed", v.get("delayed", 0)),
                "adds " + c("workqueue-adds", v.get("adds", 0)) + "  retries "
                + c("workqueue-retries", v.get("retries", 0))], "", ""
    # process
    now = v.get("in_flight") or []
    return ["processed " + c("process-done", v.get("done", 0)) + "  errors "
            + c("process-errors", v.get("errors", 0)),
            "now: " + esc(_short(", ".join(str(k) for k in now) or "idle", 26)),
            "your reconcile(key)"], "", ""


def _onclick(box: str) -> str:
    return ("var r=this.closest('.kubenb-diagram');var b=r&&r.querySelector("
            f"'.kubenb-diagram-inspect-{box}');if(b)b.click();")


def diagram_svg(sample: dict[str, Any], flows: dict[str, int] | None = None, *,
                selected: str | None = None, lower: bool = True, uid: str = "d") -> str:
    """The picture for one sample: boxes with their counts, arrows lit by `flows`
    (arrow id -> count since the previous picture), `selected` outlined, the lower
    half greyed out unless `lower`. Pure: the same input gives the same SVG."""
    flows = flows or {}
    parts = [f'<svg class="kubenb-diagram-svg" xmlns="http://www.w3.org/2000/svg" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" style="max-width:{WIDTH}px;'
             f'font-family:sans-serif" data-lower="{"on" if lower else "off"}">',
             "<defs>"]
    for name, colour in (("n", _LINE), ("h", _HOT), ("g", "#c8c8c8")):
        for end, path in (("e", "M0,0 L10,5 L0,10 z"), ("s", "M10,0 L0,5 L10,10 z")):
            parts.append(f'<marker id="kubenb-{uid}-{name}{end}" viewBox="0 0 10 10" refX="'
                         f'{9 if end == "e" else 1}" refY="5" markerWidth="7" markerHeight="7"'
                         f' orient="auto"><path d="{path}" fill="{colour}"/></marker>')
    parts.append("</defs>")
    parts.append('<text x="15" y="22" font-size="12" fill="#78909c" font-style="italic">'
                 "client-go</text>")
    parts.append(f'<line x1="10" y1="{DIVIDER}" x2="{WIDTH - 10}" y2="{DIVIDER}" '
                 'stroke="#b0bec5" stroke-dasharray="6,4"/>')
    parts.append(f'<text x="15" y="{DIVIDER + 20}" font-size="12" fill="#78909c" '
                 'font-style="italic">your controller</text>')
    if not lower:
        parts.append(f'<text class="kubenb-diagram-lower-note" x="15" y="{DIVIDER + 52}" '
                     'font-size="12" fill="#9e9e9e"><tspan x="15">No workqueue attached:'
                     '</tspan><tspan x="15" dy="16">pass workqueue= (a workqueue or a kubenb'
                     '</tspan><tspan x="15" dy="16">Controller) to light this half.</tspan>'
                     "</text>")
    parts.append(f'<text class="kubenb-diagram-legend" x="15" y="{HEIGHT - 30}" '
                 f'font-size="11" fill="#78909c"><tspan x="15">An arrow lights up, with +N, '
                 f'when traffic</tspan><tspan x="15" dy="14">crossed it since the last '
                 f'picture. Click a box to inspect it.</tspan></text>')
    for box, title in BOXES:
        x, y, w, h = GEOMETRY[box]
        lit = lower or box not in LOWER
        lines, badge, badge_colour = _box_lines(box, sample, lit)
        stroke, width, fill, ink = _LINE, 1.5, "#ffffff", "#263238"
        if box in ("reflector", "informer") and badge:
            stroke = _STATE_COLOURS.get(badge, _LINE)
        if box == "fifo" and badge:
            stroke, fill = _WARN, "#fff8e1"
        if not lit:
            stroke, fill, ink = "#cfd8dc", "#f5f5f5", "#9e9e9e"
        if box == selected:
            stroke, width = _SELECTED, 3.5
        parts.append(f'<g class="kubenb-box kubenb-box-{box}" data-box="{box}" '
                     f'style="cursor:pointer" onclick="{_onclick(box)}">'
                     f"<title>{esc(title)}: click to inspect</title>"
                     f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="{width}"/>'
                     f'<text x="{x + 8}" y="{y + 17}" font-size="13" font-weight="bold" '
                     f'fill="{ink}">{esc(title)}</text>')
        if badge:
            parts.append(f'<text class="kubenb-badge kubenb-badge-{box}" x="{x + w - 7}" '
                         f'y="{y + 17}" font-size="11" text-anchor="end" fill="{badge_colour}"'
                         f' font-weight="bold">{esc(badge)}</text>')
        for i, line in enumerate(lines):
            parts.append(f'<text x="{x + 8}" y="{y + 36 + 16 * i}" font-size="11.5" '
                         f'fill="{ink}">{line}</text>')
        parts.append("</g>")
    for arrow, label, x1, y1, x2, y2, lx, ly, anchor, both in ARROWS:
        lit = lower or arrow not in ("enqueue", "get_next", "get_by_key")
        count = flows.get(arrow, 0)
        hot = lit and count > 0
        name = "h" if hot else "n" if lit else "g"
        colour = _HOT if hot else _LINE if lit else "#c8c8c8"
        start = f' marker-start="url(#kubenb-{uid}-{name}s)"' if both else ""
        hot_class = " kubenb-arrow-hot" if hot else ""
        parts.append(f'<g class="kubenb-arrow kubenb-arrow-{arrow}{hot_class}"'
                     f' data-arrow="{arrow}" data-flow="{count}">'
                     f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" '
                     f'stroke-width="{3.5 if hot else 1.6}"{start} '
                     f'marker-end="url(#kubenb-{uid}-{name}e)">')
        if hot:
            parts.append('<animate attributeName="stroke-opacity" values="1;0.35;1" '
                         'dur="0.8s" repeatCount="2"/>')
        parts.append("</line>")
        for i, text in enumerate(label):
            parts.append(f'<text x="{lx}" y="{ly + 12 * i}" font-size="10" text-anchor="'
                         f'{anchor}" fill="{colour if lit else "#bdbdbd"}" stroke="#ffffff" '
                         f'stroke-width="3" paint-order="stroke">{esc(text)}</text>')
        if hot:
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            parts.append(f'<text class="kubenb-flow kubenb-flow-{arrow}" x="{cx:.0f}" '
                         f'y="{cy + 14:.0f}" font-size="11" font-weight="bold" text-anchor='
                         f'"middle" fill="{_HOT}" stroke="#ffffff" stroke-width="3" '
                         f'paint-order="stroke">+{count}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


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
        parts.append(_kv_table([(label, v.get(field, 0)) for field, label in _LABELS[box]]
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
        rows = [[h["handler"], h["adds"], h["updates"], h["deletes"], h["backlog"],
                 "yes" if h["busy"] else "", h["errors"], "yes" if h["synced"] else "no"]
                for h in v.get("handler_list") or []]
        parts.append(_list_table("kubenb-inspector-handlers",
                                 ["handler", "adds", "updates", "deletes", "backlog", "busy",
                                  "errors", "synced"], rows, "no handler registered"))
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


# -- the widget ------------------------------------------------------------------------------


class InformerDiagram(PolledView):
    """client-go's controller picture, live (see the module docstring).

    `workqueue`: a workqueue or a `kubenb.controller` Controller fed by the
    informer's handlers (None: the lower half is greyed out). `process_item(key)`:
    what "process next key" runs for a bare workqueue (your reconcile; raise to have
    the key requeued with backoff). `interval`: how often counters are sampled
    (clock seconds); `activity_size` bounds each box's recent-activity list.
    """

    def __init__(self, informer: Any, workqueue: Any = None, *, process_item: Any = None,
                 interval: float = 0.5, activity_size: int = 50, step_timeout: float = 5.0,
                 clock_step: float = 1.0, publisher: Publisher | None = None,
                 rate: float = DEFAULT_RATE, clock: Clock | None = None, name: str = "",
                 poll: bool = True) -> None:
        if informer is None or not hasattr(informer, "stats"):
            raise KubenbError(f"{type(self).__name__} needs a SharedIndexInformer, got "
                              f"{type(informer).__name__}")
        if workqueue is not None and not hasattr(workqueue, "metrics"):
            raise KubenbError(f"{type(self).__name__}(workqueue=...): expected a workqueue or "
                              f"a controller with metrics(), got {type(workqueue).__name__}")
        if process_item is not None and not callable(process_item):
            raise KubenbError(f"{type(self).__name__}(process_item=...): expected a function "
                              f"of a key, got {type(process_item).__name__}")
        self.informer = informer
        self.workqueue = workqueue
        self.process_item = process_item
        self.step_timeout = step_timeout
        self.clock_step = clock_step
        self.lower = workqueue is not None
        self.activity: dict[str, deque[str]] = {b: deque(maxlen=activity_size)
                                                for b, _ in BOXES}
        self.selected: str | None = None
        self.last_sample: dict[str, Any] = {}
        self.last_flows: dict[str, int] = {}
        self.last_step: StepResult | None = None
        self.recent: deque[tuple[str, str, str]] = deque(maxlen=20)
        self._previous: dict[str, Any] | None = None
        self._own = {"gets": 0, "done": 0, "errors": 0}
        self._own_keys: set[str] = set()

        self.svg = widgets.HTML()
        self.svg.add_class("kubenb-diagram-picture")
        self.buttons: dict[str, widgets.Button] = {}
        inspect = []
        for box, title in BOXES:
            button = widgets.Button(description=_SHORT.get(box, title),
                                    tooltip=f"inspect the {title}",
                                    layout=widgets.Layout(width="auto"))
            for css in ("kubenb-diagram-inspect", f"kubenb-diagram-inspect-{box}",
                        "kubenb-stage-button", f"kubenb-stage-button-{box}"):
                button.add_class(css)
            button.on_click(lambda _b, box=box: self._click(lambda: self.select(
                None if self.selected == box else box)))
            self.buttons[box] = button
            inspect.append(button)
        self.controls: dict[str, widgets.Button] = {}

        def control(name: str, description: str, icon: str, tooltip: str, action: Any
                    ) -> widgets.Button:
            b = widgets.Button(description=description, icon=icon, tooltip=tooltip,
                               layout=widgets.Layout(width="auto"))
            b.add_class("kubenb-diagram-control")
            b.add_class(f"kubenb-diagram-{name}")
            b.on_click(lambda _b: self._click(action))
            self.controls[name] = b
            return b

        fifo_row = [widgets.HTML("<b>DeltaFIFO</b>"),
                    control("pause", "pause", "pause",
                            "stop the process loop: the FIFO fills, nothing reaches the "
                            "Indexer", self.pause),
                    control("step", "step", "step-forward",
                            "apply the next key's deltas (Indexer, then handlers)", self.step),
                    control("resume", "resume", "play", "run the process loop again",
                            self.resume)]
        queue_row: list[Any] = []
        if self.lower:
            queue_row = [widgets.HTML("&nbsp;&nbsp;<b>Workqueue</b>"),
                         control("process-next", "process next key", "cog",
                                 "get, process_item(key), forget or add_rate_limited, done",
                                 self.process_next)]
            if controller_of(workqueue) is not None:
                queue_row += [
                    control("workers-pause", "pause workers", "pause",
                            "hold the controller's workers before they take a key: keys "
                            "wait in the workqueue", self.pause_workers),
                    control("workers-step", "step worker", "step-forward",
                            "let one worker take the next key (Controller.step(1))",
                            self.step_worker),
                    control("workers-resume", "resume workers", "play",
                            "the controller's workers take every key again",
                            self.resume_workers)]
            fake = self._fake_clock()
            if fake is not None:
                queue_row.append(control("clock", f"clock +{clock_step:g}s", "clock-o",
                                         "step the workqueue's FakeClock: retries fall due",
                                         self.step_clock))
        self.status = widgets.HTML()
        self.status.add_class("kubenb-diagram-status")
        self.step_view = widgets.HTML()
        self.step_view.add_class("kubenb-diagram-step")
        # the inspector scrolls in a box of its own: re-drawn twice a second, it keeps
        # where the reader scrolled to
        self.detail = scrolling(widgets.HTML(), 320, "kubenb-diagram-inspector")
        self.detail.add_class("kubenb-pipeline-activity")
        self.widget = widgets.VBox([
            self.svg,
            widgets.HBox([widgets.HTML("inspect:&nbsp;"), *inspect],
                         layout=widgets.Layout(flex_flow="row wrap")),
            widgets.HBox([*fifo_row, *queue_row], layout=widgets.Layout(flex_flow="row wrap")),
            self.status, self.step_view, self.detail])
        for css in ("kubenb-diagram", "kubenb-pipeline"):
            self.widget.add_class(css)
        self._start_feed(interval=interval, publisher=publisher, rate=rate, clock=clock,
                         name=name, poll=poll)
        self.widget.add_class(f"kubenb-diagram-{self.name}")
        self.svg.value = diagram_svg({}, selected=None, lower=self.lower, uid=self._uid())

    def _uid(self) -> str:
        return "".join(ch if ch.isalnum() else "-" for ch in self.name)

    # -- sampling (poll thread) and rendering (publisher thread) ---------------------------

    def _sample(self) -> dict[str, Any]:
        detail = self.selected is not None
        sample: dict[str, Any] = informer_sample(self.informer, detail=detail)
        if self.workqueue is not None:
            sample["workqueue"], sample["process"] = self._lower_sample(detail)
        sample["time"] = self.clock.now()
        sample["wall"] = time.time()
        if detail and self.selected == "store":
            sample["store_keys"] = sorted(self.informer.get_indexer().list_keys())[:MAX_LISTED]
        return sample

    def _lower_sample(self, detail: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        source = self.workqueue
        wq = workqueue_sample(source)
        metrics = wq.pop("metrics")
        queue = queue_of(source)
        waiting = getattr(queue, "_waiting_count", None)
        wq["delayed"] = waiting() if callable(waiting) else 0
        if queue is not None:  # bounded; also how finished keys are seen (_record_activity)
            wq["detail"] = queue_detail(queue)
        items = [str(i) for i in wq.pop("items")]
        controller = controller_of(source)
        own = dict(self._own)
        if controller is not None:
            m = controller.metrics()
            process = {"done": m.reconciles, "gets": m.reconciles + m.active_workers,
                       "errors": m.errors, "in_flight": items,
                       "recent_errors": controller.recent_errors()[-10:]}
        else:
            enabled = bool(getattr(metrics, "enabled", False))
            process = {"done": metrics.work_duration.count if enabled else own["done"],
                       "gets": metrics.latency.count if enabled else own["gets"],
                       "errors": own["errors"], "in_flight": items, "recent_errors": []}
        return wq, process

    def _render(self, sample: dict[str, Any]) -> None:
        previous = self._previous
        self._record_activity(sample, previous)
        self._previous = sample
        self.last_sample = sample
        self.last_flows = _flows(sample, previous)
        self._draw()

    def _draw(self) -> None:
        sample = self.last_sample
        self.svg.value = diagram_svg(sample, self.last_flows, selected=self.selected,
                                     lower=self.lower, uid=self._uid())
        if self.selected is not None:
            self.detail.value = inspector_html(
                self.selected, sample, list(self.activity[self.selected]),
                last_step=self.last_step, recent=list(self.recent)[::-1],
                store_keys=sample.get("store_keys"), lower=self.lower)
        else:
            self.detail.value = ""

    def _record_activity(self, sample: dict[str, Any], previous: dict[str, Any] | None
                         ) -> None:
        stamp = wall_time(sample["wall"])
        own, self._own_keys = self._own_keys, set()
        if previous is None:
            return
        self._record_finished(stamp, previous, sample, own)
        for box, _ in BOXES:
            now = sample.get(box if box != "store" else "indexer") or {}
            before = previous.get(box if box != "store" else "indexer") or {}
            for field, label in _LABELS[box]:
                old, new = before.get(field), now.get(field)
                if old == new:
                    continue
                if isinstance(new, int) and isinstance(old, int):
                    self.activity[box].append(f"{stamp} {label} {new - old:+d} (now {new})")
                else:
                    self.activity[box].append(f"{stamp} {label}: {old} -> {new}")
            if box == "reflector" and now.get("last_error") and \
                    now.get("last_error") != before.get("last_error"):
                self.activity[box].append(f"{stamp} error: {now['last_error']}")

    def _record_finished(self, stamp: str, previous: dict[str, Any], sample: dict[str, Any],
                         own: set[str]) -> None:
        """Keys a worker took and finished between two samples, as far as the samples
        show: a key processing before, or near the head of the ready list, that is
        neither ready nor processing now (keys this diagram processed itself are
        recorded when it does, with their outcome)."""
        before = ((previous.get("workqueue") or {}).get("detail")) or {}
        now = ((sample.get("workqueue") or {}).get("detail")) or {}
        if not before or not now:
            return
        ready_now, processing_now = set(now.get("ready") or []), set(now.get("processing") or [])
        waiting_now = {k for k, _ in now.get("waiting") or []}
        candidates = list(before.get("processing") or [])
        if before.get("ordered"):
            candidates += list(before.get("ready") or [])
        seen: set[Any] = set()
        for key in candidates:
            if key in seen or str(key) in own or key in ready_now or key in processing_now:
                continue
            seen.add(key)
            outcome = ("failed: waiting for a retry" if key in waiting_now
                       else "done (seen by sampling)")
            self.recent.append((stamp, str(key), outcome))

    def _redraw_now(self) -> None:
        """Sample and draw on the calling thread (after a click), if still open."""
        if not self.closed:
            self.refresh()
        else:
            with self._render_lock:
                self._draw()

    # -- interaction ---------------------------------------------------------------------

    def _click(self, action: Any) -> None:
        """A button press: never silent. What it did, or why it could not, is shown."""
        try:
            result = action()
            if isinstance(result, str):
                self._say(result)
        except KubenbError as err:
            self._say(str(err), warn=True)
        except Exception as err:  # a click must never lose the widget
            self._say(f"{type(err).__name__}: {err}", warn=True)

    def _say(self, text: str, warn: bool = False) -> None:
        colour = _WARN if warn else "#37474f"
        notice = " kubenb-notice" if warn else ""
        self.status.value = (f'<div class="kubenb-diagram-message{notice}" '
                             f'style="color:{colour}">{esc(text)}</div>')

    def select(self, box: str | None) -> None:
        """Show the inspector of `box` under the picture (None hides it): what a click on
        a box, or on its button, does."""
        if box is not None and box not in self.activity:
            raise KubenbError(f"{type(self).__name__}.select({box!r}): no such box; the "
                              f"boxes are {', '.join(self.activity)}")
        self.selected = box
        self._redraw_now()

    def _controller(self) -> Any:
        reason = gone_reason(self.informer)  # first: what a closed cluster did is the news
        if reason:
            raise KubenbError(reason)
        if self.closed:
            raise KubenbError("this diagram is closed (close() was called): its buttons do "
                              "nothing now; run its cell again for a live one")
        return self.informer.get_controller()

    def pause(self) -> str:
        """Pause the informer's process loop (the Reflector keeps filling the FIFO)."""
        self._controller().pause()
        self._redraw_now()
        return "paused: new deltas wait in the DeltaFIFO; step applies one key at a time"

    def resume(self) -> str:
        """Run the informer's process loop again."""
        self._controller().resume()
        self._redraw_now()
        return "resumed: the process loop applies deltas as they come"

    def step(self) -> StepResult | None:
        """While paused, apply the next key's deltas; shows it in the Informer's inspector."""
        self._controller()
        result = apply_one(self.informer, self.step_timeout)
        if result is None:
            self._say("nothing queued: make a change (or wait for one) and step again")
        else:
            self.last_step = result
            self.selected = "informer"
            self.step_view.value = step_html(result, height=200)
            calls = ", ".join(f"{c}" for c, _ in result.calls) or "no handler call"
            self._say(f"applied {result.key}: {', '.join(t for t, _ in result.deltas)} -> "
                      f"{calls}")
        self._redraw_now()
        return result

    def _attached_controller(self) -> Any:
        self._controller()  # a closed cluster or diagram says so first
        controller = controller_of(self.workqueue) if self.workqueue is not None else None
        if controller is None:
            raise KubenbError("no kubenb Controller attached: pausing workers needs "
                              "InformerDiagram(informer, controller)")
        return controller

    def pause_workers(self) -> str:
        """Hold the attached Controller's workers at its gate (`Controller.pause`)."""
        controller = self._attached_controller()
        controller.pause()
        self._redraw_now()
        return (f"controller {controller.name!r} paused: its workers wait before taking a "
                "key, so keys stay queued in the workqueue; step worker lets one through")

    def step_worker(self) -> str:
        """Let one worker of the paused, running Controller take the next key
        (`Controller.step(1)`); on a stopped Controller, process one key here instead."""
        controller = self._attached_controller()
        if not controller.is_running():
            return self.process_next()
        if not controller.paused:
            raise KubenbError(f"controller {controller.name!r} is running: its workers take "
                              "every key themselves; pause workers first, then step them")
        queued = len(controller.queue)
        controller.step(1)
        self.selected = self.selected or "process"
        self._redraw_now()
        if not queued:
            return (f"controller {controller.name!r}: no key is queued; one worker takes the "
                    "next key that comes")
        return f"controller {controller.name!r}: one worker takes the next key"

    def resume_workers(self) -> str:
        """Open the attached Controller's gate again (`Controller.resume`)."""
        controller = self._attached_controller()
        controller.resume()
        self._redraw_now()
        return f"controller {controller.name!r} resumed: its workers take every key again"

    def _fake_clock(self) -> FakeClock | None:
        queue = queue_of(self.workqueue) if self.workqueue is not None else None
        clock = getattr(queue, "clock", None) if queue is not None else None
        if clock is None and controller_of(self.workqueue) is not None:
            clock = self.workqueue.clock
        return clock if isinstance(clock, FakeClock) else None

    def step_clock(self) -> str:
        """Move the workqueue's FakeClock on by `clock_step` seconds."""
        if self.closed:
            raise KubenbError("this diagram is closed (close() was called)")
        fake = self._fake_clock()
        if fake is None:
            raise KubenbError("the workqueue runs on a real clock: nothing to step")
        fake.step(self.clock_step)
        self._redraw_now()
        return f"clock moved on {self.clock_step:g}s (now {fake.now():g}s): due retries are queued"

    def process_next(self) -> str:
        """One processNextWorkItem on the workqueue: get a key, process it (your
        `process_item`, or a stopped Controller's reconcile), then forget it or
        add_rate_limited it on error, and done. Returns what happened."""
        self._controller()
        source = self.workqueue
        if source is None:
            raise KubenbError("no workqueue attached: InformerDiagram(informer, workqueue=...)")
        controller = controller_of(source)
        if controller is not None:
            if controller.is_running():
                if controller.paused:
                    return self.step_worker()
                raise KubenbError(
                    f"controller {controller.name!r} is running: its workers take every key "
                    "themselves, so there is no key to process by hand; pause workers, then "
                    "step worker lets one worker take the next key")
            queue = controller.queue
        else:
            if self.process_item is None:
                raise KubenbError("give InformerDiagram(..., process_item=fn) to process keys "
                                  "from here: fn(key) is your reconcile; raise to retry")
            queue = source
        if queue.shutting_down():
            raise KubenbError("the workqueue is shut down: nothing more will be handed out")
        if not len(queue):
            waiting = getattr(queue, "_waiting_count", lambda: 0)()
            more = (f"; {waiting} key(s) wait for a retry: step the clock" if waiting else "")
            self._redraw_now()
            return f"no key is ready{more}"
        key, shutdown = queue.get()
        if shutdown:
            raise KubenbError("the workqueue is shut down: nothing more will be handed out")
        self._own["gets"] += 1
        if controller is not None:
            before = controller.metrics()
            controller._process(queue, key)  # reconcile, forget/requeue, done: as a worker
            after = controller.metrics()
            outcome = ("error: requeued with backoff" if after.errors > before.errors
                       else "requeued" if after.requeues > before.requeues
                       else "requeued after a delay" if after.requeues_after >
                       before.requeues_after else "done; forgotten")
        else:
            try:
                self.process_item(key)
            except Exception as err:
                self._own["errors"] += 1
                if hasattr(queue, "add_rate_limited"):
                    queue.add_rate_limited(key)
                    outcome = (f"error ({type(err).__name__}: {err}): add_rate_limited, "
                               f"requeue {queue.num_requeues(key)}")
                else:
                    outcome = f"error ({type(err).__name__}: {err}): not requeued"
            else:
                if hasattr(queue, "forget"):
                    queue.forget(key)
                outcome = "done; forgotten (its backoff starts over)"
            finally:
                queue.done(key)
                self._own["done"] += 1
        self.recent.append((wall_time(time.time()), str(key), outcome))
        self._own_keys.add(str(key))
        self.selected = self.selected or "process"
        self._redraw_now()
        return f"processed {key}: {outcome}"

    def counters(self, box: str) -> dict[str, Any]:
        """The last drawn numbers of one box (`store` reads the Indexer's)."""
        return dict(self.last_sample.get(box if box != "store" else "indexer", {}))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.informer.name!r}, renders={self.renders})"
