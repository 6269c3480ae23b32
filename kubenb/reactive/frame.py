"""LiveFrame: a pandas DataFrame kept equal to an informer's cache.

One row per object, indexed by its key ("namespace/name"), with `kubectl get`'s
columns by default or the ones you ask for (see columns.py). Informer events are
coalesced per key and applied in batches by the publisher thread, at most `rate`
batches a second; a batch recomputes only the rows of the keys it carries, in place
(rows.py), so upkeep stays proportional to the churn, not to the cache size.

- `frame.df` is a consistent snapshot (every applied batch, or none of it), a new
  DataFrame the caller may change; it is cached until the next batch.
- `frame.observe(handler)` fires once per applied batch (on the `batch` trait), on
  the publisher thread; prints go to `frame.output` in a notebook.
- `history=` keeps a time series of row counts per group, e.g. pods per STATUS,
  as `frame.history` (a DataFrame, one column per group) for plotting.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from traitlets import Int

from kubenb.cache.keys import meta_namespace_key_func
from kubenb.clock import Clock
from kubenb.printers import NONE, kind_for_resource
from kubenb.reactive.columns import ColumnError, ColumnSet, build_columns, path_getter
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.reactive.rows import RowStore, user_copy
from kubenb.reactive.view import Deleted, ReactiveView

if TYPE_CHECKING:
    from kubenb.cache import SharedInformer

__all__ = ["History", "LiveFrame", "build_frame"]

_MISSING = object()


def _hashable(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


class History:
    """Row counts per group over time, one sample per applied batch (bounded)."""

    def __init__(self, size: int = 10_000) -> None:
        if size < 1:
            raise ColumnError(f"history_size must be >= 1, got {size}")
        self._samples: deque[tuple[float, dict[Hashable, int]]] = deque(maxlen=size)
        self._counts: Counter[Hashable] = Counter()
        self._group_of: dict[Hashable, Hashable] = {}

    def set(self, key: Hashable, group: Any) -> None:
        group = _hashable(group)
        old = self._group_of.get(key, _MISSING)
        if old is not _MISSING:
            if old == group:
                return
            self._drop(old)
        self._group_of[key] = group
        self._counts[group] += 1

    def remove(self, key: Hashable) -> None:
        old = self._group_of.pop(key, _MISSING)
        if old is not _MISSING:
            self._drop(old)

    def _drop(self, group: Hashable) -> None:
        self._counts[group] -= 1
        if self._counts[group] <= 0:
            del self._counts[group]

    def sample(self, t: float) -> None:
        self._samples.append((t, dict(self._counts)))

    def counts(self) -> dict[Hashable, int]:
        """Rows per group now."""
        return dict(self._counts)

    def frame(self) -> pd.DataFrame:
        """Time (UTC) x group -> rows; groups absent from a sample count 0."""
        times = [t for t, _ in self._samples]
        rows = [counts for _, counts in self._samples]
        df = pd.DataFrame.from_records(rows, index=pd.to_datetime(times, unit="s", utc=True))
        df.index.name = "time"
        return df.fillna(0).astype("int64") if len(df.columns) else df

    def __len__(self) -> int:
        return len(self._samples)


_DESCRIPTION = re.compile(r"^(?P<api>\S+) (?P<resource>[a-z0-9.-]+) in ")


def informer_kind(informer: SharedInformer | None) -> tuple[str | None, str]:
    """(kind, group) of the objects an informer caches, for kubectl's columns: from
    its expected type, else a cached object's `kind` (list items usually carry none),
    else its ListWatch's "<apiVersion> <resource> in ..." for a built-in resource.
    (None, "") when it cannot tell: the table shows NAME and CREATED AT then."""
    if informer is None:  # a frame fed by hand
        return None, ""
    expected = getattr(informer, "expected_type", None)
    if isinstance(expected, tuple) and len(expected) == 2 and expected[1]:
        api = str(expected[0] or "")
        return str(expected[1]), api.split("/", 1)[0] if "/" in api else ""
    try:
        objects = informer.get_indexer().list()[:1]
    except Exception:
        objects = []
    for obj in objects:
        if isinstance(obj, dict) and obj.get("kind"):
            api = str(obj.get("apiVersion") or "")
            return str(obj["kind"]), api.split("/", 1)[0] if "/" in api else ""
    description = getattr(getattr(informer, "list_watcher", None), "description", "") or ""
    match = _DESCRIPTION.match(str(description))
    if match:
        api = match.group("api")
        group = api.split("/", 1)[0] if "/" in api else ""
        kind = kind_for_resource(match.group("resource"), group)
        if kind:
            return kind, group
    return None, ""


class LiveFrame(ReactiveView):
    """A DataFrame kept equal to an informer's cache (see the module docstring).

    `columns`: None for the kind's `kubectl get` columns, or paths / callables /
    `(name, spec)` pairs / a dict (see `kubenb.reactive.columns`); `extra_columns`
    are appended. `kind`/`group` pick the defaults (guessed from the informer when
    not given); `printer_columns` are a CRD's additionalPrinterColumns.
    `history`: a column name, path or callable to count rows by over time.
    `now`: wall-clock seconds for AGE and history (default `time.time`).
    """

    count = Int(0, help="rows in the frame")

    def __init__(self, informer: SharedInformer | None = None, columns: Any = None, *,
                 kind: str | None = None,
                 group: str = "", printer_columns: Any = None, with_namespace: bool = False,
                 wide: bool = False, extra_columns: Any = None, history: Any = None,
                 history_size: int = 10_000, publisher: Publisher | None = None,
                 rate: float = DEFAULT_RATE, clock: Clock | None = None,
                 now: Callable[[], float] | None = None, output: Any = None,
                 name: str = "") -> None:
        if kind is None:
            kind, guessed_group = informer_kind(informer)
            group = group or guessed_group
        self.kind = kind
        self.columns: ColumnSet = build_columns(
            columns, kind=self.kind, group=group, printer_columns=printer_columns,
            with_namespace=with_namespace, wide=wide, extra_columns=extra_columns)
        self._history_index: int | None = None
        self._history_get: Callable[[Any], Any] | None = None
        if history is not None:
            self._history_index, self._history_get = self._history_source(history)
        super().__init__(informer, publisher=publisher, rate=rate, clock=clock, output=output,
                         name=name)
        self._now = now or time.time
        self._lock = threading.RLock()
        self._rows = RowStore(self.columns.names, self.columns.ages)
        self._history = History(history_size) if history is not None else None
        self._cache: pd.DataFrame | None = None
        self._cache_key: tuple[int, int | None] = (-1, None)
        self.apply_seconds = 0.0
        self.last_changes = {"added": 0, "updated": 0, "deleted": 0}
        self._attach()

    def _history_source(self, spec: Any) -> tuple[int | None, Callable[[Any], Any] | None]:
        if isinstance(spec, str) and spec in self.columns.names:
            return self.columns.names.index(spec), None
        if isinstance(spec, str):
            return None, path_getter(spec)
        if callable(spec):
            return None, spec
        raise ColumnError(f"history= must be a column name, a path or a callable, got "
                          f"{type(spec).__name__}")

    # -- traitlets: observe() defaults to once per batch -------------------------------

    def observe(self, handler: Callable[..., Any], names: Any = ("batch",),
                type: Any = "change") -> None:
        """Call `handler(change)` once per applied batch (`change.new` is the batch
        number; read `frame.df` or `frame.last_changes`). Other trait names work as
        in traitlets."""
        super().observe(handler, names=names, type=type)

    def unobserve(self, handler: Callable[..., Any], names: Any = ("batch",),
                  type: Any = "change") -> None:
        super().unobserve(handler, names=names, type=type)

    # -- applying batches (publisher thread) ---------------------------------------------

    def _apply(self, batch: dict[Any, Any], synced: bool) -> None:
        started = time.thread_time()
        now = self._now()
        row_of = self.columns.row
        history = self._history
        added = updated = deleted = 0
        with self._lock:
            rows = self._rows
            for key, value in batch.items():
                if isinstance(value, Deleted):
                    if rows.delete(key):
                        deleted += 1
                    if history is not None:
                        history.remove(key)
                    continue
                row = row_of(value, now)
                if rows.upsert(key, row):
                    added += 1
                else:
                    updated += 1
                if history is not None:
                    history.set(key, self._group(value, row))
            count = len(rows)
            if history is not None:
                history.sample(now)
        self.last_changes = {"added": added, "updated": updated, "deleted": deleted}
        self.apply_seconds += time.thread_time() - started
        with self.hold_trait_notifications():
            self.count = count
            if synced:
                self.synced = True
            self.batch += 1

    def _group(self, obj: Any, row: tuple[Any, ...]) -> Any:
        if self._history_index is not None:
            return row[self._history_index]
        try:
            return self._history_get(obj)  # type: ignore[misc]
        except Exception:
            return None

    # -- reading -----------------------------------------------------------------------

    @property
    def df(self) -> pd.DataFrame:
        """A consistent snapshot: one row per key, as of the last applied batch."""
        now = self._now()
        with self._lock:
            key = (self._rows.version, int(now) if any(self.columns.ages) else None)
            if self._cache is None or key != self._cache_key:
                self._cache = self._rows.frame(now)
                self._cache_key = key
            return user_copy(self._cache)

    @property
    def history(self) -> pd.DataFrame | None:
        """Rows per group over time (None unless made with `history=`)."""
        if self._history is None:
            return None
        with self._lock:
            return self._history.frame()

    def keys(self) -> list[Hashable]:
        with self._lock:
            return self._rows.keys()

    def row(self, key: Hashable) -> dict[str, Any] | None:
        """The current row of `key` as {column: value} (AGE as epoch seconds), or None."""
        with self._lock:
            values = self._rows.get(key)
        return None if values is None else dict(zip(self.columns.names, values, strict=True))

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._rows

    def stats(self) -> dict[str, Any]:
        """The publisher counters plus rows and the CPU seconds spent applying batches."""
        return {**super().stats(), "rows": len(self), "apply_seconds": self.apply_seconds}

    def __repr__(self) -> str:
        state = "closed" if self.closed else "synced" if self.synced else "syncing"
        return (f"LiveFrame({self.kind or 'objects'}, rows={len(self)}, "
                f"columns={list(self.columns.names)}, {state}, batches={self.batch})")

    def _repr_html_(self) -> str:
        """The frame as a notebook shows it: like `kubectl get`, a cell with no value
        reads `<none>` (`df` keeps None there, pandas' missing value, for `isna()`)."""
        df = self.df
        missing = [c for c in df.columns if df[c].dtype == object and df[c].isna().any()]
        if missing:
            df[missing] = df[missing].fillna(NONE)
        return df._repr_html_()  # type: ignore[operator]


def build_frame(objects: Iterable[Any], columns: ColumnSet, now: float,
                key_func: Callable[[Any], str] = meta_namespace_key_func) -> pd.DataFrame:
    """A DataFrame computed from scratch from `objects` with `columns`, the way a
    notebook would without LiveFrame: the reference for tests and the baseline of
    the benchmarks. Same shape and values as `LiveFrame.df`."""
    keys: list[str] = []
    records: list[tuple[Any, ...]] = []
    row_of = columns.row
    for obj in objects:
        keys.append(key_func(obj))
        records.append(row_of(obj, now))
    df = pd.DataFrame.from_records(records, columns=list(columns.names),
                                   index=pd.Index(keys, name="key", dtype=object))
    for name, age in zip(columns.names, columns.ages, strict=True):
        if age:
            stamps = pd.to_numeric(df[name], errors="coerce").astype(float)
            df[name] = pd.to_timedelta(np.floor(now - stamps), unit="s")
    return df
