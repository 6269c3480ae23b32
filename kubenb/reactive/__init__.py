"""Live views of an informer's cache: traitlets objects and pandas DataFrames.

Informer threads hand updates to a `Publisher`, which coalesces them per key and
applies them from one background thread at a bounded rate per view (why: see
publisher.py). On top of it: `ObservableObject` (one object by key),
`ObservableCollection` (a whole informer, with callbacks), `LiveFrame` (a DataFrame
equal to the cache) and `ListProgress` (the initial list, page by page).
"""

from kubenb.reactive.collection import ObservableCollection
from kubenb.reactive.columns import (
    Column,
    ColumnError,
    ColumnSet,
    build_columns,
    crd_printer_columns,
    default_columns,
    path_column,
)
from kubenb.reactive.frame import History, LiveFrame, build_frame
from kubenb.reactive.observable import KIND_TRAITS, ObservableObject
from kubenb.reactive.output import capture_output, check_kernel, in_kernel, kernel_problem
from kubenb.reactive.progress import ListProgress
from kubenb.reactive.publisher import (
    DEFAULT_RATE,
    DROP,
    Channel,
    Publisher,
    PublisherError,
    hold_sync_sink,
    latest,
)
from kubenb.reactive.view import Deleted, FeedHandler, ReactiveView

__all__ = [
    "DEFAULT_RATE",
    "DROP",
    "KIND_TRAITS",
    "Channel",
    "Column",
    "ColumnError",
    "ColumnSet",
    "Deleted",
    "FeedHandler",
    "History",
    "ListProgress",
    "LiveFrame",
    "ObservableCollection",
    "ObservableObject",
    "Publisher",
    "PublisherError",
    "ReactiveView",
    "build_columns",
    "build_frame",
    "capture_output",
    "check_kernel",
    "crd_printer_columns",
    "default_columns",
    "hold_sync_sink",
    "in_kernel",
    "kernel_problem",
    "latest",
    "path_column",
]
