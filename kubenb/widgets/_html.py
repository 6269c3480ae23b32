"""Small HTML builders shared by the widgets: escaping, counters, sparklines.

Why HTML strings: one `ipywidgets.HTML` value per view updates in one comm message,
renders without any frontend extension, and is easy to assert on in tests.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["counter", "esc", "fmt_number", "fmt_seconds", "sparkline", "table_html",
           "wall_time"]


def esc(value: Any) -> str:
    """HTML-escaped text of any value (None is empty)."""
    return "" if value is None else html.escape(str(value), quote=True)


def fmt_number(value: Any) -> str:
    """Integers as is, floats to 3 significant digits, None as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def fmt_seconds(value: float | None) -> str:
    """A duration in the unit that reads best (us, ms, s)."""
    if value is None:
        return "—"
    if value < 1e-3:
        return f"{value * 1e6:.0f}us"
    if value < 1:
        return f"{value * 1e3:.3g}ms"
    return f"{value:.3g}s"


def wall_time(epoch: float) -> str:
    """Local wall-clock time of an epoch-seconds stamp, to the millisecond
    ("14:03:07.215"): what a reader compares with the clock on the wall, unlike a
    monotonic clock's seconds."""
    return time.strftime("%H:%M:%S", time.localtime(epoch)) + f".{int(epoch % 1 * 1000):03d}"


def counter(name: str, label: str, value: Any) -> str:
    """One labelled number, findable by CSS class `kubenb-counter-<name>`."""
    return (f'<div class="kubenb-counter-row"><span class="kubenb-counter-label">{esc(label)}'
            f'</span> <span class="kubenb-counter kubenb-counter-{esc(name)}" '
            f'data-value="{esc(value)}">{esc(fmt_number(value))}</span></div>')


def sparkline(values: Sequence[float], name: str, width: int = 120, height: int = 24) -> str:
    """An inline SVG polyline of `values` (oldest first), class `kubenb-sparkline-<name>`."""
    cls = f"kubenb-sparkline kubenb-sparkline-{esc(name)}"
    if not values:
        return (f'<svg class="{cls}" width="{width}" height="{height}" '
                f'data-points="0"></svg>')
    top = max(values) or 1.0
    n = len(values)
    step = width / max(n - 1, 1)
    points = " ".join(f"{i * step:.1f},{height - (v / top) * (height - 2) - 1:.1f}"
                      for i, v in enumerate(values))
    return (f'<svg class="{cls}" width="{width}" height="{height}" data-points="{n}">'
            f'<polyline fill="none" stroke="#3572b0" stroke-width="1.5" points="{points}"/>'
            f"</svg>")


def table_html(columns: Sequence[str], rows: Iterable[Sequence[Any]], css: str,
               row_keys: Sequence[str] | None = None) -> str:
    """A plain HTML table; each body row carries its key in `data-key`."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        key = f' data-key="{esc(row_keys[i])}"' if row_keys is not None else ""
        cells = "".join(f"<td>{esc(v)}</td>" for v in row)
        body.append(f'<tr class="kubenb-row"{key}>{cells}</tr>')
    return (f'<table class="{css}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')
