"""The informer diagram's picture: client-go's controller-interaction figure as SVG.

Upper half (client-go): Reflector -(1) List & Watch- API server; Reflector -(2) Add
object-> DeltaFIFO -(3) Pop-> Informer -(4) Add object-> Indexer -(5) Store object and
key-> thread-safe store; Informer -(6) Dispatch event handler functions-> Resource Event
Handlers. Lower half (your controller): handlers -(7) Enqueue object key-> Workqueue -(8)
Get next key-> Process Item, which (9) gets the object by key from the Indexer.

Boxes carry a sample's counts (at most 5 characters each: `count_text`); an arrow lights
up, with `+N`, when traffic crossed it (`flow_totals`, `flow_changes`; the widget keeps
it lit and counting for a few seconds, dimming by its `heat`). Every text has its own
place, sized for the widest counts, so none is drawn over another. `diagram_svg` is
pure: the same sample gives the same SVG, so it is tested without a widget. A click on a
box presses the widget's button for it (a one-line handler), which is how the picture
is clickable with plain ipywidgets. The handler answers the release (`onmouseup`), not
the click: a live picture is redrawn whole while it counts, and a press and release
that straddle a redraw land on two different elements, which makes no click at all;
the release alone lands on the box drawn now.
"""

from __future__ import annotations

import textwrap
from typing import Any

from kubenb.widgets._html import esc

__all__ = ["ARROWS", "BOXES", "GEOMETRY", "LOWER", "LOWER_ARROWS", "count_text", "diagram_svg",
           "flow_changes", "flow_totals"]

#: The boxes, upper half first: (id, title).
BOXES = (("api", "API server"), ("reflector", "Reflector"), ("fifo", "DeltaFIFO"),
         ("informer", "Informer"), ("store", "Thread-safe store"), ("indexer", "Indexer"),
         ("handlers", "Resource Event Handlers"), ("workqueue", "Workqueue"),
         ("process", "Process Item"))
LOWER = frozenset({"workqueue", "process"})

#: Where each box is drawn: x, y, width, height (the SVG is WIDTH x HEIGHT). Sized so
#: that no two texts overlap with every count at its widest (`count_text`: 5 characters).
WIDTH, HEIGHT, DIVIDER = 1010, 492, 333
GEOMETRY = {
    "api": (15, 34, 150, 100), "reflector": (235, 34, 220, 100), "fifo": (515, 34, 190, 100),
    "informer": (775, 34, 200, 100), "store": (235, 200, 190, 100),
    "indexer": (515, 200, 210, 100), "handlers": (775, 200, 200, 100),
    "process": (475, 366, 220, 116), "workqueue": (775, 366, 200, 100),
}

#: The numbered arrows: (id, label lines, points, label x, label y, label anchor, count
#: x, count y, count anchor, both ends). `points` is the line, first to last (arrowhead
#: at the last); the count is drawn beside the line, never on an arrowhead. Labels
#: follow client-go's picture.
ARROWS: tuple[tuple[Any, ...], ...] = (
    ("list_watch", ("(1) List", "& Watch"), ((235, 84), (165, 84)), 200, 60, "middle",
     200, 101, "middle", True),
    ("add_object", ("(2) Add", "object"), ((455, 84), (515, 84)), 485, 60, "middle",
     485, 101, "middle", False),
    ("pop", ("(3) Pop",), ((705, 84), (775, 84)), 740, 70, "middle", 740, 101, "middle",
     False),
    ("add_to_indexer", ("(4) Add object",), ((800, 134), (800, 167), (620, 167), (620, 200)),
     700, 160, "middle", 700, 184, "middle", False),
    ("store_key", ("(5) Store", "object & key"), ((515, 250), (425, 250)), 470, 230,
     "middle", 470, 267, "middle", False),
    ("dispatch", ("(6) Dispatch event", "handler functions"), ((880, 134), (880, 200)), 888,
     158, "start", 872, 172, "end", False),
    ("enqueue", ("(7) Enqueue", "object key"), ((880, 300), (880, 366)), 888, 324, "start",
     872, 338, "end", False),
    ("get_next", ("(8) Get", "next key"), ((775, 416), (695, 416)), 735, 398, "middle",
     735, 433, "middle", False),
    ("get_by_key", ("(9) Get object", "by key"), ((560, 366), (560, 300)), 552, 326, "end",
     568, 338, "start", False),
)

#: Arrows of the lower half (greyed out without a workqueue).
LOWER_ARROWS = frozenset({"enqueue", "get_next", "get_by_key"})

_OK, _WARN, _BAD, _GREY, _LINE = "#2e7d32", "#b26a00", "#c62828", "#9e9e9e", "#607d8b"
_HOT, _SELECTED = "#e8590c", "#1565c0"
_STATE_COLOURS = {"watching": _OK, "running": _OK, "listing": _WARN, "new": _GREY,
                  "paused": _WARN, "backoff": _BAD, "stopped": _GREY, "closed": _GREY}


def count_text(value: Any) -> str:
    """A count as a box shows it, at most 5 characters: 99999, then 123k, 1.2M, 45M
    (the exact number is the counter's `data-value` and the inspector's)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 100_000:
        return str(value)
    if value < 1_000_000:
        return f"{value // 1000}k"
    if value < 10_000_000:
        return f"{value // 100_000 / 10:.1f}M"
    if value < 1_000_000_000:
        return f"{value // 1_000_000}M"
    return f"{value // 1_000_000_000}G"


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
    text = count_text(value) if shown is None else shown
    return (f'<tspan class="kubenb-counter kubenb-counter-{esc(name)}" data-value="{esc(value)}"'
            f' font-weight="bold">{esc(text)}</tspan>')


def _short(text: Any, n: int) -> str:
    s = str(text)
    return s if len(s) <= n else s[:n - 1] + "…"


def _box_lines(box: str, s: dict[str, Any], lit: bool) -> tuple[list[str], str, str]:
    """The text lines of one box (SVG tspans), its badge text and badge colour. Each
    line fits its box with every count at its widest (5 characters)."""
    v = s.get(box) or {}
    c = _counter
    if box == "api":
        endpoint = str(v.get("endpoint", "")).replace(" in all namespaces", "")
        return [esc(_short(endpoint, 18)),
                "RV " + c("reflector-resource-version", v.get("resource_version", ""),
                          _short(v.get("resource_version", "") or "—", 14))], "", ""
    if box == "reflector":
        state = str(v.get("state", "new"))
        return ["lists " + c("reflector-lists", v.get("lists", 0)) + "  relists "
                + c("reflector-relists", v.get("relists", 0)),
                "watches " + c("reflector-watches", v.get("watches", 0)) + "  events "
                + c("reflector-events", v.get("events", 0)),
                "410 Gone " + c("reflector-gone", v.get("gone", 0)) + "  errors "
                + c("reflector-errors", v.get("errors", 0)),
                ], state, _STATE_COLOURS.get(state, _LINE)
    if box == "fifo":
        types = v.get("types") or {}
        text = ", ".join(f"{t} {n}" for t, n in sorted(types.items())) or "empty"
        paused = (s.get("informer") or {}).get("state") == "paused"
        return [c("fifo-depth", v.get("depth", 0)) + " keys queued",
                c("fifo-types", text, _short(text, 24)),
                "popped " + c("fifo-popped", v.get("popped", 0))], \
            ("paused" if paused else ""), _WARN
    if box == "informer":
        state = str(v.get("state", "new"))
        held = v.get("held")
        lines = ["process loop " + c("informer-state", state),
                 "errors " + c("fifo-process-errors", v.get("process_errors", 0))
                 + ("  synced" if v.get("synced") else "  syncing"),
                 "steps " + c("informer-steps", v.get("steps", 0))]
        if held:
            lines.append("holding " + esc(_short(held, 17)))
        return lines, state, _STATE_COLOURS.get(state, _LINE)
    if box == "store":
        items = (s.get("indexer") or {}).get("items", 0)
        return [c("indexer-items", items) + " objects", "filed by key:",
                "namespace/name"], "", ""
    if box == "indexer":
        idx = v.get("indexes") or []
        return [c("indexer-index-count", v.get("index_count", 0)) + " indexes",
                esc(_short(", ".join(idx) or "none", 26)),
                "read by Listers and (9)"], "", ""
    if box == "handlers":
        listeners = int(v.get("listeners", 0))
        views = int(v.get("views") or 0)  # a LiveFrame's, a table's: not the reader's
        return [c("handlers-listeners", listeners)
                + (" handler" if listeners == 1 else " handlers"),
                "calls " + c("handlers-calls", v.get("calls", 0)) + "  errors "
                + c("handlers-errors", v.get("errors", 0)),
                "backlog " + c("handlers-backlog", v.get("backlog", 0)),
                (c("handlers-views", views) + (" of them for a view" if views == 1
                                               else " of them for views"))
                if views else "each on its own thread"], "", ""
    if not lit:
        return ["not attached"], "", ""
    if box == "workqueue":
        return ["queued " + c("workqueue-depth", v.get("depth", 0)),
                "processing " + c("workqueue-processing", v.get("processing", 0)),
                "retry later " + c("workqueue-delayed", v.get("delayed", 0)),
                "adds " + c("workqueue-adds", v.get("adds", 0)) + "  retries "
                + c("workqueue-retries", v.get("retries", 0))], "", ""
    # process
    now = v.get("in_flight") or []
    last = _wrap(str(v.get("last") or "your reconcile(key)"), 28, 3)
    return ["done " + c("process-done", v.get("done", 0)) + "  errors "
            + c("process-errors", v.get("errors", 0)),
            "now: " + esc(_short(", ".join(str(k) for k in now) or "idle", 23)),
            *(f'<tspan class="kubenb-process-last">{esc(line)}</tspan>' for line in last)
            ], "", ""


def _wrap(text: str, width: int, lines: int) -> list[str]:
    """`text` in at most `lines` lines of `width` characters, broken at spaces (long
    words cut), the last one cut with an ellipsis if the text is longer."""
    out = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    if len(out) > lines:
        out = [*out[:lines - 1], _short(" ".join(out[lines - 1:]), width)]
    return out


def _on_release(box: str) -> str:
    return ("var r=this.closest('.kubenb-diagram');var b=r&&r.querySelector("
            f"'.kubenb-diagram-inspect-{box}');if(b)b.click();")


#: Mouse presses inside the widget stay in it: JupyterLab would otherwise make the
#: widget's cell the active one (and Shift+Enter would run it again). A press on the
#: picture or a button neither reaches the notebook nor moves the focus (that would
#: activate the cell too); a click still happens. Presses in the text under the buttons
#: (inspector, step, messages) keep their default, so their text can be selected. The
#: picture does it itself, and once the pointer crosses it guards the whole widget:
#: plain ipywidgets run no script of their own.
_TEXT = ".kubenb-diagram-inspector,.kubenb-diagram-step,.kubenb-diagram-status"
_INSTALL = ("var r=this.closest('.kubenb-diagram');"
            "if(r&&!r.dataset.kubenbGuard){r.dataset.kubenbGuard='1';"
            "r.addEventListener('mousedown',function(e){e.stopPropagation();"
            f"if(!(e.target.closest&&e.target.closest('{_TEXT}')))e.preventDefault();}});"
            "r.addEventListener('focusin',function(e){e.stopPropagation();});}")
_GUARD = "event.stopPropagation();event.preventDefault();" + _INSTALL
_HOVER = _INSTALL


def _line_points(points: Any) -> str:
    return " ".join(f"{x},{y}" for x, y in points)


def diagram_svg(sample: dict[str, Any], flows: dict[str, int] | None = None, *,
                selected: str | None = None, lower: bool = True, uid: str = "d",
                heat: dict[str, float] | None = None, closed: str = "",
                clickable: bool = True) -> str:
    """The picture for one sample: boxes with their counts, arrows lit by `flows`
    (arrow id -> count of the traffic lighting it), each as bright as its `heat` (1:
    just now, fading towards 0; default 1), `selected` outlined, the lower half greyed
    out unless `lower`. `closed` (why the picture is no longer live) greys the states
    and says so. `clickable=False` draws a copy whose boxes press no button. Pure: the
    same input gives the same SVG."""
    flows = flows or {}
    heat = heat or {}
    guard = (f' onmousedown="{_GUARD}" onmouseover="{_HOVER}"' if clickable
             else ' onmousedown="event.stopPropagation()"')
    parts = [f'<svg class="kubenb-diagram-svg" xmlns="http://www.w3.org/2000/svg" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" style="max-width:{WIDTH}px;'
             f'font-family:sans-serif" data-lower="{"on" if lower else "off"}" '
             f'data-live="{"off" if closed else "on"}"{guard}>',
             "<defs>"]
    for name, colour in (("n", _LINE), ("h", _HOT), ("g", "#c8c8c8")):
        for end, path in (("e", "M0,0 L10,5 L0,10 z"), ("s", "M10,0 L0,5 L10,10 z")):
            parts.append(f'<marker id="kubenb-{uid}-{name}{end}" viewBox="0 0 10 10" refX="'
                         f'{9 if end == "e" else 1}" refY="5" markerWidth="10" '
                         f'markerHeight="10" markerUnits="userSpaceOnUse" orient="auto">'
                         f'<path d="{path}" fill="{colour}"/></marker>')
    parts.append("</defs>")
    parts.append('<text x="15" y="20" font-size="12" fill="#78909c" font-style="italic">'
                 "client-go</text>")
    if closed:
        parts.append(f'<text class="kubenb-diagram-closed" x="{WIDTH - 35}" y="20" '
                     f'font-size="12" text-anchor="end" fill="{_BAD}" font-weight="bold">'
                     f"{esc(_short(closed, 100))}</text>")
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
    click = " Click a box to inspect it." if clickable else ""
    parts.append(f'<text class="kubenb-diagram-legend" x="15" y="{HEIGHT - 26}" '
                 f'font-size="11" fill="#78909c"><tspan x="15">An arrow lights up with the '
                 f'traffic that crossed it</tspan><tspan x="15" dy="14">(+N), and fades in '
                 f'a few seconds.{click}</tspan></text>')
    for box, title in BOXES:
        x, y, w, h = GEOMETRY[box]
        lit = lower or box not in LOWER
        v = sample.get(box)
        if closed and box in ("reflector", "informer") and isinstance(v, dict):
            sample = {**sample, box: {**v, "state": "stopped" if v.get("state") != "new"
                                      else "new"}}
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
        handler = f' style="cursor:pointer" onmouseup="{_on_release(box)}"' if clickable else ""
        hint = ": click to inspect" if clickable else ""
        parts.append(f'<g class="kubenb-box kubenb-box-{box}" data-box="{box}"{handler}>'
                     f"<title>{esc(title)}{hint}</title>"
                     f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="{width}"/>'
                     f'<text x="{x + 8}" y="{y + 17}" font-size="12.5" font-weight="bold" '
                     f'fill="{ink}">{esc(title)}</text>')
        if badge:
            parts.append(f'<text class="kubenb-badge kubenb-badge-{box}" x="{x + w - 7}" '
                         f'y="{y + 17}" font-size="11" text-anchor="end" fill="{badge_colour}"'
                         f' font-weight="bold">{esc(badge)}</text>')
        for i, line in enumerate(lines):
            parts.append(f'<text x="{x + 8}" y="{y + 36 + 16 * i}" font-size="11.5" '
                         f'fill="{ink}">{line}</text>')
        parts.append("</g>")
    for arrow, label, points, lx, ly, anchor, cx, cy, canchor, both in ARROWS:
        lit = lower or arrow not in LOWER_ARROWS
        count = flows.get(arrow, 0)
        hot = lit and count > 0
        glow = max(0.0, min(1.0, heat.get(arrow, 1.0))) if hot else 0.0
        name = "h" if hot else "n" if lit else "g"
        colour = _HOT if hot else _LINE if lit else "#c8c8c8"
        start = f' marker-start="url(#kubenb-{uid}-{name}s)"' if both else ""
        hot_class = " kubenb-arrow-hot" if hot else ""
        opacity = f' stroke-opacity="{0.35 + 0.65 * glow:.2f}"' if hot else ""
        parts.append(f'<g class="kubenb-arrow kubenb-arrow-{arrow}{hot_class}"'
                     f' data-arrow="{arrow}" data-flow="{count}"'
                     f'{f" data-heat={chr(34)}{glow:.2f}{chr(34)}" if hot else ""}>'
                     f'<polyline points="{_line_points(points)}" fill="none" '
                     f'stroke="{colour}" stroke-width="{1.6 + 2.4 * glow if hot else 1.6:.1f}"'
                     f'{opacity}{start} marker-end="url(#kubenb-{uid}-{name}e)"/>')
        for i, text in enumerate(label):
            parts.append(f'<text x="{lx}" y="{ly + 12 * i}" font-size="10" text-anchor="'
                         f'{anchor}" fill="{colour if lit else "#bdbdbd"}" stroke="#ffffff" '
                         f'stroke-width="3" paint-order="stroke">{esc(text)}</text>')
        if hot:
            parts.append(f'<text class="kubenb-flow kubenb-flow-{arrow}" x="{cx}" '
                         f'y="{cy}" font-size="11" font-weight="bold" text-anchor='
                         f'"{canchor}" fill="{_HOT}" fill-opacity="{0.45 + 0.55 * glow:.2f}" '
                         f'stroke="#ffffff" stroke-width="3" paint-order="stroke">'
                         f"+{esc(count_text(count))}</text>")
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
