"""ResourceTable: a LiveFrame as a live, sortable, filterable table, plus ObjectView.

The rows come from a `LiveFrame` (kept equal to the informer's cache by the
reactive publisher). Given an informer, the table works out its kind and shows
`kubectl get`'s columns (NAME READY STATUS RESTARTS AGE for pods, ...; see
kubenb.printers), AGE as kubectl writes it (5s, 3m, 2d4h), STATUS coloured as a
kubectl user reads it (Running green, Pending amber, Failed / CrashLoopBackOff red,
Succeeded / Completed grey), and marks the rows the last batch changed.

The table re-renders once per applied batch, on the publisher thread inside
`hold_sync()`, and again whenever a filter changes. Filters: namespace (dropdown),
label selector (apimachinery's grammar, matched against the cached objects),
free-text search over every cell as shown. Picking a row shows its object as YAML
in an `ObjectView`. Table and YAML sit in fixed-height scrolling boxes, so the page
never jumps as they grow.
"""

from __future__ import annotations

import difflib
import re
import threading
import time
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd
import yaml

from kubenb.cache.selectors import parse_label_selector
from kubenb.errors import KubenbError, SelectorError
from kubenb.reactive.frame import LiveFrame, informer_kind
from kubenb.timeutil import human_duration
from kubenb.widgets._html import esc

__all__ = ["ALL_NAMESPACES", "ObjectView", "ResourceTable", "informer_kind", "scrolling",
           "status_tone", "to_yaml"]

ALL_NAMESPACES = "(all namespaces)"
#: Fixed-height, scrolling boxes inside one HTML value (a step's YAML, a diff): shown
#: once, never re-rendered underneath the reader.
SCROLL_STYLE = ("height:260px;overflow:auto;margin:2px 0;padding:4px;font-size:12px;"
                "border:1px solid #ddd;background:#fafafa")


def scrolling(widget: Any, height: int, css: str = "") -> Any:
    """Give a live widget a fixed height that scrolls: the page never jumps as it grows,
    and, the scroll box being the widget itself (not part of its value), a re-render
    keeps where the reader scrolled to."""
    widget.layout = widgets.Layout(height=f"{height}px", overflow="auto",
                                   border="1px solid #ddd")
    if css:
        widget.add_class(css)
    return widget
_SECRET_KINDS = {"Secret"}


def to_yaml(obj: Any, show_managed_fields: bool = False) -> str:
    """The object as kubectl-style YAML: `metadata.managedFields` left out (kubectl
    hides them unless `--show-managed-fields`), a Secret's data values masked so a
    widget never shows them."""
    if isinstance(obj, dict):
        meta = obj.get("metadata")
        if not show_managed_fields and isinstance(meta, dict) and "managedFields" in meta:
            obj = {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
        if obj.get("kind") in _SECRET_KINDS:
            obj = {**obj, **{f: {k: "***" for k in (obj.get(f) or {})}
                             for f in ("data", "stringData") if f in obj}}
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)


def yaml_diff(before: Any, after: Any) -> list[str]:
    """The unified diff of two objects' YAML (as `to_yaml` shows them), without the
    header lines; [] when they read the same. `kind` and `apiVersion` count only when
    both sides have them: a listed item comes without them and a watch event's object
    with them, which is no change to the object."""
    if isinstance(before, dict) and isinstance(after, dict):
        for field in ("kind", "apiVersion"):
            if (field in before) != (field in after):
                before = {k: v for k, v in before.items() if k != field}
                after = {k: v for k, v in after.items() if k != field}
    old = to_yaml(before).splitlines() if before is not None else []
    new = to_yaml(after).splitlines() if after is not None else []
    lines = list(difflib.unified_diff(old, new, lineterm="", n=2))
    return [line for line in lines if not line.startswith(("---", "+++"))]


def diff_html(lines: list[str], css: str = "kubenb-diff", height: int = 260) -> str:
    """Diff lines in a <pre>: additions green, removals red, hunk headers grey."""
    out = []
    for line in lines:
        if line.startswith("+"):
            out.append(f'<span class="kubenb-diff-add" style="color:#1b5e20;'
                       f'background:#e8f5e9">{esc(line)}</span>')
        elif line.startswith("-"):
            out.append(f'<span class="kubenb-diff-del" style="color:#b71c1c;'
                       f'background:#ffebee">{esc(line)}</span>')
        elif line.startswith("@@"):
            out.append(f'<span style="color:#757575">{esc(line)}</span>')
        else:
            out.append(esc(line))
    body = "\n".join(out) if out else "(no difference)"
    return f'<pre class="{css}" style="{SCROLL_STYLE};height:{height}px">{body}</pre>'


class ObjectView:
    """One object as YAML in a fixed-height, scrolling <pre> (class `kubenb-object-view`);
    managedFields are left out, as kubectl does."""

    def __init__(self, obj: Any = None, height: int = 260) -> None:
        self.widget = scrolling(widgets.HTML(), height, "kubenb-object-view")
        self.height = height
        self.key: str | None = None
        self.show(obj)

    def show(self, obj: Any, key: str | None = None) -> None:
        """Show `obj` (None clears the view)."""
        self.key = key
        self.obj = obj
        if obj is None:
            self.widget.value = '<div class="kubenb-object-empty">no object selected</div>'
        else:
            label = f"<b>{esc(key)}</b> (YAML, as cached)" if key else ""
            self.widget.value = (f'{label}<pre class="kubenb-yaml" style="margin:2px 0;'
                                 f'font-size:12px">{esc(to_yaml(obj))}</pre>')

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


# -- status colours --------------------------------------------------------------------

_TONES = {
    "ok": "#2e7d32", "warn": "#b26a00", "bad": "#c62828", "done": "#757575",
}
_OK = {"Running", "Ready", "Active", "Bound", "Available", "Complete", "True"}
_DONE = {"Succeeded", "Completed"}
_WARN = {"Pending", "ContainerCreating", "PodInitializing", "Terminating", "Unknown",
         "SchedulingGated", "NotReady", "Released"}
_BAD = re.compile(r"(Error|BackOff|Failed|Err[A-Z]|Invalid|OOMKilled|Evicted|Lost|"
                  r"ContainerStatusUnknown|DeadlineExceeded|Signal:|ExitCode:)")


def status_tone(text: Any) -> str:
    """How a kubectl user reads a STATUS cell: "ok" (Running, Ready, Active), "warn"
    (Pending, ContainerCreating, Init:0/1, Terminating), "bad" (Failed,
    CrashLoopBackOff, ImagePullBackOff, Error, OOMKilled), "done" (Succeeded,
    Completed), or "" for anything else."""
    value = str(text or "").strip()
    if not value:
        return ""
    if value in _DONE:
        return "done"
    if _BAD.search(value):
        return "bad"
    if value in _OK:
        return "ok"
    if value in _WARN or value.startswith("Init:"):
        return "warn"
    return ""


_STATUS_COLUMNS = {"STATUS", "PHASE"}


class ResourceTable:
    """A live table of a LiveFrame (see the module docstring).

    Give a `LiveFrame`, or an informer (a LiveFrame with namespaces and the kind's
    kubectl columns is made and owned: `close()` closes it; `kind=`/`group=` name the
    kind when the informer cannot tell). `max_rows` bounds the rendered rows (the
    count says how many matched); `height` is the table's fixed height in pixels.
    Rows changed by the last batch are marked, and stay marked for at least
    `mark_seconds` (real seconds), so a change is visible while the cluster churns.
    The label filter reads labels from `frame.informer`'s cache; `selector="app=web"`
    sets it from the start, as typing it in the labels box does. The YAML of a row
    shows once a row is picked (no empty box before).
    """

    def __init__(self, source: Any, *, max_rows: int = 200, sort_by: str | None = None,
                 ascending: bool = True, height: int = 320, mark_seconds: float = 2.0,
                 selector: str = "", **frame_options: Any) -> None:
        if isinstance(source, LiveFrame):
            if frame_options:
                raise KubenbError(f"ResourceTable: {sorted(frame_options)} are LiveFrame "
                                  "options; give them when making the frame, or pass an "
                                  "informer")
            self.frame, self._own_frame = source, False
        elif source is not None and hasattr(source, "get_indexer"):
            frame_options.setdefault("with_namespace", True)
            if frame_options.get("kind") is None and frame_options.get("columns") is None \
                    and frame_options.get("printer_columns") is None:
                kind, group = informer_kind(source)
                if kind is not None:
                    frame_options["kind"] = kind
                    frame_options.setdefault("group", group)
            self.frame, self._own_frame = LiveFrame(source, **frame_options), True
        else:
            raise KubenbError(f"ResourceTable needs a LiveFrame or an informer, got "
                              f"{type(source).__name__}")
        if max_rows < 1:
            raise KubenbError(f"ResourceTable(max_rows={max_rows!r}): must be >= 1")
        self.max_rows = max_rows
        self.height = height
        self._lock = threading.RLock()
        self._selector = parse_label_selector("")
        self.visible_keys: list[str] = []
        self.mark_seconds = mark_seconds
        self.changed: set[str] = set()
        self._marked_at: dict[str, float] = {}
        self._hashes: pd.Series | None = None
        self._synced = False
        self.matched = 0
        self.renders = 0

        columns = list(self.frame.columns.names)
        self.namespace = widgets.Dropdown(options=[ALL_NAMESPACES], value=ALL_NAMESPACES,
                                          description="namespace")
        self.namespace.add_class("kubenb-namespace-filter")
        self.labels = widgets.Text(placeholder="app=web,tier!=db", description="labels",
                                   continuous_update=False)
        self.labels.add_class("kubenb-label-filter")
        self.search = widgets.Text(placeholder="search", description="search",
                                   continuous_update=False)
        self.search.add_class("kubenb-search")
        self.sort = widgets.Dropdown(options=["(key)", *columns],
                                     value=sort_by if sort_by in columns else "(key)",
                                     description="sort by")
        self.sort.add_class("kubenb-sort")
        self.ascending = widgets.ToggleButton(value=ascending)
        self.ascending.add_class("kubenb-sort-order")
        self._label_sort_order()
        self.row_count = widgets.HTML()
        self.row_count.add_class("kubenb-row-count")
        self.error = widgets.HTML()
        self.error.add_class("kubenb-table-error")
        self.body = scrolling(widgets.HTML(), height, "kubenb-table-scroll")
        self.body.add_class("kubenb-table-body")
        self.select = widgets.Dropdown(options=[("(none)", "")], value="",
                                       description="object")
        self.select.add_class("kubenb-row-select")
        self.object_view = ObjectView()
        self.object_view.widget.layout.display = "none"  # shown once a row is picked
        self.widget = widgets.VBox([
            widgets.HBox([self.namespace, self.labels, self.search]),
            widgets.HBox([self.sort, self.ascending, self.row_count]),
            self.error, self.body, self.select, self.object_view.widget])
        self.widget.add_class("kubenb-resource-table")

        for control in (self.namespace, self.search, self.sort, self.ascending):
            control.observe(self._on_filter, names="value")
        self.ascending.observe(lambda _c: self._label_sort_order(), names="value")
        self.labels.observe(self._on_labels, names="value")
        self.select.observe(self._on_select, names="value")
        self.frame.observe(self._on_batch)
        self._track_changes()  # the rows as they are now: the baseline, nothing marked
        if selector:
            try:
                self.set_label_selector(selector)  # renders; the text box shows it too
            except BaseException:
                self.close()
                raise
        else:
            self.render()

    # -- events ------------------------------------------------------------------------

    def _on_batch(self, change: Any) -> None:
        with self._lock:
            if getattr(self, "_table_closed", False):
                return  # a batch already on its way when close() ran
            with self.widget.hold_sync():  # the publisher thread: one message per batch
                self._track_changes()
                self.render()

    def _on_filter(self, change: Any) -> None:
        self.render()

    def _on_labels(self, change: Any) -> None:
        self.set_label_selector(change["new"])

    def _on_select(self, change: Any) -> None:
        self.show(change["new"] or None)

    def _label_sort_order(self) -> None:
        """The toggle's label, icon and tooltip say the order it sorts in, which a click
        flips (a label that always said "ascending" would lie half the time)."""
        up = bool(self.ascending.value)
        self.ascending.description = "ascending" if up else "descending"
        self.ascending.icon = "sort-amount-asc" if up else "sort-amount-desc"
        self.ascending.tooltip = "click to sort " + ("descending" if up else "ascending")

    def _track_changes(self) -> None:
        """Mark the rows whose shown cells (AGE aside) differ from the previous batch,
        or that are new: `changed`, highlighted until the next batch (and for at least
        `mark_seconds`)."""
        df = self.frame.df
        names = [n for n, age in zip(self.frame.columns.names, self.frame.columns.ages,
                                     strict=True) if not age]
        try:
            hashes = pd.util.hash_pandas_object(df[names], index=False)
        except TypeError:  # unhashable cells (lists from a callable column): by their text
            hashes = pd.util.hash_pandas_object(df[names].astype(str), index=False)
        previous, self._hashes = self._hashes, hashes
        synced_before, self._synced = self._synced, bool(self.frame.synced)
        if previous is None or not synced_before:  # the first list is not a change
            self.changed = set()
            return
        new = ~hashes.index.isin(previous.index)
        before = previous.reindex(hashes.index, fill_value=0)  # stays uint64
        last = {str(k) for k in hashes.index[new | (before != hashes).to_numpy()]}
        now = time.monotonic()
        for key in last:
            self._marked_at[key] = now
        present = {str(k) for k in hashes.index}
        self._marked_at = {k: t for k, t in self._marked_at.items()
                           if k in present and (k in last or now - t < self.mark_seconds)}
        self.changed = set(self._marked_at)

    # -- public ------------------------------------------------------------------------

    def set_label_selector(self, text: str) -> None:
        """Filter rows by a label selector; a bad one is shown (and raised) with why."""
        try:
            selector = parse_label_selector(text or "")
        except SelectorError as err:
            self.error.value = f'<span class="kubenb-error">label filter: {esc(err)}</span>'
            raise
        if (text or "") and getattr(self.frame, "informer", None) is None:
            raise KubenbError("ResourceTable: the label filter needs the frame's informer "
                              "(the frame was made without one)")
        self.error.value = ""
        with self._lock:
            self._selector = selector
            if self.labels.value != (text or ""):
                self.labels.value = text or ""
        self.render()

    def show(self, key: str | None) -> None:
        """Show the cached object of `key` as YAML (None clears the view)."""
        informer = getattr(self.frame, "informer", None)
        obj = None
        if key and informer is not None:
            obj = informer.get_indexer().get_by_key(key)
        self.object_view.show(obj, key)
        self.object_view.widget.layout.display = "" if key else "none"

    def filtered(self) -> pd.DataFrame:
        """The frame's rows after the filters and the sort, all of them."""
        df = self.frame.df
        namespace = self.namespace.value
        if namespace != ALL_NAMESPACES:
            df = df[[_namespace_of(k) == namespace for k in df.index]]
        with self._lock:
            selector = self._selector
        informer = self.frame.informer  # set_label_selector refuses a selector without one
        if not selector.empty() and informer is not None:
            indexer = informer.get_indexer()
            keep = []
            for key in df.index:
                obj = indexer.get_by_key(key)
                meta = obj.get("metadata", {}) if isinstance(obj, dict) else {}
                keep.append(obj is not None and selector.matches(meta.get("labels") or {}))
            df = df[keep]
        text = self.search.value.strip().lower()
        if text:  # over the cells as shown ("5s", not "0 days 00:00:05")
            cells = df.apply(lambda col: col.map(lambda v: _cell(v).lower()))
            mask = cells.apply(lambda col: col.str.contains(text, regex=False)).any(axis=1)
            mask |= pd.Series([text in str(k).lower() for k in df.index], index=df.index)
            df = df[mask]
        if self.sort.value == "(key)":
            return df.sort_index(ascending=self.ascending.value)
        try:
            return df.sort_values(self.sort.value, ascending=self.ascending.value,
                                  kind="stable")
        except TypeError:  # mixed types in a column: sort by their text
            return df.sort_values(self.sort.value, ascending=self.ascending.value,
                                  key=lambda col: col.astype(str), kind="stable")

    def _table_html(self, shown: pd.DataFrame, keys: list[str]) -> str:
        columns = list(shown.columns)
        status = {i for i, c in enumerate(columns) if c in _STATUS_COLUMNS}
        head = "".join(f'<th style="position:sticky;top:0;background:#eceff1;text-align:left;'
                       f'padding:2px 10px 2px 4px">{esc(c)}</th>' for c in columns)
        rows = []
        for key, values in zip(keys, shown.itertuples(index=False), strict=True):
            cells = []
            for i, value in enumerate(values):
                text = _cell(value)
                tone = status_tone(text) if i in status else ""
                if tone:
                    cells.append(f'<td class="kubenb-status kubenb-status-{tone}" data-status='
                                 f'"{esc(text)}" style="color:{_TONES[tone]};font-weight:600;'
                                 f'padding:1px 10px 1px 4px">{esc(text)}</td>')
                else:
                    cells.append(f'<td style="padding:1px 10px 1px 4px">{esc(text)}</td>')
            changed = key in self.changed
            css = "kubenb-row kubenb-row-changed" if changed else "kubenb-row"
            style = ' style="background:#fff59d"' if changed else ""
            rows.append(f'<tr class="{css}" data-key="{esc(key)}"{style}>{"".join(cells)}</tr>')
        return (f'<table class="kubenb-table" style="border-collapse:collapse;font-size:12px;'
                f'width:100%"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
                "</table>")

    def render(self) -> None:
        """Recompute the visible rows, the row count, the namespaces and the row picker."""
        with self._lock:
            total = len(self.frame)
            keys = self.frame.keys()  # LiveFrame.keys(): a list, not a dict view
            namespaces = sorted({_namespace_of(k) for k in keys} - {""})
            options = [ALL_NAMESPACES, *namespaces]
            if self.namespace.value not in options:
                options.append(self.namespace.value)
            if list(self.namespace.options) != options:
                self.namespace.options = options
            df = self.filtered()
            matched = len(df)
            shown = df.head(self.max_rows)
            visible = [str(k) for k in shown.index]
            self.body.value = self._table_html(shown, visible)
            more = f" (showing {len(shown)})" if len(shown) < matched else ""
            marked = len(self.changed)
            changed = (f' <span class="kubenb-changed-count" style="background:#fff59d">'
                       f"{marked} changed in the last batch</span>") if marked else ""
            self.row_count.value = (f'<span class="kubenb-row-count-value" data-count='
                                    f'"{matched}">{matched} of {total} rows{more}'
                                    f"</span>{changed}")
            current = self.select.value
            picks = [("(none)", ""), *[(k, k) for k in visible]]
            if current and current not in visible:
                picks.append((current, current))
            if list(self.select.options) != picks:
                self.select.options = picks
                self.select.value = current
            if current:
                self.show(current)
            # last: whoever waits on these numbers finds the rows already drawn
            self.visible_keys = visible
            self.matched = matched
            self.renders += 1

    def close(self) -> None:
        """Stop following the frame (and close it, if this table made it). Idempotent."""
        with self._lock:  # a batch being drawn finishes first; none is drawn after
            if getattr(self, "_table_closed", False):
                return
            self._table_closed = True
        self.frame.unobserve(self._on_batch)
        if self._own_frame:
            self.frame.close()

    def __enter__(self) -> ResourceTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResourceTable({self.frame!r}, matched={self.matched})"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def _namespace_of(key: Any) -> str:
    text = str(key)
    return text.split("/", 1)[0] if "/" in text else ""


def _cell(value: Any) -> str:
    """A cell as kubectl writes it: durations as "5s", "3m", "2d4h"; nothing for a
    missing value."""
    if value is None or value is pd.NaT:
        return ""
    if isinstance(value, (pd.Timedelta, np.timedelta64)):
        seconds = pd.Timedelta(value).total_seconds()
        return "" if pd.isna(seconds) else human_duration(seconds)
    if isinstance(value, float) and pd.isna(value):
        return ""
    return str(value)
