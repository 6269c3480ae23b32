"""ResourceTable: a LiveFrame as a live, sortable, filterable table, plus ObjectView.

The rows come from a `LiveFrame` (kept equal to the informer's cache by the
reactive publisher). The table re-renders once per applied batch, on the publisher
thread inside `hold_sync()`, and again whenever a filter changes. Filters: namespace
(dropdown), label selector (apimachinery's grammar, matched against the cached
objects), free-text search over every cell. Picking a row shows its object as YAML
in an `ObjectView`.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as widgets
import pandas as pd
import yaml

from kubenb.cache.selectors import parse_label_selector
from kubenb.errors import KubenbError, SelectorError
from kubenb.reactive.frame import LiveFrame
from kubenb.widgets._html import esc, table_html

__all__ = ["ALL_NAMESPACES", "ObjectView", "ResourceTable", "to_yaml"]

ALL_NAMESPACES = "(all namespaces)"
_SECRET_KINDS = {"Secret"}


def to_yaml(obj: Any) -> str:
    """The object as kubectl-style YAML; a Secret's data values are masked so a widget
    never shows them."""
    if isinstance(obj, dict) and obj.get("kind") in _SECRET_KINDS:
        obj = {**obj, **{f: {k: "***" for k in (obj.get(f) or {})}
                         for f in ("data", "stringData") if f in obj}}
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)


class ObjectView:
    """One object as YAML in an HTML <pre> (class `kubenb-object-view`)."""

    def __init__(self, obj: Any = None) -> None:
        self.widget = widgets.HTML()
        self.widget.add_class("kubenb-object-view")
        self.key: str | None = None
        self.show(obj)

    def show(self, obj: Any, key: str | None = None) -> None:
        """Show `obj` (None clears the view)."""
        self.key = key
        self.obj = obj
        if obj is None:
            self.widget.value = '<div class="kubenb-object-empty">no object selected</div>'
        else:
            self.widget.value = f'<pre class="kubenb-yaml">{esc(to_yaml(obj))}</pre>'

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


class ResourceTable:
    """A live table of a LiveFrame (see the module docstring).

    Give a `LiveFrame`, or an informer (a LiveFrame with namespaces is made and owned:
    `close()` closes it). `max_rows` bounds the rendered rows (the count says how
    many matched). The label filter reads labels from `frame.informer`'s cache.
    """

    def __init__(self, source: Any, *, max_rows: int = 200, sort_by: str | None = None,
                 ascending: bool = True, **frame_options: Any) -> None:
        if isinstance(source, LiveFrame):
            if frame_options:
                raise KubenbError(f"ResourceTable: {sorted(frame_options)} are LiveFrame "
                                  "options; give them when making the frame, or pass an "
                                  "informer")
            self.frame, self._own_frame = source, False
        elif source is not None and hasattr(source, "get_indexer"):
            frame_options.setdefault("with_namespace", True)
            self.frame, self._own_frame = LiveFrame(source, **frame_options), True
        else:
            raise KubenbError(f"ResourceTable needs a LiveFrame or an informer, got "
                              f"{type(source).__name__}")
        if max_rows < 1:
            raise KubenbError(f"ResourceTable(max_rows={max_rows!r}): must be >= 1")
        self.max_rows = max_rows
        self._lock = threading.RLock()
        self._selector = parse_label_selector("")
        self.visible_keys: list[str] = []
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
        self.ascending = widgets.ToggleButton(value=ascending, description="ascending")
        self.ascending.add_class("kubenb-sort-order")
        self.row_count = widgets.HTML()
        self.row_count.add_class("kubenb-row-count")
        self.error = widgets.HTML()
        self.error.add_class("kubenb-table-error")
        self.body = widgets.HTML()
        self.body.add_class("kubenb-table-body")
        self.select = widgets.Dropdown(options=[("(none)", "")], value="",
                                       description="object")
        self.select.add_class("kubenb-row-select")
        self.object_view = ObjectView()
        self.widget = widgets.VBox([
            widgets.HBox([self.namespace, self.labels, self.search]),
            widgets.HBox([self.sort, self.ascending, self.row_count]),
            self.error, self.body, self.select, self.object_view.widget])
        self.widget.add_class("kubenb-resource-table")

        for control in (self.namespace, self.search, self.sort, self.ascending):
            control.observe(self._on_filter, names="value")
        self.labels.observe(self._on_labels, names="value")
        self.select.observe(self._on_select, names="value")
        self.frame.observe(self._on_batch)
        self.render()

    # -- events ------------------------------------------------------------------------

    def _on_batch(self, change: Any) -> None:
        with self.widget.hold_sync():  # the publisher thread: one message per batch
            self.render()

    def _on_filter(self, change: Any) -> None:
        self.render()

    def _on_labels(self, change: Any) -> None:
        self.set_label_selector(change["new"])

    def _on_select(self, change: Any) -> None:
        self.show(change["new"] or None)

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

    def filtered(self) -> pd.DataFrame:
        """The frame's rows after the filters and the sort, all of them."""
        df = self.frame.df
        namespace = self.namespace.value
        if namespace != ALL_NAMESPACES:
            df = df[[_namespace_of(k) == namespace for k in df.index]]
        with self._lock:
            selector = self._selector
        if not selector.empty():
            indexer = self.frame.informer.get_indexer()
            keep = []
            for key in df.index:
                obj = indexer.get_by_key(key)
                meta = obj.get("metadata", {}) if isinstance(obj, dict) else {}
                keep.append(obj is not None and selector.matches(meta.get("labels") or {}))
            df = df[keep]
        text = self.search.value.strip().lower()
        if text:
            cells = df.astype(str).apply(lambda col: col.str.lower())
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
            self.matched = len(df)
            shown = df.head(self.max_rows)
            self.visible_keys = [str(k) for k in shown.index]
            rows = [[_cell(v) for v in row] for row in shown.itertuples(index=False)]
            self.body.value = table_html(list(shown.columns), rows, "kubenb-table",
                                         self.visible_keys)
            more = f" (showing {len(shown)})" if len(shown) < self.matched else ""
            self.row_count.value = (f'<span class="kubenb-row-count-value" data-count='
                                    f'"{self.matched}">{self.matched} of {total} rows{more}'
                                    "</span>")
            current = self.select.value
            picks = [("(none)", ""), *[(k, k) for k in self.visible_keys]]
            if current and current not in self.visible_keys:
                picks.append((current, current))
            if list(self.select.options) != picks:
                self.select.options = picks
                self.select.value = current
            if current:
                self.show(current)
            self.renders += 1

    def close(self) -> None:
        """Stop following the frame (and close it, if this table made it). Idempotent."""
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
    if isinstance(value, pd.Timedelta):
        from kubenb.printers import human_duration

        return human_duration(value.total_seconds())
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    return str(value)
