"""The informer diagram's picture: client-go's controller-interaction figure as SVG.

Upper half (client-go): Reflector -(1) List & Watch- API server; Reflector -(2) Add
object-> DeltaFIFO -(3) Pop-> Informer -(4) Add object-> Indexer -(5) Store object and
key-> thread-safe store; Informer -(6) Dispatch event handler functions-> Resource Event
Handlers. Lower half (your controller): handlers -(7) Enqueue object key-> Workqueue -(8)
Get next key-> Process Item, which (9) gets the object by key from the Indexer.

Boxes carry a sample's counts; an arrow lights up, with `+N`, when traffic crossed it
between two samples (`flow_totals`, `flow_changes`). `diagram_svg` is pure: the same
sample gives the same SVG, so it is tested without a widget. A click on a box presses
the widget's button for it (a one-line `onclick`), which is how the picture is clickable
with plain ipywidgets.
"""

from __future__ import annotations

from typing import Any

from kubenb.widgets._html import esc

__all__ = ["ARROWS", "BOXES", "GEOMETRY", "LOWER", "diagram_svg", "flow_changes", "flow_totals"]

#: The boxes, upper half first: (id, title).
BOXES = (("api", "API server"), ("reflector", "Reflector"), ("fifo", "DeltaFIFO"),
         ("informer", "Informer"), ("store", "Thread-safe store"), ("indexer", "Indexer"),
         ("handlers", "Resource Event Handlers"), ("workqueue", "Workqueue"),
         ("process", "Process Item"))
LOWER = frozenset({"workqueue", "process"})

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


def flow_changes(sample: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, int]:
    """What crossed each arrow between `previous` and `sample` (arrows with none left
    out; nothing for the first sample)."""
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
